"""Draw together in the web app, in real headless Chromium sessions (Debian's chromium and
chromium-driver, WebGL2 through SwiftShader) against a real `proteinar serve`, driven over the W3C
WebDriver protocol as scripts/checks/test_web.py does (scripts/proteinar_testing).

Two people in two browsers: Ada registers and signs in through the page, creates a public room and
invites Bob (registered in the second browser, a phone with Android Chrome's user agent and the
WebXR stand-in of test_web.py). Strokes drawn with the mouse in one page appear in the other;
undo, clear (after a confirmation), notes (shown as text, never markup), presence, the status line,
a dropped connection (nothing lost, nothing twice), a guest who may only watch, AR drawing, the
room's USDZ (it must answer 200 and pass usdz-check: a 404 is a failure, not a skip), and the
map's list of rooms by distance when the server has no tile server, and on a second server with a
stand-in tile server (there is no internet) the map drawn with tiles from the server's own origin. Ada, the server's first account, is
shown as its administrator; a bare socket with no account and no guest key is counted as a watcher,
not listed. No page may break the Content-Security-Policy (a console message naming it fails).

One flow through two browsers, a test for each of its steps in order, sharing the browsers, the
server and the room (a module fixture); a step's checks print ok/FAIL and the test fails listing
each FAIL. When a step stops on an error, the steps after it are skipped, saying where it stopped.
--screenshots DIR keeps the pictures."""
import json
import math
import os
import subprocess
import time

import pytest
from websockets.sync.client import connect as ws_connect

from flow_steps import FlowSteps
from in_browser import history_checks, room_checks, tile_checks
from proteinar_testing.archive import ArchiveStandIn
# test_web's stand-in for an Android phone's WebXR (navigator.xr): both drive the same device.
from proteinar_testing.browser import ANDROID_UA, XR_STUB, Browser
from proteinar_testing.http_client import fetch
from proteinar_testing.paths import CHECK_USDZ
from proteinar_testing.report import short
from proteinar_testing.server import ServerProcess

pytestmark = pytest.mark.browser

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


@pytest.fixture(scope="module")
def flow(proteinar_bin):
    flow = Flow(proteinar_bin)
    yield flow
    flow.close()


@pytest.fixture
def shots(pytestconfig):
    return pytestconfig.getoption("--screenshots")


def test_accounts_through_the_page_register_sign_out_and_sign_in(flow, checks, shots):
    """Registering and signing in through the page: errors said beside the field, the first account an administrator."""
    with flow.steps.step():
        ada, base = flow.ada, flow.base
        check = checks.check
        # ---- Accounts through the page ----
        ada.go(base + "/")
        ada.wait("return document.querySelectorAll('.cards .card').length >= 5")
        check("the landing page's Draw together card is enabled and opens the rooms",
              ada.js("const c = document.querySelector('a.card[href=\"#/draw\"]'); return !!c && !c.matches('.disabled')"))
        ada.click("a.card[href='#/draw']")
        check("signed out, the rooms page offers to sign in and lists the (no) rooms helpfully",
              bool(ada.wait("const t = document.getElementById('view-draw').textContent; return !document.getElementById('view-draw').hidden"
                            " && !document.getElementById('room-form-guest').hidden && /No public rooms yet/.test(t)", 20)))
        ada.click("#draw-account a.button")
        ada.wait("return !document.getElementById('view-signin').hidden", 10)
        unnamed = ada.js(UNNAMED)
        check("every control of the sign-in page has an accessible name", unnamed == [], str(unnamed))
        ada.type_into("#register-name", "Ada")
        ada.type_into("#register-email", "ada@example.org")
        ada.type_into("#register-password", "short")
        ada.click("#register-form button[type=submit]")
        err = ada.wait("return document.getElementById('register-error').textContent", 10)
        check("registering with a short password says what is wrong, beside the field",
              bool(err and "8 characters" in err) and ada.js("return document.getElementById('register-password').getAttribute('aria-invalid')") == "true", str(err))
        ada.js("document.getElementById('register-password').value = ''")
        ada.type_into("#register-password", "correct horse")
        ada.click("#register-form button[type=submit]")
        bar = ada.wait("return location.hash === '#/draw' && document.getElementById('draw-account').textContent.includes('Ada') && document.getElementById('draw-account').textContent", 20)
        check("register through the page: signed in as Ada, back on the rooms", bool(bar), str(ada.js("return [location.hash, document.getElementById('register-error').textContent]")))
        check("the server's first account is shown as its administrator", bool(bar and "Ada (administrator)" in bar), str(bar))
        told = ada.js("return document.getElementById('status').textContent")
        check("…and is told so when it happens, with what it means", "administrator" in told and "delete any molecule" in told, told)
        ada.click("#draw-account button")  # Sign out
        ada.wait("return document.getElementById('draw-account').textContent.includes('guest')", 10)
        ada.go(base + "/#/signin")
        ada.wait("return !document.getElementById('view-signin').hidden", 10)
        ada.type_into("#signin-email", "ada@example.org")
        ada.type_into("#signin-password", "wrong password")
        ada.click("#signin-form button[type=submit]")
        err = ada.wait("return document.getElementById('signin-error').textContent", 20)
        check("a wrong password is refused with a clear message", bool(err and "wrong e-mail or password" in err.lower()), str(err))
        ada.js("document.getElementById('signin-password').value = ''")
        ada.type_into("#signin-password", "correct horse")
        ada.click("#signin-form button[type=submit]")
        check("sign in through the page", bool(ada.wait("return location.hash === '#/draw' && document.getElementById('draw-account').textContent.includes('Ada')", 20)))


