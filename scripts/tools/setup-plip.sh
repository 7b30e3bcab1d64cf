#!/usr/bin/env bash
# The PLIP venv (.venv-plip): PLIP 3.0.1 from PyPI over Debian's Open Babel (python3-openbabel),
# the independent interaction profiler test_interactions.py compares ours with. Open Babel's Python
# bindings are Debian's (built for /usr/bin/python3), so the venv sees the system's packages, and
# PLIP is installed without its pip dependency on `openbabel` (which would build Open Babel from
# source). Idempotent: exits at once when PLIP imports.
#   scripts/tools/setup-plip.sh            # venv at ./.venv-plip (gitignored)
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${PROTEINAR_PLIP_VENV:-.venv-plip}"
log() { echo "setup-plip: $*" >&2; }

if ! /usr/bin/python3 -c "from openbabel import pybel" 2>/dev/null; then
    log "installing Debian's python3-openbabel"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-openbabel >/dev/null) \
        || { log "python3-openbabel could not be installed"; exit 1; }
fi
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import plip.structure.preparation, importlib.metadata as m; assert m.version('plip') == '3.0.1'" 2>/dev/null; then
    log "already up to date ($VENV)"
    exit 0
fi
log "creating $VENV (PLIP 3.0.1, numpy, lxml)"
/usr/bin/python3 -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check numpy lxml >&2
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps plip==3.0.1 >&2
log "done ($VENV)"
