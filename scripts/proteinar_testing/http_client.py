"""HTTP to a server: JSON in, JSON out, and the headers the server's sessions use (bearer token,
cookie, X-CSRF-Token, X-Guest-Key). Every status comes back as a Response; nothing raises on 4xx/5xx."""
import json
import urllib.error
import urllib.request

from .report import Fail, short


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.raw = status, headers, body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    @property
    def text(self):
        return self.raw.decode(errors="replace")

    def __repr__(self):
        return f"HTTP {self.status} {short(self.text, 240)}"


def fetch(url, method="GET", body=None, token=None, cookie=None, csrf=None, guest=None, headers=None, timeout=15):
    """One request to `url`. `body`: bytes as they are, anything else as JSON."""
    h = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    if token:
        h["Authorization"] = f"Bearer {token}"
    if cookie:
        h["Cookie"] = cookie
    if csrf:
        h["X-CSRF-Token"] = csrf
    if guest:
        h["X-Guest-Key"] = guest
    h.update(headers or {})
    req = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return Response(r.status, r.headers, r.read())
    except urllib.error.HTTPError as e:
        return Response(e.code, e.headers, e.read())


def http(server, method, path, body=None, **kw):
    """A request to `path` on `server` (a ServerProcess, or a base URL)."""
    base = server if isinstance(server, str) else server.base
    return fetch(base + path, method, body, **kw)


def want(resp, status, what):
    """The response's JSON when it has `status`; Fail otherwise."""
    if resp.status != status:
        raise Fail(f"{what}: expected HTTP {status}, got {resp!r}")
    return resp.json
