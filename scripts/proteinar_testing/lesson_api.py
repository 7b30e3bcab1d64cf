"""Lessons over HTTP for the checks (test_lessons.py, test_lesson_answers.py): one server with its
people (its first account, Root, the administrator), requests as an account, a guest or nobody, a
lesson's parts, and the API's error bodies held to the field they name."""

import pytest

from .accounts import Account, rid
from .http_client import http
from .report import short
from .server import ServerProcess

VIEW = "style=ball-and-stick&highlight=A:10-50&view=q0.12,0.3,0.1,0.94;d0.8;t0.01,0.12,0&labels=A:13"


class Site:
    """A `proteinar serve` (SQLite, no starter molecules) and its accounts: root (the administrator), ada, ben, cy."""
    server = None
    root = ada = ben = cy = None


def serve(proteinar_bin, name):
    """The site, for a module's fixture (yield from it): the server closes after."""
    s = Site()
    s.server = ServerProcess(proteinar_bin, starter=False, name=name)
    try:
        s.root = Account(s.server, "Root")  # the first account: the administrator
        s.ada, s.ben, s.cy = (Account(s.server, n) for n in ("Ada", "Ben", "Cy"))
        yield s
    finally:
        s.server.close()


def guest_key():
    return "guest-" + rid("") + rid("")


def call(site, method, path, body=None, who=None, **kw):
    """A request as `who`: an Account (its bearer token), a string (a guest key) or None (nobody)."""
    if isinstance(who, Account):
        kw["token"] = who.token
    elif isinstance(who, str):
        kw["guest"] = who
    return http(site.server, method, path, body, **kw)


def step(molecule="1AKE", view=VIEW, text="A step.", question=None, **more):
    return {"molecule": molecule, "view": view, "text": text, "question": question, **more}


def question(prompt="Which domain moves most?", choices=("LID", "CORE", "NMP"), answer=0):
    return {"prompt": prompt, "choices": list(choices), "answer": answer}


def make(site, who, title="A lesson", steps=(), what="make a lesson"):
    r = call(site, "POST", "/api/lessons", {"title": title, "steps": list(steps)}, who)
    if r.status != 201 or not isinstance(r.json, dict):
        pytest.fail(f"{what}: expected HTTP 201 and a lesson, got {r!r}", pytrace=False)
    return r.json


def read(site, lesson_id, who=None):
    return call(site, "GET", f"/api/lessons/{lesson_id}", None, who)


def is_error(r, status):
    """HTTP `status` with the API's error body: {"error": words, "status": N}."""
    j = r.json if isinstance(r.json, dict) else {}
    return r.status == status and isinstance(j.get("error"), str) and len(j["error"]) >= 5 and j.get("status") == status


def error_check(checks, name, r, status, field=None):
    """`r` is HTTP `status` with an error body whose words name `field` (as the contract writes
    a field: title, steps[1].question.choices[0])."""
    ok = is_error(r, status)
    said = (r.json or {}).get("error", "") if isinstance(r.json, dict) else ""
    if ok and field is not None:
        ok = field in said
    detail = f"expected HTTP {status}" + (f" naming {field!r}" if field else "") + f", got {r!r}"
    checks(name + (f" → {r.status} {said[:90]!r}" if ok else ""), ok, detail)
    return ok


def content(step_):
    """A step without its id: what a client sent."""
    return {k: step_.get(k) for k in ("molecule", "view", "text", "question")}


def unchanged(checks, site, name, before):
    """The lesson read back equals `before` (the owner's read), updatedAt included."""
    after = read(site, before["id"], site.ada)
    checks(f"{name}: the lesson read back is unchanged", after.status == 200 and after.json == before,
           f"before {short(before, 200)}; after {after!r}")
