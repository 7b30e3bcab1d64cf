"""8. The HTTP edge: slow headers, silent and idle connections, and a head the parser rejects (a NUL
byte in a header: what schemathesis's first probe sends) closed in time; 100 KB of headers →
431; 1,050 silent connections from one address (the server under the usual 1,024 open files) do
not stop /healthz from another; SIGTERM ends the process within 10 s with such clients connected."""
import socket
import threading
import time

from proteinar_testing import attack_tools as tools

CLOSE_LIMIT = 30.0     # slow and silent connections are closed within this
WAIT = 36.0            # how long to watch them
SILENT = 1_050
SYSTEM_NOFILE = 1_024


def watch_close(port, kind, results):
    """Opens one connection of `kind` and records how long the server keeps it."""
    try:
        s = tools.connect(port)
        if kind == "slow headers (a byte a second)":
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            results[kind] = tools.time_to_close(s, WAIT, trickle=b"X-Slow: " + b"a" * 200)
        elif kind == "silent (nothing sent)":
            results[kind] = tools.time_to_close(s, WAIT)
        elif kind.startswith("a NUL byte"):
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Probe: \x00\r\n\r\n")
            results[kind] = tools.time_to_close(s, WAIT)
        else:  # idle keep-alive after one whole request
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            status, _, _ = tools.read_head(s, 5)
            results[kind] = tools.time_to_close(s, WAIT) if status == 200 else f"no answer to the first request ({status})"
        s.close()
    except OSError as e:
        results[kind] = f"{type(e).__name__}: {e}"


def open_silent(port, count, source):
    """`count` connections from `source` that send nothing: (sockets, failures in words)."""
    socks, failures = [], {}
    for _ in range(count):
        try:
            s = socket.socket()
            s.bind((source, 0))
            s.settimeout(2)
            s.connect(("127.0.0.1", port))
            socks.append(s)
        except OSError as e:
            key = e.strerror or type(e).__name__
            failures[key] = failures.get(key, 0) + 1
    return socks, failures


def refused_count(socks):
    """How many of `socks` the server has already answered with something (a 503 line) or closed."""
    n = 0
    for s in socks:
        s.setblocking(False)
        try:
            s.recv(4096)   # a refusal line, or b"" for a close: either way not held open silently
            n += 1
        except BlockingIOError:
            pass
        except OSError:
            n += 1
        s.setblocking(True)
    return n


def check_edge(a):
    tools.raise_open_file_limit(4 * SILENT)
    s = a.serve(nofile=SYSTEM_NOFILE)
    results = {}
    kinds = ["slow headers (a byte a second)", "silent (nothing sent)", "idle keep-alive after a request",
             "a NUL byte in a header (answered or not)"]
    watchers = [threading.Thread(target=watch_close, args=(s.port, k, results)) for k in kinds]
    for t in watchers:
        t.start()

    # 100 KB of headers.
    try:
        big = tools.connect(s.port, source="127.0.0.5")
        head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(b"X-Pad-%d: %s\r\n" % (i, b"b" * 1000) for i in range(100)) + b"\r\n"
        try:
            big.sendall(head)
        except OSError:
            pass  # the server may close before reading it all
        status, data, closed = tools.read_head(big, 10)
        big.close()
    except OSError as e:
        status, data, closed = None, str(e).encode(), True
    a.figure(f"100 KB of headers: {'HTTP ' + str(status) if status else 'no answer'}{' then closed' if closed else ''}",
             table=f"100 KB headers → {status or 'no answer'}")
    a.check("100 KB of headers → 431", status == 431, f"got {status}: {data[:80]!r}")

    # 1,050 silent connections from 127.0.0.2, then /healthz from 127.0.0.1.
    socks, failures = open_silent(s.port, SILENT, "127.0.0.2")
    time.sleep(1.0)
    refused = refused_count(socks)
    health = [tools.try_request(s, "GET", "/healthz", timeout=5) for _ in range(3)]
    a.figure(f"{SILENT} silent connections from 127.0.0.2 (server open-file limit {SYSTEM_NOFILE}): {len(socks)} connected"
             f"{', failures ' + str(failures) if failures else ''}, {refused} already refused or closed by the server; "
             f"/healthz from 127.0.0.1: {[(h.status, round(h.elapsed * 1000)) for h in health]} (status, ms)",
             table=f"{SILENT} silent: healthz {[h.status for h in health]}")
    a.check(f"{SILENT} silent connections do not stop /healthz from another address (200 within 1 s)",
            all(h.status == 200 and h.elapsed < 1 for h in health), str([(h.status, round(h.elapsed, 2)) for h in health]))
    for x in socks:
        x.close()

    for t in watchers:
        t.join()
    for kind in kinds:
        took = results.get(kind)
        limit = CLOSE_LIMIT + (1.0 if kind.startswith("idle") else 0.0)   # the idle timeout is 30 s itself
        shown = f"closed after {took:.1f} s" if isinstance(took, float) else ("still open after %.0f s" % WAIT if took is None else took)
        a.figure(f"{kind}: {shown}", table=f"{kind.split(' (')[0].split(' after')[0]}: {shown}")
        a.check(f"{kind}: closed within {limit:.0f} s", isinstance(took, float) and took <= limit, shown)

    # SIGTERM with such clients connected.
    clients, _ = open_silent(s.port, 200, "127.0.0.3")
    slow = tools.connect(s.port, source="127.0.0.4")
    slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaa")
    partial = tools.connect(s.port, source="127.0.0.6")
    try:
        partial.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Pad: " + b"c" * 60_000)
    except OSError:
        pass
    idle = tools.connect(s.port, source="127.0.0.7")
    idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    tools.read_head(idle, 5)
    a.peak_now(s)
    a.stop_probe(s)
    started = time.monotonic()
    s.proc.terminate()
    try:
        s.proc.wait(15)
        took = time.monotonic() - started
    except Exception:  # noqa: BLE001 — still running: ended here so the run goes on
        took = None
        kids = tools.kill_with_children(s)
        if kids:
            a.figure(f"after SIGTERM the server had started {len(kids)} process(es) (a crash's backtracer?): see {s.log_path}")
    for x in clients + [slow, partial, idle]:
        x.close()
    a.figure(f"SIGTERM with 200 silent, one slow, one half-sent 60 KB head and one idle client: "
             + (f"ended in {took:.1f} s" if took is not None else "still running after 15 s (killed)"),
             table="SIGTERM " + (f"{took:.1f} s" if took is not None else "> 15 s"))
    a.check("SIGTERM ends the process within 10 s with such clients connected", took is not None and took <= 10,
            "still running after 15 s" if took is None else f"{took:.1f} s")
