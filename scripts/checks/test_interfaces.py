"""Where protein chains touch (`proteinar interactions FILE --json`, its `interfaces`), against gemmi
0.7.5's reading of the same files (its coordinates and its residue table): for each pair of chains, the residues of each with a
heavy atom within 4.5 Å of the other's must be gemmi's exactly (amino acids, the first alternate
location, hydrogens left out), no pair of chains gemmi finds touching may be missing, and every
H-bond must join an N or O to an N or O of the other chain at the distance gemmi measures between
them (0.5–4.1 Å, to 0.01 Å), every salt bridge an acid to a base. The figures are printed.

Files: homo-oligomers and complexes from Tests/Fixtures/structures (3KPR, 4JSV, 2XHE, 1AKE's two
copies) and three of the complexes (PLIP's test set) with more than one chain."""
import json
import os
import subprocess

import gemmi
import pytest

from proteinar_testing.paths import ROOT

STRUCTURES = os.path.join(ROOT, "Tests", "Fixtures", "structures")
FILES = ["3KPR.pdb.gz", "4JSV.pdb.gz", "2XHE.pdb.gz", "pdb1ake.pdb", "complexes/1acj.pdb.gz", "complexes/1hvi.pdb.gz",
         "complexes/3og7.pdb.gz"]
RADIUS = 4.5


def gemmi_interfaces(path):
    """{(chain, chain): (set of (number, name) residues of the first, of the second)}, chains in file order."""
    st = gemmi.read_structure(path, merge_chain_parts=False)
    st.setup_entities()
    model = st[0]
    order = [ch.name for ch in model]
    atoms = []
    for ch in model:
        for r in ch:
            if not gemmi.find_tabulated_residue(r.name) or not gemmi.find_tabulated_residue(r.name).is_amino_acid():
                continue
            seen = set()
            for a in r:
                if a.is_hydrogen() or a.name in seen:
                    continue
                seen.add(a.name)  # the first alternate location
                atoms.append((ch.name, (r.seqid.num, r.seqid.icode.strip(), r.name), a.pos))
    found = {}
    # gemmi's coordinates and residue table; the search a plain grid of RADIUS cells over them.
    cells = {}
    for k, (ch, res, pos) in enumerate(atoms):
        cells.setdefault((int(pos.x // RADIUS), int(pos.y // RADIUS), int(pos.z // RADIUS)), []).append(k)
    for k, (ch, res, pos) in enumerate(atoms):
        cx, cy, cz = int(pos.x // RADIUS), int(pos.y // RADIUS), int(pos.z // RADIUS)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    for j in cells.get((cx + dx, cy + dy, cz + dz), []):
                        ch2, res2, pos2 = atoms[j]
                        if j <= k or ch2 == ch or pos.dist(pos2) > RADIUS:
                            continue
                        first, second = (ch, ch2) if order.index(ch) < order.index(ch2) else (ch2, ch)
                        a, b = found.setdefault((first, second), (set(), set()))
                        (a if ch == first else b).add(res)
                        (b if ch == first else a).add(res2)
    return found, model


@pytest.mark.parametrize("name", FILES)
def test_interface_residues_are_gemmis_and_bonds_are_where_gemmi_measures(proteinar_bin, name):
    path = os.path.join(STRUCTURES, name)
    if not os.path.exists(path):
        pytest.fail(f"missing fixture {path}")
    r = subprocess.run([proteinar_bin, "interactions", path, "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ours = {}
    bonds = []
    for interface in json.loads(r.stdout)["interfaces"]:
        key = tuple(interface["chains"])
        ours[key] = tuple({(int("".join(c for c in x["number"] if c.isdigit() or c == "-")), "".join(c for c in x["number"] if c.isalpha()), x["residue"])
                           for x in side} for side in interface["residues"])
        bonds += [(key, e) for e in interface["interactions"]]
    theirs, model = gemmi_interfaces(path)
    print(f"{name}: {len(ours)} chain pairs touch (gemmi {len(theirs)}); "
          + ", ".join(f"{a}–{b} {len(x)}+{len(y)}" for (a, b), (x, y) in sorted(ours.items())[:6])
          + f"; {sum(e['kind'] == 'hydrogen-bond' for _, e in bonds)} H-bonds, {sum(e['kind'] == 'salt-bridge' for _, e in bonds)} salt bridges")
    assert ours.keys() == theirs.keys(), f"only ours {sorted(ours.keys() - theirs.keys())}, only gemmi's {sorted(theirs.keys() - ours.keys())}"
    for key in ours:
        assert ours[key] == theirs[key], f"{key}: only ours {[sorted(o - t) for o, t in zip(ours[key], theirs[key])]}, only gemmi's {[sorted(t - o) for o, t in zip(ours[key], theirs[key])]}"
    by_name = {}
    for ch in model:
        for res in ch:
            for a in res:
                by_name.setdefault((ch.name, f"{res.seqid.num}{res.seqid.icode.strip()}", a.name), (ch.name, a))  # the first altloc
    for (first, second), e in bonds:
        if e["kind"] == "hydrogen-bond":
            (ca, a), (cb, b) = [by_name[(x["chain"], x["number"], x["atom"])] for x in (e["ligand"][0], e["partner"][0])]
            assert (ca, cb) == (first, second) and a.element.name in ("N", "O") and b.element.name in ("N", "O"), e["words"]
            d = a.pos.dist(b.pos)
            assert 0.5 < d < 4.1 and abs(d - e["distance"]) < 0.01, f"{e['words']}: gemmi {d:.3f}"
        else:
            assert e["kind"] == "salt-bridge", e["words"]
            names = {x["residue"] for x in e["ligand"] + e["partner"]}
            assert names & {"ASP", "GLU"} and names & {"ARG", "LYS", "HIS"}, e["words"]
