#!/usr/bin/env python3
"""Draw together (docs/rooms-protocol.md), checked from outside against real `proteinar serve`
processes: accounts and sessions over HTTP, and the live WebSocket protocol with real clients
(the `websockets` package from PyPI, installed by scripts/setup-python.sh).

    scripts/check-rooms.py PROTEINAR_BIN [--only 2,4,8] [--verbose]

 1. accounts: register, sign in, the same 401 for a wrong password and an unknown e-mail, cookie
    sessions need X-CSRF-Token, signing out ends the session (cookie and bearer token);
 2. two clients in one room receive the same operations in the same order;
 3. undo removes the sender's own last stroke as a whole; clear by the owner, refused to a member;
 4. reconnecting with ?after=N gets exactly the missed operations; a resent clientOpID is
    acknowledged as a duplicate with its original sequence;
 5. a late joiner's snapshot equals the state built from the operations, and GET /api/rooms/{id};
 6. permissions: non-members and guests in private rooms, guests in public rooms (read-only until
    the owner allows drawing);
 7. bad input (malformed, unknown types, NaN, 1e999, too many points, over 64 KiB, a flood,
    <script> in a note): an error with a clear message, and the room unchanged;
 8. durability: SIGKILL at random moments while a client sends, on SQLite and on PostgreSQL;
    every acknowledged operation is in the log with its sequence, nothing twice;
 9. two servers on one PostgreSQL database relay each other's operations;
10. presence: who is in the room, their views, and leaving.

PostgreSQL checks (8b, 9) use PROTEINAR_TEST_POSTGRES_URL (scripts/start-postgres.sh) and a fresh
database made for the run and dropped after it; without the variable they are skipped.

Prints one line per check (`ok   …`, `FAIL …`, `skip …`) and `N passed, M failed, K skipped`;
exits 1 on a failure. Server logs are kept in the temporary folder named at the end on failure."""
import json, os, random, re, select, shutil, signal, string, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.parse, urllib.request

try:
    import websockets  # noqa: F401
except ImportError:
    from project_venv import rerun_in_venv
    rerun_in_venv(__file__, "check-rooms: websockets")
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    sys.exit(__doc__)
BIN = os.path.abspath(sys.argv[1])
ONLY = None
if "--only" in sys.argv:
    ONLY = {s.strip() for s in sys.argv[sys.argv.index("--only") + 1].split(",")}
VERBOSE = "--verbose" in sys.argv or "-v" in sys.argv
PG_URL = os.environ.get("PROTEINAR_TEST_POSTGRES_URL", "").strip()
TMP = tempfile.mkdtemp(prefix="proteinar-rooms-")
PASSWORD = "correct horse battery"


class Fail(Exception):
    """A check's expectation not met: the message says what was expected and what arrived."""


def short(value, limit=300):
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


def expect(condition, message):
    if not condition:
        raise Fail(message)


def rid(prefix="x"):
    return prefix + "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(10))


# MARK: servers

SERVERS = []


class Server:
    """One `proteinar serve` process on a free port; SQLite in `data_dir`, or PostgreSQL at `db_url`."""
    count = 0

    def __init__(self, data_dir=None, db_url=None, name="server"):
        Server.count += 1
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="data-", dir=TMP)
        self.db_url = db_url
        self.log_path = os.path.join(TMP, f"{name}-{Server.count}.log")
        self.proc = None
        self.start()
        SERVERS.append(self)

    def start(self):
        args = [BIN, "serve", "--port", "0", "--host", "127.0.0.1", "--no-starter", "--data-dir", self.data_dir]
        if self.db_url:
            args += ["--database-url", self.db_url]
        log = open(self.log_path, "ab")
        log.write(f"\n=== {' '.join(args)}\n".encode())
        log.flush()
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        line = b""
        while time.monotonic() < deadline and b"\n" not in line:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                line += chunk
            elif self.proc.poll() is not None:
                break
        m = re.search(rb"listening on http://([^:\s]+):(\d+)", line)
        if not m:
            self.proc.kill()
            raise Fail(f"server did not say it was listening within 30 s (stdout {line[:200]!r}; log {self.log_path}: "
                       f"{short(open(self.log_path, errors='replace').read()[-400:])})")
        self.port = int(m.group(2))
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        out = self.proc.stdout

        def drain():  # keep the pipe from filling up; whatever else it prints goes to the log
            for chunk in iter(lambda: out.read1(65536) if hasattr(out, "read1") else out.read(65536), b""):
                log.write(chunk)
            log.flush()
        threading.Thread(target=drain, daemon=True).start()

    def kill(self):
        """SIGKILL, the way a crash or an out-of-memory kill ends it: no chance to clean up."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def restart(self):
        self.kill()
        self.start()


# MARK: HTTP

class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.raw = status, headers, body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    def __repr__(self):
        return f"HTTP {self.status} {short(self.raw.decode(errors='replace'), 240)}"


def http(server, method, path, body=None, token=None, cookie=None, csrf=None, guest=None, headers=None, timeout=15):
    h = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    if token:
        h["Authorization"] = f"Bearer {token}"
    if cookie:
        h["Cookie"] = cookie
    if csrf:
        h["X-CSRF-Token"] = csrf
    if guest:
        h["X-Guest-Key"] = guest
    h.update(headers or {})
    req = urllib.request.Request(server.base + path, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return Response(r.status, r.headers, r.read())
    except urllib.error.HTTPError as e:
        return Response(e.code, e.headers, e.read())


def want(resp, status, what):
    if resp.status != status:
        raise Fail(f"{what}: expected HTTP {status}, got {resp!r}")
    return resp.json


class Account:
    def __init__(self, server, name, kind="token"):
        self.email = f"{name.lower()}-{rid('')}@example.org"
        self.name = name
        body = want(http(server, "POST", "/api/accounts",
                         {"email": self.email, "password": PASSWORD, "name": name, "kind": kind}),
                    201, f"register {self.email}")
        self.id = body["account"]["id"]
        self.token = body.get("token")
        if kind == "token":
            expect(self.token, f"register with kind token: expected a token in the answer, got {short(body)}")

    def sign_in(self, server):
        """A token for this account on `server` (another process, perhaps, on the same database)."""
        body = want(http(server, "POST", "/api/sessions", {"email": self.email, "password": PASSWORD, "kind": "token"}),
                    200, f"sign in {self.email}")
        return body["token"]


def make_room(server, owner, name="room", public=False, guests_may_draw=False, members=()):
    room = want(http(server, "POST", "/api/rooms", {"name": name, "isPublic": public, "guestsMayDraw": guests_may_draw},
                     token=owner.token), 201, "create a room")
    for member in members:
        room = want(http(server, "POST", f"/api/rooms/{room['id']}/members", {"email": member.email}, token=owner.token),
                    200, f"add member {member.email}")
    return room["id"]


def room_state(server, room, token=None, guest=None):
    body = want(http(server, "GET", f"/api/rooms/{room}", token=token, guest=guest), 200, f"GET /api/rooms/{room}")
    return body["state"]


def room_log(server, room, token, after=0):
    """The whole log after `after`, a page at a time, and the room's sequence."""
    ops = []
    while True:
        body = want(http(server, "GET", f"/api/rooms/{room}/operations?after={after}&limit=5000", token=token), 200,
                    f"GET /api/rooms/{room}/operations?after={after}")
        ops += body["operations"]
        if not body.get("more") or not body["operations"]:
            return ops, body["sequence"]
        after = body["operations"][-1]["sequence"]


# MARK: the room's state, rebuilt from operations

def empty_state():
    return {"sequence": 0, "strokes": [], "notes": [], "molecule": None}


