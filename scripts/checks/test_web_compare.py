"""Compare with… and Morph in Explore (Web/js/compare.js), in headless Chromium at phone size
(390 × 844) on the web run's server (conftest.py's `web` fixture), driven as a person: signed in
through the page, the open form of adenylate kinase (Tests/Fixtures/structures/adk_open.pdb.gz, from
PDB 4AKE) is uploaded to the library; 1AKE (the closed form) is opened and compared with it. An ID the
archive lacks first says why it cannot be compared. The summary must be the server's own (GET
/api/molecules/1AKE/compare?with=ID, read here over HTTP): its words, its numbers; the legend's
swatches (hidden from screen readers) in its two colours with the names in words; the model asked
for has compare=ID and the picture shows both colours. Morph shows frames (the model asked for with
morph=ID&model=N; the slider's first, middle and last frames are three different pictures) and Play
goes through them there and back; Stop comparing shows 1AKE alone again, and another molecule
opened ends a comparison. Every control is named and 44 px, nothing is wider than the window, no
console errors, the CSP kept. --screenshots DIR keeps DIR/compare.png (the two structures
superposed) and DIR/morph.png (a morph frame mid-way): docs/compare.png and docs/morph.png."""
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from proteinar_testing.browser import Browser, register_through_page
from proteinar_testing.explore_page import CONTROLS, KEEP_FRAME, SHOWN, check_controls, draw_in_full, open_molecule
from proteinar_testing.paths import ROOT

pytestmark = pytest.mark.browser

OPEN_FORM = os.path.join(ROOT, "Tests", "Fixtures", "structures", "adk_open.pdb.gz")

# Saturated pixels of the 3D view whose hue lies within 20° of each colour of arguments[0] ([r, g, b]):
# lit surfaces vary in brightness, not in hue.
HUES = """const c = document.getElementById('viewer'), t = document.createElement('canvas'); t.width = c.width; t.height = c.height;
const x = t.getContext('2d'); x.drawImage(c, 0, 0); const d = x.getImageData(0, 0, c.width, c.height).data;
const hue = (r, g, b) => { const M = Math.max(r, g, b), s = M - Math.min(r, g, b); if (!s) return [0, 0];
  const h = M === r ? ((g - b) / s + 6) % 6 : M === g ? (b - r) / s + 2 : (r - g) / s + 4; return [h * 60, s / M]; };
const want = arguments[0].map((w) => hue(...w)[0]), counts = want.map(() => 0);
for (let i = 0; i < d.length; i += 4) {
  if (Math.max(d[i], d[i + 1], d[i + 2]) < 50) continue;
  const [h, s] = hue(d[i], d[i + 1], d[i + 2]); if (s < 0.3) continue;
  want.forEach((w, k) => { const dh = Math.abs(h - w); if (Math.min(dh, 360 - dh) < 20) counts[k]++; }); }
return [counts, d.length / 4];"""
# How many pixels differ between two frames kept with KEEP_FRAME.
FRAME_CHANGE = """const a = window.__frames[arguments[0]], b = window.__frames[arguments[1]]; let changed = 0;
for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) >= 24) changed++;
return [changed, a.length / 4];"""
MODELS_ASKED = "return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('/api/molecules/1AKE/model.glb'))"
SHOWN_AS = ("return document.getElementById('compare').dataset.shown === arguments[0] && window.__proteinarExplore.viewer.model !== window.__shown"
            " && document.getElementById('status').textContent")
FRAME_SHOWN = ("return document.getElementById('models-player').dataset.shown === arguments[0]"
               " && window.__proteinarExplore.viewer.model !== window.__shown")
# Compare's controls and the player's (explore_page.CONTROLS reads their names and sizes).
SELECTOR = "#compare button, #compare select, #compare input, #models-player button, #models-player input"


def server_json(base, path):
    with urllib.request.urlopen(f"{base}{path}", timeout=180) as r:
        return json.loads(r.read())


def rgb(hex_colour):
    h = hex_colour.lstrip("#")
    return [int(h[k:k + 2], 16) for k in (0, 2, 4)]


def shot(b, shots, name):
    if not shots:
        return
    os.makedirs(shots, exist_ok=True)
    b.js("document.querySelector('#view-explore .stage').scrollIntoView({ block: 'start' }); window.scrollBy(0, -64)")
    time.sleep(0.5)
    b.screenshot(os.path.join(shots, name))


