"""Compare `proteinar superpose A B --json` with TM-align (PyPI tmtools 0.3.0: TM-align's own C++
code, Zhang & Skolnick 2005), a test per pair of structures, then check that the transform we
report and the file `--output` writes put A where we say.

Pairs (structure files in Tests/Fixtures/structures; a pair whose file is missing fails): adenylate kinase
closed onto open; NMR models onto model 1 (1LCD, 2JUY); chains of homo-oligomers onto each other
(3KPR, 4JSV, 2W0S, 6R79); and protein-ligand complexes from Tests/Fixtures/structures/complexes, the
same protein in two complexes or homologues down to 6 % sequence identity. The last test fails
when fewer than MIN_COMPARED pairs were compared.

Each pair is run twice:

* `--pairing structure` (the TM-align-like refinement) against TM-align: TM-score (normalised by
  B, TM-align's `tm_norm_chain2`) within TM_STRUCTURE; aligned length (our pairs against TM-align's
  pairs within its d8 cutoff, the "Aligned length" it prints) within ALIGNED_FRACTION; RMSD (ours of
  all aligned pairs at their own best fit, `rmsdAllFitted`, against TM-align's, which is of that
  kind) within max(RMSD_ABSOLUTE, RMSD_FRACTION of TM-align's).
* the default (`auto`: by sequence, by structure below 40 % identity) against TM-align's TM-score
  within TM_AUTO. Its aligned length and RMSD answer matchmaker's question (which residues are the
  same residue), not TM-align's (which residues lie on each other), so they are printed, not
  compared: adenylate kinase's LID and NMP domains close by up to 20 A, and TM-align leaves
  about 33 of 214 residues unaligned where sequence pairing keeps them all.

Reference side: gemmi 0.7.5 reads each file (the model asked for, the chain we report), a residue
counts when gemmi's table names it an amino acid (CHARMM's HSD/HSE/HSP and Amber's HID/HIE/HIP/CYX as
HIS/CYS) and it has a CA, the first altloc; our Cα count must equal gemmi's.

The tolerances come from what was measured on these pairs (docs/formats.md, "Two structures
compared", has the table): TM-score differed by at most 0.0033 (structure and default pairing),
aligned length by at most 2 %, RMSD by at most 0.38 A (adenylate kinase: 3.38 against 3.76; we align
3 residues fewer).
"""
import os
import subprocess
import tempfile

import gemmi
import numpy as np
import pytest
import tmtools  # scripts/tools/setup-python.sh installs it

from proteinar_testing import command_line
from proteinar_testing.paths import FIXTURES, ROOT

TM_STRUCTURE = 0.01    # TM-score, structure pairing against TM-align
TM_AUTO = 0.05         # TM-score, default pairing against TM-align
ALIGNED_FRACTION = 0.10
RMSD_ABSOLUTE = 0.5    # A
RMSD_FRACTION = 0.15
MIN_COMPARED = 10
FORCE_FIELD_NAMES = {"HSD": "HIS", "HSE": "HIS", "HSP": "HIS", "HID": "HIS", "HIE": "HIS", "HIP": "HIS", "CYX": "CYS"}