def canonical(state):
    """The parts of a state the protocol defines, in a form that compares exactly."""
    return {"sequence": state.get("sequence"),
            "strokes": [{k: s.get(k) for k in ("id", "author", "color", "width", "points")} for s in state.get("strokes", [])],
            "notes": [{k: n.get(k) for k in ("id", "author", "text", "anchor")} for n in state.get("notes", [])],
            "molecule": state.get("molecule")}


def apply(state, op):
    """Applies one logged operation as a client does; raises on a gap or a repeat."""
    if op["sequence"] != state["sequence"] + 1:
        raise Fail(f"operation {op['sequence']} after {state['sequence']}: expected {state['sequence'] + 1} (a gap or a repeat)")
    o, author = op["operation"], op["author"]
    t = o["type"]
    if t == "add-stroke":
        state["strokes"].append({"id": o["id"], "author": author, "color": o["color"], "width": o["width"], "points": list(o["points"])})
    elif t == "extend-stroke":
        for s in reversed(state["strokes"]):
            if s["id"] == o["id"]:
                s["points"] = s["points"] + list(o["points"])
                break
    elif t == "remove-stroke":
        state["strokes"] = [s for s in state["strokes"] if s["id"] != o["id"]]
    elif t == "clear":
        state["strokes"], state["notes"] = [], []
    elif t == "add-note":
        state["notes"].append({"id": o["id"], "author": author, "text": o["text"], "anchor": o["anchor"]})
    elif t == "remove-note":
        state["notes"] = [n for n in state["notes"] if n["id"] != o["id"]]
    elif t == "set-molecule":
        state["molecule"] = o.get("molecule")
    else:
        raise Fail(f"a logged operation of type {t!r}: {short(op)}")
    state["sequence"] = op["sequence"]


def state_diff(before, after):
    """The first difference between two states, in words."""
    for key in sorted(set(before) | set(after)):
        x, y = before.get(key), after.get(key)
        if x == y:
            continue
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return f"{key}: {len(x)} → {len(y)} items"
            i = next(i for i, (p, q) in enumerate(zip(x, y)) if p != q)
            return f"{key}[{i}]: {short(x[i], 150)} → {short(y[i], 150)}"
        return f"{key}: {short(x, 150)} → {short(y, 150)}"
    return "no difference"


def pt(i, z=0.0):
    return [round(0.01 * i, 4), round(0.5 + 0.001 * i, 4), z]


def stroke(sid, n=2, start=0, color="#3366ff", width=0.005):
    return {"type": "add-stroke", "id": sid, "points": [pt(start + i) for i in range(n)], "color": color, "width": width}


def extend(sid, n=2, start=10):
    return {"type": "extend-stroke", "id": sid, "points": [pt(start + i) for i in range(n)]}


# MARK: the live client

class Refused(Exception):
    """The live socket was refused: an HTTP status at the handshake (`status`), or an error and a
    close before `welcome` (`code`, the error's code)."""
    def __init__(self, text, status=None, code=None, close=None):
        super().__init__(text)
        self.status, self.code, self.close = status, code, close


class Live:
    """One WebSocket client of a room: keeps every message it receives (ops, acks, errors) in order."""
    serial = 0

    def __init__(self, server, room, token=None, guest=None, after=None, name="client", rate=50.0, headers=None, origin=None):
        Live.serial += 1
        self.name = f"{name}#{Live.serial}"
        query = {}
        if after is not None:
            query["after"] = str(after)
        if guest:
            query["guest"] = guest
        url = f"{server.ws}/api/rooms/{room}/live" + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {**({"Authorization": f"Bearer {token}"} if token else {}), **(headers or {})}
        self.ops, self.acks, self.errors, self.messages = [], {}, [], []
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

    # receiving

    def _recv(self, timeout):
        try:
            raw = self.ws.recv(timeout=max(timeout, 0.001))
        except TimeoutError:
            return None
        except ConnectionClosed as e:
            self.closed = e
            raise
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


def same_ops(a, b):
    return [(o["sequence"], o["author"], o["clientOpID"], o["operation"]) for o in a] == \
           [(o["sequence"], o["author"], o["clientOpID"], o["operation"]) for o in b]


def contiguous(ops, after):
    seqs = [o["sequence"] for o in ops]
    return seqs == list(range(after + 1, after + 1 + len(seqs)))


# MARK: checks

RESULTS = {"passed": 0, "failed": 0, "skipped": 0}
CTX = {}


def run(number, name, fn):
    if ONLY and number.rstrip("abcdefgh") not in ONLY and number not in ONLY:
        return
    started = time.monotonic()
    try:
        note = fn()
    except Fail as e:
        RESULTS["failed"] += 1
        print(f"FAIL {number} {name}: {e}", flush=True)
        return
    except Skip as e:
        RESULTS["skipped"] += 1
        print(f"skip {number} {name}: {e}", flush=True)
        return
    except Exception as e:  # noqa: BLE001 — a crash of the check is a failure with its reason
        RESULTS["failed"] += 1
        print(f"FAIL {number} {name}: {type(e).__name__}: {short(str(e), 400)}", flush=True)
        return
    RESULTS["passed"] += 1
    print(f"ok   {number} {name}{' (' + note + ')' if note else ''} [{time.monotonic() - started:.1f} s]", flush=True)


class Skip(Exception):
    pass


def main_server():
    if "main" not in CTX:
        CTX["main"] = Server(name="main")
    return CTX["main"]


def users():
    """Ada (owns rooms), Ben (a member), Cy (signed in, a member of nothing): bearer tokens."""
    if "users" not in CTX:
        s = main_server()
        CTX["users"] = (Account(s, "Ada"), Account(s, "Ben"), Account(s, "Cy"))
    return CTX["users"]


