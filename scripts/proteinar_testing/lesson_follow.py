"""A class following a lesson live (issue 34): one teacher (the room's owner) and N followers on the
room's live socket (docs/rooms-protocol.md), every client in one asyncio loop (the `websockets`
package). The teacher sends `present` operations, step changes and camera changes in turn, a
fixed spacing apart; each follower keeps every operation it receives, with the time it came.

The same code serves the check (scripts/checks/test_lesson_follow.py: a short run, every follower
must get every change in order) and the benchmark (scripts/benchmarks/benchmark-lesson-follow.py:
a longer one, the latencies from the teacher's send to each follower's receipt as p50/p95/p99/max).
The clock is time.monotonic (CLOCK_MONOTONIC, one for the whole machine), read in this one process.

Followers alternate: even ones are guests (a guest key, `?guest=`), odd ones watch without a key
(counted in presence's `watchers`). With `follower_ws`, the followers connect to that server (another
server on the same PostgreSQL database) and the teacher to `teacher_ws`."""
import asyncio
import json
import os
import time

from websockets.asyncio.client import connect as ws_connect


def camera(i):
    """A camera as the web app's view link writes it (q…;d…;t…), different for each i."""
    a = (i % 97) / 100
    return f"q{a:.4g},0.3,0.1,0.94;d{0.5 + (i % 40) / 20:.4g};t0.01,{(i % 13) / 100:.4g},0"


def changes(lesson, count, steps):
    """`count` presentations, a step change then a camera change in turn: (kind, presentation).
    A step change moves to the next step with the step's own camera (no `camera`); a camera change
    keeps the step and sends the teacher's camera."""
    out, step = [], 0
    for i in range(count):
        if i % 2 == 0:
            step = (step + 1) % steps
            out.append(("step", {"lesson": lesson, "step": step}))
        else:
            out.append(("camera", {"lesson": lesson, "step": step, "camera": camera(i)}))
    return out


def same_presentation(a, b):
    """Equal presentations: lesson, step and camera (absent and null the same)."""
    if a is None or b is None:
        return a is None and b is None
    return (a.get("lesson"), a.get("step"), a.get("camera")) == (b.get("lesson"), b.get("step"), b.get("camera"))


class Client:
    def __init__(self, name, url, headers=None):
        self.name, self.url, self.headers = name, url, headers or {}
        self.ws = None
        self.welcome = None
        self.ops = []        # (receipt time, op message)
        self.acks = {}       # clientOpID → (receipt time, ack)
        self.errors = []
        self.peers, self.watchers = {}, 0
        self.closed = None
        self.receiver = None
        self.changed = asyncio.Event()

    async def connect(self):
        self.ws = await ws_connect(self.url, additional_headers=self.headers, compression=None, ping_interval=None,
                                   max_size=2 ** 24, open_timeout=30, close_timeout=2)
        welcome = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
        if welcome.get("type") != "welcome":
            raise RuntimeError(f"{self.name}: expected welcome, got {str(welcome)[:200]}")
        self.welcome = welcome
        self.receiver = asyncio.create_task(self.receive())

    async def receive(self):
        monotonic, loads = time.monotonic, json.loads
        try:
            async for raw in self.ws:
                now = monotonic()
                m = loads(raw)
                for m in (m["ops"] if m.get("type") == "ops" else [m]):
                    t = m.get("type")
                    if t == "op":
                        self.ops.append((now, m))
                    elif t == "ack":
                        self.acks[m.get("clientOpID")] = (now, m)
                    elif t == "error":
                        self.errors.append(m)
                    elif t == "presence":
                        self.peers = {p["connection"]: p for p in m.get("peers", [])}
                        self.watchers = m.get("watchers", self.watchers)
                    elif t == "presence-changes":
                        for p in m.get("joined", []):
                            self.peers[p["connection"]] = p
                        for c in m.get("left", []):
                            self.peers.pop(c, None)
                        self.watchers = m.get("watchers", self.watchers)
                self.changed.set()
        except Exception as e:  # noqa: BLE001 — a dropped connection is reported, not raised here
            self.closed = e
            self.changed.set()

    async def until(self, pred, timeout):
        """Waits until pred() holds (checked after each message); False when `timeout` passed first."""
        deadline = time.monotonic() + timeout
        while not pred():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.closed is not None:
                return pred()
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except asyncio.TimeoutError:
                pass
        return True

    async def close(self):
        if self.receiver:
            self.receiver.cancel()
        if self.ws:
            try:
                await self.ws.close()
            except Exception:  # noqa: BLE001
                pass


