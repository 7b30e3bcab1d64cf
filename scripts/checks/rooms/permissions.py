"""Check 6: who may watch and who may draw: non-members, guests, guestsMayDraw, cookie sockets."""
import re

from websockets.exceptions import ConnectionClosed

from proteinar_testing.accounts import PASSWORD, make_room, rid, room_state
from proteinar_testing.http_client import http, want
from proteinar_testing.report import Fail, expect, short

from .context import RUN, main_server, users
from .live import Live, Refused, group_refusals, live_refused
from .ops import extend, stroke


def check_permissions():
    s = main_server()
    ada, ben, cy = users()
    private = make_room(s, ada, "private", members=[ben])
    a = Live(s, private, token=ada.token, name="ada")
    a.do(stroke("p1", 2))
    before = room_state(s, private, ada.token)
    problems = []
    how = [live_refused(s, private, "live socket of a non-member", problems, token=cy.token),
           live_refused(s, private, "live socket of a guest in a private room", problems, guest="guest-key-" + rid("")),
           live_refused(s, private, "live socket of nobody signed in", problems),
           live_refused(s, "rnosuchroom", "live socket of a room that does not exist", problems, statuses=(404,),
                        codes=("not-found",), token=ada.token),
           live_refused(s, private, "live socket with a bad bearer token", problems, statuses=(401,), token="0" * 64)]
    for what, kw in (("a non-member", {"token": cy.token}), ("a guest", {"guest": "guest-key-" + rid("")}), ("anonymous", {})):
        r = http(s, "GET", f"/api/rooms/{private}", **kw)
        if r.status not in (401, 403, 404):
            problems.append(f"GET a private room as {what}: expected 401/403/404, got {r!r}")
        r = http(s, "GET", f"/api/rooms/{private}/operations?after=0", **kw)
        if r.status not in (401, 403, 404):
            problems.append(f"GET a private room's log as {what}: expected 401/403/404, got {r!r}")
        r = http(s, "POST", f"/api/rooms/{private}/operations", {"clientOpID": "intruder" + rid(""),
                                                                 "operation": stroke("evil", 1)}, **kw)
        if r.status not in (401, 403, 404):
            problems.append(f"POST an operation to a private room as {what}: expected 401/403/404, got {r!r}")
    rooms = want(http(s, "GET", "/api/rooms", token=cy.token), 200, "GET /api/rooms")
    expect(private not in [r["id"] for r in rooms["rooms"]], "a private room is listed to a non-member")
    want(http(s, "PATCH", f"/api/rooms/{private}", {"isPublic": True}, token=ben.token), 403, "PATCH a room by a member")
    expect(room_state(s, private, ada.token) == before, "the private room changed")
    # A public room: guests watch, and draw once the owner allows it.
    public = make_room(s, ada, "public", public=True)
    key = "guest-key-" + rid("") + "-ABC_def"
    g = Live(s, public, guest=key, name="guest")
    expect(g.you.get("role") == "guest" and g.you.get("mayDraw") is False,
           f"guest welcome: expected role guest, mayDraw false, got {short(g.you)}")
    expect(re.fullmatch(r"guest:g[0-9a-f]{16}", g.you.get("id", "")), f"guest id: expected guest:g<16 hex>, got {g.you.get('id')!r}")
    a2 = Live(s, public, token=ada.token, name="ada-public")
    ack = a2.do(stroke("own1", 2))
    g.wait_sequence(ack["sequence"])
    st = want(http(s, "GET", f"/api/rooms/{public}", guest=key), 200, "GET a public room as a guest")
    expect(len(st["state"]["strokes"]) == 1, f"guest reads the public room: expected 1 stroke, got {short(st['state'])}")
    before = room_state(s, public, ada.token)
    g.refused(stroke("g1", 2), ["forbidden"], "a guest draws before the owner allows it")
    r = http(s, "POST", f"/api/rooms/{public}/operations", {"clientOpID": "g-http-1", "operation": stroke("g1", 1)}, guest=key)
    expect(r.status == 403, f"a guest posts an operation over HTTP before it is allowed: expected 403, got {r!r}")
    c = Live(s, public, token=cy.token, name="cy-public")  # signed in, not a member: a guest here
    expect(c.you.get("role") == "guest", f"a non-member in a public room: expected role guest, got {short(c.you)}")
    c.refused(stroke("c1", 1), ["forbidden"], "a signed-in non-member draws in a public room")
    expect(room_state(s, public, ada.token) == before, "refused guest operations changed the room")
    room = want(http(s, "PATCH", f"/api/rooms/{public}", {"guestsMayDraw": True}, token=ada.token), 200, "PATCH guestsMayDraw")
    expect(room.get("guestsMayDraw") is True, f"PATCH: expected guestsMayDraw true, got {short(room)}")
    # A place on the map, then off it again ("location": null), leaving the other settings as they were.
    placed = want(http(s, "PATCH", f"/api/rooms/{public}", {"location": {"latitude": 52.2, "longitude": 0.12}}, token=ada.token), 200, "PATCH location")
    expect(placed.get("location") == {"latitude": 52.2, "longitude": 0.12}, f"PATCH location: got {short(placed)}")
    off = want(http(s, "PATCH", f"/api/rooms/{public}", {"location": None}, token=ada.token), 200, "PATCH location null")
    expect(off.get("location") is None and off.get("guestsMayDraw") is True, f"PATCH location null takes the room off the map: got {short(off)}")
    ans = g.submit(stroke("g1", 2))
    if ans.get("type") != "ack":
        g2 = Live(s, public, guest=key, name="guest-reconnected")
        retry = g2.submit(stroke("g1", 2))
        raise Fail(f"a guest already connected still may not draw after PATCH guestsMayDraw=true: {short(ans)}; "
                   f"on a new connection: {short(retry)}")
    g.wait_sequence(ans["sequence"])
    expect(g.ops[-1]["author"] == g.you["id"], f"the guest's op: expected author {g.you['id']}, got {g.ops[-1]['author']}")
    g.refused({"type": "set-molecule", "molecule": {"moleculeID": "1AKE", "style": "cartoon", "transform": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]}},
              ["forbidden"], "a guest sets the molecule")
    g.refused({"type": "clear"}, ["forbidden"], "a guest clears the room")
    other = Live(s, public, guest="another-guest-" + rid(""), name="guest2")
    expect(other.you.get("id") != g.you.get("id"), "two guest keys got the same guest id")
    other.refused(extend("g1", 1), ["forbidden"], "one guest extends another guest's stroke")
    same = Live(s, public, guest=key, name="guest-again")
    expect(same.you.get("id") == g.you.get("id"), "the same guest key gave another guest id")
    same.do(extend("g1", 1), what="the same guest (same key, new socket) extends its stroke")
    # Without an account or a guest key: watch only.
    try:
        anon = Live(s, public, name="anonymous")
        ans = anon.submit(stroke("anon1", 1))
        if ans.get("type") != "error" or ans.get("code") != "forbidden":
            problems.append(f"an operation from someone with neither account nor guest key: expected forbidden, got {short(ans)}")
        anon.close()
    except Refused as e:
        how.append(f"anonymous socket in a public room: refused ({e})")
    # Signed in by cookie, only the server's own pages may open the socket.
    email = f"cookie-{rid('')}@example.org"
    r = http(s, "POST", "/api/accounts", {"email": email, "password": PASSWORD, "name": "Cookie"})
    want(r, 201, "register (cookie)")
    cookie = re.search(r"proteinar_session=[^;]+", r.headers.get("Set-Cookie") or "").group(0)
    how.append(live_refused(s, public, "a cookie session's socket from another site's page", problems, statuses=(403,),
                            codes=("forbidden",), headers={"Cookie": cookie}, origin="http://evil.example"))
    try:
        own = Live(s, public, headers={"Cookie": cookie}, origin=s.base, name="cookie")
        if own.you.get("role") != "guest" or not own.you.get("id") or own.you["id"].startswith("guest:"):
            problems.append(f"a cookie session's socket from the server's own page: expected it signed in "
                            f"(a non-member: role guest, its account id), got {short(own.you)}")
        own.close()
    except Refused as e:
        problems.append(f"a cookie session's socket from the server's own page ({s.base}) was refused: {e}")
    how.append(live_refused(s, public, "a guest key of 5 characters", problems, statuses=(400, 401, 403),
                            codes=("forbidden", "invalid", "malformed"), guest="short"))
    # Making the room private lets its guests go.
    want(http(s, "PATCH", f"/api/rooms/{public}", {"isPublic": False}, token=ada.token), 200, "PATCH isPublic false")
    try:
        same.quiet(3)
        problems.append("a guest's socket stayed open 3 s after the owner made the room private")
    except ConnectionClosed as e:
        how.append(f"guest let go when the room went private ({e})")
    try:
        a2.quiet(0.2)
    except ConnectionClosed:
        problems.append("the owner's socket closed when the room went private")
    for x in (a, a2, g, c, other, same):
        x.close()
    if RUN.verbose:
        for line in how:
            print(f"       {line}")
    if problems:
        raise Fail("; ".join(group_refusals(problems)))
    return f"{len(how)} refused sockets"
