#!/usr/bin/env python3
"""The API document (Sources/ProteinARServer/openapi.yaml) is valid OpenAPI 3.1 by
openapi-spec-validator (PyPI), and no text in it was cut into keys of its own: in a YAML flow
mapping (`{…, description: a, b}`) an unquoted comma ends the value, and "b" becomes a key with no
value — a parameter the validator refuses, a schema it lets pass (JSON Schema allows unknown
keywords). Such text must be quoted or written in block style.

    scripts/checks/check-openapi.py

Prints ok/FAIL per check and `N passed, M failed`; exits 1 on a failure."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.paths import ROOT
from proteinar_testing.report import Tally
from proteinar_testing.venv import require

require(__file__, ["openapi_spec_validator", "yaml"], "check-openapi: openapi-spec-validator")
import yaml  # noqa: E402
from openapi_spec_validator import validate  # noqa: E402

DOCUMENT = os.path.join(ROOT, "Sources", "ProteinARServer", "openapi.yaml")
tally = Tally()
with open(DOCUMENT, encoding="utf-8") as f:
    document = yaml.safe_load(f)
try:
    validate(document)
    tally.check("openapi.yaml is valid OpenAPI (openapi-spec-validator)", True)
except Exception as e:  # noqa: BLE001 — the validator's message is the report
    tally.check("openapi.yaml is valid OpenAPI (openapi-spec-validator)", False, str(e).splitlines()[0][:400])


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


cut = list(cut_text(document, []))
tally.check("no description was cut at a comma into keys of its own (quote it, or use block style)", cut == [], "\n  ".join(cut))
print(tally.summary())
sys.exit(tally.exit_code())
