#!/usr/bin/env python3
"""HEAD answers as GET does (issue 30, point 2): for every GET path in `openapi.yaml`, a concrete
request (signed in where the path wants an account) sent as GET and as HEAD must give the same
status and the same headers (Date and a freshly minted cookie aside), and HEAD no body. A GET path
of openapi.yaml without an example here is a FAIL, so a new route is checked from the start.

    scripts/checks/check-head.py [PROTEINAR_BIN]     (default $PROTEINAR_BIN, else .build/release/proteinar)"""
import http.client
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.accounts import Account, make_room  # noqa: E402
from proteinar_testing.archive import ArchiveStandIn  # noqa: E402
from proteinar_testing.paths import ROOT  # noqa: E402
from proteinar_testing.server import ServerProcess  # noqa: E402

IGNORED = {"date", "set-cookie"}


def examples(room):
    """Each GET path of openapi.yaml → the requests that stand for it."""
    return {
        "/api/molecules": ["/api/molecules?limit=5"],
        "/api/molecules/{id}": ["/api/molecules/1AKE", "/api/molecules/NOSUCH"],
        "/api/molecules/{id}/file": ["/api/molecules/1AKE/file"],
        "/api/molecules/{id}/model.{format}": ["/api/molecules/1AKE/model.glb", "/api/molecules/1AKE/model.usdz?style=cartoon"],
        "/api/molecules/{id}/thumbnail.png": ["/api/molecules/1AKE/thumbnail.png?size=128"],
        "/api/archive/{id}": ["/api/archive/1AKE"],
        "/api/search": ["/api/search?q=kinase", "/api/search"],
        "/api/model-options": ["/api/model-options"],
        "/api/designs/{file}": ["/api/designs/pieces.glb?pieces=helix:14", "/api/designs/model.glb?pieces=helix:14"],
        "/api/session": ["/api/session"],
        "/api/phone-address": ["/api/phone-address"],
        "/api/map": ["/api/map"],
        "/tiles/{z}/{x}/{y}.png": ["/tiles/0/0/0.png", "/tiles/30/0/0.png"],
        "/api/profile": ["/api/profile"],
        "/api/rooms": ["/api/rooms"],
        "/api/rooms/{room}": [f"/api/rooms/{room}?state=none", f"/api/rooms/{room}"],
        "/api/rooms/{room}/invitations": [f"/api/rooms/{room}/invitations"],
        "/api/invitations": ["/api/invitations"],
        "/api/rooms/{room}/operations": [f"/api/rooms/{room}/operations"],
        "/api/rooms/{room}/state": [f"/api/rooms/{room}/state", f"/api/rooms/{room}/state?at=0"],
        "/api/rooms/{room}/live": [f"/api/rooms/{room}/live"],
        "/api/rooms/{room}/{model}": [f"/api/rooms/{room}/model.glb", f"/api/rooms/{room}/model.usdz"],
        "/healthz": ["/healthz"],
        "/metrics": ["/metrics"],
    }


def ask(server, method, path, token):
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip"}
    c.request(method, path, headers=headers)
    r = c.getresponse()
    body = r.read()
    fields = sorted((k.lower(), v) for k, v in r.getheaders() if k.lower() not in IGNORED)
    c.close()
    return r.status, fields, body


def main():
    default = os.environ.get("PROTEINAR_BIN", os.path.join(ROOT, ".build", "release", "proteinar"))
    binary = sys.argv[1] if len(sys.argv) > 1 else default
    with open(os.path.join(ROOT, "Sources", "ProteinARServer", "openapi.yaml")) as f:
        spec = yaml.safe_load(f)
    archive = ArchiveStandIn({}, {"1AKE": ("Adenylate kinase", "X-RAY DIFFRACTION", 2.0, "1992-01-01")})
    server = ServerProcess(binary, rcsb_url=archive.url, name="check-head")
    failed = passed = 0
    try:
        Account(server, "Admin")
        owner = Account(server, "Owner")
        room = make_room(server, owner, "head", public=True)
        table = examples(room)
        for path, ops in spec["paths"].items():
            if "get" not in ops:
                continue
            if path not in table:
                print(f"FAIL {path}: a GET path of openapi.yaml with no example in check-head.py")
                failed += 1
                continue
            for url in table[path]:
                get = ask(server, "GET", url, owner.token)
                head = ask(server, "HEAD", url, owner.token)
                # A body that changes between requests (a "last viewed" time) changes its length:
                # HEAD must then match the GET before or the GET after it.
                after = ask(server, "GET", url, owner.token)
                same = head[2] == b"" and any(g[0] == head[0] and g[1] == head[1] for g in (get, after))
                if same:
                    passed += 1
                    print(f"ok   HEAD {url}: {head[0]}, the same headers as GET")
                else:
                    failed += 1
                    differ = sorted(set(get[1]) ^ set(head[1]))
                    print(f"FAIL HEAD {url}: GET {get[0]}, HEAD {head[0]} ({len(head[2])} body bytes); headers that differ: {differ[:6]}")
    finally:
        server.close()
        archive.close()
    print(f"check-head: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
