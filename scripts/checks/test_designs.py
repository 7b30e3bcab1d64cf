"""Designs from `proteinar build`, checked by an independent reader (gemmi, from PyPI):

  - every backbone bond within 0.02 Å and every angle within 2° of Engh & Huber's ideal values
    (glycine's own N-CA, CA-C and N-CA-C, proline's own N-CA-CB);
  - helix residues with φ/ψ within 5° of (−57°, −47°), every ω within 5° of 180°;
  - in designs reported valid, no two heavy atoms of residues at least two apart closer than
    3.0 Å (2.6 Å for a backbone N···O pair, the short end of a hydrogen bond);
  - designs known to be impossible are reported invalid, with a reason;
  - full atoms: every residue has all heavy atoms of its Chemical Component Dictionary entry (but
    OXT), every CCD bond is in covalent range (0.8 to 1.0 times the sum of gemmi's covalent radii,
    plus 0.25 Å), and the bonds found by distance within a residue (closer than the sum plus
    0.4 Å, the usual rule) are exactly the CCD's.
  - the built hairpin's USDZ passes Pixar's checker with ARKit rules and its GLB the model checks;
  - with hydrogens: the same verdict, every hydrogen bonded where the CCD puts it, and the heavy
    atoms as clean as without them (probe-like clashes and the clashscore printed as figures).

A test per design; each prints its verdict and figures."""
import json
import math
import os
import subprocess
import sys

import gemmi
import pytest

from proteinar_testing.paths import CHECK_MODELS, CHECK_USDZ, ROOT

BONDS = {("N", "CA"): 1.458, ("CA", "C"): 1.525, ("C", "O"): 1.231, ("CA", "CB"): 1.530}
GLY_BONDS = {("N", "CA"): 1.451, ("CA", "C"): 1.516}
PEPTIDE = 1.329
ANGLES = {("N", "CA", "C"): 111.2, ("CA", "C", "O"): 120.1, ("N", "CA", "CB"): 110.5, ("C", "CA", "CB"): 110.1}
NEXT_ANGLES = {"CA-C-N": 116.2, "C-N-CA": 121.7, "O-C-N": 123.0}
# The CCD's bonds per residue (Sources/Molecule/Resources/ccd-bonds.tsv is the CCD's own table,
# derived by scripts/tools/derive-ccd-bonds.py): heavy atoms only.
REPO = ROOT
CCD = {}
with open(os.path.join(REPO, "Sources/Molecule/Resources/ccd-bonds.tsv")) as fh:
    for line in fh:
        if line.startswith("#") or "\t" not in line: continue
        name, _, rest = line.rstrip("\n").partition("\t")
        items = rest.split()
        CCD[name] = {frozenset(items[k:k + 2]) for k in range(0, len(items), 3)}
HEAVY = lambda atom: not atom.startswith("H") and atom != "OXT"

def full_atom_problems(residues):
    problems = []
    for r in residues:
        bonds = {b for b in CCD.get(r.name, set()) if all(HEAVY(a) for a in b)}
        expected = set().union(*bonds) if bonds else set()
        present = {a.name for a in r}
        if expected - present: problems.append(f"{r.name}{r.seqid.num} lacks {' '.join(sorted(expected - present))}")
        atoms = [a for a in r if a.element.name != "H"]
        for i, a in enumerate(atoms):
            for b in atoms[i + 1:]:
                d, radii = a.pos.dist(b.pos), a.element.covalent_r + b.element.covalent_r
                pair = frozenset((a.name, b.name))
                if pair in bonds and not 0.8 * radii <= d <= radii + 0.25:
                    problems.append(f"{r.name}{r.seqid.num} bond {a.name}-{b.name} {d:.2f} Å out of covalent range")
                elif pair not in bonds and d < radii + 0.4:
                    problems.append(f"{r.name}{r.seqid.num} {a.name}···{b.name} {d:.2f} Å, bonded by distance but not in the CCD")
        # A side chain turned onto its own backbone (three or more bonds away; proline's ring is bonded to N).
        for a in atoms:
            if not HEAVY(a.name) or a.name in ("N", "CA", "C", "O", "CB"): continue
            for own in ("C", "O") if r.name == "PRO" else ("N", "C", "O"):
                b = r.find_atom(own, "*")
                if b and a.pos.dist(b.pos) < 2.5:
                    problems.append(f"{r.name}{r.seqid.num} {a.name}···{own} {a.pos.dist(b.pos):.2f} Å, its side chain on its own backbone")
    return problems

