#!/usr/bin/env python3
"""A classroom on one server (issue 28): 30 and then 60 phones behind one address (127.0.0.1), plain
HTTP, each keeping its own cookies on a keep-alive connection of its own, plus headless Chromium
pages running the web app (as many as this machine carries: measured first, or BROWSERS=N). Each
phone opens an archive entry nobody opened before (GET /api/archive/ID, from a stand-in for the
RCSB on loopback), then asks for the viewer's model (model.glb?style=auto&hide=water&compression=meshopt,
what Web/js/explore.js asks for) and the AR model (model.usdz?style=auto&hide=water&target=ar, the AR
button's). A 429 or 503 is waited out (Retry-After) and asked again, as the web app does, and
counted as refused. Each page opens the app at #/explore/ID once its entry exists and waits until
the 3D view shows the model.

  case (a): everyone opens the same large entry, 4V8R (the fixture pdb4v8r_hex.pdb.gz, 128,780 atoms);
  case (b): phone i (and page i) opens entry i mod 12 of 12 fixture files served under their IDs.

Each class size runs twice: phones only, then phones and pages (the pages draw with SwiftShader on
this machine's cores, CPU a classroom's phones spend on their own; their connections count against
the server's connections per address as a phone browser's do). Every run is on a fresh server (a
fresh data folder, no starter library: nobody opened anything before), with --metrics-token for
the figures (GET /healthz?detail=true: conversionsRun, archiveDownloads). Also on fresh servers: one phone alone in case (a), one page alone (a phone opens
the entry, the page does the rest), and one phone alone in case (b) opening the 12 entries in turn.

    scripts/benchmarks/benchmark-classroom.py [PROTEINAR_BIN]
        (default $PROTEINAR_BIN, else .build/release/proteinar; CLIENTS=30,60; BROWSERS=N skips measuring
         how many pages the machine carries; Debian's chromium and chromium-driver; PROTEINAR_WEB_ROOT=Web
         serves the web app's current source)

Targets (issue 28): case (a) no request refused, and the last phone has its model within 1.5× the
time one phone alone takes; case (b) no request refused."""
import gzip
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlencode

import scripts_path  # noqa: E402,F401  (scripts/ on sys.path, for proteinar_testing)
from proteinar_testing.archive import ArchiveStandIn  # noqa: E402
from proteinar_testing.paths import FIXTURES, ROOT  # noqa: E402
from proteinar_testing.server import ServerProcess  # noqa: E402
from classroom_pages import load_app, page_visit, start_browsers  # noqa: E402

binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PROTEINAR_BIN", os.path.join(ROOT, ".build", "release", "proteinar")))
if not os.access(binary, os.X_OK):
    sys.exit(f"no proteinar binary at {binary}: build it (swift build -c release --product proteinar) or pass its path")
COUNTS = [int(x) for x in os.environ.get("CLIENTS", "30,60").split(",") if x.strip()]
MAX_PAGES = 8
TOKEN = "benchmark-classroom-" + os.urandom(6).hex()
DEADLINE = 600          # seconds a phone may take at most
VIEWER = urlencode({"style": "auto", "hide": "water", "compression": "meshopt"})
AR = urlencode({"style": "auto", "hide": "water", "target": "ar"})
LARGE = "4V8R"
# Case (b): 12 distinct files under their own IDs (uncompressed ones are gzipped for the stand-in).
TWELVE = [("1A8O", "1A8O.cif"), ("1LCD", "1LCD.cif"), ("2XHE", "2XHE.cif.gz"), ("3JQH", "3JQH.cif"), ("3KPR", "3KPR.cif.gz"),
          ("4JSV", "4JSV.pdb.gz"), ("5PTI", "5PTI.cif.gz"), ("6WG6", "6WG6.cif.gz"), ("1AKE", "mmcif_1ake_chimerax.cif"),
          ("1EJG", "pdb1ejg.pdb"), ("1UBI", "pdb1ubi.pdb"), ("7CTH", "mmcif_7cth.cif.gz")]