def check_accounts():
    s = main_server()
    a = Account(s, "Ada")
    b = Account(s, "Ben")
    expect(a.id != b.id, f"two accounts got one id {a.id}")
    prof = want(http(s, "GET", "/api/profile", token=a.token), 200, "GET /api/profile with a token")
    expect(prof["account"]["email"] == a.email, f"profile: expected e-mail {a.email}, got {short(prof)}")
    token = a.sign_in(s)
    expect(token and token != a.token, "signing in again: expected a new token")
    want(http(s, "GET", "/api/profile", token=token), 200, "GET /api/profile with the new token")
    # The same words for a wrong password and an unknown e-mail.
    wrong = http(s, "POST", "/api/sessions", {"email": b.email, "password": "not the password", "kind": "token"})
    unknown = http(s, "POST", "/api/sessions", {"email": f"nobody-{rid('')}@example.org", "password": "not the password"})
    want(wrong, 401, "sign in with a wrong password")
    want(unknown, 401, "sign in with an unknown e-mail")
    expect(wrong.json and unknown.json and wrong.json.get("error") == unknown.json.get("error"),
           f"wrong password and unknown e-mail answered differently: {wrong!r} / {unknown!r}")
    expect(wrong.json.get("error") == "wrong e-mail or password", f"expected 'wrong e-mail or password', got {wrong!r}")
    dup = http(s, "POST", "/api/accounts", {"email": a.email, "password": PASSWORD, "name": "Again", "kind": "token"})
    expect(400 <= dup.status < 500, f"registering {a.email} twice: expected a 4xx, got {dup!r}")
    short_pw = http(s, "POST", "/api/accounts", {"email": f"x-{rid('')}@example.org", "password": "1234567", "name": "X"})
    expect(short_pw.status == 400, f"a 7-character password: expected 400, got {short_pw!r}")
    # Cookie sessions: CSRF on every change.
    email = f"cookie-{rid('')}@example.org"
    r = http(s, "POST", "/api/accounts", {"email": email, "password": PASSWORD, "name": "Cookie"})
    body = want(r, 201, "register with a cookie session")
    set_cookie = r.headers.get("Set-Cookie") or ""
    m = re.search(r"proteinar_session=([^;]+)", set_cookie)
    expect(m, f"register (cookie): expected Set-Cookie proteinar_session, got {set_cookie!r}")
    expect("httponly" in set_cookie.lower() and "samesite=lax" in set_cookie.lower(),
           f"the session cookie should be HttpOnly and SameSite=Lax: {set_cookie!r}")
    expect("token" not in body, f"a cookie session's answer should hold no bearer token: {short(body)}")
    cookie, csrf = f"proteinar_session={m.group(1)}", body.get("csrf")
    expect(csrf, f"register (cookie): expected a csrf value, got {short(body)}")
    sess = want(http(s, "GET", "/api/session", cookie=cookie), 200, "GET /api/session")
    expect((sess.get("account") or {}).get("email") == email and sess.get("csrf") == csrf,
           f"GET /api/session: expected the account and the same csrf, got {short(sess)}")
    no_csrf = http(s, "POST", "/api/rooms", {"name": "no csrf"}, cookie=cookie)
    want(no_csrf, 403, "POST /api/rooms by cookie without X-CSRF-Token")
    bad_csrf = http(s, "POST", "/api/rooms", {"name": "bad csrf"}, cookie=cookie, csrf="0" * len(csrf))
    want(bad_csrf, 403, "POST /api/rooms by cookie with a wrong X-CSRF-Token")
    want(http(s, "POST", "/api/rooms", {"name": "with csrf"}, cookie=cookie, csrf=csrf), 201,
         "POST /api/rooms by cookie with X-CSRF-Token")
    want(http(s, "PATCH", "/api/profile", {"name": "Cookie Two"}, cookie=cookie), 403, "PATCH /api/profile without CSRF")
    want(http(s, "PATCH", "/api/profile", {"name": "Cookie Two"}, cookie=cookie, csrf=csrf), 200, "PATCH /api/profile")
    want(http(s, "DELETE", "/api/sessions/current", cookie=cookie), 403, "sign out by cookie without CSRF")
    out = http(s, "DELETE", "/api/sessions/current", cookie=cookie, csrf=csrf)
    want(out, 204, "sign out (cookie)")
    cleared = out.headers.get("Set-Cookie") or ""
    expect("proteinar_session=" in cleared and ("max-age=0" in cleared.lower() or "expires=" in cleared.lower()),
           f"sign out: expected the cookie cleared, got Set-Cookie {cleared!r}")
    after = want(http(s, "GET", "/api/session", cookie=cookie), 200, "GET /api/session after signing out")
    expect(after.get("account") is None, f"after signing out the old cookie still signs in: {short(after)}")
    want(http(s, "GET", "/api/profile", cookie=cookie), 401, "GET /api/profile with the ended cookie")
    # Signing out a bearer token ends it too.
    want(http(s, "DELETE", "/api/sessions/current", token=token), 204, "sign out (token)")
    want(http(s, "GET", "/api/profile", token=token), 401, "GET /api/profile with a signed-out token")
    want(http(s, "GET", "/api/profile", token=a.token), 200, "the other session of the same account stays")
    want(http(s, "GET", "/api/profile"), 401, "GET /api/profile signed out")


def check_order():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "order", members=[ben])
    info = want(http(s, "GET", f"/api/rooms/{room}", token=ada.token), 200, "GET the room")
    expect(ben.id in info["room"].get("members", []), f"members: expected {ben.id}, got {short(info['room'])}")
    a, b = Live(s, room, token=ada.token, name="ada"), Live(s, room, token=ben.token, name="ben")
    expect(a.you.get("role") == "owner" and b.you.get("role") == "member",
           f"roles: expected owner/member, got {a.you.get('role')}/{b.you.get('role')}")
    # Both draw at once, without waiting for answers: the server picks one order for both.
    sent = {a: [], b: []}
    for i in range(4):
        for c, who in ((a, "a"), (b, "b")):
            sid = f"{who}{i}"
            sent[c].append(c.send(stroke(sid, 3, i)))
            for k in range(3):
                sent[c].append(c.send(extend(sid, 2, 10 + 2 * k)))
    total = sum(len(v) for v in sent.values())
    a.wait_ops(total, 10)
    b.wait_ops(total, 10)
    for c in (a, b):
        for cid in sent[c]:
            ans = c.answer(cid)
            expect(ans.get("type") == "ack", f"{c.name}: expected an ack for {cid}, got {short(ans)}")
    expect(len(a.ops) == total and len(b.ops) == total, f"expected {total} ops each, got {len(a.ops)} and {len(b.ops)}")
    if not same_ops(a.ops, b.ops):
        diff = next(i for i, (x, y) in enumerate(zip(a.ops, b.ops)) if x != y)
        raise Fail(f"the two clients saw different orders; first difference at #{diff}: {short(a.ops[diff])} vs {short(b.ops[diff])}")
    expect(contiguous(a.ops, a.welcome["sequence"]), f"sequences not contiguous: {[o['sequence'] for o in a.ops]}")
    by_cid = {o["clientOpID"]: o["sequence"] for o in a.ops}
    for c in (a, b):
        for cid in sent[c]:
            expect(by_cid.get(cid) == c.acks[cid]["sequence"],
                   f"{cid}: acked as {c.acks[cid]['sequence']} but broadcast as {by_cid.get(cid)}")
        own = [by_cid[cid] for cid in sent[c]]
        expect(own == sorted(own), f"{c.name}'s operations were reordered: {own}")
    state = empty_state()
    state["sequence"] = a.welcome["sequence"]
    for op in a.ops:
        apply(state, op)
    expect(canonical(state) == canonical(room_state(s, room, ada.token)), "state built from the ops differs from GET /api/rooms")
    a.close(); b.close()
    return f"{total} ops, same order on both"


def check_undo_clear():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "undo", members=[ben])
    a, b = Live(s, room, token=ada.token, name="ada"), Live(s, room, token=ben.token, name="ben")
    a.do(stroke("ada1", 2)); b.do(stroke("ben1", 2))
    a.do(stroke("ada2", 3)); a.do(extend("ada2", 4)); a.do(extend("ada2", 4, 20))
    b.do(stroke("ben2", 2))
    a.do({"type": "add-note", "id": "n1", "text": "look here", "anchor": {"point": [0, 1, 0]}})
    ack = a.do({"type": "undo"}, what="undo")
    b.wait_sequence(ack["sequence"])
    op = next(o for o in b.ops if o["sequence"] == ack["sequence"])
    expect(op["operation"] == {"type": "remove-stroke", "id": "ada2"} and op["author"] == ada.id,
           f"undo: expected remove-stroke ada2 by {ada.id}, got {short(op)}")
    st = room_state(s, room, ada.token)
    ids = [x["id"] for x in st["strokes"]]
    expect(ids == ["ada1", "ben1", "ben2"], f"after undo: expected strokes ada1, ben1, ben2, got {ids}")
    ack = a.do({"type": "undo"}, what="second undo")
    a.wait_sequence(ack["sequence"])
    expect(a.ops[-1]["operation"] == {"type": "remove-stroke", "id": "ada1"}, f"second undo: got {short(a.ops[-1])}")
    a.refused({"type": "undo"}, ["not-found"], "undo with no stroke left")
    b.refused({"type": "remove-stroke", "id": "nope"}, ["not-found"], "remove a stroke that does not exist")
    a.refused({"type": "extend-stroke", "id": "ben2", "points": [[0, 0, 0]]}, ["forbidden"], "extend someone else's stroke")
    before, seen = room_state(s, room, ada.token), len(a.ops)
    err = b.refused({"type": "clear"}, ["forbidden"], "clear by a member")
    expect(room_state(s, room, ada.token) == before, "clear by a member changed the room")
    extra = a.quiet(0.3)
    expect(len(a.ops) == seen, f"a refused clear was broadcast: {short(extra)}")
    ack = a.do({"type": "clear"}, what="clear by the owner")
    b.wait_sequence(ack["sequence"])
    expect(b.ops[-1]["operation"] == {"type": "clear"}, f"clear: expected a clear op, got {short(b.ops[-1])}")
    st = room_state(s, room, ben.token)
    expect(st["strokes"] == [] and st["notes"] == [], f"after clear: expected no strokes or notes, got {short(st)}")
    a.close(); b.close()
    return f"member's clear refused: {err['message']!r}"


