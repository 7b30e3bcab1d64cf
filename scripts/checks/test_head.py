"""HEAD answers as GET does (issue 30, point 2): for every GET path in `openapi.yaml`, a concrete
request (signed in where the path wants an account) sent as GET and as HEAD must give the same
status and the same headers (Date and a freshly minted cookie aside), and HEAD no body. A GET path
of openapi.yaml without an example here fails, so a new route is checked from the start."""
import http.client
import os

import pytest
import yaml

from proteinar_testing.accounts import Account, make_room
from proteinar_testing.http_client import http as api, want
from proteinar_testing.paths import ROOT

IGNORED = {"date", "set-cookie"}
ROOM = "{room}"  # replaced by a public room's id
LESSON = "{lesson}"  # replaced by the owner's lesson's id

# Each GET path of openapi.yaml → the requests that stand for it.
EXAMPLES = {
    "/api/molecules": ["/api/molecules?limit=5"],
    "/api/molecules/{id}": ["/api/molecules/1AKE", "/api/molecules/NOSUCH"],
    "/api/molecules/{id}/file": ["/api/molecules/1AKE/file"],
    "/api/molecules/{id}/model.{format}": ["/api/molecules/1AKE/model.glb", "/api/molecules/1AKE/model.usdz?style=cartoon"],
    "/api/molecules/{id}/thumbnail.png": ["/api/molecules/1AKE/thumbnail.png?size=128"],
    "/api/molecules/{id}/identify.json": ["/api/molecules/1AKE/identify.json"],
    "/api/molecules/{id}/interactions": ["/api/molecules/1AKE/interactions"],
    "/api/molecules/{id}/compare": ["/api/molecules/1AKE/compare?with=1AKE", "/api/molecules/1AKE/compare?with=NOSUCH"],
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
    "/api/rooms/{room}": ["/api/rooms/{room}?state=none", "/api/rooms/{room}"],
    "/api/rooms/{room}/invitations": ["/api/rooms/{room}/invitations"],
    "/api/invitations": ["/api/invitations"],
    "/api/rooms/{room}/operations": ["/api/rooms/{room}/operations"],
    "/api/rooms/{room}/state": ["/api/rooms/{room}/state", "/api/rooms/{room}/state?at=0"],
    "/api/rooms/{room}/live": ["/api/rooms/{room}/live"],
    "/api/rooms/{room}/{model}": ["/api/rooms/{room}/model.glb", "/api/rooms/{room}/model.usdz"],
    "/api/lessons": ["/api/lessons"],
    "/api/lessons/{lesson}": ["/api/lessons/{lesson}", "/api/lessons/lnosuch"],
    "/api/lessons/{lesson}/answers": ["/api/lessons/{lesson}/answers"],
    "/healthz": ["/healthz"],
    "/metrics": ["/metrics"],
}


def get_paths():
    with open(os.path.join(ROOT, "Sources", "ProteinARServer", "openapi.yaml")) as f:
        spec = yaml.safe_load(f)
    return [path for path, ops in spec["paths"].items() if "get" in ops]


def requests():
    """(path of openapi.yaml, request) for each example; (path, None) for a path without one."""
    return [(path, url) for path in get_paths() for url in EXAMPLES.get(path, [None])]


@pytest.fixture(scope="module")
def site(proteinar_bin, tmp_path_factory):
    """One server with the stand-in archive, an owner, a public room and a lesson of theirs."""
    from proteinar_testing.archive import ArchiveStandIn
    from proteinar_testing.server import ServerProcess
    archive = ArchiveStandIn({}, {"1AKE": ("Adenylate kinase", "X-RAY DIFFRACTION", 2.0, "1992-01-01")})
    server = ServerProcess(proteinar_bin, rcsb_url=archive.url, name="check-head")
    try:
        Account(server, "Admin")
        owner = Account(server, "Owner")
        room = make_room(server, owner, "head", public=True)
        step = {"molecule": "1AKE", "view": "style=cartoon", "text": "The lid.",
                "question": {"prompt": "Which?", "choices": ["LID", "CORE"], "answer": 0}}
        lesson = want(api(server, "POST", "/api/lessons", {"title": "head", "steps": [step]}, token=owner.token),
                      201, "make a lesson")["id"]
        yield server, owner, room, lesson
    finally:
        server.close()
        archive.close()


def ask(server, method, path, token):
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip"}
    c.request(method, path, headers=headers)
    r = c.getresponse()
    body = r.read()
    fields = sorted((k.lower(), v) for k, v in r.getheaders() if k.lower() not in IGNORED)
    c.close()
    return r.status, fields, body


@pytest.mark.parametrize("path,url", requests(), ids=[url or f"{path} (no example)" for path, url in requests()])
def test_head_answers_as_get(site, path, url):
    assert url is not None, f"{path}: a GET path of openapi.yaml with no example in test_head.py"
    server, owner, room, lesson = site
    url = url.replace(ROOM, room).replace(LESSON, lesson)
    get = ask(server, "GET", url, owner.token)
    head = ask(server, "HEAD", url, owner.token)
    # A body that changes between requests (a "last viewed" time) changes its length: HEAD must
    # then match the GET before or the GET after it.
    after = ask(server, "GET", url, owner.token)
    same = head[2] == b"" and any(g[0] == head[0] and g[1] == head[1] for g in (get, after))
    differ = sorted(set(get[1]) ^ set(head[1]))
    assert same, f"HEAD {url}: GET {get[0]}, HEAD {head[0]} ({len(head[2])} body bytes); headers that differ: {differ[:6]}"
