"""Compare `proteinar info FILE --json` counts with gemmi 0.7.5, a test per shared structure file
(Tests/Fixtures/structures: the PDB, mmCIF and BinaryCIF files but the chemical components).

Compares, for the first model: chains, residues, atoms; plus the number of
models. A mismatch or a tool's failure fails the file's test; the last test fails when
nothing was compared (every file skipped).
A file is skipped only when there is nothing to compare, in these cases:
  - not a PDB or mmCIF file by its name (.sdf, .mol, .xyz: gemmi reads no model);
  - gemmi reads the file but finds no atoms in a model (a chemical component file);
  - a BinaryCIF file with no matching mmCIF (see below).
Anything else gemmi fails on is a failure of that file.

How gemmi.read_structure (0.7.5) counts -- what our reader must reproduce
(from gemmi's src/pdb.cpp, src/mmcif.cpp, Model::merge_chain_parts, and
checked on /work/shared/structures, all equal to MANIFEST.tsv):

* Chains: one per distinct chain name, ordered by first appearance.
  While reading, a new Chain starts whenever the name differs from the
  previous atom's (TER does NOT split); read_structure() then merges all
  parts with the same name (merge_chain_parts=True by default), appending
  residues in file order. E.g. 2XHE.pdb and 2XHE.cif: parts A B A B -> 2 chains;
  3KPR: 20 parts -> 10; 4JSV.pdb: B D A C B A -> 4 (order B D A C);
  1LCD.pdb: B C A C B C A -> 3 (B C A); pdb4v8r: 64 parts -> 32;
  mmcif_7cth.cif: A B C F D E I M H L A B C -> 10 (label_asym_ids: 14).
  PDB chain name = columns 21-22, trimmed (2-char ids like "Ab" in 4v8r).
  mmCIF chain name = auth_asym_id (label_asym_id only if auth is absent), so
  2XHE.cif has 2 chains (4 label_asym_ids), 3KPR.cif 10 (20), 1ake_chimerax 2 (6).
* Residues: key = (seq number, insertion code, residue name[, PDB segid cols
  73-76]), looked up within the current chain part (non-consecutive atoms of
  the same key are joined; equal keys in two different parts stay two
  residues after merging). Altloc is not in the key, so a residue with A/B
  conformers counts once, but microheterogeneity (same number, different
  name) counts twice: pdb1ejg.pdb 48 (46 positions + PRO/SER 22, LEU/ILE 25),
  3JQH.cif 47 (44 positions + PRO/SER 1, ARG/GLN/GLU 15).
  mmCIF uses auth_seq_id + pdbx_PDB_ins_code + auth_comp_id (label_comp_id
  if no auth), NOT label_seq_id: each water is its own residue. Counting
  by label ids would give 2XHE.cif 789 (not 835), 3KPR 1662 (1768), 5PTI 61 (123).
  Waters and ligands count as residues: 2XHE 835, 3KPR 1768, 4JSV 2758,
  pdb1ake 214, 7cth 2161, 1ake_chimerax 808.
* Atoms: count_atom_sites() = every ATOM/HETATM row of the first model, all
  altlocs and hydrogens (pdb1ejg 831, 4JSV 22194, 7cth 16667, 4v8r 128780).
* Models: MODEL records / distinct pdbx_PDB_model_num (1LCD 3,
  nmr_neopetrosiamide 24); the first model is the first one in the file.
* gemmi 0.7.5 cannot read BinaryCIF; for X.bcif(.gz) we compare against a
  matching X.cif(.gz) (case-insensitive) among FILES or next to the file.
"""
import os
import re

import gemmi
import pytest

from proteinar_testing import command_line
from proteinar_testing.paths import structure_files

MACRO = structure_files()
compared = []

STRUCTURE_FILE = re.compile(r"\.(pdb|ent|cif|mmcif|bcif)(\.gz)?$", re.I)


class NoModel(ValueError):
    """gemmi read the file and found no atoms in a model: nothing to compare."""


def stem(path):
    """'dir/6wg6.bcif.gz' -> '6wg6' (lower case)."""
    return re.sub(r"(\.gz)?$", "", os.path.basename(path)).rsplit(".", 1)[0].lower()


def is_bcif(path):
    return re.search(r"\.bcif(\.gz)?$", path, re.I) is not None


