"""A view is a link (Web/js/view-link.js), in headless Chromium at phone size (390 × 844) on the web
run's server (conftest.py's `web` fixture). In browser A: 1AKE in ball and stick coloured by chain,
A:10-50 highlighted, two residues labelled (tapped on the front of the model as the viewer's camera
shows it, then Label), a distance measured between two atoms tapped the same way, the view turned and zoomed with the arrow keys and + and centred on a residue.
The address bar follows the view, short and readable; Share view shows that link (at the address a
phone reaches, the run's --public-url) with a QR code that ZXing-C++ reads back as the same link,
in a dialog that passes test_tour.py's screen audit.

In a fresh browser B, the link opens the same view: the same style, colour, highlight and Hide boxes,
the same labels and measurement, the camera within 1e-3 of the distance to what it looks at, and the view's part of
the screen within MEAN_DIFF_BOUND of A's (the mean absolute difference of its pixels' channels, of
255); B turned one arrow-key step (5°) further differs from A's by far more than the bound (at least
SPREAD times), so the bound means something. --screenshots DIR keeps view-link.png, the Share dialog."""
import base64
import io
import os
import re
import time

import pytest
from PIL import Image, ImageChops, ImageStat

from in_browser.screen_audit import AUDIT, problems
from in_browser.web_page import PHONE_URL
from proteinar_testing.aimed_taps import click, front_of_model
from proteinar_testing.browser import Browser
from proteinar_testing.qr_codes import decode_qr

pytestmark = pytest.mark.browser

MEAN_DIFF_BOUND = 1.0   # of 255: the same view drawn in two browsers (measured: 0.23)
SPREAD = 3              # a view 5° apart differs at least this many times the bound (measured: 5.6)

SHOWN = "return window.__proteinarExplore?.viewer?.model && document.getElementById('status').textContent.startsWith('1AKE:')"
CARD = "const c = document.getElementById('identify-card'); return !c.hidden && c.dataset.atom === arguments[0] && document.getElementById('identify-residue').textContent"
# What the page shows: the controls, the labels (the view's pins and the list), the camera.
VIEW = """const v = window.__proteinarExplore.viewer, $ = (id) => document.getElementById(id);
return { style: $('style').value, color: $('color').value, highlight: $('highlight').value,
  hide: ['water', 'ligands', 'hydrogens'].filter((w) => $('hide-' + w).checked),
  pins: [...document.querySelectorAll('#explore-labels .note-pin')].filter((p) => !p.hidden).map((p) => p.textContent),
  listed: [...document.querySelectorAll('#explore-label-list li')].map((li) => li.firstChild.textContent),
  measured: [...document.querySelectorAll('#measure-list li strong')].map((s) => s.textContent),
  camera: v.camera };"""
ARROW_RIGHT, ARROW_UP = "\ue014", "\ue013"


def rebuilt(b, script, *args):
    """Runs `script` (a change of the model's options) and waits for the new model to be shown."""
    b.js("window.__shown = window.__proteinarExplore.viewer.model")
    b.js(script, *args)
    return b.wait(SHOWN + " && window.__proteinarExplore.viewer.model !== window.__shown", 120)


def view_picture(b):
    """The 3D view's part of the screen (labels over it included), focus and card put away, the full
    model drawn."""
    b.js("document.activeElement?.blur(); if (!document.getElementById('identify-card').hidden) document.getElementById('identify-close').click();"
         " document.getElementById('viewer').scrollIntoView({ block: 'center' })")
    time.sleep(1.2)  # a coarse frame drawn while moving is replaced by the full model once still
    rect = b.js("const r = document.getElementById('viewer').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, window.devicePixelRatio]")
    shot = Image.open(io.BytesIO(base64.b64decode(b.wd("GET", b.s + "/screenshot")))).convert("RGB")
    left, top, right, bottom, ratio = rect
    return shot.crop(tuple(int(round(v * ratio)) for v in (left, top, right, bottom)))


def mean_difference(a, b):
    """The mean absolute difference of two pictures' channels (0 to 255), over the part both cover."""
    size = (min(a.width, b.width), min(a.height, b.height))
    box = (0, 0, *size)
    return sum(ImageStat.Stat(ImageChops.difference(a.crop(box), b.crop(box))).mean) / 3




