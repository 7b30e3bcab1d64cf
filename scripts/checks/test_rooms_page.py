"""Rooms (draw together) in the web app, in real headless Chromium sessions (Debian's chromium and
chromium-driver, WebGL2 through SwiftShader) against a real `proteinar serve`, driven over the W3C
WebDriver protocol as scripts/checks/test_web.py does (scripts/proteinar_testing).

Two people in two browsers: Ada registers and signs in through the page (the server's first
account, shown as its administrator), renames herself, creates a public room with its molecule and
place, saves its settings (read back from the server) and invites Bob (registered in the second
browser, a phone with Android Chrome's user agent and the WebXR stand-in of test_web.py), who
accepts; a bare socket with no account and no guest key is counted as a watcher, not listed.
test_rooms_page_drawing.py carries the same run on (strokes, notes, AR, guests, the map).

One flow through two browsers, a test for each of its steps in order, sharing the browsers, the
server and the room (conftest.py's session fixture `flow`); a step's checks print ok/FAIL and the
test fails listing each FAIL. When a step stops on an error, the steps after it are skipped, saying
where it stopped. --screenshots DIR keeps the pictures."""
import json

import pytest
from websockets.sync.client import connect as ws_connect

from in_browser.rooms_page import UNNAMED, wait_live

pytestmark = pytest.mark.browser


def test_accounts_through_the_page_register_sign_out_and_sign_in(flow, checks, shots):
    """Registering and signing in through the page: errors said beside the field, the first account an administrator."""
    with flow.steps.step():
        ada, base = flow.ada, flow.base
        check = checks.check
        # ---- Accounts through the page ----
        ada.go(base + "/")
        ada.wait("return document.querySelectorAll('.cards .card').length >= 5")
        check("the landing page's Rooms card is enabled and opens the rooms",
              ada.js("const c = document.querySelector('a.card[href=\"#/rooms\"]'); return !!c && !c.matches('.disabled')"))
        ada.click("a.card[href='#/rooms']")
        check("signed out, the rooms page offers to sign in and lists the (no) rooms helpfully",
              bool(ada.wait("const t = document.getElementById('view-rooms').textContent; return !document.getElementById('view-rooms').hidden"
                            " && !document.getElementById('room-form-guest').hidden && /No public rooms yet/.test(t)", 20)))
        ada.click("#rooms-account a.button")
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
        bar = ada.wait("return location.hash === '#/rooms' && document.getElementById('rooms-account').textContent.includes('Ada') && document.getElementById('rooms-account').textContent", 20)
        check("register through the page: signed in as Ada, back on the rooms", bool(bar), str(ada.js("return [location.hash, document.getElementById('register-error').textContent]")))
        check("the server's first account is shown as its administrator", bool(bar and "Ada (administrator)" in bar), str(bar))
        told = ada.js("return document.getElementById('status').textContent")
        check("…and is told so when it happens, with what it means", "administrator" in told and "delete any molecule" in told, told)
        ada.click("#rooms-account button")  # Sign out
        ada.wait("return document.getElementById('rooms-account').textContent.includes('guest')", 10)
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
        check("sign in through the page", bool(ada.wait("return location.hash === '#/rooms' && document.getElementById('rooms-account').textContent.includes('Ada')", 20)))


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
        bar = bob.wait("return location.hash === '#/rooms' && document.getElementById('rooms-account').textContent.includes('Bob') && document.getElementById('rooms-account').textContent", 20)
        check("a second person registers in a second browser (a member, not an administrator)", bool(bar and "administrator" not in bar), str(bar))


def test_a_public_room_is_created_through_the_page_and_opens_live(flow, checks, shots):
    """The room's molecule shown, the status line live, every control named."""
    with flow.steps.step():
        ada, base, room_id = flow.ada, flow.base, flow.room_id
        check = checks.check
        # ---- A room ----
        ada.go(base + "/#/rooms")
        ada.wait("return !document.getElementById('room-form').hidden", 20)
        ada.type_into("#room-name", "Active site")
        ada.wait("return document.querySelectorAll('#room-molecule option').length > 1", 20)
        ada.js("document.getElementById('room-molecule').value = '1AKE'")
        ada.click("#room-use-location")
        located = ada.wait("const t = document.getElementById('room-location-note').textContent; return t.includes('52.2') && t", 20)
        check("“Use my location” reads the position for the map", bool(located), str(ada.js("return document.getElementById('room-location-note').textContent")))
        ada.click("#room-form button[type=submit]")
        room_id = flow.room_id = ada.wait("const m = /^#\\/rooms\\/(.+)$/.exec(location.hash); return m && m[1]", 20)
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
        bob.go(f"{base}/#/rooms")
        above = bob.wait("const l = document.getElementById('rooms-invitation-list');"
                         " return !document.getElementById('rooms-invitations').hidden && l.textContent.includes('Active site') && l.textContent", 20)
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
        bob.go(f"{base}/#/rooms/{room_id}")
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
