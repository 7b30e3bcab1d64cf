#!/usr/bin/env python3
"""Time to AR over a phone's network (issue 15): the models a phone downloads, and the web app's
first frame in headless Chromium, across an emulated 4G or 3G link between two network namespaces.

    scripts/benchmarks/benchmark-phone-network.py --server landed=/path/to/proteinar \\
        [--server new=.build/release/proteinar --query new=target=ar] [--profile 4G --profile 3G] \\
        [--quick] [--no-browser] [--no-reference] [--json FILE]

Needs root (ip netns, /dev/net/tun), curl, Debian's chromium and chromium-driver (for the browser
part), gltfpack and the usd-core venv .venv-usd (for the reference sizes; skipped when missing).

The link. A `proteinar-bench-srv` and a `proteinar-bench-cli` namespace, 10.77.0.1 and 10.77.0.2,
joined by a user-space link emulator (scripts/proteinar_testing/link_emulator.py): one TUN device in
each namespace and a process that passes every IP packet across, one queue per direction: a packet
waits for the link to be free, takes len*8/rate on it, then travels the one-way delay (RTT/2), as
`tc netem delay D rate R` does. The kernels these benchmarks run on may lack sch_netem (it is not
built into the 2-core machine's kernel), so the script does not depend on it. Its queue holds up to
--queue-limit packets (default 10,000, so nothing is dropped); what was dropped and how late the
emulator delivered against its own schedule are printed with the figures.
  4G: 20 Mbit/s down (server to phone), 5 Mbit/s up, 60 ms RTT.
  3G: 1.6 Mbit/s down, 0.75 Mbit/s up, 300 ms RTT.
  (--profile NAME=DOWN/UP/RTT, in Mbit/s and ms, adds another.)

Per profile and server, two fresh servers (`BIN serve` in the server namespace, each on a new data
folder, so its SQLite library holds only the starter molecules and nothing is converted yet):

  1. curl from the phone's namespace, as a browser would ask (Accept-Encoding: gzip; each request on
     a new connection): the viewer's GLB, then the USDZ that AR Quick Look opens, each "cold" (first
     request since the server started: the server converts) then "cached" (the same URL again).
     Bytes on the wire are the body as sent (gzip when the server compresses). With --query
     LABEL=QS that server's AR models get QS too: the USDZ URL, and an extra "glb-ar" row (the GLB
     Scene Viewer opens); the in-page viewer's GLB stays as the app asks for it.
  2. headless Chromium in the phone's namespace (a 412x915 viewport, device pixel ratio 1, browser
     cache off so every visit loads the page and the model over the link), opening
     http://10.77.0.1:PORT/#/explore/ID twice: cold (the server converts during the app's progress
     request) and cached. Timed from navigation start to the first frame that shows the molecule
     (the viewer's `viewer-frame` event once #viewer-empty is hidden, as benchmark-web.py does), split
     with the Resource Timing API into the page's own files (DOMContentLoaded), the model being ready
     (end of the progress stream), the GLB's last byte, and what follows (parse, upload, first frame;
     with SwiftShader, i.e. software GL on the CPU, this is slow on a 2-core machine).

Molecules: 1AKE and 2XHE (starter library), the 7CTH assembly (starter 7CTH, `assembly=1`), and 4V8R
(not a starter: uploaded before the clock starts, through the API with the first account, which is
the library's administrator, from the repository's Tests/Fixtures/structures/pdb4v8r_hex.pdb.gz; its
library id is `upload-…`). The web app offers no assembly choice, so the browser opens 7CTH as the
app shows it (the asymmetric unit).

The model URLs are the web app's own (Web/js/explore.js, api.js, app.js): with Explore's default
controls, /api/molecules/ID/model.glb?style=auto&hide=water for the viewer (and Scene Viewer), and
the same query on model.usdz for AR Quick Look.

Reference sizes (first profile only, from the cached bodies): the GLB packed with `gltfpack -cc`, and
the USDZ's root layer exported as binary USD (usdc) with usd-core's Sdf.Layer.Export; each also
gzip -9.

--quick: 4G and 2XHE only. --web-root LABEL=DIR serves that server's web app from DIR.
"""
import argparse
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(SCRIPTS)
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "structures")
USD_PYTHON = os.path.join(ROOT, ".venv-usd", "bin", "python")

