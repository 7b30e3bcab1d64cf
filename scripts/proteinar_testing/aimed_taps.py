"""Aiming a tap at the 3D view in Explore as a person would, for the checks and the benchmark of
tap to identify: the middle of the model's front triangle (the one nearest the camera whose corners
draw one atom, in the view: nothing hides it), projected with the viewer's own camera
(`window.__proteinarExplore.viewer`), and a mouse click there."""

# The middle of the front triangle (of those in the view) ([x, y] on the canvas in CSS pixels, its feature id), and the canvas's size.
FRONT = """const v = window.__proteinarExplore.viewer, m = v.model, cam = v.camera.position, project = v.projector(),
  canvas = document.getElementById('viewer');
let best = null;
for (const node of m.nodes) {
  const M = node.matrix;
  const world = (P, i) => [M[0] * P[3 * i] + M[4] * P[3 * i + 1] + M[8] * P[3 * i + 2] + M[12],
    M[1] * P[3 * i] + M[5] * P[3 * i + 1] + M[9] * P[3 * i + 2] + M[13], M[2] * P[3 * i] + M[6] * P[3 * i + 1] + M[10] * P[3 * i + 2] + M[14]];
  for (const p of m.meshes[node.mesh].primitives) {
    if (!p.features || !p.indices) continue;
    const P = p.positions, I = p.indices, F = p.features;
    for (let k = 0; k + 2 < I.length; k += 3) {
      // A triangle whose corners all draw one atom, aimed at its middle (not at a corner or an edge).
      if (F[I[k]] !== F[I[k + 1]] || F[I[k]] !== F[I[k + 2]]) continue;
      const a = world(P, I[k]), b = world(P, I[k + 1]), c = world(P, I[k + 2]);
      const w = [0, 1, 2].map((j) => (a[j] + b[j] + c[j]) / 3);
      const [mx, my] = project(...w);
      if (mx < 4 || my < 4 || mx > canvas.clientWidth - 4 || my > canvas.clientHeight - 4) continue;  // in the view
      const d = (w[0] - cam[0]) ** 2 + (w[1] - cam[1]) ** 2 + (w[2] - cam[2]) ** 2;
      if (!best || d < best.d) best = { d, w, f: F[I[k]] };
    }
  }
}
const s = v.project(best.w), c = document.getElementById('viewer');
return [s.x, s.y, best.f, c.clientWidth, c.clientHeight];"""


def front_of_model(browser):
    """[x, y, atom, canvas width, canvas height]: where the front of the model is, after scrolling
    the view to the middle of the window."""
    browser.js("document.getElementById('viewer').scrollIntoView({ block: 'center' })")
    return browser.js(FRONT)


def click(browser, x, y):
    """A mouse click at (x, y) CSS pixels on the 3D view, in the viewport's coordinates (an element's
    own origin is the middle of its part in view, which moves as the page scrolls)."""
    left, top = browser.js("const r = document.getElementById('viewer').getBoundingClientRect(); return [r.left, r.top]")
    actions = [{"type": "pointerMove", "duration": 0, "origin": "viewport", "x": int(round(left + x)), "y": int(round(top + y))},
               {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]
    browser.wd("POST", browser.s + "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]})
    browser.wd("DELETE", browser.s + "/actions")
