"""A tour of every screen of the web app as a first-time student walks it, in real headless Chromium
(Debian's chromium and chromium-driver, WebGL2 through SwiftShader) against a real `proteinar serve`
on loopback, at 390 × 844 (a phone) and 1280 × 800 (a laptop): signed out, then signed in (through
the page's own register form; a lesson made from Explore's view, its editor and the lesson as a class
sees it), then as a guest in a room on a second browser.

On every screen (scripts/checks/in_browser/screen_audit.py): no element id used twice, no console
error and no failed request, nothing wider than the window, every shown control named and at least
44 × 44 px, and the screen opens at its top (the one before it was scrolled to its bottom) with its
main view in sight below the top bar.

Each screen is a test (its faults in words), in the order a person walks them, for each size: a
step of one size's walk (flow_steps.py) runs once the steps before it ran, and is skipped, saying
why, after one that stopped the walk.
--screenshots DIR keeps a picture of each."""
import os
import re

import pytest

from flow_steps import FlowSteps
from in_browser.screen_audit import AUDIT, SCROLL_DOWN, problems
from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.browser import Browser, register_through_page
from proteinar_testing.server import ServerProcess

pytestmark = pytest.mark.browser

SIZES = [("phone", 390, 844), ("desktop", 1280, 800)]
DRAWN = """const c = document.querySelector(arguments[0]); if (!c || !c.width) return false;
const t = document.createElement('canvas'); t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);
const d = x.getImageData(c.width * .3, c.height * .3, c.width * .4, c.height * .4).data; let n = 0;
for (let i = 0; i < d.length; i += 4) if (d[i] < 245 || d[i+1] < 245 || d[i+2] < 245) n++; return n > d.length / 4 * 0.02;"""
LIVE = "const s = document.getElementById('room-status'); return s.dataset.state === 'live' && s.textContent"

# Each screen: (name, address, its main view, what shows it is ready). None as the address: the
# screen is reached by the step before it (a dialog, a form sent).
SIGNED_OUT = [
    ("introduction", "#/intro", "#intro-pages", None),
    ("Explore, empty", "#/explore", "#viewer", None),
    ("Explore 1AKE", "#/explore/1AKE", "#viewer", ("drawn", "#viewer")),
    ("Design", "#/design", "#design-title", None),
    ("Library", "#/library", "#library-title", "return document.querySelectorAll('#library-list li[data-molecule]').length > 0"),
    ("Rooms", "#/rooms", "#rooms-title", None),
    ("Lessons", "#/lessons", "#lessons-title", "return document.getElementById('lessons-account').textContent.length > 0"),
    ("map", "#/map", "#map-title", "return document.getElementById('map-note').textContent.length > 0"),
    ("sign in", "#/signin", "#signin-title", None),
    ("start page", "#/", ".cards", None),
]
SIGNED_IN = [
    ("Library", "#/library", "#library-title", "return !document.getElementById('library-mine-field').hidden"),
    ("your account", "#/profile", "#profile-title", "return document.getElementById('profile-title').textContent.length > 0"),
    ("Rooms", "#/rooms", "#rooms-title", "return !document.getElementById('room-form').hidden"),
    ("Explore 1AKE", "#/explore/1AKE", "#viewer", ("drawn", "#viewer")),
]


