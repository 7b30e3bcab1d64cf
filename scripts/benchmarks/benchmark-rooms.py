#!/usr/bin/env python3
"""Load on the live drawing rooms (docs/rooms-protocol.md): one `proteinar serve`, R rooms, C
WebSocket clients in each, every client adding one stroke point every I ms (an add-stroke, then
extend-stroke messages of one point; a new stroke about every second).

    scripts/benchmarks/benchmark-rooms.py PROTEINAR_BIN [--rooms 10] [--clients 20] [--seconds 60]
        [--interval-ms 33] [--postgres URL] [--generator swift|python] [--processes N] [--members] [--deflate]

The clients are, by default, the Swift load generator (`proteinar bench-rooms`, Sources/RoomLoad:
every client in one process on one event-loop thread, cheap enough that the server gets most of
the machine); `--generator python` runs the Python clients of room_load/clients.py instead (one
process per core), kept as a cross-check: both report the same figures the same way.

Measures, for every operation sent and every client of its room that receives its `op` broadcast,
the latency from send to receive (clients of one room live in one process; the clock is
CLOCK_MONOTONIC, one for the whole machine); the latency from send to `ack`; operations accepted
per second; operations lost (acked but not received by some client of the room, or never
answered) and duplicated (received twice by one client); the server's resident memory (VmRSS,
every 5 s) and its CPU time against the client processes' CPU time, to tell which side was the
bottleneck. Prints a summary and the figures as a markdown table.

Clients are guests (the rooms are public and guestsMayDraw) unless --members, which registers one
account per client and adds it to the room (slower to set up: bcrypt per account). The database is
SQLite in a temporary folder, or the PostgreSQL database at --postgres (used as it is).

The clients, the measurements and the summary are in scripts/benchmarks/room_load/; the server,
HTTP and accounts come from scripts/proteinar_testing."""
import argparse, json, multiprocessing as mp, os, random, shutil, subprocess, sys, tempfile, threading, time

import scripts_path  # noqa: E402,F401  (scripts/ on sys.path, for proteinar_testing)
from proteinar_testing.venv import require  # noqa: E402

require(__file__, ["websockets"], "benchmark-rooms: websockets")
from proteinar_testing.accounts import Account, make_room, room_log  # noqa: E402
from proteinar_testing.report import Fail  # noqa: E402
from proteinar_testing.server import ServerDidNotStart, ServerProcess  # noqa: E402
from room_load.clients import worker  # noqa: E402
from room_load.measure import cpu_seconds, machine_busy_seconds, postgres_cpu_seconds, room_sequences, rss_kb  # noqa: E402
from room_load.report import report  # noqa: E402

PASSWORD = "benchmark password"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary")
    p.add_argument("--rooms", type=int, default=10)
    p.add_argument("--clients", type=int, default=20, help="clients per room")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--interval-ms", type=float, default=33, help="one point per client every so many ms")
    p.add_argument("--postgres", metavar="URL", help="use this PostgreSQL database instead of SQLite")
    p.add_argument("--generator", choices=("swift", "python"), default="swift",
                   help="the Swift load generator (proteinar bench-rooms) or the Python clients")
    p.add_argument("--processes", type=int, default=0, help="Python client processes (default: one per core, at most one per room)")
    p.add_argument("--members", action="store_true", help="clients are member accounts instead of guests")
    p.add_argument("--deflate", action="store_true", help="offer permessage-deflate, as browsers do")
    p.add_argument("--drain", type=float, default=30, help="seconds to wait for late answers after sending stops")
    p.add_argument("--linger", type=float, default=0, help="then wait so long with the rooms idle and read the server's RSS once more")
    args = p.parse_args()
    binary = os.path.abspath(args.binary)
    cores = os.cpu_count() or 1
    processes = 1 if args.generator == "swift" else min(args.rooms, args.processes or cores)
    tmp = tempfile.mkdtemp(prefix="proteinar-rooms-bench-")
    try:
        # Every client comes from 127.0.0.1: the per-address limits (64 connections, 100 sockets)
        # would refuse most of them, so they are raised for this one address's crowd.
        limits = ["--connections-per-address", "2000", "--sockets-per-address", "2000"]
        server = ServerProcess(binary, work=tmp, database_url=args.postgres, starter=False, name="server", timeout=30, extra=limits)
    except ServerDidNotStart as e:
        sys.exit(str(e))
    ok = False
    try:
        ok = run(args, server, processes, cores, tmp)
    finally:
        server.stop()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"server log: {server.log_path}")
    sys.exit(0 if ok else 1)


def set_up_rooms(args, server):
    """args.rooms public rooms where guests may draw, each with args.clients clients (guest keys, or
    member accounts with --members): [(room id, [(index, auth)], owner's token)]."""
    rooms = []
    try:
        for r in range(args.rooms):
            owner = Account(server, f"owner{r}", password=PASSWORD)
            members = [Account(server, f"r{r}c{c}", password=PASSWORD) for c in range(args.clients)] if args.members else []
            room = make_room(server, owner, f"load {r}", public=True, guests_may_draw=True, members=members)
            if args.members:
                clients = [(c, "token:" + acct.token) for c, acct in enumerate(members)]
            else:
                clients = [(c, f"bench-r{r}-c{c}-{random.getrandbits(48):012x}") for c in range(args.clients)]
            rooms.append((room, clients, owner.token))
    except Fail as e:
        sys.exit(f"setting up the rooms: {e}")
    return rooms


