"""One live WebSocket client of a room (the `websockets` package), and how a refused socket is told
apart from an admitted one."""
import json
import re
import time
import urllib.parse

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

from proteinar_testing.accounts import rid
from proteinar_testing.compact_snapshot import inflate
from proteinar_testing.report import Fail, expect, short


class Refused(Exception):
    """The live socket was refused: an HTTP status at the handshake (`status`), or an error and a
    close before `welcome` (`code`, the error's code)."""
    def __init__(self, text, status=None, code=None, close=None):
        super().__init__(text)
        self.status, self.code, self.close = status, code, close


class Live:
    """One WebSocket client of a room: keeps every message it receives (ops, acks, errors) in order."""
    serial = 0

    def __init__(self, server, room, token=None, guest=None, after=None, name="client", rate=50.0, headers=None, origin=None,
                 snapshot=None):
        Live.serial += 1
        self.name = f"{name}#{Live.serial}"
        query = {}
        if after is not None:
            query["after"] = str(after)
        if snapshot:
            query["snapshot"] = snapshot
        if guest:
            query["guest"] = guest
        url = f"{server.ws}/api/rooms/{room}/live" + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {**({"Authorization": f"Bearer {token}"} if token else {}), **(headers or {})}
        self.ops, self.acks, self.errors, self.messages = [], {}, [], []
        # Who is in the room as this client knows it: the full list a joiner gets, then the changes.
        self.peers, self.watchers = {}, 0
        self.closed = None
        self.rate, self.tokens, self.refill = rate, min(rate, 60.0), time.monotonic()
        self.counter = 0
        try:
            self.ws = ws_connect(url, additional_headers=headers, open_timeout=10, close_timeout=2, max_size=2 ** 24,
                                 compression=None, origin=origin, legacy=True)
        except InvalidStatus as e:
            body = (e.response.body or b"").decode(errors="replace").strip()
            raise Refused(f"HTTP {e.response.status_code} at the handshake{', ' + short(body, 120) if body else ', empty body'}",
                          status=e.response.status_code)
        try:
            self.welcome = self.wait(lambda m: m if m["type"] == "welcome" else None, 10, "welcome")
        except ConnectionClosed as e:
            code = self.errors[0].get("code") if self.errors else None
            raise Refused(f"error {short(self.errors, 160)}, then closed ({e})" if self.errors else f"closed before welcome ({e})",
                          code=code, close=e.rcvd.code if e.rcvd else None)
        except Fail as e:
            if self.errors:
                raise Refused(f"error before welcome: {short(self.errors)}", code=self.errors[0].get("code"))
            raise e
        self.you = self.welcome.get("you", {})
        # snapshot=deflated: the compact snapshot comes next as a binary frame of raw DEFLATE.
        self.frame = None
        if self.welcome.get("snapshotFrame"):
            self.frame = self.wait(lambda m: m if m["type"] == "binary" else None, 10, "the snapshot frame")["bytes"]
            self.welcome["snapshot"] = inflate(self.frame)

    # receiving

    def _presence(self, m):
        if m["type"] == "presence":
            self.peers = {p["connection"]: p for p in m.get("peers", [])}
        else:
            for p in m.get("joined", []):
                self.peers[p["connection"]] = p
            for c in m.get("left", []):
                self.peers.pop(c, None)
            for moved in m.get("moved", []):
                if moved.get("connection") in self.peers:
                    self.peers[moved["connection"]]["view"] = moved.get("view")
        self.watchers = m.get("watchers", self.watchers)

    def wait_peers(self, pred, timeout, what):
        """Waits until the presence this client has been told satisfies `pred(peers)`; returns the peers."""
        peers = lambda: list(self.peers.values())
        if pred(peers()):
            return peers()
        return self.wait(lambda m: peers() if m.get("type", "").startswith("presence") and pred(peers()) else None, timeout, what)

    def _recv(self, timeout):
        try:
            raw = self.ws.recv(timeout=max(timeout, 0.001))
        except TimeoutError:
            return None
        except ConnectionClosed as e:
            self.closed = e
            raise
        if isinstance(raw, bytes):
            self.messages.append({"type": "binary", "bytes": raw})
            return self.messages[-1]
        m = json.loads(raw)
        # Ops that waited together come as one "ops" message: take them one by one, in order.
        for m in (m.get("ops", []) if m.get("type") == "ops" else [m]):
            self.messages.append(m)
            t = m.get("type")
            if t == "op":
                self.ops.append(m)
            elif t == "ack":
                self.acks[m.get("clientOpID")] = m
            elif t == "error":
                self.errors.append(m)
            elif t in ("presence", "presence-changes"):
                self._presence(m)
        return m

    def wait(self, pred, timeout, what):
        deadline = time.monotonic() + timeout
        start = len(self.messages)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Fail(f"{self.name}: waited {timeout} s for {what}; received meanwhile: "
                           f"{short([m.get('type') + ':' + str(m.get('sequence', m.get('code', ''))) for m in self.messages[start:]])}"
                           f"{'; last: ' + short(self.messages[-1], 200) if self.messages[start:] else ''}")
            m = self._recv(remaining)
            if m is not None:
                r = pred(m)
                if r is not None:
                    return r

    def answer(self, cid, timeout=5, loose=False):
        """The ack or error for `cid` (one already received, or the next to arrive). `loose`: an
        error without a clientOpID counts too (the server could not read the message's id)."""
        if cid in self.acks:
            return self.acks[cid]
        for e in self.errors:
            if e.get("clientOpID") == cid:
                return e

        def mine(m):
            if m.get("type") == "ack" and m.get("clientOpID") == cid:
                return m
            if m.get("type") == "error" and (m.get("clientOpID") == cid or (loose and m.get("clientOpID") is None)):
                return m
            return None
        return self.wait(mine, timeout, f"the answer to {cid}")

    def next_error(self, timeout=5, what="an error"):
        seen = len(self.errors)
        if len(self.errors) > seen:
            return self.errors[seen]
        return self.wait(lambda m: m if m.get("type") == "error" else None, timeout, what)

    def wait_ops(self, count, timeout=5):
        if len(self.ops) >= count:
            return self.ops
        self.wait(lambda m: True if len(self.ops) >= count else None, timeout, f"{count} ops (have {len(self.ops)})")
        return self.ops

    def wait_sequence(self, sequence, timeout=5):
        if self.ops and self.ops[-1]["sequence"] >= sequence:
            return
        self.wait(lambda m: True if m.get("type") == "op" and m["sequence"] >= sequence else None, timeout,
                  f"op {sequence} (last op {self.ops[-1]['sequence'] if self.ops else None})")

    def quiet(self, seconds):
        """Everything that arrives within `seconds` (to show that nothing does)."""
        out, deadline = [], time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            m = self._recv(remaining)
            if m is not None:
                out.append(m)
        return out

    # sending

    def _pace(self):
        """Stays under the server's 60 messages a second, so only the flood check meets the limit."""
        while True:
            now = time.monotonic()
            self.tokens = min(60.0, self.tokens + (now - self.refill) * self.rate)
            self.refill = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            time.sleep((1 - self.tokens) / self.rate)

    def send_raw(self, text, pace=True):
        if pace:
            self._pace()
        self.ws.send(text)

    def send(self, operation, cid=None, pace=True):
        if cid is None:
            self.counter += 1
            cid = f"{re.sub('[^A-Za-z0-9]', '', self.name)}-{self.counter}-{rid('')}"
        else:  # a resend: only the answer to this one counts
            self.acks.pop(cid, None)
            self.errors = [e for e in self.errors if e.get("clientOpID") != cid]
        self.send_raw(json.dumps({"type": "op", "clientOpID": cid, "operation": operation}), pace)
        return cid

    def submit(self, operation, cid=None, timeout=5):
        """Sends one operation and waits for its answer (nothing else of ours is in flight)."""
        return self.answer(self.send(operation, cid), timeout, loose=True)

    def do(self, operation, cid=None, what=None):
        """Sends and expects an ack; returns it."""
        a = self.submit(operation, cid)
        if a.get("type") != "ack":
            raise Fail(f"{self.name}: {what or operation['type']}: expected an ack, got {short(a)}")
        if not a.get("duplicate"):
            self.wait_sequence(a["sequence"])  # the sender's own op comes back too (before or after the ack)
        return a

    def refused(self, operation, codes, what, cid=None):
        a = self.submit(operation, cid)
        if a.get("type") != "error" or a.get("code") not in codes:
            raise Fail(f"{self.name}: {what}: expected an error with code {'/'.join(codes)}, got {short(a)}")
        expect(isinstance(a.get("message"), str) and len(a["message"]) >= 5,
               f"{self.name}: {what}: the error has no clear message: {short(a)}")
        return a

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass


