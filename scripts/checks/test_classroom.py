"""A classroom at once (issue 28): 30 requests sent together from one address, each on a connection
of its own and without cookies (30 new anonymous clients), for one thing nobody has asked for yet.
They must all be answered 200 with the same body, from one piece of work:

  1. a starter molecule's AR model (2XHE, model.usdz as the AR button asks for it with Surface
     chosen): 30 × 200, identical bodies, conversionsRun +1 and one `converted` log line;
  2. a thumbnail of another starter (4JSV, 1024 px, surface): the same;
  3. an archive entry the server has never seen (GET /api/archive/1ABC, the stand-in archive's
     6WG6 file, sent after 0.5 s): 30 × 200, the same molecule, archiveDownloads +1, one file sent;
  4. that entry's viewer model (model.glb as the viewer asks for it, Surface): 30 × 200, identical,
     one conversion (it needs the entry opened in 3: its fixture opens it when 3 did not run).
Each piece of work takes a few hundred milliseconds at least, and each case also checks that all 30
requests were sent before the first answer came (else a late one might just have found the result).

The figures come from GET /healthz?detail=true (with the server's --metrics-token) and the server's
log. Each case is a test whose checks print ok/FAIL lines; the server's log is kept on a failure."""
import hashlib
import os
import re
import shutil
import tempfile
import threading
import time

import pytest

from proteinar_testing import attack_tools as tools
from proteinar_testing.accounts import rid
from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.paths import FIXTURES
from proteinar_testing.report import SoftChecks
from proteinar_testing.server import ServerProcess

CLASS = 30
TOKEN = "check-classroom-" + rid("")
# What the web app asks for (Web/js/explore.js): the viewer's model, and the AR button's USDZ.
VIEWER = "style=surface&hide=water&compression=meshopt"
AR = "style=surface&hide=water&target=ar"
NEW_ENTRY = "1ABC"


