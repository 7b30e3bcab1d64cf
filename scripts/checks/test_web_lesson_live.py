"""Following a lesson live (issue 34, point 3; Web/js/lesson-live.js, lesson-present.js, lesson-follow.js) in headless Chromium at phone
size (390 × 844) against a real `proteinar serve`: a teacher, a follower who joins at once and one
who joins late.

The teacher (an account made through the API, signed in through the page) owns a lesson of three
steps made through the API: 1AKE as it opens, 1AKE in ball and stick with A:10-50 highlighted from
another side, and 5PTI from above with a question. On its lesson page the teacher presses Present
live: the presenting panel shows the class link `#/lesson/{id}?room={room}` (at the address a phone
reaches, the server's --public-url) and a QR code that ZXing-C++ reads back as that link. A
follower with no account (a guest) opens the class link and lands on the teacher's step; the
teacher goes Next and the follower shows that step: the same model request (the step's model
options) and the camera within CAMERA_TOLERANCE of the teacher's; the teacher turns the view with
the arrow keys on the 3D view and the follower's camera follows within the tolerance; the follower
drags its own view: "Back to the teacher" appears, and one click on it returns the camera to the
teacher's. In AR (navigator.xr stubbed as test_web.py's Android checks do: browser.XR_STUB) the
follower places the model on the table; the teacher goes Next (another molecule): the follower's
model changes while it stands where it was placed (the same point of the table, the same size on
it, xr.js's placement kept). A follower who joins late lands on the teacher's step and camera (from
the welcome's snapshot, the teacher having turned the view there); the teacher sees "2 following"
(the room's presence). The teacher's answers tally shows a follower's answer within seconds. A
follower whose connection drops (its sockets closed and refused a while) says so and, once back,
resumes with `after=N` and shows the step the teacher went to meanwhile. Stop
presenting: each follower says the teacher has stopped. Every control of the presenting panel and
the follower's bar is named.

--screenshots DIR keeps lesson-live-teacher.png (the presenting panel: class link, QR code, count,
answers), lesson-live-teacher-top.png, lesson-live-follower.png (the late joiner following step 3),
lesson-live-follower-step-2.png and lesson-live-follower-looking-around.png (Back to the teacher on
the 3D view)."""
import math
import os
import tempfile
import time

import pytest

from in_browser.rooms_page import UNNAMED
from proteinar_testing.accounts import Account
from proteinar_testing.browser import XR_STUB, Browser, register_through_page
from proteinar_testing.http_client import http, want
from proteinar_testing.qr_codes import decode_qr

pytestmark = pytest.mark.browser

PHONE_URL = "http://192.0.2.10:8080"   # TEST-NET-1: the address phones reach the server at (--public-url)
# Two cameras are the same within: 0.5° of rotation, 1 % of distance, 0.01 model radii of target.
CAMERA_TOLERANCE = {"degrees": 0.5, "distance": 0.01, "target": 0.01}

STEPS = [
    {"molecule": "1AKE", "view": "", "text": "Adenylate kinase as it opens: the **whole enzyme**."},
    {"molecule": "1AKE", "view": "style=ball-and-stick&highlight=A:10-50&view=q0.2,0.35,0.05,0.914;d0.9;t0.02,0.05,0",
     "text": "The *lid* domain, highlighted."},
    {"molecule": "5PTI", "view": "view=q0.7071,0,0,0.7071;d1.1;t0,0,0", "text": "A small protein from above.",
     "question": {"prompt": "How many chains does 5PTI have?", "choices": ["One", "Two"], "answer": 0}},
]

# What a lesson page shows: its step (once that step's model is in the view), camera, model request
# (the step's model options, as View in AR's links carry them) and the live module's words.
SHOWN = """const L = window.__proteinarLesson; if (!L?.viewer?.model) return null;
const s = L.player.subject(), $ = (id) => document.getElementById(id);
return { step: L.player.stepIndex(), camera: L.player.cameraText(), model: s && s.usdz, triangles: L.viewer.triangleCount,
  note: $('lesson-live-note')?.textContent ?? '', following: $('lesson-live-count')?.textContent ?? '',
  said: $('lesson-follow-said')?.textContent ?? '', back: !!$('lesson-follow-back') && !$('lesson-follow-back').hidden };"""
