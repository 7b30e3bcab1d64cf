"""test_rooms_page_drawing.py's checks of the drawing room's history slider and of the others' camera markers
(issue 18), run in its browser session while Ada (the owner, a desktop page) and Bob (a member, the
Android phone) are both in the room `room_id` with a few strokes and a note.

History: the slider at N shows exactly the strokes of GET /api/rooms/{id}/state?at=N (the ids the
viewer holds, compared with the API's), drawing is off and the status line says so, a stroke Ada draws
meanwhile reaches Bob's room in the background but not his view until Back to live; Play steps
through the room with a bounded number of requests and ends live; the keyboard moves the slider and
Escape goes back to live. Markers: Bob sees Ada's camera, named, at the position Ada's camera is
(the same frame as the strokes), and it moves when she turns the view; a guest's bare socket with a
view shows as a marker with its name in both pages, moves, and goes when the socket closes; nobody
sees a marker of themselves."""
import json
import os
import time

from websockets.sync.client import connect as ws_connect

from proteinar_testing.http_client import fetch

# What Bob's viewer holds now: the ids of the strokes it draws (residue balls left out), sorted.
DRAWN = "return [...window.__proteinarRoom.drawn.keys()].filter((k) => !k.startsWith('note:')).sort()"
LIVE = "return [...window.__proteinarRoom.state.strokes.keys()].sort()"
PANEL = """const p = document.getElementById('room-history'); return {mode: p.dataset.mode, at: Number(p.dataset.at), shown: Number(p.dataset.shown),
  said: document.getElementById('room-history-said').textContent, max: Number(document.getElementById('room-history-slider').max),
  status: document.getElementById('room-status').dataset.state, statusText: document.getElementById('room-status').textContent}"""
# A marker's label in this page for the person named arguments[0]: its text, where it is and what it shows.
# Ada's camera as she shares it (rounded to the millimetre), once live.
CAMERA = "const v = window.__proteinarRoom.viewer.camera; return window.__proteinarRoom.sync.status === 'live' && v.position.map((x) => Math.round(x * 1e3) / 1e3)"
LABELS = "return [...document.querySelectorAll('#room-peers-layer .peer-label')].map((l) => l.textContent)"
MARKER_VIEW = """const r = window.__proteinarRoom, p = r.sync.peers.find((q) => q.name === arguments[0]);
  const l = p && document.querySelector(`#room-peers-layer [data-peer-marker="${CSS.escape(String(p.connection ?? p.id))}"]`);
  return l && p.view && {view: p.view, name: l.textContent, x: Number(l.dataset.x), y: Number(l.dataset.y), color: l.style.getPropertyValue('--peer'),
    near: l.dataset.near, shown: !l.hidden, projected: r.viewer.project(p.view.position)}"""


def _state_ids(base, room_id, at):
    r = fetch(f"{base}/api/rooms/{room_id}/state?at={at}", timeout=30)
    return sorted(s["id"] for s in r.json["strokes"]) if r.status == 200 and r.json else None


def _slide(browser, value):
    browser.js("const s = document.getElementById('room-history-slider'); s.value = String(arguments[0]); s.dispatchEvent(new Event('input', { bubbles: true }))", value)