def check_resume():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "resume", members=[ben])
    a, b = Live(s, room, token=ada.token, name="ada"), Live(s, room, token=ben.token, name="ben")
    first = [a.do(stroke("s1", 2))["sequence"], a.do(extend("s1", 2))["sequence"], b.do(stroke("s2", 1))["sequence"]]
    b.wait_sequence(first[-1])
    last = b.ops[-1]["sequence"]
    b.close()
    acked = [a.do(extend("s1", 1, 20 + i)) for i in range(6)]
    acked.append(a.do({"type": "add-note", "id": "n", "text": "while you were away", "anchor": {"chain": "A", "residue": 7}}))
    a.wait_sequence(acked[-1]["sequence"])
    missed = [o for o in a.ops if o["sequence"] > last]
    b2 = Live(s, room, token=ben.token, after=last, name="ben-again")
    expect(b2.welcome.get("snapshot") is None, f"welcome with after: expected snapshot null, got {short(b2.welcome.get('snapshot'))}")
    expect(b2.welcome.get("sequence") == missed[-1]["sequence"],
           f"welcome sequence: expected {missed[-1]['sequence']}, got {b2.welcome.get('sequence')}")
    b2.wait_ops(len(missed), 5)
    b2.quiet(0.4)
    if not same_ops(b2.ops, missed):
        raise Fail(f"resume after {last}: expected ops {[o['sequence'] for o in missed]}, got {[o['sequence'] for o in b2.ops]}")
    ack = a.do(extend("s1", 1, 40))
    b2.wait_sequence(ack["sequence"])
    expect([o["sequence"] for o in b2.ops[len(missed):]] == [ack["sequence"]],
           f"after the catch-up: expected only op {ack['sequence']}, got {[o['sequence'] for o in b2.ops[len(missed):]]}")
    # Resends: the same clientOpID again, on the same socket, a new socket, and over HTTP.
    cid, seq = acked[2]["clientOpID"], acked[2]["sequence"]
    n_ops = len(b2.ops)
    again = a.submit(extend("s1", 1, 22), cid=cid)
    expect(again.get("type") == "ack" and again.get("duplicate") is True and again.get("sequence") == seq,
           f"resend of {cid}: expected ack duplicate true sequence {seq}, got {short(again)}")
    a.close()
    a2 = Live(s, room, token=ada.token, name="ada-again")
    again = a2.submit(extend("s1", 1, 22), cid=cid)
    expect(again.get("type") == "ack" and again.get("duplicate") is True and again.get("sequence") == seq,
           f"resend of {cid} on a new socket: expected duplicate with sequence {seq}, got {short(again)}")
    r = want(http(s, "POST", f"/api/rooms/{room}/operations", {"clientOpID": cid, "operation": extend("s1", 1, 22)},
                  token=ada.token), 200, "resend over HTTP")
    expect(r.get("sequence") == seq and r.get("duplicate") is True, f"resend over HTTP: expected {seq} duplicate, got {short(r)}")
    extra = b2.quiet(0.4)
    expect(len(b2.ops) == n_ops, f"a resend was broadcast again: {short(extra)}")
    log, top = room_log(s, room, ada.token)
    expect(contiguous(log, 0) and top == log[-1]["sequence"], f"log not contiguous: {[o['sequence'] for o in log]}")
    # Resuming after a sequence the room never reached (a client that held another history): a snapshot.
    ahead = Live(s, room, token=ben.token, after=top + 100, name="ben-ahead")
    snap = ahead.welcome.get("snapshot")
    expect(snap is not None and canonical(snap) == canonical(room_state(s, room, ben.token)),
           f"resume with after above the room's sequence: expected a snapshot of the room, got {short(snap)}")
    extra = ahead.quiet(0.3)
    expect(not [m for m in extra if m.get("type") == "op"], f"resume with after above the sequence also sent ops: {short(extra)}")
    ahead.close()
    expect(sum(1 for o in log if o["clientOpID"] == cid) == 1, f"{cid} logged more than once")
    b2.close(); a2.close()
    return f"missed {len(missed)} ops after {last}, received exactly those"


def check_late_joiner():
    s = main_server()
    ada, ben, cy = users()
    room = make_room(s, ada, "late", members=[ben])
    a, b = Live(s, room, token=ada.token, name="ada"), Live(s, room, token=ben.token, name="ben")
    a.do(stroke("a1", 3)); b.do(stroke("b1", 2, color="#FF0000", width=0.02)); a.do(extend("a1", 5))
    b.do(extend("b1", 3)); a.do(stroke("a2", 1)); b.do(stroke("b2", 4))
    a.do({"type": "add-note", "id": "n1", "text": "α-helix here ✓", "anchor": {"point": [0.1, 0.2, -0.3]}})
    b.do({"type": "add-note", "id": "n2", "text": "Lys 42", "anchor": {"chain": "A", "residue": 42}})
    b.do({"type": "add-note", "id": "n3", "text": "gone soon", "anchor": {"point": [1, 1, 1]}})
    b.do({"type": "remove-note", "id": "n3"})
    a.do({"type": "remove-stroke", "id": "b2"})  # the owner removes someone else's stroke
    a.do({"type": "set-molecule", "molecule": {"moleculeID": "1AKE", "style": "cartoon",
                                               "transform": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, 0, -1, 1]}})
    last = a.do(extend("a1", 2, 30))["sequence"]
    built = {}
    for c in (a, b):
        c.wait_sequence(last)
        snap = c.welcome.get("snapshot")
        expect(snap is not None, f"{c.name}: welcome without after: expected a snapshot, got null")
        state = json.loads(json.dumps(snap))
        state.setdefault("molecule", None)
        for op in c.ops:
            apply(state, op)
        built[c.name] = canonical(state)
    expect(built[a.name] == built[b.name], "the two clients built different states")
    want(http(s, "POST", f"/api/rooms/{room}/members", {"email": cy.email}, token=ada.token), 200, "add a member")
    late = Live(s, room, token=cy.token, name="cy")
    snap = late.welcome.get("snapshot")
    expect(snap is not None, "late joiner: expected a snapshot")
    expect(late.welcome.get("sequence") == last == snap.get("sequence"),
           f"late joiner: expected welcome and snapshot sequence {last}, got {late.welcome.get('sequence')}/{snap.get('sequence')}")
    mine = built[a.name]
    if canonical(snap) != mine:
        raise Fail(f"late joiner's snapshot differs from the state built from ops:\n  snapshot {short(canonical(snap), 600)}\n"
                   f"  built    {short(mine, 600)}")
    http_state = room_state(s, room, cy.token)
    expect(canonical(http_state) == mine, f"GET /api/rooms state differs: {short(canonical(http_state), 600)}")
    extra = sorted(set(snap) - {"sequence", "strokes", "notes", "molecule"})
    strokes = {x["id"]: len(x["points"]) for x in mine["strokes"]}
    for c in (a, b, late):
        c.close()
    return f"strokes {strokes}, {len(mine['notes'])} notes, molecule set" + (f"; snapshot also holds {extra}" if extra else "")


