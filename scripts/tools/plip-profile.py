"""PLIP's interactions of one PDB file as JSON lines of keys the comparison reads (run with the
.venv-plip python: scripts/tools/setup-plip.sh). Atoms are named (chain, residue number, atom name);
each interaction is [kind, key...] as test_interactions.py builds ours.

    .venv-plip/bin/python scripts/tools/plip-profile.py FILE.pdb[.gz] [--protonated-out OUT.pdb]
    .venv-plip/bin/python scripts/tools/plip-profile.py OUT.pdb --hydrogens-given

By default PLIP adds polar hydrogens itself (Open Babel's AddPolarHydrogens); --protonated-out keeps
the file it wrote with them. --hydrogens-given runs PLIP with its --nohydro setting: it reads the
file's hydrogens and adds none (so it can be given the file the first run wrote).
"""
import argparse
import glob
import gzip
import json
import os
import shutil
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


def main(path, protonated_out=None, hydrogens_given=False):
    config.OUTPATH = tempfile.mkdtemp()  # PLIP writes its protonated file there
    config.NOHYDRO = hydrogens_given
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
    if protonated_out:
        written = glob.glob(os.path.join(config.OUTPATH, "*_protonated.pdb"))
        if len(written) != 1:
            raise SystemExit(f"PLIP wrote {len(written)} protonated files in {config.OUTPATH}")
        shutil.copyfile(written[0], protonated_out)
    print(json.dumps(out))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--protonated-out")
    parser.add_argument("--hydrogens-given", action="store_true")
    args = parser.parse_args()
    main(args.path, args.protonated_out, args.hydrogens_given)
