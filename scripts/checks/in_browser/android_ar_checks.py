"""test_web_own_browsers.py's Android Chrome: WebXR immersive-ar with hit-test (navigator.xr stubbed, see
browser.XR_STUB), Scene Viewer beside it: View in AR on 1AKE (a clear layer before a surface, the
reticle, a tap places, a tap on the molecule names it and Label pins it, pinch and twist, a finger
drags, Exit AR), then See pieces in AR on Design.
One browser of its own, an Android phone's size and user agent."""
from proteinar_testing.browser import ANDROID_UA, XR_STUB, Browser

# Pixels of the 3D view's middle that are drawn (not transparent): what WebXR would lay over the camera.
DRAWN = """const c = document.getElementById('viewer'); const t = document.createElement('canvas'); t.width = c.width; t.height = c.height;
const x = t.getContext('2d'); x.drawImage(c, 0, 0); const d = x.getImageData(c.width * .3, c.height * .3, c.width * .4, c.height * .4).data;
let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n / (d.length / 4);"""


# A tap in AR on the molecule as it stands after the first tap (the stub's surface point, scale 1,
# no turn; xr.js's placement): the ray from the stub's eye through the middle of the front triangle
# that draws one atom, dispatched as a select with its frame and target ray; answers that atom.
AR_TAP = """const v = window.__proteinarExplore.viewer, m = v.model, { center, radius } = v.bounds;
const k = 0.15 / radius, shift = [-k * center[0], 0.7 + radius * k - k * center[1], -0.5 - k * center[2]], eye = [0, 1.1, 0.1];
let best = null;
for (const node of m.nodes) {
  const M = node.matrix;
  for (const p of m.meshes[node.mesh].primitives) {
    if (!p.features || !p.indices) continue;
    const P = p.positions, I = p.indices, F = p.features;
    for (let q = 0; q + 2 < I.length; q += 3) {
      if (F[I[q]] !== F[I[q + 1]] || F[I[q]] !== F[I[q + 2]]) continue;
      const world = [0, 1, 2].map((j) => shift[j] + k * [I[q], I[q + 1], I[q + 2]].reduce((s, c) =>
        s + (M[j] * P[3 * c] + M[4 + j] * P[3 * c + 1] + M[8 + j] * P[3 * c + 2] + M[12 + j]) / 3, 0));
      const d = Math.hypot(world[0] - eye[0], world[1] - eye[1], world[2] - eye[2]);
      if (!best || d < best.d) best = { d, world, f: F[I[q]] };
    }
  }
}
const z = best.world.map((x, j) => (eye[j] - x) / best.d);  // the pose's z: the ray runs along −z
const up = Math.abs(z[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const x0 = cross(up, z), l = Math.hypot(...x0), x = x0.map((c) => c / l), y = cross(z, x);
const matrix = new Float32Array([...x, 0, ...y, 0, ...z, 0, ...eye, 1]);
const frame = { getPose: (space) => (space === 'tap' ? { transform: { matrix } } : null) };
for (const type of ['selectstart', 'select', 'selectend']) {
  window.__xr.session.dispatchEvent(Object.assign(new Event(type), { frame, inputSource: { targetRaySpace: 'tap' } }));
}
return best.f;"""

RESIDUE = """const done = arguments[arguments.length - 1];
fetch('/api/molecules/1AKE/identify.json').then((r) => r.json()).then((t) => done(arguments[0].map((a) => t.atoms.residue[a])));"""


def check_ar_identify(phone, check):
    """A tap on the standing molecule names it on the AR overlay and does not move it; Label pins it
    over the camera image, where it stands, and in Explore's list of labels."""
    before = phone.js("return document.getElementById('ar-overlay').dataset.position")
    atom = phone.js(AR_TAP)
    shown = phone.wait("const c = document.getElementById('ar-identify'); return !c.hidden && c.dataset.atom"
                       " && [Number(c.dataset.atom), document.getElementById('ar-identify-text').textContent]", 10)
    same = shown and phone.js_async(RESIDUE, [atom, shown[0]])
    check("in AR, a tap on the molecule shows what it touched on the overlay (its residue), said to screen readers",
          bool(same and same[0] == same[1] and "chain" in shown[1])
          and phone.js("return document.getElementById('ar-identify-text').getAttribute('role')") == "status", f"{atom} → {shown}")
    check("a tap on the molecule does not move it", phone.js("return document.getElementById('ar-overlay').dataset.position") == before)
    phone.click("#ar-identify-label")
    pins = phone.wait("""const o = document.getElementById('ar-overlay').getBoundingClientRect();
        const pins = [...document.querySelectorAll('#ar-labels .note-pin')].filter((p) => !p.hidden);
        const inside = pins.every((p) => { const r = p.getBoundingClientRect(); return r.left >= o.left - 1 && r.top >= o.top - 1 && r.top <= o.bottom; });
        return pins.length >= 2 && inside && [pins.map((p) => p.textContent), [...document.querySelectorAll('#explore-label-list li')].map((li) => li.firstChild.textContent)]""", 10)
    word = shown and shown[1].split(" · ")[0]
    check("Label pins the residue over the camera image where it stands, and lists it in Explore",
          bool(pins and word in pins[0] and word in pins[1]), str(pins))


