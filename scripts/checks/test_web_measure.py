"""Measurements in Explore (Web/js/measure.js), in headless Chromium at phone size (390 × 844) on the
web run's server (conftest.py's `web` fixture), on 1AKE in ball and stick: Measure shows in atomic
styles only; with it on, taps on atoms at the front of the model (aimed as test_web_identify.py aims
them, the view turned between taps) make a distance (Done), an angle (Escape) and a dihedral (a fourth
atom ends it). Each value shown must equal what gemmi computes from the file's own coordinates
(Sources/MoleculeLibrary/Starter/1AKE.cif.gz, first model, whose atom order identify.json keeps: the
names are compared): the distance within 0.01 Å, the angle and the dihedral within 0.1°. The dashed
line is drawn from atom to atom (its end at the atom just tapped, its start where the view shows the
other atom's vertices), × removes a measurement, another style keeps them, cartoon hides Measure, in
AR (navigator.xr stubbed as test_web_own_browsers.py stubs it) the lines are drawn as dashed tubes in
the measurement's colour and leave the page's view when AR ends, and another molecule clears them.
--screenshots DIR keeps docs/measurement.png."""
import math
import os
import re
import time

import gemmi
import pytest

from proteinar_testing.aimed_taps import click, front_of_model
from proteinar_testing.browser import ANDROID_UA, XR_STUB, Browser
from proteinar_testing.explore_page import KEEP_FRAME, draw_in_full, open_molecule, show_style
from proteinar_testing.paths import ROOT

pytestmark = pytest.mark.browser

STRUCTURE = os.path.join(ROOT, "Sources", "MoleculeLibrary", "Starter", "1AKE.cif.gz")
ESCAPE, LEFT, UP, RIGHT, DOWN = "\ue00c", "\ue012", "\ue013", "\ue014", "\ue015"

# Residue number, chain and atom name of each atom, from the table the page reads.
NAMES = """const done = arguments[arguments.length - 1];
fetch('/api/molecules/1AKE/identify.json').then((r) => r.json()).then((t) => done(arguments[0].map((a) => {
  const r = t.atoms.residue[a]; return [t.residues.number[r], t.residues.chain[r], t.atoms.name[a]]; })), (e) => done(String(e)));"""
# The measurement being made (its atoms) and the ends of its first drawn line.
BUILDING = """const g = document.querySelector('#measure-layer g.building'); if (!g) return null;
const l = g.querySelector('line.measure-line');
return [g.dataset.atoms, l ? ['x1', 'y1', 'x2', 'y2'].map((k) => Number(l.getAttribute(k))) : null, document.getElementById('measure-hint').textContent];"""
# Where the view shows the middle of an atom's vertices now ([x, y] CSS px): the checks' own reading of the model.
ATOM_ON_SCREEN = """const v = window.__proteinarExplore.viewer, m = v.model, f = arguments[0];
const M = m.nodes[0].matrix, s = [0, 0, 0]; let n = 0;
for (const p of m.meshes[m.nodes[0].mesh].primitives) {
  if (!p.features) continue;
  for (let i = 0; i < p.vertexCount; i++) if (p.features[i] === f) {
    const x = p.positions[3 * i], y = p.positions[3 * i + 1], z = p.positions[3 * i + 2];
    for (let k = 0; k < 3; k++) s[k] += M[k] * x + M[4 + k] * y + M[8 + k] * z + M[12 + k]; n++;
  }
}
const at = v.project(s.map((c) => c / n)); return [at.x, at.y];"""
# Turns the view about the middle of atoms arguments[0] (the middles of their vertices); answers how
# much of the canvas (a fraction of its smaller side) they span on screen.
FRAME_ATOMS = """const v = window.__proteinarExplore.viewer, m = v.model, M = m.nodes[0].matrix, want = new Set(arguments[0]);
const sums = new Map([...want].map((f) => [f, [0, 0, 0, 0]]));
for (const p of m.meshes[m.nodes[0].mesh].primitives) {
  if (!p.features) continue;
  for (let i = 0; i < p.vertexCount; i++) {
    const s = sums.get(p.features[i]); if (!s) continue;
    const x = p.positions[3 * i], y = p.positions[3 * i + 1], z = p.positions[3 * i + 2];
    for (let k = 0; k < 3; k++) s[k] += M[k] * x + M[4 + k] * y + M[8 + k] * z + M[12 + k]; s[3]++;
  }
}
const points = [...sums.values()].map((s) => [s[0] / s[3], s[1] / s[3], s[2] / s[3]]);
if (arguments[1]) v.centreOn([0, 1, 2].map((k) => points.reduce((t, p) => t + p[k], 0) / points.length));
const at = points.map((p) => v.project(p)), c = document.getElementById('viewer');
const span = Math.max(Math.max(...at.map((p) => p.x)) - Math.min(...at.map((p) => p.x)), Math.max(...at.map((p) => p.y)) - Math.min(...at.map((p) => p.y)));
return span / Math.min(c.clientWidth, c.clientHeight);"""
LISTED = "return [...document.querySelectorAll('#measure-list li')].map((li) => [li.querySelector('strong').textContent, li.querySelector('button').getAttribute('aria-label')])"
GROUPS = """return [...document.querySelectorAll('#measure-layer g.measurement')].map((g) => [g.dataset.atoms, g.classList.contains('building'),
  g.getAttribute('visibility'), document.querySelector(`#measure-layer text[data-atoms='${g.dataset.atoms}']`)?.textContent])"""
