"""PLIP's interactions of one PDB file as JSON lines of keys the comparison reads (run with the
.venv-plip python: scripts/tools/setup-plip.sh). Atoms are named (chain, residue number, atom name);
each interaction is [kind, key...] as test_interactions.py builds ours.

    .venv-plip/bin/python scripts/tools/plip-profile.py FILE.pdb[.gz]
"""
import gzip
import json
import os
import sys
import tempfile

from plip.basic import config
from plip.structure.preparation import PDBComplex


def name(atom):
    """(chain, number, atom name) of an Open Babel atom (or a pybel one)."""
    ob = getattr(atom, "OBAtom", atom)
    residue = ob.GetResidue()
    return [residue.GetChain().strip(), residue.GetNum(), residue.GetAtomID(ob).strip()]


def ring(atoms):
    return sorted(name(a) for a in atoms)


def main(path):
    config.OUTPATH = tempfile.mkdtemp()  # PLIP writes its protonated file there
    text = gzip.open(path, "rt").read() if path.endswith(".gz") else open(path).read()
    with tempfile.NamedTemporaryFile("w", suffix=".pdb", delete=False) as f:
        f.write(text)
    complex_ = PDBComplex()
    complex_.output_path = config.OUTPATH
    complex_.load_pdb(f.name)
    complex_.analyze()
    os.unlink(f.name)
    atom = complex_.Mapper.id_to_atom  # an original (file) atom by its serial
    out = []
    for site in complex_.interaction_sets.values():
        for h in site.hbonds_ldon + site.hbonds_pdon:
            out.append(["hydrogen-bond", name(atom(h.d_orig_idx)), name(atom(h.a_orig_idx))])
        for s in site.saltbridge_lneg + site.saltbridge_pneg:
            protein, ligand = (s.positive, s.negative) if s.protispos else (s.negative, s.positive)
            out.append(["salt-bridge", [protein.reschain, protein.resnr], name(ligand.orig_atoms[0])[:2]])
        for p in site.pistacking:
            out.append(["pi-stacking", ring(p.proteinring.atoms), ring(p.ligandring.orig_atoms)])
        for p in site.pication_laro + site.pication_paro:
            ligand_side = p.ring.orig_atoms if p.protcharged else p.charge.orig_atoms
            out.append(["cation-pi", [p.reschain, p.resnr], name(ligand_side[0])[:2]])
        for h in site.hydrophobic_contacts:
            out.append(["hydrophobic", name(atom(h.bsatom_orig_idx)), name(atom(h.ligatom_orig_idx))])
        for x in site.halogen_bonds:
            out.append(["halogen-bond", name(atom(x.don_orig_idx)), name(atom(x.acc_orig_idx))])
        for w in site.water_bridges:
            out.append(["water-bridge", name(atom(w.d_orig_idx)), name(atom(w.a_orig_idx)), name(atom(w.water_orig_idx))])
        for m in site.metal_complexes:
            out.append(["metal-complex", name(atom(m.metal_orig_idx)), name(atom(m.target_orig_idx))])
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