def test_compare_1ake_with_the_open_form_and_morph(web, checks, shots):
    check = checks.check
    b = Browser(width=390, height=844)
    try:
        b.phone_size()
        # The open form into the library, as a person adds a file: signed in, Library's upload.
        check("registered through the page", bool(register_through_page(b, web.base, "Lin", back="#/library")))
        b.wait("return document.querySelector('#library-list li') && !document.getElementById('library-list').hasAttribute('aria-busy')", 60)
        b.wd("POST", b.s + f"/element/{b.find('#upload-file')}/value", {"text": OPEN_FORM})
        added = b.wait("const s = document.getElementById('status').textContent; return s.startsWith('Added ') && s", 120)
        other = added.split(":")[0].removeprefix("Added ").strip() if added else None
        check("adk_open.pdb.gz is added to the library", bool(other), str(added or b.js("return document.getElementById('status').textContent")))
        assert other, "no open form to compare with"
        want = server_json(web.base, f"/api/molecules/1AKE/compare?{urllib.parse.urlencode({'with': other})}")
        print(f"compare 1AKE with {other}: {json.dumps(want)}")

        open_molecule(b, web.base, "1AKE")
        # Uniform colour first: 1AKE's chains in the default colours are a blue and an orange much
        # like the comparison's, so the picture alone would not tell them apart.
        b.js("window.__shown = window.__proteinarExplore.viewer.model; const s = document.getElementById('color');"
             " s.value = 'uniform'; s.dispatchEvent(new Event('change'))")
        b.wait(SHOWN + " && window.__proteinarExplore.viewer.model !== window.__shown", 90, "1AKE")
        draw_in_full(b)
        colours = [rgb(want["colors"]["molecule"]), rgb(want["colors"]["with"])]
        alone, total = b.js(HUES, colours)
        print(f"1AKE alone, uniform colour: pixels near the two colours {alone} of {total}")
        check("Compare with… shows under 1AKE's view, its form closed",
              b.js("return !document.getElementById('compare').hidden && document.getElementById('compare-form').hidden"
                   " && document.getElementById('compare-open').getAttribute('aria-expanded') === 'false'"))
        b.js("document.getElementById('compare').scrollIntoView({ block: 'center' })")
        b.click("#compare-open")
        listed = b.wait("const o = [...document.getElementById('compare-with').options].map((o) => o.value);"
                        " return o.includes(arguments[0]) && !document.getElementById('compare-with').disabled && o", 30, other)
        check(f"the form lists the library's molecules, {other} among them and not 1AKE itself", bool(listed) and "1AKE" not in listed, str(listed))

        # An ID the archive lacks: the reason, in words.
        b.type_into("#compare-entry", "9ZZZ")
        b.click("#compare-go")
        said = b.wait("const s = document.getElementById('compare-said'); return s.classList.contains('error') && s.textContent", 60)
        check("an ID the archive lacks says why it cannot be compared", bool(said) and said.startswith("9ZZZ cannot be compared with 1AKE:"), str(said))
        # The browser logs the archive's 404 for it (the page's request, answered as it should be): only that.
        early = [e["message"][:200] for e in b.console() if e.get("level") == "SEVERE" and "/api/archive/9ZZZ" not in e["message"]]

        # A PDB ID typed (in lower case) is opened as Get opens one, then compared: the server's answer
        # for 5PTI (a small inhibitor, nothing like adenylate kinase), or the reason it gives.
        try:
            pti = server_json(web.base, "/api/molecules/1AKE/compare?with=5PTI")
        except urllib.error.HTTPError as e:
            pti = {"error": json.loads(e.read()).get("error", "")}
        print(f"compare 1AKE with 5PTI: {json.dumps(pti)[:400]}")
        b.js("document.getElementById('compare-entry').value = ''")
        b.type_into("#compare-entry", "5pti")
        b.js("window.__shown = window.__proteinarExplore.viewer.model")
        b.click("#compare-go")
        if "error" in pti:
            said = b.wait("const s = document.getElementById('compare-said'); return s.classList.contains('error') && s.textContent.startsWith('5PTI') && s.textContent", 120)
            check("a PDB ID typed is opened and compared: the server's reason for 5PTI is shown", said == f"5PTI cannot be compared with 1AKE: {pti['error']}", str(said))
        else:
            shown = b.wait(SHOWN_AS, 180, "compare:5PTI")
            words = b.js("return document.getElementById('compare-words').textContent")
            check("a PDB ID typed is opened and compared: the server's words for 5PTI", bool(shown) and words == pti["words"], f"{words!r}")
        if b.js("return document.getElementById('compare-form').hidden"):
            b.click("#compare-open")
        b.wait("return [...document.getElementById('compare-with').options].some((o) => o.value === arguments[0])", 30, other)

        # The open form, picked from the library.
        b.js("const s = document.getElementById('compare-with'); s.value = arguments[0]; s.dispatchEvent(new Event('change'))", other)
        check("a molecule picked clears the ID typed", b.js("return document.getElementById('compare-entry').value") == "")
        b.js("window.__shown = window.__proteinarExplore.viewer.model")
        b.click("#compare-go")
        status = b.wait(SHOWN_AS, 180, f"compare:{other}")
        check("Compare shows 1AKE with the other superposed and says so", bool(status) and status.startswith(f"1AKE with {other} superposed"),
              str(status or b.js("return [document.getElementById('status').textContent, document.getElementById('compare-said').textContent]")))
        words = b.js("return document.getElementById('compare-words').textContent")
        check("the summary is the server's words", words == want["words"], f"{words!r} / {want['words']!r}")
        numbers = b.js("return [...document.querySelectorAll('#compare-numbers dt')].map((t) => [t.textContent, t.nextElementSibling.textContent])")
        shown = dict(numbers)
        check("the numbers are the server's: aligned residues, RMSD over all and over those kept, TM-score",
              shown.get("Aligned residues", "").startswith(str(want["alignedResidues"]))
              and f"{want['rmsdAll']:.1f} Å over all" in shown.get("RMSD", "")
              and f"{want['rmsd']:.1f} Å over the {want['keptResidues']} that fit best" in shown.get("RMSD", "")
              and shown.get("TM-score", "").startswith(f"{want['tmScore']:.2f}: "), str(numbers))
        legend = b.js("""return [...document.querySelectorAll('#compare-legend li')].map((li) => { const s = li.querySelector('.compare-swatch');
            return [li.textContent, s.getAttribute('aria-hidden'), getComputedStyle(s).getPropertyValue('--swatch').trim().toLowerCase()]; })""")
        check("the legend names both in words, each with a swatch (hidden from screen readers) in the server's colour",
              len(legend) == 2 and legend[0][0].startswith("1AKE") and legend[1][0].startswith(other)
              and [l[1] for l in legend] == ["true", "true"]
              and [l[2] for l in legend] == [want["colors"]["molecule"].lower(), want["colors"]["with"].lower()], str(legend))
        asked = [n for n in b.js(MODELS_ASKED) if f"compare={urllib.parse.quote(other)}" in n]
        check(f"the page asked for the model with compare={other}", bool(asked), str(b.js(MODELS_ASKED)[-2:]))
        draw_in_full(b)
        (mine, theirs), total = b.js(HUES, colours)
        print(f"pixels near 1AKE's colour: {mine}, near {other}'s: {theirs}, of {total}")
        check(f"the picture shows both colours ({mine} pixels near {want['colors']['molecule']}, {theirs} near {want['colors']['with']};"
              f" 1AKE alone in uniform colour: {alone})", all(n > max(total * 0.01, 5 * a) for n, a in zip((mine, theirs), alone)), f"of {total}")
        shot(b, shots, "compare.png")

        # Stop comparing: 1AKE alone.
        b.js("window.__shown = window.__proteinarExplore.viewer.model")
        b.click("#compare-stop")
        back = b.wait("return !document.getElementById('compare').dataset.shown && window.__proteinarExplore.viewer.model !== window.__shown"
                       " && document.getElementById('status').textContent.startsWith('1AKE: ')", 120)
        last = b.js(MODELS_ASKED)[-1]
        check("Stop comparing shows 1AKE alone (no compare=, no morph=, no legend, no player)", bool(back) and "compare=" not in last and "morph=" not in last
              and b.js("return document.getElementById('compare-legend').hidden && document.getElementById('models-player').hidden"
                       " && document.getElementById('compare-stop').hidden"), last)
        draw_in_full(b)
        (_, after), total = b.js(HUES, colours)
        check(f"the comparison's orange is gone from the picture ({after} pixels near it; alone before: {alone[1]}, compared: {theirs})",
              after < theirs / 5 and after <= 2 * alone[1] + total * 0.001, f"of {total}")

        # Compared again, for Morph.
        b.click("#compare-open")
        b.wait("return [...document.getElementById('compare-with').options].some((o) => o.value === arguments[0])", 30, other)
        form_controls = b.js(CONTROLS, SELECTOR)  # the form's, open
        b.js("const s = document.getElementById('compare-with'); s.value = arguments[0]; s.dispatchEvent(new Event('change'))", other)
        b.js("window.__shown = window.__proteinarExplore.viewer.model")
        b.click("#compare-go")
        again = b.wait(SHOWN_AS, 120, f"compare:{other}")
        check("compared again", bool(again))

        # Morph: frames, by the slider and by Play; in rainbow colours (N to C), which show the chain's parts moving.
        frames = want["morph"]["frames"]
        b.js("window.__shown = window.__proteinarExplore.viewer.model; const s = document.getElementById('color');"
             " s.value = 'rainbow'; s.dispatchEvent(new Event('change'))")
        check("another colour keeps the comparison", bool(b.wait(SHOWN_AS, 120, f"compare:{other}")))
        b.js("window.__shown = window.__proteinarExplore.viewer.model")
        b.click("#compare-morph")
        status = b.wait(SHOWN_AS, 180, f"morph:{other}")
        player = b.wait("const p = document.getElementById('models-player'); return !p.hidden && document.getElementById('models-shown').textContent", 10)
        check(f"Morph shows the first frame, with Play and a slider of {frames} frames", bool(status) and player == f"Frame 1 of {frames}"
              and b.js("return document.getElementById('compare-morph').getAttribute('aria-pressed')") == "true", f"{status!r} {player!r}")
        draw_in_full(b)
        b.js(KEEP_FRAME, "1")
        middle = (frames + 1) // 2
        for n in (middle, frames):
            b.js("window.__shown = window.__proteinarExplore.viewer.model; const s = document.getElementById('models-slider');"
                 " s.value = arguments[0]; s.dispatchEvent(new Event('input'))", str(n))
            b.wait(FRAME_SHOWN, 120, str(n))
            draw_in_full(b)
            b.js(KEEP_FRAME, str(n))
            if n == middle:
                shot(b, shots, "morph.png")
        asked = b.js(MODELS_ASKED)
        quoted = urllib.parse.quote(other)
        check(f"the frames are the model with morph={other}&model=N", all(any(f"morph={quoted}" in a and f"model={n}" in a for a in asked) for n in (1, middle, frames)),
              str([a.split("?")[1] for a in asked if "morph=" in a]))
        said = b.js("return document.getElementById('models-slider').getAttribute('aria-valuetext')")
        check("the slider says which frame is shown", said == f"Frame {frames} of {frames}", str(said))
        changes = [b.js(FRAME_CHANGE, x, y) for x, y in (("1", str(middle)), (str(middle), str(frames)), ("1", str(frames)))]
        print(f"frames 1, {middle}, {frames}: pixels changed {changes}")
        check(f"frames 1, {middle} and {frames} are three different pictures", all(c > t * 0.005 for c, t in changes), str(changes))

        b.click("#models-play")
        seen, deadline = [], time.time() + 120
        while time.time() < deadline:
            n = int(b.js("return document.getElementById('models-player').dataset.shown"))
            if not seen or seen[-1] != n:
                seen.append(n)
            if frames in seen and seen[-1] < frames - 1 and len(seen) > frames:
                break
            time.sleep(0.03)
        b.click("#models-play")
        paused = b.wait("return document.getElementById('models-play').getAttribute('aria-pressed') === 'false'", 5)
        check("Play goes through the frames there and back, and Pause stops", bool(paused) and len(set(seen)) >= 3
              and any(seen[i] > seen[i + 1] for i in range(len(seen) - 1)) and any(seen[i] < seen[i + 1] for i in range(len(seen) - 1)), str(seen))

        check_controls(b, check, "Compare and the player", form_controls + b.js(CONTROLS, SELECTOR))

        # Another molecule opened ends the comparison, Morph and all.
        b.js("location.hash = '#/explore/1UBI'")
        b.wait(SHOWN, 90, "1UBI")
        last = [n for n in b.js("return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('model.glb'))")][-1]
        check("another molecule opened ends the comparison (no compare=, no morph=, no legend, no player)", "/1UBI/" in last and "compare=" not in last and "morph=" not in last
              and b.js("return !document.getElementById('compare').dataset.shown && document.getElementById('compare-legend').hidden"
                       " && document.getElementById('compare-stop').hidden && document.getElementById('models-player').hidden"), last)

        console = early + [e["message"][:200] for e in b.console() if e.get("level") == "SEVERE"]
        check("no console errors", console == [], str(console))
        web.keep_csp(b)
    finally:
        b.close()
