"""Tap to identify, held to gemmi: the acceptance of issue 32 in headless Chromium at phone size
(390 × 844), on a server of its own whose stand-in archive holds 4V8R (128,780 atoms).

For 1AKE in cartoon and in ball and stick (the viewer's meshopt model and the AR-budget model,
which the budget makes in spacefill), 1LCD (an NMR entry) in both styles and 4V8R in cartoon, the
check takes 30 random atoms that the style draws and that nothing hides from the eye, taps where
each is drawn, and reads the card: it must name the atom itself for every tap in atomic styles,
and its residue for ≥ 95 % of taps in cartoon.

Where an atom is comes from gemmi alone (its coordinates of the file the server was given),
carried into the model's space by the placement the same model declares in the float encoding (a
scale and a shift: its node's matrix). What hides it is computed from gemmi's coordinates and the
style's sizes (docs/formats.md): in atomic styles each atom a sphere (ball and stick: a quarter of
gemmi's van der Waals radius, 0.18 for hydrogens; spacefill: the whole radius) and, in ball and
stick, each bond (atoms under 1.9 Å apart) a tube of 0.14 Å, each half its own atom's; in cartoon
the Cα of each amino acid (where a strand is drawn: the pleat ironed out, as the style does), hidden
by a backbone atom of another residue (any atom of a nucleotide) within 2.5 Å of the line of sight
and over 1 Å nearer the eye. As a person pinches in to tap one atom, the view is zoomed to 8 pixels
an Å (a tap lands on a whole CSS pixel; a ribbon seen edge on is 0.3 Å thick), about an atom in
sight for a big molecule, and turned 45° at a time until 30 atoms have been in sight. The tap aims
at the atom's centre projected with the viewer's own camera."""
import collections
import math
import os
import random
import time

import gemmi
import numpy as np
import pytest

from proteinar_testing.aimed_taps import click
from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.browser import Browser
from proteinar_testing.explore_page import open_molecule, show_style
from proteinar_testing.paths import FIXTURES, ROOT
from proteinar_testing.server import ServerProcess

pytestmark = pytest.mark.browser

STARTER = os.path.join(ROOT, "Sources", "MoleculeLibrary", "Starter")
FILES = {"1AKE": os.path.join(STARTER, "1AKE.cif.gz"), "1LCD": os.path.join(STARTER, "1LCD.cif.gz"),
         "4V8R": os.path.join(FIXTURES, "pdb4v8r_h36.pdb.gz")}
CASES = [("1AKE", "cartoon", "meshopt"), ("1AKE", "ball-and-stick", "meshopt"),
         ("1AKE", "cartoon", "ar"), ("1AKE", "ball-and-stick", "ar"),
         ("1LCD", "cartoon", "meshopt"), ("1LCD", "ball-and-stick", "meshopt"),
         ("4V8R", "cartoon", "meshopt")]
TAPS = 30
BOND = 1.9          # Å: atoms nearer than this are joined in ball and stick (for what hides what)
BOND_RADIUS = 0.14  # Å, BallAndStick.bondRadius
CARTOON_REACH = 2.5 # Å: a ribbon's widest half (1.2 Å, an arrow) and the spline's stray from the Cα (≈ 1.3 Å)
CARTOON_DEPTH = 1.0 # Å
MARGIN = 0.1        # Å: tessellation and rounding
TURNS = 8           # views, 45° apart, to find atoms in sight
PIXELS_PER_ANGSTROM = 8  # how far the checks zoom in ('+': 1.15× a press)
EDGE = 12           # CSS pixels kept clear of the view's edges

# The placement: the scale s and shift t that carry Å into the model's space (model = s · Å + t),
# as the same model in the float encoding declares it (its first node's matrix: mesh coordinates
# are the file's Å there, and the placement is the scene's, whatever the encoding); with the eye.
PLACEMENT = """const done = arguments[arguments.length - 1];
fetch(arguments[0]).then((r) => r.arrayBuffer()).then((buffer) => {
  const view = new DataView(buffer), length = view.getUint32(12, true);
  const gltf = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 20, length)));
  const m = gltf.nodes[0].matrix, c = document.getElementById('viewer');
  done({ scale: m[0], shift: [m[12], m[13], m[14]], rotation: [m[1], m[2], m[4], m[6], m[8], m[9]],
         eye: window.__proteinarExplore.viewer.camera.position, width: c.clientWidth, height: c.clientHeight });
}, (e) => done(String(e)));"""

PROJECT = """const v = window.__proteinarExplore.viewer; return arguments[0].map((p) => { const s = v.project(p); return [s.x, s.y]; });"""

CARD = """const c = document.getElementById('identify-card');
return !c.hidden && c.dataset.atom !== 'none' && [Number(c.dataset.atom), document.getElementById('identify-residue').textContent]"""