def check_android_ar(base, check, keep_csp, canvas):
    """`canvas`: test_web.py's script answering [drawn pixels, hash, pixels] of the 3D view."""
    phone = None
    try:
        phone = Browser(args=[f"--user-agent={ANDROID_UA}"], width=412, height=915)
        phone.before_each_page(XR_STUB)
        phone.go(base + "/#/explore/1AKE")
        ok = bool(phone.wait("return document.getElementById('status').textContent.startsWith('1AKE')", 90))
        link = phone.js("return document.querySelector('#ar-slot .scene-viewer-link')?.getAttribute('href')")
        check("on Android, a Scene Viewer link to the GLB sits beside View in AR", bool(ok and link and link.startswith("intent://arvr.google.com/scene-viewer/1.0?file=") and "model.glb" in link), str(link))
        phone.click("#ar-button")
        st = phone.wait("const s = document.getElementById('ar-status'); return !document.getElementById('ar-overlay').hidden && s.textContent", 20)
        init = phone.js("return window.__xr.mode + ' ' + JSON.stringify(window.__xr.init.requiredFeatures)")
        check("View in AR starts an immersive-ar session with hit-test and says to look for a surface",
              bool(st and "find a surface" in st) and init == 'immersive-ar ["hit-test"]', f"{st} / {init}")
        check("the AR overlay takes keyboard focus on Exit AR", phone.js("return document.activeElement.id") == "ar-exit")
        empty = phone.wait("const v = (() => {" + DRAWN + "})(); return v === 0 ? 'clear' : null", 10)
        check("before a surface is found the AR layer is clear (the camera shows through)", empty == "clear",
              str(phone.js("return (() => {" + DRAWN + "})()")))
        phone.js("window.__xr.surface = true")
        st = phone.wait("const s = document.getElementById('ar-status').textContent; return s.includes('Tap to place') && s", 10)
        ring = phone.wait("const v = (() => {" + DRAWN + "})(); return v > 0 && v < 0.05 && v", 10)
        check("a surface found: the reticle is drawn and the status says to tap", bool(st and ring), f"{st} / {ring}")
        phone.js("window.__xr.session.dispatchEvent(new Event('select'))")
        st = phone.wait("const o = document.getElementById('ar-overlay'); const s = document.getElementById('ar-status').textContent; return o.dataset.placed && s.includes('pinch') && s", 10)
        cover = phone.wait("const v = (() => {" + DRAWN + "})(); return v > 0.05 && v", 10)
        check("a tap places the molecule on the surface and draws it", bool(st and "pinch" in st and cover), f"{st} / {cover}")
        check_ar_identify(phone, check)
        scale = phone.js("""const o = document.getElementById('ar-overlay');
            const ev = (type, id, x, y) => o.dispatchEvent(new PointerEvent(type, { pointerId: id, clientX: x, clientY: y, bubbles: true, pointerType: 'touch' }));
            ev('pointerdown', 1, 100, 400); ev('pointerdown', 2, 200, 400); ev('pointermove', 2, 300, 400);
            const scale = o.dataset.scale; ev('pointermove', 2, 100, 600); const turn = o.dataset.turn;
            ev('pointerup', 1, 100, 400); ev('pointerup', 2, 100, 600); return [scale, turn];""")
        check("pinch scales and twist turns the placed molecule", scale[0] == "2.00" and scale[1] not in ("0", "-0"), str(scale))
        phone.js("window.__xr.session.dispatchEvent(new Event('selectstart')); window.__xr.touch = { x: 0.2, y: 0.7, z: -0.6 };")
        moved = phone.wait("return document.getElementById('ar-overlay').dataset.position === '0.20 0.70 -0.60'", 10)
        phone.js("window.__xr.session.dispatchEvent(new Event('selectend')); window.__xr.touch = null;")
        check("dragging a finger moves the molecule to where it points on the surface", bool(moved),
              phone.js("return document.getElementById('ar-overlay').dataset.position"))
        phone.click("#ar-exit")
        st = phone.wait("return document.getElementById('ar-overlay').hidden && document.getElementById('status').textContent", 10)
        opaque = phone.wait("const v = (() => {" + DRAWN + "})(); return v === 1 && v", 10)
        check("Exit AR ends the session and returns to the page's own 3D view", bool(st and st.startswith("Left AR") and opaque), f"{st} / {opaque}")
        # The Design screen's pieces before Try: the same WebXR session, and Scene Viewer on the pieces' GLB.
        phone.go(base + "/#/design")
        phone.wait("return !!document.querySelector('#view-design .piece')", 20) and phone.click("#view-design .piece[data-kind='helix']")
        link = phone.wait("return document.getElementById('design-viewer').width && document.querySelector('#design-pieces-ar-slot .scene-viewer-link')?.getAttribute('href')", 30)
        drawn = "const v = (() => {" + canvas.replace("getElementById('viewer')", "getElementById('design-viewer')") + "})(); return v && v[0] > v[2] * 0.01"
        if link and phone.wait(drawn, 60): phone.click("#design-pieces-ar-button")
        st = phone.wait("const s = document.getElementById('ar-status'); return !document.getElementById('ar-overlay').hidden && s.textContent", 20)
        check("on Android, See pieces in AR starts WebXR, with Scene Viewer on the pieces' GLB beside it",
              bool(link and "pieces.glb" in link and st and ("find a surface" in st or "Tap to place" in st)), f"{link} / {st}")
        phone.click("#ar-exit")
    except Exception as e:
        check("the Android AR run finished", False, repr(e))
    finally:
        if phone:
            keep_csp(phone)
            phone.close()