# How many pixels differ between two kept frames, and how many of those are in the measurements'
# colour (#c2189b, lit: red and blue well above green).
FRAME_CHANGE = """const a = window.__frames[arguments[0]], b = window.__frames[arguments[1]]; let changed = 0, magenta = 0;
for (let i = 0; i < a.length; i += 4) {
  if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) + Math.abs(a[i + 3] - b[i + 3]) < 24) continue;
  changed++; if (b[i] > b[i + 1] + 50 && b[i + 2] > b[i + 1] + 40) magenta++;
}
return [changed, magenta];"""
# The box of the pixels that changed between two kept AR frames to the measurements' colour, on
# the AR overlay (the whole window: the frame is the camera's view of it).
CHANGED_BOX = """const a = window.__frames[arguments[0]], b = window.__frames[arguments[1]], c = document.getElementById('viewer');
const sx = innerWidth / c.width, sy = innerHeight / c.height, box = [Infinity, Infinity, -Infinity, -Infinity];
for (let i = 0; i < a.length; i += 4) {
  if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) < 24) continue;
  if (!(b[i] > b[i + 1] + 50 && b[i + 2] > b[i + 1] + 40)) continue;
  const x = ((i / 4) % c.width) * sx, y = Math.floor(i / 4 / c.width) * sy;
  box[0] = Math.min(box[0], x); box[1] = Math.min(box[1], y); box[2] = Math.max(box[2], x); box[3] = Math.max(box[3], y);
}
return box;"""


def file_atoms():
    """The first model's atoms in the file's order (chain parts unmerged, as identify.json counts them)."""
    model = gemmi.read_structure(STRUCTURE, merge_chain_parts=False)[0]
    return [(chain.name, residue.seqid.num, atom.name, atom.pos) for chain in model for residue in chain for atom in residue]


def number(text):
    """The value in "Distance 3.42 Å" or "Dihedral −62.3°" (a true minus)."""
    found = re.search(r"(−?\d+(?:\.\d+)?) ?(?:Å|°)", text)
    return float(found.group(1).replace("−", "-")) if found else math.nan



def turn_view(b, keys):
    b.js("document.getElementById('viewer').focus()")
    b.keys(*keys)
    time.sleep(0.5)  # apart, so that two taps are not a double tap (which opens the styles)


# The view's turns (in pairs of key presses right and up from where measuring began) tried in turn: a spiral
# about the start, so the front of the model stays near where the person zoomed in.
SPIRAL = [(0, 0)]
for ring in range(1, 7):
    SPIRAL += [(x, y) for x in range(-ring, ring + 1) for y in range(-ring, ring + 1) if max(abs(x), abs(y)) == ring]


def tap_atoms(b, count, taken, step):
    """Taps `count` atoms not in `taken`, each at the front of the model, the view turned between taps
    (SPIRAL[step:]); returns [(atom, x, y, drawn)] with what the page drew right after each tap, and
    the next step."""
    tapped = []
    while len(tapped) < count and step + 1 < len(SPIRAL):
        (x0, y0), (x1, y1) = SPIRAL[step], SPIRAL[step + 1]
        step += 1
        turn_view(b, [RIGHT if x1 > x0 else LEFT] * 2 * abs(x1 - x0) + [UP if y1 > y0 else DOWN] * 2 * abs(y1 - y0))
        x, y, atom, width, height = front_of_model(b)
        if atom in taken or any(atom == a for a, *_ in tapped) or not (4 < x < width - 4 and 4 < y < height - 4):
            continue
        click(b, x, y)
        want = " ".join(str(a) for a in [*[a for a, *_ in tapped], atom])
        if len(tapped) == 3:  # a fourth atom ends the measurement: it is drawn as made, not being made
            drawn = b.wait("return document.querySelector(`#measure-layer g.measurement[data-atoms='${arguments[0]}']:not(.building)`) && [arguments[0]]", 10, want)
        else:
            drawn = b.wait(f"const d = (() => {{ {BUILDING} }})(); return d && d[0] === arguments[0] && d", 10, want)
        tapped.append((atom, x, y, drawn))
    return tapped, step


