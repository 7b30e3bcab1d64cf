"""Checks 2–5, 10 and 14: what clients of one room see: one order, undo and clear, resuming with
?after=, a late joiner's snapshot (plain, and deflated once), presence."""
import json

from proteinar_testing.accounts import add_member, make_room, room_log, room_state
from proteinar_testing.compact_snapshot import expand
from proteinar_testing.http_client import http, want
from proteinar_testing.report import Fail, expect, short

from .context import main_server, users
from .live import Live
from .ops import apply, canonical, contiguous, empty_state, extend, same_ops, stroke


def check_order():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "order", members=[ben])
    info = want(http(s, "GET", f"/api/rooms/{room}", token=ada.token), 200, "GET the room")
    expect(ben.id in info["room"].get("members", []), f"members: expected {ben.id}, got {short(info['room'])}")
    a, b = Live(s, room, token=ada.token, name="ada"), Live(s, room, token=ben.token, name="ben")
    expect(a.you.get("role") == "owner" and b.you.get("role") == "member",
           f"roles: expected owner/member, got {a.you.get('role')}/{b.you.get('role')}")
    # Both draw at once, without waiting for answers: the server picks one order for both.
    sent = {a: [], b: []}
    for i in range(4):
        for c, who in ((a, "a"), (b, "b")):
            sid = f"{who}{i}"
            sent[c].append(c.send(stroke(sid, 3, i)))
            for k in range(3):
                sent[c].append(c.send(extend(sid, 2, 10 + 2 * k)))
    total = sum(len(v) for v in sent.values())
    a.wait_ops(total, 10)
    b.wait_ops(total, 10)
    for c in (a, b):
        for cid in sent[c]:
            ans = c.answer(cid)
            expect(ans.get("type") == "ack", f"{c.name}: expected an ack for {cid}, got {short(ans)}")
    expect(len(a.ops) == total and len(b.ops) == total, f"expected {total} ops each, got {len(a.ops)} and {len(b.ops)}")
    if not same_ops(a.ops, b.ops):
        diff = next(i for i, (x, y) in enumerate(zip(a.ops, b.ops)) if x != y)
        raise Fail(f"the two clients saw different orders; first difference at #{diff}: {short(a.ops[diff])} vs {short(b.ops[diff])}")
    expect(contiguous(a.ops, a.welcome["sequence"]), f"sequences not contiguous: {[o['sequence'] for o in a.ops]}")
    by_cid = {o["clientOpID"]: o["sequence"] for o in a.ops}
    for c in (a, b):
        for cid in sent[c]:
            expect(by_cid.get(cid) == c.acks[cid]["sequence"],
                   f"{cid}: acked as {c.acks[cid]['sequence']} but broadcast as {by_cid.get(cid)}")
        own = [by_cid[cid] for cid in sent[c]]
        expect(own == sorted(own), f"{c.name}'s operations were reordered: {own}")
    state = empty_state()
    state["sequence"] = a.welcome["sequence"]
    for op in a.ops:
        apply(state, op)
    expect(canonical(state) == canonical(room_state(s, room, ada.token)), "state built from the ops differs from GET /api/rooms")
    a.close(); b.close()
    return f"{total} ops, same order on both"


def check_undo_clear():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "undo", members=[ben])
    a, b = Live(s, room, token=ada.token, name="ada"), Live(s, room, token=ben.token, name="ben")
    a.do(stroke("ada1", 2)); b.do(stroke("ben1", 2))
    a.do(stroke("ada2", 3)); a.do(extend("ada2", 4)); a.do(extend("ada2", 4, 20))
    b.do(stroke("ben2", 2))
    a.do({"type": "add-note", "id": "n1", "text": "look here", "anchor": {"point": [0, 1, 0]}})
    ack = a.do({"type": "undo"}, what="undo")
    b.wait_sequence(ack["sequence"])
    op = next(o for o in b.ops if o["sequence"] == ack["sequence"])
    expect(op["operation"] == {"type": "remove-stroke", "id": "ada2"} and op["author"] == ada.id,
           f"undo: expected remove-stroke ada2 by {ada.id}, got {short(op)}")
    st = room_state(s, room, ada.token)
    ids = [x["id"] for x in st["strokes"]]
    expect(ids == ["ada1", "ben1", "ben2"], f"after undo: expected strokes ada1, ben1, ben2, got {ids}")
    ack = a.do({"type": "undo"}, what="second undo")
    a.wait_sequence(ack["sequence"])
    expect(a.ops[-1]["operation"] == {"type": "remove-stroke", "id": "ada1"}, f"second undo: got {short(a.ops[-1])}")
    a.refused({"type": "undo"}, ["not-found"], "undo with no stroke left")
    b.refused({"type": "remove-stroke", "id": "nope"}, ["not-found"], "remove a stroke that does not exist")
    a.refused({"type": "extend-stroke", "id": "ben2", "points": [[0, 0, 0]]}, ["forbidden"], "extend someone else's stroke")
    before, seen = room_state(s, room, ada.token), len(a.ops)
    err = b.refused({"type": "clear"}, ["forbidden"], "clear by a member")
    expect(room_state(s, room, ada.token) == before, "clear by a member changed the room")
    extra = a.quiet(0.3)
    expect(len(a.ops) == seen, f"a refused clear was broadcast: {short(extra)}")
    ack = a.do({"type": "clear"}, what="clear by the owner")
    b.wait_sequence(ack["sequence"])
    expect(b.ops[-1]["operation"] == {"type": "clear"}, f"clear: expected a clear op, got {short(b.ops[-1])}")
    st = room_state(s, room, ben.token)
    expect(st["strokes"] == [] and st["notes"] == [], f"after clear: expected no strokes or notes, got {short(st)}")
    a.close(); b.close()
    return f"member's clear refused: {err['message']!r}"