def check_permissions():
    s = main_server()
    ada, ben, cy = users()
    private = make_room(s, ada, "private", members=[ben])
    a = Live(s, private, token=ada.token, name="ada")
    a.do(stroke("p1", 2))
    before = room_state(s, private, ada.token)
    problems = []
    how = [live_refused(s, private, "live socket of a non-member", problems, token=cy.token),
           live_refused(s, private, "live socket of a guest in a private room", problems, guest="guest-key-" + rid("")),
           live_refused(s, private, "live socket of nobody signed in", problems),
           live_refused(s, "rnosuchroom", "live socket of a room that does not exist", problems, statuses=(404,),
                        codes=("not-found",), token=ada.token),
           live_refused(s, private, "live socket with a bad bearer token", problems, statuses=(401,), token="0" * 64)]
    for what, kw in (("a non-member", {"token": cy.token}), ("a guest", {"guest": "guest-key-" + rid("")}), ("anonymous", {})):
        r = http(s, "GET", f"/api/rooms/{private}", **kw)
        if r.status not in (401, 403, 404):
            problems.append(f"GET a private room as {what}: expected 401/403/404, got {r!r}")
        r = http(s, "GET", f"/api/rooms/{private}/operations?after=0", **kw)
        if r.status not in (401, 403, 404):
            problems.append(f"GET a private room's log as {what}: expected 401/403/404, got {r!r}")
        r = http(s, "POST", f"/api/rooms/{private}/operations", {"clientOpID": "intruder" + rid(""),
                                                                 "operation": stroke("evil", 1)}, **kw)
        if r.status not in (401, 403, 404):
            problems.append(f"POST an operation to a private room as {what}: expected 401/403/404, got {r!r}")
    rooms = want(http(s, "GET", "/api/rooms", token=cy.token), 200, "GET /api/rooms")
    expect(private not in [r["id"] for r in rooms["rooms"]], "a private room is listed to a non-member")
    want(http(s, "PATCH", f"/api/rooms/{private}", {"isPublic": True}, token=ben.token), 403, "PATCH a room by a member")
    expect(room_state(s, private, ada.token) == before, "the private room changed")
    # A public room: guests watch, and draw once the owner allows it.
    public = make_room(s, ada, "public", public=True)
    key = "guest-key-" + rid("") + "-ABC_def"
    g = Live(s, public, guest=key, name="guest")
    expect(g.you.get("role") == "guest" and g.you.get("mayDraw") is False,
           f"guest welcome: expected role guest, mayDraw false, got {short(g.you)}")
    expect(re.fullmatch(r"guest:g[0-9a-f]{16}", g.you.get("id", "")), f"guest id: expected guest:g<16 hex>, got {g.you.get('id')!r}")
    a2 = Live(s, public, token=ada.token, name="ada-public")
    ack = a2.do(stroke("own1", 2))
    g.wait_sequence(ack["sequence"])
    st = want(http(s, "GET", f"/api/rooms/{public}", guest=key), 200, "GET a public room as a guest")
    expect(len(st["state"]["strokes"]) == 1, f"guest reads the public room: expected 1 stroke, got {short(st['state'])}")
    before = room_state(s, public, ada.token)
    g.refused(stroke("g1", 2), ["forbidden"], "a guest draws before the owner allows it")
    r = http(s, "POST", f"/api/rooms/{public}/operations", {"clientOpID": "g-http-1", "operation": stroke("g1", 1)}, guest=key)
    expect(r.status == 403, f"a guest posts an operation over HTTP before it is allowed: expected 403, got {r!r}")
    c = Live(s, public, token=cy.token, name="cy-public")  # signed in, not a member: a guest here
    expect(c.you.get("role") == "guest", f"a non-member in a public room: expected role guest, got {short(c.you)}")
    c.refused(stroke("c1", 1), ["forbidden"], "a signed-in non-member draws in a public room")
    expect(room_state(s, public, ada.token) == before, "refused guest operations changed the room")
    room = want(http(s, "PATCH", f"/api/rooms/{public}", {"guestsMayDraw": True}, token=ada.token), 200, "PATCH guestsMayDraw")
    expect(room.get("guestsMayDraw") is True, f"PATCH: expected guestsMayDraw true, got {short(room)}")
    ans = g.submit(stroke("g1", 2))
    if ans.get("type") != "ack":
        g2 = Live(s, public, guest=key, name="guest-reconnected")
        retry = g2.submit(stroke("g1", 2))
        raise Fail(f"a guest already connected still may not draw after PATCH guestsMayDraw=true: {short(ans)}; "
                   f"on a new connection: {short(retry)}")
    g.wait_sequence(ans["sequence"])
    expect(g.ops[-1]["author"] == g.you["id"], f"the guest's op: expected author {g.you['id']}, got {g.ops[-1]['author']}")
    g.refused({"type": "set-molecule", "molecule": {"moleculeID": "1AKE", "style": "cartoon", "transform": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]}},
              ["forbidden"], "a guest sets the molecule")
    g.refused({"type": "clear"}, ["forbidden"], "a guest clears the room")
    other = Live(s, public, guest="another-guest-" + rid(""), name="guest2")
    expect(other.you.get("id") != g.you.get("id"), "two guest keys got the same guest id")
    other.refused(extend("g1", 1), ["forbidden"], "one guest extends another guest's stroke")
    same = Live(s, public, guest=key, name="guest-again")
    expect(same.you.get("id") == g.you.get("id"), "the same guest key gave another guest id")
    same.do(extend("g1", 1), what="the same guest (same key, new socket) extends its stroke")
    # Without an account or a guest key: watch only.
    try:
        anon = Live(s, public, name="anonymous")
        ans = anon.submit(stroke("anon1", 1))
        if ans.get("type") != "error" or ans.get("code") != "forbidden":
            problems.append(f"an operation from someone with neither account nor guest key: expected forbidden, got {short(ans)}")
        anon.close()
    except Refused as e:
        how.append(f"anonymous socket in a public room: refused ({e})")
    # Signed in by cookie, only the server's own pages may open the socket.
    email = f"cookie-{rid('')}@example.org"
    r = http(s, "POST", "/api/accounts", {"email": email, "password": PASSWORD, "name": "Cookie"})
    want(r, 201, "register (cookie)")
    cookie = re.search(r"proteinar_session=[^;]+", r.headers.get("Set-Cookie") or "").group(0)
    how.append(live_refused(s, public, "a cookie session's socket from another site's page", problems, statuses=(403,),
                            codes=("forbidden",), headers={"Cookie": cookie}, origin="http://evil.example"))
    try:
        own = Live(s, public, headers={"Cookie": cookie}, origin=s.base, name="cookie")
        if own.you.get("role") != "guest" or not own.you.get("id") or own.you["id"].startswith("guest:"):
            problems.append(f"a cookie session's socket from the server's own page: expected it signed in "
                            f"(a non-member: role guest, its account id), got {short(own.you)}")
        own.close()
    except Refused as e:
        problems.append(f"a cookie session's socket from the server's own page ({s.base}) was refused: {e}")
    how.append(live_refused(s, public, "a guest key of 5 characters", problems, statuses=(400, 401, 403),
                            codes=("forbidden", "invalid", "malformed"), guest="short"))
    # Making the room private lets its guests go.
    want(http(s, "PATCH", f"/api/rooms/{public}", {"isPublic": False}, token=ada.token), 200, "PATCH isPublic false")
    try:
        same.quiet(3)
        problems.append("a guest's socket stayed open 3 s after the owner made the room private")
    except ConnectionClosed as e:
        how.append(f"guest let go when the room went private ({e})")
    try:
        a2.quiet(0.2)
    except ConnectionClosed:
        problems.append("the owner's socket closed when the room went private")
    for x in (a, a2, g, c, other, same):
        x.close()
    if VERBOSE:
        for line in how:
            print(f"       {line}")
    if problems:
        raise Fail("; ".join(group_refusals(problems)))
    return f"{len(how)} refused sockets"