import scripts_path  # noqa: E402,F401  (scripts/ on sys.path, for proteinar_testing)
from proteinar_testing.link_emulator import (IP_SERVER, NS_CLIENT, NS_SERVER, PROFILES, Link, describe,  # noqa: E402
                                             make_namespaces, remove_namespaces)
from proteinar_testing.phone_browser import run_browser  # noqa: E402

# Explore's default controls (Web/index.html: style Automatic, colour Automatic, Hide water on,
# Hide ligands off), as explore.js modelOptions() turns them into the model's query.
APP_QUERY = "style=auto&hide=water"
# label, library id (None: the uploaded 4V8R), extra model query, id the browser opens (None: skip)
MOLECULES = [("1AKE", "1AKE", "", "1AKE"), ("2XHE", "2XHE", "", "2XHE"),
             ("7CTH-asm1", "7CTH", "assembly=1", "7CTH"), ("4V8R", None, "", None)]
UPLOAD_4V8R = os.path.join(FIXTURES, "pdb4v8r_hex.pdb.gz")
LISTENING = re.compile(rb"listening on https?://[^\s]*:(\d+)")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def run(*args, check=True, **kw):
    return subprocess.run(list(args), check=check, **kw)


# ---------------------------------------------------------------------------------------------
# Servers in the server namespace.

