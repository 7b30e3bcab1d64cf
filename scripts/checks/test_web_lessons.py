"""Lessons (issue 34: Web/js/lessons.js, lesson-add-step.js, lesson-player.js and the lesson-*.js it uses), in headless Chromium at
phone size (390 × 844) on the web run's server (conftest.py's `web` fixture), driven as people use them.

A teacher registers through the page and makes a four-step lesson from Explore with "Add this view as
a step": 1AKE with A:10-50 highlighted (a new lesson, its title typed in the dialog), 1AKE turned in
ball and stick with a residue labelled, a second molecule of the starter library (GET /api/molecules)
coloured by chain, and that molecule turned and zoomed. Each time the page says "Added as step N of
<title>". In the editor (the status line's link) the teacher writes step 1's text (its live preview
shows the bold word) and a question with one right answer, makes step 3's question a poll (No right
answer), moves step 2 down and up again, and saves. The server's lesson (GET /api/lessons/{id}) then
holds the four steps in order, the two molecules, the highlight, the label, the text and both
questions, and each step's view is the address Explore showed when it was added.

A second browser with no account opens the lesson's link and steps through it with Next (and the
arrow keys): at each step the model the 3D view loaded has the same options as the one the
teacher's Explore loaded for that step (the URL's query, parameter by parameter), the camera (as
view-link.js's cameraOf reads it) is the step's `view=` within CAMERA_TOLERANCE on q, d (relative)
and t, View in AR offers that step's model (the USDZ link: the same options, target=ar), and the
step's text is shown as the markup says (a <strong>). The student answers step 1's question: the
page says Right, and the teacher's tally (GET /api/lessons/{id}/answers from the teacher's browser,
and the editor's Answers panel, refreshed every 2 s) counts it. Offline (DevTools' emulation, page
and service worker, as offline_checks.py does it) the student's page reloads and still shows the
lesson: its title, step 1's text and a model in the 3D view, and Next reaches step 3, whose poll,
answered offline, is kept in localStorage; back online it is sent, and the tally counts it.

The teacher's Lessons list shows the lesson, and Delete lesson (asked first) deletes it. Every
control of the editor and of the lesson is named and at least 44 px, nothing wider than the window;
no console errors in either browser; the CSP kept. --screenshots DIR keeps DIR/lesson-step.png (a
step with its text and question) and DIR/lesson-editor.png (the editor), copied to docs/ as
docs/lesson-step.png and docs/lesson-editor.png when DIR is docs."""
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from in_browser.offline_checks import offline
from proteinar_testing.aimed_taps import click, front_of_model
from proteinar_testing.browser import Browser, register_through_page
from proteinar_testing.explore_page import CONTROLS, SHOWN, check_controls

pytestmark = pytest.mark.browser

CAMERA_TOLERANCE = 1e-3   # the view link writes q and t to 4 decimals, d to 4 significant digits
TITLE = "Adenylate kinase closes"
ARROW_RIGHT, ARROW_LEFT = "\ue014", "\ue012"
PREFERRED_SECOND = ["1UBI", "5PTI", "1CRN", "4HHB"]

# The model Explore's view loaded last for molecule arguments[0] (not the coarse one, not AR's).
EXPLORE_MODEL = """const id = arguments[0];
const names = performance.getEntriesByType('resource').map((e) => e.name).filter((n) => {
  const u = new URL(n); return u.pathname === '/api/molecules/' + encodeURIComponent(id) + '/model.glb'
    && u.searchParams.get('compression') === 'meshopt' && !u.searchParams.has('max-triangles') && !u.searchParams.has('target'); });
return names.length ? names[names.length - 1] : null;"""
# A viewer's camera as view-link.js's cameraOf reads it: q its rotation, d its distance over the
# fitting one, t what it looks at from the model's middle in model radii.
CAMERA = """const v = arguments[0] === 'lesson' ? window.__proteinarLesson?.viewer : window.__proteinarExplore?.viewer;
if (!v?.model) return null; const o = v._orbit;
return { q: Array.from(o.rotation), d: o.distance / o.fitDistance(), t: [0, 1, 2].map((k) => (o.target[k] - o.center[k]) / o.radius) };"""
STEP_SHOWN = """const l = window.__proteinarLesson; const t = document.getElementById('lesson-step-title').textContent;
return l?.viewer?.model && l.player.stepIndex() === arguments[0] && l.model()
  && document.getElementById('status').textContent.startsWith('Step ' + (arguments[0] + 1) + ' of')
  && (!arguments[1] || !document.getElementById('lesson-question').hidden) && t;"""
