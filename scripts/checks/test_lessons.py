"""Lessons (issue 34) over HTTP, against a real `proteinar serve` (SQLite): making, reading, listing,
replacing and deleting a lesson, who may do which (a refused write changes nothing: each is read
back), every limit at its edge and one past it (a 400 naming the field), 100 lessons per account,
the 1 MiB body (a lesson at every field's limit, escaped, fits), malformed JSON. The answers to a
lesson's questions and the owner's tally are in test_lesson_answers.py.

Following a lesson live in a room (the `present` operation) is in test_lesson_follow.py.

The routes (the contract, until docs/ has them):
  GET/POST /api/lessons, GET/PUT/DELETE /api/lessons/{id}, POST/GET /api/lessons/{id}/answers.
One server for the module; its first account (Root) is the server's administrator."""
import json
import re
import time

import pytest

from proteinar_testing.accounts import PASSWORD, Account, rid
from proteinar_testing.lesson_api import (VIEW, call, content, error_check, guest_key, is_error, make, question, read, serve,
                                         step, unchanged)
from proteinar_testing.http_client import http
from proteinar_testing.report import short

LESSON_ID = re.compile(r"^l[0-9a-f]{20}$")
STEP_ID = re.compile(r"^s[0-9a-f]{16}$")
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
MAX_BODY = 1024 * 1024
TEXT = ("First the whole enzyme.\n\nIts **lid** closes over *AP5A*. See [RCSB](https://www.rcsb.org/structure/1AKE).\n"
        "<b>not markup</b> & javascript:alert(1)")


@pytest.fixture(scope="module")
def site(proteinar_bin):
    yield from serve(proteinar_bin, "lessons")


# 1. Making, reading, listing, replacing, deleting


def test_a_lesson_is_made_by_an_account_and_read_by_anyone_with_its_link(site, checks):
    steps = [step(question=question()), step("AF-P69905-F1", "", "", None), step("2XHE", VIEW, "é" * 10, question(answer=None))]
    r = call(site, "POST", "/api/lessons", {"title": "Adenylate kinase closes", "steps": steps}, site.ada)
    checks("POST /api/lessons → 201", r.status == 201 and isinstance(r.json, dict), repr(r))
    lesson = r.json if isinstance(r.json, dict) else {}
    checks("the lesson's id is l and 20 hex digits", bool(LESSON_ID.match(str(lesson.get("id")))), short(lesson.get("id")))
    checks("title, ownerID, ownerName and mine as sent and signed in",
           (lesson.get("title"), lesson.get("ownerID"), lesson.get("ownerName"), lesson.get("mine"))
           == ("Adenylate kinase closes", site.ada.id, "Ada", True), short(lesson))
    got = lesson.get("steps") or []
    checks("every step comes back as sent, with a server-made id (s and 16 hex digits), all different",
           [content(s) for s in got] == steps and all(STEP_ID.match(str(s.get("id"))) for s in got)
           and len({s.get("id") for s in got}) == len(got), short(got))
    checks("createdAt and updatedAt are ISO 8601 times",
           all(ISO.match(str(lesson.get(k))) for k in ("createdAt", "updatedAt")), short(lesson))
    lid = lesson.get("id", "l" + "0" * 20)

    for who, label in ((None, "signed out"), (guest_key(), "a guest key"), (site.ben, "another account")):
        g = read(site, lid, who)
        body = dict(g.json) if isinstance(g.json, dict) else {}
        checks(f"GET as {label} → 200, mine false, the same lesson",
               g.status == 200 and body.pop("mine", None) is False and body == {k: v for k, v in lesson.items() if k != "mine"},
               repr(g))
    g = read(site, lid, site.ada)
    checks("GET as the owner → the same lesson, mine true", g.status == 200 and g.json == lesson, repr(g))
    error_check(checks, "GET an unknown lesson", read(site, "l" + "0123456789abcdef0123"), 404)
    bad = read(site, "not-a-lesson")
    checks(f"GET a malformed lesson id → 404 or 400 ({bad.status})", is_error(bad, 404) or is_error(bad, 400), repr(bad))

    bare = call(site, "POST", "/api/lessons", {"title": "No steps yet"}, site.ada)
    checks("POST with a title only (steps left out) → 201 with no steps",
           bare.status == 201 and isinstance(bare.json, dict) and bare.json.get("steps") == [], repr(bare))
    error_check(checks, "POST signed out", call(site, "POST", "/api/lessons", {"title": "x", "steps": []}), 401)
    error_check(checks, "POST with only a guest key", call(site, "POST", "/api/lessons", {"title": "x", "steps": []}, guest_key()), 401)