def check_bad_input():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "bad input", members=[ben])
    a = Live(s, room, token=ada.token, name="ada")
    a.do(stroke("base", 2))
    problems, notes = [], []

    def unchanged(what, send, codes, must_say=None):
        nonlocal a
        before, n_ops = room_state(s, room, ada.token), len(a.ops)
        try:
            err = send()
        except ConnectionClosed as e:
            problems.append(f"{what}: expected an error ({'/'.join(codes)}), the connection was closed ({e})")
            a = Live(s, room, token=ada.token, name="ada-again")
            return
        except Fail as e:
            problems.append(f"{what}: {e}")
            return
        if err.get("type") != "error" or err.get("code") not in codes:
            problems.append(f"{what}: expected an error with code {'/'.join(codes)}, got {short(err)}")
        elif not isinstance(err.get("message"), str) or len(err["message"]) < 5 or \
                (must_say and not re.search(must_say, err["message"], re.I)):
            problems.append(f"{what}: the message does not say why{' (' + must_say + ')' if must_say else ''}: {err.get('message')!r}")
        else:
            notes.append(f"{what} → {err['code']}: {err['message'][:110]!r}")
        try:
            a.quiet(0.15)
        except ConnectionClosed:
            a = Live(s, room, token=ada.token, name="ada-again")
        after = room_state(s, room, ada.token)
        if after != before or len(a.ops) != n_ops:
            problems.append(f"{what}: the room changed: {state_diff(before, after)}; ops broadcast {short(a.ops[n_ops:], 200)}")

    def raw(text):
        return lambda: (a.send_raw(text), a.next_error(5, "an error"))[1]

    def op_text(cid, body):
        return '{"type":"op","clientOpID":"%s","operation":%s}' % (cid, body)

    unchanged("malformed JSON", raw('{"type":"op","clientOpID":"m1","operation":{"type":"add-stroke"'), ["malformed"])
    unchanged("not JSON at all", raw("hello"), ["malformed"])
    unchanged("an unknown message type", raw('{"type":"dance"}'), ["malformed", "invalid"])
    unchanged("an op without operation", raw('{"type":"op","clientOpID":"m2"}'), ["malformed", "invalid"])
    unchanged("an unknown operation type", lambda: a.submit({"type": "explode", "id": "x"}),
              ["malformed", "invalid"], "explode|unknown")
    nan = op_text("nan1", '{"type":"add-stroke","id":"nan","points":[[0,NaN,0]],"color":"#ff0000","width":0.005}')
    unchanged("NaN in a point", raw(nan), ["malformed", "invalid"])
    inf = op_text("inf1", '{"type":"add-stroke","id":"inf","points":[[0,1e999,0]],"color":"#ff0000","width":0.005}')
    unchanged("1e999 in a point", raw(inf), ["malformed", "invalid"])
    inf2 = op_text("inf2", '{"type":"extend-stroke","id":"base","points":[[-1e999,0,0]]}')
    unchanged("-1e999 in an extend", raw(inf2), ["malformed", "invalid"])
    unchanged("a point 2 km away", lambda: a.submit({"type": "add-stroke", "id": "far", "points": [[2000, 0, 0]],
                                                      "color": "#ff0000", "width": 0.005}), ["invalid"], "1000|origin|far")
    unchanged("a point of two numbers", lambda: a.submit({"type": "extend-stroke", "id": "base", "points": [[1, 2]]}),
              ["malformed", "invalid"])
    unchanged("501 points in one message", lambda: a.submit(stroke("big", 501)), ["invalid", "too-large"], "500")
    unchanged("a width of 1 m", lambda: a.submit(stroke("wide", 2, width=1.0)), ["invalid"], "width")
    unchanged("a colour 'red'", lambda: a.submit(stroke("red", 2, color="red")), ["invalid"], "colou?r")
    unchanged("an id with a space", lambda: a.submit(stroke("a b", 2)), ["invalid"], "id")
    unchanged("an id of 65 characters", lambda: a.submit(stroke("x" * 65, 2)), ["invalid"], "id")
    unchanged("an empty note", lambda: a.submit({"type": "add-note", "id": "e", "text": "  ", "anchor": {"point": [0, 0, 0]}}),
              ["invalid"])
    unchanged("a note of 501 characters", lambda: a.submit({"type": "add-note", "id": "long", "text": "y" * 501,
                                                             "anchor": {"point": [0, 0, 0]}}), ["invalid"], "500")
    unchanged("extending a missing stroke", lambda: a.submit(extend("ghost", 1)), ["not-found"])
    unchanged("an existing stroke id", lambda: a.submit(stroke("base", 1)), ["invalid"], "exists")
    # Over 5,000 points in one stroke, 500 at a time.
    a.do({"type": "add-stroke", "id": "long", "points": [pt(i) for i in range(500)], "color": "#00ff00", "width": 0.003})
    for k in range(1, 10):
        a.do({"type": "extend-stroke", "id": "long", "points": [pt(500 * k + i) for i in range(500)]}, what=f"extend to {500 * (k + 1)} points")
    unchanged("the 5,001st point of a stroke", lambda: a.submit(extend("long", 1, 9000)), ["invalid"], "5,?000")
    # A message over 64 KiB.
    big = op_text("huge", json.dumps({"type": "add-note", "id": "huge", "text": "z" * 400,
                                      "anchor": {"point": [0, 0, 0]}, "padding": "p" * 70_000}))
    unchanged("a message of 70 KB", raw(big), ["too-large"])
    # <script> in a note: stored and sent back verbatim, as text.
    text = '<script>alert("x")</script> & <b>bold</b>'
    ack = a.do({"type": "add-note", "id": "script", "text": text, "anchor": {"point": [0, 0, 0]}}, what="a note with <script>")
    a.wait_sequence(ack["sequence"])
    expect(a.ops[-1]["operation"]["text"] == text, f"the note came back as {a.ops[-1]['operation']['text']!r}")
    st = room_state(s, room, ada.token)
    stored = [n["text"] for n in st["notes"] if n["id"] == "script"]
    if stored != [text]:
        problems.append(f"note with <script>: expected it stored verbatim {text!r}, got {stored}")
    late = Live(s, room, token=ben.token, name="ben")
    if [n["text"] for n in late.welcome["snapshot"]["notes"] if n["id"] == "script"] != [text]:
        problems.append("note with <script>: the snapshot holds other text")
    late.close()
    # A flood: past 60 a second with bursts of 120 the server refuses (rate-limited), then closes.
    before_log, top = room_log(s, room, ada.token)
    f = Live(s, room, token=ada.token, name="flood")
    f.do(stroke("flood", 1))
    cids = []
    closed = None
    try:
        for i in range(400):
            cids.append(f.send(extend("flood", 1, i), pace=False))
    except ConnectionClosed as e:
        closed = e
    try:
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline and len(f.acks) + len([e for e in f.errors if e.get("clientOpID") in cids]) < len(cids) + 1:
            f._recv(0.2)
    except ConnectionClosed as e:
        closed = e
    limited = [e for e in f.errors if e.get("code") == "rate-limited"]
    other_errors = [e for e in f.errors if e.get("code") != "rate-limited"]
    acked = {c: f.acks[c]["sequence"] for c in cids if c in f.acks}
    if not limited:
        problems.append(f"flood of {len(cids)} messages: expected rate-limited errors, got {len(acked)} acks and "
                        f"errors {short(f.errors)}")
    if other_errors:
        problems.append(f"flood: errors other than rate-limited: {short(other_errors)}")
    log, _ = room_log(s, room, ada.token, after=top)
    logged = {o["clientOpID"]: o["sequence"] for o in log}
    refused = {e.get("clientOpID") for e in limited}
    if any(c in logged for c in refused):
        problems.append(f"flood: operations refused as rate-limited were logged: {sorted(c for c in refused if c in logged)[:5]}")
    if any(logged.get(c) != s_ for c, s_ in acked.items()):
        problems.append("flood: acked operations missing from the log or under another sequence")
    close_note = f"closed with {closed.rcvd.code if closed and closed.rcvd else None}" if closed else "not closed"
    if closed and closed.rcvd and closed.rcvd.code != 1008:
        problems.append(f"flood: the server closed the connection with code {closed.rcvd.code}, expected 1008")
    notes.append(f"flood: {len(acked)} acked, {len(limited)} rate-limited, {close_note}")
    if limited:
        msg = limited[0].get("message", "")
        if len(msg) < 5:
            problems.append(f"flood: the rate-limited error has no clear message: {short(limited[0])}")
        # The operation is refused; sent again later it is accepted.
        time.sleep(1.5)
        again = Live(s, room, token=ada.token, name="after-flood")
        cid = limited[0]["clientOpID"]
        ans = again.submit(extend("flood", 1, 999), cid=cid)
        if ans.get("type") != "ack" or ans.get("duplicate"):
            problems.append(f"flood: a rate-limited operation sent again later: expected a new ack, got {short(ans)}")
        again.close()
    f.close()
    # Keeping on past the limit closes the connection (1008). Operations that would be refused
    # anyway (no such stroke) keep this from writing to the room.
    g = Live(s, room, token=ada.token, name="flood2")
    sent, closed = 0, None
    deadline = time.monotonic() + 10
    try:
        while time.monotonic() < deadline:
            g.send(extend("no-such-stroke", 1), pace=False)
            sent += 1
            if sent % 50 == 0:
                while g._recv(0.001) is not None:
                    pass
    except ConnectionClosed as e:
        closed = e
    if closed is None:
        try:
            g.quiet(2)
        except ConnectionClosed as e:
            closed = e
    code = closed.rcvd.code if closed is not None and closed.rcvd else None
    if code != 1008:
        problems.append(f"sending without pause for 10 s ({sent} messages): expected the server to close with 1008, "
                        f"got {'close code ' + str(code) if closed else 'no close'}")
    else:
        notes.append(f"kept flooding: closed with 1008 after {sent} messages")
    g.close()
    a.close()
    if VERBOSE:
        for line in notes:
            print(f"       {line}")
    if problems:
        raise Fail("; ".join(problems))
    return "; ".join(notes[-2:])


