"""The morph of adenylate kinase closed (1AKE, pdb1ake.pdb) into open (4AKE, MDAnalysis's CHARMM
file adk_open.pdb.gz), `proteinar morph`, checked from outside:

* its frames (`-o morph.pdb`, a model per frame) read by gemmi: frame 1 is 1AKE's chain A atom for
  atom; the last frame is the open form moved rigidly (gemmi's superposition of it on the open form
  leaves < 0.01 Å); the frames move steadily (each farther from the first and nearer the last);
  every bond (atoms within 1.9 Å in frame 1 and in the last) stays within 5 % of its length
  interpolated between the two ends; the backbone clashes we print per frame are those counted
  here with the builder's rule (3.0 Å, 2.6 Å for N and O, residues at least two apart);
* its GLB (`-o morph.glb`), an animation of the frames, loads in trimesh, pygltflib, assimp and
  gltfpack (scripts/checks/check-models.py, which also checks the animation's channels and keys),
  with a channel per frame.

The figures are printed (docs/formats.md, "Morph", has them)."""
import os
import subprocess

import gemmi
import numpy as np
import pygltflib
import pytest

from proteinar_testing import file_checkers
from proteinar_testing.paths import ROOT

STRUCTURES = os.path.join(ROOT, "Tests", "Fixtures", "structures")
CLOSED, OPEN = os.path.join(STRUCTURES, "pdb1ake.pdb"), os.path.join(STRUCTURES, "adk_open.pdb.gz")
FRAMES = 12
BOND_TOLERANCE = 0.05


@pytest.fixture(scope="module")
def morph(proteinar_bin, tmp_path_factory):
    folder = tmp_path_factory.mktemp("morph")
    pdb, glb = str(folder / "morph.pdb"), str(folder / "morph.glb")
    runs = [subprocess.run([proteinar_bin, "morph", CLOSED, OPEN, "--frames", str(FRAMES), "-o", out], capture_output=True, text=True)
            for out in (pdb, glb)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    print(runs[0].stdout)
    printed = runs[0].stdout.splitlines()
    clashes = [int(x) for x in next(line for line in printed if line.startswith("backbone clashes per frame:")).split(":")[1].split()]
    return gemmi.read_structure(pdb), glb, clashes


def positions(model):
    return np.array([a.pos.tolist() for ch in model for r in ch for a in r])


def test_the_ends_are_the_two_structures(morph):
    frames, _, _ = morph
    assert len(frames) == FRAMES
    closed = gemmi.read_structure(CLOSED)[0]["A"]
    first = {(r.seqid.num, a.name): a.pos for r in frames[0][0] for a in r}
    source = {}
    for r in closed:
        for a in r:
            if r.het_flag == "A":
                source.setdefault((r.seqid.num, a.name), a.pos)  # the first alternate location, as ours
    assert first.keys() <= source.keys() and len(first) > 0.99 * len(source), f"{len(first)} of {len(source)} atoms of chain A"
    assert max(first[k].dist(source[k]) for k in first) < 0.001
    # The last frame on the open form: gemmi's superposition of their CA leaves nothing.
    open_chain = gemmi.read_structure(OPEN)[0][0]
    last = frames[FRAMES - 1][0]
    ours = {r.seqid.num: r["CA"][0].pos for r in last}
    theirs = {r.seqid.num: r["CA"][0].pos for r in open_chain if r.find_atom("CA", "*")}
    common = sorted(ours.keys() & theirs.keys())
    fit = gemmi.superpose_positions([ours[n] for n in common], [theirs[n] for n in common])
    print(f"last frame on the open form: {len(common)} CA, RMSD {fit.rmsd:.4f} Å")
    assert len(common) == 214 and fit.rmsd < 0.01


def test_frames_move_steadily_with_bonds_in_range(morph):
    frames, _, _ = morph
    p = [positions(frames[k]) for k in range(FRAMES)]
    from_first = [np.sqrt(((x - p[0]) ** 2).sum(1).mean()) for x in p]
    to_last = [np.sqrt(((x - p[-1]) ** 2).sum(1).mean()) for x in p]
    print("RMSD from frame 1:", " ".join(f"{x:.2f}" for x in from_first))
    assert all(a < b for a, b in zip(from_first, from_first[1:])) and all(a > b for a, b in zip(to_last, to_last[1:]))
    # Bonds: atoms within 1.9 Å at both ends (a neighbour search per frame would be the same test).
    start, end = p[0], p[-1]
    ns = gemmi.NeighborSearch(frames[0], frames.cell, 2.0).populate()
    pairs = set()
    index = {}
    for i, (r, a) in enumerate((r, a) for ch in frames[0] for r in ch for a in r):
        index[(r.seqid.num, a.name)] = i
    for i, (r, a) in enumerate((r, a) for ch in frames[0] for r in ch for a in r):
        for mark in ns.find_atoms(a.pos, "\0", radius=1.9):
            cra = mark.to_cra(frames[0])
            j = index[(cra.residue.seqid.num, cra.atom.name)]
            if j > i and np.linalg.norm(end[i] - end[j]) < 1.9:
                pairs.add((i, j))
    i, j = np.array(sorted(pairs)).T
    worst = 0.0
    for k in range(FRAMES):
        t = k / (FRAMES - 1)
        target = (1 - t) * np.linalg.norm(start[i] - start[j], axis=1) + t * np.linalg.norm(end[i] - end[j], axis=1)
        worst = max(worst, float(np.max(np.abs(np.linalg.norm(p[k][i] - p[k][j], axis=1) - target) / target)))
    print(f"{len(pairs)} bonds: at most {worst * 100:.1f} % from their interpolated lengths")
    assert worst < BOND_TOLERANCE


def test_the_clashes_printed_are_the_builders_rule_counted_here(morph):
    frames, _, printed = morph
    # The PDB file keeps 0.001 Å: a pair within that of its limit counts either way.
    counted, fewest, most = [], [], []
    for k in range(FRAMES):
        atoms = [(ri, a.name, np.array(a.pos.tolist())) for ch in frames[k] for ri, r in enumerate(ch) for a in r
                 if a.name in ("N", "CA", "C", "O", "CB")]
        xyz = np.array([a[2] for a in atoms])
        d = np.linalg.norm(xyz[:, None] - xyz[None], axis=2)
        n, low, high = 0, 0, 0
        for x in range(len(atoms)):
            for y in np.nonzero(d[x, x + 1:] < 3.01)[0] + x + 1:
                if abs(atoms[x][0] - atoms[y][0]) < 2:
                    continue
                limit = 2.6 if {atoms[x][1], atoms[y][1]} == {"N", "O"} else 3.0
                n += d[x, y] < limit
                low += d[x, y] < limit - 0.002
                high += d[x, y] < limit + 0.002
        counted.append(int(n)); fewest.append(int(low)); most.append(int(high))
    print("backbone clashes per frame (ours / here):", printed, counted)
    assert all(lo <= ours <= hi for ours, lo, hi in zip(printed, fewest, most)), f"{fewest} to {most}"
    assert max(counted[1:-1]) <= max(counted[0], counted[-1]) + 10


def test_the_glb_animation_loads_in_every_checker(morph):
    _, glb, _ = morph
    verdict = file_checkers.models([glb])[glb]
    print(verdict[1])
    assert verdict[0], verdict[1]
    gltf = pygltflib.GLTF2().load(glb)
    channels = [len(a.channels) for a in gltf.animations]
    assert channels == [FRAMES], channels