# The XR frames' placement of the model (what xr.js hands the viewer each frame), kept by a spy.
SPY_XR = """const v = window.__proteinarLesson.viewer; if (v.__spied) return true; v.__spied = true; const draw = v.drawXR.bind(v);
v.drawXR = (fb, views, placement, overlays) => { if (placement) window.__placed = { m: Array.from(placement), model: v.model, bounds: v.bounds }; return draw(fb, views, placement, overlays); };
return true;"""
# The page's WebSockets, kept (window.__sockets), and refused while window.__blockSockets is set: a
# dropped connection that cannot come back at once.
SOCKETS = """(() => { const Real = window.WebSocket; window.__sockets = [];
  window.WebSocket = class extends Real { constructor(url, protocols) {
    if (window.__blockSockets) throw new Error('refused by the check'); super(url, protocols); window.__sockets.push(this); } };
})();"""
# Where the placed model's centre stands (metres, the session's space), and its radius there.
PLACED = """const p = window.__placed; if (!p) return null; const m = p.m, c = p.bounds.center;
const at = [0, 1, 2].map((i) => m[i] * c[0] + m[4 + i] * c[1] + m[8 + i] * c[2] + m[12 + i]);
return { at, size: Math.hypot(m[0], m[1], m[2]) * p.bounds.radius, same: p.model === window.__placedModel,
  triangles: window.__proteinarLesson.viewer.triangleCount, overlay: { ...document.getElementById('ar-overlay').dataset } };"""


def read_camera(text):
    parts = {p[0]: [float(x) for x in p[1:].split(",")] for p in (text or "").split(";") if p}
    return parts.get("q"), (parts.get("d") or [None])[0], parts.get("t")


def camera_gap(a, b):
    """How far camera `a` is from `b` (view= texts): {degrees, distance (relative), target (radii)}."""
    qa, da, ta = read_camera(a)
    qb, db, tb = read_camera(b)
    if not (qa and qb and da and db and ta and tb):
        return {"degrees": 999, "distance": 999, "target": 999}
    dot = abs(sum(x * y for x, y in zip(qa, qb))) / (math.hypot(*qa) * math.hypot(*qb))
    return {"degrees": math.degrees(2 * math.acos(min(1.0, dot))), "distance": abs(math.log(da / db)),
            "target": max(abs(x - y) for x, y in zip(ta, tb))}


def close(a, b):
    gap = camera_gap(a, b)
    return all(gap[k] <= CAMERA_TOLERANCE[k] for k in gap)


def phone(xr=False):
    b = Browser(width=390, height=844)
    b.phone_size()
    if xr:
        b.before_each_page(XR_STUB.replace("getElementById('viewer')", "getElementById('lesson-viewer')"))
    return b


def shown(b):
    try:
        return b.js(SHOWN) or {}
    except Exception:  # noqa: BLE001 — a page mid-navigation
        return {}


def wait_for(b, predicate, timeout=60):
    """Polls the page's SHOWN until predicate(it) holds; the last one seen either way."""
    end = time.time() + timeout
    last = {}
    while time.time() < end:
        last = shown(b)
        if last and predicate(last):
            return True, last
        time.sleep(0.2)
    return False, last


def follows(b, teacher, timeout=60):
    """Waits until page `b` shows the teacher's step, model request and camera (within tolerance),
    the teacher's read again each time; (whether it did, b's, the teacher's)."""
    end = time.time() + timeout
    s = t = {}
    while time.time() < end:
        t, s = shown(teacher), shown(b)
        if t and s and s.get("step") == t.get("step") and s.get("model") == t.get("model") and close(s.get("camera"), t.get("camera")):
            return True, s, t
        time.sleep(0.2)
    return False, s, t