def test_the_list_holds_only_the_askers_own_lessons_newest_change_first(site, checks):
    dee, eve = Account(site.server, "Dee"), Account(site.server, "Eve")
    first = make(site, dee, "Dee's first", [step(), step()])
    second = make(site, dee, "Dee's second", [step()])
    make(site, eve, "Eve's", [step()])
    # Made back to back, most likely within one second: still newest first (a whole-second
    # updatedAt alone does not order them).
    quick = [make(site, dee, f"Dee's quick {i}", [])["id"] for i in range(5)]

    def listed(who):
        r = call(site, "GET", "/api/lessons", None, who)
        return r, (r.json or {}).get("lessons") if isinstance(r.json, dict) else None

    r, lessons = listed(dee)
    checks("GET /api/lessons → 200 {lessons}", r.status == 200 and isinstance(lessons, list), repr(r))
    lessons = lessons or []
    ids = [x.get("id") for x in lessons]
    checks("Dee's list: her seven lessons only", sorted(ids) == sorted(quick + [first["id"], second["id"]]), short(lessons))
    checks("five lessons made back to back (within about a second) are listed newest first",
           [i for i in ids if i in quick] == quick[::-1],
           f"made {quick}, listed {[i for i in ids if i in quick]} with updatedAt "
           f"{sorted({x.get('updatedAt') for x in lessons if x.get('id') in quick})}")
    entry = next((x for x in lessons if x.get("id") == first["id"]), None)
    checks("each entry is {id, title, steps: N, updatedAt}",
           entry == {"id": first["id"], "title": "Dee's first", "steps": 2, "updatedAt": first["updatedAt"]}, short(entry))
    for i in quick:
        call(site, "DELETE", f"/api/lessons/{i}", None, dee)
    # A change makes a lesson the newest (timestamps may be whole seconds: wait one out).
    time.sleep(1.1)
    p = call(site, "PUT", f"/api/lessons/{first['id']}", {"title": "Dee's first, changed", "steps": first["steps"]}, dee)
    checks("PUT by the owner → 200", p.status == 200, repr(p))
    r, lessons = listed(dee)
    checks("after a change to the older lesson it is listed first, with its new title",
           [(x.get("id"), x.get("title")) for x in lessons or []] == [(first["id"], "Dee's first, changed"), (second["id"], "Dee's second")],
           short(lessons))
    _, eves = listed(eve)
    checks("Eve's list holds only Eve's lesson", [x.get("title") for x in eves or []] == ["Eve's"], short(eves))
    fresh = Account(site.server, "Fay")
    r, none = listed(fresh)
    checks("an account without lessons gets an empty list", r.status == 200 and none == [], repr(r))
    error_check(checks, "GET /api/lessons signed out", call(site, "GET", "/api/lessons"), 401)
    error_check(checks, "GET /api/lessons with only a guest key", call(site, "GET", "/api/lessons", None, guest_key()), 401)


