"""test_rooms_page_drawing.py's checks of the drawing room's phone features (issue 17, part 5), run at the end of
its browser session with its two people: the hue slider and the colour said to screen readers, a
note pinned to a residue shown in 3D at that residue, drawing in AR along the finger's ray (the
WebXR stand-in given a transient 'screen' input with a targetRaySpace) and a tap making a dot, the
owner moving the room on the map, and "Locate me" on the map (centred, and said when refused).

Ada (the owner, a desktop page, her position Cambridge) and Bob (a member, the Android phone with
browser.XR_STUB) are in the room `room_id`, which has 1AKE; `guest` is a third page."""
import math
import os
import re
import time

from proteinar_testing.http_client import fetch

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
# The newest stroke once the room holds `n` strokes (and it has more than `min` points), else null.
LAST = ("const s = [...window.__proteinarRoom.state.strokes.values()].pop(); const n = window.__proteinarRoom.state.strokes.size;"
        " return s && n === arguments[0] && s.points.length > arguments[1] && {color: s.color, points: s.points}")
COUNT = "return window.__proteinarRoom.state.strokes.size"
# The stand-in's camera (browser.XR_STUB: eye at (0, 1.1, 0.1) looking at (0, 0.75, -0.5)) and where
# the room stands once placed (its surface hit, (0, 0.7, -0.5), turned 0, scale 1).
EYE = (0.0, 1.1, 0.1)
AHEAD = (0.0, 0.75, -0.5)
TABLE = (0.0, 0.7, -0.5)
# A finger near the screen's right edge: the ray from the eye towards a point 25 cm right of the middle.
OFF_CENTRE = (0.25, 0.8, -0.5)

# The finger's ray for the stand-in: frames get getPose(space) for the input's targetRaySpace, from
# window.__ray = {origin, target} (the ray runs from origin through target).
RAY_STUB = r"""(() => {
  const unit = (a) => { const l = Math.hypot(...a); return a.map((v) => v / l); };
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  window.__raySpace = { kind: 'target-ray' };
  window.__rayPose = () => {
    const r = window.__ray, o = r.origin;
    const z = unit(r.target.map((v, i) => o[i] - v)), x = unit(cross([0, 1, 0], z)), y = cross(z, x);
    return { transform: { matrix: new Float32Array([...x, 0, ...y, 0, ...z, 0, ...o, 1]), position: { x: o[0], y: o[1], z: o[2] } } };
  };
  const xr = navigator.xr, request = xr.requestSession;
  xr.requestSession = async (mode, init) => {
    const session = await request(mode, init), frames = session.requestAnimationFrame.bind(session);
    session.requestAnimationFrame = (cb) => frames((t, frame) => {
      // A transient touch has no pose once it has ended (as in browsers), so a quick tap must use
      // the pose its events carried.
      frame.getPose = (space) => (space === window.__raySpace && window.__ray && !window.__ended ? window.__rayPose() : null);
      cb(t, frame);
    });
    return session;
  };
  window.__touch = (type) => {
    const e = new Event(type);
    e.inputSource = { targetRayMode: 'screen', targetRaySpace: window.__raySpace, profiles: ['generic-touchscreen'] };
    if (type === 'selectstart') window.__ended = false;
    const pose = window.__ray ? window.__rayPose() : null;
    e.frame = { getPose: (space) => (space === window.__raySpace ? pose : null) };
    if (type === 'selectend') window.__ended = true;
    window.__xr.session.dispatchEvent(e);
  };
})();"""


def _sub(a, b): return [a[i] - b[i] for i in range(3)]
def _norm(a): return math.sqrt(sum(v * v for v in a))
def _unit(a): n = _norm(a); return [v / n for v in a]
def _dot(a, b): return sum(a[i] * b[i] for i in range(3))


def _off_ray(point, origin, target):
    """Distance (m) from `point` to the ray origin→target, and the angle (degrees) between them."""
    d, v = _unit(_sub(target, origin)), _sub(point, origin)
    along = _dot(v, d)
    return _norm([v[i] - along * d[i] for i in range(3)]), math.degrees(math.acos(max(-1, min(1, along / (_norm(v) or 1)))))


def _world(room_point):
    return [room_point[i] + TABLE[i] for i in range(3)]


def _tap(browser, x, y):
    canvas = {ELEMENT: browser.find("#room-viewer")}
    browser.wd("POST", browser.s + "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
        {"type": "pointerMove", "duration": 0, "origin": canvas, "x": x, "y": y}, {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})
    browser.wd("DELETE", browser.s + "/actions")


