"""16. Slow request bodies (issue 29, finding 7): 39 connections each send `POST /api/accounts`
with `Content-Length: 60000`, then one byte of the body every 25 s. Before, all 39 were still open
after 150 s; now a body that stops coming for 10 s (or averages under 1 KB/s after 10 s) has its
connection closed."""
import selectors
import socket
import time

CONNECTIONS = 39
SOURCE = "127.0.0.80"
CLOSE_WITHIN = 15.0
EVERY = 25.0


def check_slow_bodies(a):
    s = a.serve(name="attack16")
    socks = []
    for _ in range(CONNECTIONS):
        c = socket.socket()
        c.bind((SOURCE, 0))
        c.connect(("127.0.0.1", s.port))
        c.sendall(b"POST /api/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{")
        c.setblocking(False)
        socks.append(c)
    started = time.monotonic()
    sel = selectors.DefaultSelector()
    for c in socks:
        sel.register(c, selectors.EVENT_READ)
    closed = {}
    next_byte = started + EVERY
    while len(closed) < CONNECTIONS and time.monotonic() - started < CLOSE_WITHIN:
        for key, _ in sel.select(0.2):
            try:
                data = key.fileobj.recv(65536)
            except OSError:
                data = b""
            if not data:
                closed[key.fileobj] = time.monotonic() - started
                sel.unregister(key.fileobj)
        if time.monotonic() >= next_byte:   # a byte every 25 s (none comes within the window)
            for c in socks:
                if c not in closed:
                    try:
                        c.send(b" ")
                    except OSError:
                        pass
            next_byte += EVERY
    sel.close()
    for c in socks:
        c.close()
    times = sorted(closed.values())
    a.figure(f"{CONNECTIONS} POST bodies of a promised 60,000 bytes, a byte every {EVERY:.0f} s: {len(closed)} closed by the server "
             f"within {CLOSE_WITHIN:.0f} s" + (f" (after {times[0]:.1f}–{times[-1]:.1f} s)" if times else ""),
             table=f"{len(closed)} of {CONNECTIONS} slow bodies closed" + (f" after ≤ {times[-1]:.0f} s" if times else ""))
    a.check(f"every slow body's connection is closed within {CLOSE_WITHIN:.0f} s", len(closed) == CONNECTIONS, f"{len(closed)} of {CONNECTIONS}")