tmp = tempfile.mkdtemp(prefix="proteinar-classroom-")
files = {f"{LARGE}.pdb.gz": os.path.join(FIXTURES, "pdb4v8r_hex.pdb.gz")}
for entry, name in TWELVE:
    kind = "pdb" if ".pdb" in name else "cif"
    path = os.path.join(FIXTURES, name)
    if not name.endswith(".gz"):
        with open(path, "rb") as f:
            data = gzip.compress(f.read())
        path = os.path.join(tmp, f"{entry}.{kind}.gz")
        with open(path, "wb") as f:
            f.write(data)
    files[f"{entry}.{kind}.gz"] = path
archive = ArchiveStandIn(files, {})


def pct(values, p):
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    k = max(0, min(len(v) - 1, int(round(p / 100 * len(v) + 0.5)) - 1))
    return v[k]


def fmt(x, unit="s"):
    return "-" if x is None else f"{x:.1f}{unit}"


def serve(name):
    return ServerProcess(binary, work=tmp, starter=False, rcsb_url=archive.url, extra=["--metrics-token", TOKEN], name=name, timeout=60)


def detail(server):
    try:
        c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        c.request("GET", "/healthz?detail=true", headers={"Authorization": f"Bearer {TOKEN}"})
        r = c.getresponse()
        body = r.read()
        c.close()
        return json.loads(body) if r.status == 200 else {}
    except (OSError, http.client.HTTPException, ValueError):
        return {}


def peak_rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class Phone:
    """What the server sees of one phone's browser: a keep-alive connection (a new one when the server
    closes it), its own cookies, gzip accepted; a 429 or 503 waited out (Retry-After, else 1 s) and
    asked again, each counted as refused."""

    def __init__(self, port, deadline):
        self.port, self.deadline = port, deadline
        self.conn, self.cookies = None, {}
        self.served = self.refused = self.failed = self.wire = 0
        self.errors, self.refusals = [], []

    def get(self, path, accept="*/*"):
        broken = 0
        while time.time() < self.deadline:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=DEADLINE)
            headers = {"Accept": accept, "Accept-Encoding": "gzip"}
            if self.cookies:
                headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            try:
                self.conn.request("GET", path, headers=headers)
                resp = self.conn.getresponse()
                body = resp.read()
            except (OSError, http.client.HTTPException) as e:
                self.conn.close()
                self.conn = None
                broken += 1
                if broken > 3:
                    self.failed += 1
                    self.errors.append(f"GET {path}: {type(e).__name__}: {e}")
                    return None
                continue
            for line in resp.headers.get_all("Set-Cookie") or []:
                name, _, rest = line.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
            if resp.will_close:
                self.conn.close()
                self.conn = None
            if resp.status in (429, 503):
                self.refused += 1
                retry = resp.headers.get("Retry-After")
                self.refusals.append(f"GET {path}: {resp.status} Retry-After {retry}: {body[:160].decode(errors='replace')}")
                try:
                    wait = float(retry)
                except (TypeError, ValueError):
                    wait = 1.0
                time.sleep(min(max(wait, 0.1), 30.0))
                continue
            if resp.status == 200:
                self.served += 1
                self.wire += len(body)
                if (resp.getheader("Content-Encoding") or "").lower() == "gzip":
                    body = gzip.decompress(body)
                return body
            self.failed += 1
            self.errors.append(f"GET {path}: HTTP {resp.status} {body[:160].decode(errors='replace')}")
            return None
        self.failed += 1
        self.errors.append(f"GET {path}: not answered within {DEADLINE} s")
        return None

    def close(self):
        if self.conn:
            self.conn.close()


def student(port, entry, t0, opened, out, models=True):
    """One phone: opens `entry`, then (with `models`) asks for the viewer's model and the AR model.
    Times are seconds since `t0` (epoch)."""
    phone = Phone(port, t0 + DEADLINE)
    rec = {"entry": entry, "opened": None, "viewer": None, "both": None, "bytes": 0}
    try:
        body = phone.get(f"/api/archive/{entry}", accept="application/json")
        try:
            ok = body is not None and json.loads(body).get("id") == entry
        except ValueError:
            ok = False
        if body is not None and not ok:
            phone.errors.append(f"GET /api/archive/{entry}: not the entry's JSON: {body[:160]!r}")
            phone.failed += 1
    finally:
        opened[entry].set()  # the pages go on (and say what they find) whether or not it opened
    if ok:
        rec["opened"] = time.time() - t0
        if models:
            glb = phone.get(f"/api/molecules/{entry}/model.glb?{VIEWER}")
            if glb is not None:
                rec["viewer"] = time.time() - t0
                rec["bytes"] += len(glb)
                usdz = phone.get(f"/api/molecules/{entry}/model.usdz?{AR}")
                if usdz is not None:
                    rec["both"] = time.time() - t0
                    rec["bytes"] += len(usdz)
    phone.close()
    rec.update(served=phone.served, refused=phone.refused, failed=phone.failed, errors=phone.errors, refusals=phone.refusals,
               wire=phone.wire)
    out.append(rec)


