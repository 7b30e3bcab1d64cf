#!/usr/bin/env python3
"""A recorded room read by two builds: the first build records a room (strokes on and off the 0.1 mm
grid, an extended stroke, an undo, notes with text that needs escaping, one pinned to a residue, a
placed molecule) through HTTP and is stopped; then each build in turn serves the same SQLite folder
and is asked for the room's log, its state (`GET …/state`), its state at a past sequence and its
compact snapshot over the live socket, answers compared byte for byte. The log keeps 40 operations,
so the old build folded the rest into a stored snapshot that the new build loads the room from (the
stored text itself changed on purpose: its notes' keys are sorted now, as every other form's).

    scripts/benchmarks/compare-recorded-room.py OLD_BIN NEW_BIN"""
import base64, json, os, random, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request

old, new = sys.argv[1], sys.argv[2]
data = tempfile.mkdtemp()


def start(binary):
    port = 19000 + random.randrange(900)
    proc = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", data, "--no-starter", "--room-history", "40"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return proc, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{binary} did not start")


def call(port, method, path, body=None, token=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def compact(port, room, token):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall((f"GET /api/rooms/{room}/live?snapshot=compact HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nAuthorization: Bearer {token}\r\nSec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    h = s.recv(2, socket.MSG_WAITALL)
    n = h[1] & 127
    n = int.from_bytes(s.recv(2 if n == 126 else 8, socket.MSG_WAITALL), "big") if n >= 126 else n
    welcome = json.loads(s.recv(n, socket.MSG_WAITALL))
    s.close()
    return json.dumps(welcome["snapshot"], ensure_ascii=False, separators=(",", ":")).encode()


def stop(proc):
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=60)


proc, port = start(old)
token = json.loads(call(port, "POST", "/api/accounts", {"email": "ada@example.org", "password": "correct horse", "name": "Ada", "kind": "token"}))["token"]
room = json.loads(call(port, "POST", "/api/rooms", {"name": "recorded", "isPublic": True}, token))["id"]
rnd = random.Random(7)
ops = []
for i in range(60):
    grid = i % 5 != 0
    pts = [[round(rnd.uniform(-0.2, 0.2), 4 if grid else 9) for _ in range(3)] for _ in range(rnd.randint(2, 30))]
    ops.append({"type": "add-stroke", "id": f"s{i}", "points": pts, "color": rnd.choice(["#e53935", "#1e88e5", "#43a047"]), "width": 0.004})
    if i % 7 == 0:
        ops.append({"type": "extend-stroke", "id": f"s{i}", "points": [[0.01, 0.02, 0.0301], [0.0102, 0.0203, 0.0302]]})
    if i % 11 == 0:
        ops.append({"type": "undo"})
ops.append({"type": "add-note", "id": "n1", "text": "Heme — “Fe²⁺” / a line\nthen \"quoted\" \\ back", "anchor": {"point": [0.01, 0.02, -0.03]}})
ops.append({"type": "add-note", "id": "n2", "text": "Gly 10", "anchor": {"chain": "A", "residue": 10}})
ops.append({"type": "set-molecule", "molecule": {"moleculeID": "1AKE", "style": "cartoon", "transform": [0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0.01, 0.125, -0.2, 1]}})
for k, op in enumerate(ops):
    call(port, "POST", f"/api/rooms/{room}/operations", {"clientOpID": f"c{k}", "operation": op}, token)
stop(proc)

answers = {}
for name, binary in (("old", old), ("new", new)):
    proc, port = start(binary)
    got = {"log": call(port, "GET", f"/api/rooms/{room}/operations?after=30&limit=5000", token=token),
           "state": call(port, "GET", f"/api/rooms/{room}/state", token=token),
           "state at 50": call(port, "GET", f"/api/rooms/{room}/state?at=50", token=token),
           "compact snapshot": compact(port, room, token)}
    stop(proc)
    answers[name] = got
same = 0
for key in answers["old"]:
    ok = answers["old"][key] == answers["new"][key]
    same += ok
    print(("same " if ok else "DIFF ") + f"{key} ({len(answers['old'][key])} bytes)")
print(f"{len(ops)} operations recorded by {os.path.basename(old)}; {same} of {len(answers['old'])} answers byte-identical")
shutil.rmtree(data, ignore_errors=True)
sys.exit(0 if same == len(answers["old"]) else 1)