def test_the_profile_page_changes_the_name(flow, checks, shots):
    with flow.steps.step():
        ada, base = flow.ada, flow.base
        check = checks.check
        # Profile: the name can be changed.
        ada.go(base + "/#/profile")
        ada.wait("return document.getElementById('profile-name').value === 'Ada'", 20)
        ada.js("document.getElementById('profile-name').value = ''")
        ada.type_into("#profile-name", "Ada Lovelace")
        ada.click("#profile-form button[type=submit]")
        said = ada.wait("const s = document.getElementById('status').textContent; return s.includes('Ada Lovelace') && s", 20)
        check("the profile page changes the name", bool(said), str(ada.js("return document.getElementById('status').textContent")))


def test_a_second_person_registers_in_a_second_browser(flow, checks, shots):
    with flow.steps.step():
        bob, base = flow.bob, flow.base
        check = checks.check
        # Bob registers in the other browser (a phone).
        bob.go(base + "/#/signin")
        bob.wait("return !document.getElementById('view-signin').hidden", 20)
        bob.type_into("#register-name", "Bob")
        bob.type_into("#register-email", "bob@example.org")
        bob.type_into("#register-password", "bobs password")
        bob.click("#register-form button[type=submit]")
        bar = bob.wait("return location.hash === '#/draw' && document.getElementById('draw-account').textContent.includes('Bob') && document.getElementById('draw-account').textContent", 20)
        check("a second person registers in a second browser (a member, not an administrator)", bool(bar and "administrator" not in bar), str(bar))


def test_a_public_room_is_created_through_the_page_and_opens_live(flow, checks, shots):
    """The room's molecule shown, the status line live, every control named."""
    with flow.steps.step():
        ada, base, room_id = flow.ada, flow.base, flow.room_id
        check = checks.check
        # ---- A room ----
        ada.go(base + "/#/draw")
        ada.wait("return !document.getElementById('room-form').hidden", 20)
        ada.type_into("#room-name", "Active site")
        ada.wait("return document.querySelectorAll('#room-molecule option').length > 1", 20)
        ada.js("document.getElementById('room-molecule').value = '1AKE'")
        ada.click("#room-use-location")
        located = ada.wait("const t = document.getElementById('room-location-note').textContent; return t.includes('52.2') && t", 20)
        check("“Use my location” reads the position for the map", bool(located), str(ada.js("return document.getElementById('room-location-note').textContent")))
        ada.click("#room-form button[type=submit]")
        room_id = flow.room_id = ada.wait("const m = /^#\\/draw\\/(.+)$/.exec(location.hash); return m && m[1]", 20)
        check("create a public room through the page: it opens", bool(room_id))
        live = wait_live(ada)
        check("the status line says live", bool(live and live.startswith("Live")), str(ada.js("return document.getElementById('room-status').textContent")))
        shown = ada.wait("const v = window.__proteinarRoom.viewer; return v && v.model && v.triangleCount", 90)
        check("the room's molecule (1AKE) is shown in the 3D view, with View in AR beside it",
              bool(shown) and bool(ada.wait("return !!document.querySelector('#room-ar-slot #room-ar-button')", 20)), str(shown))

        unnamed = ada.js(UNNAMED)
        check("every control of the room screen has an accessible name", unnamed == [], str(unnamed))


