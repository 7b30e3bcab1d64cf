"""Re-running a check script with the project's venv (scripts/setup-python.sh makes it) when the
interpreter that started it lacks the packages the script needs."""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rerun_in_venv(script, missing):
    """Replaces this process with the venv's python running `script`, or exits naming `missing`."""
    # Same default as setup-python.sh: relative paths are from the repository root.
    venv = os.path.join(REPO, os.environ.get("PROTEINAR_VENV", ".venv"))
    py = os.path.join(venv, "bin", "python")
    if os.path.exists(py) and not os.environ.get("PROTEINAR_REEXEC"):
        os.environ["PROTEINAR_REEXEC"] = "1"
        os.execv(py, [py, os.path.abspath(script), *sys.argv[1:]])
    sys.exit(f"{missing} not importable: run scripts/setup-python.sh first")