def swift_worker(rooms, server, args, ready_queue, go, start_value, results, tmp):
    """Runs `proteinar bench-rooms` for all the rooms, with the queues the Python client processes
    use: ("ready", 0, seconds to connect), then, once `go` is set, ("done", 0, its measurements)."""
    plan = {"base": f"ws://127.0.0.1:{server.port}", "intervalMilliseconds": args.interval_ms, "seconds": args.seconds,
            "drainSeconds": args.drain, "deflate": args.deflate,
            "rooms": [{"id": rid_, "clients": [{"index": i, "auth": auth} for i, auth in clients]} for rid_, clients in rooms]}
    path = os.path.join(tmp, "plan.json")
    with open(path, "w") as f:
        json.dump(plan, f)
    proc = subprocess.Popen([os.path.abspath(args.binary), "bench-rooms", "--plan", path], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if not line.startswith("ready "):
            proc.wait(10)
            ready_queue.put(("error", 0, f"bench-rooms: {line.strip() or f'exited with {proc.returncode}'}"))
            return
        ready_queue.put(("ready", 0, float(line.split()[1])))
        go.wait()
        proc.stdin.write(f"go {max(0.0, start_value.value - time.monotonic()):.4f}\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line.startswith("done "):
            results.put(("error", 0, f"bench-rooms: {line.strip()[:300] or 'ended without a result'}"))
            return
        results.put(("done", 0, json.loads(line[5:])))
    finally:
        if proc.poll() is None:
            proc.wait(30)


def run(args, server, processes, cores, tmp):
    store = f"PostgreSQL ({args.postgres.split('@')[-1]})" if args.postgres else "SQLite"
    total = args.rooms * args.clients
    print(f"benchmark-rooms: {args.rooms} rooms × {args.clients} clients = {total} WebSocket connections, "
          f"one point every {args.interval_ms:g} ms for {args.seconds:g} s; {store}; "
          f"{processes} client process{'es' if processes != 1 else ''} ({args.generator}) on {cores} cores; "
          f"{'members' if args.members else 'guests'}{', permessage-deflate' if args.deflate else ''}", flush=True)
    setup = time.monotonic()
    rooms = set_up_rooms(args, server)
    print(f"set up {args.rooms} rooms in {time.monotonic() - setup:.1f} s", flush=True)
    memory = [("start", 0.0, rss_kb(server.pid))]
    ctx = mp.get_context("fork")
    ready_q, results = ctx.Queue(), ctx.Queue()
    go, start_value = ctx.Event(), ctx.Value("d", 0.0)
    shares = [[(rid_, clients) for i, (rid_, clients, _) in enumerate(rooms) if i % processes == w] for w in range(processes)]
    if args.generator == "swift":
        workers = [threading.Thread(target=swift_worker, args=(shares[0], server, args, ready_q, go, start_value, results, tmp),
                                    daemon=True)]
    else:
        workers = [ctx.Process(target=worker, args=(w, shares[w], server.port, args, ready_q, go, start_value, results), daemon=True)
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
          f"{rss_kb(server.pid) / 1024:.1f} MiB now", flush=True)
    memory.append(("connected", 0.0, rss_kb(server.pid)))
    start_value.value = time.monotonic() + 0.5
    cpu0 = cpu_seconds(server.pid)
    busy0 = machine_busy_seconds()
    pg0 = postgres_cpu_seconds() if args.postgres else 0.0
    base = sum(room_sequences(server, {rid_: tok for rid_, _, tok in rooms}).values())
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
            memory.append((f"{now - t0:.0f} s", now - t0, rss_kb(server.pid)))
            if args.seconds > 120 and len(memory) % 12 == 0:  # a long run shows its memory as it goes, beside what the rooms hold
                stored = sum(room_sequences(server, {rid_: tok for rid_, _, tok in rooms}).values())
                print(f"  {memory[-1][0]}: server RSS {(memory[-1][2] or 0) / 1024:.1f} MiB; the rooms hold {stored:,} operations "
                      f"of one point each", flush=True)
            next_sample += 5
        if now > t0 + args.seconds + args.drain + 120:
            print("client processes did not finish in time", flush=True)
            break
        if done == 0 and now >= t0 + args.seconds and "server_cpu" not in outcomes:
            outcomes["server_cpu"] = cpu_seconds(server.pid) - cpu0
            window_marks["machine_busy"] = machine_busy_seconds() - busy0
            window_marks["postgres"] = (postgres_cpu_seconds() - pg0) if args.postgres else 0.0
            window_marks["load"] = open("/proc/loadavg").read().split()[0]
            memory.append(("end", now - t0, rss_kb(server.pid)))
            window_marks["accepted"] = sum(room_sequences(server, {rid_: tok for rid_, _, tok in rooms}).values()) - base
    for w in workers:
        w.join(10)
    server_cpu = outcomes.pop("server_cpu", cpu_seconds(server.pid) - cpu0)
    memory.append(("after drain", time.monotonic() - t0, rss_kb(server.pid)))
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
        current = room_sequences(server, owner_of)
        if current == previous:
            break
        previous = current
        time.sleep(1)
    stored_late = never_stored = 0
    log_problems = []
    for p_ in parts:
        for rid_, r in p_["rooms"].items():
            try:
                log, _ = room_log(server, rid_, owner_of[rid_], timeout=30)
            except Fail as e:
                log_problems.append(f"{rid_}: {e}")
                continue
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
    if args.linger:
        # Nobody in the rooms any more: they leave memory once idle (20 s), and so should their content.
        time.sleep(args.linger)
        memory.append((f"{args.linger:g} s after the log check (rooms idle)", time.monotonic() - t0, rss_kb(server.pid)))
    return report(args, store, total, processes, cores, agg, hist, slow, ack_hist, ack_slow, errors, closed, parts,
                  server_cpu, window_marks, memory, log_problems, stored_late, never_stored)


if __name__ == "__main__":
    main()
