"""19. Who has an account (issue 29, finding 10): an owner asks to add 2,002 e-mails to a room,
some of them registered. Before, `POST /api/rooms/{id}/members` answered 404 to an e-mail without
an account and 200 (adding them, unasked) to one with, 2,002 e-mails told apart in 0.9 s. Now it is
an invitation: every valid e-mail gets 202 and a body that follows from the owner's own requests
alone (the e-mail invited, the e-mails invited so far), the same headers, in the same time; the
invitee is a member only after accepting; and an owner's invitations run out at the hourly budget
(429 for everyone alike)."""
import statistics
import time

from proteinar_testing import attack_tools as tools
from proteinar_testing.accounts import Account, make_room, rid

EMAILS = 2002
REGISTERED = 22          # accounts among the e-mails (registrations are 60 a minute per address)
PER_HOUR = 100           # --invitations-per-hour (default)
SPREAD = 3               # rooms the unlimited run spreads the e-mails over (1,000 people a room at most)
SOURCE = "127.0.0.60"
SKIP_HEADERS = {"date", "content-length"}


def e_mails(registered, positions):
    """EMAILS e-mails, with the registered ones at `positions`; and which are registered."""
    tag = rid("")
    out, known = [], set()
    spots = dict(zip(positions, registered))
    for i in range(EMAILS):
        if i in spots:
            out.append(spots[i].email)
            known.add(spots[i].email)
        else:
            out.append(f"nobody{i}-{tag}@example.org")
    return out, known


def invite_all(s, owner, rooms, emails):
    """Invites each e-mail (sequentially, the rooms in turn): [(email, room, Response)]."""
    out = []
    for i, email in enumerate(emails):
        room = rooms[i % len(rooms)]
        out.append((email, room, tools.try_request(s, "POST", f"/api/rooms/{room}/invitations", {"email": email},
                                                   token=owner.token, source=SOURCE, timeout=60)))
    return out


def judge(a, results, known, label):
    """Checks that nothing in the answers depends on whether the e-mail has an account; returns figures."""
    invited = {}
    surprises, shapes, refusals = [], {}, set()
    times = {True: [], False: []}
    for email, room, r in results:
        is_known = email in known
        headers = tuple(sorted(k.lower() for k in (r.headers or {}).keys() if k.lower() not in SKIP_HEADERS))
        if r.status == 202:
            invited.setdefault(room, set()).add(email)
            expected = {"invited": email, "invitations": sorted(invited[room])}
            if r.json != expected:
                surprises.append(f"{email}: {tools.message(r)}")
            times[is_known].append(r.elapsed)
        else:
            refusals.add((r.status, "".join("N" if c.isdigit() else c for c in r.text)))
        shapes.setdefault((r.status, headers), set()).add(is_known)
    by_status = {}
    for (status, _), kinds in shapes.items():
        by_status.setdefault(status, []).append(kinds)
    statuses = [r.status for _, _, r in results]
    a.check(f"{label}: every 202 body is exactly what the owner's own requests predict ({{invited, invitations so far}})",
            not surprises, "; ".join(surprises[:3]))
    a.check(f"{label}: one set of headers per status, the same for e-mails with and without an account",
            all(len(v) == 1 for v in by_status.values()), str(sorted(shapes)))
    a.check(f"{label}: every refusal reads the same (digits aside) for any e-mail", len(refusals) <= 1, str(sorted(refusals))[:300])
    median = {k: (statistics.median(v) * 1000 if v else None) for k, v in times.items()}
    return statuses, median


