"""The web app's first frame in headless Chromium on the emulated phone (benchmark-phone-network.py):
run_browser() starts this module in the phone's network namespace (link_emulator.NS_CLIENT), where
measure() opens http://SERVER/#/explore/ID twice per molecule, cold then cached, with the browser cache
off, and times from navigation start to the first frame that shows the molecule (the viewer's
`viewer-frame` event once #viewer-empty is hidden), split with the Resource Timing API into the page's
own files, the model being ready, the GLB's last byte and what follows. Each visit is one JSON line on
stdout."""
import json
import os
import subprocess
import sys

from proteinar_testing.browser import Browser
from proteinar_testing.link_emulator import NS_CLIENT

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = """(() => {
  const b = window.__bench = { frames: [] };
  window.addEventListener('viewer-frame', (e) => {
    const empty = document.getElementById('viewer-empty');
    b.frames.push({ end: performance.now(), d: e.detail.duration, coarse: !!e.detail.coarse, shown: !!(empty && empty.hidden) });
  }, true);
})();"""

FIRST = """const b = window.__bench; if (!b) return null;
const s = document.getElementById('status');
if (s && s.classList.contains('error')) return { error: s.textContent };
const f = b.frames.find((f) => f.shown && !f.coarse);
if (!f) return null;
const all = performance.getEntriesByType('resource');
const api = all.filter((r) => r.name.includes('/api/')).map((r) => ({ url: r.name.replace(location.origin, ''), start: r.startTime,
  ttfb: r.responseStart, end: r.responseEnd, transfer: r.transferSize, encoded: r.encodedBodySize, body: r.decodedBodySize }));
const own = all.filter((r) => !r.name.includes('/api/'));
const nav = performance.getEntriesByType('navigation')[0];
const c = document.getElementById('viewer');
return { frameEnd: f.end, draw: f.d, api, dcl: nav.domContentLoadedEventEnd,
  pageTransfer: nav.transferSize + own.reduce((n, r) => n + r.transferSize, 0), pageFiles: own.length + 1,
  canvas: [c.width, c.height] };"""


def measure(cfg):
    """In the phone's namespace: opens each molecule cold then cached; prints and returns a record per visit."""
    w, h = cfg["viewport"]
    results = []
    b = Browser(width=w, height=h)
    try:
        b.cdp("Emulation.setDeviceMetricsOverride", {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
        b.before_each_page(PROBE)
        b.cdp("Network.enable")
        b.cdp("Network.setCacheDisabled", {"cacheDisabled": True})
        # Starts Chromium's GPU process and SwiftShader outside the timings (an empty 3D view).
        b.go(cfg["base"] + "/?warmup#/explore")
        b.wait("return window.__bench && window.__bench.frames.length > 0", 120)
        n = 0
        for label, mol_id in cfg["molecules"]:
            for visit in ("cold", "cached"):
                n += 1
                b.go("about:blank")
                b.go(f"{cfg['base']}/?visit={n}#/explore/{mol_id}")
                r = b.wait(FIRST, cfg["timeout"])
                rec = {"molecule": label, "id": mol_id, "visit": visit}
                if not r:
                    rec["error"] = f"no frame showing the molecule within {cfg['timeout']} s"
                elif "error" in r:
                    rec["error"] = r["error"]
                else:
                    reqs = sorted(r["api"], key=lambda q: q["start"])
                    models = [q for q in reqs if q["url"].split("?")[0].endswith("/model.glb") and "max-triangles" not in q["url"]]
                    details = next((q for q in reqs if q["url"].split("?")[0] == f"/api/molecules/{mol_id}"), None)
                    rec.update({"first_frame": r["frameEnd"], "draw": r["draw"], "dcl": r["dcl"], "page_transfer": r["pageTransfer"],
                                "page_files": r["pageFiles"], "canvas": r["canvas"], "details_end": details and details["end"]})
                    if len(models) >= 2:
                        prep, glb = models[0], models[-1]
                        rec.update({"prepared": prep["end"], "glb_start": glb["start"], "glb_ttfb": glb["ttfb"], "glb_end": glb["end"],
                                    "glb_transfer": glb["transfer"], "glb_encoded": glb["encoded"], "glb_body": glb["body"],
                                    "glb_url": glb["url"]})
                    else:
                        rec["note"] = f"unexpected model requests {[q['url'] for q in models]}"
                results.append(rec)
                print(json.dumps(rec), flush=True)
    finally:
        b.close()
    return results


def run_browser(base, molecules, viewport, timeout):
    """Times the web app's first frames in Chromium in the phone's namespace: the records of measure()."""
    cfg = json.dumps({"base": base, "molecules": molecules, "viewport": viewport, "timeout": timeout})
    # Run as a module from scripts/, so that its own folder is not on sys.path ahead of the standard library.
    proc = subprocess.Popen(["ip", "netns", "exec", NS_CLIENT, sys.executable, "-m", "proteinar_testing.phone_browser", cfg],
                            cwd=SCRIPTS, stdout=subprocess.PIPE, text=True)
    out = []
    for line in proc.stdout:
        line = line.strip()
        if line.startswith("{"):
            rec = json.loads(line)
            out.append(rec)
            print(f"    browser {rec['molecule']} {rec['visit']}: "
                  + (rec.get("error") or f"first frame {rec['first_frame'] / 1000:.2f} s"), file=sys.stderr, flush=True)
    proc.wait()
    if proc.returncode:
        print(f"    (browser helper exited {proc.returncode})", file=sys.stderr, flush=True)
    return out


if __name__ == "__main__":
    measure(json.loads(sys.argv[1]))