def test_a_put_replaces_the_lesson_reordering_editing_and_deleting_steps_and_keeps_step_ids(site, checks):
    a, b, c = step("1AKE", VIEW, "step A"), step("4AKE", "", "step B", question()), step("2XHE", "style=cartoon", "step C")
    lesson = make(site, site.ada, "Reorder me", [a, b, c])
    ids = [s["id"] for s in lesson["steps"]]
    path = f"/api/lessons/{lesson['id']}"

    def put(body, what):
        r = call(site, "PUT", path, body, site.ada)
        checks(f"{what}: PUT → 200 with the lesson", r.status == 200 and isinstance(r.json, dict) and r.json.get("id") == lesson["id"], repr(r))
        return r.json if isinstance(r.json, dict) else {"steps": []}

    time.sleep(1.1)  # so that updatedAt can move on, at whole seconds too
    reordered = put({"title": "Reorder me", "steps": [lesson["steps"][2], lesson["steps"][0], lesson["steps"][1]]}, "reorder C, A, B")
    checks("the reordered steps keep their ids, in the new order",
           [s.get("id") for s in reordered["steps"]] == [ids[2], ids[0], ids[1]], short(reordered["steps"]))
    checks("each step's content moved with its id", [content(s) for s in reordered["steps"]] == [c, a, b], short(reordered["steps"]))
    checks("createdAt stays, updatedAt moves on",
           reordered.get("createdAt") == lesson["createdAt"] and str(reordered.get("updatedAt")) > lesson["updatedAt"],
           f"{lesson['createdAt']}/{lesson['updatedAt']} → {reordered.get('createdAt')}/{reordered.get('updatedAt')}")
    checks("a PUT's answer says mine and the owner", (reordered.get("mine"), reordered.get("ownerID")) == (True, site.ada.id), short(reordered))

    edited_a = {**lesson["steps"][0], "text": "step A, edited", "question": question("Edited?", ("yes", "no"), 1)}
    edited = put({"title": "Reordered and edited", "steps": [lesson["steps"][2], edited_a, lesson["steps"][1]]}, "edit")
    checks("an edited step keeps its id and has the new text and question; the title changed",
           edited.get("title") == "Reordered and edited" and [s.get("id") for s in edited["steps"]] == [ids[2], ids[0], ids[1]]
           and content(edited["steps"][1]) == content(edited_a), short(edited))

    new_step = step("1LCD", "", "new, no id")
    named = step("1A8O", "", "new, named by the client", id="my-step_1")
    grown = put({"title": "Reordered and edited", "steps": [edited["steps"][0], new_step, named, edited["steps"][2]]},
                "delete step A, add two")
    got = grown["steps"]
    checks("deleting a step leaves the others with their ids",
           [s.get("id") for s in got[::3]] == [ids[2], ids[1]] and ids[0] not in [s.get("id") for s in got], short(got))
    checks("a new step without an id gets a server-made one; one with a valid id keeps it",
           len(got) == 4 and bool(STEP_ID.match(str(got[1].get("id")))) and got[1]["id"] not in ids and got[2].get("id") == "my-step_1"
           and [content(s) for s in got[1:3]] == [content(new_step), content(named)], short(got))
    back = read(site, lesson["id"])
    checks("GET reads back what the PUT answered (mine aside)",
           back.status == 200 and {**back.json, "mine": True} == grown, f"{back!r} vs {short(grown)}")
    emptied = put({"title": "Nothing left", "steps": []}, "delete every step")
    checks("a PUT with no steps leaves none", emptied.get("steps") == [], short(emptied))
    error_check(checks, "PUT to an unknown lesson", call(site, "PUT", "/api/lessons/l" + "f" * 20, {"title": "x", "steps": []}, site.ada), 404)
    error_check(checks, "PUT without a title", call(site, "PUT", path, {"steps": []}, site.ada), 400, "title")


