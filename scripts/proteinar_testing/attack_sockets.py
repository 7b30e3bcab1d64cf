"""Many raw WebSocket clients of one room for the attack suite (scripts/checks/test_attacks.py):
Watchers joins them on one thread and tells admitted from refused (and why) and bytes received;
one_socket() is a single such client. Standard library only, like the rest of proteinar_testing."""
import base64
import collections
import errno
import json
import os
import selectors
import socket
import struct
import time

from .attack_tools import connect


# -- many WebSocket clients on one thread

class Watchers:
    """`count` read-only WebSocket clients of `path` on `port` from `source`, on raw non-blocking
    sockets: join() opens them (at most `parallel` handshakes at once) and reads until each is
    admitted (`welcome`), refused (an HTTP status instead of 101, or an `error` message, or a close
    before welcome) or `deadline` passes; drain() keeps reading; close() drops them all. Everything
    received is counted (.received), and read at once, as a quick client does."""

    def __init__(self, port, path, count, source="127.0.0.3", headers=None, parallel=200):
        self.port, self.path, self.count, self.source = port, path, count, source
        self.extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.parallel = parallel
        self.sel = selectors.DefaultSelector()
        self.conns = {}
        self.received = 0
        self.admitted = 0
        self.outcomes = collections.Counter()   # "admitted", or the refusal in words
        self.started = 0

    def _open_one(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((self.source, 0))
            s.setblocking(False)
            err = s.connect_ex(("127.0.0.1", self.port))
        except OSError as e:
            s.close()
            self.outcomes[f"could not connect: {e.strerror or e}"] += 1
            return
        if err not in (0, errno.EINPROGRESS):
            s.close()
            self.outcomes[f"could not connect: {os.strerror(err)}"] += 1
            return
        key = base64.b64encode(os.urandom(16)).decode()
        c = {"sock": s, "state": "connecting", "buf": b"", "out": (
            f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{self.extra}\r\n").encode()}
        self.conns[s.fileno()] = c
        self.sel.register(s, selectors.EVENT_WRITE, c)

    def _settle(self, c, outcome):
        if c["state"] in ("admitted", "refused"):
            return
        c["state"] = "admitted" if outcome == "admitted" else "refused"
        self.outcomes[outcome] += 1
        if outcome == "admitted":
            self.admitted += 1

    def _drop(self, c):
        try:
            self.sel.unregister(c["sock"])
        except (KeyError, ValueError):
            pass
        self.conns.pop(c["sock"].fileno(), None)
        c["sock"].close()

    def _pending(self):
        return sum(1 for c in self.conns.values() if c["state"] in ("connecting", "head", "welcome"))

    def _feed(self, c, data):
        """Takes frames from what arrived. Until the first text message (welcome or error) and for
        control frames, whole frames are read; anything else is skipped by its length, unread."""
        if c.get("skip"):
            taken = min(c["skip"], len(data))
            c["skip"] -= taken
            data = data[taken:]
        buf = c["buf"] + data if c["buf"] else data
        while len(buf) >= 2:
            b0, b1 = buf[0], buf[1]
            n, off = b1 & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, off = struct.unpack(">H", buf[2:4])[0], 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n, off = struct.unpack(">Q", buf[2:10])[0], 10
            if b1 & 0x80:
                off += 4
            opcode = b0 & 0x0F
            wanted = opcode in (0x8, 0x9) or c["state"] == "welcome"
            if not wanted:
                if len(buf) >= off + n:
                    buf = buf[off + n:]
                    continue
                c["skip"], buf = off + n - len(buf), b""
                break
            if len(buf) < off + n:
                break
            payload, buf = buf[off:off + n], buf[off + n:]
            if opcode == 0x9:  # ping: a client owes a pong (masked)
                mask = os.urandom(4)
                body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload[:125]))
                try:
                    c["sock"].send(bytes([0x8A, 0x80 | len(body)]) + mask + body)
                except OSError:
                    pass
            elif opcode == 0x8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
                self._settle(c, f"closed before welcome (close code {code})")
                c["buf"] = b""
                return False
            elif opcode == 0x1:
                try:
                    m = json.loads(payload)
                except ValueError:
                    m = {}
                if m.get("type") == "welcome":
                    self._settle(c, "admitted")
                elif m.get("type") == "error":
                    self._settle(c, f"error {m.get('code')}: {m.get('message')}")
        c["buf"] = buf
        return True

    def _read(self, c):
        s = c["sock"]
        while True:
            try:
                chunk = s.recv(1 << 18)
            except BlockingIOError:
                return True
            except OSError as e:
                self._settle(c, f"reset ({e.strerror or e})")
                return False
            if not chunk:
                if c["state"] == "head":
                    text = c["buf"].decode(errors="replace").strip()
                    self._settle(c, f"closed without an answer{': ' + ' '.join(text.split())[:100] if text else ''}")
                elif c["state"] == "welcome":
                    self._settle(c, "closed before welcome")
                return False
            self.received += len(chunk)
            if c["state"] == "head":
                c["buf"] += chunk
                end = c["buf"].find(b"\r\n\r\n")
                if end < 0:
                    if len(c["buf"]) > 65536:
                        self._settle(c, "an endless answer head")
                        return False
                    continue
                head, rest = c["buf"][:end], c["buf"][end + 4:]
                c["buf"] = b""
                first = head.split(b"\r\n", 1)[0].decode(errors="replace")
                if " 101 " not in first + " ":
                    body = rest[:200].decode(errors="replace")
                    status = first.split(" ", 1)[1] if " " in first else first
                    self._settle(c, f"HTTP {status}{': ' + ' '.join(body.split())[:100] if body.strip() else ''}")
                    return False
                c["state"] = "welcome"
                chunk = rest
            if not self._feed(c, chunk):
                return False

    def join(self, deadline=60.0):
        """Opens every client and waits until each is admitted or refused, or `deadline` s pass."""
        self.started = time.monotonic()
        end = self.started + deadline
        opened = 0
        while time.monotonic() < end:
            while opened < self.count and self._pending() < self.parallel:
                self._open_one()
                opened += 1
            if opened >= self.count and self._pending() == 0:
                break
            self._poll(0.05)
        for c in list(self.conns.values()):
            if c["state"] in ("connecting", "head", "welcome"):
                self._settle(c, f"no answer within {deadline:g} s ({c['state']})")
        self.join_seconds = time.monotonic() - self.started
        return self

    def _poll(self, timeout):
        for key, events in self.sel.select(timeout):
            c = key.data
            if c["state"] == "connecting":
                err = c["sock"].getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    self._settle(c, f"could not connect: {os.strerror(err)}")
                    self._drop(c)
                    continue
                try:
                    c["sock"].send(c["out"])
                except OSError as e:
                    self._settle(c, f"could not send the handshake: {e.strerror or e}")
                    self._drop(c)
                    continue
                c["state"] = "head"
                self.sel.modify(c["sock"], selectors.EVENT_READ, c)
                continue
            if not self._read(c):
                self._drop(c)

    def drain(self, seconds):
        """Keeps reading for `seconds` (what arrives is counted)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self._poll(min(0.1, max(0.0, end - time.monotonic())))
        return self

    def open_count(self):
        return sum(1 for c in self.conns.values() if c["state"] == "admitted")

    def close(self):
        for c in list(self.conns.values()):
            self._drop(c)
        self.sel.close()

    def refusals(self, top=4):
        """The ways clients were refused, most frequent first: [(count, words)]."""
        return [(n, what) for what, n in self.outcomes.most_common() if what != "admitted"][:top]


def one_socket(port, path, headers=None, source=None, timeout=10):
    """One WebSocket client: 'admitted' (got welcome) or the refusal in words."""
    w = Watchers(port, path, 1, source=source or "127.0.0.1", headers=headers)
    w.join(timeout)
    w.close()
    return next(iter(w.outcomes))