# -- one run

def run(label, entries, n_clients, pages, page_entries, models=True, opener=False):
    """A fresh server; `n_clients` phones (phone i opens entries[i % len]) and the pages (page k opens
    page_entries[k]) released together. `opener`: a phone that only opens the pages' entries. The figures."""
    server = serve(label.replace(" ", "-").replace("(", "").replace(")", ""))
    if pages:
        load_app(pages, server.url, label.replace(" ", "-"))
    opened = {e: threading.Event() for e in set(entries) | set(page_entries)}
    phones, visits, threads = [], [], []
    t0 = time.time() + 0.3
    for i in range(n_clients):
        threads.append(threading.Thread(target=student, args=(server.port, entries[i % len(entries)], t0, opened, phones, models)))
    if opener:
        for e in sorted(set(page_entries)):
            threads.append(threading.Thread(target=student, args=(server.port, e, t0, opened, [], False)))
    for k, b in enumerate(pages):
        threads.append(threading.Thread(target=page_visit, args=(b, server.url, page_entries[k], t0, opened, visits, DEADLINE)))
    while time.time() < t0:
        time.sleep(0.01)
    for t in threads:
        t.start()
    for t in threads:
        t.join(DEADLINE + 60)
    wall = time.time() - t0
    d = detail(server)
    peak = peak_rss_mb(server.pid)
    server.close()
    return {"label": label, "clients": n_clients, "pages": len(pages), "phones": phones, "visits": visits, "detail": d,
            "peak": peak, "wall": wall}


def sequential(label, entries):
    """One phone alone on a fresh server, opening `entries` one after another: a record per entry,
    its times counted from its own start."""
    server = serve(label.replace(" ", "-").replace("(", "").replace(")", ""))
    recs = []
    for e in entries:
        out = []
        student(server.port, e, time.time(), {e: threading.Event()}, out)
        recs.append(out[0])
    d = detail(server)
    peak = peak_rss_mb(server.pid)
    server.close()
    return {"label": label, "clients": 1, "pages": 0, "phones": recs, "visits": [], "detail": d, "peak": peak,
            "wall": sum((r["both"] or 0) for r in recs)}


def summary(r):
    phones = r["phones"]
    served = sum(p["served"] for p in phones)
    refused = sum(p["refused"] for p in phones)
    failed = sum(p["failed"] for p in phones)
    viewer = [p["viewer"] for p in phones]
    both = [p["both"] for p in phones]
    done = sum(1 for p in phones if p["both"] is not None)
    visits = r["visits"]
    shown = [v["shown"] for v in visits]
    return {"served": served, "refused": refused, "failed": failed, "done": done,
            "viewer": (pct(viewer, 50), pct(viewer, 95), max((x for x in viewer if x is not None), default=None)),
            "both": (pct(both, 50), pct(both, 95), max((x for x in both if x is not None), default=None)),
            "pages_shown": sum(1 for x in shown if x is not None),
            "page": (pct(shown, 50), max((x for x in shown if x is not None), default=None)),
            "page_refused": sum(v["refused"] for v in visits), "page_failed": sum(1 for v in visits if v["shown"] is None)}


HEADER = (f"  {'run':<26}{'phones':>6}{'pages':>6} | {'served':>6}{'refused':>8}{'failed':>7} | "
          f"{'viewer model p50/p95/max':>25} | {'both models p50/p95/max':>24} | {'pages: model shown p50/max':>27} | "
          f"{'conv.':>5}{'downl.':>7}{'peak RSS':>10}")


