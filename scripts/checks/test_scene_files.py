"""The scene writers' sample files (the Swift tests leave them in .build/export-samples, or
--samples) through the independent checkers: GLB, OBJ, STL, PLY and DAE load in trimesh,
pygltflib, pycollada and assimp (check-models.py); the empty scenes are valid containers; USDZ
passes Pixar's compliance checker with ARKit rules (check-usdz.py); and the crate (scene.usdc, the
default) and text (scene.usda) layers of one scene hold the same prims, points, indices, normals,
materials and bindings as usd-core reads them (check-usd-layers.py), for the samples and for
2XHE, 1AKE and the 7CTH assembly converted here.

Each checker runs once over all its files (a module fixture); each file is a test of its own."""
import glob
import os
import subprocess

import pytest

from proteinar_testing import file_checkers
from proteinar_testing.paths import ROOT

MODEL_TYPES = ("glb", "obj", "stl", "ply", "dae")
EMPTY = ("empty.glb", "empty.dae")
LAYER_SAMPLES = ("cube", "sphere", "twoparts", "instanced", "baked", "mixed", "messy", "empty")
LAYER_CONVERSIONS = {"2XHE": [], "1AKE": [], "7CTH": ["--assembly", "1", "--target", "screen"]}
NO_SAMPLES = "(no samples: run the Swift tests first, or pass --samples)"


def samples(config, types, empty=False):
    folder = os.path.abspath(config.getoption("--samples") or os.path.join(ROOT, ".build", "export-samples"))
    names = sorted(os.path.basename(p) for t in types for p in glob.glob(os.path.join(folder, f"*.{t}")))
    names = [n for n in names if n.startswith("empty.") == empty]
    return names or [NO_SAMPLES]


def pytest_generate_tests(metafunc):
    config = metafunc.config
    if "model_sample" in metafunc.fixturenames:
        metafunc.parametrize("model_sample", samples(config, MODEL_TYPES))
    if "empty_sample" in metafunc.fixturenames:
        metafunc.parametrize("empty_sample", [n for n in samples(config, ("glb", "dae"), empty=True) if n in EMPTY] or [NO_SAMPLES])
    if "usdz_sample" in metafunc.fixturenames:
        metafunc.parametrize("usdz_sample", samples(config, ("usdz",)) + [n for n in samples(config, ("usdz",), empty=True) if n != NO_SAMPLES])
    if "layer_pair" in metafunc.fixturenames:
        metafunc.parametrize("layer_pair", [f"{n} sample" for n in LAYER_SAMPLES] + [f"{n} converted" for n in LAYER_CONVERSIONS])


def path_of(samples_dir, name):
    if name == NO_SAMPLES:
        pytest.fail(f"no sample files in {samples_dir} {NO_SAMPLES}")
    return os.path.join(samples_dir, name)


@pytest.fixture(scope="module")
def model_verdicts(samples_dir, pytestconfig):
    return file_checkers.models([path_of(samples_dir, n) for n in samples(pytestconfig, MODEL_TYPES) if n != NO_SAMPLES])


@pytest.fixture(scope="module")
def empty_verdicts(samples_dir):
    return file_checkers.models([os.path.join(samples_dir, n) for n in EMPTY], allow_empty=True)


@pytest.fixture(scope="module")
def usdz_verdicts(samples_dir, pytestconfig):
    names = [n for n in samples(pytestconfig, ("usdz",)) + samples(pytestconfig, ("usdz",), empty=True) if n != NO_SAMPLES]
    return file_checkers.usdz([path_of(samples_dir, n) for n in names])


@pytest.fixture(scope="module")
def layer_verdicts(samples_dir, proteinar_bin, tmp_path_factory):
    """The samples' pairs, and 2XHE, 1AKE and the 7CTH assembly converted in both layers here;
    {"NAME sample"/"NAME converted": (ok, line)}."""
    folder = tmp_path_factory.mktemp("usd-layers")
    pairs, failed = {}, {}
    for name in LAYER_SAMPLES:
        pairs[f"{name} sample"] = (os.path.join(samples_dir, f"{name}.usdz"), os.path.join(samples_dir, f"{name}.text.usdz"))
    for name, options in LAYER_CONVERSIONS.items():
        source = glob.glob(os.path.join(ROOT, "Sources", "MoleculeLibrary", "Starter", f"{name}.*gz"))
        crate, text = str(folder / f"{name}.usdz"), str(folder / f"{name}.text.usdz")
        runs = [subprocess.run([proteinar_bin, "convert", *source, *options, *layer, "-o", out], capture_output=True, text=True)
                for layer, out in (([], crate), (["--usd-layer", "text"], text))]
        bad = [r for r in runs if r.returncode != 0]
        if len(source) != 1 or bad:
            failed[f"{name} converted"] = (False, f"FAIL convert {name} {' '.join(options)}: {source} {bad[0].stderr[-400:] if bad else ''}")
        else:
            pairs[f"{name} converted"] = (crate, text)
    verdicts = file_checkers.usd_layers(list(pairs.values()))
    return {**{key: verdicts[pair] for key, pair in pairs.items()}, **failed}


def test_sample_loads_in_every_model_reader(model_verdicts, samples_dir, model_sample):
    ok, line = model_verdicts[path_of(samples_dir, model_sample)]
    assert ok, line


def test_empty_scene_file_is_a_valid_container(empty_verdicts, samples_dir, empty_sample):
    ok, line = empty_verdicts[path_of(samples_dir, empty_sample)]
    assert ok, line


def test_usdz_sample_passes_arkit_compliance(usdz_verdicts, samples_dir, usdz_sample):
    ok, line = usdz_verdicts[path_of(samples_dir, usdz_sample)]
    assert ok, line


def test_usd_crate_and_text_layers_hold_the_same_data(layer_verdicts, layer_pair):
    ok, line = layer_verdicts[layer_pair]
    assert ok, line
