#!/usr/bin/env python3
"""Check USDZ files with Pixar's USD ComplianceChecker, ARKit (AR Quick Look) rules on.

    scripts/checks/check-usdz.py FILES...

Prints one line per file (`PASS path` or `FAIL path: reasons`) and a final
`N passed, M failed` line; exits 1 when any file fails, 2 when the checker
cannot be set up.

The rules are those of `usdchecker --arkit`: base rules (zero compression,
64-byte aligned files in the zip, stage metadata upAxis/metersPerUnit/
defaultPrim, resolvable references, texture formats, prim encapsulation,
MaterialBindingAPI applied where bindings are, shader input types) and the
ARKit rules (layer formats usd/usda/usdc/usdz only, allowed prim types - no
PointInstancer -, UsdPreviewSurface/UsdUVTexture/... shader ids only, valid
binding targets, allowed file extensions, self-contained package).

Where the checker comes from (all from PyPI, nothing committed):
- usd-core 26.x no longer ships pxr/UsdUtils/complianceChecker.py (the
  validation framework replaced it), and usd-core 25.x, which still ships it,
  crashes on any Shader prim: its wheels lack usdHydra's shaderDefs.usda, so
  the Sdr registry raises "Could not find shader resource: shaderDefs.usda"
  inside ShaderPropertyTypeConformanceChecker (seen with 25.5.1 and 25.11).
- So the venv gets usd-core 26.11 as the USD runtime, and the checker module
  is taken from the usd-core 25.11 wheel (`pip download --no-deps`; the file
  is pure Python and the same for every platform and Python version, so the
  cp312 wheel is fetched whatever the local Python is). 25.11's module already
  opens packages with Sdf.ZipFile, as 26.x requires; for older copies a
  Usd.ZipFile alias is set too.

The venv lives at ${PROTEINAR_USD_VENV:-.venv-usd} (relative paths are taken
from the repository root; .venv-usd/ is gitignored). The first run creates it
and needs PyPI; later runs work offline. The script re-runs itself with the
venv's python.
"""
import fcntl
import os
import subprocess
import sys
import tempfile
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(REPO, os.environ.get("PROTEINAR_USD_VENV", ".venv-usd"))
RUNTIME = "usd-core==26.11"
CHECKER_SOURCE = "usd-core==25.11"
CHECKER_MEMBER = "pxr/UsdUtils/complianceChecker.py"
MODULE_DIR = os.path.join(VENV, "proteinar-usd")
MODULE_NAME = "pixar_compliance_checker"
STAMP = os.path.join(MODULE_DIR, "ready")
STAMP_TEXT = f"{RUNTIME} + {CHECKER_MEMBER} from {CHECKER_SOURCE}\n"


def log(msg):
    print(f"check-usdz: {msg}", file=sys.stderr)


def venv_python():
    if os.name == "nt":
        return os.path.join(VENV, "Scripts", "python.exe")
    return os.path.join(VENV, "bin", "python")


def ready():
    try:
        with open(STAMP) as f:
            return f.read() == STAMP_TEXT and os.path.exists(venv_python())
    except OSError:
        return False


def set_up():
    """Create the venv, install the runtime, extract the checker module."""
    py = venv_python()
    pip = [py, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    if not os.path.exists(py):
        log(f"creating venv at {VENV}")
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    log(f"installing {RUNTIME}")
    subprocess.run(pip + ["install", RUNTIME], check=True, stdout=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        log(f"fetching {CHECKER_MEMBER} from {CHECKER_SOURCE}")
        subprocess.run(pip + ["download", "--no-deps", "--only-binary=:all:",
                              "--python-version", "3.12", "--dest", tmp, CHECKER_SOURCE],
                       check=True, stdout=sys.stderr)
        wheels = [n for n in os.listdir(tmp) if n.endswith(".whl")]
        if len(wheels) != 1:
            raise RuntimeError(f"expected one wheel, found {wheels}")
        with zipfile.ZipFile(os.path.join(tmp, wheels[0])) as whl:
            source = whl.read(CHECKER_MEMBER)
    os.makedirs(MODULE_DIR, exist_ok=True)
    with open(os.path.join(MODULE_DIR, MODULE_NAME + ".py"), "wb") as f:
        f.write(source)
    with open(STAMP, "w") as f:
        f.write(STAMP_TEXT)


def check(paths):
    sys.path.insert(0, MODULE_DIR)
    from pxr import Sdf, Usd
    if not hasattr(Usd, "ZipFile") and hasattr(Sdf, "ZipFile"):
        Usd.ZipFile = Sdf.ZipFile      # modules older than 25.11 open packages this way
    from pixar_compliance_checker import ComplianceChecker

    passed = failed = 0
    for path in paths:
        reasons, warnings = [], []
        if not os.path.isfile(path):
            reasons.append("no such file")
        else:
            checker = ComplianceChecker(arkit=True, rootPackageOnly=False,
                                        skipVariants=False, verbose=False)
            try:
                checker.CheckCompliance(path)
                reasons = list(checker.GetErrors()) + list(checker.GetFailedChecks())
                warnings = list(checker.GetWarnings())
            except Exception as e:  # the checker raises Tf errors on broken input
                reasons.append(f"{type(e).__name__}: {' '.join(str(e).split())}")
        if reasons:
            failed += 1
            print(f"FAIL {path}: " + " | ".join(" ".join(r.split()) for r in reasons))
        else:
            passed += 1
            note = f" (warnings: {' | '.join(' '.join(w.split()) for w in warnings)})" if warnings else ""
            print(f"PASS {path}{note}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    paths = sys.argv[1:]
    if paths and paths[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if not paths:
        print("usage: scripts/checks/check-usdz.py FILES...", file=sys.stderr)
        return 2
    inside = os.path.realpath(sys.prefix) == os.path.realpath(VENV)
    if not inside:
        if not ready():
            # Runs at once (check-conversions checks its files in two halves) set the venv up
            # once: the others wait on the lock, then find it ready.
            try:
                os.makedirs(os.path.dirname(VENV), exist_ok=True)
                with open(VENV.rstrip(os.sep) + ".lock", "w") as lock:
                    fcntl.flock(lock, fcntl.LOCK_EX)
                    if not ready():
                        set_up()
            except (subprocess.CalledProcessError, OSError, RuntimeError, KeyError) as e:
                log(f"set-up failed: {e}")
                return 2
        py = venv_python()
        os.execv(py, [py, os.path.abspath(__file__), *paths])
    if not ready():
        log(f"{VENV} is not set up: run this script with another python to create it")
        return 2
    return check(paths)


if __name__ == "__main__":
    sys.exit(main())
