"""Interactions in Explore (Web/js/interactions.js), in headless Chromium at phone size (390 × 844) on
the web run's server (conftest.py's `web` fixture), driven as a person: 1AKE opened, Interactions
opened, AP5 of chain A chosen. The list must be the server's own (GET /api/molecules/1AKE/interactions,
read here over HTTP): the same interactions in the same words, grouped by kind with the legend's
colours and counts; the chooser lists every site, additives last. Show binding site asks for the model
with `site=A:215` (the page's own request, from its performance entries; the model drawn has the
dashed tubes' mesh), changes the picture and frames the ligand: its atoms' middle (as the model's
vertices draw them) in the middle of the view, the ligand and its site filling most of it; the address
carries the site. A tapped H-bond lights its residues (every vertex of theirs as the model came, every
other one dimmed as tint.js dims), the view turns about it and the status says it. By keyboard, Tab
reaches the chooser and an arrow key picks the other AP5, whose binding site is shown in turn; pressed
again, the style shown before comes back. 1UBI, with no ligand, says so. Every control is named and
44 px, nothing is wider than the window, no console errors; a desktop window shows the same list.
--screenshots DIR keeps DIR/binding-site.png (the binding-site view with the list under it)."""
import json
import math
import os
import time
import urllib.request

import pytest

from proteinar_testing.browser import Browser
from proteinar_testing.explore_page import CONTROLS, KEEP_FRAME, SHOWN, check_controls, draw_in_full, open_molecule, show_style

pytestmark = pytest.mark.browser

TAB, DOWN = "\ue004", "\ue015"

# The list as the page shows it: each group's heading, and each button's words and pressed state.
LISTED = """return [...document.querySelectorAll('#interactions-list .interaction-group')].map((g) => [g.querySelector('h3').textContent,
  [...g.querySelectorAll('button.interaction')].map((b) => [b.textContent, b.dataset.interaction, b.getAttribute('aria-pressed')])])"""
# The middle of atoms arguments[0]'s vertices (model coordinates) and where the view shows it, the
# canvas's size, and the span of the atoms' middles on screen as a fraction of the view's half-sizes.
WHERE = """const v = window.__proteinarExplore.viewer, m = v.model, want = new Set(arguments[0]), sums = new Map();
for (const node of m.nodes) { const M = node.matrix;
  for (const p of m.meshes[node.mesh].primitives) { if (!p.features) continue;
    for (let i = 0; i < p.vertexCount; i++) { const f = p.features[i]; if (!want.has(f)) continue;
      const s = sums.get(f) ?? [0, 0, 0, 0]; sums.set(f, s);
      const x = p.positions[3 * i], y = p.positions[3 * i + 1], z = p.positions[3 * i + 2];
      for (let k = 0; k < 3; k++) s[k] += M[k] * x + M[4 + k] * y + M[8 + k] * z + M[12 + k]; s[3]++; } } }
const points = [...sums.values()].map((s) => [s[0] / s[3], s[1] / s[3], s[2] / s[3]]);
const middle = [0, 1, 2].map((k) => points.reduce((t, p) => t + p[k], 0) / points.length), c = document.getElementById('viewer');
const at = v.project(middle), w = c.clientWidth, h = c.clientHeight, on = points.map((p) => v.project(p));
const span = Math.max(...on.map((p) => Math.max(Math.abs(p.x - at.x) / (w / 2), Math.abs(p.y - at.y) / (h / 2))));
return [at.x, at.y, w, h, span, points.length];"""
# How many pixels differ between two frames kept with KEEP_FRAME.
FRAME_CHANGE = """const a = window.__frames[arguments[0]], b = window.__frames[arguments[1]]; let changed = 0;
for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) >= 24) changed++;
return [changed, a.length / 4];"""
# The model's colours as they are now (kept), and then how the vertices compare: those of atoms whose
# residue is in arguments[0] as kept, every other atom's dimmed (c × 0.25 + 0.55, tint.js).
KEEP_COLOURS = "const m = window.__proteinarExplore.viewer.model; window.__colours = { model: m, colours: m.meshes.map((me) => me.primitives.map((p) => p.colors.slice())) };"
COMPARE_COLOURS = """const done = arguments[arguments.length - 1], lit = new Set(arguments[0]);
fetch('/api/molecules/1AKE/identify.json').then((r) => r.json()).then((t) => {
  const m = window.__proteinarExplore.viewer.model, kept = window.__colours, owner = t.atoms.residue;
  if (kept.model !== m) { done('another model'); return; }
  let same = 0, dimmed = 0, wrong = 0;
  m.meshes.forEach((me, j) => me.primitives.forEach((p, k) => {
    if (!p.features) return;
    const before = kept.colours[j][k], now = p.colors;
    for (let v = 0; v < p.vertexCount; v++) {
      const f = p.features[v]; if (f >= owner.length) continue;
      const on = lit.has(owner[f]);
      for (let c = 0; c < 3; c++) {
        const want = on ? before[4 * v + c] : before[4 * v + c] * 0.25 + 0.55;
        if (Math.abs(now[4 * v + c] - want) > 1e-3) { wrong++; break; }
        if (c === 2) { if (on) same++; else dimmed++; }
      }
    }
  }));
  done([same, dimmed, wrong]);
}, (e) => done(String(e)));"""
# The panel's controls (explore_page.CONTROLS reads their names and sizes).
SELECTOR = "#interactions summary, #interactions button, #interactions select"
SITE_SHOWN = ("const p = document.getElementById('interactions'); return window.__proteinarExplore.viewer.model !== window.__shown"
              " && p.dataset.framed === arguments[0] && document.getElementById('status').textContent.startsWith('1AKE')")