# Van der Waals radii (Å) for the hydrogens' contacts, as MolProbity's probe counts them: an
# overlap of 0.4 Å or more between atoms more than three bonds apart is a clash.
VDW = {"H": 1.17, "C": 1.75, "N": 1.55, "O": 1.40, "S": 1.80}

def hydrogen_problems(residues):
    """Hydrogens: names the CCD knows (H1-H3 on the amino end), each within covalent range of
    exactly one atom, the one the CCD names. Returns the problems and the probe-like overlaps
    (for the figures)."""
    problems, atoms = [], [(r, a) for r in residues for a in r]
    for k, r in enumerate(residues):
        names = set().union(*CCD.get(r.name, set())) | ({"H1", "H2", "H3"} if k == 0 else set())
        for a in r:
            if a.element.name != "H": continue
            if a.name not in names: problems.append(f"{r.name}{r.seqid.num} {a.name}: not a hydrogen of the CCD's {r.name}")
            bonded = [(s, b) for s, b in atoms if b is not a and a.pos.dist(b.pos) <= a.element.covalent_r + b.element.covalent_r + 0.25]
            partner = [b.name for s, b in bonded if s is r and (frozenset((a.name, b.name)) in CCD.get(r.name, set()) or (k == 0 and b.name == "N"))
                       and a.pos.dist(b.pos) >= 0.8 * (a.element.covalent_r + b.element.covalent_r)]
            if len(bonded) != 1 or len(partner) != 1:
                problems.append(f"{r.name}{r.seqid.num} {a.name} within bonding distance of {[b.name for _, b in bonded]}, expected its CCD partner alone")
    # Probe-like overlaps: van der Waals radii summed less the distance, between atoms more than
    # four bonds apart (probe's -4H, as MolProbity's clashscore runs it); a polar H may come as
    # close as 1.6 Å to an N or O (a hydrogen bond).
    bonds = [set() for _ in atoms]
    for i, (r, a) in enumerate(atoms):
        for j in range(i + 1, min(len(atoms), i + 40)):
            b = atoms[j][1]
            if a.pos.dist(b.pos) < a.element.covalent_r + b.element.covalent_r + 0.4: bonds[i].add(j); bonds[j].add(i)
    overlaps = []
    for i, (r, a) in enumerate(atoms):
        if a.element.name != "H": continue
        seen, edge = {i}, {i}
        for _ in range(4):
            edge = {y for x in edge for y in bonds[x]} - seen; seen |= edge
        polar = any(atoms[b][1].element.name in "NO" for b in bonds[i])
        for j, (s, b) in enumerate(atoms):
            if j in seen or (b.element.name == "H" and j < i): continue
            d = a.pos.dist(b.pos)
            if polar and b.element.name in "NO":
                if d < 1.6: overlaps.append((0.4 + 1.6 - d, r, a, s, b))
                continue
            overlap = VDW["H"] + VDW.get(b.element.name, 1.75) - d
            if overlap > 0: overlaps.append((overlap, r, a, s, b))
    return problems, overlaps

DESIGNS = [  # (pieces, seed, expected verdict: True valid, False invalid)
    ("helix:14,coil:4,helix:14", 1, True),
    ("strand:6,coil:2,strand:6", 1, True),
    ("helix:12,coil:3,helix:12,coil:3,helix:12", 3, True),
    ("strand:5,coil:2,strand:5,coil:2,strand:5", 2, True),
    ("rigid-coil:6,helix:10", 1, True),
    # All twenty amino acids, so every side chain's geometry is checked.
    ("helix:14,coil:4,helix:14", 2, True, "SPEELIKRFAEWLMKNGDGYEEVQKHLCETLR"),
    ("helix:18,coil:5,strand:6,coil:2,strand:6", 4, None),
    ("helix:20,coil:1,helix:20", 1, False),
    ("helix:14,strand:6", 1, False),
]

