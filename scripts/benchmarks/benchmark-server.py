#!/usr/bin/env python3
"""Server benchmark on loopback, in one run:
  - cached model throughput: wrk on a cached 2XHE GLB (requests/s, p50/p99 latency);
  - cold latency of a first 2XHE USDZ: fetch from a local archive stand-in, read, mesh, write;
  - memory under 1, 10 and 50 concurrent conversions (server RSS sampled every 20 ms).
The AR GLBs' bytes are also served by nginx (Debian's nginx-light: sendfile, gzip_static, two
workers) under the same wrk, as the reference for what this machine's loopback allows per body size.
The archive stand-in is scripts/proteinar_testing's, serving the fixture as files.rcsb.org would.
Adding to the library needs an account: each server gets one (registered before the clock starts).

    scripts/benchmarks/benchmark-server.py      (DURATION=10 seconds of wrk, CONNECTIONS=32;
                                                 PROTEINAR_BIN, default .build/release/proteinar, built if missing)"""
import json, os, re, shutil, subprocess, sys, tempfile, threading, time
from concurrent.futures import ThreadPoolExecutor

import scripts_path  # noqa: E402,F401  (scripts/ on sys.path, for proteinar_testing)
from proteinar_testing.accounts import library_token  # noqa: E402
from proteinar_testing.archive import ArchiveStandIn  # noqa: E402
from proteinar_testing.http_client import fetch  # noqa: E402
from proteinar_testing.paths import FIXTURES, ROOT  # noqa: E402
from proteinar_testing.ports import free_port  # noqa: E402
from proteinar_testing.server import ServerProcess  # noqa: E402

binary = os.path.join(ROOT, os.environ.get("PROTEINAR_BIN", ".build/release/proteinar"))
if not os.access(binary, os.X_OK):
    subprocess.run(["swift", "build", "-c", "release", "--product", "proteinar"], cwd=ROOT, stdout=sys.stderr, check=True)
if not shutil.which("wrk"):
    print("installing wrk (Debian)", file=sys.stderr)
    subprocess.run("apt-get update -qq >&2 && apt-get install -y -qq wrk >/dev/null", shell=True, check=True)
if not shutil.which("nginx"):
    print("installing nginx-light (Debian), the reference static server", file=sys.stderr)
    subprocess.run("apt-get update -qq >&2 && apt-get install -y -qq nginx-light >/dev/null", shell=True)
duration, connections = int(os.environ.get("DURATION", "10")), int(os.environ.get("CONNECTIONS", "32"))
tmp = tempfile.mkdtemp(prefix="proteinar-bench-")
archive = ArchiveStandIn({"2XHE.cif.gz": os.path.join(FIXTURES, "2XHE.cif.gz")}, {})

# A server with per-client conversion limits (docs/security.md) would answer this one client's 50
# conversions at once with 429: the benchmark lifts them to measure memory under that load.
LIMITS = ["--conversions-per-client", "64", "--waiting-conversions", "64"]
lifts = "--conversions-per-client" in subprocess.run([binary, "serve", "--help"], capture_output=True, text=True).stdout

def serve(name, extra=()):
    return ServerProcess(binary, work=tmp, data_dir=os.path.join(tmp, name), rcsb_url=archive.url, starter=False, name=name, timeout=30,
                         extra=extra)

def request(url, data=None, headers=None, token=None):
    r = fetch(url, "POST" if data is not None else "GET", data, token=token, headers={"Accept": "*/*", **(headers or {})}, timeout=300)
    return r.status, r.raw

def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"): return int(line.split()[1]) * 1024
    return 0

# Cold: a fresh server and library each time; best and median of 3.
cold = []
for k in range(3):
    server = serve(f"cold{k}"); base = server.url
    token = library_token(server)
    t0 = time.perf_counter()
    s1, _ = request(base + "/api/molecules", json.dumps({"id": "2XHE"}).encode(), {"Content-Type": "application/json"}, token)
    t1 = time.perf_counter()
    s2, body = request(base + "/api/molecules/2XHE/model.usdz?style=cartoon")
    t2 = time.perf_counter()
    assert s1 == 201 and s2 == 200, (s1, s2)
    cold.append((t2 - t0, t1 - t0, t2 - t1, len(body)))
    server.stop()
