"""MOL2 and small-molecule CIF read by `proteinar`, compared with independent readers.

(a) MOL2: Open Babel (`obabel`, Debian's `openbabel`) writes MOL2 files at check time from the
    repository's copies of shared structures: the 200-record SDF (200 molecules in one MOL2), a
    ChEMBL molfile, proteins with their water (pdb1ubi as it is and with hydrogens added by
    `obabel -h`, 1A8O), a complex with its ligands (3KPR, 13,434 atoms) and benzene's XYZ. RDKit
    (`Chem.MolFromMol2Block(block, removeHs=False, sanitize=False)`) reads each molecule; we read
    each molecule alone (`proteinar info --json`: atoms and bonds; `proteinar identify`: elements,
    for heavy atoms) and the whole file (`models` = molecules). Atoms, bonds and heavy atoms must
    be equal for every molecule. RDKit reads without sanitising because 27 of the 200 SDF records
    fail its valence and aromaticity rules as Open Babel types them, and counting needs none of it.
(b) Small-molecule CIF: the crystal fixtures in Tests/MoleculeTests/Fixtures (rock salt, urea,
    an acylurea at 98 K) read by gemmi (`read_small_structure`, `get_all_unit_cell_sites()`,
    `cell`) and by us: the unit cell's atoms and the cell's six numbers must be equal.

Nothing is skipped: without `obabel` the MOL2 checks fail saying what to install.
"""
import glob
import json
import os
import shutil
import subprocess
import tempfile
from collections import Counter

import gemmi
import pytest
from rdkit import Chem, RDLogger

from proteinar_testing import command_line
from proteinar_testing.paths import FIXTURES, ROOT

RDLogger.DisableLog("rdApp.*")

MOLECULE_FIXTURES = os.path.join(ROOT, "Tests", "MoleculeTests", "Fixtures")
# (file in Tests/Fixtures/structures, obabel's extra options)
MOL2_SOURCES = [("first_200.props.sdf", []), ("CHEMBL2321810_scaffold.mol", []), ("pdb1ubi.pdb", []),
                ("pdb1ubi.pdb", ["-h"]), ("1A8O.pdb", []), ("3KPR.pdb.gz", []), ("benzene.xyz", [])]
CRYSTALS = sorted(os.path.basename(p) for p in glob.glob(os.path.join(MOLECULE_FIXTURES, "*.cif")))


