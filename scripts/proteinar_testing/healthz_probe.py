"""Probes GET /healthz every 50 ms from a process of its own (so the attack's own Python work cannot
delay it) and follows the server's peak RSS; run by attack_tools.HealthProbe, not by hand.

    python healthz_probe.py HOST PORT SERVER_PID OUT_FILE

Each probe starts on its 50 ms tick whether or not the last one has answered (at most 32 in
flight; a tick with 32 still waiting counts as a probe that did not answer), so a stall shows in
every probe it delays, not just one. Writes, as they happen, `probe LATENCY_MS STATUS` lines
(STATUS 0: no answer, with LATENCY_MS the time waited) and `peak KB` lines (VmHWM of SERVER_PID).
SIGTERM: stops ticking, gives the probes in flight 1 s, records the rest as unanswered, exits."""
import http.client
import signal
import sys
import threading
import time

TICK = 0.05
TIMEOUT = 10.0
MAX_IN_FLIGHT = 32


def main():
    host, port, pid, out_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    out = open(out_path, "a", buffering=1)
    lock = threading.Lock()
    in_flight = {}
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())

    def write(line):
        with lock:
            out.write(line + "\n")

    def probe(key):
        started = time.monotonic()
        status = 0
        try:
            conn = http.client.HTTPConnection(host, port, timeout=TIMEOUT)
            conn.request("GET", "/healthz", headers={"Connection": "close"})
            resp = conn.getresponse()
            resp.read()
            status = resp.status
            conn.close()
        except Exception:  # noqa: BLE001 — refused, reset or timed out: an unanswered probe
            status = 0
        with lock:
            if in_flight.pop(key, None) is None:
                return  # already recorded as unanswered at shutdown
        write(f"probe {(time.monotonic() - started) * 1000:.1f} {status}")

    def peak():
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        write(f"peak {int(line.split()[1])}")
                        return
        except OSError:
            pass

    serial = 0
    next_tick = time.monotonic()
    while not stopping.is_set():
        serial += 1
        with lock:
            busy = len(in_flight)
        if busy >= MAX_IN_FLIGHT:
            write(f"probe {TIMEOUT * 1000:.1f} 0")
        else:
            with lock:
                in_flight[serial] = time.monotonic()
            threading.Thread(target=probe, args=(serial,), daemon=True).start()
        if serial % 2 == 0:
            peak()
        next_tick += TICK
        stopping.wait(max(0.0, next_tick - time.monotonic()))
    peak()
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        with lock:
            if not in_flight:
                break
        time.sleep(0.02)
    with lock:
        left = dict(in_flight)
        in_flight.clear()
    now = time.monotonic()
    for started in left.values():
        write(f"probe {(now - started) * 1000:.1f} 0")
    out.close()


if __name__ == "__main__":
    main()
