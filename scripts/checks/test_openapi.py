"""The API document (Sources/ProteinARServer/openapi.yaml) is valid OpenAPI 3.1 by
openapi-spec-validator (PyPI), and no text in it was cut into keys of its own: in a YAML flow
mapping (`{…, description: a, b}`) an unquoted comma ends the value, and "b" becomes a key with no
value — a parameter the validator refuses, a schema it lets pass (JSON Schema allows unknown
keywords). Such text must be quoted or written in block style."""
import os

import pytest
import yaml
from openapi_spec_validator import validate

from proteinar_testing.paths import ROOT

DOCUMENT = os.path.join(ROOT, "Sources", "ProteinARServer", "openapi.yaml")


@pytest.fixture(scope="module")
def document():
    with open(DOCUMENT, encoding="utf-8") as f:
        return yaml.safe_load(f)


def test_openapi_yaml_is_valid_openapi(document):
    try:
        validate(document)
    except Exception as e:  # noqa: BLE001 — the validator's message is the report
        pytest.fail(f"openapi.yaml is not valid OpenAPI (openapi-spec-validator): {str(e).splitlines()[0][:400]}")


def cut_text(node, path):
    """Keys with a space and no value: words after an unquoted comma in a flow mapping."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and " " in key and value is None:
                yield "/".join(path + [key])
            yield from cut_text(value, path + [str(key)])
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from cut_text(value, path + [str(i)])


def test_no_description_was_cut_at_a_comma_into_keys(document):
    cut = list(cut_text(document, []))
    assert cut == [], "text cut at a comma into keys of its own (quote it, or use block style):\n  " + "\n  ".join(cut)
