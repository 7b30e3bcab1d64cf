"""Where things are: the repository, the shared fixtures, and the checkers other checks call."""
import os

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(SCRIPTS)
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "structures")
CHECKS = os.path.join(SCRIPTS, "checks")
TOOLS = os.path.join(SCRIPTS, "tools")
CHECK_MODELS = os.path.join(CHECKS, "check-models.py")   # GLB OBJ STL PLY DAE: layout, trimesh, pygltflib, pycollada, assimp
CHECK_USDZ = os.path.join(CHECKS, "check-usdz.py")       # Pixar's compliance checker with ARKit rules (its own venv)
DECODE_QR = os.path.join(TOOLS, "decode-qr.py")          # ZXing-C++
START_POSTGRES = os.path.join(TOOLS, "start-postgres.sh")
