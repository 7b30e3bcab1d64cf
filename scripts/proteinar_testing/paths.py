"""Where things are: the repository, the shared fixtures, and the checkers other checks call."""
import glob
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


def structure_files():
    """The shared PDB, mmCIF and BinaryCIF files but the chemical components: what the gemmi and
    DSSP comparisons read (DSSP: those but BinaryCIF)."""
    return sorted({p for pattern in ("*.pdb*", "*.cif*", "*.bcif*") for p in glob.glob(os.path.join(FIXTURES, pattern))
                   if not any(x in os.path.basename(p) for x in ("ATP.cif", "HEM.cif", "standard_aa.cif", "chem_comp_bond"))})