def _calphas(base, molecule, wanted):
    """Cα positions (Å) of `wanted` residues ("A:45") from the molecule's mmCIF or PDB file."""
    text = fetch(f"{base}/api/molecules/{molecule}/file", headers={"Accept": "*/*"}, timeout=30).raw.decode()
    found = {}
    if "_atom_site." in text:
        cols = re.findall(r"^_atom_site\.(\S+)", text, re.M)
        for line in text.splitlines():
            t = line.split()
            if len(t) != len(cols) or t[0] not in ("ATOM", "HETATM"): continue
            r = dict(zip(cols, t))
            key = f"{r.get('auth_asym_id', r.get('label_asym_id'))}:{r.get('auth_seq_id', r.get('label_seq_id'))}"
            if r.get("auth_atom_id", r.get("label_atom_id")) == "CA" and key in wanted and key not in found:
                found[key] = [float(r["Cartn_x"]), float(r["Cartn_y"]), float(r["Cartn_z"])]
    else:
        for line in text.splitlines():
            key = f"{line[21:22]}:{line[22:26].strip()}"
            if line.startswith("ATOM") and line[12:16].strip() == "CA" and key in wanted and key not in found:
                found[key] = [float(line[30:38]), float(line[38:46]), float(line[46:54])]
    return found