class Server:
    def __init__(self, label, binary, work, web_root=None):
        self.label, self.binary = label, binary
        self.data = tempfile.mkdtemp(prefix=f"data-{label}-", dir=work)
        self.log_path = self.data + ".log"
        args = ["ip", "netns", "exec", NS_SERVER, binary, "serve", "--port", "0", "--host", "0.0.0.0", "--data-dir", self.data]
        if web_root: args += ["--web-root", web_root]
        with open(self.log_path, "wb") as f:
            self.proc = subprocess.Popen(args, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.time() + 60
        while True:
            with open(self.log_path, "rb") as f:
                m = LISTENING.search(f.read())
            if m: break
            if self.proc.poll() is not None or time.time() > deadline:
                self.stop()
                raise RuntimeError(f"{label}: server did not start; log:\n{open(self.log_path, errors='replace').read()[-2000:]}")
            time.sleep(0.1)
        self.port = int(m.group(1))
        self.local = f"http://127.0.0.1:{self.port}"       # from inside the server namespace
        self.base = f"http://{IP_SERVER}:{self.port}"      # from the phone

    def curl_local(self, *args):
        r = run("ip", "netns", "exec", NS_SERVER, "curl", "-s", "--max-time", "120", *args, capture_output=True)
        return r.stdout

    def add_4v8r(self, path):
        """The first account (the library's administrator) uploads 4V8R; returns its library id."""
        reg = json.loads(self.curl_local("-X", "POST", "-H", "Content-Type: application/json", "--data-binary",
                                         json.dumps({"email": "bench@example.org", "password": "correct horse battery",
                                                     "name": "Bench", "kind": "token"}), self.local + "/api/accounts"))
        token = reg.get("token")
        if not token:
            raise RuntimeError(f"registering gave {reg}")
        kind = "application/gzip" if path.endswith(".gz") else "chemical/x-pdb"
        name = "4V8R.pdb.gz" if path.endswith(".gz") else "4V8R.pdb"
        body = self.curl_local("-X", "POST", "-H", f"Authorization: Bearer {token}", "-H", f"Content-Type: {kind}",
                               "--data-binary", "@" + path, f"{self.local}/api/molecules?name={name}")
        rec = json.loads(body)
        if "id" not in rec:
            raise RuntimeError(f"upload gave {rec}")
        return rec["id"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try: self.proc.wait(10)
            except subprocess.TimeoutExpired: self.proc.kill(); self.proc.wait()


# ---------------------------------------------------------------------------------------------
# curl from the phone's namespace.

CURL_FORMAT = ('{"code":%{http_code},"size":%{size_download},"header":%{size_header},"connect":%{time_connect},'
               '"ttfb":%{time_starttransfer},"total":%{time_total}}')


def fetch(url, out, hdr):
    r = run("ip", "netns", "exec", NS_CLIENT, "curl", "-s", "--max-time", "900", "-H", "Accept-Encoding: gzip",
            "-o", out, "-D", hdr, "-w", CURL_FORMAT, url, capture_output=True, text=True, check=False)
    try:
        m = json.loads(r.stdout)
    except ValueError:
        return {"error": f"curl exit {r.returncode}: {r.stderr.strip()[:200]}"}
    headers = open(hdr, errors="replace").read().lower() if os.path.exists(hdr) else ""
    m["gzip"] = "content-encoding: gzip" in headers
    if m["code"] != 200:
        m["error"] = open(out, errors="replace").read()[:300] if os.path.exists(out) else f"HTTP {m['code']}"
    elif os.path.exists(out):
        with open(out, "rb") as f:
            data = f.read()
        m["raw"] = len(gzip.decompress(data)) if m["gzip"] else len(data)
    return m


def model_urls(server, mol_id, mol_query, extra, viewer_extra=""):
    """[(model, url)]: the viewer's GLB (with the server's --viewer-query), the AR Quick Look USDZ,
    and with an extra query, Scene Viewer's GLB."""
    q = "&".join(x for x in (APP_QUERY, mol_query) if x)
    qa = "&".join(x for x in (q, extra) if x)
    qv = "&".join(x for x in (q, viewer_extra) if x)
    path = f"{server.base}/api/molecules/{mol_id}"
    urls = [("glb", f"{path}/model.glb?{qv}"), ("usdz", f"{path}/model.usdz?{qa}")]
    if extra: urls.append(("glb-ar", f"{path}/model.glb?{qa}"))
    return urls


# ---------------------------------------------------------------------------------------------
# Reference sizes.

def gzip9(path):
    with open(path, "rb") as f:
        return len(gzip.compress(f.read(), 9))


def gltfpack_sizes(glb, work):
    if not shutil.which("gltfpack"):
        return {"error": "gltfpack not installed"}
    out = os.path.join(work, "packed.glb")
    t = time.perf_counter()
    r = run("gltfpack", "-i", glb, "-o", out, "-cc", capture_output=True, text=True, check=False)
    if r.returncode or not os.path.exists(out):
        return {"error": (r.stderr or r.stdout).strip()[-200:]}
    return {"bytes": os.path.getsize(out), "gzip9": gzip9(out), "seconds": time.perf_counter() - t}


USD_EXPORT = r"""
import json, os, sys, zipfile
from pxr import Sdf
usdz, out = sys.argv[1], sys.argv[2]
root = zipfile.ZipFile(usdz).namelist()[0]
layer = Sdf.Layer.FindOrOpen(usdz)
if layer is None: sys.exit("cannot open " + usdz)
if not layer.Export(out): sys.exit("export failed")
print(json.dumps({"root": root, "bytes": os.path.getsize(out)}))
"""


def usdc_sizes(usdz, work):
    if not os.path.exists(USD_PYTHON):
        return {"error": "no .venv-usd (usd-core)"}
    out = os.path.join(work, "root.usdc")
    r = run(USD_PYTHON, "-c", USD_EXPORT, usdz, out, capture_output=True, text=True, check=False)
    if r.returncode:
        return {"error": (r.stderr or r.stdout).strip()[-200:]}
    d = json.loads(r.stdout)
    d["gzip9"] = gzip9(out)
    return d


def reference(glb_gz, usdz_gz, work):
    """Sizes of the server's GLB and USDZ (bodies as saved by curl, gzip or not) and of their repacks."""
    ref = {}
    for kind, path in (("glb", glb_gz), ("usdz", usdz_gz)):
        if not path or not os.path.exists(path):
            continue
        plain = os.path.join(work, f"model.{kind}")
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        with open(plain, "wb") as f:
            f.write(data)
        ref[kind] = {"bytes": len(data), "gzip9": len(gzip.compress(data, 9))}
        if kind == "glb":
            ref["gltfpack"] = gltfpack_sizes(plain, work)
        else:
            ref["usdc"] = usdc_sizes(plain, work)
        os.remove(plain)
    return ref


# ---------------------------------------------------------------------------------------------
# The run.

def mb(n):
    return f"{n / 1e6:.2f}" if isinstance(n, (int, float)) else "-"


def sec(x):
    return f"{x:.2f}" if isinstance(x, (int, float)) else "-"


def parse_args(argv):
    # --query-LABEL QS is taken as --query LABEL=QS.
    fixed = []
    i = 0
    while i < len(argv):
        a = argv[i]
        m = re.match(r"--query-([A-Za-z0-9_.-]+)(?:=(.*))?$", a)
        if m:
            value = m.group(2) if m.group(2) is not None else argv[i + 1]
            i += 0 if m.group(2) is not None else 1
            fixed += ["--query", f"{m.group(1)}={value}"]
        else:
            fixed.append(a)
        i += 1
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", action="append", required=True, metavar="LABEL=BIN", help="a proteinar binary to serve (repeatable)")
    p.add_argument("--profile", action="append", metavar="NAME[=DOWN/UP/RTT]", help="4G, 3G, or NAME=Mbit/Mbit/ms (repeatable; default 4G and 3G)")
    p.add_argument("--query", action="append", default=[], metavar="LABEL=QS", help="extra query for that server's AR models (also --query-LABEL QS)")
    p.add_argument("--viewer-query", action="append", default=[], metavar="LABEL=QS",
                   help="extra query for that server's viewer GLB, as its web app asks (e.g. new=compression=meshopt)")
    p.add_argument("--web-root", action="append", default=[], metavar="LABEL=DIR", help="serve that server's web app from DIR")
    p.add_argument("--molecule", action="append", help="only these (1AKE, 2XHE, 7CTH-asm1, 4V8R)")
    p.add_argument("--structure-4v8r", default=UPLOAD_4V8R, help="the 4V8R file to upload (default: the repository's fixture)")
    p.add_argument("--quick", action="store_true", help="4G and 2XHE only")
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--no-reference", action="store_true")
    p.add_argument("--queue-limit", type=int, default=10000, help="packets the emulated link queues per direction")
    p.add_argument("--viewport", default="412x915")
    p.add_argument("--json", metavar="FILE")
    a = p.parse_args(fixed)
    def pairs(items, what):
        d = {}
        for s in items:
            if "=" not in s: p.error(f"{what}: expected LABEL=VALUE, got {s!r}")
            k, v = s.split("=", 1)
            d[k] = v
        return d
    a.servers = list(pairs(a.server, "--server").items())
    a.queries = pairs(a.query, "--query")
    a.viewer_queries = pairs(a.viewer_query, "--viewer-query")
    a.web_roots = pairs(a.web_root, "--web-root")
    profiles = a.profile or (["4G"] if a.quick else ["4G", "3G"])
    a.profiles = []
    for s in profiles:
        if "=" in s:
            name, spec = s.split("=", 1)
            down, up, rtt = (float(x) for x in spec.split("/"))
        elif s in PROFILES:
            name, (down, up, rtt) = s, PROFILES[s]
        else:
            p.error(f"unknown profile {s!r}: 4G, 3G or NAME=DOWN/UP/RTT")
        a.profiles.append((name, down, up, rtt))
    wanted = a.molecule or (["2XHE"] if a.quick else [m[0] for m in MOLECULES])
    a.molecules = [m for m in MOLECULES if m[0] in wanted]
    for label, binary in a.servers:
        if not os.access(binary, os.X_OK): p.error(f"{label}: {binary} is not an executable")
    w, h = a.viewport.split("x")
    a.viewport_wh = (int(w), int(h))
    return a


def main():
    args = parse_args(sys.argv[1:])
    if os.geteuid() != 0:
        sys.exit("needs root: network namespaces and TUN devices")
    for tool in ("ip", "curl") + (() if args.no_browser else ("chromium", "chromedriver")):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.time()
    work = tempfile.mkdtemp(prefix="proteinar-phone-net-")
    results = {"date": time.strftime("%Y-%m-%d %H:%M"), "servers": dict(args.servers), "queries": args.queries,
               "profiles": {n: {"down_mbit": d, "up_mbit": u, "rtt_ms": r} for n, d, u, r in args.profiles},
               "models": [], "browser": [], "reference": [], "link": {}, "notes": []}
    link = None
    servers = []
    try:
        make_namespaces()
        for pi, (pname, down, up, rtt) in enumerate(args.profiles):
            log(f"== {pname}: {down} Mbit/s down, {up} Mbit/s up, {rtt:.0f} ms RTT")
            link = Link(down, up, rtt, args.queue_limit)
            for label, binary in args.servers:
                extra = args.queries.get(label, "")
                # 1. models with curl, on a fresh server
                srv = Server(label, binary, work, args.web_roots.get(label)); servers.append(srv)
                ids = {}
                for mlabel, mol_id, mquery, _ in args.molecules:
                    if mol_id is None:
                        try:
                            ids[mlabel] = srv.add_4v8r(args.structure_4v8r)
                        except Exception as e:  # noqa: BLE001 — reported, the others go on
                            note = f"{label}: 4V8R could not be added: {e}"
                            log("   " + note); results["notes"].append(note)
                            continue
                    else:
                        ids[mlabel] = mol_id
                    saved = {}
                    for model, url in model_urls(srv, ids[mlabel], mquery, extra, args.viewer_queries.get(label, "")):
                        for state in ("cold", "cached"):
                            out = os.path.join(work, f"{pname}-{label}-{mlabel}-{model}-{state}.body")
                            m = fetch(url, out, out + ".hdr")
                            m.update({"profile": pname, "server": label, "molecule": mlabel, "model": model, "state": state,
                                      "url": url.replace(srv.base, "")})
                            results["models"].append(m)
                            log(f"   {label} {mlabel} {model} {state}: " + (m.get("error") or
                                f"{mb(m['size'])} MB in {m['total']:.2f} s"))
                            if state == "cached" and "error" not in m: saved[model] = out
                            elif state == "cold" and os.path.exists(out): os.remove(out)
                    if pi == 0 and not args.no_reference:
                        ref = reference(saved.get("glb"), saved.get("usdz"), work)
                        ref.update({"server": label, "molecule": mlabel})
                        results["reference"].append(ref)
                    for f in saved.values():
                        if os.path.exists(f): os.remove(f)
                srv.stop()
                # 2. the web app in Chromium, on another fresh server
                if not args.no_browser:
                    srv = Server(label, binary, work, args.web_roots.get(label)); servers.append(srv)
                    bmols = []
                    for mlabel, mol_id, _, browse_id in args.molecules:
                        if mol_id is None:
                            try: bmols.append((mlabel, srv.add_4v8r(args.structure_4v8r)))
                            except Exception as e:  # noqa: BLE001
                                results["notes"].append(f"{label}: 4V8R could not be added for the browser: {e}")
                        elif browse_id:
                            bmols.append((browse_id, browse_id))
                    timeout = 120 + int(60 * 1.6 / down * 4)
                    for rec in run_browser(srv.base, bmols, args.viewport_wh, timeout):
                        rec.update({"profile": pname, "server": label})
                        results["browser"].append(rec)
                    srv.stop()
            results["link"][pname] = link.stop()
            link = None
    finally:
        for s in servers:
            try: s.stop()
            except Exception: pass  # noqa: BLE001
        if link: link.stop()
        remove_namespaces()
    results["seconds"] = time.time() - started
    shutil.rmtree(work, ignore_errors=True)
    report(results, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def table(caption, head, rows):
    """A blank line, the caption, the column heads underlined, then one line per row."""
    print()
    for line in caption:
        print(line)
    print(head); print("-" * len(head))
    for row in rows:
        print(row)


def model_row(m):
    where = f"{m['profile']:7} {m['server']:8} {m['molecule']:10} {m['model']:6} {m['state']:6} | "
    if "error" in m:
        return where + f"error: {m['error'][:80]}"
    return where + (f"{mb(m['size']):>8} {'yes' if m['gzip'] else 'no':>4} {mb(m.get('raw')):>7} | "
                    f"{sec(m['ttfb']):>7} {sec(m['total']):>11}")


def browser_row(b):
    mol = b["molecule"] if b["molecule"] != "4V8R" else f"4V8R ({b['id']})"
    if b["molecule"] == "7CTH": mol = "7CTH (asym. unit)"
    where = f"{b['profile']:7} {b['server']:8} {mol:28} {b['visit']:6} | "
    if "error" in b:
        return where + f"error: {b['error'][:80]}"
    s = lambda k: (b.get(k) or 0) / 1000  # noqa: E731
    after = s("first_frame") - s("glb_end") if b.get("glb_end") else None
    net = 100 * s("glb_end") / s("first_frame") if b.get("glb_end") else None
    wait = s("glb_ttfb") - s("glb_start") if b.get("glb_ttfb") else None
    return where + (f"{sec(s('dcl')):>5} {sec(s('prepared') if b.get('prepared') else None):>6} "
                    f"{sec(s('glb_end') if b.get('glb_end') else None):>6} {sec(s('first_frame')):>6} | "
                    f"{(f'{net:.0f}' if net is not None else '-'):>5} {sec(wait):>5} {sec(after):>6} {b['draw'] / 1000:5.2f} | "
                    f"{mb(b.get('glb_transfer')):>11} {b['page_transfer'] / 1000:7.0f}")


def reference_row(x):
    g, gp, u, uc = x.get("glb", {}), x.get("gltfpack", {}), x.get("usdz", {}), x.get("usdc", {})
    return (f"{x['server']:8} {x['molecule']:10} | {mb(g.get('bytes')):>6} {mb(g.get('gzip9')):>6} {mb(gp.get('bytes')):>7} "
            f"{mb(gp.get('gzip9')):>6} | {mb(u.get('bytes')):>6} {mb(u.get('gzip9')):>6} {mb(uc.get('bytes')):>6} "
            f"{mb(uc.get('gzip9')):>6}  {uc.get('root', uc.get('error', gp.get('error', '')))}")


def report(r, args):
    print(f"Time to AR over an emulated phone link ({r['date']}, {os.cpu_count()} CPUs; run took {r['seconds']:.0f} s)")
    for label, binary in args.servers:
        q = r["queries"].get(label)
        print(f"  server {label}: {binary}" + (f"  (AR models with ?{q})" if q else ""))
    for name, p in r["profiles"].items():
        print(f"  {name}: {p['down_mbit']:g} Mbit/s down, {p['up_mbit']:g} Mbit/s up, {p['rtt_ms']:g} ms RTT (user-space emulator, TUN)")
    table(["Models over the link (curl in the phone's namespace, Accept-Encoding: gzip, a new connection each;",
           "wire = body bytes as sent; raw = the model itself; TTFB and last byte in seconds from the request)"],
          f"{'profile':7} {'server':8} {'molecule':10} {'model':6} {'state':6} | {'wire MB':>8} {'gzip':>4} {'raw MB':>7} | {'TTFB s':>7} {'last byte s':>11}",
          map(model_row, r["models"]))
    if r["browser"]:
        table(["The web app in headless Chromium (phone's namespace, %dx%d, DPR 1, browser cache off; seconds from navigation start)"
               % tuple(args.viewport_wh),
               "page: DOMContentLoaded (the app's own files); ready: the model built (progress stream ends); GLB: its last byte;",
               "frame: first frame showing the molecule; net %: GLB / frame; wait: the GLB's time to first byte (the server gzips a",
               "model the first time it sends it); after: frame - GLB (parse, upload, draw in SwiftShader); draw: that frame alone"],
              f"{'profile':7} {'server':8} {'molecule':28} {'visit':6} | {'page':>5} {'ready':>6} {'GLB':>6} {'frame':>6} | "
              f"{'net %':>5} {'wait':>5} {'after':>6} {'draw':>5} | {'GLB wire MB':>11} {'page KB':>7}",
              map(browser_row, r["browser"]))
    if r["reference"]:
        table(["Reference sizes (MB) of the cached models: the server's GLB and USDZ as they are and gzip -9;",
               "gltfpack -cc of the GLB (meshopt compression); the USDZ's root layer exported as usdc by usd-core"],
              f"{'server':8} {'molecule':10} | {'GLB':>6} {'gz-9':>6} {'packed':>7} {'gz-9':>6} | {'USDZ':>6} {'gz-9':>6} "
              f"{'usdc':>6} {'gz-9':>6}  root layer",
              map(reference_row, r["reference"]))
    print()
    for name, st in r["link"].items():
        if not st: continue
        print(f"link {name}: " + describe(st))
    for n in r["notes"]:
        print("note:", n)


if __name__ == "__main__":
    main()