# (A, B, options): A is moved onto B; options as the command line takes them.
PAIRS = [
    ("adk_closed.pdb.gz", "adk_open.pdb.gz", []),
    ("pdb1ake.pdb", "adk_open.pdb.gz", []),
    ("1LCD.pdb", "1LCD.pdb", ["--chain-a", "A", "--chain-b", "A", "--model-a", "2", "--model-b", "1"]),
    ("1LCD.pdb", "1LCD.pdb", ["--chain-a", "A", "--chain-b", "A", "--model-a", "3", "--model-b", "1"]),
    ("nmr_neopetrosiamide.pdb", "nmr_neopetrosiamide.pdb", ["--model-a", "5", "--model-b", "1"]),
    ("nmr_neopetrosiamide.pdb", "nmr_neopetrosiamide.pdb", ["--model-a", "24", "--model-b", "1"]),
    ("3KPR.pdb.gz", "3KPR.pdb.gz", ["--chain-a", "F"]),  # B's chain: the best match (A, the same heavy chain)
    ("3KPR.pdb.gz", "3KPR.pdb.gz", ["--chain-a", "G", "--chain-b", "B"]),
    ("4JSV.pdb", "4JSV.pdb", ["--chain-a", "D", "--chain-b", "C"]),
    ("complexes/2w0s.pdb.gz", "complexes/2w0s.pdb.gz", ["--chain-a", "B", "--chain-b", "A"]),
    ("complexes/6r79.pdb.gz", "complexes/6r79.pdb.gz", ["--chain-a", "B", "--chain-b", "A"]),
    ("complexes/1acj.pdb.gz", "complexes/1eve.pdb.gz", []),    # acetylcholinesterase, two ligands
    ("complexes/1p5e.pdb.gz", "complexes/3pxf.pdb.gz", ["--chain-a", "A"]),  # CDK2 in two complexes
    ("complexes/4cum.pdb.gz", "complexes/6nhb.pdb.gz", ["--chain-a", "A", "--chain-b", "A"]),  # eNOS onto nNOS
    ("complexes/1hii.pdb.gz", "complexes/1hpx.pdb.gz", []),    # HIV-2 protease onto HIV-1's
    ("complexes/1bju.pdb.gz", "complexes/1bma.pdb.gz", []),    # trypsin onto elastase
    ("complexes/3r0t.pdb.gz", "complexes/3pxf.pdb.gz", []),    # CK2 alpha onto CDK2
    ("complexes/3pxf.pdb.gz", "complexes/4alw.pdb.gz", []),    # CDK2 onto PIM-1
    ("complexes/1aku.pdb.gz", "complexes/4dst.pdb.gz", []),    # flavodoxin onto KRAS (6 % identity)
    ("complexes/4dst.pdb.gz", "complexes/1aku.pdb.gz", []),    # and the other way round
]
compared = []


def locate(name):
    """The file in Tests/Fixtures/structures (as is or .gz)."""
    for candidate in (os.path.join(FIXTURES, name), os.path.join(FIXTURES, name + ".gz")):
        if os.path.exists(candidate):
            return candidate
    return None


def option(options, name, default=None):
    return options[options.index(name) + 1] if name in options else default


def trace(path, chain, model_number):
    """gemmi's Cα trace of one chain: coordinates and one-letter sequence."""
    st = gemmi.read_structure(path)
    model = st[0] if model_number is None else next(m for m in st if m.num == int(model_number))
    xyz, seq = [], ""
    for ch in model:
        if ch.name != chain:
            continue
        for res in ch:
            info = gemmi.find_tabulated_residue(FORCE_FIELD_NAMES.get(res.name, res.name))
            if info is None or not info.is_amino_acid():
                continue
            ca = res.find_atom("CA", "*")
            if ca is None:
                continue
            xyz.append(ca.pos.tolist())
            seq += info.one_letter_code.upper() if info.one_letter_code.strip() else "X"
    return np.array(xyz), seq


def tm_align(x, sx, y, sy):
    """TM-align's answer: TM-score normalised by y, RMSD, and its aligned length (pairs within d8)."""
    r = tmtools.tm_align(x, y, sx, sy)
    moved = x @ np.asarray(r.u).T + np.asarray(r.t)
    i = j = 0
    distances = []
    for ca, cb in zip(r.seqxA, r.seqyA):
        if ca != "-" and cb != "-":
            distances.append(float(np.linalg.norm(moved[i] - y[j])))
        i += ca != "-"
        j += cb != "-"
    d8 = 1.5 * min(len(x), len(y)) ** 0.3 + 3.5
    return dict(tm=float(r.tm_norm_chain2), rmsd=float(r.rmsd), aligned=sum(d <= d8 for d in distances))


def transform(answer):
    return np.array(answer["rotation"]), np.array(answer["translation"])


