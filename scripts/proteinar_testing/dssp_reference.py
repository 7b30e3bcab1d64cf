"""pydssp (PyPI, numpy implementation) as an independent DSSP: backbones read by gemmi with
amide hydrogens placed by pydssp's own formula, and 3-state assignment per chain. Used by
test_dssp.py (the engine's DSSP against it) and test_design_closure.py (designed hairpins).
pydssp's package __init__ imports torch, so pydssp/pydssp_numpy.py is loaded by file path."""
import importlib.util
import os

from .venv import rerun_in_venv


def _import_deps(script):
    try:
        import gemmi, numpy
        spec = importlib.util.find_spec("pydssp")
    except ImportError:
        spec = None
    if spec is None:
        rerun_in_venv(script, "gemmi/numpy/pydssp")
    path = os.path.join(spec.submodule_search_locations[0], "pydssp_numpy.py")
    mod_spec = importlib.util.spec_from_file_location("pydssp_numpy", path)
    pydssp = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(pydssp)
    return gemmi, numpy, pydssp


gemmi = np = pydssp = None


def load(script):
    """Imports gemmi, numpy and pydssp, re-running `script` in the project's venv when missing."""
    global gemmi, np, pydssp
    gemmi, np, pydssp = _import_deps(script)


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def backbone(path):
    """Keys, chain index, (L,5,3) N/CA/C/O/H coordinates and donor mask."""
    st = gemmi.read_structure(path)
    st.setup_entities()
    st.remove_alternative_conformations()
    keys, chain_of, xyz, is_pro = [], [], [], []
    for ci, ch in enumerate(st[0] if len(st) else []):
        for r in ch.get_polymer():
            atoms = [r.find_atom(n, "*") for n in ("N", "CA", "C", "O")]
            if all(atoms):
                keys.append((ch.name, r.seqid.num, r.seqid.icode.strip()))
                chain_of.append(ci)
                xyz.append([a.pos.tolist() for a in atoms])
                is_pro.append(r.name == "PRO")
    if not keys:
        return keys, None, None, None
    xyz, chain_of = np.array(xyz), np.array(chain_of)
    n, ca, c = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    prev_c = np.roll(c, 1, axis=0)
    bonded = (np.roll(chain_of, 1) == chain_of) & (np.linalg.norm(n - prev_c, axis=1) < 2.5)
    bonded[0] = False
    h = n + 1.01 * unit(unit(n - prev_c) + unit(n - ca))  # same formula as pydssp
    h[~bonded] = n[~bonded]  # no real H; masked as donor below
    donor = bonded & ~np.array(is_pro)
    return keys, chain_of, np.concatenate([xyz, h[:, None]], axis=1), donor


def run_pydssp(coords, donor, chain_of, max_context):
    """3-state letters for every residue; one pydssp call per chain + context."""
    ss = np.full(len(coords), "C")
    ca = coords[:, 1]
    chains = np.unique(chain_of)
    if len(coords) <= max_context:  # small enough: all at once
        groups = [(np.arange(len(coords)), len(coords))]
    else:
        groups = []
        for c in chains:
            own = np.flatnonzero(chain_of == c)
            near = np.zeros(len(coords), bool)
            for k in range(0, len(own), 256):
                d = np.linalg.norm(ca[own[k:k + 256], None] - ca[None], axis=-1)
                near |= (d < 10.0).any(axis=0)
            near = np.convolve(near, np.ones(5), "same") > 0  # +-2 residues of context
            near &= chain_of != c
            context = np.flatnonzero(near)[:max(0, max_context - len(own))]
            groups.append((np.r_[own, context], len(own)))
    for sel, n_own in groups:
        if len(sel) < 6:  # too short for pydssp's turn/bridge windows
            continue
        onehot = pydssp.assign(coords[sel], donor_mask=donor[sel])
        ss[sel[:n_own]] = np.array(list("CHE"))[onehot.argmax(-1)[:n_own]]
    return ss
