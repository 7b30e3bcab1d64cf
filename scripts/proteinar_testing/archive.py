"""A local stand-in for the RCSB on loopback (files, Search API, Data API), for `proteinar serve
--rcsb-url`: the checks and benchmarks never reach the internet."""
import http.server
import json
import threading

from .ports import free_port


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