def run(check, *, ada, bob, guest, base, room_id, shots=None):
    # ---- Hue slider: the colour, and its name said to screen readers ----
    bob.go(f"{base}/#/rooms/{room_id}")
    bob.wait("return document.getElementById('room-status').dataset.state === 'live'", 30)
    bob.js("window.scrollTo(0, 0)")
    before = bob.js(COUNT)
    bob.js("const h = document.getElementById('room-hue'); h.value = '30'; h.dispatchEvent(new Event('input', { bubbles: true }))")
    said = bob.js("const s = document.getElementById('room-colour-said'); return [s.getAttribute('aria-live'), s.textContent]")
    _tap(bob, 60, -60)
    dot = bob.wait(f"const s = [...window.__proteinarRoom.state.strokes.values()].pop(); return window.__proteinarRoom.state.strokes.size === {before + 1} && s.color", 20)
    slider = bob.js("const h = document.getElementById('room-hue'); return [h.labels[0].textContent.trim(), h.getBoundingClientRect().height]")
    check("the hue slider beside the swatches sets the drawing colour, and an aria-live region says “Colour: orange”",
          said == ["polite", "Colour: orange"] and dot == "#cf7317" and slider[0] == "Hue" and slider[1] >= 44, f"{said} stroke {dot!r} slider {slider}")
    bob.click("#room-swatches .swatch[data-color='#8e44ad']")
    said = bob.js("return document.getElementById('room-colour-said').textContent")
    check("picking a swatch says its name too", said == "Colour: purple", repr(said))

    # ---- A note pinned to a residue, drawn in 3D at the residue ----
    bob.click("#room-note")
    bob.wait("return document.getElementById('room-dialog-note').open", 10)
    bob.type_into("#room-note-text", "The lid closes over ATP here")
    bob.type_into("#room-note-residue", "A:45")
    bob.click("#room-note-centre")
    for number in (13, 150):
        bob.js("window.__proteinarRoom.sync.send({ type: 'add-note', id: 'n-res-' + arguments[0], text: 'Residue ' + arguments[0],"
               " anchor: { chain: 'A', residue: arguments[0] } })", number)
    pins = bob.wait("""const p = [...document.querySelectorAll('#room-notes-layer .residue-pin')];
                       return p.length === 3 && document.getElementById('room-stage').dataset.residueMarks === '3'
                         && Object.fromEntries(p.map((e) => [e.dataset.residue, [e.dataset.point.split(' ').map(Number), !e.hidden, e.textContent]]))""", 30)
    # How far each pin is from the molecule's nearest vertex (metres): a pin at its residue sits on the ribbon.
    near = bob.js("""const v = window.__proteinarRoom.viewer.model, out = {};
      for (const pin of document.querySelectorAll('#room-notes-layer .residue-pin')) {
        const p = pin.dataset.point.split(' ').map(Number); let best = Infinity;
        for (const node of v.nodes) { const m = node.matrix;
          for (const prim of v.meshes[node.mesh].primitives) { const a = prim.positions;
            for (let i = 0; i < a.length; i += 3) {
              const x = m[0] * a[i] + m[4] * a[i + 1] + m[8] * a[i + 2] + m[12] - p[0], y = m[1] * a[i] + m[5] * a[i + 1] + m[9] * a[i + 2] + m[13] - p[1],
                    z = m[2] * a[i] + m[6] * a[i + 1] + m[10] * a[i + 2] + m[14] - p[2];
              best = Math.min(best, x * x + y * y + z * z); } } }
        out[pin.dataset.residue] = Math.sqrt(best); }
      return out;""") if pins else {}
    listed = bob.wait("const n = [...document.querySelectorAll('#room-notes li')].find((li) => li.textContent.includes('lid closes')); return n && n.textContent", 20)
    ca = _calphas(base, "1AKE", {"A:13", "A:45", "A:150"})
    ratios = []
    if pins and len(ca) == 3:
        for a, b in (("A:13", "A:45"), ("A:45", "A:150"), ("A:13", "A:150")):
            ratios.append(_norm(_sub(pins[a][0], pins[b][0])) / _norm(_sub(ca[a], ca[b])))
    # The model's longest side is 0.3 m; 1AKE is about 60 Å across: some 5 mm an ångström.
    same = bool(ratios) and max(ratios) / min(ratios) < 1.08 and 0.003 < ratios[0] < 0.008 and len(near) == 3 and max(near.values()) < 0.006
    print(f"     residue pins: Cα distance ratios {[round(r, 5) for r in ratios]}, nearest molecule vertex (m) {near}")
    check("a note pinned to residue A:45 is drawn in 3D at that residue (a ball and a label on the molecule; three residues keep their Cα distances to scale)",
          bool(pins) and same and pins["A:45"][1] and "A:45" in pins["A:45"][2] and bool(listed and "at A 45" in listed),
          f"pins {pins} ratios {ratios} nearest vertex {near} list {listed!r}")
    bob.js("for (const id of ['n-res-13', 'n-res-150']) window.__proteinarRoom.sync.send({ type: 'remove-note', id })")
    bob.wait("return document.querySelectorAll('#room-notes-layer .residue-pin').length === 1", 20)
    if shots:
        # A phone's screen, 390 × 844 CSS px inside the window, the room's view just under the top bar.
        chrome = bob.js("return [outerWidth - innerWidth, outerHeight - innerHeight]")
        bob.wd("POST", bob.s + "/window/rect", {"width": 390 + chrome[0], "height": 844 + chrome[1]})
        bob.js("const s = document.getElementById('room-title'); window.scrollTo(0, s.getBoundingClientRect().top + scrollY - 70)")
        time.sleep(1.5)
        bob.screenshot(os.path.join(shots, "room-pinned-note.png"))

    # ---- AR: a finger's ray, and a tap ----
    bob.js(RAY_STUB)
    bob.js("document.getElementById('room-ar-button').scrollIntoView({ block: 'center' })")
    bob.click("#room-ar-button")
    bob.wait("return !document.getElementById('ar-overlay').hidden", 20)
    bob.js("window.__xr.surface = true")
    bob.wait("return document.getElementById('ar-status').textContent.includes('Tap')", 10)
    bob.js("window.__xr.session.dispatchEvent(new Event('select'))")
    hint = bob.wait("const t = document.getElementById('ar-status').textContent; return document.getElementById('ar-overlay').dataset.placed && /draw/.test(t) && t", 10)
    check("in AR, once the room stands, the hint says what a touch does (draw where the finger points, tap for a dot)",
          bool(hint and "draw where it points" in hint and "tap for a dot" in hint), repr(hint))
    count = bob.js(COUNT)
    bob.js("window.__ray = { origin: arguments[0], target: arguments[1] }; window.__touch('selectstart'); window.__touch('selectend')", list(EYE), list(OFF_CENTRE))
    tap = bob.wait(LAST, 20, count + 1, 0)
    off, angle = _off_ray(_world(tap["points"][0]), EYE, OFF_CENTRE) if tap else (None, None)
    ahead = _off_ray(_world(tap["points"][0]), EYE, AHEAD)[1] if tap else None
    check("in AR a tap makes a dot where the finger's ray points (off-centre), not straight ahead of the phone",
          bool(tap) and len(tap["points"]) == 1 and off < 0.002 and ahead > 10, f"{tap} off the ray {off} m, {ahead}° from straight ahead")
    # A stroke: the finger slides right to left while held, one step for each frame the session
    # draws (SwiftShader's frames are slow and uneven, so steps by the clock could all fall in one);
    # every point lies along the ray of its moment.
    bob.js("""window.__ray = { origin: arguments[0], target: [0.25, 0.8, -0.5] }; window.__touch('selectstart');
              let k = 0, seen = window.__xr.frames; window.__swept = false;
              window.__sweep = setInterval(() => { if (window.__xr.frames === seen) return; seen = window.__xr.frames; k++;
                window.__ray = { origin: arguments[0], target: [0.25 - 0.05 * k, 0.8, -0.5] };
                if (k >= 6) { clearInterval(window.__sweep); window.__touch('selectend'); window.__swept = true; } }, 20);""", list(EYE))
    bob.wait("return window.__swept && !window.__proteinarRoom.sync.unacknowledged", 30)
    stroke = bob.wait(LAST, 20, count + 2, 1)
    # The finger's rays all lie in one plane (through the eye, sweeping along x); straight ahead does not.
    normal = _unit([0, -(OFF_CENTRE[2] - EYE[2]), OFF_CENTRE[1] - EYE[1]])  # (1, 0, 0) × (target − eye)
    plane = [abs(_dot(_sub(_world(p), EYE), normal)) for p in stroke["points"]] if stroke else [1]
    depth = [_norm(_sub(_world(p), EYE)) for p in stroke["points"]] if stroke else [0]
    xs = [p[0] for p in stroke["points"]] if stroke else [0]
    check("in AR a held finger draws along its ray: every point on the finger's rays, at the molecule's distance, following the finger",
          bool(stroke) and max(plane) < 0.002 and max(depth) - min(depth) < 0.01 and xs[0] - xs[-1] > 0.02,
          f"{stroke} off the rays' plane {max(plane)}, depths {min(depth)}–{max(depth)}")
    bob.click("#ar-exit")
    bob.wait("return document.getElementById('ar-overlay').hidden", 10)

    # ---- The owner moves the room on the map (to Edinburgh) ----
    ada.go(f"{base}/#/rooms/{room_id}")
    ada.wait("return !document.getElementById('room-place').hidden && document.getElementById('room-place-now').textContent.includes('52.2')", 30)
    ada.click("#room-place summary")
    for field, value in (("#room-latitude", "55.9533"), ("#room-longitude", "-3.1883")):
        ada.js(f"document.querySelector('{field}').value = ''")
        ada.type_into(field, value)
    ada.click("#room-place-form button[type=submit]")
    saved = ada.wait("const s = document.getElementById('status').textContent; return s.includes('55.953') && s", 20)
    guest.go(f"{base}/?again#/rooms/{room_id}")
    seen = guest.wait("const f = document.getElementById('room-facts').textContent; return f.includes('55.953, -3.188') && f", 30)
    check("the owner moves the room on the map from the room screen; another page sees the new place", bool(saved and seen), f"{saved!r} / {seen!r}")

    # ---- …and takes another room off the map again (PATCH "location": null): the map no longer lists it ----
    berlin = ada.js_async("""const done = arguments[0]; fetch('/api/rooms').then((r) => r.json())
        .then((a) => done((a.rooms || a).find((r) => r.name === 'Berlin')?.id || null), () => done(null));""")
    ada.go(f"{base}/#/rooms/{berlin}")
    ada.wait("return !document.getElementById('room-place').hidden && !document.getElementById('room-place-remove').hidden", 30)
    ada.js("document.getElementById('room-place').open = true")  # still open from the move above, or opened now
    ada.click("#room-place-remove")
    off = ada.wait("const s = document.getElementById('status').textContent; return s.includes('no longer on the map') && document.getElementById('room-place-remove').hidden && s", 20)
    gone = ada.js_async("""const [id, done] = arguments; fetch('/api/rooms/' + id + '?state=none').then((r) => r.json())
        .then((a) => done(a.room && !a.room.location), () => done(null));""", berlin)
    check("the owner takes a room off the map (“Take off the map”): the server keeps no place for it", bool(berlin and off and gone), f"{berlin} {off!r} {gone}")

    # ---- Locate me ----
    ada.go(base + "/?again#/map")
    km = ada.wait(f"const li = document.querySelector('#map-list li[data-room=\"{room_id}\"]'); return li && document.getElementById('map-origin').textContent.includes('where you are') && Number(li.dataset.km)", 40)
    check("the map puts the moved room at its new place (Edinburgh, some 470 km from Cambridge)", bool(km) and 430 < km < 520, str(km))
    ada.click("#map-locate")
    located = ada.wait("const t = document.getElementById('map-located').textContent; return /52\\.205/.test(t) && document.getElementById('map-section').dataset.centre === '52.2053,0.1218' && t", 20)
    check("“Locate me” centres the map on where the person is, and says so", bool(located), str(ada.js("return document.getElementById('map-located').textContent")))
    ada.js("navigator.geolocation.getCurrentPosition = (ok, fail) => setTimeout(() => fail({ code: 1, message: 'User denied Geolocation' }), 10)")
    ada.click("#map-locate")
    refused = ada.wait("const t = document.getElementById('map-located').textContent; return /refused/i.test(t) && t", 20)
    check("“Locate me” says clearly when the location is refused", bool(refused), str(ada.js("return document.getElementById('map-located').textContent")))