def ar_frame(b, name):
    """Keeps an AR frame of the molecule placed on the stubbed table, dragged nearer and pinched to
    twice its size so that it fills the view (the same each time), as `name`; then leaves AR.
    Returns the values written over that frame: each one's text, whether it shows, and where (px)."""
    b.js("document.getElementById('ar-slot').scrollIntoView({ block: 'center' })")
    b.click("#ar-button")
    b.wait("return !document.getElementById('ar-overlay').hidden", 20)
    b.js("window.__xr.surface = true")
    b.wait("return document.getElementById('ar-status').textContent.includes('Tap to place')", 10)
    b.js("window.__xr.session.dispatchEvent(new Event('select'))")
    b.wait("return document.getElementById('ar-overlay').dataset.placed", 10)
    b.js("""const o = document.getElementById('ar-overlay');
        const ev = (type, id, x) => o.dispatchEvent(new PointerEvent(type, { pointerId: id, clientX: x, clientY: 400, bubbles: true, pointerType: 'touch' }));
        ev('pointerdown', 1, 100); ev('pointerdown', 2, 200); ev('pointermove', 2, 300); ev('pointerup', 1, 100); ev('pointerup', 2, 300);""")
    b.js("window.__xr.session.dispatchEvent(new Event('selectstart')); window.__xr.touch = { x: 0, y: 0.45, z: -0.45 };")
    b.wait("return document.getElementById('ar-overlay').dataset.position === '0.00 0.45 -0.45'", 10)
    b.js("window.__xr.session.dispatchEvent(new Event('selectend')); window.__xr.touch = null;")
    frames = b.js("return window.__xr.frames")
    b.wait("return window.__xr.frames > arguments[0] + 3", 10, frames)
    b.js(KEEP_FRAME, name)
    written = b.js("""return [...document.querySelectorAll('#ar-labels .measure-pin')].map((p) => {
        const r = p.getBoundingClientRect(); return [p.textContent, !p.hidden, r.left, r.top]; })""")
    b.click("#ar-exit")
    b.wait("return document.getElementById('ar-overlay').hidden", 10)
    b.js("window.__xr.surface = false")
    return written


def ends_at_atoms(b):
    """For each drawn measurement, how far (px) its lines' ends are from where the view shows the
    middle of each atom's vertices."""
    groups = b.js("return [...document.querySelectorAll('#measure-layer g.measurement')].map((g) => [g.dataset.atoms.split(' ').map(Number),"
                  " [...g.querySelectorAll('line.measure-line')].map((l) => ['x1', 'y1', 'x2', 'y2'].map((k) => Number(l.getAttribute(k))))])")
    worst = 0
    for atoms, lines in groups:
        for i, (x1, y1, x2, y2) in enumerate(lines):
            a, c = b.js(ATOM_ON_SCREEN, atoms[i]), b.js(ATOM_ON_SCREEN, atoms[i + 1])
            worst = max(worst, math.hypot(x1 - a[0], y1 - a[1]), math.hypot(x2 - c[0], y2 - c[1]))
    return len(groups), worst


