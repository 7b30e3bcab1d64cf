"""Following a lesson live (issue 34): the room's owner presents a lesson with `present` operations on
the live socket (docs/rooms-protocol.md; the lesson contract's "Following live"), against real
`proteinar serve` processes:

- only the owner presents (a member, a signed-in stranger, a guest and a watcher get `forbidden`);
  bad presentations are refused with `invalid` (step −1 and 40, a camera too long or with other
  characters, a bad lesson id) and change nothing; the edges (step 39, a camera of 200) are taken;
- 40 followers (20 guests with keys, 20 watchers without) get every change, step and camera, once
  and in order, as sent (the same code as scripts/benchmarks/benchmark-lesson-follow.py, briefly;
  the latencies are printed, not held to a bound here: the benchmark measures them);
- a late joiner finds the presentation in its welcome's snapshot (json, compact, deflated), as
  GET /api/rooms/{id} and state?at=N do; `{"type":"present"}` ends it (null); it survives a SIGKILL;
- on PostgreSQL, two servers: followers on B see the teacher's changes made on A; B is killed;
  they reconnect to A with `after=N` and land on the current step, a change made while they were
  away included, with no gap or repeat.

The SQLite checks share one server; the PostgreSQL one (marked `postgres`) makes a fresh database.
Servers' logs are kept (the folder printed) when a check failed."""
import shutil
import tempfile
import time

import pytest

from proteinar_testing import lesson_follow
from proteinar_testing.accounts import Account, make_room, rid, room_state
from proteinar_testing.http_client import http
from proteinar_testing.report import Fail, short
from rooms.context import RUN, new_server
from rooms.live import Live

CAMERA = "q0.12,0.3,0.1,0.94;d0.8;t0.01,0.12,0"


class Class:
    server = ada = ben = cy = lesson = None


@pytest.fixture(scope="module")
def cls(proteinar_bin, request):
    RUN.binary = proteinar_bin
    RUN.tmp = tempfile.mkdtemp(prefix="proteinar-lesson-follow-")
    RUN.shared = {}
    failed_before = request.session.testsfailed
    c = Class()
    c.server = new_server("lessons-live")
    try:
        c.ada, c.ben, c.cy = (Account(c.server, n) for n in ("Ada", "Ben", "Cy"))
        c.lesson = make_lesson(c.server, c.ada)
        yield c
    finally:
        c.server.stop()
        if request.session.testsfailed > failed_before:
            print(f"\nlesson-follow: server logs: {RUN.tmp}")
        else:
            shutil.rmtree(RUN.tmp, ignore_errors=True)


def make_lesson(server, owner, steps=4):
    body = {"title": "Adenylate kinase closes",
            "steps": [{"molecule": "1AKE", "view": f"style=cartoon&view={CAMERA}", "text": f"Step {i}.", "question": None}
                      for i in range(steps)]}
    r = http(server, "POST", "/api/lessons", body, token=owner.token)
    if r.status != 201:
        pytest.fail(f"make a lesson: expected HTTP 201, got {r!r} (is the lessons server in this binary?)", pytrace=False)
    return r.json["id"]


def present(lesson, step, camera=None):
    p = {"lesson": lesson, "step": step}
    if camera is not None:
        p["camera"] = camera
    return p


def op(presentation):
    return {"type": "present", "presentation": presentation} if presentation is not None else {"type": "present"}


same = lesson_follow.same_presentation


def presentations(client):
    """The presentations of the present ops `client` received, in order."""
    return [o["operation"].get("presentation") for o in client.ops if o["operation"].get("type") == "present"]


def presentation_seen(client, start=None):
    """The presentation as this client has it: its welcome's snapshot's (or `start`, resuming with
    after=N), then each present op it received."""
    p = start
    snap = client.welcome.get("snapshot")
    if snap is not None:
        # A deflated snapshot may be older than the welcome: the ops since come after it.
        if snap.get("sequence", client.welcome["sequence"]) < client.welcome["sequence"]:
            client.wait_sequence(client.welcome["sequence"])
        p = snap.get("presentation")
    for o in client.ops:
        if o["operation"].get("type") == "present":
            p = o["operation"].get("presentation")
    return p


def answer_to(client, operation):
    """The ack or error for one operation, or what went wrong instead (no answer, a closed socket)."""
    try:
        return client.submit(operation)
    except Exception as e:  # noqa: BLE001 — Fail (no answer) or ConnectionClosed, reported as the answer
        return {"type": f"no answer ({type(e).__name__})", "message": str(e)}


def op_where(client, pred, what, timeout=3):
    """The first op `client` received (or receives within `timeout`) that `pred` accepts."""
    for o in client.ops:
        if pred(o):
            return o
    return client.wait(lambda m: m if m.get("type") == "op" and pred(m) else None, timeout, what)


