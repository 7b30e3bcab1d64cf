"""Tap to identify, checked from outside: every vertex of 1AKE's models says which atom it draws
(EXT_mesh_features feature ids, indices into `proteinar identify`'s table), and that atom is held
to gemmi's reading of the same file. The float GLB (mesh coordinates in Å, the file's frame) is
read here; the viewer's meshopt GLB, decoded by libmeshoptimizer, carries the same ids.

For ≥ 99 % of vertices (ball-and-stick and sticks: all; a bond's middle is as near to both ends):
in ball-and-stick and sticks the residue named is the residue of the nearest atom; in spacefill,
of the vertices in sight (inside no other atom's sphere by more than 0.15 Å, gemmi's van der
Waals radii), the residue of the sphere the vertex lies on (the one it is furthest inside, or
within 0.15 Å of that: radius tables differ); in cartoon and backbone the vertex lies within 3 Å
of that residue's backbone (N, CA, C, O); on the surface within 4 Å of one of the residue's
atoms."""
import json
import os
import subprocess

import gemmi
import numpy as np
import pytest

from proteinar_testing.glb_reader import decode_meshopt, glb_chunks, read_accessor
from proteinar_testing.paths import FIXTURES

FILE = os.path.join(FIXTURES, "pdb1ake.pdb")
STYLES = ["ball-and-stick", "sticks", "spacefill", "cartoon", "backbone", "surface"]


def ids_and_positions(data):
    """(positions in mesh coordinates, feature ids) of every primitive carrying feature ids."""
    json_bytes, binary = glb_chunks(data)
    g = json.loads(json_bytes)
    views_ok = set(range(len(g.get("bufferViews", []))))
    out = []
    for mesh in g.get("meshes", []):
        for primitive in mesh["primitives"]:
            attributes = primitive["attributes"]
            ext = primitive.get("extensions", {}).get("EXT_mesh_features", {}).get("featureIds", [])
            assert ext and "_FEATURE_ID_0" in attributes, f"mesh {mesh.get('name')}: no feature ids"
            _, positions = read_accessor(g, binary, attributes["POSITION"], views_ok)
            _, ids = read_accessor(g, binary, attributes["_FEATURE_ID_0"], views_ok)
            out.append((positions.astype(np.float64), ids[:, 0].astype(np.int64), ext[0]["nullFeatureId"]))
    return g, out


def model(binary, style, tmp_path, glb):
    path = os.path.join(tmp_path, f"{style}-{glb}.glb")
    subprocess.run([binary, "convert", FILE, "-o", path, "--style", style, "--glb", glb], check=True, capture_output=True, timeout=300)
    with open(path, "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def reference(proteinar_bin):
    """Our table (atom index → chain, number, insertion), and gemmi's reading of the same file: its
    first model, a neighbour search over it, and each residue's atom positions (all, and backbone)."""
    table = json.loads(subprocess.run([proteinar_bin, "identify", FILE], check=True, capture_output=True, text=True).stdout)
    st = gemmi.read_structure(FILE)
    first = st[0]
    search = gemmi.NeighborSearch(first, st.cell, 6).populate()
    residues, backbones = {}, {}
    for chain in first:
        for residue in chain:
            key = (chain.name, residue.seqid.num, residue.seqid.icode.strip())
            residues[key] = np.array([a.pos.tolist() for a in residue])
            backbones[key] = np.array([a.pos.tolist() for a in residue if a.name in ("N", "CA", "C", "O")]).reshape(-1, 3)
    return table, first, search, residues, backbones


def residue_of(table, atom):
    r = table["residues"]
    k = table["atoms"]["residue"][atom]
    return (r["chain"][k], r["number"][k], r["insertion"][k])


def nearest(points, p):
    return float(np.min(np.linalg.norm(points - p, axis=1))) if len(points) else float("inf")


@pytest.mark.parametrize("style", STYLES)
def test_each_vertex_names_the_atom_it_draws(proteinar_bin, reference, style, tmp_path):
    table, first, search, residues, backbones = reference
    _, primitives = ids_and_positions(model(proteinar_bin, style, tmp_path, "float"))
    checked = wrong = 0
    for vertices, ids, null in primitives:
        for p, atom in zip(vertices, ids):
            checked += 1
            if atom == null or atom >= len(table["atoms"]["name"]):
                wrong += 1
                continue
            named = residue_of(table, int(atom))
            if style in ("cartoon", "backbone"):
                ok = nearest(backbones.get(named, np.empty((0, 3))), p) <= 3.0
            elif style == "surface":
                ok = nearest(residues.get(named, np.empty((0, 3))), p) <= 4.0
            elif style == "spacefill":
                # Spheres overlap: a vertex inside another atom's sphere is out of sight (skipped); one
                # in sight lies on the sphere it is furthest inside (gemmi's van der Waals radii).
                gaps = []
                for mark in search.find_atoms(gemmi.Position(*p), "\0", radius=3.5):
                    cra = mark.to_cra(first)
                    gaps.append((cra.atom.pos.dist(gemmi.Position(*p)) - cra.atom.element.vdw_r,
                                 (cra.chain.name, cra.residue.seqid.num, cra.residue.seqid.icode.strip())))
                gaps.sort()
                if not gaps or gaps[0][0] < -0.15:
                    checked -= 1
                    continue
                ok = any(residue == named for gap, residue in gaps if gap - gaps[0][0] < 0.15)
            else:
                mark = search.find_nearest_atom(gemmi.Position(*p))
                cra = mark.to_cra(first)
                closest = (cra.chain.name, cra.residue.seqid.num, cra.residue.seqid.icode.strip())
                # A split bond's middle lies as near to both ends.
                ok = closest == named or abs(nearest(residues.get(named, np.empty((0, 3))), p) - cra.atom.pos.dist(gemmi.Position(*p))) < 1e-3
            wrong += 0 if ok else 1
    share = 1 - wrong / max(checked, 1)
    print(f"{style}: {checked} vertices, {wrong} naming another residue ({share:.2%} right)")
    assert checked > 0
    assert share >= (1.0 if style in ("ball-and-stick", "sticks") else 0.99), f"{style}: {wrong} of {checked} vertices name another residue"


@pytest.mark.parametrize("style", ["cartoon", "ball-and-stick"])
def test_the_viewers_meshopt_glb_carries_the_same_ids(proteinar_bin, style, tmp_path):
    """Decoded by libmeshoptimizer, the meshopt GLB (reordered for the GPU) holds the float GLB's ids."""
    _, plain = ids_and_positions(model(proteinar_bin, style, tmp_path, "float"))
    g, packed = ids_and_positions(decode_meshopt(model(proteinar_bin, style, tmp_path, "meshopt")))
    assert "EXT_mesh_features" in g.get("extensionsUsed", []) and "EXT_mesh_features" not in g.get("extensionsRequired", [])
    assert sorted(np.concatenate([ids for _, ids, _ in plain]).tolist()) == sorted(np.concatenate([ids for _, ids, _ in packed]).tolist())