def pair_id(p):
    return f"{os.path.basename(p[0])}-onto-{os.path.basename(p[1])}" + ("-" + "".join(p[2][1::2]) if p[2] else "")


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_superpose_agrees_with_tm_align(proteinar_bin, pair):
    name_a, name_b, options = pair
    path_a, path_b = locate(name_a), locate(name_b)
    if path_a is None or path_b is None:
        pytest.fail(f"{name_a if path_a is None else name_b} is not in {FIXTURES}")
    structure = command_line.answer(proteinar_bin, "superpose", path_a, path_b, *options, "--pairing", "structure")
    auto = command_line.answer(proteinar_bin, "superpose", path_a, path_b, *options)
    chain_a, chain_b = auto["a"]["chain"], auto["b"]["chain"]
    x, sx = trace(path_a, chain_a, option(options, "--model-a"))
    y, sy = trace(path_b, chain_b, option(options, "--model-b"))
    compared.append(pair)
    problems = []
    if (len(x), len(y)) != (auto["a"]["length"], auto["b"]["length"]):
        problems.append(f"Cα counts: ours {auto['a']['length']}/{auto['b']['length']}, gemmi {len(x)}/{len(y)}")
    ref = tm_align(x, sx, y, sy)

    # The transform we report gives the RMSD we report, on gemmi's coordinates.
    rotation, translation = transform(auto)
    st_a = gemmi.read_structure(path_a)
    model_a = st_a[0] if option(options, "--model-a") is None else next(m for m in st_a if m.num == int(option(options, "--model-a")))
    st_b = gemmi.read_structure(path_b)
    model_b = st_b[0] if option(options, "--model-b") is None else next(m for m in st_b if m.num == int(option(options, "--model-b")))

    def ca_of(model, chain, residue):
        for res in model[chain]:
            if res.seqid.num == residue["number"] and res.seqid.icode.strip() == residue["icode"]:
                atom = res.find_atom("CA", "*")
                if atom is not None:
                    return np.array(atom.pos.tolist())
        raise KeyError(f"{chain}:{residue['number']}{residue['icode']}")

    kept = [p for p in auto["pairs"] if p["kept"]]
    moved = np.array([rotation @ ca_of(model_a, chain_a, p["a"]) + translation for p in kept])
    target = np.array([ca_of(model_b, chain_b, p["b"]) for p in kept])
    recomputed = float(np.sqrt(((moved - target) ** 2).sum(axis=1).mean()))
    if abs(recomputed - auto["rmsd"]) > 1e-3:
        problems.append(f"our transform gives RMSD {recomputed:.4f} on gemmi's coordinates, we report {auto['rmsd']:.4f}")

    tm_diff = abs(structure["tmScore"] - ref["tm"])
    aligned_diff = abs(structure["alignedLength"] - ref["aligned"]) / max(1, ref["aligned"])
    rmsd_diff = abs(structure["rmsdAllFitted"] - ref["rmsd"])
    rmsd_limit = max(RMSD_ABSOLUTE, RMSD_FRACTION * ref["rmsd"])
    auto_diff = abs(auto["tmScore"] - ref["tm"])
    if tm_diff > TM_STRUCTURE:
        problems.append(f"structure pairing: TM-score {structure['tmScore']:.4f}, TM-align {ref['tm']:.4f} (> {TM_STRUCTURE})")
    if aligned_diff > ALIGNED_FRACTION:
        problems.append(f"structure pairing: aligned {structure['alignedLength']}, TM-align {ref['aligned']} (> {ALIGNED_FRACTION:.0%})")
    if rmsd_diff > rmsd_limit:
        problems.append(f"structure pairing: RMSD {structure['rmsdAllFitted']:.3f}, TM-align {ref['rmsd']:.3f} (> {rmsd_limit:.2f} A)")
    if auto_diff > TM_AUTO:
        problems.append(f"default pairing ({auto['pairing']}): TM-score {auto['tmScore']:.4f}, TM-align {ref['tm']:.4f} (> {TM_AUTO})")
    line = (f"{'OK' if not problems else 'FAIL'} {pair_id(pair)} {chain_a}->{chain_b} L={len(x)}/{len(y)} | "
            f"TM-align: aligned {ref['aligned']} RMSD {ref['rmsd']:.2f} TM {ref['tm']:.4f} | "
            f"ours structure: aligned {structure['alignedLength']} RMSD {structure['rmsdAllFitted']:.2f} TM {structure['tmScore']:.4f} | "
            f"ours {auto['pairing']} (sequence alignment {auto['sequenceAlignmentLength']} pairs, "
            f"{100 * auto['sequenceAlignmentIdentity']:.1f}% identical): aligned {auto['alignedLength']} "
            f"core {auto['keptLength']} RMSD {auto['rmsd']:.2f} all {auto['rmsdAll']:.2f} TM {auto['tmScore']:.4f}")
    print(line)
    assert not problems, line + "\n  " + "\n  ".join(problems)


