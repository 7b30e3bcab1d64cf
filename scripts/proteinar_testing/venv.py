"""Re-running a script with the project's venv (scripts/tools/setup-python.sh makes it) when the
interpreter that started it lacks the packages the script needs."""
import importlib
import os
import sys

from .paths import ROOT

# Same default as setup-python.sh: a relative PROTEINAR_VENV is taken from the repository root.
VENV = os.path.join(ROOT, os.environ.get("PROTEINAR_VENV", ".venv"))
PYTHON = os.path.join(VENV, "bin", "python")


def rerun_in_venv(script, missing):
    """Replaces this process with the venv's python running `script`, or exits naming `missing`."""
    if os.path.exists(PYTHON) and not os.environ.get("PROTEINAR_REEXEC"):
        os.environ["PROTEINAR_REEXEC"] = "1"
        os.execv(PYTHON, [PYTHON, os.path.abspath(script), *sys.argv[1:]])
    sys.exit(f"{missing} not importable: run scripts/tools/setup-python.sh first")


def require(script, modules, what):
    """Re-runs `script` in the venv unless every module in `modules` can be imported here."""
    try:
        for name in modules:
            importlib.import_module(name)
    except ImportError:
        rerun_in_venv(script, what)
