"""test_web_own_browsers.py's checks of opening any entry without an account (GitHub issue 28: looking is not
adding), on servers of their own with no starter library, so that every entry opened is new to them
and comes from the stand-in archive:

- with no account, Get of an entry the library lacks (1A8O) opens it through the archive
  (GET /api/archive/ID, its progress said in words) and draws it; the details say that it was opened
  from the archive and is kept a while, with a link to sign in; its AR links (the USDZ and the GLB the
  page offers) answer 200 with their content types; Keep offline keeps it on the device;
- a link to an entry the server does not hold yet (#/explore/1LCD: GET /api/molecules/1LCD is 404)
  opens it through the archive too, as a reload or the last molecule seen would;
- search, then a result, opens an entry without an account (5PTI);
- the Library lists none of them (inLibrary false); an anonymous DELETE and an anonymous upload are
  401, and the server still holds the molecule and no more molecules after;
- at phone size (390 × 844) the controls of a molecule's details are named and at least 44 px, for
  a guest and for someone signed in (with Add to the library);
- signed in, Add to the library moves the entry into the library and My molecules (read back from
  GET /api/molecules) and says so;
- a busy server, for real: a second server allows one new entry per client per minute
  (--opens-per-minute 1); the second Get is refused with 429 and Retry-After, the status line says
  "The server is busy — trying again in N s", and the page tries again by itself until it draws it;
- an entry evicted from a small archive cache (--archive-cache-mb 1, a third server) reopens, as the
  last molecule seen, through the archive; one larger than that whole cache (413) is offered to a
  guest with a link to sign in, and signed in, "Add it to the library" adds and draws it.
"""
import gzip
import os
import re
import shutil
import tempfile
import time

from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.browser import Browser, register_through_page
from .gesture_help_checks import AUDIT, MIN_TARGET_PX
from proteinar_testing.http_client import fetch, http
from proteinar_testing.paths import FIXTURES
from proteinar_testing.server import ServerProcess

PHONE = (390, 844)

# The stand-in archive's search (words in a title) and the Data API's facts.
TITLES = {
    "1A8O": ("HIV CAPSID C-TERMINAL DOMAIN", "X-RAY DIFFRACTION", 1.7, "1998-06-17"),
    "5PTI": ("STRUCTURE OF BOVINE PANCREATIC TRYPSIN INHIBITOR", "X-RAY DIFFRACTION", 1.0, "1984-04-19"),
}

# The 3D view's middle drawn (pixels not the white background): how many, once more than 2%.
DRAWN = """const c = document.getElementById('viewer'); if (!c.width) return null;
const t = document.createElement('canvas'); t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);
const d = x.getImageData(c.width * .3, c.height * .3, c.width * .4, c.height * .4).data; let n = 0;
for (let i = 0; i < d.length; i += 4) if (d[i] < 245 || d[i+1] < 245 || d[i+2] < 245) n++;
return n > d.length / 4 * 0.02 && n;"""
# A molecule shown: its name in the status line and the details' title, and the view drawn.
SHOWN = ("const s = document.getElementById('status').textContent, t = document.getElementById('details-title').textContent;"
         " return s.startsWith(arguments[0] + ':') && t.startsWith(arguments[0] + ':') && (() => {" + DRAWN + "})()")
# Everything the status line said since the page loaded.
SAID = """document.addEventListener('DOMContentLoaded', () => {
  const s = document.getElementById('status'); window.__said = [];
  new MutationObserver(() => window.__said.push(s.textContent)).observe(s, { childList: true, subtree: true, characterData: true });
});"""
STATUS = "return document.getElementById('status').textContent"
# [status, class error?] now.
ERROR = "const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent"
# A request from the page, with its cookies (the anonymous client's, or the session's): [status, body].
PAGE_FETCH = """const done = arguments[arguments.length - 1];
fetch(arguments[0], arguments[1]).then(async (r) => done([r.status, await r.text()]), (e) => done([0, String(e)]));"""


def gzipped(folder, source, name):
    """`source` (a plain file) gzipped as `name` in `folder`: the stand-in serves /download/ID.cif.gz."""
    path = os.path.join(folder, name)
    with open(source, "rb") as f, gzip.open(path, "wb") as out:
        out.write(f.read())
    return path


