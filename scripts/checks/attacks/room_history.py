"""22-23. A public room's past, read by strangers (issue 29, findings 5 and 11).

22. A room whose log is large while its state is a few bytes: 5,000 strokes of 500 points, each
    added then removed (10,000 operations). Before, anonymous `GET …/operations?limit=5000` answered
    73 MB each (16 readers at once: /healthz p99 7.4 s, 1.8 GB) and 8 readers of `state?at=N` took
    69 CPU s in 35 s. Now a page is at most 1 MiB, sent as stored, from a budget per client and
    address; past states are rebuilt one at a time.
23. 40 watchers that stop reading while 21,000 operations arrive, then read again. Before, each was
    caught up from the log (1.56 GB, 52 CPU s, /healthz up to 4.1 s); now one far behind is told
    `behind` and closed, and its reconnect (`after=N`) gets the room as it is now."""
import base64
import http.client
import json
import os
import socket
import struct
import threading
import time

from proteinar_testing import attack_tools as tools
from proteinar_testing.accounts import make_room

from .visitor import idle_after

PAGE_LIMIT = (1 << 20) + (64 << 10)    # a page's body: 1 MiB of operations and the envelope
GUESTS = 8


def fill_log(server, room, adds):
    """`adds` strokes of 500 points added and then removed (2 × `adds` operations), by GUESTS
    guests each from an address of its own over HTTP: (operations stored, seconds)."""
    done = [0]
    lock = threading.Lock()

    def guest(g):
        rng = tools.rng(g)
        key = f"attack-guest-{g:04d}-" + os.urandom(6).hex()
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60, source_address=(f"127.0.0.{110 + g}", 0))
        headers = {"X-Guest-Key": key, "Content-Type": "application/json"}
        for k in range(g, adds, GUESTS):
            pts = [[round(rng.uniform(-1, 1), 4), round(rng.uniform(0, 1), 4), round(rng.uniform(-1, 1), 4)] for _ in range(500)]
            for op in ({"type": "add-stroke", "id": f"s{k}", "points": pts, "color": "#3366ff", "width": 0.002},
                       {"type": "remove-stroke", "id": f"s{k}"}):
                for _ in range(50):
                    conn.request("POST", f"/api/rooms/{room}/operations", body=json.dumps({"clientOpID": f"c{k}{op['type']}", "operation": op}),
                                 headers=headers)
                    resp = conn.getresponse()
                    resp.read()
                    if resp.status != 429:
                        break
                    time.sleep(float(resp.headers.get("Retry-After") or 1) / 4)
                if resp.status == 200:
                    with lock:
                        done[0] += 1
        conn.close()

    started = time.monotonic()
    threads = [threading.Thread(target=guest, args=(g,)) for g in range(GUESTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return done[0], time.monotonic() - started


def public_room(a, s, name):
    (owner,) = a.admin_then(s, "Host")
    return make_room(s, owner, name, public=True, guests_may_draw=True)


def readers(s, paths_of, count, seconds, source):
    """`count` anonymous readers from `source`, each asking `paths_of(i, last)` in a loop for
    `seconds` (a kept-alive connection each): statuses, bytes and the largest body."""
    lock = threading.Lock()
    out = {"statuses": [], "bytes": 0, "largest": 0}

    def reader(i):
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=60, source_address=(source, 0))
        last = None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                conn.request("GET", paths_of(i, last))
                resp = conn.getresponse()
                body = resp.read()
            except (OSError, http.client.HTTPException):
                conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=60, source_address=(source, 0))
                continue
            if resp.status == 200 and body.startswith(b'{"more"'):
                page = json.loads(body)
                last = page["operations"][-1]["sequence"] if page["more"] and page["operations"] else None
            with lock:
                out["statuses"].append(resp.status)
                out["bytes"] += len(body)
                out["largest"] = max(out["largest"], len(body))
            if resp.status in (429, 503):
                time.sleep(0.2)
        conn.close()

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def check_room_log(a):
    s = a.serve(name="attack22")
    room = public_room(a, s, "a long log")
    ops, took = fill_log(s, room, 5_000)
    a.figure(f"the room filled with {ops:,} operations (500-point strokes added, then removed) by {GUESTS} guests in {took:.0f} s; "
             f"data folder {tools.du_bytes(s.data_dir) / 1e6:.0f} MB")
    a.check("the room's log was filled (10,000 operations)", ops == 10_000, f"{ops:,}")
    state = tools.try_request(s, "GET", f"/api/rooms/{room}/state", source="127.0.0.90")
    a.figure(f"the room's state: HTTP {state.status}, {len(json.dumps(state.json))} bytes")
    # 16 anonymous readers of the log for 20 s, each following the pages. (In 10 s a slow machine's
    # readers took 155 MB, as much as the budget and its refill allow in that time, and met no 429.)
    seconds = 20.0
    log = readers(s, lambda i, last: f"/api/rooms/{room}/operations?limit=5000&after={last or 0}", 16, seconds, "127.0.0.91")
    counts = tools.status_counts(log["statuses"])
    a.figure(f"16 anonymous readers of the log for {seconds:.0f} s: {counts}; {log['bytes'] / 1e6:.0f} MB sent, largest page {log['largest'] / 1e6:.2f} MB",
             table=f"log: {counts}, {log['bytes'] / 1e6:.0f} MB in {seconds:.0f} s, pages ≤ {log['largest'] / 1e6:.2f} MB")
    a.check("every page is at most 1 MiB of operations", log["largest"] <= PAGE_LIMIT, f"{log['largest']:,} bytes")
    # The address's budget: 128 MiB at once, then 128 MiB a minute (about 45 MB more in the 20 s).
    a.check("the readers' address runs out of its budget (429): at most 128 MiB and a minute's refill",
            429 in log["statuses"] and log["bytes"] <= (128 << 20) * (1 + seconds / 60) + PAGE_LIMIT * 16, f"{counts}, {log['bytes'] / 1e6:.0f} MB")
    idle_after(a, s, "after the log readers")
    # 8 readers of past states, each at random places.
    rng = tools.rng(22)
    past = readers(s, lambda i, last: f"/api/rooms/{room}/state?at={rng.randrange(1, 10_001)}", 8, 10.0, "127.0.0.92")
    counts = tools.status_counts(past["statuses"])
    a.figure(f"8 anonymous readers of state?at=N for 10 s: {counts}", table=f"state?at: {counts}")
    a.check("past states are answered (200) or refused with a reason (429/503)",
            all(st in (200, 429, 503) for st in past["statuses"]) and 200 in past["statuses"], counts)
    idle_after(a, s, "after the past-state readers")