def test_the_owners_room_settings_are_saved(flow, checks, shots):
    with flow.steps.step():
        ada, room_id = flow.ada, flow.room_id
        check = checks.check
        # The owner's settings reach the server (the room's form once read the New-room form's boxes,
        # which share nothing with it now): Guests may draw, Save, then the server's own answer.
        def server_room():
            answer = ada.js_async("const done = arguments[arguments.length - 1];"
                                  " fetch('/api/rooms/' + arguments[0] + '?state=none').then((r) => r.json()).then(done, () => done(null));", room_id)
            return (answer or {}).get("room") or {}
        ada.wait("return !document.getElementById('room-settings').hidden", 20)
        ada.click("#room-settings-guests-draw")
        ada.click("#room-settings button[type=submit]")
        ada.wait("return document.getElementById('status').textContent.startsWith('Saved')", 20)
        saved = server_room()
        check("the owner's room settings are saved: after Save the server says guests may draw, and “Saved.” shows beside Save",
              saved.get("guestsMayDraw") is True and saved.get("isPublic") is True
              and ada.js("return document.getElementById('room-settings-said').textContent") == "Saved.",
              str({k: saved.get(k) for k in ("isPublic", "guestsMayDraw")}))
        ada.js("document.getElementById('status').textContent = ''")
        ada.click("#room-settings-guests-draw")
        ada.click("#room-settings button[type=submit]")
        check("…and unticking it saves too", bool(ada.wait("return document.getElementById('status').textContent.startsWith('Saved')", 20))
              and server_room().get("guestsMayDraw") is False)


def test_an_invitation_by_e_mail_is_sent_shown_and_accepted(flow, checks, shots):
    with flow.steps.step():
        ada, bob, base, room_id = flow.ada, flow.bob, flow.base, flow.room_id
        check = checks.check
        # Ada invites Bob from the room page (the page says it was sent, never whether the e-mail has
        # an account); Bob sees the invitation above the rooms, accepts it, then opens the room.
        ada.type_into("#room-invite-email", "bob@example.org")
        ada.click("#room-invite button[type=submit]")
        said = ada.wait("const s = document.getElementById('room-invite-sent').textContent; return s.includes('Invitation sent to bob@example.org') && s", 20)
        check("the owner invites by e-mail: “Invitation sent to …”, and the e-mail waits in the invited list",
              bool(said) and bool(ada.wait("return !!document.querySelector('#room-invitations li[data-email=\"bob@example.org\"]')", 20)),
              str(ada.js("return document.getElementById('status').textContent")))
        bob.go(f"{base}/#/map")
        bob.go(f"{base}/#/draw")
        above = bob.wait("const l = document.getElementById('draw-invitation-list');"
                         " return !document.getElementById('draw-invitations').hidden && l.textContent.includes('Active site') && l.textContent", 20)
        check("back on the rooms, the invitation shows above them", bool(above), str(above))
        bob.go(f"{base}/#/profile")
        offered = bob.wait("const b = [...document.querySelectorAll('#profile-invitations li[data-invitation] button')];"
                           " return b.length === 2 && b.map((x) => x.getAttribute('aria-label')).join(' | ')", 20)
        check("the invitee sees the invitation on their profile, with Accept and Decline named for the room",
              offered == "Accept the invitation to Active site | Decline the invitation to Active site", str(offered))
        bob.click("#profile-invitations li[data-invitation] button.primary")
        joined = bob.wait("const s = document.getElementById('status').textContent; return s.includes('member of Active site') && s", 20)
        listed = bob.wait("return document.querySelector('#profile-invitations .empty-note') &&"
                          f" !!document.querySelector('#profile-rooms li[data-room=\"{room_id}\"]')", 20)
        check("accepting makes the invitee a member: the room moves to Your rooms, the invitations say there are none",
              bool(joined) and bool(listed), str(bob.js("return document.getElementById('status').textContent")))
        check("the owner's invited list empties once it is accepted",
              bool(ada.wait("return !document.querySelector('#room-invitations li[data-email]')", 20)))
        bob.go(f"{base}/#/draw/{room_id}")
        check("the second page joins the room live", bool(wait_live(bob)))
        here = ada.wait("const t = document.getElementById('room-peers').textContent; return t.includes('Bob') && t.includes('Ada') && t", 20)
        check("presence: the first page lists both people", bool(here), str(ada.js("return document.getElementById('room-peers').textContent")))


