"""Accounts and rooms through the HTTP API: register, sign in, an account for adding to the library,
make a room with members (invited, and accepting), read a room's state and its whole operation log. Unexpected answers raise
Fail with what arrived."""
import random
import string

from .http_client import http, want
from .report import expect, short

PASSWORD = "correct horse battery"


def rid(prefix="x"):
    """A random id: `prefix` and 10 letters or digits."""
    return prefix + "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(10))


class Account:
    """A new account on `server` with a unique e-mail; `kind` "token" signs in with a bearer token
    (self.token), "cookie" with a session cookie."""

    def __init__(self, server, name, kind="token", password=PASSWORD):
        self.email = f"{name.lower()}-{rid('')}@example.org"
        self.name = name
        self.password = password
        body = want(http(server, "POST", "/api/accounts",
                         {"email": self.email, "password": password, "name": name, "kind": kind}),
                    201, f"register {self.email}")
        self.id = body["account"]["id"]
        self.token = body.get("token")
        if kind == "token":
            expect(self.token, f"register with kind token: expected a token in the answer, got {short(body)}")

    def sign_in(self, server):
        """A token for this account on `server` (another process, perhaps, on the same database)."""
        body = want(http(server, "POST", "/api/sessions", {"email": self.email, "password": self.password, "kind": "token"}),
                    200, f"sign in {self.email}")
        return body["token"]


def library_token(server, name="Librarian"):
    """A bearer token of a new account, for adding to the library (RCSB/AlphaFold fetch, upload,
    saving a design): the server refuses those without an account (401) unless it runs with
    --open-library. The first account made on a server is its administrator."""
    return Account(server, name).token


def add_member(server, owner, room, member):
    """`owner` invites `member` to the room by e-mail and `member` accepts: a member, as the page does it."""
    want(http(server, "POST", f"/api/rooms/{room}/invitations", {"email": member.email}, token=owner.token),
         202, f"invite {member.email}")
    return want(http(server, "POST", f"/api/invitations/{room}/accept", {}, token=member.token),
                200, f"{member.email} accepts the invitation")


def make_room(server, owner, name="room", public=False, guests_may_draw=False, members=()):
    """A new room owned by `owner`, with `members` added; its id."""
    room = want(http(server, "POST", "/api/rooms", {"name": name, "isPublic": public, "guestsMayDraw": guests_may_draw},
                     token=owner.token), 201, "create a room")
    for member in members:
        add_member(server, owner, room["id"], member)
    return room["id"]


def room_state(server, room, token=None, guest=None):
    body = want(http(server, "GET", f"/api/rooms/{room}", token=token, guest=guest), 200, f"GET /api/rooms/{room}")
    return body["state"]


def room_log(server, room, token, after=0, timeout=15):
    """The whole log after `after`, a page at a time, and the room's sequence."""
    ops = []
    while True:
        body = want(http(server, "GET", f"/api/rooms/{room}/operations?after={after}&limit=5000", token=token, timeout=timeout),
                    200, f"GET /api/rooms/{room}/operations?after={after}")
        ops += body["operations"]
        if not body.get("more") or not body["operations"]:
            return ops, body["sequence"]
        after = body["operations"][-1]["sequence"]