def library_ids(base):
    answer = http(base, "GET", "/api/molecules?limit=200")
    return sorted(m["id"] for m in (answer.json or {}).get("molecules", [])) if answer.status == 200 else f"HTTP {answer.status}"


def in_library(base, molecule):
    """[status, inLibrary] of GET /api/molecules/ID."""
    answer = http(base, "GET", f"/api/molecules/{molecule}")
    return [answer.status, (answer.json or {}).get("inLibrary")]


def check_open_any_entry(binary, check, shots, keep_csp):
    """`shots`: the folder for the screenshot (web-open-any-entry.png), or None for none;
    `keep_csp(browser)` gathers the browsers' CSP console messages."""
    folder = tempfile.mkdtemp(prefix="proteinar-open-any-")  # the stand-in archive's gzipped files
    files = {
        "1A8O.cif.gz": gzipped(folder, os.path.join(FIXTURES, "1A8O.cif"), "1A8O.cif.gz"),
        "5PTI.cif.gz": os.path.join(FIXTURES, "5PTI.cif.gz"),
        "1LCD.cif.gz": gzipped(folder, os.path.join(FIXTURES, "1LCD.cif"), "1LCD.cif.gz"),
        # Only to fill a small archive cache (check_evicted): 317 KB and 123 KB of files; and 2XHE's
        # 1.2 MB, more than that whole cache.
        "1AKE.cif.gz": gzipped(folder, os.path.join(FIXTURES, "mmcif_1ake_chimerax.cif"), "1AKE.cif.gz"),
        "1EJG.pdb.gz": gzipped(folder, os.path.join(FIXTURES, "pdb1ejg.pdb"), "1EJG.pdb.gz"),
        "2XHE.cif.gz": os.path.join(FIXTURES, "2XHE.cif.gz"),
    }
    archive = ArchiveStandIn(files, TITLES)
    server = busy = small = None
    try:
        server = ServerProcess(binary, rcsb_url=archive.url, starter=False, name="web-open-any")
        base = server.url
        check_anonymous_and_adding(base, check, shots, keep_csp)
        server.close()
        server = None

        # A busy server: one new entry per client per minute.
        busy = ServerProcess(binary, rcsb_url=archive.url, starter=False, name="web-busy", extra=["--opens-per-minute", "1"])
        check_busy(busy.url, check, keep_csp)
        busy.close()
        busy = None

        # A small archive cache (1 MB): the first entry opened leaves it once others fill it.
        small = ServerProcess(binary, rcsb_url=archive.url, starter=False, name="web-evict", extra=["--archive-cache-mb", "1"])
        check_evicted(small.url, check, keep_csp)
    except Exception as e:  # noqa: BLE001 — reported as a failed check, the run goes on
        check("the open-any-entry run finished", False, repr(e))
    finally:
        for s in (server, busy, small):
            if s: s.close()
        archive.close()
        shutil.rmtree(folder, ignore_errors=True)


def screenshot(browser, shots, name):
    if shots:
        os.makedirs(shots, exist_ok=True)
        browser.screenshot(os.path.join(shots, name))


