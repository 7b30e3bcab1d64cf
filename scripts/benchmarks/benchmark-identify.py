#!/usr/bin/env python3
"""Tap to identify, timed in headless Chromium (SwiftShader): a real `proteinar serve` with its
starter library, Explore at phone size (390 × 844) on 2XHE and 1AKE in cartoon and ball and stick;
20 taps each on the front of the model (the middle of the triangle nearest the camera, the view
turned between taps), timed from the tap's event to the card on screen (the pick against every triangle and the
words; the identify table is read once, before the first timed tap). No round trip: what the
median measures is the page's own work.

    scripts/benchmarks/benchmark-identify.py BINARY

Prints, per molecule and style: triangles drawn, the median and the slowest tap (ms)."""
import statistics
import sys

import scripts_path  # noqa: F401  (scripts/ on sys.path, for proteinar_testing)
from proteinar_testing.browser import Browser
from proteinar_testing.server import ServerProcess

# Tap the front of the model (the middle of the triangle nearest the camera, projected with the
# viewer's camera): the time from the tap event to the card shown.
TIMED_TAP = """const done = arguments[arguments.length - 1];
const v = window.__proteinarExplore.viewer, m = v.model, cam = v.camera.position;
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
      const d = (w[0] - cam[0]) ** 2 + (w[1] - cam[1]) ** 2 + (w[2] - cam[2]) ** 2;
      if (!best || d < best.d) best = { d, w, f: F[I[k]] };
    }
  }
}
const s = v.project(best.w), canvas = document.getElementById('viewer'), card = document.getElementById('identify-card');
card.hidden = true;
const seen = new MutationObserver(() => {
  if (card.hidden) return;
  seen.disconnect();
  done(performance.now() - start);
});
seen.observe(card, { attributes: true, attributeFilter: ['hidden', 'data-atom'] });
const start = performance.now();
canvas.dispatchEvent(new CustomEvent('viewer-tap', { detail: { x: s.x, y: s.y, pointerType: 'touch' } }));
setTimeout(() => { seen.disconnect(); done(null); }, 5000);"""


def main():
    binary = sys.argv[1]
    server = ServerProcess(binary, name="benchmark-identify")
    b = Browser(width=390, height=844)
    print(f"{'molecule':8} {'style':15} {'triangles':>9} {'median ms':>9} {'slowest ms':>10}")
    try:
        for entry in ["2XHE", "1AKE"]:
            b.go(f"{server.url}/#/explore/{entry}")
            b.wait(f"return window.__proteinarExplore?.viewer?.model && document.getElementById('status').textContent.startsWith('{entry}')", 120)
            for style in ["cartoon", "ball-and-stick"]:
                if b.js("return document.getElementById('style').value") != style:
                    b.js("window.__shown = window.__proteinarExplore.viewer.model; const s = document.getElementById('style');"
                     " s.value = arguments[0]; s.dispatchEvent(new Event('change'))", style)
                    b.wait(f"return document.getElementById('status').textContent.startsWith('{entry}') && window.__proteinarExplore.viewer.model !== window.__shown", 120)
                b.wait(f"return fetch('/api/molecules/{entry}/identify.json').then(r => r.ok)", 120)
                b.wd("POST", b.s + "/execute/async", {"script": TIMED_TAP, "args": []})  # the table read once
                times = []
                for turn in range(20):
                    b.js("window.__proteinarExplore.viewer.resetView()")
                    b.js("document.getElementById('viewer').focus()")
                    b.keys(*(["\ue014"] * (turn % 8) + ["\ue013"] * (turn // 8)))
                    times.append(b.wd("POST", b.s + "/execute/async", {"script": TIMED_TAP, "args": []}))
                timed = [t for t in times if t is not None]
                triangles = b.js("return window.__proteinarExplore.viewer.triangleCount")
                print(f"{entry:8} {style:15} {triangles:>9} {statistics.median(timed):>9.1f} {max(timed):>10.1f}"
                      + ("" if len(timed) == len(times) else f"  ({len(times) - len(timed)} taps showed no card)"))
    finally:
        b.close()
        server.close()


if __name__ == "__main__":
    main()