def label_front_residue(b, avoid):
    """Taps the front of the model and labels its residue, unless it is one of `avoid`; its name or None."""
    time.sleep(0.5)  # apart from the last tap, so that two are not a double tap
    x, y, atom, _, _ = front_of_model(b)
    click(b, x, y)
    name = b.wait(CARD, 10, str(atom))
    if not name or name in avoid:
        return None
    b.click("#identify-label")
    b.wait("return [...document.querySelectorAll('#explore-labels .note-pin')].some((p) => p.textContent === arguments[0])", 5, name)
    return name


def phone():
    """A browser exactly 390 × 844 (a window alone may not be that narrow), as test_tour.py's."""
    b = Browser(width=390, height=844)
    b.phone_size()
    return b


def measure_two_atoms(b):
    """Measure on, two atoms at the front of the model tapped (turning between them), Measure off:
    the distance listed ([its value]), or None."""
    b.click("#measure-toggle")
    atoms = []
    for _ in range(12):
        if len(atoms) == 2:
            break
        b.js("document.getElementById('viewer').focus()")
        b.keys(ARROW_RIGHT, ARROW_RIGHT)
        time.sleep(0.5)
        x, y, atom, _, _ = front_of_model(b)
        if atom in atoms:
            continue
        click(b, x, y)
        if b.wait("return document.querySelector('#measure-layer g.building')?.dataset.atoms === arguments[0]", 5, " ".join(map(str, [*atoms, atom]))):
            atoms.append(atom)
    b.click("#measure-toggle")  # Measure off keeps the measurement made
    return b.wait("const l = [...document.querySelectorAll('#measure-list li strong')].map((s) => s.textContent); return l.length === 1 && l", 5)