def test_an_anonymous_watcher_is_counted_not_listed(flow, checks, shots):
    with flow.steps.step():
        ada, server, room_id = flow.ada, flow.server, flow.room_id
        check = checks.check
        # Someone watching with no account and no guest key (a bare socket) is counted, not listed.
        with ws_connect(f"{server.ws}/api/rooms/{room_id}/live", open_timeout=10, close_timeout=2) as watcher:
            hello = json.loads(watcher.recv(timeout=10))
            counted = ada.wait("const w = document.querySelector('#room-peers .watchers'); return w && w.dataset.watchers === '1' && w.textContent", 20)
            listed = ada.js("return document.querySelectorAll('#room-peers li[data-peer]').length")
            peers = ada.js("return document.getElementById('room-peers').textContent")
        check("an anonymous watcher is counted beside the people here, not listed", hello.get("type") == "welcome" and bool(counted) and listed == 2,
              f"{hello.get('type')} {counted!r} listed={listed} {peers!r}")
        check("the watcher's count goes when it leaves",
              bool(ada.wait("return !document.querySelector('#room-peers .watchers') && document.querySelectorAll('#room-peers li[data-peer]').length === 2", 20)))


def test_strokes_drawn_in_one_page_appear_in_the_other_and_undo_removes_them(flow, checks, shots):
    with flow.steps.step():
        ada, bob = flow.ada, flow.bob
        check = checks.check
        # ---- Drawing, undo ----
        before = strokes(bob)
        draw(ada, wave(n=24))
        got = bob.wait("const r = window.__proteinarRoom; const s = [...r.state.strokes.values()]; return s.length === 1 && s[0].points.length > 3"
                       " && document.getElementById('room-stage').dataset.strokes === '1' && s[0].points.length", 20)
        check("a stroke drawn with the mouse in page 1 appears in page 2", before == 0 and bool(got), f"before {before}, now {strokes(bob)}")
        sent = ada.js("return [...window.__proteinarRoom.state.strokes.values()][0].points.length")
        check("the stroke's points are thinned (fewer than the mouse moves) and the same in both pages", bool(got) and got == sent and got <= 24, f"{got} vs {sent}")
        draw(ada, [(40, 60), (40, 60)])
        dot = bob.wait("const s = [...window.__proteinarRoom.state.strokes.values()]; return s.length === 2 && s[1].points.length", 20)
        check("a tap makes a dot (a one-point stroke)", dot == 1, str(dot))
        ada.click("#room-undo")
        check("undo in page 1 removes its last stroke in page 2", bool(bob.wait("return window.__proteinarRoom.state.strokes.size === 1 && document.getElementById('room-stage').dataset.strokes === '1'", 20)))
        ada.click("#room-undo")
        check("undo again removes the first stroke too", bool(bob.wait("return window.__proteinarRoom.state.strokes.size === 0", 20)))

        # Bob draws from the phone (a member may draw); Ada sees it.
        draw(bob, wave(dy=-80, size=80), 30)
        check("the member's stroke reaches the owner", bool(ada.wait("return window.__proteinarRoom.state.strokes.size === 1", 20)))


def test_notes_show_as_text_never_markup(flow, checks, shots):
    with flow.steps.step():
        ada, bob = flow.ada, flow.bob
        check = checks.check
        # ---- Notes: text, never markup ----
        evil = '<img src=x onerror="window.__xss=1"> & <b>bold</b>'
        ada.click("#room-note")
        ada.wait("return document.getElementById('room-dialog-note').open", 10)
        ada.type_into("#room-note-text", evil)
        ada.click("#room-note-centre")
        shown = bob.wait("const n = document.querySelector('#room-notes .note-text'); return n && n.textContent", 20)
        markup = bob.js("return document.querySelectorAll('#room-notes img, #room-notes b, #room-notes-layer img, #room-notes-layer b').length")
        pin = bob.js("const p = document.querySelector('#room-notes-layer .note-pin'); return p && p.textContent")
        time.sleep(0.5)
        xss = [ada.js("return window.__xss === undefined"), bob.js("return window.__xss === undefined")]
        check("a note with <img onerror> shows as text, in the list and pinned in the view", shown == evil and pin == evil and markup == 0 and all(xss),
              f"{shown!r} {pin!r} markup={markup} xss={xss}")


