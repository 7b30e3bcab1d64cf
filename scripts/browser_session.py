"""What the browser checks and benchmarks share: a local stand-in for the RCSB (files, Search API,
Data API) on loopback, a real `proteinar serve` that uses it, and a headless Chromium (Debian's
chromium and chromium-driver; WebGL2 through SwiftShader) driven over the W3C WebDriver protocol,
with chromedriver's CDP passthrough for what WebDriver lacks (scripts before the page's own)."""
import base64, http.server, json, os, re, shutil, socket, subprocess, tempfile, threading, time, urllib.error, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "structures")


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


class ArchiveStandIn:
    """Serves `files` ({"5PTI.cif.gz": path}) under /download/ and answers keyword searches over
    `titles` ({"1AKE": (title, method, resolution, release date)}), with the RCSB's JSON shapes."""

    def __init__(self, files, titles):
        outer = self
        self.files, self.titles = files, titles

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a): pass
            def send(self, code, body=b"", kind="application/json"):
                self.send_response(code); self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
            def do_GET(self):
                name = self.path.removeprefix("/download/")
                if self.path.startswith("/download/") and name in outer.files:
                    with open(outer.files[name], "rb") as f: self.send(200, f.read(), "application/octet-stream")
                else:
                    self.send(404)
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if self.path == "/rcsbsearch/v2/query":
                    words = body["query"]["parameters"]["value"].lower()
                    ids = [i for i, t in outer.titles.items() if words in t[0].lower()]
                    if not ids: return self.send(204)
                    self.send(200, json.dumps({"total_count": len(ids), "result_set": [{"identifier": i, "score": 1} for i in ids]}).encode())
                elif self.path == "/graphql":
                    t = outer.titles
                    entries = [{"rcsb_id": i, "struct": {"title": t[i][0]}, "exptl": [{"method": t[i][1]}],
                                "rcsb_entry_info": {"resolution_combined": [t[i][2]]}, "rcsb_accession_info": {"initial_release_date": t[i][3]}}
                               for i in body["variables"]["ids"] if i in t]
                    self.send(200, json.dumps({"data": {"entries": entries}}).encode())
                else:
                    self.send(404)

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self): self.httpd.shutdown()


class Server:
    """`proteinar serve` on a port of its choosing, with a fresh data folder. The web app is the one
    built into the binary, or the folder PROTEINAR_WEB_ROOT names (to try edits without a rebuild)."""

    def __init__(self, binary, rcsb_url, *extra):
        if os.environ.get("PROTEINAR_WEB_ROOT"): extra = ("--web-root", os.environ["PROTEINAR_WEB_ROOT"], *extra)
        self.tmp = tempfile.mkdtemp(prefix="proteinar-web-")
        self.out = open(os.path.join(self.tmp, "serve.out"), "w+")
        self.process = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", os.path.join(self.tmp, "data"),
                                         "--rcsb-url", rcsb_url, *extra], stdout=self.out, stderr=subprocess.DEVNULL)
        self.url = None
        for _ in range(600):
            self.out.seek(0); m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", self.out.read())
            if m: self.url = m.group(1); break
            if self.process.poll() is not None: break
            time.sleep(0.1)
        if not self.url:
            self.close(); raise RuntimeError("the server did not start")

    def close(self):
        self.process.terminate()
        try: self.process.wait(10)
        except subprocess.TimeoutExpired: self.process.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


class Browser:
    """One headless Chromium session. `args` are extra command-line switches."""

    def __init__(self, args=(), width=900, height=1200):
        self.port = free_port()
        self.driver = subprocess.Popen(["chromedriver", f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(100):
            try: self.wd("GET", "/status"); break
            except Exception: time.sleep(0.1)
        self.session = None
        self.session = self.wd("POST", "/session", {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": shutil.which("chromium") or "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
                     f"--window-size={width},{height}", *args]}}}})["sessionId"]
        self.s = f"/session/{self.session}"

    def wd(self, method, path, body=None):
        r = urllib.request.Request(self.base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                   headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(r, timeout=120) as resp:
            return json.loads(resp.read())["value"]

    def go(self, url): self.wd("POST", self.s + "/url", {"url": url})
    def js(self, script, *args): return self.wd("POST", self.s + "/execute/sync", {"script": script, "args": list(args)})
    def js_async(self, script, *args): return self.wd("POST", self.s + "/execute/async", {"script": script, "args": list(args)})
    def find(self, css): return list(self.wd("POST", self.s + "/element", {"using": "css selector", "value": css}).values())[0]
    def click(self, css): self.wd("POST", self.s + f"/element/{self.find(css)}/click", {})
    def type_into(self, css, text): self.wd("POST", self.s + f"/element/{self.find(css)}/value", {"text": text})
    def cdp(self, cmd, params=None): return self.wd("POST", self.s + "/goog/cdp/execute", {"cmd": cmd, "params": params or {}})
    def before_each_page(self, source):
        """Runs `source` in every page this session opens from now on, before the page's own scripts."""
        self.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": source})

    def keys(self, *keys):
        """Presses keys on whatever has focus, as a keyboard would (WebDriver key codes such as '\\ue004')."""
        actions = []
        for k in keys: actions += [{"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]
        self.wd("POST", self.s + "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})

    def wait(self, script, timeout=60, *args):
        """Polls `script` until it returns something truthy; script errors (a page mid-navigation)
        count as not yet, up to the timeout."""
        end = time.time() + timeout
        while time.time() < end:
            try:
                v = self.js(script, *args)
                if v: return v
            except urllib.error.HTTPError:
                pass
            time.sleep(0.2)
        return None

    def screenshot(self, path):
        with open(path, "wb") as f: f.write(base64.b64decode(self.wd("GET", self.s + "/screenshot")))

    def close(self):
        try:
            if self.session: self.wd("DELETE", self.s)
        except Exception: pass
        self.driver.terminate()
