"""The Rooms screens' flow in the browser, shared by test_rooms_page.py (accounts, rooms, settings,
invitations, watchers) and test_rooms_page_drawing.py (strokes, notes, history, AR, guests, the
map): its steps in order, the run (`Flow`: two browsers, a server, the room) that conftest.py's
session fixture `flow` hands both, and the helpers their steps share."""
import json

from flow_steps import FlowSteps
from proteinar_testing.archive import ArchiveStandIn
# test_web's stand-in for an Android phone's WebXR (navigator.xr): both drive the same device.
from proteinar_testing.browser import ANDROID_UA, XR_STUB, Browser
from proteinar_testing.server import ServerProcess


# The flow through two browsers, its steps in order (flow_steps.py).
FLOW = [
    "test_accounts_through_the_page_register_sign_out_and_sign_in",
    "test_the_profile_page_changes_the_name",
    "test_a_second_person_registers_in_a_second_browser",
    "test_a_public_room_is_created_through_the_page_and_opens_live",
    "test_the_owners_room_settings_are_saved",
    "test_an_invitation_by_e_mail_is_sent_shown_and_accepted",
    "test_an_anonymous_watcher_is_counted_not_listed",
    "test_strokes_drawn_in_one_page_appear_in_the_other_and_undo_removes_them",
    "test_notes_show_as_text_never_markup",
    "test_clear_asks_first_and_is_the_owners_alone",
    "test_a_dropped_connection_loses_nothing_and_sends_nothing_twice",
    "test_colours_brushes_a_new_joiners_deflated_snapshot_and_the_phones_tools",
    "test_the_history_slider_and_the_others_camera_markers",
    "test_the_camera_saves_a_picture_and_the_rooms_usdz_passes_usdz_check",
    "test_in_ar_a_finger_on_the_screen_draws_in_the_air",
    "test_a_guest_may_only_watch_until_the_owner_lets_guests_draw",
    "test_the_map_without_tiles_lists_the_rooms_by_distance",
    "test_issue_17s_phone_features",
    "test_the_map_with_tiles_from_the_servers_own_origin",
]

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
# Where the people are, for the map: Cambridge (UK), with rooms in Cambridge, Oxford and Berlin.
HOME = {"latitude": 52.2053, "longitude": 0.1218}
STATE = "return window.__proteinarRoom && window.__proteinarRoom.state"
STROKES = "const r = window.__proteinarRoom; return r && r.state ? r.state.strokes.size : -1"


def strokes(browser):
    return browser.js(STROKES)


def draw(browser, path, pause_ms=30):
    """Drags the mouse over the room's canvas along `path` (pixel offsets from its centre), first
    scrolled to the middle of the window: typing into a form further down scrolls the page, and the
    canvas's middle must not end up under the top bar or the drawing tools."""
    browser.js("document.getElementById('room-viewer').scrollIntoView({ block: 'center' })")
    canvas = browser.find("#room-viewer")
    origin = {ELEMENT: canvas}
    actions = [{"type": "pointerMove", "duration": 0, "origin": origin, "x": path[0][0], "y": path[0][1]},
               {"type": "pointerDown", "button": 0}]
    for x, y in path[1:]:
        actions.append({"type": "pointerMove", "duration": pause_ms, "origin": origin, "x": x, "y": y})
    actions.append({"type": "pointerUp", "button": 0})
    browser.wd("POST", browser.s + "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]})
    browser.wd("DELETE", browser.s + "/actions")


def wave(dx=0, dy=0, n=10, size=120):
    """A zigzag of `n` mouse positions. Each move costs a frame of the room's 3D view, slow in
    SwiftShader (about half a second), so strokes that only travel between pages are short; the
    thinning check draws 24."""
    return [(int(-size + 2 * size * i / (n - 1)) + dx, int(40 * ((i % 6) / 5 - 0.5)) + dy) for i in range(n)]


def set_location(browser, where):
    """This browser's position, as a phone's GPS would give it (and permission to read it)."""
    try:
        browser.cdp("Browser.grantPermissions", {"permissions": ["geolocation"]})
        browser.cdp("Emulation.setGeolocationOverride", {**where, "accuracy": 10})
    except Exception:
        browser.before_each_page("navigator.geolocation.getCurrentPosition = (ok) => setTimeout(() => ok({ coords: %s }), 10);"
                                 % json.dumps(where))


# Interactive elements on show with no accessible name (test_web.py's rule).
UNNAMED = """const named = (e) => (e.getAttribute('aria-label') || (e.labels && [...e.labels].map(l => l.textContent).join('').trim())
    || (e.getAttribute('aria-labelledby') && document.getElementById(e.getAttribute('aria-labelledby'))?.textContent)
    || e.textContent.trim() || e.getAttribute('title') || e.querySelector('img[alt]')?.alt || '').trim();
  return [...document.querySelectorAll('button, a[href], input, select, textarea, canvas, [tabindex]')]
    .filter(e => !e.closest('[hidden], dialog:not([open])') && !e.classList.contains('visually-hidden') && !named(e)).map(e => e.outerHTML.slice(0, 80));"""


def wait_live(browser, timeout=30):
    return browser.wait("const s = document.getElementById('room-status'); return s.dataset.state === 'live' && s.textContent", timeout)



class Flow:
    """The run's two browsers (and the guest's, once made), its server and its room; `steps`, the
    flow's steps (flow_steps.py)."""

    def __init__(self, binary):
        self.binary = binary
        self.steps = FlowSteps(FLOW)
        self.archive = ArchiveStandIn({}, {})
        self.server = ServerProcess(binary, rcsb_url=self.archive.url, name="draw")
        self.base = self.server.url
        self.ada = self.bob = self.guest = None
        self.room_id = None
        self.ada = Browser()
        self.bob = Browser(args=[f"--user-agent={ANDROID_UA}"], width=412, height=915)
        self.bob.before_each_page(XR_STUB)
        set_location(self.ada, HOME)

    def close(self):
        for browser in (self.ada, self.bob, self.guest):
            if browser:
                browser.close()
        self.server.close()
        self.archive.close()