def test_clear_asks_first_and_is_the_owners_alone(flow, checks, shots):
    with flow.steps.step():
        ada, bob = flow.ada, flow.bob
        check = checks.check
        # ---- Clear asks first ----
        draw(ada, wave(dy=80))
        ada.wait("return window.__proteinarRoom.state.strokes.size === 2", 20)
        ada.click("#room-clear")
        asked = ada.wait("return document.getElementById('room-dialog-clear').open", 10)
        ada.click("#room-clear-cancel")
        time.sleep(1)
        kept = bob.js("return window.__proteinarRoom.state.strokes.size") == 2
        check("Clear asks for confirmation, and Cancel keeps everything", bool(asked) and kept, f"asked={asked} strokes={strokes(bob)}")
        check("Clear is only offered to the owner", bob.js("return document.getElementById('room-clear').hidden") is True)
        ada.click("#room-clear")
        ada.wait("return document.getElementById('room-dialog-clear').open", 10)
        ada.click("#room-clear-confirm")
        check("confirmed, Clear empties the room in the other page",
              bool(bob.wait("const s = window.__proteinarRoom.state; return s.strokes.size === 0 && s.notes.size === 0 && !document.querySelector('#room-notes-layer .note-pin')", 20)))


def test_a_dropped_connection_loses_nothing_and_sends_nothing_twice(flow, checks, shots):
    with flow.steps.step():
        ada, bob = flow.ada, flow.bob
        check = checks.check
        # ---- A dropped connection: nothing lost, nothing twice ----
        # Every text the status line shows from now on, to see it say what happens.
        ada.js("""window.__said = []; const line = document.getElementById('room-status');
                  new MutationObserver(() => window.__said.push(line.textContent)).observe(line, { childList: true, characterData: true, subtree: true });
                  window.__proteinarRoom.sync._socket.close();""")
        draw(ada, wave(dy=40))  # drawn while the socket is down: queued, sent after the reconnect
        back = wait_live(ada, 30)
        state = ada.js("return window.__said.find(t => /reconnect/i.test(t))")
        arrived = bob.wait("return window.__proteinarRoom.state.strokes.size === 1 && window.__proteinarRoom.sync.unacknowledged === 0", 20)
        check("after a dropped connection the page says so, reconnects, and the queued stroke arrives once", bool(state and back and arrived),
              f"{state!r} / {back!r} / {strokes(bob)}")
        bob.js("window.__proteinarRoom.sync._socket.close()")
        draw(ada, wave(dy=-40))
        caught = bob.wait("return document.getElementById('room-status').dataset.state === 'live' && window.__proteinarRoom.state.strokes.size === 2", 30)
        seq = [ada.js("return window.__proteinarRoom.state.sequence"), bob.js("return window.__proteinarRoom.state.sequence")]
        same = ada.js("return JSON.stringify([...window.__proteinarRoom.state.strokes.values()])") == bob.js("return JSON.stringify([...window.__proteinarRoom.state.strokes.values()])")
        check("a page that lost its connection catches up with ?after= (same sequence, same strokes)", bool(caught) and seq[0] == seq[1] and same, f"{seq} same={same}")


