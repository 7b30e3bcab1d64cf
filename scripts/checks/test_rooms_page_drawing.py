"""Rooms in the web app, the flow's second half (test_rooms_page.py is the first; the two share
the run through conftest.py's session fixture `flow`): strokes drawn in one page appear in the
other; undo, clear (after a confirmation), notes (as text, never markup), a dropped connection
(nothing lost, nothing twice), colours, brushes and a joiner's deflated snapshot, the history
slider and the others' cameras, the camera's picture and the room's USDZ (it must answer 200 and
pass usdz-check), AR drawing, a guest who may only watch until the owner lets guests draw, and
the map with and without tiles. No page of either half may break the Content-Security-Policy."""
import math
import os
import subprocess
import time

import pytest

from in_browser import history_checks, room_checks, tile_checks
from in_browser.rooms_page import draw, strokes, wait_live, wave
from proteinar_testing.browser import Browser
from proteinar_testing.http_client import fetch
from proteinar_testing.paths import CHECK_USDZ
from proteinar_testing.report import short

pytestmark = pytest.mark.browser


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
            bob.screenshot(os.path.join(shots, "web-rooms.png"))
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
        # A link shared before the screen was named Rooms (#/draw/ROOMID, in QR codes too) still opens the room.
        guest.go(f"{base}/#/draw/{watch_id}")
        st = wait_live(guest)
        check("a room's link from before the rename (#/draw/ROOMID) opens the room at #/rooms/ROOMID",
              guest.js("return location.hash") == f"#/rooms/{watch_id}" and bool(st), f"{guest.js('return location.hash')} {st!r}")
        disabled = guest.js("""const shown = (id) => { const e = document.getElementById(id); return !e.hidden && e.offsetParent !== null; };
                               return !shown('room-undo') && !shown('room-mode-draw') && !shown('room-note') && !shown('room-swatches') && shown('room-mode-move')""")
        key = guest.js("return localStorage.getItem('proteinar-guest-key')")
        check("a guest may watch: the status line says live and read-only, and no drawing tools are shown (Move stays)",
              bool(st and "read-only" in st and disabled and key and 16 <= len(key) <= 64), f"{st!r} no tools={disabled} key={key!r}")
        # The owner's settings change reaches the other clients live: ticking "Guests may draw" in the
        # room's settings gives the watching guest the drawing tools, with no reload; unticking takes them away.
        ada.go(f"{base}/#/rooms/{watch_id}")
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
