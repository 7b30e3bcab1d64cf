"""18. Socket messages that skipped the rate limit (issue 29, finding 4): two anonymous sockets in
a public room send, as fast as they can for 10 s, text messages of 1 MB (over the 64 KiB message
limit) and compressed frames of about 1 KB that inflate to 1 MB. Before, such messages were refused
before the 60-a-second limit and never counted toward closing the socket, and each compressed one
was inflated to 1 MB first: server 199 % CPU, /healthz timing out. Now every message is charged by
its size first, refused ones count toward closing the socket, and a frame is inflated to at most
the 64 KiB message limit."""
import base64
import os
import socket
import struct
import threading
import time
import zlib

from proteinar_testing import attack_tools as tools

from .visitor import ORDINARY_LIMIT_S, idle_after, ordinary_model_during

SECONDS = 10.0
BIG = 1_000_000        # under the 1 MiB frame limit (larger frames close the socket at once)


def open_socket(port, path, source, compress):
    s = socket.socket()
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    head = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n")
    if compress:
        head += "Sec-WebSocket-Extensions: permessage-deflate\r\n"
    s.sendall((head + "\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = s.recv(4096)
        if not chunk:
            break
        answer += chunk
    return s, answer.split(b"\r\n\r\n", 1)[0].decode(errors="replace")


def frame(payload, rsv1=False):
    """A masked text frame."""
    first = 0x80 | (0x40 if rsv1 else 0) | 0x1
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", first, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", first, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, n)
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if n < 4096 else \
        (int.from_bytes(payload, "big") ^ int.from_bytes((mask * (n // 4 + 1))[:n], "big")).to_bytes(n, "big")
    return head + mask + body


def flood(port, path, source, compress, out):
    s, head = open_socket(port, path, source, compress)
    sent, closed_after = 0, None
    if compress:
        deflater = zlib.compressobj(9, zlib.DEFLATED, -15)
        packed = deflater.compress(b"[" + b" " * (BIG - 2) + b"]") + deflater.flush(zlib.Z_SYNC_FLUSH)
        message = frame(packed[:-4], rsv1=True)
    else:
        message = frame(b'{"type":"x","pad":"' + b"a" * (BIG - 20) + b'"}')
    drained = threading.Event()

    def drain():
        try:
            while s.recv(65536):
                pass
        except OSError:
            pass
        drained.set()
    threading.Thread(target=drain, daemon=True).start()
    started = time.monotonic()
    try:
        while time.monotonic() - started < SECONDS and not drained.is_set():
            s.sendall(message)
            sent += 1
    except OSError:
        pass
    if drained.wait(max(0.0, SECONDS + 2 - (time.monotonic() - started))):
        closed_after = time.monotonic() - started
    s.close()
    out.append((head.split("\r\n", 1)[0], len(message), sent, closed_after))


def check_socket_messages(a):
    s = a.serve(name="attack18")
    (owner,) = a.admin_then(s, "Host")
    made = tools.request(s, "POST", "/api/rooms", {"name": "open room", "isPublic": True}, token=owner.token)
    a.check("a public room (201)", made.status == 201, f"HTTP {made.status} {tools.message(made)}")
    path = f"/api/rooms/{made.json['id']}/live"
    cpu_before = tools.cpu_seconds(s.pid)
    started = time.monotonic()
    results = []
    threads = [threading.Thread(target=flood, args=(s.port, path, f"127.0.0.{100 + i}", i == 1, results)) for i in range(2)]

    def attack():
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    visitor, _ = ordinary_model_during(s, "0.35", attack, after=0.3)
    time.sleep(max(0.0, 2.0 - (time.monotonic() - started)))   # a window of at least 2 s for the CPU figure
    took = time.monotonic() - started
    cpu = tools.cpu_seconds(s.pid) - cpu_before
    for status, size, sent, closed in results:
        a.figure(f"a socket ({status}) sending {size / 1e3:.0f} KB frames for {SECONDS:.0f} s: {sent} sent, "
                 + (f"closed by the server after {closed:.1f} s" if closed is not None else "not closed"))
    a.figure(f"server CPU over the {took:.0f} s: {cpu:.1f} s ({100 * cpu / took:.0f} % of a core)",
             table=f"2 sockets of 1 MB messages: closed after {', '.join(f'{r[3]:.1f} s' if r[3] is not None else 'never' for r in results)}; CPU {100 * cpu / took:.0f} %")
    a.check("both sockets are upgraded (101)", all(r[0].startswith("HTTP/1.1 101") for r in results), str([r[0] for r in results]))
    a.check("each is closed by the server within the 10 s (refused messages count toward closing it)",
            all(r[3] is not None and r[3] < SECONDS for r in results), str([(r[2], r[3]) for r in results]))
    a.check("the server's CPU over the attack stays under half a core", cpu < 0.5 * took, f"{cpu:.1f} s in {took:.0f} s")
    a.figure(f"another visitor's uncached 1AKE model 0.3 s into the flood: HTTP {visitor.status} in {visitor.elapsed:.2f} s",
             table=f"1AKE {visitor.elapsed:.2f} s")
    a.check(f"another visitor's uncached 1AKE model answers in under {ORDINARY_LIMIT_S:.0f} s",
            visitor.status == 200 and visitor.elapsed < ORDINARY_LIMIT_S, f"HTTP {visitor.status} in {visitor.elapsed:.2f} s")
    idle_after(a, s, "after the sockets")
