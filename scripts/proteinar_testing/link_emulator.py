"""A phone's network in user space, between two network namespaces: a `proteinar-bench-srv` and a
`proteinar-bench-cli` namespace, 10.77.0.1 and 10.77.0.2, each with one TUN device, and an emulator
process (this module, run as `python -m proteinar_testing.link_emulator CONFIG`) that passes every IP
packet across, one queue per direction: a packet waits for the link to be free, takes len*8/rate on
it, then travels the one-way delay (RTT/2), as `tc netem delay D rate R` does. The kernels the
benchmarks run on may lack sch_netem, so nothing here depends on it. Needs root (ip netns,
/dev/net/tun).

    make_namespaces(); link = Link(down_mbit, up_mbit, rtt_ms, queue_limit)
    ... run servers with `ip netns exec NS_SERVER`, clients with `ip netns exec NS_CLIENT` ...
    stats = link.stop(); describe(stats); remove_namespaces()

Standard library only."""
import collections
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import time

NS_SERVER, NS_CLIENT = "proteinar-bench-srv", "proteinar-bench-cli"
DEV_SERVER, DEV_CLIENT = "pbench-srv0", "pbench-cli0"
IP_SERVER, IP_CLIENT = "10.77.0.1", "10.77.0.2"

PROFILES = {"4G": (20.0, 5.0, 60.0), "3G": (1.6, 0.75, 300.0)}   # down Mbit/s, up Mbit/s, RTT ms
SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, check=True, **kw):
    return subprocess.run(list(args), check=check, **kw)


# ---------------------------------------------------------------------------------------------
# The emulator process: runs until its stdin closes, then prints its statistics as one JSON line.

def emulate(cfg):
    import fcntl
    TUNSETIFF, IFF_TUN, IFF_NO_PI = 0x400454CA, 0x0001, 0x1000

    def tun(name):
        fd = os.open("/dev/net/tun", os.O_RDWR)
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
        return fd

    srv, cli = tun(DEV_SERVER), tun(DEV_CLIENT)
    for dev, ns, me, peer in ((DEV_SERVER, NS_SERVER, IP_SERVER, IP_CLIENT), (DEV_CLIENT, NS_CLIENT, IP_CLIENT, IP_SERVER)):
        run("ip", "link", "set", dev, "netns", ns)
        run("ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"net.ipv6.conf.{dev}.disable_ipv6=1", check=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        run("ip", "-n", ns, "addr", "add", me, "peer", peer, "dev", dev)
        run("ip", "-n", ns, "link", "set", dev, "mtu", "1500", "up")
    for fd in (srv, cli):
        os.set_blocking(fd, False)
    try:  # the emulator's timing must not suffer from the server and Chromium taking both cores
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(20))
    except (OSError, AttributeError):
        try: os.nice(-15)
        except OSError: pass

    class Way:
        def __init__(self, name, src, dst, mbit, delay_ms):
            self.name, self.src, self.dst = name, src, dst
            self.sec_per_byte = 8 / (mbit * 1e6)
            self.delay = delay_ms / 1000
            self.free = 0.0       # when the link is next free
            self.q = collections.deque()   # (deliver at, packet)
            self.packets = self.bytes = self.drops = self.max_queue = 0
            self.late_max = self.late_sum = 0.0
            self.late_over_2ms = 0

    limit = cfg["limit"]
    down = Way("down", srv, cli, cfg["down"], cfg["rtt"] / 2)
    up = Way("up", cli, srv, cfg["up"], cfg["rtt"] / 2)
    ways = {srv: down, cli: up}
    stdin = sys.stdin.fileno()
    print("ready", flush=True)
    while True:
        now = time.monotonic()
        fronts = [w.q[0][0] for w in (down, up) if w.q]
        timeout = max(0.0, min(fronts) - now) if fronts else None
        readable, _, _ = select.select([srv, cli, stdin], [], [], timeout)
        for fd in readable:
            if fd == stdin:
                if not os.read(stdin, 4096):
                    stats = {w.name: {"packets": w.packets, "bytes": w.bytes, "drops": w.drops, "max_queue": w.max_queue,
                                      "late_max_ms": w.late_max * 1000, "late_mean_ms": w.late_sum / max(1, w.packets) * 1000,
                                      "late_over_2ms": w.late_over_2ms} for w in (down, up)}
                    print(json.dumps(stats), flush=True)
                    return
                continue
            w = ways[fd]
            while True:
                try:
                    pkt = os.read(fd, 65536)
                except BlockingIOError:
                    break
                if not pkt:
                    break
                now = time.monotonic()
                if len(w.q) >= limit:
                    w.drops += 1
                    continue
                w.free = max(now, w.free) + len(pkt) * w.sec_per_byte
                w.q.append((w.free + w.delay, pkt))
                w.max_queue = max(w.max_queue, len(w.q))
        now = time.monotonic()
        for w in (down, up):
            while w.q and w.q[0][0] <= now:
                due, pkt = w.q.popleft()
                try:
                    os.write(w.dst, pkt)
                except OSError:
                    w.drops += 1
                    continue
                late = now - due
                w.packets += 1
                w.bytes += len(pkt)
                w.late_sum += late
                w.late_max = max(w.late_max, late)
                if late > 0.002: w.late_over_2ms += 1