def test_only_the_owner_changes_a_lesson_an_administrator_may_delete_it_and_a_refused_write_changes_nothing(site, checks):
    lesson = make(site, site.ada, "Ada's own", [step(question=question()), step("4AKE")])
    lesson = read(site, lesson["id"], site.ada).json
    path = f"/api/lessons/{lesson['id']}"
    hijack = {"title": "Taken over", "steps": [step("6WG6", "", "mine now")]}

    for who, label, status in ((site.ben, "another account", 403), (None, "signed out", 401), (guest_key(), "a guest key", 401)):
        error_check(checks, f"PUT by {label}", call(site, "PUT", path, hijack, who), status)
        unchanged(checks, site, f"after the PUT by {label}", lesson)
        error_check(checks, f"DELETE by {label}", call(site, "DELETE", path, None, who), status)
        unchanged(checks, site, f"after the DELETE by {label}", lesson)
    r = call(site, "PUT", path, {"title": "", "steps": "no"}, site.ben)
    checks(f"PUT by another account with a bad body too → 403 or 400 ({r.status})", is_error(r, 403) or is_error(r, 400), repr(r))
    unchanged(checks, site, "after the bad PUT by another account", lesson)

    d = call(site, "DELETE", path, None, site.ada)
    checks("DELETE by the owner → 204", d.status == 204, repr(d))
    error_check(checks, "GET after the delete", read(site, lesson["id"]), 404)
    error_check(checks, "DELETE again", call(site, "DELETE", path, None, site.ada), 404)
    error_check(checks, "PUT after the delete", call(site, "PUT", path, hijack, site.ada), 404)
    listed = call(site, "GET", "/api/lessons", None, site.ada).json or {}
    checks("the deleted lesson is no longer in the owner's list",
           lesson["id"] not in [x.get("id") for x in listed.get("lessons", [])], short(listed))

    other = make(site, site.ada, "An administrator removes this", [step()])
    d = call(site, "DELETE", f"/api/lessons/{other['id']}", None, site.root)
    checks("DELETE by the server's administrator (the first account) → 204", d.status == 204, repr(d))
    error_check(checks, "GET after the administrator's delete", read(site, other["id"]), 404)
    kept = make(site, site.ada, "The administrator may not edit", [step()])
    r = call(site, "PUT", f"/api/lessons/{kept['id']}", hijack, site.root)
    checks(f"PUT by the administrator is refused (the contract: PUT is the owner's; {r.status})",
           is_error(r, 403), repr(r))
    after = read(site, kept["id"], site.ada)
    checks("the lesson the administrator tried to edit is unchanged", after.status == 200 and after.json == kept, repr(after))


def test_a_cookie_session_needs_its_csrf_token_to_change_lessons(site, checks):
    email = f"gus-{rid('')}@example.org"
    r = http(site.server, "POST", "/api/accounts", {"email": email, "password": PASSWORD, "name": "Gus", "kind": "cookie"})
    cookies = [c.split(";")[0] for c in (r.headers.get_all("Set-Cookie") or [])] if r.status == 201 else []
    cookie, csrf = "; ".join(cookies), (r.json or {}).get("csrf")
    if not (cookie and csrf):
        pytest.fail(f"register a cookie account: expected 201 with a cookie and csrf, got {r!r}", pytrace=False)
    body = {"title": "By cookie", "steps": [step()]}
    error_check(checks, "POST by cookie without X-CSRF-Token", http(site.server, "POST", "/api/lessons", body, cookie=cookie), 403)
    made = http(site.server, "POST", "/api/lessons", body, cookie=cookie, csrf=csrf)
    checks("POST by cookie with X-CSRF-Token → 201", made.status == 201, repr(made))
    lid = (made.json or {}).get("id", "l" + "0" * 20)
    g = http(site.server, "GET", f"/api/lessons/{lid}", cookie=cookie)
    checks("GET by cookie: mine true", g.status == 200 and g.json.get("mine") is True, repr(g))
    error_check(checks, "PUT by cookie without X-CSRF-Token",
                http(site.server, "PUT", f"/api/lessons/{lid}", {"title": "changed", "steps": []}, cookie=cookie), 403)
    error_check(checks, "DELETE by cookie without X-CSRF-Token", http(site.server, "DELETE", f"/api/lessons/{lid}", cookie=cookie), 403)
    g2 = http(site.server, "GET", f"/api/lessons/{lid}", cookie=cookie)
    checks("after the refused PUT and DELETE the lesson is unchanged", g2.status == 200 and g2.json == g.json, repr(g2))
    d = http(site.server, "DELETE", f"/api/lessons/{lid}", cookie=cookie, csrf=csrf)
    checks("DELETE by cookie with X-CSRF-Token → 204", d.status == 204, repr(d))


