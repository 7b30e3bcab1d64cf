"""The sequence strip in Explore, both ways, in headless Chromium at phone size (390 × 844) on the web
run's server (conftest.py's `web` fixture), with 1AKE:

- strip → 3D: a tap on a residue, a Shift-tap (a stretch), Range then two taps, and the keyboard
  (Home, arrows, Enter, Shift with arrows, Escape) each select residues, and the 3D model's colours
  on the GPU (read back from the GL colour buffers) keep their colour on exactly those residues'
  vertices (their feature ids, through identify.json) and are dimmed as the server dims a highlight
  (c × 0.25 + 0.55) everywhere else; the canvas loses most of its saturated pixels, and Clear puts
  every colour (and pixel count) back; no model is fetched for any of it (Resource Timing); a new
  style gets the same highlight;
- 3D → strip: taps on the front of the model (aimed as test_web_identify.py aims them) mark that
  atom's residue in the strip (aria-current), scrolled into sight in its row;
- the strip itself: one row per chain of 214 residues in one-letter code, named for screen readers
  ("Arg 88, chain A, …" as identify.json says), AP5 as a chip per chain, the waters counted, and the
  Explore screen's audit (controls named and ≥ 44 px, nothing wider than the window).

--screenshots DIR keeps its picture (DIR/sequence-strip.png)."""
import os
import time

import pytest

from in_browser.screen_audit import AUDIT
from proteinar_testing.aimed_taps import click, front_of_model
from proteinar_testing.browser import Browser
from proteinar_testing.explore_page import SHOWN, show_style

pytestmark = pytest.mark.browser

SHIFT, ENTER, ESCAPE, HOME = "\ue008", "\ue007", "\ue00c", "\ue011"
LEFT, UP, RIGHT, DOWN = "\ue012", "\ue013", "\ue014", "\ue015"

# The identify table the page reads, kept in the page for the checks below.
TABLE = """const done = arguments[arguments.length - 1];
fetch('/api/molecules/1AKE/identify.json').then((r) => r.json()).then((t) => { window.__table = t; done(t.residues.name.length); }, (e) => done(String(e)));"""

# The model's colours as parsed, per mesh and primitive (before the strip tinted anything), and a hook
# that keeps the colours of every model the viewer is handed from now on, as they come.
KEEP_COLOURS = """const v = window.__proteinarExplore.viewer;
window.__colours = v.model.meshes.map((m) => m.primitives.map((p) => p.colors.slice()));
if (!v.__kept) { const set = v.setModel.bind(v); v.setModel = (m) => { window.__fresh = m && m.meshes.map((x) => x.primitives.map((p) => p.colors.slice())); return set(m); }; v.__kept = true; }
return window.__colours.length;"""

# What the GPU draws now, against the colours as parsed: how many vertices of the chosen residues
# (arguments[0]; null: no choice, every vertex its own colour) kept their colour, how many others are
# dimmed, and how many are neither.
GPU = """const v = window.__proteinarExplore.viewer, gl = v.gl, t = window.__table, base = window[arguments[1]];
const chosen = arguments[0] && new Set(arguments[0]);
let lit = 0, dimmed = 0, wrong = 0, total = 0; const examples = [];
for (const entry of v._gpu) {
  v.model.meshes[entry.mesh].primitives.forEach((p, i) => {
    const now = new Float32Array(p.vertexCount * 4);
    gl.bindBuffer(gl.ARRAY_BUFFER, entry.primitives[i].buffers[2]);
    gl.getBufferSubData(gl.ARRAY_BUFFER, 0, now);
    const was = base[entry.mesh][i];
    for (let k = 0; k < p.vertexCount; k++) {
      total++;
      const f = p.features ? p.features[k] : -1;
      const on = !chosen || (f >= 0 && f < t.atoms.residue.length && chosen.has(t.atoms.residue[f]));
      let ok = true;
      for (let c = 0; c < 3; c++) {
        const want = on ? was[4 * k + c] : was[4 * k + c] * 0.25 + 0.55;
        if (Math.abs(now[4 * k + c] - want) > 1e-4) ok = false;
      }
      if (!ok) { wrong++; if (examples.length < 3) examples.push([k, f, Array.from(now.slice(4 * k, 4 * k + 3)), Array.from(was.slice(4 * k, 4 * k + 3))]); }
      else if (on) lit++; else dimmed++;
    }
  });
}
gl.bindBuffer(gl.ARRAY_BUFFER, null);
return { lit, dimmed, wrong, total, examples };"""