# -- attack 23: watchers that stop reading, then read again

def ws_open(port, path, source):
    """A WebSocket client with a small receive buffer, the handshake done: the socket and the bytes
    after the handshake's head."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(4096)
        if not chunk:
            raise OSError("closed during the handshake")
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    if not head.startswith(b"HTTP/1.1 101"):
        raise OSError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
    return s, rest


def ws_messages(s, buf, until, last=None):
    """Reads frames until `until(message)` is true for a small text message, or a large one holds
    `"sequence":last}` (the room's last operation), or the server closes: (the message, or
    {"type": "op", "sequence": last} for a large one, or None; close code or None; bytes read).
    Large messages are searched, not parsed: the attacker's own CPU must not be what slows the
    server's /healthz on a two-core machine."""
    buf = bytearray(buf)
    total, at = len(buf), 0
    marker = f'"sequence":{last}}}'.encode() if last is not None else None
    while True:
        while len(buf) - at >= 2:
            n, off = buf[at + 1] & 0x7F, 2
            if n == 126:
                if len(buf) - at < 4:
                    break
                n, off = struct.unpack(">H", buf[at + 2:at + 4])[0], 4
            elif n == 127:
                if len(buf) - at < 10:
                    break
                n, off = struct.unpack(">Q", buf[at + 2:at + 10])[0], 10
            if len(buf) - at < off + n:
                break
            opcode, start = buf[at] & 0x0F, at + off
            at = start + n
            if opcode == 0x8:
                return None, struct.unpack(">H", buf[start:start + 2])[0] if n >= 2 else None, total
            if opcode in (0x0, 0x1) and marker is not None and buf.find(marker, start, at) >= 0:
                return {"type": "op", "sequence": last}, None, total
            if opcode == 0x1 and n < 4096:
                try:
                    m = json.loads(bytes(buf[start:at]))
                except ValueError:
                    continue
                if until(m):
                    return m, None, total
        del buf[:at]
        at = 0
        chunk = s.recv(1 << 20)
        if not chunk:
            return None, None, total
        total += len(chunk)
        buf += chunk