def check_resume():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "resume", members=[ben])
    a, b = Live(s, room, token=ada.token, name="ada"), Live(s, room, token=ben.token, name="ben")
    first = [a.do(stroke("s1", 2))["sequence"], a.do(extend("s1", 2))["sequence"], b.do(stroke("s2", 1))["sequence"]]
    b.wait_sequence(first[-1])
    last = b.ops[-1]["sequence"]
    b.close()
    acked = [a.do(extend("s1", 1, 20 + i)) for i in range(6)]
    acked.append(a.do({"type": "add-note", "id": "n", "text": "while you were away", "anchor": {"chain": "A", "residue": 7}}))
    a.wait_sequence(acked[-1]["sequence"])
    missed = [o for o in a.ops if o["sequence"] > last]
    b2 = Live(s, room, token=ben.token, after=last, name="ben-again")
    expect(b2.welcome.get("snapshot") is None, f"welcome with after: expected snapshot null, got {short(b2.welcome.get('snapshot'))}")
    expect(b2.welcome.get("sequence") == missed[-1]["sequence"],
           f"welcome sequence: expected {missed[-1]['sequence']}, got {b2.welcome.get('sequence')}")
    b2.wait_ops(len(missed), 5)
    b2.quiet(0.4)
    if not same_ops(b2.ops, missed):
        raise Fail(f"resume after {last}: expected ops {[o['sequence'] for o in missed]}, got {[o['sequence'] for o in b2.ops]}")
    ack = a.do(extend("s1", 1, 40))
    b2.wait_sequence(ack["sequence"])
    expect([o["sequence"] for o in b2.ops[len(missed):]] == [ack["sequence"]],
           f"after the catch-up: expected only op {ack['sequence']}, got {[o['sequence'] for o in b2.ops[len(missed):]]}")
    # Resends: the same clientOpID again, on the same socket, a new socket, and over HTTP.
    cid, seq = acked[2]["clientOpID"], acked[2]["sequence"]
    n_ops = len(b2.ops)
    again = a.submit(extend("s1", 1, 22), cid=cid)
    expect(again.get("type") == "ack" and again.get("duplicate") is True and again.get("sequence") == seq,
           f"resend of {cid}: expected ack duplicate true sequence {seq}, got {short(again)}")
    a.close()
    a2 = Live(s, room, token=ada.token, name="ada-again")
    again = a2.submit(extend("s1", 1, 22), cid=cid)
    expect(again.get("type") == "ack" and again.get("duplicate") is True and again.get("sequence") == seq,
           f"resend of {cid} on a new socket: expected duplicate with sequence {seq}, got {short(again)}")
    r = want(http(s, "POST", f"/api/rooms/{room}/operations", {"clientOpID": cid, "operation": extend("s1", 1, 22)},
                  token=ada.token), 200, "resend over HTTP")
    expect(r.get("sequence") == seq and r.get("duplicate") is True, f"resend over HTTP: expected {seq} duplicate, got {short(r)}")
    extra = b2.quiet(0.4)
    expect(len(b2.ops) == n_ops, f"a resend was broadcast again: {short(extra)}")
    log, top = room_log(s, room, ada.token)
    expect(contiguous(log, 0) and top == log[-1]["sequence"], f"log not contiguous: {[o['sequence'] for o in log]}")
    # Resuming after a sequence the room never reached (a client that held another history): a snapshot.
    ahead = Live(s, room, token=ben.token, after=top + 100, name="ben-ahead")
    snap = ahead.welcome.get("snapshot")
    expect(snap is not None and canonical(snap) == canonical(room_state(s, room, ben.token)),
           f"resume with after above the room's sequence: expected a snapshot of the room, got {short(snap)}")
    extra = ahead.quiet(0.3)
    expect(not [m for m in extra if m.get("type") == "op"], f"resume with after above the sequence also sent ops: {short(extra)}")
    ahead.close()
    expect(sum(1 for o in log if o["clientOpID"] == cid) == 1, f"{cid} logged more than once")
    b2.close(); a2.close()
    return f"missed {len(missed)} ops after {last}, received exactly those"


