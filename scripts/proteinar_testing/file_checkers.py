"""The independent checkers of scene files, run once over many files, and each file's verdict read
from their output: scripts/checks/check-models.py (GLB OBJ STL PLY DAE: layout, trimesh, pygltflib,
pycollada, assimp), scripts/checks/check-usdz.py (Pixar's compliance checker with ARKit rules, in
its own usd-core venv) and scripts/checks/check-usd-layers.py (a USDZ's crate and text layers hold
the same data). A file the checker gave no verdict for is a failure naming the checker's output."""
import os
import subprocess
import sys

from .paths import CHECK_MODELS, CHECK_USDZ, CHECKS

CHECK_USD_LAYERS = os.path.join(CHECKS, "check-usd-layers.py")


def _run(command):
    r = subprocess.run(command, capture_output=True, text=True)
    return r.stdout, (r.stdout + r.stderr)[-2000:]


def _verdicts(keys, lines, parse, tail):
    found = {}
    for line in lines:
        got = parse(line)
        if got and got[0] in keys:
            found[got[0]] = (got[1], line)
    return {k: found.get(k, (False, f"no verdict from the checker: {tail}")) for k in keys}


def models(files, allow_empty=False):
    """{path: (ok, the checker's line)} from check-models.py."""
    if not files:
        return {}
    out, tail = _run([sys.executable, CHECK_MODELS, *(["--allow-empty"] if allow_empty else []), *files])

    def parse(line):
        path, sep, rest = line.partition(": ")
        return (path, rest.startswith("ok")) if sep else None
    return _verdicts(files, out.splitlines(), parse, tail)


def usdz(files):
    """{path: (ok, the checker's line)} from check-usdz.py (the system's python3: it makes its venv)."""
    if not files:
        return {}
    out, tail = _run(["python3", CHECK_USDZ, *files])

    def parse(line):
        if line.startswith("PASS "):
            rest = line[5:]
            return next(((f, True) for f in files if rest == f or rest.startswith(f + " ")), None)
        if line.startswith("FAIL "):
            return (line[5:].split(": ", 1)[0], False)
        return None
    return _verdicts(files, out.splitlines(), parse, tail)


def usd_layers(pairs):
    """{(a, b): (ok, the checker's line)} from check-usd-layers.py."""
    if not pairs:
        return {}
    out, tail = _run(["python3", CHECK_USD_LAYERS, *[f for pair in pairs for f in pair]])

    def parse(line):
        if line.startswith(("PASS ", "FAIL ")):
            a, _, b = line[5:].split(": ", 1)[0].partition(" vs ")
            return ((a, b), line.startswith("PASS "))
        return None
    return _verdicts(pairs, out.splitlines(), parse, tail)