def detail(server):
    r = tools.try_request(server, "GET", "/healthz?detail=true", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    return r.json if r.status == 200 and isinstance(r.json, dict) else {}


def settle(server, limit=20.0):
    """conversionsRun once it has stood still for a second (the server may still be busy after start)."""
    deadline = time.monotonic() + limit
    last = detail(server).get("conversionsRun")
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = detail(server).get("conversionsRun")
        if now == last:
            return now
        last = now
    return last


def at_once(server, path, accept="*/*"):
    """CLASS requests for `path` released together, each on its own connection, no cookies: the
    responses and the seconds from the release to the last answer."""
    gate = threading.Barrier(CLASS)
    out = [None] * CLASS
    sent, answered = [None] * CLASS, [None] * CLASS

    def one(i):
        gate.wait()
        sent[i] = time.monotonic()
        out[i] = tools.try_request(server, "GET", path, headers={"Accept": accept}, timeout=300)
        answered[i] = time.monotonic()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(CLASS)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Seconds between the last request sent and the first answer: negative when a request left late.
    margin = min(answered) - max(sent)
    return out, time.monotonic() - started, margin


def together(check, label, margin):
    check.check(f"{label}: all {CLASS} sent before the first answer came", margin > 0,
                f"the last left {-margin * 1000:.0f} ms after the first answer")


def one_conversion(check, server, label, path, molecule):
    """Case: CLASS at once for a model or thumbnail of `molecule` nobody asked for."""
    before = settle(server)
    offset = tools.log_size(server)
    responses, took, margin = at_once(server, path)
    after = detail(server).get("conversionsRun")
    lines = tools.converted_lines(server, offset, re.escape(molecule))
    bodies = {hashlib.sha256(r.raw).hexdigest() for r in responses if r.status == 200}
    size = max((len(r.raw) for r in responses if r.status == 200), default=0)
    print(f"     {label}: GET {path}: {tools.status_counts([r.status for r in responses])} in {took:.1f} s (the last sent {margin * 1000:.0f} ms before the first "
          f"answer), {len(bodies)} distinct bodies of {size:,} bytes; conversionsRun {before} → {after}; log: {lines}", flush=True)
    together(check, label, margin)
    check.check(f"{label}: {CLASS} × 200", all(r.status == 200 for r in responses),
                tools.status_counts([r.status for r in responses]) + "; " + "; ".join(f"{r.status} {tools.message(r)}" for r in responses if r.status != 200)[:300])
    check.check(f"{label}: identical bodies", len(bodies) == 1 and size > 0, f"{len(bodies)} distinct bodies")
    check.check(f"{label}: one conversion (conversionsRun +1)", before is not None and after is not None and after - before == 1,
                f"conversionsRun {before} → {after}")
    check.check(f"{label}: one `converted {molecule} …` line in the server's log", len(lines) == 1, f"{len(lines)} lines: {lines[:4]}")


def one_download(check, server, archive):
    before = detail(server)
    archive.reset_counts()
    responses, took, margin = at_once(server, f"/api/archive/{NEW_ENTRY}", accept="application/json")
    after = detail(server)
    molecules = [r.json for r in responses if r.status == 200 and isinstance(r.json, dict)]
    ids = {m.get("id") for m in molecules}
    in_library = {m.get("inLibrary") for m in molecules}
    bodies = {r.raw for r in responses if r.status == 200}
    b, a = before.get("archiveDownloads"), after.get("archiveDownloads")
    print(f"     a new archive entry: GET /api/archive/{NEW_ENTRY}: {tools.status_counts([r.status for r in responses])} in {took:.1f} s (the last sent "
          f"{margin * 1000:.0f} ms before the first answer); ids {sorted(map(str, ids))}, "
          f"inLibrary {sorted(map(str, in_library))}, {len(bodies)} distinct bodies; archiveDownloads {b} → {a}; the stand-in sent "
          f"{archive.downloads} file(s) ({archive.requests} requests)", flush=True)
    together(check, "a new archive entry", margin)
    check.check(f"a new archive entry: {CLASS} × 200", all(r.status == 200 for r in responses),
                tools.status_counts([r.status for r in responses]) + "; " + "; ".join(f"{r.status} {tools.message(r)}" for r in responses if r.status != 200)[:300])
    check.check(f"a new archive entry: the same molecule ({NEW_ENTRY}, inLibrary false) for all",
                len(molecules) == CLASS and ids == {NEW_ENTRY} and in_library == {False}, f"ids {ids}, inLibrary {in_library}")
    check.check("a new archive entry: one download (archiveDownloads +1, one file from the archive)",
                b is not None and a is not None and a - b == 1 and archive.downloads == 1,
                f"archiveDownloads {b} → {a}, the stand-in sent {archive.downloads}")


@pytest.fixture(scope="module")
def classroom(proteinar_bin):
    """One server (with --metrics-token) and the stand-in archive holding 1ABC; the server's log is
    kept (its folder printed) when a check of this module failed."""
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="proteinar-classroom-")
    archive = ArchiveStandIn({f"{NEW_ENTRY}.cif.gz": os.path.join(FIXTURES, "6WG6.cif.gz")}, {}, delay=0.5)
    server = None
    state = {"failed": False}
    try:
        server = ServerProcess(proteinar_bin, work=work, rcsb_url=archive.url, extra=["--metrics-token", TOKEN], name="check-classroom")
        print(f"{CLASS} clients at once from 127.0.0.1 (no cookies, a connection each) against {server.url} ({os.cpu_count()} cores)")
        yield server, archive, state
        peak = tools.peak_rss_mb(server.pid)
        print(f"     server peak RSS {peak:.0f} MB; {time.monotonic() - started:.0f} s in all")
    finally:
        if server:
            server.close()
        archive.close()
        if state["failed"]:
            for name in os.listdir(work):
                if name.startswith("data-"):
                    shutil.rmtree(os.path.join(work, name), ignore_errors=True)
            print(f"server log kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


@pytest.fixture
def server(classroom, checks):
    server, _, state = classroom
    yield server
    state["failed"] |= bool(checks.failures)


@pytest.fixture(scope="module")
def opened_entry(classroom):
    """The 30 clients' opening of the new archive entry, once: its checks are kept for the test
    that shows them; the viewer model's test needs the entry opened first."""
    server, archive, state = classroom
    checks = SoftChecks()
    one_download(checks, server, archive)
    state["failed"] |= bool(checks.failures)
    return checks


def test_healthz_detail_reports_conversions_and_archive_downloads(server, checks):
    first = detail(server)
    checks.check("GET /healthz?detail=true reports conversionsRun and archiveDownloads",
                 "conversionsRun" in first and "archiveDownloads" in first, f"got {sorted(first)}")


def test_a_class_asking_for_a_starters_ar_model_gets_one_conversion(server, checks):
    one_conversion(checks, server, "a starter's AR model", f"/api/molecules/2XHE/model.usdz?{AR}", "2XHE")


def test_a_class_asking_for_a_starters_thumbnail_gets_one_conversion(server, checks):
    one_conversion(checks, server, "a starter's thumbnail", "/api/molecules/4JSV/thumbnail.png?size=1024&style=surface", "4JSV")


def test_a_class_opening_a_new_archive_entry_gets_one_download(opened_entry, request):
    request.node.soft_checks = [opened_entry]


def test_a_class_asking_for_the_new_entrys_viewer_model_gets_one_conversion(opened_entry, server, checks):
    one_conversion(checks, server, "the new entry's viewer model", f"/api/molecules/{NEW_ENTRY}/model.glb?{VIEWER}", NEW_ENTRY)