def check_late_joiner():
    s = main_server()
    ada, ben, cy = users()
    room = make_room(s, ada, "late", members=[ben])
    a, b = Live(s, room, token=ada.token, name="ada"), Live(s, room, token=ben.token, name="ben")
    a.do(stroke("a1", 3)); b.do(stroke("b1", 2, color="#FF0000", width=0.02)); a.do(extend("a1", 5))
    b.do(extend("b1", 3)); a.do(stroke("a2", 1)); b.do(stroke("b2", 4))
    a.do({"type": "add-note", "id": "n1", "text": "α-helix here ✓", "anchor": {"point": [0.1, 0.2, -0.3]}})
    b.do({"type": "add-note", "id": "n2", "text": "Lys 42", "anchor": {"chain": "A", "residue": 42}})
    b.do({"type": "add-note", "id": "n3", "text": "gone soon", "anchor": {"point": [1, 1, 1]}})
    b.do({"type": "remove-note", "id": "n3"})
    a.do({"type": "remove-stroke", "id": "b2"})  # the owner removes someone else's stroke
    a.do({"type": "set-molecule", "molecule": {"moleculeID": "1AKE", "style": "cartoon",
                                               "transform": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, 0, -1, 1]}})
    last = a.do(extend("a1", 2, 30))["sequence"]
    built = {}
    for c in (a, b):
        c.wait_sequence(last)
        snap = c.welcome.get("snapshot")
        expect(snap is not None, f"{c.name}: welcome without after: expected a snapshot, got null")
        state = json.loads(json.dumps(snap))
        state.setdefault("molecule", None)
        for op in c.ops:
            apply(state, op)
        built[c.name] = canonical(state)
    expect(built[a.name] == built[b.name], "the two clients built different states")
    add_member(s, ada, room, cy)
    late = Live(s, room, token=cy.token, name="cy")
    snap = late.welcome.get("snapshot")
    expect(snap is not None, "late joiner: expected a snapshot")
    expect(late.welcome.get("sequence") == last == snap.get("sequence"),
           f"late joiner: expected welcome and snapshot sequence {last}, got {late.welcome.get('sequence')}/{snap.get('sequence')}")
    mine = built[a.name]
    if canonical(snap) != mine:
        raise Fail(f"late joiner's snapshot differs from the state built from ops:\n  snapshot {short(canonical(snap), 600)}\n"
                   f"  built    {short(mine, 600)}")
    http_state = room_state(s, room, cy.token)
    expect(canonical(http_state) == mine, f"GET /api/rooms state differs: {short(canonical(http_state), 600)}")
    extra = sorted(set(snap) - {"sequence", "strokes", "notes", "molecule"})
    strokes = {x["id"]: len(x["points"]) for x in mine["strokes"]}
    for c in (a, b, late):
        c.close()
    return f"strokes {strokes}, {len(mine['notes'])} notes, molecule set" + (f"; snapshot also holds {extra}" if extra else "")