def design_problems(binary, tmp, pieces, seed, expected, sequence):
    """Builds the design and reads it with gemmi: (its name and verdict, the problems found)."""
    path = os.path.join(tmp, "design.pdb")
    run = subprocess.run([binary, "design", pieces, "--seed", str(seed), "--json", "-o", path] + [a for q in sequence for a in ("--sequence", q)],
                         capture_output=True, text=True)
    name = f"{pieces} (seed {seed}{', ' + sequence[0] if sequence else ''})"
    if run.returncode != 0:
        return name, [f"proteinar build exited {run.returncode}: {run.stderr.strip()[-300:]}"]
    verdict = json.loads(run.stdout)
    problems = []
    if expected is not None and verdict["valid"] != expected:
        problems.append(f"reported {'valid' if verdict['valid'] else 'invalid'}, expected {'valid' if expected else 'invalid'} ({verdict['reasons']})")
    if not verdict["valid"] and not verdict["reasons"]:
        problems.append("invalid without a reason")
    st = gemmi.read_structure(path)
    chain = st[0][0]
    residues = list(chain)
    # Which residues belong to helix pieces (1-based inclusive ranges in the report).
    kinds = [p.split(":")[0] for p in pieces.split(",")]
    helix = set()
    for kind, piece in zip(kinds, verdict["pieces"]):
        if kind in ("helix", "h", "alpha"): helix.update(range(piece["first"] - 1, piece["last"]))
    def atom(r, n):
        a = r.find_atom(n, "*")
        return a.pos if a else None
    for i, r in enumerate(residues):
        gly = r.name == "GLY"
        for (a, b), ideal in BONDS.items():
            pa, pb = atom(r, a), atom(r, b)
            if pa is None or pb is None: continue
            ideal = GLY_BONDS.get((a, b), ideal) if gly else ideal
            d = pa.dist(pb)
            if abs(d - ideal) > 0.02: problems.append(f"{r.name}{r.seqid.num} {a}-{b} {d:.3f} Å (ideal {ideal})")
        for (a, b, c), ideal in ANGLES.items():
            pa, pb, pc = atom(r, a), atom(r, b), atom(r, c)
            if None in (pa, pb, pc): continue
            ideal = 113.1 if gly and (a, b, c) == ("N", "CA", "C") else ideal
            # Proline's ring pulls CB towards N (Engh & Huber: 103.0°).
            ideal = 103.0 if r.name == "PRO" and (a, b, c) == ("N", "CA", "CB") else ideal
            ang = math.degrees(gemmi.calculate_angle(pa, pb, pc))
            if abs(ang - ideal) > 2: problems.append(f"{r.name}{r.seqid.num} {a}-{b}-{c} {ang:.1f}° (ideal {ideal})")
        if i + 1 < len(residues):
            n = residues[i + 1]
            d = atom(r, "C").dist(atom(n, "N"))
            if abs(d - PEPTIDE) > 0.02: problems.append(f"peptide {r.seqid.num}-{n.seqid.num} {d:.3f} Å")
            for label, (p, q, s) in {"CA-C-N": (atom(r, "CA"), atom(r, "C"), atom(n, "N")), "C-N-CA": (atom(r, "C"), atom(n, "N"), atom(n, "CA")),
                                     "O-C-N": (atom(r, "O"), atom(r, "C"), atom(n, "N"))}.items():
                ang = math.degrees(gemmi.calculate_angle(p, q, s))
                if abs(ang - NEXT_ANGLES[label]) > 2: problems.append(f"{r.seqid.num} {label} {ang:.1f}° (ideal {NEXT_ANGLES[label]})")
            omega = math.degrees(gemmi.calculate_omega(r, n))
            if abs(abs(omega) - 180) > 5: problems.append(f"ω {r.seqid.num} {omega:.1f}°")
        if i in helix and 0 < i < len(residues) - 1:
            phi, psi = (math.degrees(x) for x in gemmi.calculate_phi_psi(residues[i - 1], r, residues[i + 1]))
            if abs(phi + 57) > 5 or abs(psi + 47) > 5: problems.append(f"helix {r.seqid.num} φ/ψ {phi:.1f}/{psi:.1f}")
    if verdict["valid"]:
        problems += full_atom_problems(residues)
        ns = gemmi.NeighborSearch(st[0], st.cell, 4).populate()
        for i, r in enumerate(residues):
            for a in r:
                for mark in ns.find_atoms(a.pos, "\0", radius=3.0):
                    cra = mark.to_cra(st[0])
                    j = cra.residue.seqid.num - 1
                    if j - i < 2: continue
                    d = a.pos.dist(cra.atom.pos)
                    limit = 2.6 if {a.name, cra.atom.name} == {"N", "O"} else 3.0
                    if d < limit: problems.append(f"clash {r.name}{i + 1}:{a.name}–{cra.residue.name}{j + 1}:{cra.atom.name} {d:.2f} Å")
    return f"{name}: {'valid' if verdict['valid'] else 'invalid: ' + '; '.join(verdict['reasons'])[:120]}, DSSP {verdict['secondaryStructure']}", problems