def test_output_file_is_a_moved_onto_b(proteinar_bin):
    """`--output` writes A moved by the transform we report: gemmi reads it, and every atom of every
    model is where the rotation and translation put the original's (PDB's 3 decimals: 2e-3 A)."""
    path_a, path_b = locate("1LCD.pdb"), locate("nmr_neopetrosiamide.pdb")
    if path_a is None or path_b is None:
        pytest.fail("1LCD.pdb or nmr_neopetrosiamide.pdb missing")
    with tempfile.TemporaryDirectory() as tmp:
        for ext in ("pdb", "cif"):
            out = os.path.join(tmp, f"moved.{ext}")
            answer = command_line.answer(proteinar_bin, "superpose", path_a, path_a, "--model-a", "3", "--chain-a", "A",
                                         "--chain-b", "A", "--output", out)
            rotation, translation = transform(answer)
            original, moved = gemmi.read_structure(path_a), gemmi.read_structure(out)
            assert len(moved) == len(original), f"{ext}: {len(moved)} models written, {len(original)} read"
            worst = 0.0
            for mo, mm in zip(original, moved):
                a = np.array([atom.pos.tolist() for ch in mo for res in ch for atom in res])
                b = np.array([atom.pos.tolist() for ch in mm for res in ch for atom in res])
                assert a.shape == b.shape, f"{ext}: model {mo.num} has {len(b)} atoms written, {len(a)} read"
                worst = max(worst, float(np.abs(a @ rotation.T + translation - b).max()))
            print(f"{'OK' if worst <= 2e-3 else 'FAIL'} --output {ext}: {len(original)} models, largest deviation {worst:.4f} A")
            assert worst <= 2e-3


def test_errors_name_what_is_wrong(proteinar_bin):
    """A chain that is not there, a file with no protein, and too few aligned residues exit non-zero
    with a message that says so."""
    protein = locate("pdb1ubi.pdb")
    ligand = locate("ATP.cif")
    if protein is None or ligand is None:
        pytest.fail("pdb1ubi.pdb or ATP.cif missing")
    cases = [
        ([protein, protein, "--chain-a", "Q"], "no chain 'Q'"),
        ([protein, ligand], "structure B has no protein chain"),
        ([protein, protein, "--model-b", "7"], "no model 7"),
        ([protein, protein, "--pairing", "diagonal"], "--pairing"),
    ]
    tmp = tempfile.TemporaryDirectory()
    two = os.path.join(tmp.name, "two.pdb")
    with open(two, "w") as f:
        f.write("ATOM      1  CA  ALA A   1       0.000   0.000   0.000  1.00  0.00           C\n"
                "ATOM      2  CA  ALA A   2       3.800   0.000   0.000  1.00  0.00           C\nEND\n")
    cases.append(([two, two], "too few aligned residues"))
    for arguments, expected in cases:
        p = subprocess.run([proteinar_bin, "superpose", *arguments], capture_output=True, text=True, timeout=120)
        assert p.returncode != 0 and expected in p.stderr, f"{arguments}: exit {p.returncode}, stderr {p.stderr.strip()[-300:]!r}"
        print(f"OK {os.path.basename(arguments[1])}: {p.stderr.strip().splitlines()[-1]}")
    tmp.cleanup()


def test_superpose_compared_enough_pairs():
    """Every pair skipped is no evidence."""
    assert len(compared) >= MIN_COMPARED, f"only {len(compared)} pairs compared (at least {MIN_COMPARED} needed)"