def row(r):
    s = summary(r)
    d = r["detail"]
    v, b, pg = s["viewer"], s["both"], s["page"]
    pages = (f"{fmt(pg[0])}/{fmt(pg[1])} ({s['pages_shown']}/{r['pages']}" + (f", {s['page_refused']} refused" if s["page_refused"] else "") + ")"
             if r["pages"] else "-")
    return (f"  {r['label']:<26}{r['clients']:>6}{r['pages']:>6} | {s['served']:>6}{s['refused']:>8}{s['failed']:>7} | "
            f"{fmt(v[0]) + '/' + fmt(v[1]) + '/' + fmt(v[2]):>25} | {fmt(b[0]) + '/' + fmt(b[1]) + '/' + fmt(b[2]):>24} | {pages:>27} | "
            f"{str(d.get('conversionsRun', '?')):>5}{str(d.get('archiveDownloads', '?')):>7}{fmt(r['peak'], ' MB'):>10}")


def problems(r):
    """The first few refusals and failures of a run, to print under the table."""
    lines = []
    for p in r["phones"]:
        lines += p["errors"] + p["refusals"]
    for v in r["visits"]:
        if v["error"]:
            lines.append(f"page ({v['entry']}): {v['error']}")
    return lines


def measure_pages():
    """How many pages this machine carries: k pages at once (k = 1, 2, 4, 6, 8) open the cached 4V8R
    model on an idle server; the most whose slowest page shows it within 3× one page's time."""
    server = serve("pages")
    opened = {LARGE: threading.Event()}
    student(server.port, LARGE, time.time(), opened, [])  # the entry and its viewer model, made once
    pages, rounds, chosen = [], [], 1
    try:
        for k in (1, 2, 4, 6, MAX_PAGES):
            pages += start_browsers(k - len(pages))
            load_app(pages, server.url, f"measure{k}")
            visits = []
            t0 = time.time() + 0.2
            threads = [threading.Thread(target=page_visit, args=(b, server.url, LARGE, t0, opened, visits, DEADLINE)) for b in pages]
            while time.time() < t0:
                time.sleep(0.01)
            for t in threads:
                t.start()
            for t in threads:
                t.join(DEADLINE)
            times = [v["shown"] for v in visits]
            slowest = None if any(x is None for x in times) else max(times)
            rounds.append((k, slowest))
            if slowest is None or slowest > 3 * rounds[0][1] or slowest > 30:
                break
            chosen = k
    finally:
        for b in pages:
            b.close()
        server.close()
    return chosen, rounds


