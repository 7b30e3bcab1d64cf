#!/usr/bin/env python3
"""A class following a lesson live (issue 34): one teacher presents, N followers in the room get
each change. Issue 34's target: 40 followers in one room, a step or camera change reaches all of
them with p99 < 100 ms on this machine.

    scripts/benchmarks/benchmark-lesson-follow.py PROTEINAR_BIN [--followers 40] [--changes 200]
        [--spacing 0.2] [--postgres URL [--across]] [--runs 1]

One `proteinar serve` (SQLite in a temporary folder, or the PostgreSQL database at --postgres; with
--across, a second server on the same database, the followers on it and the teacher on the first,
so that every change goes through PostgreSQL's NOTIFY). The teacher (the room's owner, signed in)
makes a lesson and a public room; the followers join (half guests with a key, half watchers
without one), and once the teacher counts them all as following (presence) it sends --changes
`present` operations --spacing seconds apart, a step change (the next step, the step's own camera)
and a camera change (the same step, the teacher's camera) in turn, as the web app does at most
about five times a second. Every client is a Python asyncio WebSocket client in this one process
(scripts/proteinar_testing/lesson_follow.py, the code test_lesson_follow.py runs briefly).

Measured, per change kind: the latency from the teacher's send to each follower's receipt of the
op (CLOCK_MONOTONIC, one clock: p50/p95/p99/max over every delivery), the teacher's ack latency,
and whether every follower got every change once and in order. The CPU the server and this client
process used is printed, to tell which side was busy. Prints the figures and a markdown table;
exits 1 when a change was lost, doubled or out of order (not on the latency: that is a figure)."""
import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time

import scripts_path  # noqa: E402,F401  (scripts/ on sys.path, for proteinar_testing)
from proteinar_testing.venv import require  # noqa: E402

require(__file__, ["websockets"], "benchmark-lesson-follow: websockets")
from proteinar_testing import lesson_follow  # noqa: E402
from proteinar_testing.accounts import Account, make_room  # noqa: E402
from proteinar_testing.http_client import http, want  # noqa: E402
from proteinar_testing.server import ServerDidNotStart, ServerProcess  # noqa: E402
from room_load.measure import cpu_seconds, machine_busy_seconds, postgres_cpu_seconds  # noqa: E402

TARGET_MS = 100.0
LIMITS = ["--connections-per-address", "2000", "--sockets-per-address", "2000"]


def make_lesson(server, owner, steps):
    body = {"title": "Benchmark lesson", "steps": [
        {"molecule": "1AKE", "view": "style=cartoon", "text": f"Step {i}.", "question": None} for i in range(steps)]}
    return want(http(server, "POST", "/api/lessons", body, token=owner.token), 201, "make the lesson")["id"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary")
    p.add_argument("--followers", type=int, default=40)
    p.add_argument("--changes", type=int, default=200, help="present operations, step and camera changes in turn")
    p.add_argument("--spacing", type=float, default=0.2, help="seconds between changes (the web app sends at most ~5 a second)")
    p.add_argument("--steps", type=int, default=8, help="steps in the lesson")
    p.add_argument("--postgres", metavar="URL", help="the PostgreSQL database to use instead of SQLite (used as it is)")
    p.add_argument("--across", action="store_true", help="with --postgres: the followers on a second server")
    p.add_argument("--runs", type=int, default=1, help="runs, each in a new room; the figures pool them")
    args = p.parse_args()
    if args.across and not args.postgres:
        sys.exit("--across needs --postgres")
    tmp = tempfile.mkdtemp(prefix="proteinar-lesson-follow-bench-")
    servers = []
    ok = False
    try:
        try:
            servers.append(ServerProcess(os.path.abspath(args.binary), work=tmp, database_url=args.postgres, starter=False,
                                         name="teacher-server", extra=LIMITS))
            if args.across:
                servers.append(ServerProcess(os.path.abspath(args.binary), work=tmp, database_url=args.postgres, starter=False,
                                             name="follower-server", extra=LIMITS))
        except ServerDidNotStart as e:
            sys.exit(str(e))
        ok = run(args, servers)
    finally:
        for s in servers:
            s.stop()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"server logs: {tmp}")
    sys.exit(0 if ok else 1)