def check_anonymous_and_adding(base, check, shots, keep_csp):
    b = Browser(width=900, height=1400)
    js, wait = b.js, b.wait
    try:
        b.before_each_page(SAID)
        b.go(base + "/#/explore")
        wait("return !document.getElementById('view-explore').hidden && window.__said", 20)
        before = library_ids(base)

        # Get of an entry the library lacks, with no account: opened through the archive and drawn.
        b.type_into("#entry-id", "1A8O\ue007")
        shown = wait(SHOWN, 120, "1A8O")
        said = js("return window.__said")
        check("no account: Get of an entry the library lacks (1A8O) opens it from the archive and draws it",
              bool(shown), str(js(STATUS)))
        check("no account: opening it asked GET /api/archive/1A8O and said its progress in words, no byte counts",
              js("return performance.getEntriesByType('resource').some(e => new URL(e.name).pathname === '/api/archive/1A8O')")
              and any(re.match(r"(Opening|Downloading|Reading|Keeping) 1A8O", t) for t in said)
              and not any(re.search(r"\d{4,} bytes", t) for t in said), str(said[:8]))
        note = wait("const n = document.querySelector('#details-library .archive-note'); return n && n.textContent", 20)
        link = js("return document.querySelector('#details-library a.sign-in-link')?.getAttribute('href')")
        check("no account: the details say it was opened from the archive and is kept a while, with a link to sign in, and offer no Add or Keep",
              bool(note and "opened from the archive" in note and "for a while" in note and link and link.startswith("#/signin/"))
              and js("return !document.querySelector('#add-to-library, #details-keep button')"), f"{note!r} {link!r}")
        # The picture: a window tall enough for the view and the details' note below it.
        b.cdp("Emulation.setDeviceMetricsOverride", {"width": 900, "height": 1700, "deviceScaleFactor": 1, "mobile": False})
        js("window.scrollTo(0, 0)")
        wait("return new Promise(r => setTimeout(() => r(true), 800))", 5)  # the view redrawn at its new size
        wait(SHOWN, 20, "1A8O")
        screenshot(b, shots, "web-open-any-entry.png")
        b.cdp("Emulation.clearDeviceMetricsOverride")

        # Its AR links: the USDZ and the GLB the page offers, as a phone would fetch them (no cookie).
        links = wait("""const u = document.querySelector('#ar-slot a[download$=".usdz"]'), g = document.querySelector('#ar-slot a[download$=".glb"]');
                        return u && g && [u.href, g.href]""", 30)
        answers = []
        for url, kind, magic in zip(links or [], ["model/vnd.usdz+zip", "model/gltf-binary"], [b"PK", b"glTF"]):
            r = fetch(url, headers={"Accept": "*/*"}, timeout=240)
            answers.append([url.split("/api/")[-1][:60], r.status, r.headers.get("Content-Type"), r.raw[:4] if r.raw else b""])
        ok = len(answers) == 2 and all(a[1] == 200 and a[2] == kind and a[3].startswith(magic)
                                       for a, kind, magic in zip(answers, ["model/vnd.usdz+zip", "model/gltf-binary"], [b"PK", b"glTF"]))
        check("no account: its AR links answer 200, a USDZ (model/vnd.usdz+zip) and a GLB (model/gltf-binary)", ok, str(answers))

        # Keep offline works for an entry kept from the archive as for one of the library.
        if js("return !!document.querySelector('#details-offline button.keep-offline')"):
            b.click("#details-offline button.keep-offline")
            kept = wait("const s = document.getElementById('status').textContent; return /1A8O is kept on this device/.test(s) && s", 120)
            check("no account: Keep offline keeps an entry opened from the archive on the device", bool(kept), str(js(STATUS)))

        # A link to an entry the server does not hold (404 at /api/molecules/1LCD) opens it from the
        # archive, as a reload or the last molecule seen would once the server's cache let it go.
        first = in_library(base, "1LCD")
        b.go(base + "/#/explore/1LCD")
        shown = wait(SHOWN, 120, "1LCD")
        check("a link to an entry the server does not hold yet (#/explore/1LCD, a 404 first) opens it from the archive and draws it",
              first[0] == 404 and bool(shown), f"{first} {js(STATUS)!r}")

        # Search, then a result: opened without an account.
        b.type_into("#search-words", "trypsin\ue007")
        result = wait("return document.querySelector(\"#search-results button[aria-label^='Open 5PTI']\") && true", 30)
        if result: b.click("#search-results button[aria-label^='Open 5PTI']")
        shown = wait(SHOWN, 120, "5PTI")
        check("no account: search, then a result (5PTI), opens the entry and draws it", bool(result and shown), str(js(STATUS)))

        # What the server holds now: none of them in the Library; each one's inLibrary false.
        after = library_ids(base)
        flags = {m: in_library(base, m) for m in ["1A8O", "5PTI", "1LCD"]}
        check("the Library lists none of the entries opened without an account, and each says inLibrary false",
              after == before and all(f == [200, False] for f in flags.values()), f"{before} -> {after} {flags}")

        # An anonymous DELETE and an anonymous upload, from the page (its anonymous client cookie): 401, nothing changed.
        deleted = b.js_async(PAGE_FETCH, "/api/molecules/1A8O", {"method": "DELETE", "headers": {"Accept": "application/json"}})
        with open(os.path.join(FIXTURES, "benzene.xyz")) as f: xyz = f.read()
        uploaded = b.js_async(PAGE_FETCH, "/api/molecules?name=benzene.xyz",
                              {"method": "POST", "headers": {"Content-Type": "application/octet-stream", "Accept": "application/json"}, "body": xyz})
        still = in_library(base, "1A8O")
        check("no account: DELETE of a molecule and an upload (application/octet-stream) are 401; the molecule is still there and nothing was added",
              deleted[0] == 401 and uploaded[0] == 401 and still == [200, False] and library_ids(base) == before,
              f"DELETE {deleted[0]} {deleted[1][:120]} / upload {uploaded[0]} {uploaded[1][:120]} / after: {still} {library_ids(base)}")

        # Phone size: the details' controls, a guest's (the archive note) then with Add to the library.
        b.cdp("Emulation.setDeviceMetricsOverride", {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True})
        b.go(base + "/#/explore/1A8O")
        wait(SHOWN, 120, "1A8O")
        wait("return !!document.querySelector('#details-library .archive-note')", 20)
        guest = js(AUDIT, MIN_TARGET_PX, PHONE[0])

        # Signed in (registered through the page's own sign-in, back to the molecule): Add to the library.
        email = register_through_page(b, base, "Ada", back="#/explore/1A8O")
        button = wait("const a = document.getElementById('add-to-library'); return a && !a.disabled && a.textContent", 60)
        signed = js(AUDIT, MIN_TARGET_PX, PHONE[0])
        small = {k: v["small"] for k, v in {"guest": guest, "signed in": signed}.items() if v["small"] or v["unnamed"] or v["wide"]}
        check(f"phone: a molecule opened from the archive, for a guest and signed in (Add to the library), has every control named and at least {MIN_TARGET_PX} px",
              bool(button) and guest["count"] > 10 and signed["count"] > 10 and small == {} and js("return !!document.getElementById('add-to-library')"),
              f"{button!r} {small} {[v.get('unnamed') for v in (guest, signed)]}")
        b.cdp("Emulation.clearDeviceMetricsOverride")
        if button: b.click("#add-to-library")
        added = wait("const s = document.getElementById('status').textContent; return /Added 1A8O to the library and to My molecules/.test(s) && s", 120)
        kept = wait("const k = document.querySelector('#details-keep button.keep'); return k && k.getAttribute('aria-pressed') === 'true' && !document.getElementById('add-to-library')", 30)
        mine = b.js_async(PAGE_FETCH, "/api/molecules?mine=true&limit=50", {"headers": {"Accept": "application/json"}})
        mine_ids = re.findall(r'"id"\s*:\s*"([^"]+)"', mine[1]) if mine[0] == 200 else mine
        listed = library_ids(base)
        check("signed in, Add to the library moves the entry into the library and My molecules, and says so",
              bool(email and added and kept) and "1A8O" in listed and in_library(base, "1A8O") == [200, True]
              and isinstance(mine_ids, list) and "1A8O" in mine_ids and "5PTI" not in listed,
              f"{email} {added!r} {kept} library {listed} mine {mine_ids}")
    finally:
        keep_csp(b)
        b.close()