def check_slow_readers(a):
    s = a.serve(name="attack23")
    room = public_room(a, s, "slow readers")
    path = f"/api/rooms/{room}/live"
    watchers = []
    for i in range(40):
        sock, rest = ws_open(s.port, path, f"127.0.0.{130 + i % 4}")
        welcome, _, _ = ws_messages(sock, rest, lambda m: m.get("type") == "welcome")
        watchers.append((sock, welcome.get("sequence", 0) if welcome else 0))
    a.check("40 watchers joined (welcome)", len(watchers) == 40)
    # They stop reading while the room moves on.
    ops, took = fill_log(s, room, 10_500)
    rss_paused = tools.rss_mb(s.pid)
    a.figure(f"{ops:,} operations while 40 watchers did not read, in {took:.0f} s; RSS then {rss_paused:.0f} MB")
    # They read again: each until it is current, or told it is behind (then it comes back with after=N).
    cpu_before = tools.cpu_seconds(s.pid)
    results = []
    lock = threading.Lock()

    def resume(sock, seq):
        started = time.monotonic()
        message, code, read = ws_messages(sock, b"", lambda m: m.get("type") == "error" or m.get("sequence") == ops, last=ops)
        sock.close()
        outcome = "current" if message and message.get("type") != "error" else (message or {}).get("code", f"closed {code}")
        again = None
        if outcome != "current":
            # As the page does after any close: back with after=N.
            s2, rest = ws_open(s.port, f"{path}?after={seq}", "127.0.0.140")
            welcome, _, more = ws_messages(s2, rest, lambda m: m.get("type") == "welcome")
            s2.close()
            again = (welcome or {}).get("sequence")
            read += more
        with lock:
            results.append((outcome, read, again, time.monotonic() - started))

    threads = [threading.Thread(target=resume, args=w) for w in watchers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cpu = tools.cpu_seconds(s.pid) - cpu_before
    outcomes = tools.status_counts([r[0] for r in results])
    received = sum(r[1] for r in results)
    slowest = max(r[3] for r in results)
    rejoined = sum(1 for r in results if r[0] != "current" and r[2] == ops)
    a.figure(f"40 watchers reading again: {outcomes}; {rejoined} came back with after=N and were welcomed at {ops:,}; "
             f"{received / 1e6:.0f} MB received in all, the slowest current after {slowest:.1f} s; server CPU {cpu:.1f} s",
             table=f"40 resumed: {outcomes}, {received / 1e6:.0f} MB, CPU {cpu:.1f} s")
    a.check("each watcher is current again (caught up, or let go and welcomed at the room's sequence on reconnecting with after=N)",
            all(r[0] == "current" or r[2] == ops for r in results), outcomes)
    a.check("catching up costs the server under 10 CPU s in all", cpu < 10, f"{cpu:.1f} s")
    idle_after(a, s, "after the watchers")
