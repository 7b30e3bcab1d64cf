"""`proteinar info` reads every shared file (Tests/Fixtures/structures, the manifest aside): as text,
and as JSON with every field the page and the scripts read."""
import json
import os
import subprocess

import pytest

from proteinar_testing.paths import FIXTURES

FILES = sorted(f for f in os.listdir(FIXTURES) if not f.endswith(".tsv") and os.path.isfile(os.path.join(FIXTURES, f)))
FIELDS = ("id", "title", "method", "resolution", "models", "atoms", "residues", "bonds", "chains", "secondaryStructure", "assemblies")


@pytest.mark.parametrize("name", FILES)
def test_info_reads_the_file_as_text_and_json(proteinar_bin, name):
    path = os.path.join(FIXTURES, name)
    text = subprocess.run([proteinar_bin, "info", path], capture_output=True, text=True)
    assert text.returncode == 0, f"proteinar info {name}: exit {text.returncode}: {text.stderr.strip()[-300:]}"
    out = subprocess.run([proteinar_bin, "info", "--json", path], capture_output=True, text=True)
    assert out.returncode == 0, f"proteinar info --json {name}: exit {out.returncode}: {out.stderr.strip()[-300:]}"
    document = json.loads(out.stdout)
    missing = [k for k in FIELDS if k not in document]
    assert not missing, f"proteinar info --json {name}: no {missing}"
