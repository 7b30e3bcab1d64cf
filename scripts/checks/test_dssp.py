"""Compare `proteinar dssp FILE --json` with pydssp's numpy implementation, a test per shared
protein file (Tests/Fixtures/structures: the PDB and mmCIF files but the chemical components).
Marked `dssp`: scripts/test runs it beside the fuzz smoke.

Both sides are reduced to 3 states (H,G,I -> H; E,B -> E; rest -> C; pydssp
gives -,H,E) and matched by (chain, number, icode) over the first model.
Prints one line per file; a file passes when agreement >= 95 percent (MIN); the
last test fails when nothing was compared. A file is skipped (`SKIP`) only when there is nothing to compare: no
amino-acid residue with a complete backbone (N, CA, C, O) in its first model, or
a BinaryCIF file with no matching mmCIF; a file gemmi cannot read fails.
pydssp's package __init__ imports torch, so
pydssp/pydssp_numpy.py is loaded by file path.

Reference side: gemmi reads the file (first model, first altloc), polymer
amino-acid residues with N, CA, C, O. We pass pydssp explicit amide H
positions (its own formula) computed per chain, with no H (donor masked) for
prolines and after chain breaks (C-N > 2.5 A), so chains can be combined.
pydssp is O(L^2) in memory/time, so each chain is run together with the
residues of other chains within 10 A (CA-CA, +-2 in sequence) to keep
inter-chain sheets.
"""
import os
import re

import pytest

from proteinar_testing import command_line
from proteinar_testing import dssp_reference
from proteinar_testing.dssp_reference import backbone, run_pydssp
from proteinar_testing.paths import structure_files

dssp_reference.load(__file__)

pytestmark = pytest.mark.dssp
MIN = 95.0            # pass threshold, percent
MAX_CONTEXT = 3000    # largest number of residues given to one pydssp call
PROTEINS = [p for p in structure_files() if "bcif" not in os.path.basename(p)]
compared = []

THREE_STATE = {"H": "H", "G": "H", "I": "H", "E": "E", "B": "E"}  # else C


def stem(path):
    return re.sub(r"(\.gz)?$", "", os.path.basename(path)).rsplit(".", 1)[0].lower()


def reference_path(path, files):
    """gemmi 0.7.5 cannot read BinaryCIF: use a matching mmCIF instead."""
    if not re.search(r"\.bcif(\.gz)?$", path, re.I):
        return path
    d = os.path.dirname(path) or "."
    for c in list(files) + [os.path.join(d, f) for f in sorted(os.listdir(d))]:
        if stem(c) == stem(path) and re.search(r"(?<!\.b)cif(\.gz)?$", c, re.I):
            return c
    return None


def ours(binary, path):
    """Our DSSP's three states per residue (chain, number, insertion code)."""
    out = {}
    try:
        for r in command_line.answer(binary, "dssp", path)["residues"]:
            out.setdefault((r["chain"], int(r["number"]), r.get("icode") or ""), THREE_STATE.get(r["ss"], "C"))
        return out
    except (KeyError, TypeError, ValueError) as e:
        raise RuntimeError(f"unexpected JSON ({type(e).__name__}: {e})")



@pytest.mark.parametrize("path", PROTEINS, ids=os.path.basename)
def test_dssp_agrees_with_pydssp(proteinar_bin, path):
    files, binary = PROTEINS, proteinar_bin
    name = os.path.basename(path)
    ref_path = reference_path(path, files)
    if ref_path is None:
        pytest.skip(f"{name}: gemmi cannot read BinaryCIF and no matching mmCIF was found")
    try:
        keys, chain_of, coords, donor = backbone(ref_path)
    except Exception as e:  # noqa: BLE001 — a structure gemmi cannot read is not a pass
        compared.append(name)
        pytest.fail(f"{name}: gemmi cannot read it ({type(e).__name__}: {str(e).strip()[:100]})")
    if not keys:
        pytest.skip(f"{name}: no protein residues with a complete backbone")
    compared.append(name)
    ref = dict(zip(keys, run_pydssp(coords, donor, chain_of, MAX_CONTEXT)))
    try:
        got = ours(binary, path)
    except Exception as e:  # noqa: BLE001
        pytest.fail(f"{name}: proteinar dssp failed: {e}")
    common = [k for k in got if k in ref]
    agree = sum(got[k] == ref[k] for k in common)
    pct = 100.0 * agree / len(common) if common else 0.0
    counts = " ".join(f"{s}={sum(got[k] == s for k in common)}/{sum(ref[k] == s for k in common)}"
                      for s in "HEC")
    ok = bool(common) and pct >= MIN
    line = (f"{'OK' if ok else 'FAIL'} {name} {pct:.1f}% agree ({agree}/{len(common)} residues; "
            f"ours/pydssp {counts}; only ours {len(got) - len(common)}, "
            f"only pydssp {len(ref) - len(common)})")
    print(line)
    assert ok, line


def test_dssp_compared_at_least_one_file():
    """Every file skipped is no evidence."""
    assert compared, f"nothing compared: all {len(PROTEINS)} files were skipped (or none was selected)"
