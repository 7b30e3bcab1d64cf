"""Neighbours, on the identify card, in headless Chromium at phone size on the web run's server:
a tap on 1AKE in cartoon, then Neighbours. The residues it lights (the highlight it writes) are
gemmi's: every residue, waters aside, with an atom within 5 Å of an atom of the tapped one
(gemmi.NeighborSearch over the starter file). The model comes back with those residues drawn as
sticks over the cartoon (a second mesh, `sticks`), and the status says how many."""
import os
import re
import time

import gemmi
import pytest

from proteinar_testing.aimed_taps import click, front_of_model
from proteinar_testing.browser import Browser
from proteinar_testing.explore_page import open_molecule, show_style
from proteinar_testing.paths import ROOT

pytestmark = pytest.mark.browser

FILE = os.path.join(ROOT, "Sources", "MoleculeLibrary", "Starter", "1AKE.cif.gz")

TAPPED = """const t = await (await fetch('/api/molecules/1AKE/identify.json')).json();
const r = t.atoms.residue[arguments[0]];
return [t.residues.chain[r], t.residues.number[r], t.residues.insertion[r]];"""


def gemmi_neighbours(chain, number, insertion):
    st = gemmi.read_structure(FILE)
    st.remove_waters()
    model = st[0]
    search = gemmi.NeighborSearch(model, st.cell, 6).populate()
    near = set()
    for ch in model:
        for residue in ch:
            if ch.name != chain or residue.seqid.num != number or residue.seqid.icode.strip() != insertion:
                continue
            for atom in residue:
                for mark in search.find_atoms(atom.pos, "\0", radius=5.0):
                    cra = mark.to_cra(model)
                    if cra.atom.pos.dist(atom.pos) <= 5.0:
                        near.add((cra.chain.name, cra.residue.seqid.num, cra.residue.seqid.icode.strip()))
    return near


def residues_of(selection):
    """The residues a selection of the page's kind names ("A:86-90,B:5"), as (chain, number, '')."""
    out = set()
    for term in selection.split(","):
        m = re.fullmatch(r"([^:]+):(-?\d+)(?:-(-?\d+))?", term)
        assert m, f"not a residue term: {term!r}"
        first, last = int(m.group(2)), int(m.group(3) or m.group(2))
        out |= {(m.group(1), n, "") for n in range(first, last + 1)}
    return out


def test_neighbours_are_gemmis_residues_within_5_angstroms_drawn_as_sticks(web, checks):
    check = checks.check
    b = Browser(width=390, height=844)
    try:
        b.phone_size()
        open_molecule(b, web.base, "1AKE")
        show_style(b, "1AKE", "cartoon")
        b.js("document.getElementById('viewer').focus()")
        b.keys(*["+"] * 8)
        time.sleep(0.5)
        x, y, atom, _, _ = front_of_model(b)
        click(b, x, y)
        b.wait("const c = document.getElementById('identify-card'); return !c.hidden && c.dataset.atom === arguments[0]", 10, str(atom))
        chain, number, insertion = b.js_async("const done = arguments[arguments.length - 1]; (async () => { " + TAPPED + " })().then(done, (e) => done(String(e)));", atom)
        b.js("window.__shown = window.__proteinarExplore.viewer.model")
        b.click("#identify-neighbours")
        b.wait("return window.__proteinarExplore.viewer.model !== window.__shown && document.getElementById('status').textContent.startsWith('1AKE')", 90)
        selection = b.js("return document.getElementById('highlight').value")
        ours = residues_of(selection)
        theirs = gemmi_neighbours(chain, number, insertion)
        print(f"{chain}:{number}{insertion}: ours {len(ours)} residues, gemmi's {len(theirs)}; {selection}")
        check("Neighbours lights gemmi's residues within 5 Å of the tapped one (itself included)",
              ours == theirs and (chain, number, insertion) in ours, f"only ours {sorted(ours - theirs)}, only gemmi's {sorted(theirs - ours)}")
        meshes = b.js("return window.__proteinarExplore.viewer.model.meshes.map((m) => m.name)")
        check("they are drawn as sticks over the cartoon", any(m.startswith("sticks") for m in meshes) and any(m.startswith("cartoon") for m in meshes), str(meshes))
        asked = b.js("return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('model.glb') && n.includes('sticks='))")
        check("the model was asked for with sticks=", bool(asked), str(asked[-1:]))
        said = b.js("return document.getElementById('status').textContent")
        b.js("window.__shown = window.__proteinarExplore.viewer.model; const h = document.getElementById('highlight'); h.value = ''; h.dispatchEvent(new Event('change'))")
        b.wait("return window.__proteinarExplore.viewer.model !== window.__shown && document.getElementById('status').textContent.startsWith('1AKE')", 90)
        meshes = b.js("return window.__proteinarExplore.viewer.model.meshes.map((m) => m.name)")
        check("a highlight typed by hand drops the sticks", not any(m.startswith("sticks") for m in meshes), f"{meshes}; said before: {said}")
        web.keep_csp(b)
    finally:
        b.close()
