"""17. Conflicting length headers (issue 29, finding 3): `Content-Length` with `Transfer-Encoding:
chunked`, and two different `Content-Length`s, in one packet. Before, no answer and the connection
open after 200 s, and 20 such sockets under `--max-connections 20` made every new client get 503.
A bad chunk size got 500. Now: 400 naming the ambiguity (a bad chunk size: 400 too), and closed; on a kept-alive connection after a good request, the
good request is answered and the connection closed. With `--max-connections 20`, 20 such sockets
leave room for the next client."""
import socket
import time

from proteinar_testing import attack_tools as tools

SOURCE = "127.0.0.90"
CL_TE = b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
CL_CL = b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcd"
GOOD = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
BAD_CHUNK = (b"POST /api/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
             b"zz\r\n{}\r\n0\r\n\r\n")


def exchange(server, payload, wait=6.0):
    """Sends `payload` on a new connection: (what came back, whether the server closed it, seconds)."""
    c = socket.socket()
    c.bind((SOURCE, 0))
    c.connect(("127.0.0.1", server.port))
    c.sendall(payload)
    c.settimeout(wait)
    started = time.monotonic()
    got, closed = b"", False
    try:
        while True:
            chunk = c.recv(65536)
            if not chunk:
                closed = True
                break
            got += chunk
    except OSError:
        pass
    c.close()
    return got, closed, time.monotonic() - started


def check_framing(a):
    s = a.serve(extra=["--max-connections", "20"], name="attack17")
    for label, payload in (("Content-Length with Transfer-Encoding", CL_TE), ("two Content-Lengths", CL_CL)):
        got, closed, took = exchange(s, payload)
        first = got.split(b"\r\n", 1)[0].decode(errors="replace")
        a.figure(f"{label}: {first or 'no answer'}; closed {closed} after {took:.1f} s")
        a.check(f"{label}: 400 naming the ambiguity, then closed", first.startswith("HTTP/1.1 400") and b"framing" in got and closed,
                f"{first!r}, closed {closed}")
    got, closed, took = exchange(s, BAD_CHUNK)
    first = got.split(b"\r\n", 1)[0].decode(errors="replace")
    a.figure(f"a chunked body with the chunk size 'zz': {first or 'no answer'}; closed {closed} after {took:.1f} s")
    a.check("a bad chunk size: 400 (the client's fault, not the server's 500), then closed",
            first.startswith("HTTP/1.1 400") and closed, f"{first!r}, closed {closed}")
    got, closed, took = exchange(s, GOOD + CL_TE)
    a.check("after a good request on the same connection: the good one answered 200, then the connection closed within 5 s",
            got.startswith(b"HTTP/1.1 200") and closed and took < 5, f"{got[:40]!r}, closed {closed} after {took:.1f} s")
    socks = []
    for _ in range(20):
        c = socket.socket()
        c.bind((SOURCE, 0))
        c.connect(("127.0.0.1", s.port))
        c.sendall(CL_TE)
        socks.append(c)
    time.sleep(1.0)
    r = tools.try_request(s, "GET", "/healthz", source="127.0.0.91", timeout=10)
    for c in socks:
        c.close()
    a.figure(f"20 such connections under --max-connections 20, then a new client: HTTP {r.status}",
             table=f"400 and closed; 20 bad sockets then a new client {r.status}")
    a.check("20 such connections leave room for the next client (200, not 503)", r.status == 200, f"HTTP {r.status} {tools.message(r)}")