def test_colours_brushes_a_new_joiners_deflated_snapshot_and_the_phones_tools(flow, checks, shots):
    with flow.steps.step():
        ada, bob, room_id = flow.ada, flow.bob, flow.room_id
        check = checks.check
        # A couple more strokes in other colours for the picture, and a note.
        ada.click("#room-swatches .swatch[data-color='#d62828']")
        ada.click("#room-brushes .brush-bold")
        draw(ada, [(int(60 * math.cos(a / 10)), int(60 * math.sin(a / 10)) - 20) for a in range(0, 63, 7)])
        ada.click("#room-swatches .swatch[data-color='#2b9348']")
        ada.click("#room-brushes .brush-fine")
        draw(ada, wave(dy=120, size=100))
        bob.wait("return window.__proteinarRoom.state.strokes.size === 4", 20)
        colours = bob.js("return [...new Set([...window.__proteinarRoom.state.strokes.values()].map(s => s.color + ' ' + s.width))].join(', ')")
        check("the colour swatches and brush sizes go with the strokes", "#d62828 0.012" in colours and "#2b9348 0.002" in colours, colours)
        # A new joiner as the room screen makes one: the whole room comes deflated once by the server
        # (snapshot=deflated, a binary frame), inflated by the browser, the same strokes as a live page's.
        joined = bob.js_async("""const [room, done] = arguments;
          import('/js/room-sync.js').then(({ RoomSync }) => {
            const sync = new RoomSync(room);
            // The snapshot kept from before may be a few operations behind: they follow it.
            const caughtUp = () => {
              if (!sync.room || sync.state.sequence < sync.room.sequence) return;
              const out = { url: sync._socket.url, strokes: JSON.stringify([...sync.state.strokes.values()]), sequence: sync.state.sequence };
              sync.close(); done(out);
            };
            sync.addEventListener('welcome', caughtUp);
            sync.addEventListener('change', caughtUp);
            sync.connect();
          }).catch((e) => done({ error: String(e) }));""", room_id)
        live_strokes = ada.js("return JSON.stringify([...window.__proteinarRoom.state.strokes.values()])")
        check("a new joiner gets the room deflated once by the server (snapshot=deflated) and builds the same strokes",
              "snapshot=deflated" in joined.get("url", "") and joined.get("strokes") == live_strokes
              and joined.get("sequence") == ada.js("return window.__proteinarRoom.state.sequence"), short(joined, 300))
        ada.click("#room-note")
        ada.wait("return document.getElementById('room-dialog-note').open", 10)
        ada.type_into("#room-note-text", "ATP binds here")
        ada.click("#room-note-centre")
        bob.wait("return document.querySelectorAll('#room-notes-layer .note-pin').length === 1", 20)
        bob.js("window.scrollTo(0, 0)")
        time.sleep(1)
        if shots:
            os.makedirs(shots, exist_ok=True)
            bob.screenshot(os.path.join(shots, "web-draw.png"))
        tools = bob.js("""const t = document.getElementById('room-tools').getBoundingClientRect();
                          return [Math.round(t.bottom), window.innerHeight, getComputedStyle(document.getElementById('room-tools')).position]""")
        check("on a phone the drawing tools sit at the bottom of the screen", tools[2] in ("sticky", "fixed") and abs(tools[0] - tools[1]) <= 2, str(tools))


def test_the_history_slider_and_the_others_camera_markers(flow, checks, shots):
    """Issue 18 (proteinar_testing/history_checks.py)."""
    with flow.steps.step():
        ada, bob, base, room_id = flow.ada, flow.bob, flow.base, flow.room_id
        check = checks.check
        # ---- Issue 18: the history slider, and the others' camera markers ----
        history_checks.run(check, ada=ada, bob=bob, base=base, room_id=room_id, draw=draw, shots=shots)


def test_the_camera_saves_a_picture_and_the_rooms_usdz_passes_usdz_check(flow, checks, shots):
    with flow.steps.step():
        ada, server = flow.ada, flow.server
        check = checks.check
        # ---- Capture and AR links ----
        ada.js("""window.__saved = null; const click = HTMLAnchorElement.prototype.click;
                  HTMLAnchorElement.prototype.click = function () { if (this.download) { window.__saved = this.href; return; } return click.call(this); };""")
        ada.js("window.scrollTo(0, 0)")
        ada.click("#camera-button")
        check("the camera button saves a picture of the room", bool(ada.wait("return window.__saved", 20)))
        usdz = ada.js("const a = document.querySelector('#room-ar-slot a[href$=\"model.usdz\"]'); return a && a.href")
        if not usdz:
            check("the room offers its USDZ next to View in AR", False, str(ada.js("return document.getElementById('room-ar-slot').innerHTML")))
        else:
            r = fetch(usdz, headers={"Accept": "*/*"}, timeout=120)
            if r.status != 200:
                check("the room's USDZ link answers", False, f"HTTP {r.status} for {usdz}")
            else:
                path = os.path.join(server.tmp, "room.usdz")
                with open(path, "wb") as f: f.write(r.raw)
                res = subprocess.run(["python3", CHECK_USDZ, path], capture_output=True, text=True)
                check("the room's USDZ link answers with a USDZ that passes usdz-check", res.returncode == 0, res.stdout[-400:] + res.stderr[-400:])