class FollowRun:
    """What happened: the teacher's sends [(cid, kind, presentation, send time)], its acks and
    errors, the followers, how many the teacher saw following before it began, and problems."""

    def __init__(self):
        self.sent = []
        self.teacher = None
        self.followers = []
        self.following = None
        self.connect_s = None
        self.problems = []

    def latencies(self, kind):
        """Seconds from the teacher's send to each follower's receipt, for changes of `kind`."""
        sent = {cid: t for cid, k, _, t in self.sent if k == kind}
        out = []
        for f in self.followers:
            for t, m in f.ops:
                t0 = sent.get(m.get("clientOpID"))
                if t0 is not None:
                    out.append(t - t0)
        return out

    def order_problems(self):
        """Every follower got every change, once, in the order sent, as sent; what differs, one line
        per follower (at most `limit`), and how many followers were complete."""
        wanted = [(cid, p) for cid, _, p, _ in self.sent]
        complete, problems = 0, []
        for f in self.followers:
            got = [m for _, m in f.ops if m.get("operation", {}).get("type") == "present"]
            cids = [m.get("clientOpID") for m in got]
            seqs = [m.get("sequence") for m in got]
            why = None
            if cids != [c for c, _ in wanted]:
                missing = [c for c, _ in wanted if c not in cids]
                doubled = sorted({c for c in cids if cids.count(c) > 1})
                why = (f"received {len(cids)} of {len(wanted)} changes; missing {missing[:3]}{'…' if len(missing) > 3 else ''}, "
                       f"doubled {doubled[:3]}" + ("; out of order" if not missing and not doubled else ""))
            elif seqs != sorted(seqs) or len(set(seqs)) != len(seqs):
                why = f"sequences not increasing: {seqs[:10]}"
            else:
                bad = [(m["clientOpID"], m["operation"].get("presentation")) for m, (_, p) in zip(got, wanted)
                       if not same_presentation(m["operation"].get("presentation"), p)]
                if bad:
                    why = f"{len(bad)} changes arrived other than sent, e.g. {str(bad[0])[:160]}"
            if f.closed is not None:
                why = (why + "; " if why else "") + f"its socket closed ({type(f.closed).__name__}: {str(f.closed)[:80]})"
            if why:
                problems.append(f"{f.name}: {why}")
            else:
                complete += 1
        return complete, problems


async def follow(teacher_ws, room, teacher_token, lesson, *, followers=40, count=20, spacing=0.2, steps=3,
                 follower_ws=None, settle=10.0, drain=10.0, key_prefix="follower"):
    """Connects the teacher and `followers` followers, waits until the teacher counts them all as
    following (presence), sends `count` changes `spacing` seconds apart, and waits until every
    follower has the last one (or `drain` seconds). Returns a FollowRun."""
    run = FollowRun()
    follower_ws = follower_ws or teacher_ws
    base = f"/api/rooms/{room}/live"
    teacher = Client("teacher", teacher_ws + base, {"Authorization": f"Bearer {teacher_token}"})
    salt = os.urandom(4).hex()
    crowd = []
    for i in range(followers):
        if i % 2 == 0:
            crowd.append(Client(f"guest{i}", f"{follower_ws}{base}?guest={key_prefix}-{salt}-{i:04d}"))
        else:
            crowd.append(Client(f"watcher{i}", follower_ws + base))
    run.teacher, run.followers = teacher, crowd
    try:
        await teacher.connect()
        me = teacher.welcome.get("you", {}).get("id")
        started = time.monotonic()
        for k in range(0, len(crowd), 10):  # ten at a time, as a class comes in
            await asyncio.gather(*(c.connect() for c in crowd[k:k + 10]))
        run.connect_s = time.monotonic() - started

        # "N following": peers other than the teacher, and watchers.
        def following():
            return sum(1 for p in teacher.peers.values() if p.get("id") != me) + teacher.watchers
        await teacher.until(lambda: following() >= followers, settle)
        run.following = following()

        plan = changes(lesson, count, steps)
        loop_start = time.monotonic()
        for i, (kind, presentation) in enumerate(plan):
            due = loop_start + i * spacing
            delay = due - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            cid = f"present-{salt}-{i}"
            message = json.dumps({"type": "op", "clientOpID": cid, "operation": {"type": "present", "presentation": presentation}})
            t0 = time.monotonic()
            await teacher.ws.send(message)
            run.sent.append((cid, kind, presentation, t0))
        last = run.sent[-1][0] if run.sent else None
        if last:
            await asyncio.gather(teacher.until(lambda: last in teacher.acks or bool(teacher.errors), drain),
                                 *(f.until(lambda f=f: f.closed is not None or any(m.get("clientOpID") == last for _, m in f.ops), drain)
                                   for f in crowd))
        unanswered = [cid for cid, *_ in run.sent if cid not in teacher.acks]
        if teacher.errors:
            run.problems.append(f"the teacher's changes were refused: {str(teacher.errors[:2])[:300]}")
        if unanswered:
            run.problems.append(f"{len(unanswered)} of the teacher's {len(run.sent)} changes were never acknowledged")
    finally:
        await asyncio.gather(teacher.close(), *(c.close() for c in crowd), return_exceptions=True)
    return run


def run_follow(*args, **kw):
    """follow() in a fresh asyncio loop (for a check or a script that is not async)."""
    return asyncio.run(follow(*args, **kw))


def percentile(values, q):
    """The q-quantile (0…1) of `values`, nearest rank; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))]


def figures(values):
    """{"n", "p50", "p95", "p99", "max"} in milliseconds."""
    out = {"n": len(values)}
    for name, q in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0)):
        v = percentile(values, q)
        out[name] = None if v is None else v * 1000
    return out


def describe(values):
    f = figures(values)
    if not f["n"]:
        return "no deliveries"
    return f"p50 {f['p50']:.1f} ms, p95 {f['p95']:.1f} ms, p99 {f['p99']:.1f} ms, max {f['max']:.1f} ms over {f['n']} deliveries"