def drag(b, css, dx, dy):
    """A mouse drag on the element from its middle, by (dx, dy) CSS pixels, in small moves."""
    element = b.find(css)
    moves = [{"type": "pointerMove", "duration": 50, "origin": "pointer", "x": dx // 6, "y": dy // 6} for _ in range(6)]
    actions = [{"type": "pointerMove", "duration": 0, "origin": {"element-6066-11e4-a52e-4f735466cecf": element}, "x": 0, "y": 0},
               {"type": "pointerDown", "button": 0}, *moves, {"type": "pointerUp", "button": 0}]
    b.wd("POST", b.s + "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]})
    b.wd("DELETE", b.s + "/actions")






def sign_in(b, base, account, back):
    b.go(f"{base}/#/signin")
    b.wait("return !document.getElementById('view-signin').hidden", 30)
    b.type_into("#signin-email", account.email)
    b.type_into("#signin-password", account.password)
    b.click("#signin-form button[type=submit]")
    signed = b.wait("return document.getElementById('view-signin').hidden || null", 30)
    b.go(f"{base}/{back}")
    return bool(signed)


def test_a_class_follows_a_lesson_presented_live(serve, checks, shots):
    check = checks.check
    server = serve(name="lesson-live", extra=["--public-url", PHONE_URL])
    base = server.base
    ada = Account(server, "Ada")
    lesson = want(http(server, "POST", "/api/lessons", {"title": "Two proteins, live", "steps": STEPS}, token=ada.token), 201, "create the lesson")
    lesson_id = lesson["id"]
    pictures = shots or tempfile.mkdtemp(prefix="lesson-live-shots-")
    os.makedirs(pictures, exist_ok=True)

    def shot(b, name):
        b.screenshot(os.path.join(pictures, f"lesson-live-{name}.png"))

    browsers = []
    try:
        teacher = phone()
        browsers.append(teacher)
        check("the teacher signs in through the page", sign_in(teacher, base, ada, f"#/lesson/{lesson_id}"))
        ok, t = wait_for(teacher, lambda s: s.get("step") == 0, 120)
        check("the teacher's lesson page shows step 1", ok, str(t))
        present = teacher.wait("const b = document.getElementById('lesson-present'); return !!b && !!b.offsetParent", 20)
        check("the lesson's owner is offered Present live", bool(present))
        if not present:
            return
        teacher.press("#lesson-present")
        link = teacher.wait("const l = document.getElementById('lesson-live-link'); const s = document.getElementById('lesson-live-said');"
                            " return l && s && s.textContent.startsWith('Live') && l.value.startsWith(arguments[0]) && l.value", 30, PHONE_URL)
        check("Present live: the presenting panel shows the class link at the address a phone reaches", bool(link and f"#/lesson/{lesson_id}?room=" in link), str(link))
        if not link:
            return
        room_id = link.split("?room=", 1)[1]
        qr = teacher.wait("const c = document.getElementById('lesson-live-qr'); return c && !c.hidden && c.width > 0 && c.toDataURL('image/png')", 20)
        decoded = decode_qr(qr) if qr else None
        check("…with its QR code, which reads back as the class link", decoded == link, f"{decoded} ≠ {link}")
        room = want(http(server, "GET", f"/api/rooms/{room_id}", token=ada.token), 200, "the presenting room")
        check("the room is public, named after the lesson, and presents step 1 (the state's presentation)",
              room["room"].get("isPublic") is True and room["room"].get("name") == "Lesson: Two proteins, live"
              and (room["state"].get("presentation") or {}).get("step") == 0 and (room["state"].get("presentation") or {}).get("lesson") == lesson_id,
              str({k: room["room"].get(k) for k in ("name", "isPublic")} | {"presentation": room["state"].get("presentation")}))
        unnamed = teacher.js(UNNAMED)
        check("every control of the presenting screen is named", unnamed == [], str(unnamed))
        class_hash = "#" + link.split("#", 1)[1]

        # ---- A follower (a guest, a phone with WebXR) opens the class link ----
        bea = phone(xr=True)
        browsers.append(bea)
        bea.go(base + "/" + class_hash)
        ok, b, t = follows(bea, teacher, 120)
        check("a follower (no account) opens the class link and lands on the teacher's step", ok, f"{b} vs {t}")
        said = bea.wait("const s = document.getElementById('lesson-follow-said'); return s && s.textContent.startsWith('Following Ada') && s.textContent", 20)
        live = bea.js("const r = document.getElementById('lesson-follow-said').closest('[aria-live], [role=status]');"
                      " return r && (r.getAttribute('aria-live') || (r.getAttribute('role') === 'status' ? 'polite' : ''))")
        check("…and says so in words, in a polite live region: “Following Ada · step 1 of 3”", said == "Following Ada · step 1 of 3" and live == "polite", f"{said} ({live})")
        counted = teacher.wait("const c = document.getElementById('lesson-live-count'); return c && c.textContent === '1 following' && c.textContent", 20)
        check("the teacher sees “1 following”", bool(counted), str(shown(teacher).get("following")))
        who = teacher.js("return document.getElementById('lesson-live-who').textContent")
        check("…and no name: a guest is counted, never named", who.startswith("No names") and "Guest" not in who, who)

        # ---- Next: the follower shows that step ----
        teacher.press("#lesson-next")
        ok, t = wait_for(teacher, lambda s: s.get("step") == 1 and "ball-and-stick" in (s.get("model") or ""), 120)
        ok, b, t = follows(bea, teacher, 120)
        check("the teacher goes Next: the follower shows step 2, the same model request (ball and stick, A:10-50) and the teacher's camera",
              ok and "ball-and-stick" in (b.get("model") or "") and "A%3A10-50" in (b.get("model") or ""), f"{b} vs {t}")
        check("…“Following Ada · step 2 of 3”", b.get("said") == "Following Ada · step 2 of 3", str(b.get("said")))
        shot(bea, "follower-step-2")

        # ---- The teacher turns the view: the follower's camera follows ----
        before = shown(teacher).get("camera")
        teacher.js("document.getElementById('lesson-viewer').focus()")
        teacher.keys(*(["\ue014"] * 6 + ["\ue013"] * 3))   # ArrowRight ×6, ArrowUp ×3: 30° and 15°
        turned = teacher.wait("const c = window.__proteinarLesson.player.cameraText(); return c !== arguments[0] && c", 10, before)
        time.sleep(0.5)  # the teacher's view still: its last camera sent
        ok, b, t = follows(bea, teacher, 30)
        check(f"the teacher turns the view (arrow keys, {camera_gap(before, t.get('camera'))['degrees']:.0f}°): the follower's camera follows within "
              f"{CAMERA_TOLERANCE['degrees']}°, {CAMERA_TOLERANCE['distance'] * 100:g} % of distance and {CAMERA_TOLERANCE['target']} radii",
              bool(turned) and ok and camera_gap(before, t.get("camera"))["degrees"] > 20, f"{camera_gap(b.get('camera'), t.get('camera'))}: {b} vs {t}")

        # ---- The follower looks around, then goes back to the teacher ----
        bea.js("document.getElementById('lesson-viewer').scrollIntoView({ block: 'center' })")
        drag(bea, "#lesson-viewer", 150, 40)
        ok, b = wait_for(bea, lambda s: s.get("back"), 10)
        gap = camera_gap(b.get("camera"), shown(teacher).get("camera"))
        check("the follower drags the view itself: “Back to the teacher” appears (and its camera is its own)", ok and gap["degrees"] > 5, f"{gap} {b}")
        check("…it says where the teacher is", "looking around" in (b.get("said") or "") and "step 2 of 3" in (b.get("said") or ""), str(b.get("said")))
        shot(bea, "follower-looking-around")
        unnamed = bea.js(UNNAMED)
        check("every control of the follower's screen is named", unnamed == [], str(unnamed))
        bea.press("#lesson-follow-back")
        ok, b, t = follows(bea, teacher, 10)
        check("one click on “Back to the teacher” returns the follower to the teacher's camera", ok and not b.get("back"), f"{b} vs {t}")
        # The same by keyboard alone: arrow keys on the 3D view, Tab to the button, Enter.
        bea.js("document.getElementById('lesson-viewer').focus()")
        bea.keys(*(["\ue015"] * 4))   # ArrowDown ×4
        ok, b = wait_for(bea, lambda s: s.get("back"), 10)
        bea.keys("\ue004")            # Tab
        focused = bea.js("return document.activeElement.id")
        bea.keys("\ue007")            # Enter
        back, b, t = follows(bea, teacher, 10)
        check("…and by keyboard: arrow keys on the 3D view, then Tab and Enter on “Back to the teacher”, the focus back on the view",
              ok and focused == "lesson-follow-back" and back and not b.get("back") and bea.js("return document.activeElement.id") == "lesson-viewer",
              f"{focused} {b}")

        # ---- In AR, the follower's model changes with the step and stays where it was placed ----
        ar = bea.wait("const b = document.getElementById('lesson-ar-button'); return !!b && !!b.offsetParent", 20)
        check("the follower is offered View in AR", bool(ar))
        if ar:
            bea.js(SPY_XR)
            bea.press("#lesson-ar-button")
            bea.wait("return !!window.__xr.session", 10)
            bea.js("window.__xr.surface = true")
            bea.wait("return window.__xr.frames > 3", 10)
            bea.js("window.__xr.session.dispatchEvent(new Event('select'))")
            placed = bea.wait("return document.getElementById('ar-overlay').dataset.placed === 'true' && window.__placed && (window.__placedModel = window.__placed.model, true)", 10)
            where = bea.js(PLACED) if placed else None
            check("in AR, the follower places the model on the table", bool(placed and where), str(where))
        teacher.press("#lesson-next")
        ok, t = wait_for(teacher, lambda s: s.get("step") == 2 and "/5PTI/" in (s.get("model") or ""), 120)
        ok, b, t = follows(bea, teacher, 120)
        check("the teacher goes Next again: the follower shows step 3 (5PTI), the teacher's camera", ok and "5PTI" in (b.get("model") or ""), f"{b} vs {t}")
        if ar and where:
            after = bea.wait("const p = window.__placed; return p && p.model !== window.__placedModel && p", 20) and bea.js(PLACED)
            moved = after and max(abs(x - y) for x, y in zip(after["at"], where["at"]))
            check("…in AR its model changed (5PTI now) while it stands where the follower placed it: the same point of the table, the same size on it",
                  bool(after) and not after["same"] and moved < 1e-6 and abs(after["size"] - where["size"]) < 1e-6
                  and after["overlay"].get("placed") == "true" and after["overlay"].get("position") == where["overlay"].get("position"),
                  f"{where} → {after}")
            bea.press("#ar-exit")
            bea.wait("return document.getElementById('ar-overlay').hidden", 10)

        # The teacher turns step 3's view, then a follower joins late.
        before = shown(teacher).get("camera")
        teacher.js("document.getElementById('lesson-viewer').focus()")
        teacher.keys(*(["\ue012"] * 8))   # ArrowLeft ×8: 40°
        teacher.wait("return window.__proteinarLesson.player.cameraText() !== arguments[0]", 10, before)
        time.sleep(0.5)
        ok, b, t = follows(bea, teacher, 30)
        check("the follower follows the teacher's turn on step 3 too", ok, f"{b} vs {t}")

        cai = phone()
        cai.before_each_page(SOCKETS)
        browsers.append(cai)
        # Cai signs in (the page's own register form, which comes back to the class link): named.
        cai.go(base + "/")
        registered = register_through_page(cai, base, "Cai", back=class_hash)
        check("a student registers through the page and comes back to the class link", bool(registered), str(cai.js("return location.hash")))
        ok, c, t = follows(cai, teacher, 120)
        check("a follower joining late lands on the current step (3) and the teacher's camera there",
              ok and c.get("step") == 2 and not close(t.get("camera"), "q0.7071,0,0,0.7071;d1.1;t0,0,0"), f"{c} vs {t}")
        counted = teacher.wait("const c = document.getElementById('lesson-live-count'); return c && c.textContent === '2 following' && c.textContent", 20)
        check("the teacher sees “2 following”", bool(counted), str(shown(teacher).get("following")))
        who = teacher.wait("const w = document.getElementById('lesson-live-who').textContent; return w.includes('Cai') && w", 20)
        check("…and the name of the one signed in, not the guest's: “Signed in: Cai”", who == "Signed in: Cai", str(who))

        # ---- A follower answers; the teacher's tally shows it ----
        cai.js("document.getElementById('lesson-choice-0').click()")
        cai.press("#lesson-answer")
        cai.wait("return document.getElementById('lesson-answer-said').textContent", 20)
        tally = teacher.wait("const a = document.getElementById('lesson-live-answers'); const li = a && a.querySelector('.tally-choice');"
                             " return li && li.dataset.count === '1' && a.textContent", 20)
        check("the teacher's presenting screen shows the answers as they come (1 for “One”)", bool(tally), str(tally))

        teacher.js("window.scrollTo(0, 0)")
        time.sleep(0.5)
        shot(teacher, "teacher-top")
        teacher.js("document.getElementById('lesson-live-panel').scrollIntoView({ block: 'start' })")
        time.sleep(0.5)
        shot(teacher, "teacher")
        cai.js("window.scrollTo(0, 0)")
        time.sleep(0.8)
        shot(cai, "follower")

        # ---- A dropped connection: the follower catches up with what it missed (after=N) ----
        cai.js("window.__blockSockets = true; for (const s of window.__sockets) s.close()")
        dropped = cai.wait("const s = document.getElementById('lesson-follow-said').textContent; return s.startsWith('Connection lost') && s", 10)
        teacher.press("#lesson-back")
        wait_for(teacher, lambda s: s.get("step") == 1 and "ball-and-stick" in (s.get("model") or ""), 60)
        time.sleep(1)
        still = shown(cai)
        cai.js("window.__blockSockets = false")
        ok, c, t = follows(cai, teacher, 60)
        resumed = cai.js("const s = window.__sockets; return s.length > 1 && s[s.length - 1].url")
        check("a follower whose connection drops says so, stays put, and once back (resuming with after=N) shows the step the teacher moved to meanwhile",
              bool(dropped) and still.get("step") == 2 and ok and "after=" in (resumed or "")
              and c.get("said") == "Following Ada · step 2 of 3", f"{dropped} / {still.get('step')} / {resumed} / {c} vs {t}")

        # ---- Stop presenting ----
        teacher.press("#lesson-present-stop")
        stopped = [b.wait("const s = document.getElementById('lesson-follow-said'); return s && s.textContent.startsWith('The teacher has stopped presenting') && s.textContent", 20)
                   for b in (bea, cai)]
        check("Stop presenting: each follower says the teacher has stopped presenting", all(stopped), str(stopped))
        state = want(http(server, "GET", f"/api/rooms/{room_id}", token=ada.token), 200, "the room after")["state"]
        check("…and the room presents nothing", state.get("presentation") is None, str(state.get("presentation")))
        check("the teacher is offered Present live again", bool(teacher.wait("const b = document.getElementById('lesson-present'); return !!b && !!b.offsetParent", 10)))
        csp = [m for b in browsers for m in b.csp_violations()]
        check("no Content-Security-Policy violations", not csp, str(csp[:3]))
    finally:
        for b in browsers:
            b.close()