# Pixels of the 3D view that are clearly coloured (not white, grey or dimmed), after a fresh frame.
SATURATED = """const done = arguments[arguments.length - 1], v = window.__proteinarExplore.viewer;
v.render();
const c = document.getElementById('viewer'), t = document.createElement('canvas'); t.width = c.width; t.height = c.height;
const x = t.getContext('2d'); x.drawImage(c, 0, 0);
const d = x.getImageData(0, 0, c.width, c.height).data; let n = 0;
for (let i = 0; i < d.length; i += 4) if (Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 40) n++;
done(n);"""

SELECTED = "return [...document.querySelectorAll('#sequence-chains [aria-selected=\"true\"]')].map((e) => Number(e.id.slice(11)))"
MODEL_FETCHES = "return performance.getEntriesByType('resource').filter((e) => e.name.includes('/model.glb')).length"
SAID = "return document.getElementById('sequence-said').textContent"


def residues_of(b, chain, numbers):
    """The identify table's indices of `chain`'s residues numbered `numbers`."""
    return b.js("""const r = window.__table.residues, want = new Set(arguments[1]), out = [];
                   for (let i = 0; i < r.name.length; i++) if (r.chain[i] === arguments[0] && want.has(r.number[i]) && r.kind[i] === 'amino-acid') out.push(i);
                   return out;""", chain, list(numbers))