def open_browser(width, height):
    """A browser the size of the window; on the phone the person shares where they are (Cambridge, as a
    phone's GPS gives it), on the laptop they decline: the map asks, and either answer is normal use."""
    b = Browser(width=width, height=height)
    b.cdp("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    shared = width < 600
    b.cdp("Browser.setPermission", {"permission": {"name": "geolocation"}, "setting": "granted" if shared else "denied"})
    if shared: b.cdp("Emulation.setGeolocationOverride", {"latitude": 52.2053, "longitude": 0.1218, "accuracy": 10})
    return b


def ready(b, condition, timeout=90):
    if condition is None: return True
    if isinstance(condition, tuple): return bool(b.wait(DRAWN, timeout, condition[1]))
    return bool(b.wait(condition, timeout))


class Walk:
    """One size's walk: its browser (and the guest's), whether the person is signed in, their room."""

    def __init__(self, size, width, height):
        self.size, self.width, self.height = size, width, height
        self.browser = self.guest = None
        self.signed_in = False
        self.room = None
        self.lesson = None
        self.steps = FlowSteps([f"{who}: {label}" for who, label in STEPS])   # flow_steps.py


@pytest.fixture(scope="module")
def site(proteinar_bin):
    archive = ArchiveStandIn({}, {})
    server = ServerProcess(proteinar_bin, rcsb_url=archive.url, name="tour")
    walks = {size: Walk(size, width, height) for size, width, height in SIZES}
    try:
        yield server.url, walks
    finally:
        for walk in walks.values():
            for b in (walk.browser, walk.guest):
                if b:
                    b.close()
        server.close()
        archive.close()


def audit(checks, shots, b, label, size, main, opened_at_top=True):
    """Measures the screen as it is now, with the console since the last screen; one check."""
    found = b.js(AUDIT, main)
    console = [e["message"][:200] for e in b.console() if e.get("level") == "SEVERE"]
    faults = problems(found, console, opened_at_top)
    checks.check(f"{size}: {label}: ids once, no console errors or failed requests, nothing wider than the window, "
                 "every control named and ≥ 44 px, opened at its top with its main view in sight", faults == [], "\n    ".join(faults))
    b.js("performance.clearResourceTimings()")
    if shots:
        os.makedirs(shots, exist_ok=True)
        name = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
        b.screenshot(os.path.join(shots, f"tour-{size}-{name}.png"))


def visit(checks, shots, b, size, who, screen):
    """A screen, reached from the one before scrolled to its bottom."""
    label, address, main, condition = screen
    b.js(SCROLL_DOWN)
    b.js("location.hash = arguments[0]", address)
    view = address.split("/")[1] or "landing"
    shown = b.wait(f"return !document.getElementById('view-{view}').hidden", 20)
    if not (shown and ready(b, condition)):
        checks.check(f"{size}: {who}: {label} opens", False, f"not shown or not ready: {condition}")
        return
    audit(checks, shots, b, f"{who}: {label}", size, main)


STEPS = ([("signed out", s[0]) for s in SIGNED_OUT] + [("signed out", "Menu"), ("signed out", "Help"), ("signed in", "registering through the page")]
         + [("signed in", s[0]) for s in SIGNED_IN]
         + [("signed in", "a new lesson from Explore's view"), ("signed in", "the lesson's editor"), ("signed in", "the lesson, as a class sees it")]
         + [("signed in", "a new room, its owner"), ("guest", "a guest in the room")])
WALK = [(size, who, label) for size, _, _ in SIZES for who, label in STEPS]


@pytest.fixture
def shots(pytestconfig):
    return pytestconfig.getoption("--screenshots")


@pytest.mark.parametrize("size,who,label", WALK, ids=[f"{size}: {who}: {label}" for size, who, label in WALK])
def test_tour_screen_is_sound(site, checks, shots, size, who, label):
    base, walks = site
    walk = walks[size]
    with walk.steps.step(f"{who}: {label}"):
        if walk.browser is None:
            b = walk.browser = open_browser(walk.width, walk.height)
            b.go(base + "/")
            b.wait("return document.querySelectorAll('.cards .card').length >= 5", 30)
            b.js("performance.setResourceTimingBufferSize(5000)")
        step(checks, shots, base, walk, walk.browser, who, label)


def step(checks, shots, base, walk, b, who, label):
    size = walk.size
    if who == "signed out" and label == "Menu":
        # The Menu and Help, opened from the top bar as a person would.
        b.js("location.hash = '#/explore'")
        b.click("#menu-button")
        if b.wait("return document.getElementById('menu').open", 10):
            audit(checks, shots, b, "signed out: Menu", size, "#menu-title", opened_at_top=False)
        else:
            checks.check(f"{size}: the Menu opens", False)
            b.js("document.querySelectorAll('dialog[open]').forEach((d) => d.close())")
    elif who == "signed out" and label == "Help":
        if not b.js("return document.getElementById('menu').open"):
            print(f"{size}: the Menu did not open (its step failed), so Help is not opened from it")
            return
        b.click("#help-button")
        if b.wait("return document.getElementById('help').open", 10):
            top = b.js("return document.getElementById('help').scrollTop")
            audit(checks, shots, b, "signed out: Help", size, "#help-title", opened_at_top=False)
            checks.check(f"{size}: Help opens at its top", top == 0, f"scrollTop {top}")
            b.js("document.getElementById('help').close()")
        b.js("document.querySelectorAll('dialog[open]').forEach((d) => d.close())")
    elif who == "signed out":
        visit(checks, shots, b, size, who, next(s for s in SIGNED_OUT if s[0] == label))
    elif label == "registering through the page":
        if not register_through_page(b, base, f"Tour{size}", back="#/rooms"):
            walk.steps.broken = "registering through the page did not sign in"
            checks.check(f"{size}: registering through the page signs in", False)
            return
        walk.signed_in = True
        b.console()  # the sign-in page's own screen was measured signed out
        b.js("performance.clearResourceTimings()")
    elif who == "signed in" and label == "a new lesson from Explore's view":
        walk.lesson = make_lesson(checks, shots, b, size)
        if not walk.lesson:
            walk.steps.broken = "no lesson was made from Explore's view"
    elif who == "signed in" and label == "the lesson's editor":
        visit(checks, shots, b, size, who, (label, f"#/lessons/{walk.lesson}", "#lesson-edit-title",
                                             "return document.querySelectorAll('#lesson-steps > li').length === 1"))
    elif who == "signed in" and label == "the lesson, as a class sees it":
        visit(checks, shots, b, size, who, (label, f"#/lesson/{walk.lesson}", "#lesson-viewer", ("drawn", "#lesson-viewer")))
    elif who == "signed in" and label == "a new room, its owner":
        b.js("location.hash = '#/rooms'")
        b.wait("return !document.getElementById('room-form').hidden", 20)
        walk.room = make_room(checks, shots, b, size)
        if not walk.room:
            walk.steps.broken = "the new room did not open live"
    elif who == "signed in":
        visit(checks, shots, b, size, who, next(s for s in SIGNED_IN if s[0] == label))
    else:
        guest = walk.guest = open_browser(walk.width, walk.height)
        guest.go(f"{base}/#/rooms/{walk.room}")
        if guest.wait(LIVE, 30) and guest.wait(DRAWN, 90, "#room-viewer"):
            audit(checks, shots, guest, "a guest in the room", size, "#room-viewer")
        else:
            checks.check(f"{size}: a guest opens the room by its link, live", False)


def make_lesson(checks, shots, b, size):
    """From Explore's view (the stop before), Add this view as a step into a new lesson, through its
    dialog (measured open); the new lesson's id once the page says it was added."""
    b.js("document.getElementById('add-to-lesson').scrollIntoView({ block: 'center' })")
    if not b.wait("return !document.getElementById('add-to-lesson').hidden", 20):
        checks.check(f"{size}: signed in, Explore offers Add this view as a step", False)
        return None
    b.click("#add-to-lesson")
    if not b.wait("return document.getElementById('lesson-add-dialog').open && document.getElementById('lesson-add-choice').options.length > 0", 20):
        checks.check(f"{size}: Add this view as a step opens its dialog", False)
        return None
    audit(checks, shots, b, "signed in: Add this view as a step", size, "#lesson-add-title", opened_at_top=False)
    b.js("const c = document.getElementById('lesson-add-choice'); c.value = ''; c.dispatchEvent(new Event('change'))")
    b.type_into("#lesson-add-new-title", f"Tour {size}")
    b.click("#lesson-add-go")
    lesson = b.wait("const a = document.getElementById('lesson-added-link'); const m = a && /^#\\/lessons\\/([^?]+)/.exec(a.getAttribute('href')); return m && m[1]", 20)
    checks.check(f"{size}: the view is added as step 1 of a new lesson", bool(lesson), str(b.js("return document.getElementById('status').textContent")))
    return lesson


def make_room(checks, shots, b, size):
    """Creates a public room with 1AKE through the New-room form; returns its id once it is live."""
    b.js(SCROLL_DOWN)
    b.type_into("#room-name", f"Tour {size}")
    b.wait("return document.querySelectorAll('#room-molecule option').length > 1", 20)
    b.js("document.getElementById('room-molecule').value = '1AKE'")
    b.click("#room-form button[type=submit]")
    room = b.wait("const m = /^#\\/rooms\\/(.+)$/.exec(location.hash); return m && m[1]", 20)
    if room and b.wait(LIVE, 30) and b.wait(DRAWN, 90, "#room-viewer"):
        audit(checks, shots, b, "signed in: a new room, its owner", size, "#room-viewer")
        return room
    checks.check(f"{size}: a new room opens live with its molecule", False, str(b.js("return document.getElementById('status').textContent")))
    return None