# 2. Limits


def test_each_limit_is_accepted_at_its_edge_and_refused_past_it_naming_the_field(site, checks):
    lim = Account(site.server, "Lim")
    made = []

    def post(name, body, field=None, raw=None):
        """field None: accepted (201, and the lesson reads back as sent); else a 400 naming it."""
        r = call(site, "POST", "/api/lessons", raw if raw is not None else body, lim)
        if field is None:
            ok = r.status == 201 and isinstance(r.json, dict)
            if ok:
                made.append(r.json["id"])
                ok = r.json.get("title") == body["title"] and [content(s) for s in r.json["steps"]] == [content(s) for s in body["steps"]]
            checks(f"{name}: accepted as sent", ok, repr(r))
        else:
            error_check(checks, f"{name}: refused", r, 400, field)

    def with_step(s, title="Limits"):
        return {"title": title, "steps": [step(), s]}  # the second step, to see the index named

    # title: 1–120 characters, one line
    post("title of 0 characters", {"title": "", "steps": []}, "title")
    post("title of 1 character", {"title": "T", "steps": []})
    post("title of 120 characters", {"title": "t" * 120, "steps": []})
    post("title of 120 two-byte characters (é)", {"title": "é" * 120, "steps": []})
    post("title of 121 characters", {"title": "t" * 121, "steps": []}, "title")
    post("title with a newline", {"title": "line one\nline two", "steps": []}, "title")
    post("title left out", None, "title", raw={"steps": []})
    post("title not a string", None, "title", raw={"title": 12, "steps": []})
    # steps: at most 40
    post("40 steps", {"title": "Forty", "steps": [step(text=f"step {i}") for i in range(40)]})
    post("41 steps", {"title": "Forty-one", "steps": [step(text=f"step {i}") for i in range(41)]}, "steps")
    post("steps not a list", None, "steps", raw={"title": "x", "steps": {"0": step()}})
    # text: 0–2,000 characters
    post("text of 0 characters", with_step(step(text="")))
    post("text of 2,000 characters", with_step(step(text="x" * 2000)))
    post("text of 2,000 two-byte characters (é), newlines and markup", with_step(step(text="é" * 1993 + "\n\n**b**")))
    post("text of 2,001 characters", with_step(step(text="x" * 2001)), "steps[1].text")
    # view: 0–1,000 characters of A-Za-z0-9-_.:,;~=&%
    long_view = (VIEW + "&pad=" + "a" * 1000)[:1000]
    post("view empty", with_step(step(view="")))
    post("view of 1,000 characters", with_step(step(view=long_view)))
    post("view of every allowed character", with_step(step(view="AZaz09-_.:,;~=&%")))
    post("view of 1,001 characters", with_step(step(view=long_view + "a")), "steps[1].view")
    for bad in (" ", "<", "#", "?", "/", '"', "é"):
        post(f"view with {bad!r}", with_step(step(view=f"style=cartoon{bad}x")), "steps[1].view")
    # molecule: 1–64 letters, digits, - and _
    post("molecule of 64 characters", with_step(step(molecule="m" * 64)))
    post("molecule AF-P69905-F1 (an AlphaFold id)", with_step(step(molecule="AF-P69905-F1")))
    for label, bad in (("empty", ""), ("65 characters", "m" * 65), ("with a space", "1AKE 2"), ("with a slash", "../etc"),
                       ("with a dot", "1ake.cif")):
        post(f"molecule {label}", with_step(step(molecule=bad)), "steps[1].molecule")
    post("molecule left out", None, "steps[1].molecule",
         raw={"title": "x", "steps": [step(), {k: v for k, v in step().items() if k != "molecule"}]})
    # question: prompt 1–300, choices 2–6 of 1–200 characters, answer an index or null
    q = question
    post("prompt of 300 characters", with_step(step(question=q(prompt="p" * 300))))
    post("prompt of 0 characters", with_step(step(question=q(prompt=""))), "steps[1].question.prompt")
    post("prompt of 301 characters", with_step(step(question=q(prompt="p" * 301))), "steps[1].question.prompt")
    post("2 choices", with_step(step(question=q(choices=("yes", "no"), answer=1))))
    post("6 choices", with_step(step(question=q(choices=[f"c{i}" for i in range(6)], answer=5))))
    post("1 choice", with_step(step(question=q(choices=("only",), answer=0))), "steps[1].question.choices")
    post("7 choices", with_step(step(question=q(choices=[f"c{i}" for i in range(7)]))), "steps[1].question.choices")
    post("a choice of 200 characters", with_step(step(question=q(choices=("a", "c" * 200)))))
    post("a choice of 0 characters", with_step(step(question=q(choices=("a", "")))), "steps[1].question.choices[1]")
    post("a choice of 201 characters", with_step(step(question=q(choices=("a", "c" * 201)))), "steps[1].question.choices[1]")
    post("answer null (no right answer)", with_step(step(question=q(answer=None))))
    post("answer 2 of 3 choices (the last)", with_step(step(question=q(answer=2))))
    post("answer −1", with_step(step(question=q(answer=-1))), "steps[1].question.answer")
    post("answer = the number of choices", with_step(step(question=q(answer=3))), "steps[1].question.answer")
    post("answer not a number", with_step(step(question=q(answer="0"))), "steps[1].question.answer")

    # A step's id, kept by a PUT: 1–64 letters, digits, - and _
    lesson = make(site, lim, "Step ids", [step(), step()])
    made.append(lesson["id"])
    path = f"/api/lessons/{lesson['id']}"
    first = lesson["steps"][0]
    r = call(site, "PUT", path, {"title": "Step ids", "steps": [first, step(id="i" * 64)]}, lim)
    checks("PUT a step id of 64 characters: kept", r.status == 200 and [s.get("id") for s in r.json.get("steps", [])] == [first["id"], "i" * 64], repr(r))
    before = read(site, lesson["id"], lim).json
    for label, bad in (("65 characters", "i" * 65), ("with a space", "bad id"), ("with a slash", "a/b"), ("with a dot", "s.1"),
                       ("a number", 7)):
        r = call(site, "PUT", path, {"title": "Step ids", "steps": [first, step(id=bad)]}, lim)
        error_check(checks, f"PUT a step id {label}: refused", r, 400, "steps[1].id")
    # Answers are kept by step id: two steps may not share one.
    r = call(site, "PUT", path, {"title": "Step ids", "steps": [step(id="twice"), step(id="twice")]}, lim)
    error_check(checks, "PUT two steps with one id: refused", r, 400, "steps[1].id")
    after = read(site, lesson["id"], lim).json
    checks("the refused PUTs changed nothing", after == before, f"{short(before, 150)} → {short(after, 150)}")

    for lid in made:  # Lim's lessons out of the way
        call(site, "DELETE", f"/api/lessons/{lid}", None, lim)