def run(check, *, ada, bob, base, room_id, draw, shots=None):
    started = time.time()
    bob.js("window.scrollTo(0, 0)")
    bob.js("document.getElementById('room-history').scrollIntoView({ block: 'center' })")
    live = bob.js(LIVE)
    seq = bob.js("return window.__proteinarRoom.state.sequence")
    said = bob.js("return document.getElementById('room-history-said').textContent")
    check("the history line says live in words: “Live — N changes so far”, not “operation N of N”",
          f"Live — {seq} change" in said and "operation" not in said.lower(), said)
    # A point in the past that looks different from now (some strokes, not today's).
    at, past = None, None
    for n in (seq // 2, seq // 3, (2 * seq) // 3, seq - 3, seq // 4):
        ids = _state_ids(base, room_id, n)
        if ids and ids != live:
            at, past = n, ids
            break
    _slide(bob, at if at is not None else 0)
    shown = bob.wait("""const p = document.getElementById('room-history').dataset; return p.mode === 'history' && Number(p.shown) === arguments[0]
                        && document.getElementById('room-stage').dataset.shown === String(arguments[1]) && true""", 20, at, len(past or []))
    drawn = bob.js(DRAWN)
    panel = bob.js(PANEL)
    tools = bob.js("return ['room-undo', 'room-note', 'room-mode-draw'].map((id) => document.getElementById(id).disabled)")
    check(f"the history slider at operation {at} of {seq} shows exactly the strokes of state?at={at} (ids compared with the API), says so, and drawing is off",
          at is not None and bool(shown) and drawn == past and f"After change {at} of {seq}" in panel["said"] and "drawing waits" in panel["said"]
          and panel["status"] == "history" and all(tools), f"at={at} drawn {drawn} vs API {past}; {panel}; tools disabled {tools}")
    sizes = bob.js("""return ['room-history-slider', 'room-history-play', 'room-history-live'].map((id) => {
                        const e = document.getElementById(id); return [id, Math.round(e.getBoundingClientRect().height), e.labels?.[0]?.textContent || e.getAttribute('aria-label') || e.textContent]; })""")
    check("the history controls are labelled and at least 44 px tall (the slider, Play, Back to live)",
          all(h >= 44 and name for _, h, name in sizes), str(sizes))
    if shots:
        time.sleep(1)
        # The view and the history control above the phone's fixed drawing tools.
        bob.js("const p = document.getElementById('room-history').getBoundingClientRect(), t = document.getElementById('room-tools').getBoundingClientRect();"
               " window.scrollBy(0, p.bottom - t.top + 8)")
        time.sleep(0.5)
        bob.screenshot(os.path.join(shots, "room-history.png"))

    # Ada draws while Bob looks back: his room takes it in, his view does not, until Back to live.
    draw(ada, [(-60, 90), (60, 110)])
    arrived = bob.wait("return window.__proteinarRoom.state.strokes.size === arguments[0] && window.__proteinarRoom.sync.status === 'live'"
                       " && Number(document.getElementById('room-history-slider').max) > arguments[1]", 20, len(live) + 1, seq)
    still = bob.js(DRAWN)
    check("while Bob looks back, a stroke Ada draws reaches his room (the socket stays live, the slider's end moves) but not his view",
          bool(arrived) and still == past and bob.js(PANEL)["mode"] == "history", f"arrived={arrived} view {still} vs past {past}")
    bob.click("#room-history-live")
    now = bob.js(LIVE)
    back = bob.wait("""const s = document.getElementById('room-status').dataset.state, d = [...window.__proteinarRoom.drawn.keys()].filter((k) => !k.startsWith('note:'));
                       return s === 'live' && document.getElementById('room-history').dataset.mode === 'live' && d.length === arguments[0] && d""", 20, len(now))
    check("Back to live shows the live room, with the stroke drawn meanwhile, and drawing is on again",
          bool(back) and sorted(back) == now and len(now) == len(live) + 1  and bob.js("return !document.getElementById('room-note').disabled && document.getElementById('room-mode-draw').getAttribute('aria-pressed') === 'true'"),
          f"{back} vs live {now}")

    # Play: from the start to the live end, a bounded number of requests, each step later than the last.
    bob.js("""window.__steps = []; const p = document.getElementById('room-history');
              window.__stepWatch = new MutationObserver(() => { if (p.dataset.mode === 'history' && p.dataset.shown === p.dataset.at) window.__steps.push(Number(p.dataset.shown)); });
              window.__stepWatch.observe(p, { attributes: true, attributeFilter: ['data-shown'] });
              performance.setResourceTimingBufferSize(2000); performance.clearResourceTimings();""")
    t0 = time.time()
    bob.click("#room-history-play")
    ended = bob.wait("return window.__steps.length > 3 && document.getElementById('room-history').dataset.mode === 'live' && document.getElementById('room-status').dataset.state === 'live'", 25)
    took = time.time() - t0
    steps = bob.js("window.__stepWatch.disconnect(); return [...new Set(window.__steps)]")
    asked = bob.js("return performance.getEntriesByType('resource').filter((e) => e.name.includes('/state?at=')).length")
    end = bob.js(PANEL)
    check("Play replays the room from the start and ends live (at most 24 requests, each step further on, a few seconds)",
          bool(ended) and steps and steps[0] == 0 and steps == sorted(steps) and asked <= 24 and end["at"] == end["max"] and took < 20,
          f"steps {steps}, {asked} requests, {took:.1f} s, {end}")

    # The keyboard: an arrow key on the slider steps back one operation; Escape returns to live.
    bob.js("document.getElementById('room-history-slider').focus()")
    bob.keys("\ue012")  # ArrowLeft
    one_back = bob.wait("const p = document.getElementById('room-history').dataset; return p.mode === 'history' && Number(p.at)", 10)
    bob.keys("\ue00c")  # Escape
    esc = bob.wait("return document.getElementById('room-history').dataset.mode === 'live' && document.activeElement.id", 10)
    check("the keyboard works the history: ← on the slider steps one operation back, Escape returns to live",
          one_back == end["max"] - 1 and esc == "room-history-slider", f"{one_back} (end {end['max']}), focus {esc!r}")
    print(f"     history checks took {time.time() - started:.1f} s")

    # ---- Others' camera markers ----
    started = time.time()
    ada_name = ada.js("return window.__proteinarRoom.you.name")
    # Ada turns her view with the keyboard (arrow keys on the 3D view), so she shares a view that is hers.
    ada.js("document.getElementById('room-viewer').focus()")
    ada.keys("\ue012", "\ue012", "\ue012")
    time.sleep(0.5)  # the turn settles
    cam = ada.wait(CAMERA, 10)
    seen = bob.wait(f"const m = (() => {{ {MARKER_VIEW} }})(); return m && JSON.stringify(m.view.position) === JSON.stringify(arguments[1]) && m", 20, ada_name, cam)
    dot = bob.js("const p = window.__proteinarRoom.sync.peers.find((q) => q.name === arguments[0]); const d = p && document.querySelector(`#room-peers [data-peer=\"${CSS.escape(p.id)}\"] .peer-dot`);"
                 " return d && d.style.getPropertyValue('--peer')", ada_name)
    labels = bob.js(LABELS)
    check("Bob sees Ada's camera marker, named, at the very position her camera is (the strokes' frame), in her colour (as beside her name in Here now)",
          bool(seen) and seen["name"] == ada_name and seen["near"] == "false" and seen["shown"] and bool(seen["color"]) and seen["color"] == dot
          and abs(seen["x"] - seen["projected"]["x"]) < 1 and "Bob" not in labels,
          f"{seen} dot {dot!r}; Ada's camera {cam}; labels {labels}")
    ada.keys("\ue014", "\ue014", "\ue014", "\ue014", "\ue014", "\ue014")  # ArrowRight: turn the other way
    time.sleep(0.5)
    cam2 = ada.wait(CAMERA, 10)
    cam2 = cam2 if cam2 != cam else None
    moved = bob.wait(f"const m = (() => {{ {MARKER_VIEW} }})(); return m && JSON.stringify(m.view.position) === JSON.stringify(arguments[1]) && m", 20, ada_name, cam2) if cam2 else None
    check("when Ada turns her view, her marker in Bob's view moves with her",
          bool(moved and seen) and (moved["x"], moved["y"]) != (seen["x"], seen["y"]), f"{cam} → {cam2}: {moved}")

    # A guest's bare socket with a view: a named marker in both pages, moving, gone when it leaves.
    url = f"{base.replace('http', 'ws', 1)}/api/rooms/{room_id}/live?guest=historycheckguest0123456789"
    with ws_connect(url, open_timeout=10, close_timeout=2) as guest:
        hello = json.loads(guest.recv(timeout=10))
        name = (hello.get("you") or {}).get("name")
        # Behind the molecule and to one side, looking at it: in sight of both pages' default views.
        guest.send(json.dumps({"type": "presence", "view": {"position": [0.15, 0.3, -0.15], "target": [0, 0.1, 0]}}))
        both = [b.wait(f"const m = (() => {{ {MARKER_VIEW} }})(); return m && m.view.position[0] === 0.15 && m", 20, name) for b in (ada, bob)]
        if shots:
            time.sleep(1)
            bob.screenshot(os.path.join(shots, "room-markers.png"))
        guest.send(json.dumps({"type": "presence", "view": {"position": [-0.15, 0.3, -0.15], "target": [0, 0.1, 0]}}))
        went = bob.wait(f"const m = (() => {{ {MARKER_VIEW} }})(); return m && m.view.position[0] === -0.15 && m", 20, name)
    check("a guest's view (a bare socket) shows as a named marker in both pages, and moves when the guest looks from elsewhere",
          bool(name) and all(both) and all(m["name"] == name for m in both) and bool(went) and went["x"] != both[1]["x"], f"{name!r} {both} {went}")
    gone = [b.wait("return ![...document.querySelectorAll('#room-peers-layer .peer-label')].some((l) => l.textContent === arguments[0])", 20, name) for b in (ada, bob)]
    check("the guest's marker goes when the guest leaves", all(gone), f"{gone} labels now {bob.js(LABELS)}")
    print(f"     marker checks took {time.time() - started:.1f} s")
