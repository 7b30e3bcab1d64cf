"""Acceptance of issue 4's run command: `proteinar serve` on a fresh data folder starts with the
starter library listed, and its model endpoints return files that pass the independent checkers
(Pixar's compliance checker with ARKit rules for USDZ; trimesh, pygltflib, assimp for GLB)."""
import os

import pytest

from proteinar_testing import file_checkers
from proteinar_testing.http_client import http
from proteinar_testing.server import ServerProcess

FORMATS = ("glb", "usdz")


@pytest.fixture(scope="module")
def server(proteinar_bin):
    with ServerProcess(proteinar_bin, name="check-server") as server:
        yield server


@pytest.fixture(scope="module")
def listing(server):
    r = http(server, "GET", "/api/molecules?limit=100&sort=id")
    page = r.json if r.status == 200 and isinstance(r.json, dict) else None
    assert page is not None, f"the starter library: GET /api/molecules: {r!r}"
    return page


@pytest.fixture(scope="module")
def starter_ids(listing):
    ids = [m["id"] for m in listing.get("molecules", [])]
    if not ids:
        pytest.fail("the starter library: no starter molecules listed")
    print(f"starter molecules: {len(ids)}: {' '.join(ids)}")
    return ids


@pytest.fixture(scope="module")
def models(server, starter_ids):
    """{format: ([files saved], [molecules that did not answer 200])}, every starter molecule's model."""
    got = {}
    for fmt in FORMATS:
        files, refused = [], []
        for mid in starter_ids:
            r = http(server, "GET", f"/api/molecules/{mid}/model.{fmt}", headers={"Accept": "*/*"}, timeout=600)
            if r.status != 200:
                refused.append(f"{mid}.{fmt}: HTTP {r.status}")
                continue
            path = os.path.join(server.work, f"{mid}.{fmt}")
            with open(path, "wb") as f:
                f.write(r.raw)
            files.append(path)
        got[fmt] = files, refused
    return got


def test_starter_library_lists_ten_or_more_molecules(listing, starter_ids):
    assert listing.get("total", 0) >= 10, f"only {listing.get('total')} starter molecules"


def test_every_starter_molecule_has_a_description(listing):
    missing = [m["id"] for m in listing.get("molecules", []) if not m.get("description")]
    assert not missing, f"no description: {missing}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_starter_model_answers_200(models, fmt):
    assert not models[fmt][1], models[fmt][1]


def test_starter_glb_models_pass_the_model_checkers(models):
    verdicts = file_checkers.models(models["glb"][0])
    for ok, line in verdicts.values():
        print(line)
    bad = [line for ok, line in verdicts.values() if not ok]
    assert verdicts and not bad, bad or "no GLB to check"


def test_starter_usdz_models_pass_arkit_compliance(models):
    verdicts = file_checkers.usdz(models["usdz"][0])
    for ok, line in verdicts.values():
        print(line)
    bad = [line for ok, line in verdicts.values() if not ok]
    assert verdicts and not bad, bad or "no USDZ to check"