def hydrogen_design_problems(binary, tmp, pieces, seed, sequence):
    """Builds the design with and without hydrogens: (its figures, the problems found)."""
    path, problems = os.path.join(tmp, "hydrogens.pdb"), []
    extra = ["--sequence", sequence] if sequence else []
    runs = [subprocess.run([binary, "design", pieces, "--seed", str(seed), "--json"] + extra + flags, capture_output=True, text=True)
            for flags in ([], ["--hydrogens", "-o", path])]
    if any(run.returncode for run in runs):
        return f"{pieces} with hydrogens", [f"proteinar build exited {[run.returncode for run in runs]}"]
    bare, light = (json.loads(run.stdout) for run in runs)
    if (bare["valid"], bare["reasons"]) != (light["valid"], light["reasons"]): problems.append("the verdict changes with hydrogens")
    residues = list(gemmi.read_structure(path)[0][0])
    problems += full_atom_problems(residues)
    found, overlaps = hydrogen_problems(residues)
    problems += found
    clashes = sorted((o for o in overlaps if o[0] >= 0.4), key=lambda o: -o[0])
    count = sum(1 for r in residues for a in r if a.element.name == "H")
    atoms = sum(1 for r in residues for a in r)
    return (f"{pieces} (seed {seed}) with {count} hydrogens: CCD names and partners; probe-like clashes (overlap ≥ 0.4 Å) "
            f"{len(clashes)}, clashscore {1000 * len(clashes) / atoms:.0f} per 1000 atoms, the largest {clashes[0][0] if clashes else 0:.2f} Å"
            + (f" ({clashes[0][1].name}{clashes[0][1].seqid.num}:{clashes[0][2].name}···{clashes[0][3].name}{clashes[0][3].seqid.num}:{clashes[0][4].name})" if clashes else "")), problems


def report(name, problems):
    print(("FAIL " if problems else "ok   ") + name)
    assert not problems, f"{name}: " + "; ".join(problems[:6]) + (f" (+{len(problems) - 6} more)" if len(problems) > 6 else "")


@pytest.mark.parametrize("design", DESIGNS, ids=lambda d: f"{d[0]} seed {d[1]}" + (" all twenty" if len(d) > 3 else ""))
def test_design_geometry_clashes_and_verdict_read_by_gemmi(proteinar_bin, tmp_path, design):
    pieces, seed, expected, *sequence = design
    report(*design_problems(proteinar_bin, str(tmp_path), pieces, seed, expected, sequence))


def test_built_hairpins_usdz_and_glb_pass_the_checkers(proteinar_bin, tmp_path):
    """The built design as AR-ready models: a USDZ through Pixar's checker with ARKit rules, a GLB
    through the independent model checks."""
    binary, tmp = proteinar_bin, str(tmp_path)
    usdz, glb = os.path.join(tmp, "hairpin.usdz"), os.path.join(tmp, "hairpin.glb")
    problems = []
    for out in (usdz, glb):
        run = subprocess.run([binary, "design", "strand:6,coil:2,strand:6", "-o", out], capture_output=True, text=True)
        if run.returncode != 0: problems.append(f"proteinar build -o {os.path.basename(out)} exited {run.returncode}")
    if not problems:
        for checker, f in ((CHECK_USDZ, usdz), (CHECK_MODELS, glb)):
            r = subprocess.run([sys.executable if checker == CHECK_MODELS else "python3", checker, f], capture_output=True, text=True)
            if r.returncode != 0: problems.append(f"{os.path.basename(checker)}: {(r.stdout + r.stderr).strip()[-300:]}")
    report("the built hairpin's USDZ passes usdz-check (ARKit rules) and its GLB the model checks", problems)


HYDROGEN_DESIGNS = [("helix:14,coil:4,helix:14", 2, "SPEELIKRFAEWLMKNGDGYEEVQKHLCETLR"), ("strand:7,coil:2,strand:7", 1, None)]


@pytest.mark.parametrize("pieces,seed,sequence", HYDROGEN_DESIGNS, ids=[d[0] for d in HYDROGEN_DESIGNS])
def test_hydrogens_keep_the_verdict_and_sit_where_the_ccd_puts_them(proteinar_bin, tmp_path, pieces, seed, sequence):
    """The same verdict, every hydrogen bonded where the CCD puts it, and the heavy atoms as clean as
    without them. Probe-like clashes (an overlap of 0.4 Å or more) and the clashscore are printed
    as figures, not held to a bound: the heavy atoms meet the issue's 3.0 Å, and two carbons
    3.0-3.3 Å apart can hold hydrogens that overlap by up to about 1 Å."""
    report(*hydrogen_design_problems(proteinar_bin, str(tmp_path), pieces, seed, sequence))