ADDED = "const s = document.getElementById('status').textContent; return s.startsWith('Added as step') && s"
# [the lesson kept by the service worker, the model URLs of arguments[1] that its caches hold].
CACHED = """const done = arguments[arguments.length - 1];
(async () => {
  const lesson = Boolean(await caches.match('/api/lessons/' + arguments[0]));
  const held = [];
  for (const url of arguments[1]) if (await caches.match(url)) held.push(url);
  return [lesson, held];
})().then(done, (e) => done(String(e)));"""
ANSWERS = """const done = arguments[arguments.length - 1];
fetch('/api/lessons/' + arguments[0] + '/answers', { headers: { Accept: 'application/json' } })
  .then(async (r) => done([r.status, await r.json()]), (e) => done(String(e)));"""


def server_json(base, path):
    with urllib.request.urlopen(f"{base}{path}", timeout=60) as r:
        return json.loads(r.read())


def phone():
    b = Browser(width=390, height=844)
    b.phone_size()
    return b


def rebuilt(b, script, entry, *args):
    """Runs `script` (a change of Explore's model options) and waits for the new model."""
    b.js("window.__shown = window.__proteinarExplore.viewer.model")
    b.js(script, *args)
    return b.wait(SHOWN + " && window.__proteinarExplore.viewer.model !== window.__shown", 120, entry)


def turn(b, *keys):
    b.js("document.getElementById('viewer').focus()")
    b.keys(*keys)
    time.sleep(0.6)  # the address follows the view once it has been still 0.4 s


def add_step(b, new_title=None):
    """Add this view as a step: a new lesson titled `new_title`, else the lesson the dialog offers
    first (the one added to last). The status line's words."""
    time.sleep(0.6)  # the address follows the view once it has been still 0.4 s: the step is that address
    b.js("document.getElementById('add-to-lesson').scrollIntoView({ block: 'center' })")
    b.click("#add-to-lesson")
    b.wait("return document.getElementById('lesson-add-dialog').open && document.getElementById('lesson-add-choice').options.length", 30)
    if new_title:
        b.js("const c = document.getElementById('lesson-add-choice'); c.value = ''; c.dispatchEvent(new Event('change'))")
        b.type_into("#lesson-add-new-title", new_title)
    b.click("#lesson-add-go")
    return b.wait(ADDED + " && !document.getElementById('lesson-add-dialog').open && s", 30)




def query_of(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query, keep_blank_values=True)) if url else None


def camera_of_view(view):
    """The camera a step's view names (its view= text), or the first view's."""
    text = dict(urllib.parse.parse_qsl(view or "", keep_blank_values=True)).get("view")
    if not text:
        return {"q": [0, 0, 0, 1], "d": 1.0, "t": [0, 0, 0]}
    parts = {p[0]: [float(x) for x in p[1:].split(",")] for p in text.split(";")}
    n = sum(v * v for v in parts["q"]) ** 0.5
    return {"q": [v / n for v in parts["q"]], "d": parts["d"][0], "t": parts["t"]}


def camera_off(a, b):
    """The largest difference of two cameras: q and t absolute, d relative."""
    return max(max(abs(x - y) for x, y in zip(a["q"], b["q"])), abs(a["d"] - b["d"]) / b["d"],
               max(abs(x - y) for x, y in zip(a["t"], b["t"])))


def shot(b, shots, name, scroll_to):
    if not shots:
        return
    os.makedirs(shots, exist_ok=True)
    b.js("document.activeElement?.blur(); document.querySelector(arguments[0]).scrollIntoView({ block: 'start' }); window.scrollBy(0, -60)", scroll_to)
    time.sleep(0.8)
    b.screenshot(os.path.join(shots, name))


