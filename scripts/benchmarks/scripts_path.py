"""The benchmarks' one bootstrap: puts scripts/ on sys.path so that they import the checks' own
fixture tools (proteinar_testing: ServerProcess, ArchiveStandIn, Browser, Account, ...) when run as
scripts (`scripts/benchmarks/benchmark-web.py BIN`). A benchmark imports it first:

    import scripts_path  # noqa: F401  (scripts/ on sys.path, for proteinar_testing)

The checks themselves need none: pyproject.toml gives pytest scripts/ as its pythonpath."""
import os
import sys

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)