def run(args, servers):
    a = servers[0]
    b = servers[-1]
    teacher = Account(a, "Teacher")
    lesson = make_lesson(a, teacher, args.steps)
    store = ("PostgreSQL" + (", followers on a second server" if args.across else "")) if args.postgres else "SQLite"
    steps, cameras, acks, problems, following, connects = [], [], [], [], [], []
    complete = total = 0
    server_cpu0 = sum(cpu_seconds(s.pid) for s in servers)
    client0, wall0 = os.times(), time.monotonic()
    busy0, pg0 = machine_busy_seconds(), postgres_cpu_seconds() if args.postgres else 0.0
    for r in range(args.runs):
        room = make_room(a, teacher, f"Lesson: benchmark {r}", public=True)
        result = asyncio.run(lesson_follow.follow(a.ws, room, teacher.token, lesson, followers=args.followers,
                                                  count=args.changes, spacing=args.spacing, steps=args.steps,
                                                  follower_ws=b.ws, settle=30, drain=30, key_prefix=f"bench{r}"))
        steps += result.latencies("step")
        cameras += result.latencies("camera")
        sent = {cid: t for cid, _, _, t in result.sent}
        acks += [t - sent[cid] for cid, (t, _) in result.teacher.acks.items() if cid in sent]
        done, why = result.order_problems()
        complete += done
        total += len(result.followers)
        problems += result.problems + why
        following.append(result.following)
        connects.append(result.connect_s)
        print(f"run {r + 1}: {done}/{len(result.followers)} followers got all {len(result.sent)} changes in order; "
              f"the teacher counted {result.following} following; step {lesson_follow.describe(result.latencies('step'))}; "
              f"camera {lesson_follow.describe(result.latencies('camera'))}", flush=True)
    wall = time.monotonic() - wall0
    client1 = os.times()
    server_cpu = sum(cpu_seconds(s.pid) for s in servers) - server_cpu0
    client_cpu = (client1.user + client1.system) - (client0.user + client0.system)
    pg_cpu = (postgres_cpu_seconds() - pg0) if args.postgres else 0.0
    others = max(0.0, machine_busy_seconds() - busy0 - server_cpu - client_cpu - pg_cpu) / wall

    fs, fc, fa = (lesson_follow.figures(x) for x in (steps, cameras, acks))
    print(f"\n{args.followers} followers, {args.changes} changes {args.spacing:g} s apart × {args.runs} run(s), {store}")
    print(f"step changes:   {lesson_follow.describe(steps)}")
    print(f"camera changes: {lesson_follow.describe(cameras)}")
    print(f"teacher's ack:  {lesson_follow.describe(acks).replace('deliveries', 'acks')}")
    print(f"followers complete (every change once, in order): {complete}/{total}")
    for line in problems[:10]:
        print(f"  {line}")
    print(f"CPU over {wall:.0f} s: server(s) {server_cpu / wall * 100:.0f}% of a core, this client process "
          f"{client_cpu / wall * 100:.0f}%" + (f", PostgreSQL {pg_cpu / wall * 100:.0f}%" if args.postgres else "")
          + f", other processes {others * 100:.0f}% ({os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f})")
    if others > 0.3:
        print(f"  other processes used {others * 100:.0f}% of a core meanwhile: the figures are disturbed; run again on a quiet machine")
    worst = max((f["p99"] or 0) for f in (fs, fc))
    print(f"target (issue 34): p99 < {TARGET_MS:.0f} ms for step and camera changes — "
          f"{'met' if fs['n'] and fc['n'] and worst < TARGET_MS else 'NOT met'} (worst p99 {worst:.1f} ms)")

    def cell(f):
        return " / ".join("–" if f[k] is None else f"{f[k]:.1f}" for k in ("p50", "p95", "p99", "max"))
    print("\n| figure | value |\n| --- | --- |")
    rows = [("followers (guests / watchers)", f"{args.followers} ({(args.followers + 1) // 2} / {args.followers // 2})"),
            ("store", store),
            ("changes", f"{args.changes} × {args.runs} ({args.changes // 2} step, {args.changes - args.changes // 2} camera per run), {args.spacing:g} s apart"),
            ("step change → every follower, p50 / p95 / p99 / max (ms)", f"{cell(fs)} ({fs['n']} deliveries)"),
            ("camera change → every follower, p50 / p95 / p99 / max (ms)", f"{cell(fc)} ({fc['n']} deliveries)"),
            ("teacher's ack, p50 / p95 / p99 / max (ms)", cell(fa)),
            ("followers complete and in order", f"{complete} / {total}"),
            ("teacher counted following", ", ".join(str(x) for x in following)),
            ("followers connected in", ", ".join(f"{x:.1f} s" for x in connects)),
            ("CPU: server / client process / other processes",
             f"{server_cpu / wall * 100:.0f}% / {client_cpu / wall * 100:.0f}% / {others * 100:.0f}% of a core ({os.cpu_count()} cores)")]
    for k, v in rows:
        print(f"| {k} | {v} |")
    return complete == total and not problems


if __name__ == "__main__":
    main()
