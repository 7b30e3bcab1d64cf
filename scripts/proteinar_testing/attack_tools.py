"""What the attack suite (scripts/checks/test_attacks.py) needs besides the rest of the harness:

  figures of a process   peak_rss_mb(pid) rss_mb(pid) cpu_seconds(pid) cpu_profile(pid, s) bytes_written(pid);
                         children(pid), kill_with_children(server)
  HealthProbe            GET /healthz every 50 ms from a process of its own (healthz_probe.py); p50/p99
                         and peak RSS; percentile()
  open_file_limit(n)     the soft RLIMIT_NOFILE for a while (children started meanwhile inherit it);
                         raise_open_file_limit(n) for this process's own clients
  serve_options(binary)  the options `proteinar serve --help` lists
  request()              one HTTP request from a chosen loopback address (127.0.0.0/8 is all loopback
                         on Linux), with its time; try_request(), message(); raw sockets for what HTTP
                         clients will not send: connect(), read_head(), time_to_close()
  (many WebSocket clients of a room: attack_sockets.py)
  (files to attack with: attack_files.py)
  the rest               du_bytes(), rng(), wave_at_once(), log_size(), converted_lines(), status_counts()

Standard library only, like the rest of proteinar_testing."""
import contextlib
import http.client
import json
import os
import random
import re
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time

from .http_client import Response

CLK_TCK = os.sysconf("SC_CLK_TCK")


# -- figures of a process, from /proc

def _status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def peak_rss_mb(pid):
    kb = _status_kb(pid, "VmHWM")
    return None if kb is None else kb / 1024


def rss_mb(pid):
    kb = _status_kb(pid, "VmRSS")
    return None if kb is None else kb / 1024


def cpu_seconds(pid):
    """User and system CPU time of the process (all its threads) so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def bytes_written(pid):
    """`wchar`: every byte the process has passed to write/send so far (sockets, files, logs)."""
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    raise RuntimeError(f"no wchar in /proc/{pid}/io")


def children(pid):
    """Processes whose parent is `pid` (a crashing Swift server's swift-backtrace, say)."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return out


def kill_with_children(server):
    """SIGKILL for `server` and for what it started (a backtracer outlives its crashed parent)."""
    kids = children(server.pid)
    server.kill()
    for kid in kids:
        try:
            os.kill(kid, signal.SIGKILL)
        except OSError:
            pass
    return kids


def cpu_profile(pid, seconds, step=0.5):
    """CPU seconds the process uses in each `step` over the next `seconds`: a list."""
    out, last = [], cpu_seconds(pid)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline - 1e-3:
        time.sleep(min(step, deadline - time.monotonic()))
        try:
            now = cpu_seconds(pid)
        except OSError:
            break
        out.append(now - last)
        last = now
    return out


# -- the health probe

def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))
    return ordered[k]


class HealthProbe:
    """healthz_probe.py against `server` while an attack runs. stop() → self (the figures below)."""

    def __init__(self, server):
        self.server = server
        fd, self.path = tempfile.mkstemp(prefix="healthz-", suffix=".txt")
        os.close(fd)
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "healthz_probe.py")
        self.proc = subprocess.Popen([sys.executable, script, "127.0.0.1", str(server.port), str(server.pid), self.path])
        self.latencies, self.unanswered, self.peak_kb = [], 0, 0
        # The attack starts once the probe is probing.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.proc.poll() is None:
            with open(self.path) as f:
                if "probe " in f.read():
                    break
            time.sleep(0.02)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with open(self.path) as f:
            for line in f:
                parts = line.split()
                if parts[0] == "probe":
                    latency, status = float(parts[1]), int(parts[2])
                    self.latencies.append(latency if status == 200 else max(latency, 10_000.0))
                    self.unanswered += status != 200
                elif parts[0] == "peak":
                    self.peak_kb = max(self.peak_kb, int(parts[1]))
        os.unlink(self.path)
        return self


# -- limits and options

@contextlib.contextmanager
def open_file_limit(n):
    """The soft open-file limit set to `n` (the hard one raised when allowed) inside the block; what
    is started meanwhile keeps it. Yields the limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, max(hard, n)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(n, hard), hard))
    try:
        yield resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    finally:
        now_hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, now_hard), now_hard))


def raise_open_file_limit(n):
    """Raises this process's own soft limit to at least `n` (for its many clients); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= n:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, max(hard, n)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


_options = {}


def serve_options(binary):
    """Every --option that `BINARY serve --help` names."""
    if binary not in _options:
        out = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=30)
        words = (out.stdout + out.stderr).replace("[", " ").replace("]", " ").replace("/", " ").split()
        _options[binary] = {w.rstrip(",.:)") for w in words if w.startswith("--")}
    return _options[binary]


# -- HTTP from a chosen address

