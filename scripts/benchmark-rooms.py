#!/usr/bin/env python3
"""Load on the live drawing rooms (docs/rooms-protocol.md): one `proteinar serve`, R rooms, C
WebSocket clients in each, every client adding one stroke point every I ms (an add-stroke, then
extend-stroke messages of one point; a new stroke about every second).

    scripts/benchmark-rooms.py PROTEINAR_BIN [--rooms 10] [--clients 20] [--seconds 60]
        [--interval-ms 33] [--postgres URL] [--processes N] [--members] [--deflate]

Measures, for every operation sent and every client of its room that receives its `op` broadcast,
the latency from send to receive (clients of one room live in one process; the clock is
CLOCK_MONOTONIC, one for the whole machine); the latency from send to `ack`; operations accepted
per second; operations lost (acked but not received by some client of the room, or never
answered) and duplicated (received twice by one client); the server's resident memory (VmRSS,
every 5 s) and its CPU time against the client processes' CPU time, to tell which side was the
bottleneck. Prints a summary and the figures as a markdown table.

Clients are guests (the rooms are public and guestsMayDraw) unless --members, which registers one
account per client and adds it to the room (slower to set up: bcrypt per account). The database is
SQLite in a temporary folder, or the PostgreSQL database at --postgres (used as it is)."""
import argparse, asyncio, json, multiprocessing as mp, os, random, re, select, shutil, signal, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.request

try:
    import websockets  # noqa: F401
except ImportError:
    from project_venv import rerun_in_venv
    rerun_in_venv(__file__, "benchmark-rooms: websockets")
from websockets.asyncio.client import connect as ws_connect

BUCKET_MS = 0.1          # latency histogram resolution
BUCKETS = 20_000         # 0 … 2 s in 0.1 ms steps; slower ones are kept exactly
TICK = os.sysconf("SC_CLK_TCK")


# MARK: the server

def start_server(binary, tmp, postgres):
    args = [binary, "serve", "--port", "0", "--host", "127.0.0.1", "--no-starter", "--data-dir", os.path.join(tmp, "data")]
    if postgres:
        args += ["--database-url", postgres]
    log = open(os.path.join(tmp, "server.log"), "wb")
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
    line, deadline = b"", time.monotonic() + 30
    while b"\n" not in line and time.monotonic() < deadline and proc.poll() is None:
        if select.select([proc.stdout], [], [], 0.2)[0]:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            line += chunk
    m = re.search(rb"listening on http://[^:\s]+:(\d+)", line)
    if not m:
        proc.kill()
        sys.exit(f"the server did not start: {line[:300]!r}; see {log.name}")
    out = proc.stdout
    threading.Thread(target=lambda: [log.write(c) for c in iter(lambda: out.read1(65536), b"")], daemon=True).start()
    return proc, int(m.group(1))


