"""Tap to identify in the web app, in headless Chromium at phone size (390 × 844) on the web run's
server (conftest.py's `web` fixture): 1AKE in cartoon and in ball and stick, turned five ways with
the arrow keys; each time the check finds the triangle of the model nearest the camera whose
corners draw one atom (nothing hides it), projects its middle with the viewer's own camera, clicks
there, and the card must name that atom's residue (its feature id, which test_identify.py holds
to gemmi), with the atom in ball and stick; screen readers hear the line. A click beside the model shows no card; Centre turns the
view about the residue; × closes the card. --screenshots DIR keeps the card's picture."""
import os
import re
import time

import pytest

from proteinar_testing.aimed_taps import click, front_of_model
from proteinar_testing.browser import Browser

pytestmark = pytest.mark.browser

AMINO_ACIDS = set("ALA ARG ASN ASP CYS GLN GLU GLY HIS ILE LEU LYS MET PHE PRO SER THR TRP TYR VAL".split())

# The middle of the front triangle ([x, y] on the canvas in CSS pixels, its feature id), and the canvas's size.
CARD = """const c = document.getElementById('identify-card');
return !c.hidden && c.dataset.atom === arguments[0] && [document.getElementById('identify-residue').textContent,
  document.getElementById('identify-where').textContent, document.getElementById('identify-atom').textContent,
  document.getElementById('identify-said').textContent]"""

# Residue and atom names of an atom, from the same table the page reads.
NAMES = """const t = await (await fetch('/api/molecules/1AKE/identify.json')).json();
const r = t.atoms.residue[arguments[0]];
return [t.residues.name[r], t.residues.number[r], t.residues.chain[r], t.atoms.name[arguments[0]]];"""


def names_of(browser, atom):
    return browser.wd("POST", browser.s + "/execute/async",
                      {"script": "const done = arguments[arguments.length - 1]; (async () => { " + NAMES + " })().then(done, (e) => done(String(e)));",
                       "args": [atom]})


def test_a_tap_names_the_residue_under_it_and_the_atom_in_atomic_styles(web, checks, shots):
    check = checks.check
    b = Browser(width=390, height=844)
    try:
        b.go(web.base + "/#/explore/1AKE")
        b.wait("return window.__proteinarExplore?.viewer?.model && document.getElementById('status').textContent.startsWith('1AKE')", 90)
        for style in ["cartoon", "ball-and-stick"]:
            if b.js("return document.getElementById('style').value") != style:
                b.js("window.__shown = window.__proteinarExplore.viewer.model; const s = document.getElementById('style');"
                     " s.value = arguments[0]; s.dispatchEvent(new Event('change'))", style)
                b.wait("return document.getElementById('status').textContent.startsWith('1AKE') && window.__proteinarExplore.viewer.model !== window.__shown", 90)
            named, missed = 0, []
            for turn in range(5):
                if turn:
                    b.js("document.getElementById('viewer').focus()")
                    b.keys(*(["\ue014"] * 3 + ["\ue013"] * turn))  # arrow right three times, arrow up
                time.sleep(0.5)  # apart, so that two taps are not a double tap (which opens the styles)
                x, y, atom, _, _ = front_of_model(b)
                click(b, x, y)
                card = b.wait(CARD, 10, str(atom))
                residue, number, chain, atom_name = names_of(b, atom)
                expect = f"{residue.title() if residue in AMINO_ACIDS else residue} {number}"
                right = bool(card and card[0] == expect and f"chain {chain}" in card[1]
                             and (style == "cartoon" or card[2].startswith(f"{atom_name} · ")) and card[3].startswith(card[0]))
                named += right
                if not right:
                    missed.append((expect, atom_name, card or b.js("return document.getElementById('identify-card').outerHTML.slice(0, 300)")))
            check(f"{style}: five taps on the front of the model each name the residue under them"
                  + (" and the atom" if style != "cartoon" else "") + ", said to screen readers", named == 5, str(missed))
        said = b.js("return document.getElementById('identify-said').getAttribute('role')")
        check("the card's line is a live status (screen readers hear it)", said == "status")
        if shots:
            os.makedirs(shots, exist_ok=True)
            b.js("document.querySelector('#view-explore .stage').scrollIntoView({ block: 'start' }); window.scrollBy(0, -64)")
            b.screenshot(os.path.join(shots, "identify-card.png"))
        before = b.js("return window.__proteinarExplore.viewer.camera.target")
        b.click("#identify-centre")
        after = b.wait("const t = window.__proteinarExplore.viewer.camera.target; return t.join() !== arguments[0].join() && t", 5, before)
        check("Centre turns the view about the tapped residue", bool(after), f"{before} -> {after}")
        b.click("#identify-close")
        check("× closes the card", bool(b.wait("return document.getElementById('identify-card').hidden", 5)))
        b.js("window.__proteinarExplore.viewer.resetView()")
        front_of_model(b)
        click(b, 3, 3)
        shown = b.wait("return !document.getElementById('identify-card').hidden", 2)
        check("a click beside the model shows no card", not shown)
        text = b.js("return document.getElementById('identify-where').textContent")
        check("the card says the chain in words", bool(re.search(r"chain [A-Z]", text or "")), str(text))
        web.keep_csp(b)
    finally:
        b.close()
