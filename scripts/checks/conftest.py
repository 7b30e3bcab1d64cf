"""Fixtures of the checks: the server binary (--proteinar-bin or $PROTEINAR_BIN), servers started
from it, the stand-in archive, PostgreSQL, headless Chromium and accounts; soft checks (`checks`)
for a step that asserts several things and reports each; and the time each check took, printed at
the end in the order the checks ran.

The tools behind the fixtures are in scripts/proteinar_testing (pyproject.toml puts scripts/ on the
path); the checks are the test_*.py modules beside this file."""
import os

import pytest

from proteinar_testing import postgres
from proteinar_testing import server as servers
from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.paths import ROOT
from proteinar_testing.report import Skip, SoftChecks
from proteinar_testing.server import ServerProcess


def pytest_addoption(parser):
    group = parser.getgroup("proteinar")
    group.addoption("--proteinar-bin", default=None,
                    help="the proteinar binary the checks run (default $PROTEINAR_BIN, else .build/release/proteinar)")
    group.addoption("--samples", default=None,
                    help="the Swift tests' sample scene files (default .build/export-samples)")
    group.addoption("--screenshots", default=None, help="a folder for the browser checks' screenshots")
    group.addoption("--schemathesis-seconds", default="600", help="how long schemathesis runs (default 600)")


# The binary, the samples, PostgreSQL


@pytest.fixture(scope="session")
def proteinar_bin(pytestconfig):
    binary = (pytestconfig.getoption("--proteinar-bin") or os.environ.get("PROTEINAR_BIN")
              or os.path.join(ROOT, ".build", "release", "proteinar"))
    binary = os.path.abspath(binary)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        pytest.fail(f"{binary} is not an executable (build it: swift build -c release; or pass --proteinar-bin)", pytrace=False)
    return binary


@pytest.fixture(scope="session")
def samples_dir(pytestconfig):
    return os.path.abspath(pytestconfig.getoption("--samples") or os.path.join(ROOT, ".build", "export-samples"))


@pytest.fixture(scope="session")
def postgres_url():
    """PROTEINAR_TEST_POSTGRES_URL (scripts/tools/start-postgres.sh); the check is skipped without it."""
    url = postgres.test_url()
    if not url:
        pytest.skip("PROTEINAR_TEST_POSTGRES_URL is not set (scripts/tools/start-postgres.sh)")
    return url


# Servers and the stand-in archive


@pytest.fixture
def serve(proteinar_bin):
    """A factory: serve(**ServerProcess options) starts `proteinar serve`; each is closed after the test."""
    started = []

    def start(**options):
        server = ServerProcess(proteinar_bin, **options)
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.close()


@pytest.fixture
def archive_stand_in():
    """A factory: archive_stand_in(files, titles) is the RCSB on loopback; each is closed after the test."""
    made = []

    def make(*args, **kw):
        archive = ArchiveStandIn(*args, **kw)
        made.append(archive)
        return archive

    yield make
    for archive in reversed(made):
        archive.close()


@pytest.fixture(scope="session", autouse=True)
def _stop_servers_at_the_end():
    yield
    servers.stop_all()


# Soft checks: a step that asserts several things prints `ok   NAME` / `FAIL NAME (detail)` for
# each, as the scripts did, and fails at its end listing every FAIL.


# The browser flows: each a run shared by two modules, in order (test_web.py, then
# test_web_own_browsers.py; test_rooms_page.py, then test_rooms_page_drawing.py).


@pytest.fixture(scope="session")
def web(proteinar_bin, pytestconfig):
    """The web app's run (in_browser/web_page.py): its server, the flow's browser, CSP messages."""
    from in_browser.web_page import Web
    run = Web(proteinar_bin, pytestconfig.getoption("--screenshots"))
    yield run
    run.close()


@pytest.fixture(scope="session")
def flow(proteinar_bin):
    """The Rooms screens' run (in_browser/rooms_page.py): two browsers, a server and the room."""
    from in_browser.rooms_page import Flow
    run = Flow(proteinar_bin)
    yield run
    run.close()


@pytest.fixture
def shots(pytestconfig):
    """The folder for the browser checks' screenshots (--screenshots), or None."""
    return pytestconfig.getoption("--screenshots")


@pytest.fixture
def checks():
    return SoftChecks()


def failures_of(item):
    """Every soft check object the test used (the `checks` fixture, or one a test hands on)."""
    soft = [v for v in item.funcargs.values() if isinstance(v, SoftChecks)]
    soft += getattr(item, "soft_checks", [])
    return [f for s in soft for f in s.failures]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        result = yield
    except Skip as e:  # the tools raise Skip for what cannot run here (Fail, a broken expectation, fails as it is)
        pytest.skip(str(e))
    except Exception as e:
        failed = failures_of(item)
        if failed:
            e.add_note("and before it:\n" + "\n".join(f"FAIL {f}" for f in failed))
        raise
    failed = failures_of(item)
    if failed:
        pytest.fail(f"{len(failed)} of the checks failed:\n" + "\n".join(f"FAIL {f}" for f in failed), pytrace=False)
    return result


# The time each check took (set-up, the check and tear-down), in the order they ran.

_timings = {}


def pytest_runtest_logreport(report):
    entry = _timings.setdefault(report.nodeid, [0.0, "passed"])
    entry[0] += report.duration
    if report.failed:
        entry[1] = "FAIL" if report.when == "call" else f"ERROR ({report.when})"
    elif report.skipped and entry[1] == "passed":
        entry[1] = "skip"


def pytest_terminal_summary(terminalreporter):
    if not _timings:
        return
    tr = terminalreporter
    tr.section("time per check")
    total = 0.0
    for nodeid, (seconds, outcome) in _timings.items():
        total += seconds
        mark = {"passed": "ok"}.get(outcome, outcome)
        tr.write_line(f"{seconds:7.1f} s  {mark:<4} {nodeid.removeprefix('scripts/checks/')}")
    tr.write_line(f"{total:7.1f} s  in all")