def report(base, molecule):
    with urllib.request.urlopen(f"{base}/api/molecules/{molecule}/interactions", timeout=120) as r:
        return json.loads(r.read())


def site_named(rep, chain, number):
    return next(s for s in rep["sites"] if s["ligand"][0]["chain"] == chain and s["ligand"][0]["number"] == number)


def ligand_atoms(base, site):
    """The identify-table atoms of the site's ligand (`ligand`) and of its site residues (`site`)."""
    with urllib.request.urlopen(f"{base}/api/molecules/1AKE/identify.json", timeout=120) as r:
        table = json.loads(r.read())
    ligand = {r["index"] for r in site["ligand"]}
    around = {r["index"] for r in site["site"]}
    owner = table["atoms"]["residue"]
    return [a for a, r in enumerate(owner) if r in ligand], [a for a, r in enumerate(owner) if r in around], owner


def in_order(rep, site):
    """The site's interactions as the page groups them: by kind, in the legend's order."""
    return [i for k in rep["legend"] for i in site["interactions"] if i["kind"] == k["kind"]]


def open_panel(b):
    b.js("document.getElementById('interactions').scrollIntoView({ block: 'center' })")
    b.click("#interactions > summary")
    return b.wait("return document.getElementById('interactions-ligand').options.length || document.getElementById('interactions-said').textContent.startsWith('This molecule')", 60)


