"""Checks 11 and 12: several servers on one PostgreSQL database. Presence and the owner's settings
changes reach the clients of the other server within 100 ms (the median, and all tries but one
of each kind; settings timed from the start of the owner's PATCH); a server killed with SIGKILL leaves
no ghosts, and its clients resume on the other server exactly (no gap, no duplicate)."""
import json
import statistics
import time

from proteinar_testing.accounts import Account, make_room, rid, room_log
from proteinar_testing.http_client import http, want
from proteinar_testing.postgres import fresh_database
from proteinar_testing.report import Fail, expect, short

from .context import new_server
from .durability import retry_do
from .live import Live
from .ops import contiguous, same_ops, stroke

# The bound: a change on one server is at the other server's clients within this.
LATENCY_LIMIT = 0.100
# Changes are spaced this far apart: a change after a quiet moment goes out at once, later ones
# gather up to 100 ms (docs/rooms-protocol.md), so each try measures the relay, not the gathering.
SPACING = 0.12


def pair(tag):
    """A fresh database and two servers on it; (one, two, drop)."""
    url, drop = fresh_database(tag)
    one = None
    try:
        one = new_server(f"{tag}-1", database_url=url)
        return one, new_server(f"{tag}-2", database_url=url), drop
    except BaseException:
        if one:
            one.stop()
        drop()
        raise


def figures(times):
    return f"median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms over {len(times)}"


def timed(client, pred, what, timeout=2, started=None):
    """Seconds from `started` (now) until `client` has received a message that `pred` accepts."""
    started = started or time.monotonic()
    client.wait(lambda m: True if pred(m) else None, timeout, what)
    return time.monotonic() - started


def check_across_servers():
    one, two, drop = pair("across")
    clients = []
    try:
        ada, ben = Account(one, "Ada"), Account(one, "Ben")
        room = make_room(one, ada, "across servers", public=True, members=[ben])
        a = Live(one, room, token=ada.token, name="ada@1")
        b = Live(two, room, token=ben.sign_in(two), name="ben@2")
        guest = Live(two, room, guest="guest-key-" + rid(""), name="guest@2")
        clients += [a, b, guest]
        b.wait_peers(lambda ps: {p.get("id") for p in ps} >= {ada.id, ben.id}, 3, "Ada of server 1 in presence at server 2")
        a.wait_peers(lambda ps: len(ps) == 3, 3, "Ben and the guest of server 2 in presence at server 1")

        # Views: Ada looks elsewhere on server 1; Ben on server 2 sees it.
        moves = []
        for i in range(8):
            time.sleep(SPACING)
            view = {"position": [0.1 * i, 1.6, 2.0], "target": [0, 1, 0]}
            a.send_raw(json.dumps({"type": "presence", "view": view}))
            moves.append(timed(b, lambda m: m.get("type", "").startswith("presence") and
                               any(p.get("view") == view for p in b.peers.values()), f"Ada's view {i} at server 2"))
        # Joins and leaves: another connection of Ada's comes and goes on server 1.
        joins, leaves = [], []
        for i in range(4):
            time.sleep(SPACING)
            extra = Live(one, room, token=ada.token, name=f"ada@1-{i}")
            joins.append(timed(b, lambda m: len(b.peers) == 4, f"Ada's connection {i} joining, at server 2"))
            time.sleep(SPACING)
            started = time.monotonic()
            extra.close()
            leaves.append(timed(b, lambda m: len(b.peers) == 3, f"Ada's connection {i} leaving, at server 2", started=started))
        presence = moves + joins + leaves

        # Settings: the owner renames the room on server 1; Ben on server 2 is told.
        renames = []
        for i in range(8):
            time.sleep(SPACING)
            name = f"renamed {i}"
            started = time.monotonic()
            want(http(one, "PATCH", f"/api/rooms/{room}", {"name": name}, token=ada.token), 200, "rename the room")
            b.wait(lambda m: True if m.get("type") == "room-settings" and m["room"].get("name") == name else None, 2,
                   f"room-settings with the name {name!r} at server 2")
            renames.append(time.monotonic() - started)
        m = b.messages[-1]
        expect(m["room"].get("role") == "member" and m["you"].get("role") == "member" and m["you"].get("mayDraw") is True,
               f"Ben's room-settings: expected role member and mayDraw, got {short(m)}")
        a.wait(lambda m: True if m.get("type") == "room-settings" and m["room"].get("name") == "renamed 7" else None, 2,
               "room-settings at the owner's own server")
        # A guest watching on server 2 may draw once the owner allows it, without reconnecting.
        expect(guest.you.get("mayDraw") is False, f"guest welcome: expected mayDraw false, got {short(guest.you)}")
        guest.refused(stroke("g0", 2), ["forbidden"], "a guest draws before the owner allows it")
        want(http(one, "PATCH", f"/api/rooms/{room}", {"guestsMayDraw": True}, token=ada.token), 200, "let guests draw")
        told = guest.wait(lambda m: m if m.get("type") == "room-settings" and m["room"].get("guestsMayDraw") else None, 2,
                          "room-settings with guestsMayDraw at the guest")
        expect(told["you"].get("mayDraw") is True and told["room"].get("guestsMayDraw") is True,
               f"the guest's room-settings: expected mayDraw and guestsMayDraw true, got {short(told)}")
        retry_do(guest, stroke("g1", 2))

        # Within the limit, allowing one slow try per kind (a busy machine, a scheduler's hiccup);
        # a median over it, or two slow tries, fail.
        for what, times in (("presence", presence), ("settings", renames)):
            slow = [f"{t * 1000:.0f} ms" for t in times if t > LATENCY_LIMIT]
            expect(statistics.median(times) <= LATENCY_LIMIT and len(slow) <= 1,
                   f"{what} changes reached the other server's client in more than {LATENCY_LIMIT * 1000:.0f} ms: {slow} "
                   f"({figures(times)})")
        return f"presence {figures(presence)}; settings {figures(renames)}; a guest drew after guestsMayDraw"
    finally:
        for c in clients:
            c.close()
        for s in (one, two):
            s.stop()
        drop()


