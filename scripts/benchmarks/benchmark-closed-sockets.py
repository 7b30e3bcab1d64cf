#!/usr/bin/env python3
"""Memory a closed live socket leaves behind: `proteinar serve` under heaptrack (Debian's heaptrack),
N sockets opened one after another to a public room (a guest key each, so each joins as a
participant) and closed after its welcome; 30 s later (the closed sockets' timers run out) the server stops and heaptrack says what was
never freed. Run for 300 and 1,300 sockets; the difference over 1,000 is the cost of one closed
socket (what the process keeps at exit whatever the count cancels out).

    scripts/benchmarks/benchmark-closed-sockets.py BINARY [BINARY…]

Prints, per binary: bytes never freed after 300 and 1,300 sockets, and per closed socket."""
import base64, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request


def run(binary, n, out):
    port = 18000 + (os.getpid() + n) % 1000
    data = tempfile.mkdtemp()
    proc = subprocess.Popen(["heaptrack", "-o", out, binary, "serve", "--port", str(port), "--data-dir", data, "--no-starter"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1)
            break
        except OSError:
            time.sleep(0.2)

    def post(path, body, token=None):
        headers = {"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})}
        return json.load(urllib.request.urlopen(urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                                                       headers=headers), timeout=30))

    token = post("/api/accounts", {"email": "ada@example.org", "password": "correct horse", "name": "Ada", "kind": "token"})["token"]
    room = post("/api/rooms", {"name": "closed sockets", "isPublic": True}, token)["id"]

    def frame(sock):
        head = sock.recv(2, socket.MSG_WAITALL)
        length = head[1] & 127
        if length == 126:
            length = int.from_bytes(sock.recv(2, socket.MSG_WAITALL), "big")
        elif length == 127:
            length = int.from_bytes(sock.recv(8, socket.MSG_WAITALL), "big")
        return head[0] & 15, sock.recv(length, socket.MSG_WAITALL)

    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall((f"GET /api/rooms/{room}/live?guest=guestkey{i:012d}abcdef HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                   f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        assert b'"welcome"' in frame(s)[1]
        mask, body = os.urandom(4), (1000).to_bytes(2, "big")  # a close frame, then the server's
        s.sendall(bytes([0x88, 0x80 | len(body)]) + mask + bytes(b ^ mask[j % 4] for j, b in enumerate(body)))
        try:
            while frame(s)[0] != 8:
                pass
        except OSError:
            pass
        s.close()
    time.sleep(30)  # the closed sockets' timers (the close handshake's 15 s, presence) run out
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=300)
    shutil.rmtree(data, ignore_errors=True)
    text = subprocess.run(["heaptrack_print", "-f", out + ".zst"], capture_output=True, text=True).stdout
    line = next(l for l in text.splitlines() if l.startswith("total memory leaked:"))
    number, unit = re.fullmatch(r"([\d.]+)([KMG]?)B?", line.split(":")[1].strip()).groups()
    return float(number) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[unit]


if not shutil.which("heaptrack"):
    sys.exit("benchmark-closed-sockets: needs heaptrack (apt-get install heaptrack)")
folder = tempfile.mkdtemp()
for binary in sys.argv[1:]:
    few, many = run(binary, 300, os.path.join(folder, "few")), run(binary, 1300, os.path.join(folder, "many"))
    print(f"{binary}: never freed after 300 sockets {few / 1e6:.2f} MB, after 1,300 {many / 1e6:.2f} MB: "
          f"{(many - few) / 1000:.0f} bytes per closed socket")
shutil.rmtree(folder, ignore_errors=True)