def http(port, method, path, body=None, token=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def register(port, name):
    status, body = http(port, "POST", "/api/accounts", {"email": f"{name}-{random.getrandbits(40):x}@example.org",
                                                         "password": "benchmark password", "name": name, "kind": "token"})
    if status != 201:
        sys.exit(f"register {name}: HTTP {status} {body}")
    return body


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def machine_busy_seconds():
    """CPU time all processes on the machine used (all cores), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / TICK  # all but idle and iowait


def postgres_cpu_seconds():
    """CPU time of the machine's PostgreSQL processes (part of the system under test with --postgres)."""
    total = 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                text = f.read()
        except OSError:
            continue
        if text[text.index("(") + 1:text.rindex(")")] in ("postgres", "postmaster"):
            fields = text.rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def room_sequences(port, owners):
    out = {}
    for rid_, token in owners.items():
        status, body = http(port, "GET", f"/api/rooms/{rid_}", token=token)
        out[rid_] = body["room"].get("sequence") if status == 200 else None
    return out


# MARK: the clients (one process holds whole rooms)

class RoomLoad:
    def __init__(self, room_id, clients):
        self.id = room_id
        self.sent = {}         # clientOpID → send time
        self.acked = {}        # clientOpID → sequence
        self.refused = {}      # clientOpID → error code
        self.clients = clients  # [(index, auth)]
        self.seen = []         # per client: bytearray, 1 at each sequence received
        self.counts = []       # per client: how many distinct sequences it received
        self.duplicates = 0


class Stats:
    def __init__(self):
        self.hist = [0] * BUCKETS
        self.slow = []
        self.ack_hist = [0] * BUCKETS
        self.ack_slow = []
        self.errors = {}
        self.closed = {}
        self.behind = 0
        self.send_blocked = 0
        self.drop_times = []   # seconds after the start at which sending met a closed connection
        self.other_messages = 0

    def add(self, hist, slow, ms):
        b = int(ms / BUCKET_MS)
        if b < BUCKETS:
            hist[b] += 1
        else:
            slow.append(ms)


async def run_client(room, index, url, headers, stats, start_at, end_at, interval, per_stroke, deflate, ready):
    seen = bytearray(4096)
    room.seen.append(seen)
    slot = len(room.counts)
    room.counts.append(0)
    counts = room.counts
    ws = await ws_connect(url, additional_headers=headers, compression="deflate" if deflate else None,
                          ping_interval=None, max_size=2 ** 24, open_timeout=60, close_timeout=2)
    welcome = json.loads(await ws.recv())
    if welcome.get("type") != "welcome":
        raise RuntimeError(f"expected welcome, got {str(welcome)[:200]}")
    ready()
    monotonic = time.monotonic
    sent, acked, refused = room.sent, room.acked, room.refused
    hist, slow, ack_hist, ack_slow = stats.hist, stats.slow, stats.ack_hist, stats.ack_slow
    loads = json.loads

    def seen_op(m, now):
        seq = m["sequence"]
        if seq >= len(seen):
            seen.extend(bytes(max(seq + 1 - len(seen), len(seen))))
        if seen[seq]:
            room.duplicates += 1
        else:
            seen[seq] = 1
            counts[slot] += 1
        t0 = sent.get(m["clientOpID"])
        if t0 is not None:
            ms = (now - t0) * 1000
            b = int(ms / BUCKET_MS)
            if b < BUCKETS:
                hist[b] += 1
            else:
                slow.append(ms)

    async def receive():
        try:
            async for raw in ws:
                now = monotonic()
                m = loads(raw)
                t = m.get("type")
                if t == "ops":  # several ops that waited together, in order
                    for m in m["ops"]:
                        seen_op(m, now)
                    continue
                if t == "op":
                    seen_op(m, now)
                elif t == "ack":
                    cid = m["clientOpID"]
                    acked[cid] = m["sequence"]
                    t0 = sent.get(cid)
                    if t0 is not None:
                        stats.add(ack_hist, ack_slow, (now - t0) * 1000)
                elif t == "error":
                    code = m.get("code", "?")
                    stats.errors[code] = stats.errors.get(code, 0) + 1
                    if m.get("clientOpID"):
                        refused[m["clientOpID"]] = code
                else:
                    stats.other_messages += 1
        except Exception as e:  # noqa: BLE001 — a dropped connection is counted, not fatal
            rcvd = getattr(e, "rcvd", None)
            key = f"{type(e).__name__} " + (f"{rcvd.code} {rcvd.reason}" if rcvd else "(no close frame)")
            stats.closed[key] = stats.closed.get(key, 0) + 1

    receiver = asyncio.create_task(receive())
    await start_at
    rng = random.Random(index)
    x, y, z = rng.uniform(-1, 1), rng.uniform(0, 2), rng.uniform(-1, 1)
    k, stroke = 0, None
    next_t = start_at.result() + rng.uniform(0, interval)  # clients out of step, as people are
    try:
        while True:
            now = monotonic()
            if now >= end_at.result():
                break
            if now < next_t:
                await asyncio.sleep(next_t - now)
            x += rng.uniform(-0.005, 0.005); y += rng.uniform(-0.005, 0.005); z += rng.uniform(-0.005, 0.005)
            point = f"[[{x:.4f},{y:.4f},{z:.4f}]]"
            cid = f"{index}-{k}"
            if k % per_stroke == 0:
                stroke = f"c{index}s{k}"
                op = f'{{"type":"add-stroke","id":"{stroke}","points":{point},"color":"#3366ff","width":0.004}}'
            else:
                op = f'{{"type":"extend-stroke","id":"{stroke}","points":{point}}}'
            t_send = sent[cid] = monotonic()
            await ws.send(f'{{"type":"op","clientOpID":"{cid}","operation":{op}}}')
            if monotonic() - t_send > interval:  # the socket's buffer was full: the server reads slower than we send
                stats.send_blocked += 1
            k += 1
            next_t += interval
            if monotonic() - next_t > interval:  # fell behind: no catch-up burst (it would meet the rate limit)
                stats.behind += 1
                next_t = monotonic()
    except Exception as e:  # noqa: BLE001
        rcvd = getattr(e, "rcvd", None)
        key = f"send: {type(e).__name__} " + (f"{rcvd.code} {rcvd.reason}".strip() if rcvd else "(no close frame)")
        stats.closed[key] = stats.closed.get(key, 0) + 1
        stats.drop_times.append(monotonic() - start_at.result())
    return ws, receiver


def worker(wid, rooms, port, args, ready_queue, go, start_value, results):
    """Runs the clients of `rooms` (a list of (room id, [(index, auth)])) in one asyncio loop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stats = Stats()
    loads = [RoomLoad(rid_, clients) for rid_, clients in rooms]
    interval = args.interval_ms / 1000
    per_stroke = max(1, round(1000 / args.interval_ms))

    async def main():
        loop = asyncio.get_running_loop()
        start_at, end_at = loop.create_future(), loop.create_future()
        connected = [0]
        total = sum(len(r.clients) for r in loads)
        t_connect = time.monotonic()
        all_ready = loop.create_future()

        def ready():
            connected[0] += 1
            if connected[0] == total and not all_ready.done():
                all_ready.set_result(None)
        tasks = []
        for room in loads:
            for index, auth in room.clients:
                tasks.append(asyncio.ensure_future(run_client(room, index, *endpoint(room, auth), stats, start_at, end_at,
                                                              interval, per_stroke, args.deflate, ready)))
                if len(tasks) % 20 == 0:
                    await asyncio.sleep(0.05)
        while not all_ready.done():
            await asyncio.wait([all_ready, *tasks], return_when=asyncio.FIRST_COMPLETED, timeout=120)
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed or time.monotonic() - t_connect > 120:
                ready_queue.put(("error", wid, f"{connected[0]}/{total} connected; "
                                               f"{repr(failed[0].exception()) if failed else 'timeout'}"))
                return
        ready_queue.put(("ready", wid, time.monotonic() - t_connect))
        await loop.run_in_executor(None, go.wait)
        start_at.set_result(start_value.value)
        end_at.set_result(start_value.value + args.seconds)
        cpu0, wall0 = os.times(), time.monotonic()
        pairs = await asyncio.gather(*tasks)
        cpu1, wall1 = os.times(), time.monotonic()
        sending_cpu = (cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)
        sending_wall = wall1 - wall0
        # Drain: until every answer and every broadcast is in, or args.drain seconds.
        deadline = time.monotonic() + args.drain
        while time.monotonic() < deadline:
            if all(drained(r) for r in loads):
                break
            await asyncio.sleep(0.1)
        drain_s = time.monotonic() - wall1
        for ws, receiver in pairs:
            receiver.cancel()
        await asyncio.gather(*(ws.close() for ws, _ in pairs), return_exceptions=True)
        # A client that received sequence N but not some M < N lost M: broadcasts come in order, each
        # once. Sequences past the last one a client received were still on their way when it
        # stopped listening (or its connection dropped): not delivered, but not a gap.
        lost = tail = 0
        unanswered = {r.id: [c for c in r.sent if c not in r.acked and c not in r.refused] for r in loads}
        for r in loads:
            top = max(r.acked.values(), default=0)
            for seen in r.seen:
                last = max(seen.rfind(1, 0, top + 1), 0)
                lost += max(last - 1, 0) - seen.count(1, 1, last)
                tail += top - last
        results.put(("done", wid, {
            "rooms": {r.id: {"sent": len(r.sent), "acked": dict(r.acked), "refused": len(r.refused),
                             "unanswered": unanswered[r.id]} for r in loads},
            "drained": all(drained(r) for r in loads),
            "sent": sum(len(r.sent) for r in loads), "acked": sum(len(r.acked) for r in loads),
            "refused": sum(len(r.refused) for r in loads), "unanswered": sum(map(len, unanswered.values())),
            "lost_deliveries": lost, "undelivered_tail": tail,
            "duplicates": sum(r.duplicates for r in loads), "deliveries_expected": sum(len(r.acked) * len(r.seen) for r in loads),
            "hist": stats.hist, "slow": stats.slow, "ack_hist": stats.ack_hist, "ack_slow": stats.ack_slow,
            "errors": stats.errors, "closed": stats.closed, "behind": stats.behind, "send_blocked": stats.send_blocked, "drop_times": stats.drop_times,
            "cpu": sending_cpu, "wall": sending_wall, "drain_s": drain_s, "clients": sum(len(r.clients) for r in loads)}))

    def endpoint(room, auth):
        if auth.startswith("token:"):
            return f"ws://127.0.0.1:{port}/api/rooms/{room.id}/live", {"Authorization": f"Bearer {auth[6:]}"}
        return f"ws://127.0.0.1:{port}/api/rooms/{room.id}/live?guest={auth}", {}

    def drained(r):
        """Every operation answered, and every client has every sequence up to the last acked (the
        rooms are new, and only these clients write to them)."""
        if len(r.acked) + len(r.refused) < len(r.sent):
            return False
        top = max(r.acked.values(), default=0)
        return all(n >= top for n in r.counts)

    try:
        asyncio.run(main())
    except Exception as e:  # noqa: BLE001
        ready_queue.put(("error", wid, f"{type(e).__name__}: {e}"))
        results.put(("error", wid, f"{type(e).__name__}: {e}"))


# MARK: figures

def percentile(hist, slow, q):
    total = sum(hist) + len(slow)
    if total == 0:
        return None
    rank = q * (total - 1)
    acc = 0
    for b, n in enumerate(hist):
        acc += n
        if acc > rank:
            return (b + 0.5) * BUCKET_MS
    slow = sorted(slow)
    return slow[min(len(slow) - 1, int(rank - sum(hist)))]


def fmt_ms(v):
    return "–" if v is None else (f"{v:.1f} ms" if v < 100 else f"{v:.0f} ms")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary")
    p.add_argument("--rooms", type=int, default=10)
    p.add_argument("--clients", type=int, default=20, help="clients per room")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--interval-ms", type=float, default=33, help="one point per client every so many ms")
    p.add_argument("--postgres", metavar="URL", help="use this PostgreSQL database instead of SQLite")
    p.add_argument("--processes", type=int, default=0, help="client processes (default: one per core, at most one per room)")
    p.add_argument("--members", action="store_true", help="clients are member accounts instead of guests")
    p.add_argument("--deflate", action="store_true", help="offer permessage-deflate, as browsers do")
    p.add_argument("--drain", type=float, default=30, help="seconds to wait for late answers after sending stops")
    args = p.parse_args()
    binary = os.path.abspath(args.binary)
    cores = os.cpu_count() or 1
    processes = min(args.rooms, args.processes or cores)
    tmp = tempfile.mkdtemp(prefix="proteinar-rooms-bench-")
    proc, port = start_server(binary, tmp, args.postgres)
    ok = False
    try:
        ok = run(args, proc, port, processes, cores, tmp)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"server log: {os.path.join(tmp, 'server.log')}")
    sys.exit(0 if ok else 1)


def run(args, proc, port, processes, cores, tmp):
    store = f"PostgreSQL ({args.postgres.split('@')[-1]})" if args.postgres else "SQLite"
    total = args.rooms * args.clients
    print(f"benchmark-rooms: {args.rooms} rooms × {args.clients} clients = {total} WebSocket connections, "
          f"one point every {args.interval_ms:g} ms for {args.seconds:g} s; {store}; "
          f"{processes} client process{'es' if processes != 1 else ''} on {cores} cores; "
          f"{'members' if args.members else 'guests'}{', permessage-deflate' if args.deflate else ''}", flush=True)
    setup = time.monotonic()
    rooms = []
    for r in range(args.rooms):
        owner = register(port, f"owner{r}")
        status, room = http(port, "POST", "/api/rooms", {"name": f"load {r}", "isPublic": True, "guestsMayDraw": True},
                            owner["token"])
        if status != 201:
            sys.exit(f"create room: HTTP {status} {room}")
        clients = []
        for c in range(args.clients):
            if args.members:
                acct = register(port, f"r{r}c{c}")
                status, body = http(port, "POST", f"/api/rooms/{room['id']}/members", {"email": acct["account"]["email"]},
                                    owner["token"])
                if status != 200:
                    sys.exit(f"add member: HTTP {status} {body}")
                clients.append((c, "token:" + acct["token"]))
            else:
                clients.append((c, f"bench-r{r}-c{c}-{random.getrandbits(48):012x}"))
        rooms.append((room["id"], clients, owner["token"]))
    print(f"set up {args.rooms} rooms in {time.monotonic() - setup:.1f} s", flush=True)
    memory = [("start", 0.0, rss_kb(proc.pid))]
    ctx = mp.get_context("fork")
    ready_q, results = ctx.Queue(), ctx.Queue()
    go, start_value = ctx.Event(), ctx.Value("d", 0.0)
    shares = [[(rid_, clients) for i, (rid_, clients, _) in enumerate(rooms) if i % processes == w] for w in range(processes)]
    workers = [ctx.Process(target=worker, args=(w, shares[w], port, args, ready_q, go, start_value, results), daemon=True)
               for w in range(processes)]
    for w in workers:
        w.start()
    connect_s = 0.0
    for _ in workers:
        kind, wid, value = ready_q.get(timeout=300)
        if kind != "ready":
            sys.exit(f"client process {wid}: {value}")
        connect_s = max(connect_s, value)
    print(f"connected {total} clients in {connect_s:.1f} s; server RSS {memory[0][2] / 1024:.1f} MiB before connecting, "
          f"{rss_kb(proc.pid) / 1024:.1f} MiB now", flush=True)
    memory.append(("connected", 0.0, rss_kb(proc.pid)))
    start_value.value = time.monotonic() + 0.5
    cpu0 = cpu_seconds(proc.pid)
    busy0 = machine_busy_seconds()
    pg0 = postgres_cpu_seconds() if args.postgres else 0.0
    base = sum(room_sequences(port, {rid_: tok for rid_, _, tok in rooms}).values())
    window_marks = {}
    go.set()
    t0 = start_value.value
    done, outcomes = 0, {}
    next_sample = t0 + 5
    while done < len(workers):
        try:
            kind, wid, value = results.get(timeout=0.5)
            if kind == "error":
                print(f"client process {wid} failed: {value}", flush=True)
                outcomes[wid] = None
            else:
                outcomes[wid] = value
            done += 1
        except Exception:  # queue.Empty
            pass
        now = time.monotonic()
        if now >= next_sample and now < t0 + args.seconds + 1:
            memory.append((f"{now - t0:.0f} s", now - t0, rss_kb(proc.pid)))
            next_sample += 5
        if now > t0 + args.seconds + args.drain + 120:
            print("client processes did not finish in time", flush=True)
            break
        if done == 0 and now >= t0 + args.seconds and "server_cpu" not in outcomes:
            outcomes["server_cpu"] = cpu_seconds(proc.pid) - cpu0
            window_marks["machine_busy"] = machine_busy_seconds() - busy0
            window_marks["postgres"] = (postgres_cpu_seconds() - pg0) if args.postgres else 0.0
            window_marks["load"] = open("/proc/loadavg").read().split()[0]
            memory.append(("end", now - t0, rss_kb(proc.pid)))
            window_marks["accepted"] = sum(room_sequences(port, {rid_: tok for rid_, _, tok in rooms}).values()) - base
    for w in workers:
        w.join(10)
    server_cpu = outcomes.pop("server_cpu", cpu_seconds(proc.pid) - cpu0)
    memory.append(("after drain", time.monotonic() - t0, rss_kb(proc.pid)))
    parts = [v for v in outcomes.values() if v]
    if not parts:
        sys.exit("no client process finished")
    agg = {k: sum(p[k] for p in parts) for k in ("sent", "acked", "refused", "unanswered", "lost_deliveries", "duplicates",
                                               "deliveries_expected", "behind", "send_blocked", "clients", "undelivered_tail")}
    hist = [sum(col) for col in zip(*(p["hist"] for p in parts))]
    slow = [x for p in parts for x in p["slow"]]
    ack_hist = [sum(col) for col in zip(*(p["ack_hist"] for p in parts))]
    ack_slow = [x for p in parts for x in p["ack_slow"]]
    errors, closed = {}, {}
    for p_ in parts:
        for k, v in p_["errors"].items():
            errors[k] = errors.get(k, 0) + v
        for k, v in p_["closed"].items():
            closed[k] = closed.get(k, 0) + v
    # What the server stored: once its rooms stop moving, every room's log against what was sent.
    owner_of = {rid_: tok for rid_, _, tok in rooms}
    previous, settle = None, time.monotonic()
    while time.monotonic() - settle < 120:
        current = room_sequences(port, owner_of)
        if current == previous:
            break
        previous = current
        time.sleep(1)
    stored_late = never_stored = 0
    log_problems = []
    for p_ in parts:
        for rid_, r in p_["rooms"].items():
            log, after = [], 0
            while True:
                status, body = http(port, "GET", f"/api/rooms/{rid_}/operations?after={after}&limit=5000", token=owner_of[rid_])
                if status != 200:
                    log_problems.append(f"{rid_}: GET operations: HTTP {status}")
                    break
                log += body["operations"]
                if not body.get("more") or not body["operations"]:
                    break
                after = body["operations"][-1]["sequence"]
            if [o["sequence"] for o in log] != list(range(1, len(log) + 1)):
                log_problems.append(f"{rid_}: the log's sequences are not 1…{len(log)}")
            where = {}
            for o in log:
                if o["clientOpID"] in where:
                    log_problems.append(f"{rid_}: {o['clientOpID']} logged twice")
                where[o["clientOpID"]] = o["sequence"]
            wrong = [c for c, seq in r["acked"].items() if where.get(c) != seq]
            if wrong:
                log_problems.append(f"{rid_}: {len(wrong)} acked ops not in the log under their sequence, e.g. {wrong[0]}")
            late = sum(1 for c in r["unanswered"] if c in where)
            stored_late += late
            never_stored += len(r["unanswered"]) - late
    window = args.seconds
    p50, p99, p999 = (percentile(hist, slow, q) for q in (0.5, 0.99, 0.999))
    a50, a99 = (percentile(ack_hist, ack_slow, q) for q in (0.5, 0.99))
    worst = max(slow) if slow else next(((b + 1) * BUCKET_MS for b in range(BUCKETS - 1, -1, -1) if hist[b]), None)
    target = total * 1000 / args.interval_ms
    lost_ops = agg["unanswered"]
    client_cpu = [p_["cpu"] / p_["wall"] for p_ in parts]
    server_share = server_cpu / window
    machine_busy = window_marks.get("machine_busy", 0.0) / window
    pg_share = window_marks.get("postgres", 0.0) / window
    others = max(0.0, machine_busy - server_share - sum(client_cpu) - pg_share)
    accepted_in_window = window_marks.get("accepted", agg["acked"])
    drained = all(p_["drained"] for p_ in parts)
    rss = [(label, kb / 1024 if kb else None) for label, _, kb in memory]
    print(f"\nsent {agg['sent']} ops ({agg['sent'] / window:.0f}/s; target {target:.0f}/s); the server accepted "
          f"{accepted_in_window / window:.0f}/s while they were sent and {agg['acked']} in all; refused {agg['refused']} {errors or ''}")
    print(f"broadcast latency (send → op received, {sum(hist) + len(slow)} deliveries): p50 {fmt_ms(p50)}, p99 {fmt_ms(p99)}, "
          f"p99.9 {fmt_ms(p999)}, max {fmt_ms(worst)}")
    print(f"ack latency (send → ack): p50 {fmt_ms(a50)}, p99 {fmt_ms(a99)}")
    if not drained:
        print(f"the clients stopped waiting {args.drain:g} s after sending ended with answers or broadcasts still due: "
              f"the server was that far behind")
    print(f"lost: {lost_ops} ops never acked ({stored_late} of them stored after all, {never_stored} never stored), "
          f"{agg['lost_deliveries']} deliveries missing before a later one (gaps, of {agg['deliveries_expected']}); "
          f"{agg['undelivered_tail']} still on their way when clients stopped; duplicated deliveries: {agg['duplicates']}")
    for problem in log_problems[:5]:
        print(f"log: {problem}")
    if closed:
        drops = sorted(t for p_ in parts for t in p_["drop_times"])
        when = f"; the first {drops[0]:.0f} s after the start, half by {drops[len(drops) // 2]:.0f} s" if drops else ""
        print(f"connections closed by the server while clients were sending: {closed}{when}")
    if agg["behind"]:
        print(f"clients fell behind their schedule {agg['behind']} times (slots skipped, no bursts); "
              f"{agg['send_blocked']} sends waited longer than one interval for the socket (the server not reading)")
    print("server RSS: " + ", ".join(f"{label} {mb:.1f} MiB" for label, mb in rss if mb))
    print(f"CPU: server {server_share * 100:.0f}% of one core over the run; client processes "
          + ", ".join(f"{c * 100:.0f}%" for c in client_cpu) + " of one core each; "
          + (f"PostgreSQL {pg_share * 100:.0f}%; " if args.postgres else "")
          + f"other processes {others * 100:.0f}% ({cores} cores in all)")
    busiest = max(client_cpu)
    total_cpu = max(machine_busy, server_share + sum(client_cpu))
    if others > 0.3:
        verdict = (f"other processes used {others * 100:.0f}% of a core meanwhile (load average {window_marks.get('load')}): "
                   f"the figures are disturbed; run again on a quiet machine")
    elif total_cpu > 0.85 * cores:
        verdict = (f"the machine was saturated ({total_cpu * 100:.0f}% of {cores * 100}%): the server had "
                   f"{(server_share + pg_share) / total_cpu * 100:.0f}% of the CPU{' with PostgreSQL' if args.postgres else ''}, "
                   f"the clients the rest; figures are a lower bound on what the server alone could do")
    elif busiest > 0.9:
        verdict = "client-bound: a client process used a whole core; latency includes time queued in the client"
    elif server_share > 0.9:
        verdict = "the server used about a core or more; it may be the bottleneck"
    else:
        verdict = "neither side was CPU-bound"
    print(f"bottleneck: {verdict}")
    mid = rss[len(rss) // 2][1] if rss else None
    print("\n| figure | value |\n| --- | --- |")
    rows = [
        ("rooms × clients", f"{args.rooms} × {args.clients} = {total} connections ({'members' if args.members else 'guests'})"),
        ("load", f"1 point / {args.interval_ms:g} ms / client for {args.seconds:g} s (target {target:.0f} ops/s)"),
        ("store", store),
        ("client processes", f"{processes} on {cores} cores"),
        ("ops sent / accepted per second", f"{agg['sent'] / window:.0f} / {accepted_in_window / window:.0f}"),
        ("broadcast latency p50 / p99", f"{fmt_ms(p50)} / {fmt_ms(p99)}"),
        ("broadcast latency p99.9 / max", f"{fmt_ms(p999)} / {fmt_ms(worst)}"),
        ("ack latency p50 / p99", f"{fmt_ms(a50)} / {fmt_ms(a99)}"),
        ("never acked (stored later / never stored)", f"{lost_ops} ({stored_late} / {never_stored})"),
        ("deliveries lost (gaps) / still due at the end", f"{agg['lost_deliveries']} / {agg['undelivered_tail']}"),
        ("duplicated deliveries", str(agg["duplicates"])),
        ("refused", f"{agg['refused']} {errors if errors else ''}".strip()),
        ("server RSS start / middle / end", " / ".join(f"{x:.1f} MiB" if x else "–" for x in (rss[0][1], mid, rss[-1][1]))),
        ("server CPU", f"{server_share * 100:.0f}% of a core" + (f" (+ PostgreSQL {pg_share * 100:.0f}%)" if args.postgres else "")),
        ("client CPU", ", ".join(f"{c * 100:.0f}%" for c in client_cpu) + " of a core per process"),
        ("other processes' CPU", f"{others * 100:.0f}% of a core (load average {window_marks.get('load', '?')})"),
    ]
    for k, v in rows:
        print(f"| {k} | {v} |")
    sys.stdout.flush()
    return not (lost_ops or agg["lost_deliveries"] or agg["duplicates"] or log_problems or closed)


if __name__ == "__main__":
    main()