def refused_check(checks, client, operation, codes, what):
    a = answer_to(client, operation)
    ok = a.get("type") == "error" and a.get("code") in codes and isinstance(a.get("message"), str) and len(a["message"]) >= 5
    checks(f"{what} → {a.get('code')} {a.get('message', '')[:90]!r}" if ok else what, ok,
           f"expected an error with code {'/'.join(codes)} and a message, got {short(a)}")
    return ok


def state_presentation(server, room, token):
    state = room_state(server, room, token=token)
    return state.get("presentation"), state


# 4. Following live on one server (SQLite)


def test_only_the_owner_presents_and_a_bad_presentation_is_refused_and_changes_nothing(cls, checks):
    s, L = cls.server, cls.lesson
    room = make_room(s, cls.ada, "Lesson: who presents", public=True, members=[cls.ben])
    teacher = Live(s, room, token=cls.ada.token, name="teacher")
    ben = Live(s, room, token=cls.ben.token, name="ben")
    cy = Live(s, room, token=cls.cy.token, name="cy")
    guest = Live(s, room, guest="guest-key-" + rid(""), name="guest")
    watcher = Live(s, room, name="watcher")
    clients = [teacher, ben, cy, guest, watcher]
    accepted = []
    try:
        first = present(L, 0)
        a = answer_to(teacher, op(first))
        checks("the owner presents step 0 → ack", a.get("type") == "ack", short(a))
        accepted.append(first)
        got = op_where(teacher, lambda m: m.get("clientOpID") == a.get("clientOpID"), "the owner's own present op")
        checks("the op as broadcast: {type: present, presentation: {lesson, step}} (no camera)",
               got["operation"].get("type") == "present" and same(got["operation"].get("presentation"), first)
               and "camera" not in (got["operation"].get("presentation") or {}), short(got))

        for client, who in ((ben, "a member"), (cy, "a signed-in non-member"), (guest, "a guest"), (watcher, "a watcher without a key")):
            refused_check(checks, client, op(present(L, 3)), ["forbidden"], f"{who} presents")
            refused_check(checks, client, op(None), ["forbidden"], f"{who} ends the presentation")

        # The edges are taken.
        for what, p in (("step 39, the last a lesson may have", present(L, 39)),
                        ("a camera of 200 characters", present(L, 1, ("q0.1,0.2,0.3,0.9;d0.8;t0,0,0;" * 8)[:200])),
                        ("a camera with minus signs", present(L, 2, "q-0.5,0.5,-0.5,0.5;d1.25;t-0.1,0,0.333"))):
            a = answer_to(teacher, op(p))
            checks(f"the owner presents {what} → ack", a.get("type") == "ack", short(a))
            if a.get("type") == "ack":
                accepted.append(p)
        current = present(L, 1, CAMERA)
        a = answer_to(teacher, op(current))
        checks("the owner presents step 1 with a camera → ack", a.get("type") == "ack", short(a))
        accepted.append(current)

        before, _ = state_presentation(s, room, cls.ada.token)
        checks("GET /api/rooms/{id}: the state's presentation is the current one", same(before, current), short(before))
        bad = [("step −1", present(L, -1)), ("step 40", present(L, 40)), ("step 1000", present(L, 1000)),
               ("a camera of 201 characters", present(L, 1, ("q0.1,0.2,0.3,0.9;d0.8;t0,0,0;" * 8)[:201])),
               ("a camera with a space", present(L, 1, "q0,0,0,1; d1;t0,0,0")),
               ("a camera with <", present(L, 1, "q0,0,0,1;d1;t0,0,0<script>")),
               ("a camera with &", present(L, 1, "q0,0,0,1;d1;t0,0,0&style=surface")),
               ("a camera with letters other than q, d, t", present(L, 1, "x0,0,0,1;d1;t0,0,0")),
               ("an empty lesson id", present("", 1)), ("a lesson id with a slash", present("l/../x", 1)),
               ("a lesson id of 65 characters", present("l" + "a" * 64, 1)), ("a lesson id with a space", present("l 1", 1))]
        for what, p in bad:
            refused_check(checks, teacher, op(p), ["invalid"], f"the owner presents {what}")
        # Not even the right types: invalid, or malformed (the message could not be read as an operation).
        odd = [("a lesson id that is a number", {"lesson": 42, "step": 1}), ("a step that is a string", {"lesson": L, "step": "2"}),
               ("a step of 1.5", {"lesson": L, "step": 1.5}), ("no step", {"lesson": L}), ("no lesson", {"step": 1}),
               ("a presentation that is a string", L), ("a camera that is a number", {"lesson": L, "step": 1, "camera": 7})]
        for what, p in odd:
            refused_check(checks, teacher, {"type": "present", "presentation": p}, ["invalid", "malformed"], f"the owner presents {what}")

        after, _ = state_presentation(s, room, cls.ada.token)
        checks("after the refusals the state's presentation is unchanged", same(after, current), short(after))
        ben.quiet(0.3)
        seen = presentations(ben)
        checks(f"a member saw exactly the {len(accepted)} accepted presentations, in order",
               len(seen) == len(accepted) and all(same(x, y) for x, y in zip(seen, accepted)),
               f"expected {short(accepted, 300)}, got {short(seen, 300)}")
        checks("the refused senders were not closed", all(c.closed is None for c in clients),
               ", ".join(f"{c.name}: {c.closed}" for c in clients if c.closed))
    finally:
        for c in clients:
            c.close()