def press(b, *keys, shift=False):
    """Keys pressed on whatever has focus, with Shift held through them when `shift`."""
    actions = [{"type": "keyDown", "value": SHIFT}] if shift else []
    for k in keys:
        actions += [{"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]
    if shift:
        actions.append({"type": "keyUp", "value": SHIFT})
    b.wd("POST", b.s + "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})
    b.wd("DELETE", b.s + "/actions")


def tap_residue(b, r, shift=False):
    """A mouse click on residue `r`'s letter in the strip (scrolled into sight first), Shift held when `shift`."""
    b.js("document.getElementById('sequence-r-' + arguments[0]).scrollIntoView({ block: 'center', inline: 'center' })", r)
    element = b.find(f"#sequence-r-{r}")
    pointer = [{"type": "pause", "duration": 0}, {"type": "pointerMove", "duration": 0, "x": 0, "y": 0,
               "origin": {"element-6066-11e4-a52e-4f735466cecf": element}},
               {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}, {"type": "pause", "duration": 0}]
    keys = ([{"type": "keyDown", "value": SHIFT}] + [{"type": "pause", "duration": 0}] * 3 + [{"type": "keyUp", "value": SHIFT}]
            if shift else [{"type": "pause", "duration": 0}] * 5)
    b.wd("POST", b.s + "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": keys},
                                                {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": pointer}]})
    b.wd("DELETE", b.s + "/actions")


def gpu_shows(b, chosen, base="__colours"):
    """(whether the GPU's colours keep `chosen`'s and dim the rest, or with None are all the model's
    own, the counts)."""
    found = b.js(GPU, None if chosen is None else list(chosen), base)
    if chosen is None:
        return found["wrong"] == 0 and found["lit"] == found["total"] > 0, found
    return found["wrong"] == 0 and found["dimmed"] > 0 and found["lit"] > 0, found


def test_the_sequence_strip_and_the_3d_view_answer_each_other(web, checks, shots):
    check = checks.check
    b = Browser(width=390, height=844)
    try:
        # A phone's viewport, as test_tour.py sets it (a headless window is never narrower than 500 px).
        b.phone_size()
        b.go(web.base + "/#/explore/1AKE")
        b.js("performance.setResourceTimingBufferSize(5000)")
        b.wait(SHOWN, 90, "1AKE")
        # Both rows are in sight, so both are made (a row a frame).
        b.wait("return document.querySelectorAll('#sequence-chains [role=option]').length === 428", 30)
        count = b.js("return document.querySelectorAll('#sequence-chains [role=option]').length")
        residues = b.js_async(TABLE)
        b.js(KEEP_COLOURS)

        # ---- The strip ----
        rows = b.js("""return [...document.querySelectorAll('#sequence-chains .sequence-row')].map((row) =>
                         [row.querySelector('[role=group]').getAttribute('aria-label'), [...row.querySelectorAll('[role=option]')].map((o) => o.textContent).join('')])""")
        expected = b.js("""const r = window.__table.residues, one = {ALA:'A',ARG:'R',ASN:'N',ASP:'D',CYS:'C',GLN:'Q',GLU:'E',GLY:'G',HIS:'H',ILE:'I',LEU:'L',LYS:'K',MET:'M',PHE:'F',PRO:'P',SER:'S',THR:'T',TRP:'W',TYR:'Y',VAL:'V'};
                           const rows = {}; r.name.forEach((n, i) => { if (r.kind[i] === 'amino-acid') rows[r.chain[i]] = (rows[r.chain[i]] ?? '') + (one[n] ?? 'X'); });
                           return rows;""")
        check("the strip has a row per chain of 1AKE, 214 residues each in one-letter code as identify.json lists them",
              count == 428 and [name for name, _ in rows] == ["Chain A, protein, 214 residues", "Chain B, protein, 214 residues"]
              and [letters for _, letters in rows] == [expected.get("A"), expected.get("B")], f"{count} {residues} {[(n, s[:30]) for n, s in rows]}")
        arg88 = residues_of(b, "A", [88])[0]
        name = b.js("return document.getElementById('sequence-r-' + arguments[0]).getAttribute('aria-label')", arg88)
        secondary = b.js("return window.__table.residues.secondary[arguments[0]]", arg88)
        words = {"H": "α-helix", "E": "β-strand", "T": "turn", "S": "bend", "G": "3₁₀-helix", "-": "coil", "B": "β-bridge"}
        check("each residue is named for screen readers with its chain and secondary structure (Arg 88, chain A, …)",
              name == f"Arg 88, chain A, {words.get(secondary, 'coil')}", f"{name} ({secondary})")
        chips = b.js("return [...document.querySelectorAll('#sequence-ligands button')].map((e) => [e.textContent, e.getAttribute('aria-label')])")
        waters = b.js("return document.getElementById('sequence-waters').textContent")
        check("ligands are chips (AP5 in each chain, with its full name), the waters are counted, not listed",
              [c[0] for c in chips] == ["AP5 215 · A", "AP5 215 · B"] and "pentaphosphate" in (chips[0][1] or "") and waters.startswith("378 waters"),
              f"{chips} {waters}")
        fetched = b.js(MODEL_FETCHES)
        saturated = b.js_async(SATURATED)

        # ---- Strip → 3D ----
        tap_residue(b, arg88)
        b.wait("return document.getElementById('sequence-clear').disabled === false", 5)
        ok, found = gpu_shows(b, [arg88])
        check("a tap on Arg 88 in the strip selects it, and on the GPU its vertices keep their colours and every other one is dimmed",
              ok and b.js(SELECTED) == [arg88] and "Arg 88" in b.js(SAID), f"{found} {b.js(SELECTED)} {b.js(SAID)}")
        stretch = residues_of(b, "A", range(10, 41))
        tap_residue(b, stretch[0])
        tap_residue(b, stretch[-1], shift=True)
        ok, found = gpu_shows(b, stretch)
        dim = b.js_async(SATURATED)
        check("a Shift-tap extends to a stretch (A 10 to 40, 31 residues): those stay coloured on the GPU, the rest is dimmed",
              ok and b.js(SELECTED) == stretch and ": 31 residues" in b.js(SAID), f"{found} {b.js(SELECTED)[:5]}… {b.js(SAID)}")
        check("the canvas shows it: far fewer clearly coloured pixels, but some (the stretch)",
              saturated > 2000 and 0 < dim < saturated * 0.6, f"{saturated} -> {dim}")
        b.click("#sequence-clear")
        ok, found = gpu_shows(b, None)
        check("Clear lets go: the GPU's colours are the model's own again, and the picture is back",
              ok and b.js(SELECTED) == [] and abs(b.js_async(SATURATED) - saturated) <= saturated * 0.02, f"{found} {saturated}")
        b.click("#sequence-range")
        tap_residue(b, stretch[5])
        tap_residue(b, stretch[2])
        check("Range (for fingers, with no Shift key): two taps select the stretch between them",
              b.js(SELECTED) == stretch[2:6] and gpu_shows(b, stretch[2:6])[0], str(b.js(SELECTED)))
        b.click("#sequence-range")
        b.click("#sequence-clear")

        # ---- The keyboard ----
        b.js("document.getElementById('sequence-chains').focus()")
        press(b, HOME, RIGHT, RIGHT, RIGHT, ENTER)
        first = b.js("return window.__table.residues.chain.indexOf('A')")
        press(b, RIGHT, RIGHT, shift=True)
        active = b.js("return document.getElementById('sequence-chains').getAttribute('aria-activedescendant')")
        keyed = [first + 3, first + 4, first + 5]
        check("by keyboard: Home, three arrows right and Enter select the fourth residue; Shift with two arrows extends to three",
              b.js(SELECTED) == keyed and active == f"sequence-r-{first + 5}" and gpu_shows(b, keyed)[0], f"{b.js(SELECTED)} {active}")
        press(b, DOWN)
        below = b.js("return document.getElementById(document.getElementById('sequence-chains').getAttribute('aria-activedescendant'))?.getAttribute('aria-label')")
        row_b = b.js("return window.__table.residues.chain.indexOf('B')")
        expect_below = b.js("return document.getElementById('sequence-r-' + arguments[0]).getAttribute('aria-label')", row_b + 5)
        press(b, ESCAPE)
        check("down moves to the same place in chain B (named for screen readers); Escape lets the selection go",
              below == expect_below and "chain B" in (below or "") and b.js(SELECTED) == [] and gpu_shows(b, None)[0], f"{below} {expect_below}")

        # ---- 3D → strip ----
        # A click lands on whole pixels, a fraction off the aim: now and then beside a thin part of the
        # cartoon, which the card (identify-card.js) shows as nothing tapped. Those tries do not count.
        marked, missed, aimed = 0, [], 0
        for turn in range(10):
            if marked == 4:
                break
            if turn:
                b.js("document.getElementById('viewer').focus()")
                b.keys(*([RIGHT] * 4 + [UP] * turn))
            time.sleep(0.5)  # apart, so that two taps are not a double tap
            b.js("document.getElementById('identify-card').dataset.atom = ''")
            x, y, atom, _, _ = front_of_model(b)
            residue = b.js("return window.__table.atoms.residue[arguments[0]]", atom)
            click(b, x, y)
            card = b.wait("const c = document.getElementById('identify-card'); return !c.hidden && c.dataset.atom", 5)
            if card != str(atom):
                continue
            aimed += 1
            seen = b.wait("""const e = document.querySelector('#sequence [aria-current="true"]'); if (!e) return null;
                             const box = e.parentElement.getBoundingClientRect(), r = e.getBoundingClientRect();
                             return [e.id, e.dataset.chip ?? null, r.left >= box.left - 1 && r.right <= box.right + 1];""", 10)
            is_chip = bool(seen and seen[1] is not None and b.js(
                "return document.querySelector('[data-chip=\"' + arguments[0] + '\"]').getAttribute('aria-label').includes(window.__table.residues.name[arguments[1]])", seen[1], residue))
            right = bool(seen and (seen[0] == f"sequence-r-{residue}" or is_chip) and seen[2])
            marked += right
            if not right:
                missed.append((turn, atom, residue, seen))
        check("four taps on the front of the model, turned four ways, each mark that atom's residue in the strip, scrolled into sight",
              marked == 4 and not missed, f"{marked} of {aimed}: {missed}")
        click(b, 3, 3)
        gone = b.wait("return document.getElementById('identify-card').hidden && !document.querySelector('#sequence [aria-current=\"true\"]')", 5)
        check("a tap beside the model marks nothing", bool(gone))
        check("no model was fetched for any of it: the highlight is drawn on the client", b.js(MODEL_FETCHES) == fetched,
              f"{fetched} -> {b.js(MODEL_FETCHES)}")

        # ---- A new style keeps the highlight ----
        tap_residue(b, stretch[0])
        tap_residue(b, stretch[-1], shift=True)
        show_style(b, '1AKE', 'ball-and-stick')
        ok, found = gpu_shows(b, stretch, "__fresh")
        check("in another style (ball and stick, a new model) the same stretch stays lit and the rest dimmed", ok, str(found))
        show_style(b, '1AKE', 'cartoon')

        # ---- The screen as a person sees it ----
        found = b.js(AUDIT, "#viewer")
        console = [e["message"][:200] for e in b.console() if e.get("level") == "SEVERE"]
        check("Explore with the strip: ids once, nothing wider than the window, every control named and ≥ 44 px, no console errors",
              not (found["duplicates"] or found["overflow"] or found["unnamed"] or found["small"] or found["failed"] or console),
              f"{ {k: found[k] for k in ('duplicates', 'overflow', 'unnamed', 'small', 'failed')} } {console}")
        if shots:
            # The picture: a tap on the model marks its residue, and a stretch around it is selected in the strip.
            os.makedirs(shots, exist_ok=True)
            b.js("window.__proteinarExplore.viewer.resetView(); document.getElementById('viewer').focus()")
            b.keys("+", "+", "+")  # closer, so the lit stretch reads at phone size
            time.sleep(0.5)
            x, y, atom, _, _ = front_of_model(b)
            click(b, x, y)
            mark = b.wait("return document.querySelector('#sequence-chains [aria-current=\"true\"]')?.id", 10)
            if mark:
                r = int(mark.split("-")[-1])
                row = b.js("const t = window.__table.residues; return [...Array(t.name.length).keys()].filter((i) => t.chain[i] === t.chain[arguments[0]] && t.kind[i] === t.kind[arguments[0]])", r)
                at = row.index(r)
                tap_residue(b, row[max(0, at - 4)])
                tap_residue(b, row[min(len(row) - 1, at + 4)], shift=True)
                b.js("document.getElementById(arguments[0]).scrollIntoView({ block: 'center', inline: 'center' })", mark)
            b.js("document.querySelector('#view-explore .stage').scrollIntoView({ block: 'start' }); window.scrollBy(0, -64)")
            time.sleep(0.5)
            b.screenshot(os.path.join(shots, "sequence-strip.png"))
        web.keep_csp(b)
    finally:
        b.close()