def request(server, method, path, body=None, headers=None, token=None, source=None, timeout=30, content_type=None):
    """One request to `server` (a ServerProcess) from `source` (an address in 127/8); a Response with
    .elapsed (seconds to the whole answer). `body`: bytes as they are, else JSON. Connection
    failures raise OSError (http.client's exceptions are OSErrors or HTTPException)."""
    h = {"Accept": "application/json", "Connection": "close"}
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h["Content-Type"] = content_type or ("application/octet-stream" if isinstance(body, bytes) else "application/json")
    if token:
        h["Authorization"] = f"Bearer {token}"
    h.update(headers or {})
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request(method, path, body=data, headers=h)
        resp = conn.getresponse()
        raw = resp.read()
        r = Response(resp.status, resp.headers, raw)
    finally:
        conn.close()
    r.elapsed = time.monotonic() - started
    return r


def try_request(*args, **kw):
    """request(), or a Response with status 0 and the error's text when no answer came."""
    started = time.monotonic()
    try:
        return request(*args, **kw)
    except (OSError, http.client.HTTPException) as e:
        r = Response(0, {}, f"{type(e).__name__}: {e}".encode())
        r.elapsed = time.monotonic() - started
        return r


def message(resp, limit=160):
    """The error text of a JSON error answer, or the start of the body."""
    kind = (resp.headers.get("Content-Type") or "") if resp.headers else ""
    if isinstance(resp.json, dict) and isinstance(resp.json.get("error"), str):
        text = resp.json["error"]
    elif resp.status == 0 or kind.startswith(("application/json", "text/")) or not resp.raw:
        text = resp.text
    else:
        return f"{len(resp.raw)} bytes of {kind or 'something'}"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def connect(port, source=None, timeout=10):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if source:
        s.bind((source, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    return s


def read_head(sock, timeout):
    """What the server sends back on `sock` within `timeout` until the end of a response head or the
    connection's end: (status or None, bytes read, closed)."""
    sock.settimeout(0.2)
    data, closed = b"", False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and b"\r\n\r\n" not in data:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
    status = None
    if data.startswith(b"HTTP/1."):
        try:
            status = int(data.split(b" ", 2)[1])
        except (IndexError, ValueError):
            status = None
    return status, data, closed


def time_to_close(sock, limit, trickle=None):
    """Seconds until the server closes `sock` (EOF or reset), reading and dropping what it sends, or
    None when it is still open after `limit`. `trickle`: bytes to send one a second meanwhile."""
    started = time.monotonic()
    sock.settimeout(0.1)
    next_send, i = started, 0
    while (elapsed := time.monotonic() - started) < limit:
        if trickle is not None and time.monotonic() >= next_send:
            try:
                sock.send(trickle[i % len(trickle):i % len(trickle) + 1])
            except OSError:
                return elapsed
            i += 1
            next_send += 1.0
        try:
            chunk = sock.recv(65536)
            if not chunk:
                return time.monotonic() - started
        except socket.timeout:
            continue
        except OSError:
            return time.monotonic() - started
    return None


# -- the rest

def du_bytes(path):
    """Bytes of the files under `path`."""
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def rng(seed=None):
    return random.Random(seed if seed is not None else int.from_bytes(os.urandom(8), "big"))


def wave_at_once(port, requests, source, wait):
    """Sends `requests` ((path, extra header lines or "") pairs) at once, each on a connection of its
    own from `source`, and closes each after `wait` s: (status, Retry-After) of what came in time,
    (None, None) for those still waiting (their conversions are then abandoned)."""
    sel = selectors.DefaultSelector()
    socks = []
    for path, extra in requests:
        s = socket.socket()
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n{extra}\r\n".encode())
        s.setblocking(False)
        socks.append({"sock": s, "data": b"", "done": False})
        sel.register(s, selectors.EVENT_READ, socks[-1])
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and not all(c["done"] for c in socks):
        for key, _ in sel.select(max(0.0, deadline - time.monotonic())):
            c = key.data
            try:
                chunk = c["sock"].recv(65536)
            except OSError:
                chunk = b""
            if not chunk or b"\r\n\r\n" in c["data"] + chunk:
                c["done"] = True
                sel.unregister(c["sock"])
            c["data"] += chunk[:65536]
    out = []
    for c in socks:
        c["sock"].close()
        head = c["data"].split(b"\r\n\r\n", 1)[0].decode(errors="replace")
        if head.startswith("HTTP/1."):
            lines = head.split("\r\n")
            retry = next((l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("retry-after:")), None)
            out.append((int(lines[0].split()[1]), retry))
        else:
            out.append((None, None))
    sel.close()
    return out


def log_size(server):
    """Where the server's log ends now (for reading what it writes from here on)."""
    with open(server.log_path, "rb") as f:
        return f.seek(0, 2)


def converted_lines(server, offset=0, molecule=r"\S+"):
    """The server's `converted ID KEY in N ms` lines since `offset` (of `molecule`, a pattern)."""
    with open(server.log_path, "rb") as f:
        f.seek(offset)
        text = f.read().decode(errors="replace")
    return [line.strip() for line in text.splitlines() if re.search(rf"\bconverted {molecule} \S+ in \d+", line)]


def status_counts(statuses):
    """'3× 200, 2× 429, 1× no answer' from a list of statuses (None: no answer)."""
    out = {}
    for st in statuses:
        out[st] = out.get(st, 0) + 1
    return ", ".join(f"{n}× {st if st else 'no answer'}" for st, n in sorted(out.items(), key=lambda kv: kv[0] or 0))