def test_an_account_keeps_at_most_100_lessons_then_409(site, checks):
    many = Account(site.server, "Many")
    started = time.monotonic()
    statuses = [call(site, "POST", "/api/lessons", {"title": f"Lesson {i}", "steps": []}, many).status for i in range(100)]
    checks(f"100 lessons made ({time.monotonic() - started:.1f} s)", statuses == [201] * 100,
           f"statuses {sorted(set(statuses))}, the first other than 201 at {next((i for i, s in enumerate(statuses) if s != 201), None)}")
    error_check(checks, "the 101st", call(site, "POST", "/api/lessons", {"title": "One too many", "steps": []}, many), 409)
    listed = (call(site, "GET", "/api/lessons", None, many).json or {}).get("lessons", [])
    checks("the list holds 100", len(listed) == 100, f"{len(listed)}")
    if listed:
        call(site, "DELETE", f"/api/lessons/{listed[-1]['id']}", None, many)
        again = call(site, "POST", "/api/lessons", {"title": "In the freed place", "steps": []}, many)
        checks("after deleting one, one more may be made", again.status == 201, repr(again))
        error_check(checks, "and the next is refused again", call(site, "POST", "/api/lessons", {"title": "Over", "steps": []}, many), 409)
    other = call(site, "POST", "/api/lessons", {"title": "Someone else's", "steps": []}, site.cy)
    checks("another account is not held to Many's count", other.status == 201, repr(other))


