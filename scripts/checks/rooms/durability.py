"""Checks 8 and 9: SIGKILL at random moments loses no acknowledged operation (SQLite, PostgreSQL),
and two servers on one PostgreSQL database relay each other's operations."""
import random
import threading
import time

from websockets.exceptions import ConnectionClosed

from proteinar_testing.accounts import Account, make_room, room_log, room_state
from proteinar_testing.http_client import http
from proteinar_testing.postgres import fresh_database
from proteinar_testing.report import Fail, expect, short

from .context import new_server
from .live import Live
from .ops import contiguous, extend, pt, same_ops, stroke


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


def check_durability_sqlite():
    server = new_server("durable-sqlite")
    try:
        return durability(server, kills=4, label="sqlite")
    finally:
        server.stop()


def check_durability_postgres():
    url, drop = fresh_database("durable")
    server = None
    try:
        server = new_server("durable-postgres", database_url=url)
        return durability(server, kills=4, label="postgres")
    finally:
        if server:
            server.stop()
        drop()


def check_two_servers():
    url, drop = fresh_database("pair")
    one = two = None
    try:
        one, two = new_server("pair-1", database_url=url), new_server("pair-2", database_url=url)
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