def test_a_teacher_makes_a_lesson_in_the_page_and_a_student_follows_it_online_and_offline(web, checks, shots):
    check = checks.check
    base = web.base
    teacher = phone()
    student = None
    try:
        # ---- The teacher: four steps added from Explore ----
        check("the teacher registers through the page and lands on 1AKE in Explore",
              bool(register_through_page(teacher, base, "Teacher", back="#/explore/1AKE")) and bool(teacher.wait(SHOWN, 120, "1AKE")))
        shown = rebuilt(teacher, "const h = document.getElementById('highlight'); h.value = 'A:10-50'; h.dispatchEvent(new Event('change'))", "1AKE")
        check("A:10-50 highlighted", bool(shown))
        check("signed in, Explore offers Add this view as a step",
              teacher.js("const b = document.getElementById('add-to-lesson'); return !b.hidden && b.offsetParent !== null"))
        models, views, molecules = [], [], []

        def added(n, said):
            models.append(teacher.js(EXPLORE_MODEL, molecules[-1]))
            views.append(teacher.js("return location.hash"))
            check(f"step {n} added: the page says “Added as step {n} of {TITLE}.”", said == f"Added as step {n} of {TITLE}. Edit the lesson", str(said))

        molecules.append("1AKE")
        said = add_step(teacher, TITLE)
        added(1, said)

        # Step 2: ball and stick, turned, a residue labelled.
        rebuilt(teacher, "const s = document.getElementById('style'); s.value = 'ball-and-stick'; s.dispatchEvent(new Event('change'))", "1AKE")
        turn(teacher, ARROW_RIGHT, ARROW_RIGHT, ARROW_RIGHT)
        label = None
        for attempt in range(6):
            time.sleep(0.5)
            x, y, atom, _, _ = front_of_model(teacher)
            click(teacher, x, y)
            name = teacher.wait("const c = document.getElementById('identify-card'); return !c.hidden && c.dataset.atom === arguments[0]"
                                " && document.getElementById('identify-residue').textContent", 10, str(atom))
            if name:
                teacher.press("#identify-label")
                if teacher.wait("return document.querySelectorAll('#explore-labels .note-pin').length === 1", 5):
                    label = name
                    break
            turn(teacher, ARROW_RIGHT)
        teacher.js("if (!document.getElementById('identify-card').hidden) document.getElementById('identify-close').click()")
        check("a residue of 1AKE labelled", bool(label), str(label))
        labelled = teacher.wait("const m = /[?&]labels=([^&]+)/.exec(location.hash); return m && decodeURIComponent(m[1])", 10)
        added(2, add_step(teacher))  # the dialog offers the lesson added to last: "Added as step 2 of" it

        # Steps 3 and 4: another molecule of the starter library.
        library = [m["id"] for m in server_json(base, "/api/molecules")["molecules"]]
        second = next((m for m in PREFERRED_SECOND if m in library), next(m for m in library if m != "1AKE"))
        molecules.append(second)
        teacher.js("location.hash = arguments[0]", f"#/explore/{second}")
        check(f"{second} (of the starter library) opens in Explore", bool(teacher.wait(SHOWN, 120, second)))
        rebuilt(teacher, "const s = document.getElementById('color'); s.value = 'chain'; s.dispatchEvent(new Event('change'))", second)
        time.sleep(0.6)
        added(3, add_step(teacher))
        turn(teacher, ARROW_LEFT, ARROW_LEFT, "+", "+")
        added(4, add_step(teacher))

        # ---- The editor: text, a question, a poll, Move down and up, Save ----
        teacher.press("#lesson-added-link")
        lesson_id = teacher.wait("const m = /^#\\/lessons\\/([^?]+)/.exec(location.hash); return m && !document.getElementById('lesson-editor').hidden"
                                 " && document.querySelectorAll('#lesson-steps > li').length === 4 && decodeURIComponent(m[1])", 30)
        check("Edit the lesson opens the editor with its four steps", bool(lesson_id), teacher.js("return location.hash"))
        assert lesson_id, "no editor"
        summaries = teacher.js("return [...document.querySelectorAll('#lesson-steps summary')].map((s) => s.textContent)")
        check("each step names its molecule and its view in words",
              len(summaries) == 4 and "1AKE" in summaries[0] and "A:10-50 highlighted" in summaries[0] and f"label {labelled}" in summaries[1]
              and second in summaries[2] and "turned and zoomed" in summaries[3], str(summaries))
        ids = teacher.js("return [...document.querySelectorAll('#lesson-steps > li')].map((li) => li.dataset.step)")
        teacher.js("document.querySelector('#lesson-steps > li:nth-child(2) summary').click()")
        teacher.press("#lesson-steps > li:nth-child(2) .lesson-down")
        moved = teacher.js("return [...document.querySelectorAll('#lesson-steps > li')].map((li) => li.dataset.step)")
        focused = teacher.js("return document.activeElement?.getAttribute('aria-label')")
        teacher.press("#lesson-steps > li:nth-child(3) .lesson-up")
        back = teacher.js("return [...document.querySelectorAll('#lesson-steps > li')].map((li) => li.dataset.step)")
        check("Move down and Move up reorder the steps (the cursor stays on the moved step's button)",
              moved == [ids[0], ids[2], ids[1], ids[3]] and back == ids and focused == "Move step 3 down", f"{moved} {back} {focused!r}")

        teacher.js("document.querySelector('#lesson-steps > li:nth-child(1) summary').click()")
        text = "First the whole enzyme.\n\nIts **lid** closes over *AP5A*. See [RCSB](https://www.rcsb.org/structure/1AKE)."
        teacher.type_into("#lesson-step-1-text", text)
        preview = teacher.wait("const p = document.getElementById('lesson-step-1-preview'); return p.querySelector('strong')?.textContent === 'lid'"
                               " && [p.children.length, p.querySelector('em')?.textContent, p.querySelector('a')?.href]", 5)
        check("the preview shows the text as the lesson will: two paragraphs, bold, italic, the link",
              preview == [2, "AP5A", "https://www.rcsb.org/structure/1AKE"], str(preview))
        teacher.press("#lesson-step-1-ask")
        teacher.type_into("#lesson-step-1-prompt", "Which domain moves most?")
        for k, choice in enumerate(["LID", "CORE"]):
            teacher.type_into(f"#lesson-steps > li:nth-child(1) .lesson-choices-editor li:nth-child({k + 1}) .lesson-choice-text", choice)
        teacher.press("#lesson-steps > li:nth-child(1) .lesson-add-choice")
        teacher.type_into("#lesson-steps > li:nth-child(1) .lesson-choices-editor li:nth-child(3) .lesson-choice-text", "NMP")
        right = teacher.js("return document.querySelector('#lesson-steps > li:nth-child(1) .lesson-right[value=\"0\"]').checked")
        check("a new question marks its first choice right", right)
        teacher.js("document.querySelector('#lesson-steps > li:nth-child(3) summary').click()")
        teacher.press("#lesson-step-3-ask")
        teacher.type_into("#lesson-step-3-prompt", "Which did you find easier to read?")
        for k, choice in enumerate(["Cartoon", "Chain colours"]):
            teacher.type_into(f"#lesson-steps > li:nth-child(3) .lesson-choices-editor li:nth-child({k + 1}) .lesson-choice-text", choice)
        teacher.press("#lesson-steps > li:nth-child(3) .lesson-right-none")
        check("unsaved changes are said", teacher.js("return document.getElementById('lesson-dirty').textContent") == "Unsaved changes")
        controls = teacher.js(CONTROLS, "#view-lessons button, #view-lessons input:not([type=radio]):not([type=checkbox]), #view-lessons label.check,"
                                        " #view-lessons select, #view-lessons textarea, #view-lessons summary, #view-lessons a:not(.lesson-text a)")
        check_controls(teacher, check, "the editor", controls)
        teacher.press("#lesson-save")
        saved = teacher.wait("const s = document.getElementById('status').textContent; return s.startsWith('Saved') && s", 30)
        check("Save says so", saved == f"Saved “{TITLE}”: 4 steps.", str(saved))

        lesson = server_json(base, f"/api/lessons/{lesson_id}")
        steps = lesson["steps"]
        print("lesson:", json.dumps(lesson)[:1500])
        check("the server's lesson: its title and four steps, in the order added, each step's view the address Explore showed",
              lesson["title"] == TITLE and [s["id"] for s in steps] == ids
              and [f"#/explore/{s['molecule']}" + (f"?{s['view']}" if s["view"] else "") for s in steps] == views, f"{views}")
        check("two molecules: 1AKE for steps 1 and 2, the second for 3 and 4",
              [s["molecule"] for s in steps] == ["1AKE", "1AKE", second, second], str([s["molecule"] for s in steps]))
        view1 = dict(urllib.parse.parse_qsl(steps[0]["view"]))
        view2 = dict(urllib.parse.parse_qsl(steps[1]["view"]))
        view3 = dict(urllib.parse.parse_qsl(steps[2]["view"]))
        check("step 1 holds the highlight, step 2 ball and stick and the label, step 3 the chain colours",
              view1.get("highlight") == "A:10-50" and view2.get("style") == "ball-and-stick" and view2.get("labels") == labelled
              and view3.get("color") == "chain", f"{view1} {view2} {view3}")
        check("step 1's text and question (LID right), step 3's poll (no right answer), no others",
              steps[0]["text"] == text and steps[0]["question"] == {"prompt": "Which domain moves most?", "choices": ["LID", "CORE", "NMP"], "answer": 0}
              and steps[2]["question"] == {"prompt": "Which did you find easier to read?", "choices": ["Cartoon", "Chain colours"], "answer": None}
              and steps[1]["question"] is None and steps[3]["question"] is None, json.dumps([s["question"] for s in steps]))
        share = teacher.wait("const q = document.getElementById('lesson-share-qr'); return !q.hidden && q.width > 0 && document.getElementById('lesson-share-link').value", 20)
        check("the editor shows the lesson's link (at the address a phone reaches) with its QR code", bool(share) and share.endswith(f"/#/lesson/{lesson_id}"), str(share))
        teacher.js("document.getElementById('status').textContent = ''")
        teacher.press("#lesson-share-copy")
        copied = teacher.wait("const t = document.getElementById('status').textContent; return t && t", 10)
        check("Copy link copies the lesson's link, or selects it for the person to copy, and says which",
              copied in ("Link copied: it opens the lesson.", "Select the link and copy it."), str(copied))
        shot(teacher, shots, "lesson-editor.png", "#lesson-steps")

        # ---- A student, no account: the lesson's link, step by step ----
        student = phone()
        student.go(f"{base}/#/lesson/{lesson_id}")
        first = student.wait(STEP_SHOWN, 120, 0)
        check("the lesson's link opens its first step for someone with no account", first == "Step 1 of 4", str(first))
        check("without an account, Explore offers no Add this view as a step", student.js("return document.getElementById('add-to-lesson').hidden"))
        check("its title, author and step text, as the markup says",
              student.js("return [document.getElementById('lesson-title').textContent, document.getElementById('lesson-by').textContent,"
                         " document.querySelector('#lesson-step-text strong')?.textContent, document.querySelectorAll('#lesson-step-text p').length,"
                         " document.getElementById('lesson-step').getAttribute('aria-live')]")
              == [TITLE, "By Teacher · 4 steps", "lid", 2, "polite"])
        for i in range(4):
            if i:
                student.press("#lesson-next")
                student.wait(STEP_SHOWN, 120, i)
                time.sleep(0.6)  # a glide between two views of one model takes 0.4 s
            url = student.js("return window.__proteinarLesson.model()")
            camera = student.js(CAMERA, "lesson")
            want = camera_of_view(steps[i]["view"])
            off = camera_off(camera, want) if camera else None
            check(f"step {i + 1}: the model the view loaded has the teacher's options ({steps[i]['molecule']})",
                  bool(url) and query_of(url) == query_of(models[i]) and urllib.parse.urlsplit(url).path == urllib.parse.urlsplit(models[i]).path,
                  f"{url} vs {models[i]}")
            check(f"step {i + 1}: the camera is the step's view within {CAMERA_TOLERANCE}", off is not None and off <= CAMERA_TOLERANCE,
                  f"{camera} vs {want}: off by {off}")
            usdz = student.js("const a = [...document.querySelectorAll('#lesson-ar-slot a')].find((a) => a.href.includes('.usdz')); return a && a.href")
            ar = query_of(usdz) or {}
            check(f"step {i + 1}: View in AR offers the step's model (the same options, target=ar)",
                  bool(student.js("return document.getElementById('lesson-ar-button') !== null")) and ar.pop("target", None) == "ar"
                  and ar == {k: v for k, v in query_of(models[i]).items() if k != "compression"}, str(usdz))
            if i == 1:
                pins = student.wait("return [...document.querySelectorAll('#lesson-labels .note-pin')].map((p) => p.textContent)", 10)
                check("step 2 shows its label", bool(pins) and len(pins) == 1, str(pins))
        check("Next stops at the last step", student.js("return document.getElementById('lesson-next').disabled"))
        student.js("document.activeElement?.blur()")
        student.keys(ARROW_LEFT)
        left = student.wait(STEP_SHOWN, 60, 2)
        student.keys(ARROW_RIGHT)
        right_key = student.wait(STEP_SHOWN, 60, 3)
        check("the left and right arrow keys step back and on", bool(left and right_key), f"{left} {right_key}")

        # Step 1's question: the right answer, counted in the teacher's tally.
        student.keys(ARROW_LEFT, ARROW_LEFT, ARROW_LEFT)
        student.wait(STEP_SHOWN, 60, 0)
        student.press("#lesson-choice-0")
        student.press("#lesson-answer")
        verdict = student.wait("const s = document.getElementById('lesson-answer-said'); return s.classList.contains('right') && s.textContent", 20)
        check("the right answer: the page says so", verdict == "Right! LID is the answer.", str(verdict))
        shot(student, shots, "lesson-step.png", "#lesson-title")
        tally = teacher.js_async(ANSWERS, lesson_id)
        q1 = next((q for q in tally[1]["questions"] if q["step"] == ids[0]), None) if isinstance(tally, list) else None
        check("the teacher's tally (GET /api/lessons/{id}/answers) counts the student's answer, a guest unnamed",
              tally[0] == 200 and q1 and q1["counts"] == [1, 0, 0] and q1["total"] == 1 and q1["named"] == [], str(tally))
        panel = teacher.wait("const p = document.querySelector(`.lesson-tally[data-step='${arguments[0]}']`); return p?.dataset.total === '1' && p.textContent", 10, ids[0])
        check("the editor's Answers panel shows it within a few seconds", bool(panel) and "LID: 1" in panel, str(panel))

        # ---- Offline: the lesson opens again, and an answer waits for the network ----
        # Links within the step's sentences are exempt from the size of a tap target (WCAG 2.5.8), as in running text.
        controls = student.js(CONTROLS, "#view-lesson button, #view-lesson label.check, #view-lesson summary, #view-lesson a:not(.lesson-text a)")
        check_controls(student, check, "the lesson", controls)
        errors = [e["message"][:300] for e in student.console() if e.get("level") == "SEVERE"]
        check("no console errors for the student online", not errors, str(errors))
        wanted = [student.js("return new URL(arguments[0], location.href).href", m) for m in models]
        cached = None
        for _ in range(150):
            cached = student.js_async(CACHED, lesson_id, wanted)
            if isinstance(cached, list) and cached[0] and len(cached[1]) == len(wanted):
                break
            time.sleep(0.2)
        check("the service worker keeps the lesson and every step's model", isinstance(cached, list) and cached[0] and len(cached[1]) == len(wanted), str(cached))
        offline(student, True)
        student.go(f"{base}/?offline#/lesson/{lesson_id}")
        again = student.wait(STEP_SHOWN, 60, 0)
        words = student.js("return [document.getElementById('lesson-title').textContent, document.querySelector('#lesson-step-text strong')?.textContent]")
        check("offline, a reload shows the lesson: its title, step 1's text and its model", bool(again) and words == [TITLE, "lid"], f"{again} {words}")
        student.press("#lesson-next")
        second_step = student.wait(STEP_SHOWN, 60, 1)
        student.press("#lesson-next")
        third = student.wait(STEP_SHOWN, 60, 2, "with its question")
        check("offline, Next reaches steps 2 and 3 with their models, and step 3's poll", bool(second_step and third),
              f"{second_step} {third} " + str(student.js("return [document.getElementById('status').textContent, window.__proteinarLesson.player.stepIndex(), window.__proteinarLesson.model()]")))
        student.press("#lesson-choice-1")
        student.press("#lesson-answer")
        kept = student.wait("const s = document.getElementById('lesson-answer-said').textContent; return s.includes('You are offline') && s", 20)
        queued = student.js("return JSON.parse(localStorage.getItem('proteinar-lesson-answers') ?? '[]')")
        check("an answer given offline is kept on this device, and the page says so",
              bool(kept) and len(queued) == 1 and queued[0]["step"] == ids[2] and queued[0]["choice"] == 1, f"{kept!r} {queued}")
        offline(student, False)
        sent = student.wait("return localStorage.getItem('proteinar-lesson-answers') === null && document.getElementById('lesson-answer-said').textContent", 30)
        check("back online, the kept answer is sent", bool(sent) and "Your answer was sent." in sent, str(sent))
        tally = teacher.js_async(ANSWERS, lesson_id)
        q3 = next((q for q in tally[1]["questions"] if q["step"] == ids[2]), None) if isinstance(tally, list) else None
        check("the teacher's tally counts the answer given offline", bool(q3) and q3["counts"] == [0, 1] and q3["total"] == 1, str(tally))
        panel = teacher.wait("const p = document.querySelector(`.lesson-tally[data-step='${arguments[0]}']`); return p?.dataset.total === '1' && p.textContent", 10, ids[2])
        check("and so does the editor's Answers panel", bool(panel) and "Chain colours: 1" in panel, str(panel))

        # ---- The teacher's list, and Delete lesson (asked first) ----
        teacher.js("location.hash = '#/lessons'")
        listed = teacher.wait("const li = document.querySelector(`#lessons-list li[data-lesson='${arguments[0]}']`); return li && li.textContent", 20, lesson_id)
        check("Lessons lists the teacher's lesson with its four steps", bool(listed) and TITLE in listed and "4 steps" in listed, str(listed))
        teacher.js("location.hash = arguments[0]", f"#/lessons/{lesson_id}")
        teacher.wait("return !document.getElementById('lesson-editor').hidden && document.querySelectorAll('#lesson-steps > li').length === 4", 20)
        teacher.press("#lesson-delete")
        asked = teacher.wait("return document.getElementById('lesson-delete-dialog').open && document.getElementById('lesson-delete-name').textContent", 5)
        teacher.press("#lesson-delete-confirm")
        gone = teacher.wait("const s = document.getElementById('status').textContent; return location.hash === '#/lessons' && s.startsWith('Deleted') && s", 20)
        try:
            server_json(base, f"/api/lessons/{lesson_id}")
            after = 200
        except urllib.error.HTTPError as e:
            after = e.code
        check("Delete lesson asks first, then deletes it (GET answers 404)", asked == f"“{TITLE}”" and bool(gone) and after == 404, f"{asked!r} {gone!r} {after}")

        # Offline, what was never kept fails to load (the session, the AR model's size): only that.
        errors = [e["message"][:300] for e in student.console() if e.get("level") == "SEVERE"
                  and "ERR_INTERNET_DISCONNECTED" not in e["message"] and "status of 503" not in e["message"]]
        check("offline, no console errors for the student but requests the network refused", not errors, str(errors))
        errors = [e["message"][:300] for e in teacher.console() if e.get("level") == "SEVERE"]
        check("no console errors for the teacher", not errors, str(errors))
        for who, b in (("the teacher", teacher), ("the student", student)):
            csp = b.csp_violations()
            check(f"no Content-Security-Policy messages for {who}", not csp, str(csp[:3]))
            web.keep_csp(b)
    finally:
        teacher.close()
        if student:
            student.close()