def check_presence():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "presence", members=[ben])
    a = Live(s, room, token=ada.token, name="ada")
    b = Live(s, room, token=ben.token, name="ben")

    def peers_with(n, pred=lambda p: True):
        return lambda m: m if m.get("type") == "presence" and len(m.get("peers", [])) == n and all(map(pred, m["peers"])) else None
    latest = next((m for m in reversed(a.messages) if m.get("type") == "presence"), None)
    if not latest or len(latest.get("peers", [])) != 2:
        latest = a.wait(peers_with(2), 3, "presence with 2 peers")
    ids = sorted(p.get("id") for p in latest["peers"])
    expect(ids == sorted([ada.id, ben.id]), f"presence: expected peers {sorted([ada.id, ben.id])}, got {short(latest)}")
    view = {"position": [0.5, 1.6, 2.0], "target": [0, 1, 0]}
    b.send_raw(json.dumps({"type": "presence", "view": view}))
    m = a.wait(lambda m: m if m.get("type") == "presence" and any(p.get("view") == view for p in m.get("peers", [])) else None,
               3, "presence with Ben's view")
    b.send_raw(json.dumps({"type": "presence", "view": {"position": [0, 0], "target": [0, 0, 0]}}))
    err = b.next_error(3, "an error for a bad view")
    expect(err.get("code") == "malformed", f"a view of two numbers: expected malformed, got {short(err)}")
    b.close()
    a.wait(peers_with(1), 3, "presence with 1 peer after Ben left")
    a.close()
    return f"{len(m['peers'])} peers, views relayed, leaving noticed"


# MARK: durability under SIGKILL

def durability(server, kills=4, label="sqlite"):
    """One client sends numbered strokes, pipelined (up to 8 unanswered), while the server is killed
    at random moments and restarted on the same data; unanswered operations are sent again after
    each restart, as a real client does. Returns a summary; raises Fail on a lost or doubled op."""
    owner = Account(server, "Dora")
    room = make_room(server, owner, f"durability {label}")
    order, ops, acked, dup_acks = [], {}, {}, 0
    pending = []  # sent, unanswered, in order
    rng = random.Random(7 if label == "sqlite" else 11)
    next_id, final_budget = 0, 40
    for round_ in range(kills + 1):
        c = Live(server, room, token=owner.token, name=f"dora{round_}")
        killer = None
        if round_ < kills:
            delay = rng.uniform(0.2, 1.5)
            killer = threading.Timer(delay, server.kill)
            killer.start()
        try:
            for cid in list(pending):  # again, in their first order
                c.send(ops[cid], cid=cid)
            end = time.monotonic() + (3.0 if round_ == kills else 10.0)
            while time.monotonic() < end:
                while len(pending) < 8 and (round_ < kills or final_budget > 0):
                    if round_ == kills:
                        final_budget -= 1
                    next_id += 1
                    cid = f"op-{next_id}"
                    ops[cid] = {"type": "add-stroke", "id": f"s{next_id}", "points": [pt(next_id % 100)],
                                "color": "#112233", "width": 0.004}
                    order.append(cid)
                    pending.append(cid)
                    c.send(ops[cid], cid=cid)
                m = c._recv(0.5)
                if m is None:
                    if round_ == kills and not pending:
                        break
                    continue
                if m["type"] == "ack":
                    cid = m["clientOpID"]
                    if cid in acked and acked[cid] != m["sequence"]:
                        raise Fail(f"{cid} acked as {acked[cid]} and again as {m['sequence']}")
                    acked[cid] = m["sequence"]
                    dup_acks += 1 if m.get("duplicate") else 0
                    if cid in pending:
                        pending.remove(cid)
                elif m["type"] == "error":
                    raise Fail(f"an operation was refused: {short(m)}")
        except (ConnectionClosed, OSError):
            expect(round_ < kills, "the connection closed in the last round, with no kill")
        if killer:
            killer.join()
        c.close()
        if round_ < kills:
            server.start()
    expect(not pending, f"{len(pending)} operations never acknowledged after the last restart: {pending[:5]}")
    log, top = room_log(server, room, owner.token)
    seqs = [o["sequence"] for o in log]
    expect(seqs == list(range(1, len(seqs) + 1)) and top == len(seqs), f"the log is not 1…N: {seqs[:20]}… top {top}")
    cids = [o["clientOpID"] for o in log]
    dups = {c for c in cids if cids.count(c) > 1}
    expect(not dups, f"operations logged twice: {sorted(dups)[:5]}")
    missing = [c for c in acked if c not in cids]
    expect(not missing, f"acknowledged but not in the log: {missing[:5]}")
    wrong = [(c, acked[c], cids.index(c) + 1) for c in acked if cids.index(c) + 1 != acked[c]]
    expect(not wrong, f"acknowledged under one sequence, logged under another: {wrong[:5]}")
    expect(cids == [c for c in order if c in set(cids)], "the log holds the operations in another order than sent")
    strangers = [c for c in cids if c not in ops]
    expect(not strangers, f"the log holds operations nobody sent: {strangers[:5]}")
    state = room_state(server, room, owner.token)
    expect(len(state["strokes"]) == len(log), f"state has {len(state['strokes'])} strokes, the log {len(log)}")
    return f"{kills} kills, {len(acked)} acked, {dup_acks} resends answered as duplicates"