cold.sort()
print("Cold first 2XHE USDZ (cartoon), fresh server and library, 3 runs:")
for total, fetched, model, size in cold:
    print(f"  {total*1000:6.0f} ms = fetch+read+store {fetched*1000:5.0f} ms + mesh+write USDZ {model*1000:5.0f} ms ({size/1e6:.1f} MB)")

# Cached throughput.
server = serve("warm", LIMITS if lifts else ()); base = server.url
request(base + "/api/molecules", json.dumps({"id": "2XHE"}).encode(), {"Content-Type": "application/json"}, library_token(server))
def wrk(url, gzip=False, body=None):
    if body is None:
        _, body = request(url, headers={"Accept-Encoding": "gzip"} if gzip else None)  # made once, then cached
    extra = ["-H", "Accept-Encoding: gzip"] if gzip else []
    w = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency", *extra, url], capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", w).group(1))
    def lat(label):
        m = re.search(rf"{label}\s+([\d.]+)(us|ms|s)\b", w)
        v, unit = float(m.group(1)), m.group(2)
        return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", w)
    return len(body), rps, lat("50%"), lat("99%"), int(errors.group(1)) if errors else 0
class Nginx:
    """nginx serving files from a folder, as the reference for serving the same bytes."""
    def __init__(self):
        # Its own folder, readable by nginx's unprivileged workers.
        self.root, self.port = tempfile.mkdtemp(prefix="proteinar-bench-nginx-"), free_port()
        os.chmod(self.root, 0o755)
        conf = os.path.join(self.root, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""worker_processes 2; pid {self.root}/nginx.pid; error_log {self.root}/error.log; daemon off;
events {{ worker_connections 1024; }}
http {{ access_log off; sendfile on; tcp_nopush on;
  server {{ listen 127.0.0.1:{self.port}; root {self.root}/www; gzip_static on; types {{ model/gltf-binary glb; }} }} }}
""")
        os.makedirs(os.path.join(self.root, "www"))
        self.process = subprocess.Popen(["nginx", "-c", conf], stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        self.version = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip().split("/")[-1]

    def url(self, name, plain, gzipped=None):
        """Publishes `plain` (and its gzip, which gzip_static sends to clients that accept it) as `name`."""
        for path, data in ((name, plain), (name + ".gz", gzipped)):
            if data is not None:
                with open(os.path.join(self.root, "www", path), "wb") as f: f.write(data)
        return f"http://127.0.0.1:{self.port}/{name}"

    def stop(self):
        self.process.terminate(); self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)
nginx = Nginx() if shutil.which("nginx") else None

print(f"\nCached models with wrk -t2 -c{connections} -d{duration}s on loopback:")
results = {}
# Issue 15: the AR GLB Scene Viewer gets (quantised), the one the viewer and WebXR get (meshopt),
# each plain and gzipped (sizes are the bytes sent).
for label, path, gz in [("2XHE GLB, default (cartoon, 250,288 triangles)", "/api/molecules/2XHE/model.glb", False),
                        ("2XHE GLB, --max-triangles 20000", "/api/molecules/2XHE/model.glb?max-triangles=20000", False),
                        ("2XHE AR GLB (target=ar, quantised)", "/api/molecules/2XHE/model.glb?target=ar", False),
                        ("2XHE AR GLB, gzip", "/api/molecules/2XHE/model.glb?target=ar", True),
                        ("2XHE AR GLB, meshopt", "/api/molecules/2XHE/model.glb?target=ar&compression=meshopt", False),
                        ("2XHE AR GLB, meshopt, gzip", "/api/molecules/2XHE/model.glb?target=ar&compression=meshopt", True)]:
    try:
        size, rps, p50, p99, errors = results[label] = wrk(base + path, gz)
    except Exception as error:  # an older build refuses the issue-15 options
        print(f"  {label:<48} not offered by this build ({error})")
        continue
    print(f"  {label:<48} {size/1e6:5.2f} MB: {rps:8,.0f} requests/s, p50 {p50:6.2f} ms, p99 {p99:6.2f} ms, {errors} errors, {rps*size/1e9:.1f} GB/s")
    if nginx and "AR GLB" in label:
        name = "meshopt.glb" if "meshopt" in label else "quantised.glb"
        _, plain = request(base + path)
        _, gzipped = request(base + path, headers={"Accept-Encoding": "gzip"}) if gz else (None, None)
        url = nginx.url(name, plain, gzipped)
        status, sent = request(url, headers={"Accept-Encoding": "gzip"} if gz else None)
        assert status == 200 and sent == (gzipped if gz else plain), f"nginx did not send the same bytes ({status}, {len(sent)} bytes)"
        size, rps, p50, p99, errors = results["nginx " + label] = wrk(url, gz, sent)
        print(f"  {'  the same bytes from nginx ' + nginx.version:<48} {size/1e6:5.2f} MB: {rps:8,.0f} requests/s, p50 {p50:6.2f} ms, "
              f"p99 {p99:6.2f} ms, {errors} errors, {rps*size/1e9:.1f} GB/s")
if nginx: nginx.stop()
_, rps, p50, p99, _ = results["2XHE GLB, default (cartoon, 250,288 triangles)"]

# Memory under concurrent conversions: distinct options so that none comes from the cache. Distinct
# sizes (two significant digits: a server quantises `size` to that, and `max-triangles` to the
# 1-2-5 series, so distinct triangle budgets would share a few cache keys).
pid = server.pid
def burst(n, offset):
    peak = [rss(pid)]; stop = threading.Event()
    def sample():
        while not stop.is_set(): peak[0] = max(peak[0], rss(pid)); time.sleep(0.02)
    t = threading.Thread(target=sample); t.start()
    before = rss(pid); t0 = time.perf_counter()
    with ThreadPoolExecutor(n) as pool:
        statuses = list(pool.map(lambda i: request(f"{base}/api/molecules/2XHE/model.glb?style=cartoon&size={(offset + i) / 10:.1f}")[0], range(n)))
    elapsed = time.perf_counter() - t0
    stop.set(); t.join()
    assert all(s == 200 for s in statuses), statuses
    return before, peak[0], rss(pid), elapsed
print("\nServer memory (RSS) while converting 2XHE concurrently (each request distinct, so none is cached):")
offset = 10  # sizes 1.0, then 1.1 to 2.0, then 2.1 to 7.0
for n in (1, 10, 50):
    before, peak, after, elapsed = burst(n, offset); offset += n
    print(f"  {n:3d} at once: before {before/1e6:5.0f} MB, peak {peak/1e6:5.0f} MB, after {after/1e6:5.0f} MB; {elapsed:.1f} s, {n/elapsed:.1f} conversions/s")
server.stop()
archive.close()

print("\nTargets")
verdict = lambda ok: "MET   " if ok else "MISSED"
print(f"  {verdict(rps >= 2000 and p99 < 20)} cached GLB: at least 2,000 requests/s with p99 under 20 ms: {rps:,.0f}/s, p99 {p99:.2f} ms")
for label in ("2XHE AR GLB (target=ar, quantised)", "2XHE AR GLB, gzip", "2XHE AR GLB, meshopt", "2XHE AR GLB, meshopt, gzip"):
    if label in results:
        _, r, _, q, _ = results[label]
        reference = f" (nginx, same bytes: {results['nginx ' + label][1]:,.0f}/s, p99 {results['nginx ' + label][3]:.2f} ms)" if nginx else ""
        print(f"  {verdict(r >= 5000 and q < 20)} cached {label[5:]}: at least 5,000 requests/s with p99 under 20 ms: {r:,.0f}/s, p99 {q:.2f} ms{reference}")
print(f"  {verdict(cold[1][0] < 0.3)} cold first 2XHE USDZ under 300 ms: median {cold[1][0]*1000:.0f} ms (best {cold[0][0]*1000:.0f} ms)")
shutil.rmtree(tmp, ignore_errors=True)