def test_a_view_link_opens_the_same_view_in_another_browser(web, checks, shots):
    check = checks.check
    a = phone()
    b = None
    try:
        a.go(web.base + "/#/explore/1AKE")
        check("1AKE is shown", bool(a.wait(SHOWN, 120)))
        entries = a.js("return history.length")
        check("a plain view goes without parameters in the address", a.js("return location.hash") == "#/explore/1AKE", a.js("return location.hash"))
        shown = rebuilt(a, "const $ = (id) => document.getElementById(id); $('style').value = 'ball-and-stick'; $('color').value = 'chain';"
                           " $('color').dispatchEvent(new Event('change'))")
        shown = shown and rebuilt(a, "const h = document.getElementById('highlight'); h.value = 'A:10-50'; h.dispatchEvent(new Event('change'))")
        check("ball and stick, coloured by chain, A:10-50 highlighted", bool(shown))

        # Two labels, on residues at the front of the model as it turns; then turned, zoomed and
        # centred on the second residue (Centre moves what the camera looks at).
        labelled = []
        for turn in range(10):
            if len(labelled) == 2:
                break
            if turn:
                a.js("document.getElementById('viewer').focus()")
                a.keys(*([ARROW_RIGHT] * 4))
            name = label_front_residue(a, labelled)
            if name:
                labelled.append(name)
        check("two residues labelled", len(labelled) == 2, str(labelled))
        measured = measure_two_atoms(a)
        check("a distance measured between two atoms tapped", bool(measured), str(measured))
        a.click("#identify-centre")
        a.js("document.getElementById('viewer').focus()")
        a.keys(ARROW_UP, ARROW_UP, ARROW_RIGHT, "+", "+")

        # The address follows the view once it is still: every part of the view, readable.
        address = a.wait("const h = location.hash; return ['style=', 'color=', 'highlight=', 'view=', 'labels=', 'measure='].every((p) => h.includes(p))"
                         " && h.split('labels=')[1].split('&')[0].split(',').length === 2 && h", 10)
        time.sleep(1.0)
        address = a.js("return location.hash")
        check("the address names the view in short readable parameters (no escapes, under 200 characters)",
              bool(address and re.fullmatch(r"#/explore/1AKE\?style=ball-and-stick&color=chain&highlight=A:10-50"
                                            r"&view=q[-0-9.,]+;d[0-9.]+;t[-0-9.,]+&labels=[A-Z]:\d+,[A-Z]:\d+&measure=\d+-\d+", address))
              and len(address) < 200, str(address))
        history = a.js("return history.length")
        check("the address follows the view without new history entries", history == entries, f"{entries} -> {history}")
        seen = a.js(VIEW)

        # Share view: no share sheet here (a computer), so the link is shown with its QR code.
        a.click("#share-view")
        qr = a.wait("const d = document.getElementById('view-link-dialog'), q = document.getElementById('view-link-qr');"
                    " return d.open && !q.hidden && q.width > 0 && q.toDataURL('image/png')", 20)
        link = a.js("return document.getElementById('view-link-text').value")
        check("Share view shows the link, at the address a phone reaches (--public-url)", link == f"{PHONE_URL}/{address}", f"{link!r} {address!r}")
        got = decode_qr(qr) if qr else None
        check("the Share dialog's QR code reads back as the link", got == link, f"{got!r}")
        said = a.js("return document.getElementById('status').textContent")
        check("the status line says the link is copied or to copy it", "link" in (said or "").lower(), str(said))
        faults = problems(a.js(AUDIT, "#view-link-dialog"), [], opened_at_top=False)
        check("the Share dialog: ids once, nothing wider than the window, every control named and ≥ 44 px", faults == [], "; ".join(faults))
        if shots:
            os.makedirs(shots, exist_ok=True)
            a.screenshot(os.path.join(shots, "view-link.png"))
        a.js("document.getElementById('view-link-dialog').close()")
        picture_a = view_picture(a)
        web.keep_csp(a)
        errors = [e["message"] for e in a.console() if e.get("level") == "SEVERE"]
        check("no console errors in A", not errors, str(errors))

        # A fresh browser opens the link (at this run's own address).
        b = phone()
        b.go(web.base + "/" + address)
        ready = b.wait(SHOWN + " && document.querySelectorAll('#explore-labels .note-pin').length === 2"
                       " && document.querySelectorAll('#measure-list li').length === 1", 120)
        check("the link opens 1AKE with its two labels and its measurement in a fresh browser", bool(ready))
        time.sleep(0.5)
        there = b.js(VIEW)
        same = {k: (seen[k], there[k]) for k in ["style", "color", "highlight", "hide", "pins", "listed", "measured"]}
        check("the same style, colour, highlight, Hide boxes, labels and measurement", all(x == y for x, y in same.values()), str(same))
        ca, cb = seen["camera"], there["camera"]
        reach = sum((p - t) ** 2 for p, t in zip(ca["position"], ca["target"])) ** 0.5
        off = max(sum((p - q) ** 2 for p, q in zip(ca[k], cb[k])) ** 0.5 for k in ["position", "target"])
        check("the same camera: position and target within 1e-3 of its distance to the target", off <= 1e-3 * reach,
              f"{ca} vs {cb}: off by {off:.3g}, distance {reach:.3g}")
        picture_b = view_picture(b)
        difference = mean_difference(picture_a, picture_b)
        b.js("document.getElementById('viewer').focus()")
        b.keys(ARROW_RIGHT)
        turned = mean_difference(picture_a, view_picture(b))
        print(f"view link: {address} ({len(address)} characters); mean absolute difference of the view's pixels, of 255: "
              f"the same view {difference:.3f}, turned 5° {turned:.3f}; camera off by {off:.2e} of {reach:.3g}")
        check(f"the view's picture in B differs from A's by less than {MEAN_DIFF_BOUND} of 255 (mean absolute difference)",
              difference < MEAN_DIFF_BOUND, f"{difference:.3f}")
        check(f"a view turned 5° differs by at least {SPREAD} times the bound", turned >= SPREAD * MEAN_DIFF_BOUND, f"{turned:.3f}")
        web.keep_csp(b)
        errors = [e["message"] for e in b.console() if e.get("level") == "SEVERE"]
        check("no console errors in B", not errors, str(errors))
    finally:
        a.close()
        if b:
            b.close()