def test_measurements_equal_gemmis_and_are_drawn_listed_and_removable(web, checks, shots):
    check = checks.check
    reference = file_atoms()
    b = Browser(args=[f"--user-agent={ANDROID_UA}"], width=390, height=844)
    try:
        b.phone_size()
        b.before_each_page(XR_STUB)
        open_molecule(b, web.base, "1AKE")
        if b.js("return document.getElementById('style').value") == "ball-and-stick":
            show_style(b, "1AKE", "cartoon")
        check("Measure is hidden in cartoon", b.js("return document.getElementById('measure-bar').hidden") is True)
        show_style(b, "1AKE", "ball-and-stick")
        ar_frame(b, "alone")  # AR with no measurements: the molecule alone
        bar = b.wait("const t = document.getElementById('measure-toggle'); const r = t.getBoundingClientRect();"
                     " return !document.getElementById('measure-bar').hidden && [t.textContent, r.width, r.height]", 5)
        check("Measure shows in ball and stick, named and at least 44 px", bool(bar and bar[0] == "Measure" and min(bar[1:]) >= 44), str(bar))
        b.js("document.getElementById('measure-bar').scrollIntoView({ block: 'center' })")
        b.click("#measure-toggle")
        hint = b.js("return [document.getElementById('measure-toggle').getAttribute('aria-pressed'), document.getElementById('measure-hint').textContent]")
        check("Measure on is pressed and says what to do", hint == ["true", "Tap an atom to start a measurement."], str(hint))

        # As a person measures: turned a little, zoomed in on the front of the model, then atoms
        # near each other, the view turned a little between taps.
        b.js("window.__proteinarExplore.viewer.resetView()")
        turn_view(b, [RIGHT] * 4)
        _, _, near, _, _ = front_of_model(b)
        b.js("const v = window.__proteinarExplore.viewer, m = v.model, f = arguments[0], M = m.nodes[0].matrix, s = [0, 0, 0]; let n = 0;"
             " for (const p of m.meshes[m.nodes[0].mesh].primitives) { if (!p.features) continue;"
             "   for (let i = 0; i < p.vertexCount; i++) if (p.features[i] === f) { const x = p.positions[3 * i], y = p.positions[3 * i + 1], z = p.positions[3 * i + 2];"
             "     for (let k = 0; k < 3; k++) s[k] += M[k] * x + M[4 + k] * y + M[8 + k] * z + M[12 + k]; n++; } }"
             " v.centreOn(s.map((c) => c / n));", near)
        turn_view(b, ["+"] * 6)
        taken, step, shown = set(), 0, []
        for kind, count, end in [("distance", 2, "done"), ("angle", 3, "escape"), ("dihedral", 4, None)]:
            tapped, step = tap_atoms(b, count, taken, step)
            atoms = [a for a, *_ in tapped]
            taken.update(atoms)
            if len(tapped) != count or not all(d for *_, d in tapped):
                check(f"{kind}: {count} atoms tapped, each added to the measurement", False, str(tapped))
                continue
            # Right after the second tap the view has not moved: the line ends at the atom just tapped
            # (the tap hit its front: its ball or its half of a bond) and starts at the first atom.
            if kind == "distance":
                atom, x, y, (_, line, words) = tapped[1]
                first = b.js(ATOM_ON_SCREEN, atoms[0])
                ends = line and math.hypot(line[2] - x, line[3] - y) < 20 and math.hypot(line[0] - first[0], line[1] - first[1]) < 8
                check("the dashed line runs from the first atom as drawn (within 8 px) to the tapped one (within 20 px)",
                      bool(ends), f"line {line}, tap {x:.1f},{y:.1f}, first atom {first}")
                check("after two atoms the hint gives the distance and says a third makes an angle",
                      bool(re.match(r"Distance \d+\.\d\d Å\. Tap a third atom for an angle", words)), words)
            if end == "done":
                b.click("#measure-done")
            elif end == "escape":
                b.js("document.getElementById('viewer').focus()")
                b.keys(ESCAPE)
            listed = b.wait(f"const l = ({LISTED.replace('return ', '')}); return l.length === {len(shown) + 1} && l", 5)
            if not listed:
                check(f"{kind}: listed once ended", False, str(b.js(LISTED)))
                continue
            text = listed[-1][0]
            names = b.js_async(NAMES, atoms)
            same = all(names[i] == [reference[a][1], reference[a][0], reference[a][2]] for i, a in enumerate(atoms))
            positions = [reference[a][3] for a in atoms]
            if count == 2:
                want = positions[0].dist(positions[1])
            elif count == 3:
                want = math.degrees(gemmi.calculate_angle(*positions))
            else:
                want = math.degrees(gemmi.calculate_dihedral(*positions))
            tolerance = 0.01 if count == 2 else 0.1
            right = text.startswith(kind.capitalize() + " ") and abs(number(text) - want) <= tolerance
            unit = "Å" if count == 2 else "°"
            check(f"the {kind} shown ({text}) equals gemmi's ({want:.3f}) from the file's coordinates within {tolerance} {unit}, the atoms' names agreeing",
                  bool(same and right), f"atoms {atoms} {names}")
            shown.append((kind, atoms, text))

        groups = b.js(GROUPS)
        check("each measurement is drawn in the view with its value, none still being made",
              [g[0] for g in groups] == [" ".join(map(str, a)) for _, a, _ in shown] and not any(g[1] for g in groups)
              and [g[3] for g in groups] == [t.split(" ", 1)[1] for *_, t in shown], f"{groups} {shown}")
        before = b.js("return [...document.querySelectorAll('#measure-layer line.measure-line')].map((l) => l.getAttribute('x1')).join()")
        turn_view(b, [RIGHT, RIGHT])
        moved = b.wait("const now = [...document.querySelectorAll('#measure-layer line.measure-line')].map((l) => l.getAttribute('x1')).join();"
                       " return now !== arguments[0] && now", 5, before)
        check("the lines follow the view as it turns", bool(moved))

        if shots and len(shown) == 3:
            # The picture: the view turned about the measured atoms, zoomed until they fill most of it.
            measured = sorted({a for _, atoms, _ in shown for a in atoms})
            b.js(FRAME_ATOMS, measured, True)
            for _ in range(20):
                span = b.js(FRAME_ATOMS, measured, False)
                if 0.5 <= span <= 0.8:
                    break
                turn_view(b, ["+" if span < 0.5 else "-"])
            if b.js("return !document.getElementById('identify-card').hidden"):
                b.click("#identify-close")  # the list under the view in the picture, not the card
            b.js("document.querySelector('#view-explore .stage').scrollIntoView({ block: 'start' }); window.scrollBy(0, -64)")
            time.sleep(0.5)
            os.makedirs(shots, exist_ok=True)
            b.screenshot(os.path.join(shots, "measurement.png"))

        listed = b.js(LISTED)
        named = listed and listed[0][1].startswith("Remove the distance ")
        b.js("document.getElementById('measure-list').scrollIntoView({ block: 'center' })")
        b.click("#measure-list li button")
        left = b.wait(f"const l = ({LISTED.replace('return ', '')}); return l.length === {len(shown) - 1} && l", 5)
        gone = b.js(GROUPS)
        check("× (“Remove the distance …”) removes the distance from the list and the view",
              bool(named and left and shown and all(g[0] != " ".join(map(str, shown[0][1])) for g in gone) and len(gone) == len(shown) - 1),
              f"{listed} -> {left} {gone}")

        # Spacefill draws each atom as a ball alone: the middle of its vertices is the atom itself.
        show_style(b, "1AKE", "spacefill")
        b.js("window.__proteinarExplore.viewer.resetView()")
        b.wait("return document.querySelectorAll('#measure-layer g.measurement[visibility=visible]').length", 5)
        drawn, worst = ends_at_atoms(b)
        check(f"in spacefill the measurements stay, each line's ends at its atoms (the farthest {worst:.2f} px away; 1.5 px allowed)",
              drawn == len(shown) - 1 and worst < 1.5, f"{drawn} drawn")

        # AR: the lines as dashed tubes in the measurements' colour, and nothing of them in the page's view after.
        show_style(b, "1AKE", "ball-and-stick")
        draw_in_full(b, reset=True)
        b.js(KEEP_FRAME, "view before")
        written = ar_frame(b, "measured")
        changed, magenta = b.js(FRAME_CHANGE, "alone", "measured")
        check(f"in AR the measurements are drawn as dashed tubes ({changed} pixels changed from the molecule alone, {magenta} in their colour)",
              changed > 30 and magenta > changed / 2)
        # A value stands at a mean of its atoms, so inside the box its tubes span (a few px of margin).
        values = sorted(text for text, _, _, _ in written)
        box = b.js(CHANGED_BOX, "alone", "measured")
        inside = all(showing and box[0] - 4 <= x <= box[2] + 4 and box[1] - 4 <= y <= box[3] + 4 for _, showing, x, y in written)
        check(f"in AR each measurement's value is written over the camera image, among its tubes ({values}; tubes in x {box[0]:.0f}–{box[2]:.0f}, y {box[1]:.0f}–{box[3]:.0f} px)",
              values == sorted(t.split(" ", 1)[1] for t, _ in b.js(LISTED)) and inside, str(written))
        draw_in_full(b, reset=True)
        b.js(KEEP_FRAME, "view after")
        same_view = b.js(FRAME_CHANGE, "view before", "view after")
        check("after AR the page's own view is as before (no tubes: its SVG draws the measurements)", same_view[0] == 0, str(same_view))

        show_style(b, "1AKE", "cartoon")
        check("cartoon hides Measure", b.js("return document.getElementById('measure-bar').hidden") is True)
        b.js("location.hash = '#/explore/5PTI'")
        b.wait("return document.getElementById('status').textContent.startsWith('5PTI')", 90)
        cleared = b.js("return document.getElementById('measure-list').hidden && document.querySelectorAll('#measure-layer g.measurement, #measure-layer text').length === 0")
        check("another molecule has no measurements", cleared is True)
        console = [e["message"][:200] for e in b.console() if e.get("level") == "SEVERE"]
        check("no console errors", console == [], str(console))
        web.keep_csp(b)
    finally:
        b.close()
