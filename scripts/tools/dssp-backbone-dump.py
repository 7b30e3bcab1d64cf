#!/usr/bin/env python3
"""Dump protein backbones for DSSP testing, optionally with mkdssp's reference assignment.

    scripts/tools/dssp-backbone-dump.py [--mkdssp] OUTDIR STRUCTURE...

STRUCTURE: PDB or mmCIF, gzip ok. For each file, OUTDIR/<name>.bb gets the first model's
amino-acid residues that have N, CA, C and O (first altloc), one line each:

    chainIndex chainID seqnum icode resname  Nx Ny Nz  CAx CAy CAz  Cx Cy Cz  Ox Oy Oz

(icode '.' when blank; chainIndex counts chains with such residues from 0) — exactly the input
of `DSSP.assign` (isProline = resname == PRO).

With --mkdssp, OUTDIR/<name>.bb.pdb gets the same residues as a backbone-only PDB file and
mkdssp (Debian package `dssp`, 4.x) is run on it; OUTDIR/<name>.mkdssp gets its 8-state string,
one letter per .bb line ('-' for loop). Workarounds for mkdssp 4.2.2: a HEADER line (it sniffs the
format), no TER records (residues after TER get lost), non-standard amino acids written as ALA
(it skips MSE and the like; DSSP reads only the backbone), one-letter chain IDs, and the classic
output as fallback when its mmCIF writer fails (duplicate struct_sheet_range keys).

Needs gemmi (scripts/tools/setup-python.sh; re-executes itself with that venv when gemmi is missing).
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.venv import require  # noqa: E402

require(__file__, ["gemmi"], "gemmi")
import gemmi  # noqa: E402

BACKBONE = ("N", "CA", "C", "O")
STANDARD = {"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
            "LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL"}
CHAIN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def stem_of(path):
    name = os.path.basename(path)
    for ext in (".gz", ".cif", ".pdb", ".ent"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    return name


def backbone(path):
    """[(chainIndex, chainID, residue, [N, CA, C, O atoms])] for the first model."""
    st = gemmi.read_structure(path)
    st.remove_alternative_conformations()  # keeps the first conformer
    out, chain_index = [], -1
    for chain in st[0]:
        first = True
        for res in chain:
            info = gemmi.find_tabulated_residue(res.name)
            if info is None or not info.is_amino_acid():
                continue
            atoms = [res.find_atom(a, "*") for a in BACKBONE]
            if any(a is None for a in atoms):
                continue
            if first:
                chain_index, first = chain_index + 1, False
            out.append((chain_index, chain.name, res, atoms))
    return st, out


def write_bb(rows, path):
    with open(path, "w") as f:
        for chain_index, chain_name, res, atoms in rows:
            icode = res.seqid.icode if res.seqid.icode.strip() else "."
            xyz = " ".join(f"{a.pos.x:.3f} {a.pos.y:.3f} {a.pos.z:.3f}" for a in atoms)
            f.write(f"{chain_index} {chain_name} {res.seqid.num} {icode} {res.name} {xyz}\n")


def write_mkdssp_pdb(st, rows, path):
    out = gemmi.Structure()
    out.cell, out.spacegroup_hm = st.cell, st.spacegroup_hm
    model = gemmi.Model("1")
    chains = {}
    for chain_index, chain_name, res, atoms in rows:
        if chain_index not in chains:
            chains[chain_index] = gemmi.Chain(chain_name)
        r = gemmi.Residue()
        r.name = res.name if res.name in STANDARD else "ALA"
        r.seqid = res.seqid
        r.het_flag = "A"
        for a in atoms:
            r.add_atom(a)
        chains[chain_index].add_residue(r)
    rename = any(len(c.name) > 1 for c in chains.values())
    if rename and len(chains) > len(CHAIN_LETTERS):
        raise SystemExit(f"{path}: too many chains for one-letter chain IDs")
    for k, c in enumerate(chains.values()):
        if rename:
            c.name = CHAIN_LETTERS[k]
        model.add_chain(c)
    out.add_model(model)
    for k, c in enumerate(out[0]):  # one polymer entity per chain: SEQRES for mkdssp
        ent = gemmi.Entity(str(k + 1))
        ent.entity_type = gemmi.EntityType.Polymer
        ent.polymer_type = gemmi.PolymerType.PeptideL
        ent.subchains = [c.name + "_p"]
        ent.full_sequence = [r.name for r in c]
        for n, r in enumerate(c):
            r.subchain, r.entity_id, r.label_seq = c.name + "_p", str(k + 1), n + 1
        out.entities.append(ent)
    pdb = "".join(l + "\n" for l in out.make_pdb_string().splitlines() if not l.startswith("TER"))
    if not pdb.startswith("HEADER"):
        pdb = "HEADER    " + "BACKBONE DUMP".ljust(40) + "01-JAN-00".ljust(12) + "XXXX\n" + pdb
    with open(path, "w") as f:
        f.write(pdb)


def run_mkdssp(pdb_path, stem):
    """8-state string in input order, or raises."""
    cif = stem + ".mkdssp.cif"
    r = subprocess.run(["mkdssp", "--output-format", "mmcif", "--write-experimental", pdb_path, cif],
                       capture_output=True, text=True)
    if r.returncode == 0 and os.path.getsize(cif) > 0:
        t = gemmi.cif.read(cif).sole_block().find("_dssp_struct_summary.", ["secondary_structure"])
        return "".join("-" if row[0] in (".", "?") else row[0] for row in t)
    classic = stem + ".mkdssp.dssp"
    subprocess.run(["mkdssp", "--output-format", "dssp", pdb_path, classic], check=True, capture_output=True)
    lines = open(classic).read().split("\n")
    k = next(i for i, l in enumerate(lines) if l.startswith("  #  RESIDUE"))
    return "".join("-" if l[16] == " " else l[16] for l in lines[k + 1:] if len(l) > 16 and l[13] != "!")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mkdssp", action="store_true", help="also write <name>.bb.pdb and <name>.mkdssp")
    ap.add_argument("outdir")
    ap.add_argument("structures", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    for path in args.structures:
        stem = os.path.join(args.outdir, stem_of(path))
        st, rows = backbone(path)
        write_bb(rows, stem + ".bb")
        note = ""
        if args.mkdssp:
            write_mkdssp_pdb(st, rows, stem + ".bb.pdb")
            ss = run_mkdssp(stem + ".bb.pdb", stem)
            if len(ss) != len(rows):
                raise SystemExit(f"{path}: mkdssp gave {len(ss)} residues, dump has {len(rows)}")
            with open(stem + ".mkdssp", "w") as f:
                f.write(ss + "\n")
            note = ", mkdssp done"
        chains = rows[-1][0] + 1 if rows else 0
        print(f"{stem_of(path)}: {len(rows)} residues, {chains} chains{note}", file=sys.stderr)


if __name__ == "__main__":
    main()