def main():
    started = time.time()
    chromium = subprocess.run(["chromium", "--version"], capture_output=True, text=True).stdout.strip() if shutil.which("chromium") else None
    print(f"Classroom benchmark: {binary}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M')}; "
          f"web app from {os.environ.get('PROTEINAR_WEB_ROOT') or 'the binary'}")
    print("Phones: plain HTTP from 127.0.0.1, each its own cookies and keep-alive connection, gzip; 429/503 waited out "
          "(Retry-After) and asked again, counted as refused.")
    print(f"Viewer model: model.glb?{VIEWER}; AR model: model.usdz?{AR}")
    if os.environ.get("BROWSERS"):
        n_pages, rounds = int(os.environ["BROWSERS"]), []
        print(f"Pages: {n_pages} headless Chromium pages (BROWSERS={n_pages})")
    elif chromium and shutil.which("chromedriver"):
        n_pages, rounds = measure_pages()
        print(f"Pages: {n_pages} headless Chromium pages ({chromium}, SwiftShader), the most this machine carries: "
              f"k pages at once showing the cached {LARGE} model on an idle server, slowest page: "
              + ", ".join(f"k={k} {fmt(t)}" for k, t in rounds) + " (carried: within 3× one page's time and 30 s)")
    else:
        n_pages, rounds = 0, []
        print("Pages: none (no chromium/chromedriver: install Debian's chromium and chromium-driver)")
    print(flush=True)

    results, order = {}, []
    pages = start_browsers(n_pages) if n_pages else []

    def record(key, result):
        results[key] = result
        order.append(key)
        print(row(result), flush=True)
    try:
        record("a1", run("(a) one phone alone", [LARGE], 1, [], []))
        if pages:
            record("a1page", run("(a) one page alone", [LARGE], 0, pages[:1], [LARGE], opener=True))
        for n in COUNTS:
            record(f"a{n}", run(f"(a) {n} phones", [LARGE], n, [], []))
            if pages:
                record(f"a{n}p", run(f"(a) {n} phones + {len(pages)} pages", [LARGE], n, pages, [LARGE] * len(pages)))
        record("b1", sequential("(b) one phone, 12 in turn", [e for e, _ in TWELVE]))
        for n in COUNTS:
            record(f"b{n}", run(f"(b) {n} phones", [e for e, _ in TWELVE], n, [], []))
            if pages:
                record(f"b{n}p", run(f"(b) {n} phones + {len(pages)} pages", [e for e, _ in TWELVE], n, pages,
                                     [TWELVE[k % 12][0] for k in range(len(pages))]))
    finally:
        for b in pages:
            b.close()

    print()
    print(f"Case (a): everyone opens {LARGE} (128,780 atoms, nobody opened it before), then its viewer model and AR model.")
    print(f"Case (b): phone i and page i open entry i mod 12 of {', '.join(e for e, _ in TWELVE)}, then both models.")
    print("Times: seconds from the common start until the phone has the model (viewer; both = viewer and AR) or the page shows it;")
    print("'(b) one phone, 12 in turn': per entry, from that entry's own start. served/refused/failed: the phones' HTTP answers")
    print("(refused: 429/503, each asked again after Retry-After); conv.: conversionsRun; downl.: archiveDownloads; peak RSS: VmHWM.")
    if pages:
        print(f"Each class runs twice, on fresh servers: phones only, and phones with the {len(pages)} pages. The pages draw with")
        print("SwiftShader on this machine's cores, CPU that phones spend on their own in a classroom, and their connections")
        print("count against the server's connections per address as a phone browser's do.")
    print(HEADER)
    print("  " + "-" * (len(HEADER) - 2))
    for key in order:
        print(row(results[key]))
    if results.get("a1page"):
        v = results["a1page"]["visits"]
        print(f"  (one page alone: a phone opened {LARGE} and the page asked for its model; page {fmt(v[0]['shown']) if v else '-'})")
    per_entry = {p["entry"]: p for p in results["b1"]["phones"]}
    print("  (b) one phone alone, per entry (viewer / both, s): " + ", ".join(
        f"{e} {fmt(per_entry[e]['viewer'], '')}/{fmt(per_entry[e]['both'], '')}" for e, _ in TWELVE))
    for key in order:
        lines = problems(results[key])
        if lines:
            print(f"  {results[key]['label']}: {len(lines)} refusals or failures; first: " + " | ".join(lines[:3]))

    print("\nTargets")
    verdict = lambda ok: "MET   " if ok else "MISSED"
    one = summary(results["a1"])
    for key in order:
        r = results[key]
        n = r["clients"]
        if key in ("a1", "a1page", "b1"):
            continue
        s = summary(r)
        refused = s["refused"] + s["page_refused"]
        if key.startswith("a"):
            for what, part in (("viewer model", "viewer"), ("both models", "both")):
                alone, last = one[part][2], s[part][2]
                ok = refused == 0 and s["failed"] == 0 and s["done"] == n and alone and last is not None and last <= 1.5 * alone
                ratio = f"{last / alone:.2f}×" if alone and last else "-"
                print(f"  {verdict(ok)} {r['label']}: 0 refused ({refused}) and the last phone's {what} within 1.5× one phone's: "
                      f"{fmt(last)} against {fmt(alone)} ({ratio})")
        else:
            ok = refused == 0 and s["failed"] == 0 and s["done"] == n
            print(f"  {verdict(ok)} {r['label']}: 0 refused ({refused}; failed {s['failed']}; {s['done']}/{n} phones with both models; "
                  f"last {fmt(s['both'][2])})")
    print(f"\n{time.time() - started:.0f} s in all")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the pages and servers are closed on the way out
    try:
        main()
    finally:
        archive.close()
        shutil.rmtree(tmp, ignore_errors=True)