def check_deflated_snapshot():
    """snapshot=deflated: the compact snapshot as raw DEFLATE in a binary frame. It equals the plain
    state; a joiner after a few more operations gets the same frame (kept) and the operations since
    it; one after more than 600 gets a frame written at the room's state now."""
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "deflated", members=[ben])
    a = Live(s, room, token=ada.token, name="ada")
    a.do(stroke("a1", 3)); a.do(extend("a1", 4)); a.do(stroke("a2", 2, color="#00FF00", width=0.02))
    a.do({"type": "add-note", "id": "n1", "text": "here", "anchor": {"point": [0.1, 0.2, -0.3]}})
    # A point off the 0.1 mm grid keeps its stroke in the plain form.
    a.do({"type": "add-stroke", "id": "off", "color": "#0000FF", "width": 0.01, "points": [[0.12345678, 0.5, 0.25]]})

    def joined(name, expect_base=None):
        c = Live(s, room, token=ben.token, name=name, snapshot="deflated")
        frame, welcome = c.welcome.get("snapshotFrame"), c.welcome
        expect(frame and frame.get("encoding") == "deflate-raw" and frame.get("format") == "compact-1",
               f"{name}: expected a snapshotFrame (deflate-raw, compact-1), got {short(welcome)}")
        expect(frame["bytes"] == len(c.frame), f"{name}: snapshotFrame says {frame['bytes']} bytes, the frame has {len(c.frame)}")
        snap = welcome["snapshot"]
        expect(snap.get("sequence") == frame["sequence"] <= welcome["sequence"],
               f"{name}: frame at {frame['sequence']}, snapshot at {snap.get('sequence')}, welcome at {welcome['sequence']}")
        if expect_base is not None:
            expect(frame["sequence"] == expect_base, f"{name}: expected the frame at {expect_base}, got {frame['sequence']}")
        state = expand(snap)
        state.setdefault("molecule", None)
        if welcome["sequence"] > frame["sequence"]:
            c.wait_sequence(welcome["sequence"])
        for op in c.ops:
            apply(state, op)
        plain = Live(s, room, token=ben.token, name=f"{name}-plain")
        want_state = plain.welcome["snapshot"]
        plain.close()
        expect(canonical(state) == canonical(want_state),
               f"{name}: the deflated snapshot and the operations after it differ from the plain state:\n"
               f"  built {short(canonical(state), 600)}\n  plain {short(canonical(want_state), 600)}")
        c.close()
        return frame, welcome["sequence"]

    first, at = joined("first")
    expect(first["sequence"] == at, f"first joiner: expected a frame at the room's sequence {at}, got {first['sequence']}")
    for i in range(5):
        a.do(extend("a1", 1, 40 + i))
    kept, at2 = joined("after five", expect_base=first["sequence"])
    # More than 600 operations later: written again. Seven clients within their bursts (120
    # messages), 15 at a time (the server queues 16 a connection), so this takes seconds.
    drawers = [Live(s, room, token=ada.token, name=f"drawer{k}") for k in range(7)]
    for k, d in enumerate(drawers):
        d.do(stroke(f"d{k}", 1))
        for group in range(6):
            sent = [d.send(extend(f"d{k}", 1, j), pace=False) for j in range(15)]
            for cid in sent:
                answer = d.answer(cid, 10)
                expect(answer.get("type") == "ack", f"drawer {k}: an extend was not acked: {short(answer)}")
    fresh, at3 = joined("after 637")
    expect(fresh["sequence"] == at3 and at3 - at2 > 600, f"after {at3 - at2} more operations: expected a new frame at {at3}, got {fresh['sequence']}")
    for d in drawers + [a]:
        d.close()
    return (f"frame {first['bytes']} bytes for {first['textBytes']} of text; kept at {kept['sequence']} with {at2 - kept['sequence']} "
            f"operations after it; written again at {fresh['sequence']} after {at3 - at2} more")


def check_presence():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "presence", members=[ben])
    a = Live(s, room, token=ada.token, name="ada")
    b = Live(s, room, token=ben.token, name="ben")

    def peers_with(n, pred=lambda p: True):
        return lambda peers: len(peers) == n and all(map(pred, peers))
    latest = a.wait_peers(peers_with(2), 3, "presence with 2 peers")
    ids = sorted(p.get("id") for p in latest)
    expect(ids == sorted([ada.id, ben.id]), f"presence: expected peers {sorted([ada.id, ben.id])}, got {short(latest)}")
    view = {"position": [0.5, 1.6, 2.0], "target": [0, 1, 0]}
    b.send_raw(json.dumps({"type": "presence", "view": view}))
    m = a.wait_peers(lambda peers: any(p.get("view") == view for p in peers), 3, "presence with Ben's view")
    b.send_raw(json.dumps({"type": "presence", "view": {"position": [0, 0], "target": [0, 0, 0]}}))
    err = b.next_error(3, "an error for a bad view")
    expect(err.get("code") == "malformed", f"a view of two numbers: expected malformed, got {short(err)}")
    b.close()
    a.wait_peers(peers_with(1), 3, "presence with 1 peer after Ben left")
    a.close()
    return f"{len(m)} peers, views relayed, leaving noticed"
