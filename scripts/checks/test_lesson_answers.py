"""Answers to a lesson's questions (issue 34) over HTTP, against a real `proteinar serve` (SQLite):
from guests (by key) and signed-in students, a second answer replacing the first, every refusal
(no key, a bad key, an unknown step or lesson, a choice out of range, a step without a question),
and the owner's tally, which names only those who answered signed in; answers stay with their step
when the steps are reordered. Lessons themselves are in test_lessons.py."""
import json

import pytest

from proteinar_testing.lesson_api import call, error_check, guest_key, is_error, make, question, serve, step
from proteinar_testing.report import short


@pytest.fixture(scope="module")
def site(proteinar_bin):
    yield from serve(proteinar_bin, "lesson-answers")


def test_answers_from_guests_and_students_replace_and_the_owner_tallies_them_naming_only_students(site, checks):
    lesson = make(site, site.ada, "Quiz", [
        step(text="Which domain?", question=question(answer=1)),                          # 0: LID, CORE, NMP; CORE right
        step(text="No question here"),                                                   # 1
        step(text="An opinion", question=question("Pretty?", ("yes", "no"), None))])     # 2: no right answer
    s0, s1, s2 = (s["id"] for s in lesson["steps"])
    path = f"/api/lessons/{lesson['id']}/answers"
    g1, g2 = guest_key(), guest_key()

    def answer(who, step_id, choice, want, label):
        r = call(site, "POST", path, {"step": step_id, "choice": choice}, who)
        body = r.json if isinstance(r.json, dict) else {}
        ok = r.status in (200, 201) and body == {"step": step_id, "choice": choice, "correct": want}
        checks(f"{label} → {r.status} correct {json.dumps(want)}", ok, f"expected 200/201 {{step, choice: {choice}, correct: {json.dumps(want)}}}, got {r!r}")

    answer(g1, s0, 1, True, "guest 1 answers CORE (right)")
    answer(g2, s0, 0, False, "guest 2 answers LID (wrong)")
    answer(g2, s0, 2, False, "guest 2 answers again, NMP (replaces its first)")
    answer(site.cy, s0, 0, False, "Cy (signed in) answers LID")
    answer(site.cy, s0, 1, True, "Cy answers again, CORE (replaces)")
    answer(site.ben, s2, 1, None, "Ben answers a question without a right answer")
    answer(g1, s2, 0, None, "guest 1 answers it too")

    # Refused answers (each changes nothing: the tally below counts exactly the ones above).
    error_check(checks, "an answer with neither an account nor a guest key", call(site, "POST", path, {"step": s0, "choice": 0}), 400)
    r = call(site, "POST", path, {"step": s0, "choice": 0}, "short")
    checks(f"an answer with a malformed guest key (5 characters) → 400 or 401 ({r.status})", is_error(r, 400) or is_error(r, 401), repr(r))
    error_check(checks, "an answer to an unknown step", call(site, "POST", path, {"step": "s" + "0" * 16, "choice": 0}, g1), 404)
    error_check(checks, "an answer to an unknown lesson",
                call(site, "POST", f"/api/lessons/l{'0' * 20}/answers", {"step": s0, "choice": 0}, g1), 404)
    for label, choice in (("−1", -1), ("3 of 3 choices", 3), ("99", 99), ("a string", "1"), ("null", None)):
        error_check(checks, f"a choice out of range ({label})", call(site, "POST", path, {"step": s0, "choice": choice}, g1), 400)
    error_check(checks, "an answer to a step without a question", call(site, "POST", path, {"step": s1, "choice": 0}, g1), 400)
    error_check(checks, "an answer without a step", call(site, "POST", path, {"choice": 0}, g1), 400)
    error_check(checks, "malformed JSON", call(site, "POST", path, b'{"step": ', g1), 400)

    def tally(who=site.ada):
        return call(site, "GET", path, None, who)

    t = tally()
    questions = (t.json or {}).get("questions") if isinstance(t.json, dict) else None
    checks("GET answers by the owner → 200 {questions}", t.status == 200 and isinstance(questions, list), repr(t))
    want = [
        {"step": s0, "index": 0, "prompt": "Which domain moves most?", "choices": ["LID", "CORE", "NMP"], "answer": 1,
         "counts": [0, 2, 1], "total": 3, "named": [{"name": "Cy", "choice": 1}]},
        {"step": s2, "index": 2, "prompt": "Pretty?", "choices": ["yes", "no"], "answer": None,
         "counts": [1, 1], "total": 2, "named": [{"name": "Ben", "choice": 1}]}]
    by_index = sorted(questions or [], key=lambda q_: q_.get("index", 0) if isinstance(q_, dict) else 0)
    checks("the tally: one entry per question, counts and totals with each person's last answer, "
           "only signed-in answerers named", by_index == want, f"expected {short(want, 400)}, got {short(questions, 400)}")

    error_check(checks, "the tally asked by another account", tally(site.ben), 403)
    error_check(checks, "the tally asked by Cy, who answered", tally(site.cy), 403)
    r = tally(None)
    checks(f"the tally asked signed out → 401 or 403 ({r.status})", is_error(r, 401) or is_error(r, 403), repr(r))
    r = tally(g1)
    checks(f"the tally asked by a guest → 401 or 403 ({r.status})", is_error(r, 401) or is_error(r, 403), repr(r))
    error_check(checks, "the tally of an unknown lesson", call(site, "GET", f"/api/lessons/l{'0' * 20}/answers", None, site.ada), 404)

    # Answers stay with their step through a reordering (the ids are kept).
    steps = lesson["steps"]
    p = call(site, "PUT", f"/api/lessons/{lesson['id']}", {"title": "Quiz", "steps": [steps[2], steps[1], steps[0]]}, site.ada)
    checks("reorder the quiz's steps → 200", p.status == 200, repr(p))
    after = sorted((tally().json or {}).get("questions") or [], key=lambda q_: q_.get("index", 0))
    moved = [{**want[1], "index": 0}, {**want[0], "index": 2}]
    checks("after reordering, each question's answers stay with it, at its new index", after == moved,
           f"expected {short(moved, 300)}, got {short(after, 300)}")