def check_busy(base, check, keep_csp):
    """--opens-per-minute 1: the second new entry of this browser in a minute is refused (429, Retry-After)."""
    b = Browser(width=900, height=1000)
    js, wait = b.js, b.wait
    try:
        b.before_each_page(SAID)
        b.go(base + "/#/explore")
        wait("return !document.getElementById('view-explore').hidden", 20)
        b.type_into("#entry-id", "1A8O\ue007")
        first = wait(SHOWN, 120, "1A8O")
        js("document.getElementById('entry-id').value = ''")
        started = time.monotonic()
        b.type_into("#entry-id", "5PTI\ue007")
        busy = wait("const s = document.getElementById('status'); return s.dataset.busy !== undefined"
                    " && s.querySelector('.busy-countdown')?.textContent", 30)
        # The refusal itself, as the server gives it to this browser's client (its cookie): the progress
        # stream's error event with status 429 and retryAfter (a plain request gets HTTP 429 and Retry-After).
        refusal = b.js_async(PAGE_FETCH, "/api/archive/5PTI", {"headers": {"Accept": "text/event-stream"}})
        check("a busy server (--opens-per-minute 1): the second new entry is refused (429 with retryAfter), and the status line says the wait in words",
              bool(first and busy and re.fullmatch(r"The server is busy — trying again in \d+ s", busy))
              and '"status":429' in refusal[1].replace(" ", "") and "retryAfter" in refusal[1],
              f"{first} {busy!r} {refusal} {js(STATUS)!r}")
        shown = wait(SHOWN, 150, "5PTI")
        tries = js("return performance.getEntriesByType('resource').filter(e => new URL(e.name).pathname === '/api/archive/5PTI').map(e => e.responseStatus)")
        check("a busy server: the page tries again by itself after Retry-After and then draws the entry",
              bool(shown) and len(tries or []) >= 3,  # the page's first, the check's own above, and at least one more
              f"after {time.monotonic() - started:.0f} s: {tries} {js(STATUS)!r}")
    finally:
        keep_csp(b)
        b.close()