def live_refused(server, room, what, problems, statuses=(401, 403, 404), codes=("forbidden", "not-found"), **kw):
    """Expects the live socket to be refused: an HTTP status in `statuses` at the handshake, or an
    `error` with a code in `codes` and a close. Adds to `problems` otherwise; returns how it went."""
    try:
        c = Live(server, room, **kw)
    except Refused as e:
        if (e.status is not None and e.status not in statuses) or (e.status is None and e.code not in codes):
            problems.append(f"{what}: expected HTTP {'/'.join(map(str, statuses))} or an error "
                            f"({'/'.join(codes)}) and a close, got {e}")
        elif e.status is None and e.close != 1008:
            problems.append(f"{what}: expected the socket closed with 1008 after the error, got close code {e.close}")
        return f"{what}: {e}"
    except ConnectionClosed as e:
        problems.append(f"{what}: expected HTTP {'/'.join(map(str, statuses))} or an error, the socket just closed ({e})")
        return f"{what}: closed"
    snap = c.welcome.get("snapshot")
    c.close()
    problems.append(f"{what}: expected the live socket to be refused, got a welcome (role {c.you.get('role')}, "
                    f"snapshot {'present' if snap else 'null'})")
    return f"{what}: admitted"


def group_refusals(problems):
    """Problems that arrived the same way, as one line: 'A, B and C: expected …, got X'."""
    groups, order = {}, []
    for p in problems:
        m = re.match(r"(live socket of |live socket with |a cookie session's socket |a guest key )(.*?): expected (.*), got (.*)$", p)
        key = m.group(4) if m else p
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append((m.group(1) + m.group(2), m.group(3)) if m else (p, None))
    out = []
    for key in order:
        items = groups[key]
        if len(items) == 1 or items[0][1] is None:
            out += [f"{w}: expected {e}, got {key}" if e else w for w, e in items]
        else:
            out.append(f"{len(items)} refused sockets got {key} (expected {items[0][1]}): " + "; ".join(w for w, _ in items))
    return out