class Reference:
    """gemmi's reading of one file, in the order of our identify table's atoms."""

    def __init__(self, path, table):
        st = gemmi.read_structure(path)
        st.setup_entities()
        model = st[0]
        by_key = collections.defaultdict(list)
        for chain in model:
            for residue in chain:
                for atom in residue:
                    by_key[(chain.name, residue.seqid.num, residue.seqid.icode.strip(), atom.name)].append((chain, residue, atom))
        atoms, residues = table["atoms"], table["residues"]
        used = collections.Counter()
        n = len(atoms["name"])
        self.xyz = np.full((n, 3), np.nan)
        self.vdw = np.zeros(n)
        self.hydrogen = np.zeros(n, dtype=bool)
        self.residue = np.array(atoms["residue"])
        self.kind = [residues["kind"][r] for r in atoms["residue"]]
        self.name = atoms["name"]
        for a in range(n):
            r = atoms["residue"][a]
            key = (residues["chain"][r], residues["number"][r], residues["insertion"][r], atoms["name"][a])
            found = by_key.get(key, [])
            k = used[key]
            used[key] += 1
            if k < len(found):
                _, _, atom = found[k]
                self.xyz[a] = atom.pos.tolist()
                self.vdw[a] = atom.element.vdw_r
                self.hydrogen[a] = atom.element.is_hydrogen
        self.known = ~np.isnan(self.xyz[:, 0])
        self.drawn = self.known & np.array([k != "water" for k in self.kind])
        # What a cartoon draws near a residue: the backbone of amino acids, all of a nucleotide.
        protein_backbone = np.array([n in ("N", "CA", "C", "O") for n in self.name])
        amino = np.array([k == "amino-acid" for k in self.kind])
        nucleic = np.array([k == "nucleotide" for k in self.kind])
        self.cartoon = self.drawn & ~self.hydrogen & ((amino & protein_backbone) | nucleic)
        self.radius = self.vdw
        self.bonds = self._bonds() if n < 20000 else None

    def _bonds(self):
        idx = np.flatnonzero(self.drawn)
        pairs = []
        points = self.xyz[idx]
        # Plain grid on the drawn atoms: pairs nearer than BOND.
        cells = collections.defaultdict(list)
        for k, p in zip(idx, points):
            cells[tuple((p // BOND).astype(int))].append(k)
        for cell, members in cells.items():
            near = [m for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)
                    for m in cells.get((cell[0] + dx, cell[1] + dy, cell[2] + dz), ())]
            for a in members:
                for b in near:
                    if a < b and np.linalg.norm(self.xyz[a] - self.xyz[b]) < BOND:
                        pairs.append((a, b))
        return np.array(pairs, dtype=np.int64).reshape(-1, 2)

    def trace_points(self, table):
        """Where a cartoon draws each Cα (`self.aim`): at the atom, but in a strand (a run of E or B of
        two residues or more) at (previous + 2 · this + next) / 4 of the Cα along its piece of chain
        (no gap over 4.2 Å): docs/formats.md's cartoon, which irons out the sheet's pleat."""
        self.aim = self.xyz.copy()
        letters = table["residues"]["secondary"]
        chains = table["residues"]["chain"]
        ca = {int(self.residue[a]): a for a in np.flatnonzero(self.known) if self.name[a] == "CA" and self.kind[a] == "amino-acid"}
        pieces, piece, last = [], [], None
        for r in sorted(ca):
            a = ca[r]
            if piece and (chains[r] != chains[last] or np.linalg.norm(self.xyz[a] - self.xyz[ca[last]]) > 4.2):
                pieces.append(piece)
                piece = []
            piece.append(r)
            last = r
        pieces.append(piece)
        for piece in pieces:
            kinds = ["strand" if letters[r] in "EB" else "helix" if letters[r] in "HGI" else "coil" for r in piece]
            i = 0
            while i < len(kinds):
                j = i
                while j + 1 < len(kinds) and kinds[j + 1] == kinds[i]:
                    j += 1
                if kinds[i] != "coil" and j - i + 1 < (3 if kinds[i] == "helix" else 2):
                    kinds[i:j + 1] = ["coil"] * (j - i + 1)
                i = j + 1
            for k in range(1, len(piece) - 1):
                if kinds[k] == "strand":
                    before, this, after = (self.xyz[ca[piece[k + d]]] for d in (-1, 0, 1))
                    self.aim[ca[piece[k]]] = (before + 2 * this + after) / 4

    def drawn_as(self, style):
        """Sets the spheres' radii of the style the model was made in (docs/formats.md)."""
        if style == "spacefill":
            self.radius = self.vdw
        elif style == "ball-and-stick":
            self.radius = self.vdw * np.where(self.hydrogen, 0.18, 0.25)
        elif style == "sticks":
            self.radius = np.full(len(self.vdw), 0.2)

    def candidates(self, style):
        if style == "cartoon":
            return [a for a in np.flatnonzero(self.drawn) if self.kind[a] == "amino-acid" and self.name[a] == "CA"]
        return list(np.flatnonzero(self.drawn))

    def visible(self, a, eye, style):
        """Whether nothing drawn lies between the eye and atom a (its sphere's front, in ball and stick)."""
        c = self.aim[a] if style == "cartoon" else self.xyz[a]
        d = c - eye
        length = np.linalg.norm(d)
        d /= length
        if style == "cartoon":
            others = self.cartoon & (self.residue != self.residue[a])
            reach, front = CARTOON_REACH, length
        else:
            others = self.drawn.copy()
            others[a] = False
            reach, front = None, length - self.radius[a]
        q = self.xyz[others] - eye
        t = q @ d
        perpendicular = np.sqrt(np.maximum((q * q).sum(axis=1) - t * t, 0))
        r = np.full(len(t), reach) if reach else self.radius[others] + MARGIN
        inside = perpendicular < r
        # A cartoon's atom hides the Cα when it lies more than CARTOON_DEPTH nearer the eye: one
        # beside it (its neighbours in the chain) does not.
        entry = t + CARTOON_DEPTH if style == "cartoon" else t - np.sqrt(np.maximum(r * r - perpendicular * perpendicular, 0))
        if np.any(inside & (entry < front) & (t > 0)):
            return False
        if style != "ball-and-stick" or self.bonds is None or len(self.bonds) == 0:
            return True
        # Bonds: each half belongs to its own atom; a's own halves do not hide a.
        for half in (0, 1):
            owner, other = self.bonds[:, half], self.bonds[:, 1 - half]
            keep = owner != a
            p0 = self.xyz[owner[keep]]
            p1 = (self.xyz[owner[keep]] + self.xyz[other[keep]]) / 2
            if np.any(self._near_segments(eye, d, front, p0, p1, BOND_RADIUS + MARGIN)):
                return False
        return True

    @staticmethod
    def _near_segments(eye, d, front, p0, p1, radius):
        """Which segments p0–p1 come within `radius` of the sight line eye + s·d, 0 < s < front."""
        u = p1 - p0
        w0 = p0 - eye
        a = (u * u).sum(axis=1)
        b = u @ d
        c = 1.0
        dd = w0 @ d
        e = (w0 * u).sum(axis=1)
        denominator = a * c - b * b
        sc = np.clip(np.where(denominator > 1e-9, (b * dd - c * e) / np.maximum(denominator, 1e-9), 0), 0, 1)
        tc = np.clip(dd + sc * b, 0, front)
        closest = w0 + sc[:, None] * u - tc[:, None] * d
        return ((closest * closest).sum(axis=1) < radius * radius) & (tc > 0) & (tc < front)


def table_of(b, entry):
    return b.js_async("const done = arguments[arguments.length - 1];"
                      "fetch('/api/molecules/' + arguments[0] + '/identify.json').then((r) => r.json()).then(done, (e) => done(String(e)));", entry)


def show(b, entry, style, model):
    """Opens `entry` in `style`; the AR-budget model (model 'ar') replaces the viewer's own."""
    if getattr(b, "entry", None) != entry:
        open_molecule(b, b.site, entry, timeout=240)
        b.entry = entry
    show_style(b, entry, style, timeout=240)
    if model == "ar":
        b.js_async("const done = arguments[arguments.length - 1];"
                   "window.__proteinarExplore.viewer.load(`/api/molecules/${arguments[0]}/model.glb?style=${arguments[1]}&hide=water&target=ar&compression=meshopt`)"
                   ".then(() => done(true), (e) => done(String(e)));", entry, style)
    b.js("document.getElementById('viewer').scrollIntoView({ block: 'center' })")
    time.sleep(0.4)


@pytest.fixture(scope="module")
def server(proteinar_bin):
    archive = ArchiveStandIn({"4V8R.pdb.gz": FILES["4V8R"]}, {})
    run = ServerProcess(proteinar_bin, rcsb_url=archive.url, name="identify-taps")
    yield run
    run.close()
    archive.close()


def test_taps_name_what_gemmi_says_is_there(server, checks):
    check = checks.check
    rng = random.Random(32)
    b = Browser(width=390, height=844)
    b.site = server.url
    try:
        b.phone_size()
        references = {}
        for entry, style, model in CASES:
            show(b, entry, style, model)
            if entry not in references:
                table = table_of(b, entry)
                references[entry] = Reference(FILES[entry], table)
                references[entry].trace_points(table)
            ref = references[entry]
            # The style the model was made in: the AR budget may have stepped down a lighter one.
            drawn = b.js("return window.__proteinarExplore.viewer.model.meshes.map((m) => m.name.replace(/-[0-9]+$/, ''))")
            made = drawn[0] if len(set(drawn)) == 1 else style
            ref.drawn_as(made)
            query = f"style={style}&hide=water&compression=float" + ("&target=ar" if model == "ar" else "")
            fit = b.js_async(PLACEMENT, f"/api/molecules/{entry}/model.glb?{query}")
            assert isinstance(fit, dict) and not any(fit["rotation"]), f"{entry}: the float model's placement: {fit}"
            s, t = fit["scale"], np.array(fit["shift"])
            pool = ref.candidates(made)
            rng.shuffle(pool)
            # A ribbon seen edge on is 0.3 Å thick, a ball 0.4 Å across, and a tap lands on a whole
            # CSS pixel (1AKE's first view: 0.3 Å a pixel; 4V8R's: 1 Å): as a person pinches in to
            # tap one atom, the view turns about an atom in sight (a big molecule's middle is
            # inside it) and zooms in to PIXELS_PER_ANGSTROM.
            eye = (np.array(b.js("return window.__proteinarExplore.viewer.camera.position")) - t) / s
            focus = next((a for a in pool if ref.visible(a, eye, made)), None)
            if focus is not None and len(ref.name) > 20000:
                b.js("window.__proteinarExplore.viewer.centreOn(arguments[0])", (s * ref.xyz[focus] + t).tolist())
            centre = ref.xyz[focus] if focus is not None else np.nanmean(ref.xyz, axis=0)
            ends = b.js(PROJECT, [(s * (centre + step) + t).tolist() for step in ([0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1])])
            per_angstrom = max(np.hypot(x - ends[0][0], y - ends[0][1]) for x, y in ends[1:])
            presses = max(0, min(24, int(np.ceil(np.log(PIXELS_PER_ANGSTROM / per_angstrom) / np.log(1.15)))))
            b.js("document.getElementById('viewer').focus()")
            b.keys(*["+"] * presses)
            time.sleep(0.3)
            chosen, right, wrong = [], 0, []
            for turn in range(TURNS):
                if turn:
                    # Another side of the molecule, for atoms hidden from this one (or out of the view).
                    b.js("document.getElementById('viewer').focus()")
                    b.keys(*["\ue014"] * 9)  # arrow right: 45°
                    time.sleep(0.3)
                eye = (np.array(b.js("return window.__proteinarExplore.viewer.camera.position")) - t) / s
                here = []
                for a in pool:
                    if len(chosen) + len(here) == TAPS:
                        break
                    if a in chosen or not ref.visible(a, eye, made):
                        continue
                    x, y = b.js(PROJECT, [(s * (ref.aim[a] if made == "cartoon" else ref.xyz[a]) + t).tolist()])[0]
                    if EDGE <= x <= fit["width"] - EDGE and EDGE <= y <= fit["height"] - EDGE:
                        here.append((int(a), x, y))
                b.js("document.getElementById('viewer').scrollIntoView({ block: 'center' })")
                last = None
                for a, x, y in here:
                    if last and math.hypot(x - last[0], y - last[1]) < 40:
                        time.sleep(0.4)  # apart, so that two taps near each other are not a double tap
                    last = (x, y)
                    b.js("document.getElementById('identify-card').dataset.atom = 'none'")
                    click(b, x, y)
                    card = b.wait(CARD, 5)
                    named = card[0] if card else None
                    ok = named == a if made != "cartoon" else (named is not None and ref.residue[named] == ref.residue[a])
                    right += ok
                    if not ok:
                        wrong.append((ref.name[a], int(ref.residue[a]), named, card[1] if card else "no card"))
                chosen += [a for a, _, _ in here]
                if len(chosen) == TAPS:
                    break
            share = right / max(len(chosen), 1)
            bar = 0.95 if made == "cartoon" else 1.0
            print(f"{entry} {style} ({model}, drawn as {made}): {len(chosen)} atoms in sight of {len(pool)}, "
                  f"(1 Å = {s:.5f}), {right} named right ({share:.0%}); wrong: {wrong[:5]}")
            check(f"{entry} in {style} ({'AR budget, drawn as ' + made if model == 'ar' else 'the viewer’s meshopt model'}): "
                  f"{TAPS} taps on atoms in sight name {'their residue' if made == 'cartoon' else 'the atom itself'} "
                  f"for ≥ {bar:.0%}", len(chosen) == TAPS and share >= bar, f"{right} of {len(chosen)}: {wrong[:5]}")
    finally:
        b.close()
