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
from proteinar_testing.explore_page import open_molecule, show_style

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
        b.phone_size()
        open_molecule(b, web.base, "1AKE")
        for style in ["cartoon", "ball-and-stick"]:
            show_style(b, "1AKE", style)
            named, missed = 0, []
            # At 390 px a cartoon's triangles are under a pixel: zoomed in three times, as a person
            # pinches in to tap one residue, the front one is big enough to aim a whole-pixel tap at.
            b.js("document.getElementById('viewer').focus()")
            b.keys(*["+"] * 8)
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
        # Labels: two residues labelled, each pinned where it was tapped, following the view as it
        # turns and the residue when the style changes; × in the list removes one.
        pinned = []
        for turn in range(8):
            if len(pinned) == 2:
                break
            time.sleep(0.5)
            b.js("window.__proteinarExplore.viewer.resetView(); document.getElementById('viewer').focus()")
            b.keys(*(["\ue012"] * (6 * turn)))  # arrow left, until the front is another residue
            x, y, atom, _, _ = front_of_model(b)
            click(b, x, y)
            name = b.wait(CARD, 10, str(atom))
            if pinned and name and name[0] == pinned[0][0]:
                continue
            b.click("#identify-label")
            at = b.wait("""const p = [...document.querySelectorAll('#explore-labels .note-pin')].find((e) => e.textContent === arguments[0]);
                           const c = document.getElementById('viewer').getBoundingClientRect();
                           if (!p || p.hidden) return null; const r = p.getBoundingClientRect();
                           return [p.classList.contains('flip') ? r.right - c.left : r.left - c.left, r.top - c.top];""", 5, name and name[0])
            pinned.append((name and name[0], x, y, at))
        near = all(at and abs(at[0] - x) < 60 and abs(at[1] - y) < 60 for _, x, y, at in pinned)
        listed = b.js("return [...document.querySelectorAll('#explore-label-list li')].map((li) => li.firstChild.textContent)")
        check("Label pins the residue's name where it was tapped (within 60 px), two at once, listed under the card",
              near and listed == [n for n, *_ in pinned] and len(set(listed)) == 2, f"{pinned} {listed}")
        where = "return [...document.querySelectorAll('#explore-labels .note-pin')].map((p) => p.style.transform).join(' ')"
        before = b.js(where)
        b.js("document.getElementById('viewer').focus()")
        b.keys("\ue014", "\ue014")
        moved = b.wait(f"const now = ({where.replace('return ', '')}); return now !== arguments[0] && now", 5, before)
        check("the labels follow the view as it turns", bool(moved), f"{before} -> {moved}")
        show_style(b, '1AKE', 'cartoon')
        kept = b.wait("return [...document.querySelectorAll('#explore-labels .note-pin')].filter((p) => !p.hidden).length", 5)
        check("the labels stay on their residues in another style", kept == 2, str(kept))
        if shots:
            os.makedirs(shots, exist_ok=True)
            b.js("document.querySelector('#view-explore .stage').scrollIntoView({ block: 'start' }); window.scrollBy(0, -64)")
            b.screenshot(os.path.join(shots, "identify-labels.png"))
        b.click("#explore-label-list li button")
        left = b.wait("return document.querySelectorAll('#explore-labels .note-pin').length === 1"
                      " && document.querySelectorAll('#explore-label-list li').length === 1", 5)
        check("× in the list removes its label from the list and the view", bool(left))
        time.sleep(0.5)
        x, y, atom, _, _ = front_of_model(b)
        click(b, x, y)
        b.wait(CARD, 10, str(atom))
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