def test_in_ar_a_finger_on_the_screen_draws_in_the_air(flow, checks, shots):
    with flow.steps.step():
        ada, bob = flow.ada, flow.bob
        check = checks.check
        # ---- AR on the phone: placed on the table, a finger on the screen draws in the air ----
        count = strokes(ada)
        bob.js("window.scrollTo(0, 0)")
        bob.js("document.getElementById('room-ar-button').scrollIntoView({ block: 'center' })")
        bob.click("#room-ar-button")
        st = bob.wait("return !document.getElementById('ar-overlay').hidden && document.getElementById('ar-status').textContent", 20)
        bob.js("window.__xr.surface = true")
        bob.wait("return document.getElementById('ar-status').textContent.includes('Tap')", 10)
        bob.js("window.__xr.session.dispatchEvent(new Event('select'))")
        placed = bob.wait("return document.getElementById('ar-overlay').dataset.placed", 10)
        bob.js("window.__xr.session.dispatchEvent(new Event('selectstart'))")
        time.sleep(1)
        bob.js("window.__xr.session.dispatchEvent(new Event('selectend'))")
        drew = ada.wait(f"return window.__proteinarRoom.state.strokes.size === {count + 1}", 20)
        where = ada.js("const s = [...window.__proteinarRoom.state.strokes.values()].pop(); return s && s.points[0]")
        check("in AR (WebXR stand-in), touching the screen draws a stroke in front of the phone that the other page receives",
              bool(st and placed and drew and where and all(abs(v) < 2 for v in where)), f"{st!r} placed={placed} drew={drew} at={where}")
        bob.click("#ar-exit")
        bob.wait("return document.getElementById('ar-overlay').hidden", 10)


def test_a_guest_may_only_watch_until_the_owner_lets_guests_draw(flow, checks, shots):
    with flow.steps.step():
        ada, guest, base = flow.ada, flow.guest, flow.base
        check = checks.check
        # ---- A guest who may only watch ----
        ada.js("""window.__made = null; fetch('/api/session').then(r => r.json()).then(s => fetch('/api/rooms', { method: 'POST',
                  headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf },
                  body: JSON.stringify({ name: 'Oxford watchers', isPublic: true, guestsMayDraw: false, location: { latitude: 51.752, longitude: -1.2577 } }) }))
                  .then(r => r.json()).then(r => { window.__made = r.id; });""")
        watch_id = ada.wait("return window.__made", 20)
        ada.js("""window.__made2 = null; fetch('/api/session').then(r => r.json()).then(s => fetch('/api/rooms', { method: 'POST',
                  headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf },
                  body: JSON.stringify({ name: 'Berlin', isPublic: true, location: { latitude: 52.52, longitude: 13.405 } }) }))
                  .then(r => r.json()).then(r => { window.__made2 = r.id; });""")
        ada.wait("return window.__made2", 20)
        guest = flow.guest = Browser()
        guest.go(f"{base}/#/draw/{watch_id}")
        st = wait_live(guest)
        disabled = guest.js("""const shown = (id) => { const e = document.getElementById(id); return !e.hidden && e.offsetParent !== null; };
                               return !shown('room-undo') && !shown('room-mode-draw') && !shown('room-note') && !shown('room-swatches') && shown('room-mode-move')""")
        key = guest.js("return localStorage.getItem('proteinar-guest-key')")
        check("a guest may watch: the status line says live and read-only, and no drawing tools are shown (Move stays)",
              bool(st and "read-only" in st and disabled and key and 16 <= len(key) <= 64), f"{st!r} no tools={disabled} key={key!r}")
        # The owner's settings change reaches the other clients live: ticking "Guests may draw" in the
        # room's settings gives the watching guest the drawing tools, with no reload; unticking takes them away.
        ada.go(f"{base}/#/draw/{watch_id}")
        wait_live(ada)
        ada.wait("return !document.getElementById('room-settings').hidden", 20)
        ada.click("#room-settings-guests-draw")
        ada.click("#room-settings button[type=submit]")
        TOOLS = "const e = document.getElementById('room-mode-draw'); return !e.hidden && e.offsetParent !== null && document.getElementById('room-facts').textContent"
        given = guest.wait(TOOLS.replace("return !e.hidden", "return !e.hidden && document.getElementById('room-facts').textContent.includes('guests may draw')"), 20)
        ada.click("#room-settings-guests-draw")
        ada.click("#room-settings button[type=submit]")
        taken = guest.wait("const e = document.getElementById('room-mode-draw'); return (e.hidden || e.offsetParent === null) && document.getElementById('room-facts').textContent.includes('guests watch')", 20)
        check("the owner's settings reach the other clients live: Guests may draw gives the watching guest the drawing tools, unticking takes them away",
              bool(given and taken), f"{given!r} / {taken!r} / " + str(guest.js("return document.getElementById('room-facts').textContent")))


