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
from proteinar_testing.aimed_taps import front_of_model
from proteinar_testing.browser import Browser
from proteinar_testing.server import ServerProcess

# A tap at (x, y) on the view (the front of the model, proteinar_testing/aimed_taps.py): the time
# from the tap's event to the card shown.
TIMED_TAP = """const [x, y, done] = arguments;
const canvas = document.getElementById('viewer'), card = document.getElementById('identify-card');
card.hidden = true;
const seen = new MutationObserver(() => {
  if (card.hidden) return;
  seen.disconnect();
  done(performance.now() - start);
});
seen.observe(card, { attributes: true, attributeFilter: ['hidden', 'data-atom'] });
const start = performance.now();
canvas.dispatchEvent(new CustomEvent('viewer-tap', { detail: { x, y, pointerType: 'touch' } }));
setTimeout(() => { seen.disconnect(); done(null); }, 5000);"""


def timed_tap(b):
    """Milliseconds from a tap on the front of the model to the card, or None when none showed."""
    x, y, _, _, _ = front_of_model(b)
    return b.wd("POST", b.s + "/execute/async", {"script": TIMED_TAP, "args": [x, y]})


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
                timed_tap(b)  # the table read once
                times = []
                for turn in range(20):
                    b.js("window.__proteinarExplore.viewer.resetView()")
                    b.js("document.getElementById('viewer').focus()")
                    b.keys(*(["\ue014"] * (turn % 8) + ["\ue013"] * (turn // 8)))
                    times.append(timed_tap(b))
                timed = [t for t in times if t is not None]
                triangles = b.js("return window.__proteinarExplore.viewer.triangleCount")
                print(f"{entry:8} {style:15} {triangles:>9} {statistics.median(timed):>9.1f} {max(timed):>10.1f}"
                      + ("" if len(timed) == len(times) else f"  ({len(times) - len(timed)} taps showed no card)"))
    finally:
        b.close()
        server.close()


if __name__ == "__main__":
    main()