def check_invitations(a):
    # With the defaults: the hourly budget.
    s = a.serve(name="attack19")
    owner, *registered = a.admin_then(s, "Owner", *[f"Member{i}" for i in range(REGISTERED)])
    room = make_room(s, owner, "invitations")
    # Half the registered e-mails within the budget, half after it.
    half = REGISTERED // 2
    emails, known = e_mails(registered, [3 + 8 * i for i in range(half)] + [150 + 150 * i for i in range(REGISTERED - half)])
    started = time.monotonic()
    results = invite_all(s, owner, [room], emails)
    took = time.monotonic() - started
    statuses, median = judge(a, results, known, "defaults")
    accepted = statuses.count(202)
    a.figure(f"{EMAILS} invitations ({len(known)} to registered e-mails) from one owner in {took:.1f} s: {tools.status_counts(statuses)}; "
             f"median answer {median[True]:.1f} ms registered, {median[False]:.1f} ms not",
             table=f"{EMAILS} invitations: {tools.status_counts(statuses)}")
    a.check(f"the owner's hourly budget: {PER_HOUR} invitations, then 429 with Retry-After",
            accepted == PER_HOUR and statuses[:PER_HOUR] == [202] * PER_HOUR and set(statuses[PER_HOUR:]) == {429}
            and all(r.headers.get("Retry-After") for _, _, r in results[PER_HOUR:]), tools.status_counts(statuses))
    a.check("answers for registered e-mails take as long as for others (medians within 5 ms)",
            abs(median[True] - median[False]) < 5, f"{median[True]:.1f} vs {median[False]:.1f} ms")
    # Invited is not a member: the invitee sees it, the room stays closed until they accept.
    ben = registered[0]
    mine = tools.try_request(s, "GET", "/api/invitations", token=ben.token)
    rooms_offered = [i.get("room") for i in (mine.json or {}).get("invitations", [])]
    before = tools.try_request(s, "GET", f"/api/rooms/{room}", token=ben.token)
    stranger = tools.try_request(s, "POST", f"/api/invitations/{room}/accept", {}, token=registered[-1].token)
    taken = tools.try_request(s, "POST", f"/api/invitations/{room}/accept", {}, token=ben.token)
    after = tools.try_request(s, "GET", f"/api/rooms/{room}", token=ben.token)
    outsider = Account(s, "Outsider")
    not_theirs = tools.try_request(s, "POST", f"/api/invitations/{room}/accept", {}, token=outsider.token)
    a.figure(f"the invitee: invitations {rooms_offered}; the room before accepting HTTP {before.status}, accept HTTP {taken.status}, "
             f"after HTTP {after.status}; someone never invited accepting: HTTP {not_theirs.status}")
    a.check("the invitee sees the invitation, is not a member before accepting (403), is one after (200)",
            rooms_offered == [room] and before.status == 403 and taken.status == 200 and after.status == 200,
            f"{rooms_offered} {before.status} {taken.status} {after.status}")
    a.check("nobody else can accept: someone never invited, or whose invitation the budget refused (404)",
            not_theirs.status == 404 and stranger.status == 404, f"HTTP {not_theirs.status}, {stranger.status}")
    other = Account(s, "Other")
    elsewhere = tools.try_request(s, "POST", f"/api/rooms/{make_room(s, other, 'other')}/invitations", {"email": ben.email}, token=other.token)
    a.check("another owner's budget is their own (202)", elsewhere.status == 202, f"HTTP {elsewhere.status}")

    # With the budget lifted: all 2,002 answered, spread over rooms of at most 1,000 people.
    s2 = a.serve(extra=["--invitations-per-hour", "100000", "--invitations-per-day", "100000"], name="attack19-unlimited")
    owner2, *registered2 = a.admin_then(s2, "Owner", *[f"Member{i}" for i in range(REGISTERED)])
    rooms = [make_room(s2, owner2, f"invitations {i}") for i in range(SPREAD)]
    emails2, known2 = e_mails(registered2, [i * (EMAILS // REGISTERED) + 7 for i in range(REGISTERED)])
    started = time.monotonic()
    results2 = invite_all(s2, owner2, rooms, emails2)
    took2 = time.monotonic() - started
    statuses2, median2 = judge(a, results2, known2, "budget lifted")
    a.figure(f"budget lifted: {EMAILS} invitations ({len(known2)} registered) over {SPREAD} rooms in {took2:.1f} s: "
             f"{tools.status_counts(statuses2)}; median answer {median2[True]:.1f} ms registered, {median2[False]:.1f} ms not",
             table=f"lifted: {tools.status_counts(statuses2)}, medians {median2[True]:.1f}/{median2[False]:.1f} ms")
    a.check(f"budget lifted: all {EMAILS} answered 202", statuses2 == [202] * EMAILS, tools.status_counts(statuses2))
    a.check("budget lifted: registered e-mails' answers take as long (medians within 5 ms)",
            median2[True] is not None and abs(median2[True] - median2[False]) < 5, f"{median2[True]} vs {median2[False]} ms")
    members = [len(((tools.try_request(s2, "GET", f"/api/rooms/{r}?state=none", token=owner2.token).json or {}).get("room") or {})
                   .get("members", [None])) for r in rooms]
    a.check("nobody became a member by being invited", members == [0] * SPREAD, str(members))