def test_a_lesson_at_every_limit_fits_a_body_over_1_mib_is_refused_and_malformed_json_is_a_400(site, checks):
    path = "/api/lessons"
    small = json.dumps({"title": "Padded to the limit", "steps": [step()]}, ensure_ascii=False).encode()
    at_limit = small + b" " * (MAX_BODY - len(small))
    r = call(site, "POST", path, at_limit, site.cy)
    checks(f"a lesson body of exactly 1 MiB ({len(at_limit)} bytes, JSON then spaces) → 201", r.status == 201, repr(r))
    over = small + b" " * (MAX_BODY + 1 - len(small))
    r = call(site, "POST", path, over, site.cy)
    checks(f"a body of 1 MiB + 1 byte → 413 with a reason ({r.status})", is_error(r, 413), repr(r))
    # Every field at its limit, every character escaped (\u20ac, six bytes each): the largest
    # lesson there can be still fits the body's limit.
    question = {"prompt": "€" * 300, "choices": ["€" * 200] * 6, "answer": 5}
    heavy = {"title": "€" * 120, "steps": [step(text="€" * 2000, view="a" * 1000, question=question) for _ in range(40)]}
    heavy_bytes = json.dumps(heavy, ensure_ascii=True).encode()
    r = call(site, "POST", path, heavy_bytes, site.cy)
    checks(f"40 steps with every field at its limit, escaped ({len(heavy_bytes) // 1024} KiB) → 201",
           r.status == 201, repr(r)[:300])
    if r.status == 201:
        call(site, "DELETE", f"{path}/{r.json['id']}", None, site.cy)
    lesson = make(site, site.cy, "Target", [step()])
    r = call(site, "PUT", f"{path}/{lesson['id']}", over, site.cy)
    checks(f"a PUT body of 1 MiB + 1 byte → 413 ({r.status})", is_error(r, 413), repr(r))
    now = read(site, lesson["id"], site.cy).json
    checks("the lesson is unchanged after it", now == lesson, f"{short(lesson, 120)} → {short(now, 120)}")
    lesson = now  # the malformed PUTs below are held to what is there now
    for label, raw in (("malformed JSON", b'{"title": "x", "steps": ['), ("not JSON", b"title=x"),
                       ("a JSON array", b"[]"), ("an empty body", b""), ("JSON null", b"null")):
        error_check(checks, f"POST {label}", call(site, "POST", path, raw, site.cy), 400)
        error_check(checks, f"PUT {label}", call(site, "PUT", f"{path}/{lesson['id']}", raw, site.cy), 400)
    now = read(site, lesson["id"], site.cy).json
    checks("the lesson is unchanged after the malformed PUTs", now == lesson, f"{short(lesson, 120)} → {short(now, 120)}")