def test_interactions_list_the_servers_and_show_the_binding_site(web, checks, shots):
    check = checks.check
    rep = report(web.base, "1AKE")
    site_a, site_b = site_named(rep, "A", "215"), site_named(rep, "B", "215")
    colours = {k["kind"]: k for k in rep["legend"]}
    b = Browser(width=390, height=844)
    try:
        b.phone_size()
        open_molecule(b, web.base, "1AKE")
        shown = b.wait("const p = document.getElementById('interactions'); return !p.hidden && !p.open", 10)
        fetched = b.js("return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('/api/molecules/1AKE/interactions'))")
        check("Interactions shows under 1AKE's view, closed (nothing fetched until it is opened)", bool(shown) and not fetched, f"{shown} {fetched}")
        check("opening it lists the ligands", bool(open_panel(b)))

        options = b.js("return [...document.getElementById('interactions-ligand').options].map((o) => [o.value, o.textContent])")
        sites = [s for s in rep["sites"] if not s["additive"]] + [s for s in rep["sites"] if s["additive"]]
        check(f"the chooser has one entry per site of the server's ({len(sites)}), named by ligand, additives marked and last",
              len(options) == len(sites) and all(o[1].startswith(f"{s['ligand'][0]['residue']} {s['ligand'][0]['chain']}{s['ligand'][0]['number']}")
                                                 and (" (additive)" in o[1]) == s["additive"] for o, s in zip(options, sites)), str(options))
        a_index = next(o[0] for o in options if o[1].startswith("AP5 A215"))
        b.js("const s = document.getElementById('interactions-ligand'); s.value = arguments[0]; s.dispatchEvent(new Event('change'))", a_index)
        listed = b.js(LISTED)
        words = [w for _, items in listed for w, _, _ in items]
        want = [i["words"] for i in in_order(rep, site_a)]
        print(f"AP5 A215: {len(words)} listed, the server's {len(want)}; first: {words[:2]}")
        check(f"the list is the server's for AP5 A215: {len(want)} interactions, the same words in the same order (“{want[0]}”, …)", words == want,
              f"{len(words)} listed; first {words[:3]}")
        heads = [h for h, _ in listed]
        check("grouped by kind, each heading with the server's count", heads == [
            f"{colours[k]['words'][0].upper()}{colours[k]['words'][1:]} · {site_a['counts'][k]}" for k in [k["kind"] for k in rep["legend"]] if k in site_a["counts"]], str(heads))
        counts = b.js("return document.getElementById('interactions-counts').textContent")
        check("the counts are said in words", f"{site_a['counts']['hydrogen-bond']} H-bonds" in counts
              and f"{len(site_a['site'])} residues within" in counts, counts)
        legend = b.js("""return [...document.querySelectorAll('#interactions-legend li')].map((li) => { const s = li.querySelector('.swatch');
            return [li.textContent, s.getAttribute('aria-hidden'), getComputedStyle(s).getPropertyValue('--swatch').trim()]; })""")
        check("the legend has a swatch (hidden from screen readers) in the server's colour and the words of each kind present",
              legend == [[colours[k]["words"], "true", colours[k]["color"]] for k in [k["kind"] for k in rep["legend"]] if k in site_a["counts"]], str(legend))

        # Show binding site: the model asked for with site=A:215, framed on the ligand.
        draw_in_full(b, reset=True)
        b.js(KEEP_FRAME, "before")
        b.js("window.__shown = window.__proteinarExplore.viewer.model")
        b.click("#interactions-site")
        framed = b.wait(SITE_SHOWN, 90, "A:215")
        check("Show binding site shows the site's model, pressed, and says so", bool(framed)
              and b.js("return document.getElementById('interactions-site').getAttribute('aria-pressed')") == "true",
              b.js("return document.getElementById('status').textContent"))
        asked = b.js("return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('model.glb') && n.includes('site=A%3A215'))")
        check("the page asked for the model with site=A:215", bool(asked), str(asked[-1:]))
        meshes = b.js("return window.__proteinarExplore.viewer.model.meshes.map((m) => m.name)")
        check("the model drawn is the binding-site view (its dashed tubes' mesh)", any(m.startswith("interactions") for m in meshes), str(meshes))
        draw_in_full(b)
        b.js(KEEP_FRAME, "site")
        changed, total = b.js(FRAME_CHANGE, "before", "site")
        check(f"the picture changed ({changed} of {total} pixels)", changed > total * 0.1)
        ligand, around, _ = ligand_atoms(web.base, site_a)
        x, y, w, h, span, n = b.js(WHERE, ligand)
        off = math.hypot(x - w / 2, y - h / 2) / min(w, h)
        check(f"the ligand's middle is in the middle of the view ({off * 100:.1f} % of its size off)", n == len(ligand) and off < 0.05, f"{x:.0f},{y:.0f} in {w}×{h}")
        *_, span, _ = b.js(WHERE, ligand + around)
        check(f"the ligand and its site fill most of the view (their farthest atom at {span:.2f} of its half-size)", 0.55 <= span <= 1.0)
        address = b.wait("return location.hash.includes('site=A:215') && location.hash", 5)
        check("the address carries the site", bool(address), b.js("return location.hash"))

        if shots:
            b.js("document.querySelector('#view-explore .stage').scrollIntoView({ block: 'start' }); window.scrollBy(0, -64)")
            time.sleep(0.5)
            os.makedirs(shots, exist_ok=True)
            b.screenshot(os.path.join(shots, "binding-site.png"))

        # A tapped H-bond: its residues lit, the rest dimmed; the view turns about it.
        first = next(i for i in in_order(rep, site_a) if i["kind"] == "hydrogen-bond")
        _, _, owner = ligand_atoms(web.base, site_a)
        residues = sorted({owner[a["index"]] for a in first["ligand"] + first["partner"]})
        b.js(KEEP_COLOURS)
        button = b.js("return document.querySelector('#interactions-list button.interaction').dataset.interaction")
        b.click("#interactions-list button.interaction")
        pressed = b.wait("return document.querySelector('#interactions-list button.interaction').getAttribute('aria-pressed') === 'true'", 10)
        said = b.js("return document.getElementById('status').textContent")
        check("tapping the first H-bond presses it and says what it lit", bool(pressed) and button == "0" and said.startswith(first["words"]) and "Lit:" in said, said)
        same, dimmed, wrong = b.js_async(COMPARE_COLOURS, residues)
        check(f"its residues are lit ({same} vertices as they came), every other vertex dimmed ({dimmed})", same > 0 and dimmed > same and wrong == 0, f"{wrong} wrong")
        x, y, w, h, *_ = b.js(WHERE, [first["ligand"][0]["index"], first["partner"][0]["index"]])
        off = math.hypot(x - w / 2, y - h / 2) / min(w, h)
        check(f"the view turns about it (its atoms' middle {off * 100:.1f} % of the view's size from its middle)", off < 0.05)

        # Keyboard: Tab reaches the chooser, an arrow key picks AP5 B215, shown in turn.
        b.js("document.querySelector('#interactions > summary').focus()")
        b.keys(TAB)
        focused = b.js("return document.activeElement.id")
        b.js("window.__shown = window.__proteinarExplore.viewer.model")
        b.keys(DOWN)
        moved = b.wait(SITE_SHOWN, 90, "B:215")
        words = [w for _, items in b.js(LISTED) for w, _, _ in items]
        check("Tab reaches the chooser and the down arrow shows AP5 B215's site and list", focused == "interactions-ligand" and bool(moved)
              and words == [i["words"] for i in in_order(rep, site_b)], f"focus {focused}; {words[:1]}")

        # Pressed again: the style shown before.
        style = b.js("return document.getElementById('style').value")
        b.js("window.__shown = window.__proteinarExplore.viewer.model")
        b.click("#interactions-site")
        back = b.wait("return window.__proteinarExplore.viewer.model !== window.__shown && document.getElementById('status').textContent.startsWith('1AKE')", 90)
        meshes = b.js("return window.__proteinarExplore.viewer.model.meshes.map((m) => m.name)")
        last = b.js("return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('model.glb')).pop()")
        check("pressed again, the style shown before comes back (no site=, no tubes, not pressed)", bool(back) and "site=" not in last
              and not any(m.startswith("interactions") for m in meshes) and style == b.js("return document.getElementById('style').value")
              and b.js("return document.getElementById('interactions-site').getAttribute('aria-pressed')") == "false", f"{last} {meshes}")

        # Another style, asked for in its own right, ends the binding-site view.
        b.click("#interactions-site")
        b.wait(SITE_SHOWN, 90, "B:215")
        show_style(b, "1AKE", "sticks")
        meshes = b.js("return window.__proteinarExplore.viewer.model.meshes.map((m) => m.name)")
        check("another style ends the binding-site view", not any(m.startswith("interactions") for m in meshes)
              and b.js("return document.getElementById('interactions-site').getAttribute('aria-pressed')") == "false", str(meshes))

        check_controls(b, check, "the panel", b.js(CONTROLS, SELECTOR))

        # A molecule with no ligand says so.
        b.js("document.getElementById('interactions').scrollIntoView({ block: 'center' })")
        b.js("location.hash = '#/explore/1UBI'")
        b.wait("return document.getElementById('status').textContent.startsWith('1UBI')", 90)
        empty = b.wait("const t = document.getElementById('interactions-said').textContent; return t.startsWith('This molecule') && t", 30)
        check("1UBI says it has no ligand", empty == "This molecule has no ligand: nothing binds it here."
              and b.js("return document.getElementById('interactions-controls').hidden && !document.querySelector('#interactions-list button')"), str(empty))
        console = [e["message"][:200] for e in b.console() if e.get("level") == "SEVERE"]
        check("no console errors", console == [], str(console))
        web.keep_csp(b)
    finally:
        b.close()

    # A desktop window opening the phone's address: the same binding-site view and list, the panel open.
    d = Browser(width=1280, height=800)
    try:
        d.go(f"{web.base}/{address or '#/explore/1AKE?site=A:215'}")
        d.wait(SHOWN, 90, "1AKE")
        ready = d.wait("return document.querySelectorAll('#interactions-list button').length", 30)
        meshes = d.js("return window.__proteinarExplore.viewer.model.meshes.map((m) => m.name)")
        check("the address opens the binding-site view in another browser, Interactions open on its ligand, pressed",
              bool(ready) and any(m.startswith("interactions") for m in meshes) and d.js("const p = document.getElementById('interactions');"
              " return p.open && document.getElementById('interactions-site').getAttribute('aria-pressed') === 'true'"), str(meshes))
        words = [w for _, items in d.js(LISTED) for w, _, _ in items]
        wide = d.js("return [document.documentElement.scrollWidth, innerWidth]")
        check("on a desktop window the list is the same and nothing is wider than the window",
              words == [i["words"] for i in in_order(rep, site_a)] and wide[0] <= wide[1], f"{words[:1]} {wide}")
        console = [e["message"][:200] for e in d.console() if e.get("level") == "SEVERE"]
        check("no console errors on the desktop either", console == [], str(console))
        web.keep_csp(d)
    finally:
        d.close()