def obabel_mol2(source, out_dir, options=()):
    """`obabel SOURCE [OPTIONS] -O X.mol2`: the MOL2 text Open Babel writes."""
    obabel = shutil.which("obabel")
    if obabel is None:
        pytest.fail("obabel is not installed: install Debian's openbabel (apt-get install openbabel; scripts/test does)",
                    pytrace=False)
    target = os.path.join(out_dir, os.path.basename(source) + ".mol2")
    p = subprocess.run([obabel, source, *options, "-O", target], capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or not os.path.exists(target):
        pytest.fail(f"obabel could not convert {source}: {p.stderr.strip()[-300:]}", pytrace=False)
    with open(target) as f:
        return f.read()


def molecules(text):
    """The file's molecules, each from its @<TRIPOS>MOLECULE line to the next."""
    blocks, current = [], None
    for line in text.splitlines(keepends=True):
        if line.startswith("@<TRIPOS>MOLECULE"):
            current = []
            blocks.append(current)
        if current is not None:
            current.append(line)
    return ["".join(b) for b in blocks]


def rdkit_counts(block):
    m = Chem.MolFromMol2Block(block, removeHs=False, sanitize=False)
    if m is None:
        raise AssertionError("RDKit could not read the molecule")
    return dict(atoms=m.GetNumAtoms(), bonds=m.GetNumBonds(), heavy=m.GetNumHeavyAtoms())


def our_counts(binary, path):
    info = command_line.answer(binary, "info", path)
    p = subprocess.run([binary, "identify", path], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError(f"proteinar identify {path}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
    elements = json.loads(p.stdout)["atoms"]["element"]
    heavy = sum(1 for e in elements if e.upper() not in ("H", "D", "T", "X", ""))
    return dict(atoms=info["atoms"], bonds=info["bonds"], heavy=heavy), info


@pytest.mark.parametrize("name,options", MOL2_SOURCES, ids=[n + "".join(o) for n, o in MOL2_SOURCES])
def test_mol2_counts_agree_with_rdkit(proteinar_bin, name, options):
    source = os.path.join(FIXTURES, name)
    assert os.path.exists(source), f"{source} is missing"
    with tempfile.TemporaryDirectory() as work:
        text = obabel_mol2(source, work, options)
        blocks = molecules(text)
        assert blocks, f"obabel wrote no molecule for {name}"
        whole = os.path.join(work, "all.mol2")
        with open(whole, "w") as f:
            f.write(text)
        summary = command_line.answer(proteinar_bin, "info", whole)
        assert summary["format"] == "mol2"
        assert summary["models"] == len(blocks), f"{name}: {summary['models']} models for {len(blocks)} molecules"
        mismatches, totals = [], dict(atoms=0, bonds=0, heavy=0)
        for k, block in enumerate(blocks, 1):
            one = os.path.join(work, f"m{k}.mol2")
            with open(one, "w") as f:
                f.write(block)
            theirs = rdkit_counts(block)
            ours, _ = our_counts(proteinar_bin, one)
            for key in totals:
                totals[key] += theirs[key]
            if ours != theirs:
                mismatches.append(f"molecule {k}: ours {ours}, RDKit {theirs}")
        assert not mismatches, f"{name}: {len(mismatches)} of {len(blocks)} molecules differ: " + "; ".join(mismatches[:10])
        print(f"{name}{' (obabel ' + ' '.join(options) + ')' if options else ''}: {len(blocks)} molecule(s), {totals['atoms']} atoms, {totals['bonds']} bonds, "
              f"{totals['heavy']} heavy atoms: equal to RDKit {Chem.rdBase.rdkitVersion}")


@pytest.mark.parametrize("name", CRYSTALS)
def test_small_cif_unit_cell_agrees_with_gemmi(proteinar_bin, name):
    path = os.path.join(MOLECULE_FIXTURES, name)
    st = gemmi.read_small_structure(path)
    sites = st.get_all_unit_cell_sites()
    info = command_line.answer(proteinar_bin, "info", path)
    assert info["format"] == "cif"
    assert info["atoms"] == len(sites), f"{name}: ours {info['atoms']} atoms in the cell, gemmi {len(sites)}"
    cell = info["cell"]
    ours = [cell[k] for k in ("a", "b", "c", "alpha", "beta", "gamma")]
    theirs = [st.cell.a, st.cell.b, st.cell.c, st.cell.alpha, st.cell.beta, st.cell.gamma]
    assert ours == pytest.approx(theirs, abs=1e-9), f"{name}: cell {ours}, gemmi {theirs}"
    # Elements of the cell's contents, counted per element.
    ident = subprocess.run([proteinar_bin, "identify", path], capture_output=True, text=True, timeout=120)
    assert ident.returncode == 0, ident.stderr[-300:]
    ours_elements = Counter(e.upper() for e in json.loads(ident.stdout)["atoms"]["element"])
    gemmi_elements = Counter(s.element.name.upper() for s in sites)
    assert ours_elements == gemmi_elements, f"{name}: elements {dict(ours_elements)}, gemmi {dict(gemmi_elements)}"
    print(f"{name}: {len(sites)} atoms in the cell ({len(st.sites)} sites), cell {theirs}: equal to gemmi {gemmi.__version__}")


def test_the_crystal_fixtures_are_there():
    assert len(CRYSTALS) >= 3, f"crystal fixtures in {MOLECULE_FIXTURES}: {CRYSTALS}"
