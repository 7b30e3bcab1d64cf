"""Check 7: bad input is refused with a clear error and changes nothing; a flood is rate-limited,
then closed."""
import json
import re
import time

from websockets.exceptions import ConnectionClosed

from proteinar_testing.accounts import make_room, room_log, room_state
from proteinar_testing.report import Fail, expect, short

from .context import RUN, main_server, users
from .live import Live
from .ops import extend, pt, state_diff, stroke


def check_bad_input():
    s = main_server()
    ada, ben, _ = users()
    room = make_room(s, ada, "bad input", members=[ben])
    a = Live(s, room, token=ada.token, name="ada")
    a.do(stroke("base", 2))
    problems, notes = [], []

    def unchanged(what, send, codes, must_say=None):
        nonlocal a
        before, n_ops = room_state(s, room, ada.token), len(a.ops)
        try:
            err = send()
        except ConnectionClosed as e:
            problems.append(f"{what}: expected an error ({'/'.join(codes)}), the connection was closed ({e})")
            a = Live(s, room, token=ada.token, name="ada-again")
            return
        except Fail as e:
            problems.append(f"{what}: {e}")
            return
        if err.get("type") != "error" or err.get("code") not in codes:
            problems.append(f"{what}: expected an error with code {'/'.join(codes)}, got {short(err)}")
        elif not isinstance(err.get("message"), str) or len(err["message"]) < 5 or \
                (must_say and not re.search(must_say, err["message"], re.I)):
            problems.append(f"{what}: the message does not say why{' (' + must_say + ')' if must_say else ''}: {err.get('message')!r}")
        else:
            notes.append(f"{what} → {err['code']}: {err['message'][:110]!r}")
        try:
            a.quiet(0.15)
        except ConnectionClosed:
            a = Live(s, room, token=ada.token, name="ada-again")
        after = room_state(s, room, ada.token)
        if after != before or len(a.ops) != n_ops:
            problems.append(f"{what}: the room changed: {state_diff(before, after)}; ops broadcast {short(a.ops[n_ops:], 200)}")

    def raw(text):
        return lambda: (a.send_raw(text), a.next_error(5, "an error"))[1]

    def op_text(cid, body):
        return '{"type":"op","clientOpID":"%s","operation":%s}' % (cid, body)

    unchanged("malformed JSON", raw('{"type":"op","clientOpID":"m1","operation":{"type":"add-stroke"'), ["malformed"])
    unchanged("not JSON at all", raw("hello"), ["malformed"])
    unchanged("an unknown message type", raw('{"type":"dance"}'), ["malformed", "invalid"])
    unchanged("an op without operation", raw('{"type":"op","clientOpID":"m2"}'), ["malformed", "invalid"])
    unchanged("an unknown operation type", lambda: a.submit({"type": "explode", "id": "x"}),
              ["malformed", "invalid"], "explode|unknown")
    nan = op_text("nan1", '{"type":"add-stroke","id":"nan","points":[[0,NaN,0]],"color":"#ff0000","width":0.005}')
    unchanged("NaN in a point", raw(nan), ["malformed", "invalid"])
    inf = op_text("inf1", '{"type":"add-stroke","id":"inf","points":[[0,1e999,0]],"color":"#ff0000","width":0.005}')
    unchanged("1e999 in a point", raw(inf), ["malformed", "invalid"])
    inf2 = op_text("inf2", '{"type":"extend-stroke","id":"base","points":[[-1e999,0,0]]}')
    unchanged("-1e999 in an extend", raw(inf2), ["malformed", "invalid"])
    unchanged("a point 2 km away", lambda: a.submit({"type": "add-stroke", "id": "far", "points": [[2000, 0, 0]],
                                                      "color": "#ff0000", "width": 0.005}), ["invalid"], "1000|origin|far")
    unchanged("a point of two numbers", lambda: a.submit({"type": "extend-stroke", "id": "base", "points": [[1, 2]]}),
              ["malformed", "invalid"])
    unchanged("501 points in one message", lambda: a.submit(stroke("big", 501)), ["invalid", "too-large"], "500")
    unchanged("a width of 1 m", lambda: a.submit(stroke("wide", 2, width=1.0)), ["invalid"], "width")
    unchanged("a colour 'red'", lambda: a.submit(stroke("red", 2, color="red")), ["invalid"], "colou?r")
    unchanged("an id with a space", lambda: a.submit(stroke("a b", 2)), ["invalid"], "id")
    unchanged("an id of 65 characters", lambda: a.submit(stroke("x" * 65, 2)), ["invalid"], "id")
    unchanged("an empty note", lambda: a.submit({"type": "add-note", "id": "e", "text": "  ", "anchor": {"point": [0, 0, 0]}}),
              ["invalid"])
    unchanged("a note of 501 characters", lambda: a.submit({"type": "add-note", "id": "long", "text": "y" * 501,
                                                             "anchor": {"point": [0, 0, 0]}}), ["invalid"], "500")
    unchanged("extending a missing stroke", lambda: a.submit(extend("ghost", 1)), ["not-found"])
    unchanged("an existing stroke id", lambda: a.submit(stroke("base", 1)), ["invalid"], "exists")
    # Over 5,000 points in one stroke, 500 at a time.
    a.do({"type": "add-stroke", "id": "long", "points": [pt(i) for i in range(500)], "color": "#00ff00", "width": 0.003})
    for k in range(1, 10):
        a.do({"type": "extend-stroke", "id": "long", "points": [pt(500 * k + i) for i in range(500)]}, what=f"extend to {500 * (k + 1)} points")
    unchanged("the 5,001st point of a stroke", lambda: a.submit(extend("long", 1, 9000)), ["invalid"], "5,?000")
    # A message over 64 KiB.
    big = op_text("huge", json.dumps({"type": "add-note", "id": "huge", "text": "z" * 400,
                                      "anchor": {"point": [0, 0, 0]}, "padding": "p" * 70_000}))
    unchanged("a message of 70 KB", raw(big), ["too-large"])
    # <script> in a note: stored and sent back verbatim, as text.
    text = '<script>alert("x")</script> & <b>bold</b>'
    ack = a.do({"type": "add-note", "id": "script", "text": text, "anchor": {"point": [0, 0, 0]}}, what="a note with <script>")
    a.wait_sequence(ack["sequence"])
    expect(a.ops[-1]["operation"]["text"] == text, f"the note came back as {a.ops[-1]['operation']['text']!r}")
    st = room_state(s, room, ada.token)
    stored = [n["text"] for n in st["notes"] if n["id"] == "script"]
    if stored != [text]:
        problems.append(f"note with <script>: expected it stored verbatim {text!r}, got {stored}")
    late = Live(s, room, token=ben.token, name="ben")
    if [n["text"] for n in late.welcome["snapshot"]["notes"] if n["id"] == "script"] != [text]:
        problems.append("note with <script>: the snapshot holds other text")
    late.close()
    # A flood: past 60 a second with bursts of 120 the server refuses (rate-limited), then closes.
    before_log, top = room_log(s, room, ada.token)
    f = Live(s, room, token=ada.token, name="flood")
    f.do(stroke("flood", 1))
    cids = []
    closed = None
    try:
        for i in range(400):
            cids.append(f.send(extend("flood", 1, i), pace=False))
    except ConnectionClosed as e:
        closed = e
    try:
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline and len(f.acks) + len([e for e in f.errors if e.get("clientOpID") in cids]) < len(cids) + 1:
            f._recv(0.2)
    except ConnectionClosed as e:
        closed = e
    limited = [e for e in f.errors if e.get("code") == "rate-limited"]
    other_errors = [e for e in f.errors if e.get("code") != "rate-limited"]
    acked = {c: f.acks[c]["sequence"] for c in cids if c in f.acks}
    if not limited:
        problems.append(f"flood of {len(cids)} messages: expected rate-limited errors, got {len(acked)} acks and "
                        f"errors {short(f.errors)}")
    if other_errors:
        problems.append(f"flood: errors other than rate-limited: {short(other_errors)}")
    log, _ = room_log(s, room, ada.token, after=top)
    logged = {o["clientOpID"]: o["sequence"] for o in log}
    refused = {e.get("clientOpID") for e in limited}
    if any(c in logged for c in refused):
        problems.append(f"flood: operations refused as rate-limited were logged: {sorted(c for c in refused if c in logged)[:5]}")
    if any(logged.get(c) != s_ for c, s_ in acked.items()):
        problems.append("flood: acked operations missing from the log or under another sequence")
    close_note = f"closed with {closed.rcvd.code if closed and closed.rcvd else None}" if closed else "not closed"
    if closed and closed.rcvd and closed.rcvd.code != 1008:
        problems.append(f"flood: the server closed the connection with code {closed.rcvd.code}, expected 1008")
    notes.append(f"flood: {len(acked)} acked, {len(limited)} rate-limited, {close_note}")
    if limited:
        msg = limited[0].get("message", "")
        if len(msg) < 5:
            problems.append(f"flood: the rate-limited error has no clear message: {short(limited[0])}")
        # The operation is refused; sent again later it is accepted.
        time.sleep(1.5)
        again = Live(s, room, token=ada.token, name="after-flood")
        cid = limited[0]["clientOpID"]
        ans = again.submit(extend("flood", 1, 999), cid=cid)
        if ans.get("type") != "ack" or ans.get("duplicate"):
            problems.append(f"flood: a rate-limited operation sent again later: expected a new ack, got {short(ans)}")
        again.close()
    f.close()
    # Keeping on past the limit closes the connection (1008). Operations that would be refused
    # anyway (no such stroke) keep this from writing to the room.
    g = Live(s, room, token=ada.token, name="flood2")
    sent, closed = 0, None
    deadline = time.monotonic() + 10
    try:
        while time.monotonic() < deadline:
            g.send(extend("no-such-stroke", 1), pace=False)
            sent += 1
            if sent % 50 == 0:
                while g._recv(0.001) is not None:
                    pass
    except ConnectionClosed as e:
        closed = e
    if closed is None:
        try:
            g.quiet(2)
        except ConnectionClosed as e:
            closed = e
    code = closed.rcvd.code if closed is not None and closed.rcvd else None
    if code != 1008:
        problems.append(f"sending without pause for 10 s ({sent} messages): expected the server to close with 1008, "
                        f"got {'close code ' + str(code) if closed else 'no close'}")
    else:
        notes.append(f"kept flooding: closed with 1008 after {sent} messages")
    g.close()
    a.close()
    if RUN.verbose:
        for line in notes:
            print(f"       {line}")
    if problems:
        raise Fail("; ".join(problems))
    return "; ".join(notes[-2:])
