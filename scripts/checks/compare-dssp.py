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
import argparse, json, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.report import finish_comparison  # noqa: E402
from proteinar_testing import dssp_reference  # noqa: E402
from proteinar_testing.dssp_reference import backbone, run_pydssp  # noqa: E402

dssp_reference.load(__file__)

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
