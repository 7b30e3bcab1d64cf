"""A local stand-in for the RCSB on loopback (files, Search API, Data API), for `proteinar serve
--rcsb-url`: the checks and benchmarks never reach the internet."""
import gzip
import http.server
import json
import re
import threading
import time

from .ports import free_port

ANY_ID = re.compile(r"^([1-9][A-Za-z0-9]{3})\.cif\.gz$")


def renamed_mmcif(path):
    """The mmCIF file at `path` (gzip or not) as a function of a PDB ID: its text with the file's own
    ID (its `data_` block name, `_entry.id` and the like) replaced by the one asked for, gzipped, so
    that every ID gets a file of its own, as the archive would send it."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    first = data.split(b"\n", 1)[0].strip()
    if not first.startswith(b"data_") or len(first) != 9:
        raise ValueError(f"{path}: expected a `data_XXXX` first line, got {first[:40]!r}")
    own = first[5:]
    cache = {}
    lock = threading.Lock()

    def make(entry_id):
        key = entry_id.upper().encode()
        with lock:
            if key not in cache:
                if len(cache) > 4096:
                    cache.clear()
                cache[key] = gzip.compress(data.replace(own, key), compresslevel=1)
            return cache[key]
    return make


class ArchiveStandIn:
    """Serves `files` ({"5PTI.cif.gz": path}) under /download/ and answers keyword searches over
    `titles` ({"1AKE": (title, method, resolution, release date)}), with the RCSB's JSON shapes.

    `any_id`: the path of an mmCIF fixture (gzip or not; a small one, such as 1A8O.cif): then any
    `/download/{ID}.cif.gz` that `files` does not name is answered with that file, its own ID replaced
    by the one asked for (each ID a distinct entry, as the real archive holds). `delay`: seconds each
    /download/ file waits before it is sent (so that downloads overlap and how many the server runs at
    once shows). Counts as it serves: `downloads` (files sent), `requests` (every request),
    `in_flight` and `max_in_flight` (/download/ files being answered at once), `searches` (Search and
    Data API requests); `reset_counts()`."""

    def __init__(self, files, titles, any_id=None, delay=0.0):
        outer = self
        self.files, self.titles = files, titles
        self.delay = delay
        self.any_id = renamed_mmcif(any_id) if any_id else None
        self.lock = threading.Lock()
        self.reset_counts()

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a): pass
            def send(self, code, body=b"", kind="application/json"):
                self.send_response(code); self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
            def do_GET(self):
                with outer.lock:
                    outer.requests += 1
                name = self.path.removeprefix("/download/")
                body = None
                if self.path.startswith("/download/"):
                    if name in outer.files:
                        with open(outer.files[name], "rb") as f: body = f.read()
                    elif outer.any_id and (m := ANY_ID.match(name)):
                        body = outer.any_id(m.group(1))
                if body is None:
                    return self.send(404)
                with outer.lock:
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    if outer.delay:
                        time.sleep(outer.delay)
                    self.send(200, body, "application/octet-stream")
                finally:
                    with outer.lock:
                        outer.in_flight -= 1
                        outer.downloads += 1
            def do_POST(self):
                with outer.lock:
                    outer.searches += 1
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
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def reset_counts(self):
        with self.lock:
            self.requests = self.downloads = self.in_flight = self.max_in_flight = self.searches = 0

    def close(self): self.httpd.shutdown()