class Link:
    """The emulator process for one profile; stop() returns its statistics."""

    def __init__(self, down, up, rtt, limit):
        cfg = json.dumps({"down": down, "up": up, "rtt": rtt, "limit": limit})
        # Run as a module from scripts/, so that its own folder is not on sys.path ahead of the standard library.
        self.proc = subprocess.Popen([sys.executable, "-m", "proteinar_testing.link_emulator", cfg], cwd=SCRIPTS,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            self.proc.kill()
            raise RuntimeError(f"the link emulator did not start (said {line!r})")

    def stop(self):
        if self.proc.poll() is not None:
            return None
        self.proc.stdin.close()
        try:
            out = self.proc.stdout.readline()
            self.proc.wait(10)
            return json.loads(out) if out.strip() else None
        except (subprocess.TimeoutExpired, ValueError):
            self.proc.kill()
            return None


def remove_namespaces():
    """Removes the two namespaces (an earlier run's too) and ends what runs in them."""
    have = run("ip", "netns", "list", capture_output=True, text=True).stdout
    for ns in (NS_SERVER, NS_CLIENT):
        if not re.search(rf"^{re.escape(ns)}\b", have, re.M):
            continue
        pids = run("ip", "netns", "pids", ns, capture_output=True, text=True, check=False).stdout.split()
        for pid in pids:
            try: os.kill(int(pid), signal.SIGTERM)
            except (ProcessLookupError, ValueError): pass
        deadline = time.time() + 5
        while pids and time.time() < deadline:
            pids = [p for p in pids if os.path.exists(f"/proc/{p}")]
            time.sleep(0.1)
        for pid in pids:
            try: os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError): pass
        run("ip", "netns", "del", ns, check=False)


def make_namespaces():
    remove_namespaces()
    for ns in (NS_SERVER, NS_CLIENT):
        run("ip", "netns", "add", ns)
        run("ip", "-n", ns, "link", "set", "lo", "up")


def describe(stats):
    """One line of a stopped Link's statistics, both directions."""
    return "; ".join(
        f"{w} {v['packets']} packets {v['bytes'] / 1e6:.1f} MB, {v['drops']} dropped, queue max {v['max_queue']}, "
        f"late mean {v['late_mean_ms']:.2f} ms max {v['late_max_ms']:.1f} ms ({v['late_over_2ms']} > 2 ms)"
        for w, v in stats.items())


if __name__ == "__main__":
    emulate(json.loads(sys.argv[1]))