def pg_database(tag):
    """A fresh database on the test PostgreSQL server, and a function that drops it."""
    if not PG_URL:
        raise Skip("PROTEINAR_TEST_POSTGRES_URL is not set (scripts/start-postgres.sh)")
    name = f"rooms_check_{os.getpid()}_{tag}"
    u = urllib.parse.urlsplit(PG_URL)
    r = subprocess.run(["psql", PG_URL, "-v", "ON_ERROR_STOP=1", "-qc", f"CREATE DATABASE {name}"], capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail(f"psql CREATE DATABASE {name}: {r.stderr.strip()}")
    url = urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + name, u.query, u.fragment))

    def drop():
        subprocess.run(["psql", PG_URL, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)
    return url, drop


def check_durability_sqlite():
    server = Server(name="durable-sqlite")
    try:
        return durability(server, kills=4, label="sqlite")
    finally:
        server.stop()


def check_durability_postgres():
    url, drop = pg_database("durable")
    server = None
    try:
        server = Server(db_url=url, name="durable-postgres")
        return durability(server, kills=4, label="postgres")
    finally:
        if server:
            server.stop()
        drop()


def check_two_servers():
    url, drop = pg_database("pair")
    one = two = None
    try:
        one, two = Server(db_url=url, name="pair-1"), Server(db_url=url, name="pair-2")
        ada, ben = Account(one, "Ada"), Account(one, "Ben")
        room = make_room(one, ada, "two servers", members=[ben])
        ben_token = ben.sign_in(two)
        a = Live(one, room, token=ada.token, name="ada@1")
        b = Live(two, room, token=ben_token, name="ben@2")
        expect(b.you.get("role") == "member", f"on server 2 Ben's role: expected member, got {short(b.you)}")
        started = time.monotonic()
        ack = a.do(stroke("from1", 3))
        b.wait_sequence(ack["sequence"], timeout=5)
        t12 = time.monotonic() - started
        expect(b.ops[-1]["clientOpID"] == ack["clientOpID"], f"server 2's client got {short(b.ops[-1])}")
        started = time.monotonic()
        ack = retry_do(b, stroke("from2", 2))
        a.wait_sequence(ack["sequence"], timeout=5)
        t21 = time.monotonic() - started
        # Both draw at once, each on its own server: one order for both, nothing lost or doubled.
        sent = retry_all([(a, extend("from1", 1, 100 + i)) for i in range(10)] +
                         [(b, extend("from2", 1, 200 + i)) for i in range(10)])
        top = max(x["sequence"] for x in sent)
        a.wait_sequence(top, 5)
        b.wait_sequence(top, 5)
        a.quiet(0.3); b.quiet(0.3)
        expect(same_ops(a.ops, b.ops), f"the clients of the two servers saw different operations: "
                                       f"{[o['sequence'] for o in a.ops]} vs {[o['sequence'] for o in b.ops]}")
        expect(contiguous(a.ops, a.welcome["sequence"]), f"gaps or repeats: {[o['sequence'] for o in a.ops]}")
        log, _ = room_log(two, room, ben_token)
        expect(same_ops(log, a.ops), "the log differs from what the clients received")
        token_note = ""
        if http(two, "GET", "/api/profile", token=ada.token).status != 200:
            token_note = "; note: a token from server 1 is not accepted by server 2"
        a.close(); b.close()
        return f"1→2 in {t12 * 1000:.0f} ms, 2→1 in {t21 * 1000:.0f} ms, {len(log)} ops in one order{token_note}"
    finally:
        for x in (one, two):
            if x:
                x.stop()
        drop()


def retry_all(pairs, tries=30):
    """Sends every (client, operation) at once, interleaved, and sends again what a server refused
    because it lost the race for a number; returns the acks."""
    pending = []
    by_client = {}
    for c, op in pairs:
        by_client.setdefault(c, []).append(op)
    for ops in zip(*by_client.values()):
        for c, op in zip(by_client.keys(), ops):
            pending.append((c, op, c.send(op)))
    acks = []
    for c, op, cid in pending:
        for _ in range(tries):
            ans = c.answer(cid, timeout=10)
            if ans.get("type") == "ack":
                acks.append(ans)
                break
            if ans.get("code") == "invalid" and "again" in ans.get("message", ""):
                c.errors = [e for e in c.errors if e.get("clientOpID") != cid]
                time.sleep(0.05)
                c.send(op, cid=cid)
                continue
            raise Fail(f"{c.name}: expected an ack for {cid}, got {short(ans)}")
        else:
            raise Fail(f"{c.name}: {cid} still refused after {tries} tries")
    return acks


def retry_do(client, operation, tries=20):
    """Sends until acked: a server that lost a race for a number says to send again."""
    cid = client.send(operation)
    for _ in range(tries):
        ans = client.answer(cid)
        if ans.get("type") == "ack":
            return ans
        if ans.get("code") == "invalid" and "again" in ans.get("message", ""):
            client.errors = [e for e in client.errors if e.get("clientOpID") != cid]
            time.sleep(0.05)
            client.send(operation, cid=cid)
            continue
        raise Fail(f"{client.name}: expected an ack for {cid}, got {short(ans)}")
    raise Fail(f"{client.name}: {cid} still refused after {tries} tries")


def main():
    if not os.access(BIN, os.X_OK):
        sys.exit(f"{BIN}: not an executable")
    started = time.monotonic()
    run("1", "accounts, sessions, CSRF, sign-out", check_accounts)
    run("2", "two clients see the same operations in the same order", check_order)
    run("3", "undo removes the sender's last stroke; clear by the owner only", check_undo_clear)
    run("4", "reconnect with ?after gets exactly the missed ops; resends are duplicates", check_resume)
    run("5", "a late joiner's snapshot equals the state built from the ops", check_late_joiner)
    run("6", "permissions: non-members, guests, guestsMayDraw", check_permissions)
    run("7", "bad input is refused with a clear error and changes nothing", check_bad_input)
    run("8a", "SIGKILL at random moments loses no acknowledged op (SQLite)", check_durability_sqlite)
    run("8b", "SIGKILL at random moments loses no acknowledged op (PostgreSQL)", check_durability_postgres)
    run("9", "two servers on one PostgreSQL database relay each other's ops", check_two_servers)
    run("10", "presence: who is here, their views, leaving", check_presence)
    for s in SERVERS:
        s.stop()
    print(f"rooms: {RESULTS['passed']} passed, {RESULTS['failed']} failed, {RESULTS['skipped']} skipped "
          f"in {time.monotonic() - started:.0f} s")
    if RESULTS["failed"]:
        print(f"server logs: {TMP}")
        sys.exit(1)
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    finally:
        for s in SERVERS:
            try:
                s.kill()
            except Exception:
                pass
