#!/usr/bin/env python3
"""A tour of every screen of the web app as a first-time student walks it, in real headless Chromium
(Debian's chromium and chromium-driver, WebGL2 through SwiftShader) against a real `proteinar serve`
on loopback, at 390 × 844 (a phone) and 1280 × 800 (a laptop): signed out, then signed in (through
the page's own register form), then as a guest in a room on a second browser.

On every screen (scripts/proteinar_testing/screen_audit.py): no element id used twice, no console
error and no failed request, nothing wider than the window, every shown control named and at least
44 × 44 px, and the screen opens at its top (the one before it was scrolled to its bottom) with its
main view in sight below the top bar.

    scripts/checks/check-tour.py PROTEINAR_BIN [--screenshots DIR]

Each screen is one check (ok/FAIL with its faults in words); the script ends with `N passed, M
failed` and exits 1 on a failure."""
import os, re, sys
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.browser import Browser, register_through_page
from proteinar_testing.report import Tally
from proteinar_testing.screen_audit import AUDIT, SCROLL_DOWN, problems
from proteinar_testing.server import ServerProcess

binary = os.path.abspath(sys.argv[1])
shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
tally = Tally()
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
    ("Build", "#/build", "#build-title", None),
    ("Library", "#/library", "#library-title", "return document.querySelectorAll('#library-list li[data-molecule]').length > 0"),
    ("Draw together", "#/draw", "#draw-title", None),
    ("map", "#/map", "#map-title", "return document.getElementById('map-note').textContent.length > 0"),
    ("sign in", "#/signin", "#signin-title", None),
    ("start page", "#/", ".cards", None),
]
SIGNED_IN = [
    ("Library", "#/library", "#library-title", "return !document.getElementById('library-mine-field').hidden"),
    ("your account", "#/profile", "#profile-title", "return document.getElementById('profile-title').textContent.length > 0"),
    ("Draw together", "#/draw", "#draw-title", "return !document.getElementById('room-form').hidden"),
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


def audit(b, label, size, main, opened_at_top=True):
    """Measures the screen as it is now, with the console since the last screen; one check."""
    found = b.js(AUDIT, main)
    console = [e["message"][:200] for e in b.console() if e.get("level") == "SEVERE"]
    faults = problems(found, console, opened_at_top)
    tally.check(f"{size}: {label}: ids once, no console errors or failed requests, nothing wider than the window, "
                "every control named and ≥ 44 px, opened at its top with its main view in sight", faults == [], "\n    ".join(faults))
    b.js("performance.clearResourceTimings()")
    if shots:
        os.makedirs(shots, exist_ok=True)
        name = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
        b.screenshot(os.path.join(shots, f"tour-{size}-{name}.png"))


def visit(b, base, size, who, screens):
    """Each screen in turn, reached from the one before scrolled to its bottom."""
    for label, address, main, condition in screens:
        b.js(SCROLL_DOWN)
        b.js("location.hash = arguments[0]", address)
        view = address.split("/")[1] or "landing"
        shown = b.wait(f"return !document.getElementById('view-{view}').hidden", 20)
        if not (shown and ready(b, condition)):
            tally.check(f"{size}: {who}: {label} opens", False, f"not shown or not ready: {condition}")
            continue
        audit(b, f"{who}: {label}", size, main)


def dialogs(b, size):
    """The Menu and Help, opened from the top bar as a person would."""
    b.js("location.hash = '#/explore'")
    b.click("#menu-button")
    if b.wait("return document.getElementById('menu').open", 10):
        audit(b, "signed out: Menu", size, "#menu-title", opened_at_top=False)
        b.click("#help-button")
        if b.wait("return document.getElementById('help').open", 10):
            top = b.js("return document.getElementById('help').scrollTop")
            audit(b, "signed out: Help", size, "#help-title", opened_at_top=False)
            tally.check(f"{size}: Help opens at its top", top == 0, f"scrollTop {top}")
            b.js("document.getElementById('help').close()")
    else:
        tally.check(f"{size}: the Menu opens", False)
    b.js("document.querySelectorAll('dialog[open]').forEach((d) => d.close())")


def make_room(b, base, size):
    """Creates a public room with 1AKE through the New-room form; returns its id once it is live."""
    b.js(SCROLL_DOWN)
    b.type_into("#room-name", f"Tour {size}")
    b.wait("return document.querySelectorAll('#room-molecule option').length > 1", 20)
    b.js("document.getElementById('room-molecule').value = '1AKE'")
    b.click("#room-form button[type=submit]")
    room = b.wait("const m = /^#\\/draw\\/(.+)$/.exec(location.hash); return m && m[1]", 20)
    if room and b.wait(LIVE, 30) and b.wait(DRAWN, 90, "#room-viewer"):
        audit(b, "signed in: a new room, its owner", size, "#room-viewer")
        return room
    tally.check(f"{size}: a new room opens live with its molecule", False, str(b.js("return document.getElementById('status').textContent")))
    return None


archive = ArchiveStandIn({}, {})
server = ServerProcess(binary, rcsb_url=archive.url, name="tour")
base = server.url
browsers = []
try:
    for size, width, height in SIZES:
        b = open_browser(width, height)
        browsers.append(b)
        b.go(base + "/")
        b.wait("return document.querySelectorAll('.cards .card').length >= 5", 30)
        b.js("performance.setResourceTimingBufferSize(5000)")
        visit(b, base, size, "signed out", SIGNED_OUT)
        dialogs(b, size)
        if not register_through_page(b, base, f"Tour{size}", back="#/draw"):
            tally.check(f"{size}: registering through the page signs in", False)
            continue
        b.console()  # the sign-in page's own screen was measured signed out
        b.js("performance.clearResourceTimings()")
        visit(b, base, size, "signed in", SIGNED_IN)
        b.js("location.hash = '#/draw'")
        b.wait("return !document.getElementById('room-form').hidden", 20)
        room = make_room(b, base, size)
        if not room: continue
        guest = open_browser(width, height)
        browsers.append(guest)
        guest.go(f"{base}/#/draw/{room}")
        if guest.wait(LIVE, 30) and guest.wait(DRAWN, 90, "#room-viewer"):
            audit(guest, "a guest in the room", size, "#room-viewer")
        else:
            tally.check(f"{size}: a guest opens the room by its link, live", False)
except Exception as e:
    import traceback; traceback.print_exc()
    tally.check("the tour finished", False, repr(e))
finally:
    for b in browsers: b.close()
    server.close()
    archive.close()
print(tally.summary())
sys.exit(tally.exit_code())