def gemmi_counts(gemmi, path):
    st = gemmi.read_structure(path)
    if len(st) == 0 or len(st[0]) == 0:  # e.g. a CCD file: no _atom_site
        raise NoModel("no atoms in a model (chemical component file?)")
    m = st[0]
    per_chain = {ch.name: len(ch) for ch in m}
    return dict(models=len(st), chains=len(m), residues=sum(len(ch) for ch in m),
                atoms=m.count_atom_sites()), per_chain


def matching_mmcif(path, files):
    """An mmCIF with the same id, among the given files or next to `path`."""
    d = os.path.dirname(path) or "."
    candidates = list(files) + [os.path.join(d, f) for f in sorted(os.listdir(d))]
    for c in candidates:
        if stem(c) == stem(path) and re.search(r"\.cif(\.gz)?$", c, re.I) and not is_bcif(c):
            return c
    return None


def manifest_row(path):
    """MANIFEST.tsv row for the file, when one lies beside it (for a cross-check)."""
    mf = os.path.join(os.path.dirname(path) or ".", "MANIFEST.tsv")
    if not os.path.exists(mf):
        return None
    rows = [l.rstrip("\n").split("\t") for l in open(mf)]
    for r in rows[1:]:
        row = dict(zip(rows[0], r))
        if row.get("file") == os.path.basename(path) and row.get("atoms_model1"):
            return row
    return None


def ours(binary, path):
    """Our counts of the file (`proteinar info --json`), and residues per chain id."""
    j = command_line.answer(binary, "info", path)
    try:
        per_chain = {}
        for ch in j["chains"]:
            per_chain[ch["id"]] = per_chain.get(ch["id"], 0) + ch.get("residues", 0)
        return dict(models=j["models"], chains=len(j["chains"]), residues=j["residues"], atoms=j["atoms"]), per_chain
    except (KeyError, TypeError) as e:
        raise RuntimeError(f"unexpected JSON ({type(e).__name__}: {e})")


def fmt(c):
    return " ".join(f"{k}={c[k]}" for k in ("chains", "residues", "atoms", "models"))



@pytest.mark.parametrize("path", MACRO, ids=os.path.basename)
def test_counts_agree_with_gemmi(proteinar_bin, path):
    files, binary = MACRO, proteinar_bin
    name = os.path.basename(path)
    if not STRUCTURE_FILE.search(name):
        pytest.skip(f"{name}: not a PDB or mmCIF file (nothing for gemmi to count)")
    ref_path = path
    if is_bcif(path):
        ref_path = matching_mmcif(path, files)
        if ref_path is None:
            pytest.skip(f"{name}: gemmi {gemmi.__version__} cannot read BinaryCIF and no matching mmCIF was found")
    try:
        ref, ref_chains = gemmi_counts(gemmi, ref_path)
    except NoModel as e:
        pytest.skip(f"{name}: {e}")
    except Exception as e:  # noqa: BLE001 — a structure gemmi cannot read is not a pass
        compared.append(name)
        pytest.fail(f"{name}: gemmi cannot read it ({type(e).__name__}: {str(e).strip()[:100]})")
    compared.append(name)
    row = manifest_row(ref_path)
    if row and (str(ref["atoms"]), str(ref["residues"])) != (row["atoms_model1"], row["residues_model1"]):
        print(f"  warning: gemmi disagrees with MANIFEST.tsv for {os.path.basename(ref_path)}")
    try:
        got, got_chains = ours(binary, path)
    except Exception as e:  # noqa: BLE001
        pytest.fail(f"MISMATCH {name}: proteinar failed: {e}")
    via = f" (gemmi via {os.path.basename(ref_path)})" if ref_path != path else ""
    if got_chains != ref_chains:  # diagnostic only: helps find which chain is off
        off = sorted(set(got_chains) | set(ref_chains))
        print("  note: per-chain residues ours/gemmi: " + " ".join(
            f"{c}:{got_chains.get(c, '-')}/{ref_chains.get(c, '-')}" for c in off
            if got_chains.get(c) != ref_chains.get(c))[:400])
    diff = ",".join(k for k in got if got[k] != ref[k])
    assert got == ref, f"MISMATCH {name}: ours {fmt(got)} gemmi {fmt(ref)} (differs: {diff}){via}"
    print(f"OK {name} {fmt(got)}{via}")


def test_gemmi_compared_at_least_one_file():
    """Every file skipped is no evidence."""
    assert compared, f"nothing compared: all {len(MACRO)} files were skipped (or none was selected)"