def test_the_map_without_tiles_lists_the_rooms_by_distance(flow, checks, shots):
    with flow.steps.step():
        ada, guest, base = flow.ada, flow.guest, flow.base
        check = checks.check
        # ---- The map: no tile server here, so the list by distance is what shows, and why ----
        ada.go(base + "/?map#/map")  # a fresh page load
        listed = ada.wait("""const l = [...document.querySelectorAll('#map-list li[data-km]')];
                             return document.getElementById('map-canvas').hidden && l.length === 3 && document.getElementById('map-origin').textContent.includes('from where you are')
                               && l.map(li => li.textContent)""", 40)
        note = ada.js("return document.getElementById('map-note').textContent")
        kms = ada.js("return [...document.querySelectorAll('#map-list li')].map(li => Number(li.dataset.km))")
        check("without a tile server the map says why and lists the rooms by distance", bool(listed) and "listed by distance" in note
              and "--tile-server" in note, f"{listed} / {note!r}")
        check("the list is nearest first, in km (Cambridge, Oxford, Berlin from Cambridge)",
              bool(listed) and "Active site" in listed[0] and "Oxford" in listed[1] and "Berlin" in listed[2] and "km" in listed[1]
              and kms == sorted(kms) and 100 < kms[1] < 130 and 900 < kms[2] < 1000, f"{listed} {kms}")
        ada.js("window.scrollTo(0, 0)")
        if shots: ada.screenshot(os.path.join(shots, "web-map.png"))
        guest.go(base + "/#/map")
        far = guest.wait("const l = [...document.querySelectorAll('#map-list li[data-km]')]; return l.length === 3 && document.getElementById('map-origin').textContent", 40)
        check("without the person's location, distances are from the middle of the map (or of the rooms)", bool(far and "not shared" in far), str(far))


def test_issue_17s_phone_features(flow, checks, shots):
    """Hue slider, residue notes in 3D, AR along the finger's ray, the room's place, Locate me (proteinar_testing/room_checks.py)."""
    with flow.steps.step():
        ada, bob, guest, base, room_id = flow.ada, flow.bob, flow.guest, flow.base, flow.room_id
        check = checks.check
        # ---- Issue 17's phone features: hue slider, residue notes in 3D, AR along the finger's ray, the room's place, Locate me ----
        room_checks.run(check, ada=ada, bob=bob, guest=guest, base=base, room_id=room_id, shots=shots)


def test_the_map_with_tiles_from_the_servers_own_origin(flow, checks, shots):
    """Through a second server with --tile-server (proteinar_testing/tile_checks.py)."""
    with flow.steps.step():
        guest = flow.guest
        check = checks.check
        # ---- The map with tiles, through a second server with --tile-server ----
        tile_checks.run(check, flow.binary, guest)


def test_no_page_broke_the_content_security_policy(flow):
    """Console messages naming it, from every browser of the run (run to its end or not)."""
    csp = []
    for browser in (flow.ada, flow.bob, flow.guest):
        if browser:
            csp += [f"{browser.base}: {m}" for m in browser.csp_violations()]
    assert csp == [], "console messages naming the Content-Security-Policy:\n  " + "\n  ".join(csp[:10])