def check_evicted(base, check, keep_csp):
    """--archive-cache-mb 1: 1A8O, opened first and shown last in the browser, leaves the cache once
    other entries (opened by other clients) fill it; the app opened at its bare address offers
    "Continue with 1A8O", the last molecule seen, which reopens it through the archive."""
    b = Browser(width=900, height=1000)
    wait = b.wait
    try:
        b.go(base + "/#/explore/1A8O")
        first = wait(SHOWN, 120, "1A8O")
        others = {e: http(base, "GET", f"/api/archive/{e}", timeout=120).status for e in ["1LCD", "1AKE", "5PTI", "1EJG"]}
        gone = in_library(base, "1A8O")
        b.go(base + "/")
        offered = wait("const a = document.getElementById('landing-continue-link'); return !document.getElementById('landing-continue').hidden && a.textContent", 20)
        b.click("#landing-continue-link")
        back = offered == "Continue with 1A8O" and wait("return location.hash === '#/explore/1A8O' && (() => { " + SHOWN + " })()", 120, "1A8O")
        asked = b.js("return performance.getEntriesByType('resource').map(e => new URL(e.name).pathname).filter(p => /^\\/api\\/(archive|molecules)\\/1A8O$/.test(p))")
        check("an entry the server's cache let go (1A8O: 404 again) reopens from the start page's Continue with 1A8O, through the archive, and is drawn",
              bool(first) and gone[0] == 404 and bool(back) and "/api/archive/1A8O" in (asked or []),
              f"first {bool(first)}, others {others}, then {gone}, back {bool(back)}, asked {asked}, status {b.js(STATUS)!r}")

        # An entry larger than the whole cache (413): a guest is told, with a link to sign in; signed
        # in, the message offers to add it to the library, which opens it.
        b.js("document.getElementById('entry-id').value = ''")
        b.type_into("#entry-id", "2XHE\ue007")
        told = wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.querySelector('a.sign-in-link') && s.textContent", 60)
        register_through_page(b, base, "Max", back="#/explore")
        b.js("document.getElementById('entry-id').value = ''")
        b.type_into("#entry-id", "2XHE\ue007")
        offered = wait("const a = document.getElementById('add-big-to-library'); return a && document.getElementById('status').textContent", 60)
        if offered: b.click("#add-big-to-library")
        shown = wait(SHOWN, 180, "2XHE")
        check("an entry larger than the archive cache (413): a guest is told with a link to sign in; signed in, Add it to the library adds and draws it",
              bool(told and "2XHE" in told and offered and shown) and in_library(base, "2XHE") == [200, True],
              f"{told!r} {offered!r} {bool(shown)} {in_library(base, '2XHE')} {b.js(STATUS)!r}")
    finally:
        keep_csp(b)
        b.close()
