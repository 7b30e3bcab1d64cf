#!/usr/bin/env python3
"""Compare `proteinar dssp FILE --json` with pydssp's numpy implementation.

    scripts/checks/compare-dssp.py [--min 95] [--max-context 3000] PROTEINAR_BINARY FILES...

Both sides are reduced to 3 states (H,G,I -> H; E,B -> E; rest -> C; pydssp
gives -,H,E) and matched by (chain, number, icode) over the first model.
Prints one line per file and a final `N passed, M failed` line (a file passes
when agreement >= --min percent); exits 1 on any failure, and when nothing was
compared. A file is skipped (`SKIP`) only when there is nothing to compare: no
amino-acid residue with a complete backbone (N, CA, C, O) in its first model, or
a BinaryCIF file with no matching mmCIF; a file gemmi cannot read fails.
Run with the venv from scripts/tools/setup-python.sh (re-executes itself there when
gemmi is not importable). pydssp's package __init__ imports torch, so
pydssp/pydssp_numpy.py is loaded by file path.

Reference side: gemmi reads the file (first model, first altloc), polymer
amino-acid residues with N, CA, C, O. We pass pydssp explicit amide H
positions (its own formula) computed per chain, with no H (donor masked) for
prolines and after chain breaks (C-N > 2.5 A), so chains can be combined.
pydssp is O(L^2) in memory/time, so each chain is run together with the
residues of other chains within 10 A (CA-CA, +-2 in sequence) to keep
inter-chain sheets.
"""
import argparse, importlib.util, json, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.report import finish_comparison  # noqa: E402
from proteinar_testing.venv import rerun_in_venv  # noqa: E402

THREE_STATE = {"H": "H", "G": "H", "I": "H", "E": "E", "B": "E"}  # else C


def import_deps():
    try:
        import gemmi, numpy
        spec = importlib.util.find_spec("pydssp")
    except ImportError:
        spec = None
    if spec is None:
        rerun_in_venv(__file__, "gemmi/numpy/pydssp")
    path = os.path.join(spec.submodule_search_locations[0], "pydssp_numpy.py")
    mod_spec = importlib.util.spec_from_file_location("pydssp_numpy", path)
    pydssp = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(pydssp)
    return gemmi, numpy, pydssp


gemmi, np, pydssp = import_deps()


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


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def backbone(path):
    """Keys, chain index, (L,5,3) N/CA/C/O/H coordinates and donor mask."""
    st = gemmi.read_structure(path)
    st.setup_entities()
    st.remove_alternative_conformations()
    keys, chain_of, xyz, is_pro = [], [], [], []
    for ci, ch in enumerate(st[0] if len(st) else []):
        for r in ch.get_polymer():
            atoms = [r.find_atom(n, "*") for n in ("N", "CA", "C", "O")]
            if all(atoms):
                keys.append((ch.name, r.seqid.num, r.seqid.icode.strip()))
                chain_of.append(ci)
                xyz.append([a.pos.tolist() for a in atoms])
                is_pro.append(r.name == "PRO")
    if not keys:
        return keys, None, None, None
    xyz, chain_of = np.array(xyz), np.array(chain_of)
    n, ca, c = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    prev_c = np.roll(c, 1, axis=0)
    bonded = (np.roll(chain_of, 1) == chain_of) & (np.linalg.norm(n - prev_c, axis=1) < 2.5)
    bonded[0] = False
    h = n + 1.01 * unit(unit(n - prev_c) + unit(n - ca))  # same formula as pydssp
    h[~bonded] = n[~bonded]  # no real H; masked as donor below
    donor = bonded & ~np.array(is_pro)
    return keys, chain_of, np.concatenate([xyz, h[:, None]], axis=1), donor


def run_pydssp(coords, donor, chain_of, max_context):
    """3-state letters for every residue; one pydssp call per chain + context."""
    ss = np.full(len(coords), "C")
    ca = coords[:, 1]
    chains = np.unique(chain_of)
    if len(coords) <= max_context:  # small enough: all at once
        groups = [(np.arange(len(coords)), len(coords))]
    else:
        groups = []
        for c in chains:
            own = np.flatnonzero(chain_of == c)
            near = np.zeros(len(coords), bool)
            for k in range(0, len(own), 256):
                d = np.linalg.norm(ca[own[k:k + 256], None] - ca[None], axis=-1)
                near |= (d < 10.0).any(axis=0)
            near = np.convolve(near, np.ones(5), "same") > 0  # +-2 residues of context
            near &= chain_of != c
            context = np.flatnonzero(near)[:max(0, max_context - len(own))]
            groups.append((np.r_[own, context], len(own)))
    for sel, n_own in groups:
        if len(sel) < 6:  # too short for pydssp's turn/bridge windows
            continue
        onehot = pydssp.assign(coords[sel], donor_mask=donor[sel])
        ss[sel[:n_own]] = np.array(list("CHE"))[onehot.argmax(-1)[:n_own]]
    return ss


def ours(binary, path):
    p = subprocess.run([binary, "dssp", path, "--json"], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
    out = {}
    try:
        for r in json.loads(p.stdout)["residues"]:
            out.setdefault((r["chain"], int(r["number"]), r.get("icode") or ""),
                           THREE_STATE.get(r["ss"], "C"))
    except (ValueError, KeyError, TypeError) as e:
        raise RuntimeError(f"unexpected JSON ({type(e).__name__}: {e}): {p.stdout[:200]!r}")
    return out


def main():
    ap = argparse.ArgumentParser(description="Compare proteinar DSSP with pydssp (3-state).")
    ap.add_argument("--min", type=float, default=95.0, help="pass threshold, percent")
    ap.add_argument("--max-context", type=int, default=3000,
                    help="largest number of residues given to one pydssp call")
    ap.add_argument("binary")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    if not (os.path.isfile(args.binary) and os.access(args.binary, os.X_OK)):
        sys.exit(f"compare-dssp: {args.binary} is not an executable file (build proteinar first)")
    passed = failed = 0
    for path in args.files:
        name = os.path.basename(path)
        ref_path = reference_path(path, args.files)
        if ref_path is None:
            print(f"SKIP {name}: gemmi cannot read BinaryCIF and no matching mmCIF was found")
            continue
        try:
            keys, chain_of, coords, donor = backbone(ref_path)
        except Exception as e:  # noqa: BLE001 — a structure gemmi cannot read is not a pass
            print(f"FAIL {name}: gemmi cannot read it ({type(e).__name__}: {str(e).strip()[:100]})")
            failed += 1
            continue
        if not keys:
            print(f"SKIP {name}: no protein residues with a complete backbone")
            continue
        ref = dict(zip(keys, run_pydssp(coords, donor, chain_of, args.max_context)))
        try:
            got = ours(args.binary, path)
        except Exception as e:
            print(f"FAIL {name}: proteinar dssp failed: {e}")
            failed += 1
            continue
        common = [k for k in got if k in ref]
        agree = sum(got[k] == ref[k] for k in common)
        pct = 100.0 * agree / len(common) if common else 0.0
        counts = " ".join(f"{s}={sum(got[k] == s for k in common)}/{sum(ref[k] == s for k in common)}"
                          for s in "HEC")
        ok = bool(common) and pct >= args.min
        print(f"{'OK' if ok else 'FAIL'} {name} {pct:.1f}% agree ({agree}/{len(common)} residues; "
              f"ours/pydssp {counts}; only ours {len(got) - len(common)}, "
              f"only pydssp {len(ref) - len(common)})")
        passed, failed = passed + ok, failed + (not ok)
    finish_comparison(passed, failed, args.files)


if __name__ == "__main__":
    main()
