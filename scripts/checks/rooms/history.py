"""A room's history and its trimmed log: GET /api/rooms/{id}/state?at=N against the states a
client built from the live operations, the log folded into the history base once it is long
(`--room-history`), resumes before and after the fold, and all of it again after a restart."""
import copy, random, time

from proteinar_testing.accounts import Account, make_room, room_state
from proteinar_testing.http_client import http, want
from proteinar_testing.report import Fail, expect, short

from .context import new_server
from .live import Live
from .ops import apply, canonical, contiguous, empty_state, extend, same_ops, state_diff, stroke

HISTORY = 50         # the server keeps at least this many operations of history
OPERATIONS = 1_050   # snapshots every 500: at 1,000 the log is folded up to 950


def operation(i):
    """The i-th operation of the room: strokes, their points, an undo now and then, notes."""
    if i % 10 == 0:
        return stroke(f"s{i}", 2, start=i % 90)
    if i % 10 == 9 and i % 7 == 0:  # the stroke's last operation: undo it
        return {"type": "undo"}
    if i % 10 == 5 and i % 13 == 0:
        return {"type": "add-note", "id": f"n{i}", "text": f"note {i}", "anchor": {"point": [0.1, 0.2, 0.3]}}
    return extend(f"s{i - i % 10}", 1, start=i % 90)


def check_history():
    s = new_server("history", extra=["--room-history", str(HISTORY)])
    ada = Account(s, "Ada")
    room = make_room(s, ada, "history")
    watcher = Live(s, room, token=ada.token, name="watcher")
    for i in range(OPERATIONS):  # over HTTP: faster than one socket's 60 a second
        want(http(s, "POST", f"/api/rooms/{room}/operations", {"clientOpID": f"h{i}", "operation": operation(i)}, token=ada.token),
             200, f"operation {i}")
    watcher.wait_sequence(OPERATIONS, 15)
    built, state = {}, empty_state()
    for op in watcher.ops:
        apply(state, op)
        built[op["sequence"]] = canonical(copy.deepcopy(state))
    # The fold happens beside the room's work, after the snapshot at 1,000: wait for it.
    deadline = time.monotonic() + 10
    while http(s, "GET", f"/api/rooms/{room}/operations?after=0", token=ada.token).status != 410:
        if time.monotonic() > deadline:
            raise Fail(f"the log was not folded: operations?after=0 still answers {http(s, 'GET', f'/api/rooms/{room}/operations?after=0', token=ada.token)!r}")
        time.sleep(0.2)
    base = OPERATIONS // 500 * 500 - HISTORY

    def same_at(n, what):
        got = canonical(want(http(s, "GET", f"/api/rooms/{room}/state?at={n}", token=ada.token), 200, f"{what}: state at {n}"))
        if got != built[n]:
            raise Fail(f"{what}: state at {n} differs from the one a client built: {state_diff(built[n], got)}")

    rng = random.Random(18)
    picks = sorted(rng.sample(range(base, OPERATIONS + 1), 12))
    for n in picks:
        same_at(n, "history")
    gone = http(s, "GET", f"/api/rooms/{room}/state?at={base - 1}", token=ada.token)
    expect(gone.status == 410 and "folded" in (gone.json or {}).get("error", ""),
           f"history before the fold: expected 410 saying it was folded, got {gone!r}")
    after = base + 10
    log = want(http(s, "GET", f"/api/rooms/{room}/operations?after={after}&limit=5000", token=ada.token), 200, "the log after the fold")
    expect(same_ops(log["operations"], [o for o in watcher.ops if o["sequence"] > after]),
           f"the log after {after}: expected exactly the operations the watcher got, got {[o['sequence'] for o in log['operations']][:10]}…")
    # Resumes: from before the fold, the whole state (exact); from after it, exactly what was missed.
    early = Live(s, room, token=ada.token, after=base - 100, name="early")
    snap = early.welcome.get("snapshot")
    expect(snap is not None and canonical(snap) == built[OPERATIONS],
           f"resume from before the fold: expected the whole state, got {short(snap)}")
    expect(not [m for m in early.quiet(0.3) if m.get("type") == "op"], "resume from before the fold also sent operations")
    late = Live(s, room, token=ada.token, after=OPERATIONS - 20, name="late")
    late.wait_ops(20, 5)
    expect(late.welcome.get("snapshot") is None and contiguous(late.ops, OPERATIONS - 20),
           f"resume after the fold: expected operations {OPERATIONS - 19}…{OPERATIONS}, got {[o['sequence'] for o in late.ops]}")
    for client in (watcher, early, late):
        client.close()
    # A restart loads the room from its snapshot and the log after it: nothing lost.
    s.restart()
    expect(canonical(room_state(s, room, ada.token)) == built[OPERATIONS], "after a restart the room's state differs")
    for n in picks[-3:]:
        same_at(n, "after a restart")
    return (f"{OPERATIONS} operations; state at 12 random N ≥ {base} equals the client's; "
            f"log folded up to {base} (410 before it); resumes exact on both sides of the fold; same after a restart")
