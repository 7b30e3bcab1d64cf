#!/usr/bin/env bash
# Create or update the Python venv used by the comparison scripts
# (test_gemmi.py, test_dssp.py, test_superpose.py, test_chem_formats.py, check-models.py, decode-qr.py, test_schemathesis.py, and pytest, which runs the checks:
# pyproject.toml). Idempotent: re-running only checks
# versions and exits quickly when everything is already installed.
#
#   scripts/tools/setup-python.sh            # venv at ./.venv (gitignored)
#   PROTEINAR_VENV=/tmp/pv scripts/tools/setup-python.sh
#
# A relative PROTEINAR_VENV is taken from the repository root, as in the
# compare scripts, which re-run themselves with that venv's python.
#
# pydssp is installed with --no-deps: its __init__ imports torch, which we do
# not want (huge). The scripts load pydssp/pydssp_numpy.py by file path instead,
# which needs only numpy and einops.
set -euo pipefail

cd "$(dirname "$0")/../.."
VENV="${PROTEINAR_VENV:-.venv}"
PY="${PYTHON:-python3}"
log() { echo "setup-python: $*" >&2; }

if [ ! -x "$VENV/bin/python" ]; then
    log "creating venv at $VENV"
    "$PY" -m venv "$VENV"
fi

# Quick check: are the pinned versions importable already?
if "$VENV/bin/python" - <<'EOF' 2>/dev/null
import importlib.metadata as md
assert md.version("gemmi") == "0.7.5"
assert md.version("pydssp") == "0.9.1"
md.version("numpy"); md.version("einops")
assert md.version("trimesh") == "5.2.0"
assert md.version("pygltflib") == "1.16.5"
assert md.version("pycollada") == "0.9.3"
md.version("lxml")
assert md.version("zxing-cpp") == "3.1.1"
md.version("pillow")
assert md.version("websockets") == "17.4"
assert md.version("schemathesis") == "4.32.5"
assert md.version("openapi-spec-validator") == "0.9.0"
assert md.version("pytest") == "9.2.0"
assert md.version("tmtools") == "0.3.0"
assert md.version("rdkit") == "2026.9.1"
EOF
then
    log "already up to date ($VENV)"
    exit 0
fi

log "installing gemmi==0.7.5 numpy einops trimesh pygltflib pycollada lxml zxing-cpp pillow into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    gemmi==0.7.5 numpy einops trimesh==5.2.0 pygltflib==1.16.5 pycollada==0.9.3 lxml zxing-cpp==3.1.1 pillow >&2
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check websockets==17.4 >&2  # test_rooms.py, benchmark-rooms.py
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check schemathesis==4.32.5 >&2  # test_schemathesis.py
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check openapi-spec-validator==0.9.0 >&2  # test_openapi.py
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check pytest==9.2.0 >&2  # runs the checks (pyproject.toml)
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check tmtools==0.3.0 >&2  # test_superpose.py: TM-align
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check rdkit==2026.9.1 >&2  # test_chem_formats.py (MOL2 counts)
log "installing pydssp==0.9.1 (--no-deps, avoids torch)"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-deps pydssp==0.9.1 >&2
log "done ($VENV)"