def test_forty_followers_get_every_step_and_camera_change_once_and_in_order(cls, checks):
    s = cls.server
    room = make_room(s, cls.ada, "Lesson: a class of 40", public=True)
    started = time.monotonic()
    run = lesson_follow.run_follow(s.ws, room, cls.ada.token, cls.lesson, followers=40, count=40, spacing=0.05, steps=4)
    took = time.monotonic() - started
    checks(f"40 followers connected ({run.connect_s:.1f} s) and the teacher counts 40 following",
           run.following == 40, f"the teacher counted {run.following} following (peers other than the teacher + watchers)")
    checks("the teacher's 40 changes were all acknowledged", not run.problems, "; ".join(run.problems))
    complete, problems = run.order_problems()
    checks(f"every follower got every change once, in order, as sent ({complete} of 40 complete)", complete == 40,
           "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else ""))
    print(f"  (informative, not a bound: step changes {lesson_follow.describe(run.latencies('step'))}; "
          f"camera changes {lesson_follow.describe(run.latencies('camera'))}; the run {took:.1f} s)", flush=True)


def test_a_late_joiner_finds_the_presentation_an_ended_one_is_null_and_it_survives_a_kill(cls, checks):
    s, L = cls.server, cls.lesson
    room = make_room(s, cls.ada, "Lesson: late joiners", public=True, members=[cls.ben])
    teacher = Live(s, room, token=cls.ada.token, name="teacher")
    ben = Live(s, room, token=cls.ben.token, name="ben")
    clients = [teacher, ben]
    try:
        fresh = Live(s, room, guest="guest-key-" + rid(""), name="fresh")
        clients.append(fresh)
        snap = fresh.welcome.get("snapshot") or {}
        checks("before any presentation, the snapshot's presentation is absent or null", snap.get("presentation") is None, short(snap))

        shown = present(L, 2, CAMERA)
        teacher.do(op(present(L, 1)))
        at_shown = teacher.do(op(shown))["sequence"]
        ben.wait_sequence(at_shown)

        def joiners(tag):
            out = []
            for form in (None, "compact", "deflated"):
                out.append((f"a guest joining{' with snapshot=' + form if form else ''}",
                            Live(s, room, guest="guest-key-" + rid(""), snapshot=form, name=f"{tag}-{form or 'json'}")))
            out.append(("a watcher joining", Live(s, room, name=f"{tag}-watcher")))
            out.append(("a member joining", Live(s, room, token=cls.ben.token, name=f"{tag}-ben")))
            clients.extend(c for _, c in out)
            return out

        for what, c in joiners("late"):
            got = presentation_seen(c)
            checks(f"{what} finds the current presentation in its welcome", same(got, shown),
                   f"expected {short(shown)}, got {short(got)}; welcome snapshot {short(c.welcome.get('snapshot'), 200)}")
        now, state = state_presentation(s, room, cls.ada.token)
        checks("GET /api/rooms/{id}: state.presentation is the current one", same(now, shown), short(state, 200))

        ended = teacher.do(op(None), what="end the presentation")["sequence"]
        m = op_where(ben, lambda m: m["sequence"] == ended, "the end of the presentation")
        checks("the end reaches a follower as {type: present} without a presentation (absent or null)",
               m["operation"].get("type") == "present" and m["operation"].get("presentation") is None, short(m))
        for what, c in joiners("after-end"):
            got = presentation_seen(c)
            checks(f"after the end, {what} finds no presentation (absent or null)", got is None,
                   f"got {short(got)}; welcome snapshot {short(c.welcome.get('snapshot'), 200)}")
        now, state = state_presentation(s, room, cls.ada.token)
        checks("GET /api/rooms/{id} after the end: state.presentation absent or null", now is None, short(state, 200))

        for at, want in ((at_shown, shown), (ended, None)):
            r = http(s, "GET", f"/api/rooms/{room}/state?at={at}", token=cls.ada.token)
            got = (r.json or {}).get("presentation") if isinstance(r.json, dict) else "no state"
            checks(f"state?at={at} (history) has the presentation of that moment", r.status == 200 and same(got, want),
                   f"expected {short(want)}, got {r!r}")

        # A presentation is stored like any operation: SIGKILL and a restart keep it.
        again = present(L, 3)
        before_kill = ben.ops[-1]["sequence"]
        last = teacher.do(op(again))["sequence"]
        for c in clients:
            c.close()
        clients.clear()
        s.kill()
        s.start()
        joined = Live(s, room, guest="guest-key-" + rid(""), name="after-kill")
        resumed = Live(s, room, token=cls.ben.token, after=before_kill, name="ben-resumed")
        clients += [joined, resumed]
        got = presentation_seen(joined)
        checks("after a SIGKILL and a restart, a joiner finds the last presentation", same(got, again), short(got))
        resumed.wait_sequence(last)
        got = presentation_seen(resumed, start=None)
        checks(f"a follower resuming with after={before_kill} gets the present op it missed",
               [o["sequence"] for o in resumed.ops] == [last] and same(got, again), short(resumed.ops, 300))
    finally:
        for c in clients:
            c.close()


# 5. Failover: two servers on one PostgreSQL database


@pytest.mark.postgres
def test_followers_of_a_killed_server_resume_on_the_other_at_the_current_step(cls, postgres_url, checks):
    from rooms.servers import pair
    one, two, drop = pair("lesson_failover")
    clients = []
    try:
        ada = Account(one, "Ada")
        L = make_lesson(one, ada)
        room = make_room(one, ada, "Lesson: failover", public=True)
        ben = Account(one, "Ben")
        teacher = Live(one, room, token=ada.token, name="teacher@A")
        keys = ["guest-key-" + rid("") for _ in range(4)]
        followers = ([(f"guest{i}@B", {"guest": k}) for i, k in enumerate(keys)]
                     + [(f"watcher{i}@B", {}) for i in range(2)] + [("ben@B", {"token": ben.sign_in(two)})])
        on_b = [(name, how, Live(two, room, name=name, **how)) for name, how in followers]
        clients += [teacher] + [c for *_, c in on_b]

        sent = [present(L, 0), present(L, 0, CAMERA), present(L, 1)]
        top = 0
        for p in sent:
            top = teacher.do(op(p))["sequence"]
        for name, _, c in on_b:
            try:
                c.wait_sequence(top, 3)
                ok = same(presentation_seen(c), sent[-1])
            except Fail:
                ok = False
            checks(f"{name} on server B got the teacher's changes made on server A", ok,
                   f"received {short([(o['sequence'], o['operation'].get('presentation')) for o in c.ops], 300)}")

        two.kill()
        # While B's followers are away: a step change and a camera change on A.
        away = [present(L, 2), present(L, 2, "q0,0.7071,0,0.7071;d1.5;t0,0,0")]
        for p in away:
            top = teacher.do(op(p))["sequence"]

        resumed = []
        for name, how, old in on_b:
            after = old.ops[-1]["sequence"] if old.ops else old.welcome["sequence"]
            how = {"token": ben.token} if "token" in how else how
            new = Live(one, room, after=after, name=name.replace("@B", "@A"), **how)
            clients.append(new)
            resumed.append((name, old, new, after))
        for name, old, new, after in resumed:
            try:
                new.wait_sequence(top, 3)
            except Fail as e:
                checks(f"{name} resumed on server A with after={after}", False, str(e))
                continue
            seqs = [o["sequence"] for o in old.ops + new.ops]
            first = old.welcome["sequence"] + 1
            checks(f"{name} resumed on A with after={after}: every op once, no gap ({seqs[0] if seqs else '-'}…{top})",
                   seqs == list(range(first, top + 1)), f"sequences {seqs}, expected {first}…{top}")
            landed = presentation_seen(new, start=presentation_seen(old))
            checks(f"{name} lands on the current step and camera, the changes made while away included",
                   same(landed, away[-1]), f"expected {short(away[-1])}, got {short(landed)}")

        last = present(L, 3)
        top = teacher.do(op(last))["sequence"]
        for name, _, new, _ in resumed:
            try:
                new.wait_sequence(top, 3)
                ok = same(presentation_seen(new), last)
            except Fail:
                ok = False
            checks(f"{name} follows the next change on A", ok, short(new.ops[-2:], 300))
        late = Live(one, room, guest="guest-key-" + rid(""), name="late@A")
        clients.append(late)
        checks("a late joiner on A finds the current presentation", same(presentation_seen(late), last),
               short(late.welcome.get("snapshot"), 200))
    finally:
        for c in clients:
            c.close()
        for srv in (one, two):
            srv.stop()
        drop()