def check_failover():
    one, two, drop = pair("failover")
    clients = []
    try:
        ada, ben = Account(one, "Ada"), Account(one, "Ben")
        room = make_room(one, ada, "failover", members=[ben])
        ada2, ben2 = ada.sign_in(two), ben.sign_in(two)
        a1 = Live(one, room, token=ada.token, name="ada@1")
        b1 = Live(one, room, token=ben.token, name="ben@1")
        w = Live(two, room, token=ada2, name="watcher@2")
        clients += [a1, b1, w]
        w.wait_peers(lambda ps: len(ps) == 3, 3, "three peers at server 2")
        before = set(w.peers)  # connections: the watcher's own stays
        for i in range(5):
            a1.do(stroke(f"a{i}", 3))
        b1.wait_sequence(a1.ops[-1]["sequence"])
        # Killed with an operation in flight: sent, maybe stored, not answered.
        inflight = stroke("inflight", 2)
        cid = a1.send(inflight)
        one.kill()
        killed = time.monotonic()
        for i in range(3):  # drawn on server 2 while server 1's clients are away
            retry_do(w, stroke(f"w{i}", 2))
        a2 = Live(two, room, token=ada2, after=a1.ops[-1]["sequence"], name="ada@2")
        b2 = Live(two, room, token=ben2, after=b1.ops[-1]["sequence"], name="ben@2")
        clients += [a2, b2]
        ack = retry_do_as(a2, inflight, cid)
        top = retry_do(w, stroke("after", 2))["sequence"]  # the last operation
        for c in (a2, b2):
            c.wait_sequence(top, 5)
        log, _ = room_log(two, room, ada2)
        for old, new in ((a1, a2), (b1, b2)):
            seen = old.ops + new.ops
            expect(contiguous(seen, old.welcome["sequence"]),
                   f"{new.name}: gaps or repeats across the failover: {[o['sequence'] for o in seen]}")
            expect(same_ops(seen, log[old.welcome["sequence"]:]),
                   f"{new.name}: what it received differs from the log: received "
                   f"{[(o['sequence'], o['clientOpID'][-12:]) for o in seen]}, logged {[(o['sequence'], o['clientOpID'][-12:]) for o in log]}")
        logged = [o for o in log if o["clientOpID"] == cid]
        expect(len(logged) == 1 and logged[0]["sequence"] == ack["sequence"],
               f"the operation in flight at the kill: logged {len(logged)} times, acked as {short(ack)}")
        # Server 1's people leave server 2's presence once their heartbeat stops.
        w.wait_peers(lambda ps: len(before & set(w.peers)) == 1, 8, "server 1's peers dropped after the kill")
        gone = time.monotonic() - killed
        return (f"{len(log)} ops, both clients resumed on server 2 with no gap or duplicate; the op in flight "
                f"{'was stored before the kill (duplicate on resend)' if ack.get('duplicate') else 'was stored on resend'}; "
                f"server 1's peers gone in {gone:.1f} s")
    finally:
        for c in clients:
            c.close()
        for s in (one, two):
            s.stop()
        drop()


def retry_do_as(client, operation, cid, tries=20):
    """Sends `operation` again under `cid` until acked (a server that lost a race says to send again)."""
    for _ in range(tries):
        ans = client.answer(client.send(operation, cid=cid))
        if ans.get("type") == "ack":
            return ans
        if ans.get("code") == "invalid" and "again" in ans.get("message", ""):
            time.sleep(0.05)
            continue
        raise Fail(f"{client.name}: expected an ack for {cid}, got {short(ans)}")
    raise Fail(f"{client.name}: {cid} still refused after {tries} tries")
