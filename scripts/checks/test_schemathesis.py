"""schemathesis (PyPI, in .venv: scripts/tools/setup-python.sh) against a real `proteinar serve` and
its own /api/openapi.yaml, for --schemathesis-seconds (default 600): no server error (5xx) and no
answer that breaks the document (its schemas, status codes and media types) over the whole run.
Marked `schemathesis`: scripts/test runs it beside the other checks.

    .venv/bin/python -m pytest -m schemathesis --proteinar-bin=PROTEINAR_BIN --schemathesis-seconds=60

The server has the starter library, the RCSB stand-in of the harness for fetches and searches (no
internet), and an administrator's bearer token on every request (so that signed-in routes are
reached too; signing out is left out, or the token would end). The per-client limits a single
fuzzer meets at once (uploads per hour, rooms per account, bcrypt per minute, account storage, archive
entries opened per minute) are
raised: they are the attack suite's business, not the document's. Prints schemathesis's report; the
logs are kept (folder printed) on a failure."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from xml.etree import ElementTree

import pytest

from proteinar_testing.accounts import Account
from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.paths import FIXTURES
from proteinar_testing.server import ServerProcess

pytestmark = [pytest.mark.schemathesis, pytest.mark.slow]

CHECKS = "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance"
TITLES = {"1ABC": ("Trypsin inhibitor stand-in", "X-RAY DIFFRACTION", 1.0, "1990-01-01")}
GENEROUS = ["--uploads-per-hour", "100000", "--rooms-per-account", "100000", "--bcrypt-per-minute", "100000",
            "--account-storage-mb", "100000", "--opens-per-minute", "100000", "--opens-per-address-per-minute", "100000"]


def tool_crashes(junit):
    """Operations whose only faults are schemathesis's own crashes (a Python traceback inside
    schemathesis or hypothesis, no check failed and no answer of ours involved): such an operation
    was not tried to the end, which says nothing about the server."""
    try:
        root = ElementTree.parse(junit).getroot()
    except (OSError, ElementTree.ParseError):
        return set()
    crashed, faulty = set(), set()
    for case in root.iter("testcase"):
        for bad in list(case.iter("failure")) + list(case.iter("error")):
            text = bad.text or ""
            own = bad.tag == "error" and "Traceback" in text and re.search(r"site-packages/(schemathesis|hypothesis)/", text) \
                and not re.search(r"- ST\d+ ", text)
            (crashed if own else faulty).add(case.get("name"))
    return crashed - faulty


def failures(junit):
    """{operation: [check codes and their first line]} from schemathesis's JUnit report."""
    out = {}
    try:
        root = ElementTree.parse(junit).getroot()
    except (OSError, ElementTree.ParseError):
        return {"(no JUnit report)": [junit]}
    for case in root.iter("testcase"):
        for bad in list(case.iter("failure")) + list(case.iter("error")):
            text = bad.text or ""
            found = [f"{code} (got {got})" if got else code
                     for code, got in re.findall(r"- (ST\d+ [^\n]+)(?:\n\s*\n\s*Received: (\d+))?", text)]
            found = found or [bad.get("message") or bad.tag]
            out.setdefault(case.get("name"), [])
            for f in found:
                if f not in out[case.get("name")]:
                    out[case.get("name")].append(f)
    return out



@pytest.fixture(scope="module")
def fuzzed(proteinar_bin, pytestconfig, request):
    """The server fuzzed by schemathesis for the given seconds: what came of it."""
    binary, seconds = proteinar_bin, int(pytestconfig.getoption("--schemathesis-seconds"))
    work = tempfile.mkdtemp(prefix="proteinar-schemathesis-")
    help_text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True).stdout
    extra = [x for i in range(0, len(GENEROUS), 2) for x in GENEROUS[i:i + 2] if GENEROUS[i] in help_text]
    archive = ArchiveStandIn({"1ABC.cif.gz": os.path.join(FIXTURES, "5PTI.cif.gz")}, TITLES)
    failed_before = request.session.testsfailed
    try:
        server = ServerProcess(binary, work=work, rcsb_url=archive.url, extra=extra, name="schemathesis")
        admin = Account(server, "Fuzzer")
        command = [sys.executable, "-m", "schemathesis.cli", "run", f"{server.url}/api/openapi.yaml",
                   "--checks", CHECKS, "--max-time", str(seconds), "--workers", "2",
                   "--header", f"Authorization: Bearer {admin.token}",
                   "--exclude-path", "/api/sessions/current",   # signing out would end the token
                   "--request-timeout", "20", "--no-color", "--suppress-health-check", "all",
                   "--report", "junit", "--report-junit-path", os.path.join(work, "junit.xml")]
        print(f"schemathesis for {seconds} s against {server.url}/api/openapi.yaml ({binary})", flush=True)
        started = time.monotonic()
        done = subprocess.run(command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, "SCHEMATHESIS_HOOKS": ""})
        print(done.stdout, flush=True)
        took = time.monotonic() - started
        alive = server.running()
        generated = re.search(r"(\d+) generated", done.stdout)
        generated = int(generated.group(1)) if generated else 0
        operations = failures(os.path.join(work, "junit.xml"))
        print(f"schemathesis ran {took:.0f} s and exited with {done.returncode}: {generated} test cases; the server "
              f"{'was still running' if alive else 'had exited'}")
        for operation, codes in operations.items():
            print(f"     {operation}: {', '.join(codes)}")
        yield dict(server=server, work=work, command=command, done=done, alive=alive, generated=generated, operations=operations)
        server.close()
    finally:
        archive.close()
        if request.session.testsfailed > failed_before:
            print(f"logs: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def test_schemathesis_finds_no_server_error_and_no_answer_that_breaks_the_document(fuzzed):
    server, work, command, done = fuzzed["server"], fuzzed["work"], fuzzed["command"], fuzzed["done"]
    generated, operations = fuzzed["generated"], fuzzed["operations"]
    assert generated != 0, "schemathesis generated no test case (nothing was tried)"
    if done.returncode != 0 and operations and set(operations) <= tool_crashes(os.path.join(work, "junit.xml")):
        # schemathesis itself crashed on these (e.g. CPython 3.11.7's "AST constructor recursion
        # depth mismatch" inside hypothesis): each is tried again on its own, and must pass then.
        again = subprocess.run(command[:command.index("--max-time") + 1] + ["120"] + command[command.index("--max-time") + 2:]
                               + [x for name in sorted(operations) for x in ("--include-name", name)],
                               cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "SCHEMATHESIS_HOOKS": ""})
        tail = "\n".join(again.stdout.splitlines()[-8:])
        assert again.returncode == 0, f"schemathesis crashed on {', '.join(sorted(operations))}, and the run of it alone failed (exit {again.returncode}):\n{tail}"
        print(f"ok   schemathesis: {generated} test cases, no server error, no answer that breaks the document; the tool "
              f"crashed on {', '.join(sorted(operations))} and passed it again on its own:\n{tail}")
    else:
        assert done.returncode == 0, (f"schemathesis: {len(operations)} operations gave server errors or answers that break the document "
                                      f"(exit {done.returncode}; server log {server.log_path}, report {work}/junit.xml)")
        print(f"ok   schemathesis: {generated} test cases, no server error, no answer that breaks the document")


def test_the_server_stays_up_through_schemathesis(fuzzed):
    assert fuzzed["alive"], "the server exited during the run"
