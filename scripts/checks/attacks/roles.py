"""1. Who may write to the library: anonymous visitors cannot delete, upload or fetch; a signed-in
person cannot delete what is not theirs; a cross-site "simple" request cannot write."""
import os

from proteinar_testing import attack_tools as tools
from proteinar_testing.accounts import Account, PASSWORD, rid
from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.http_client import http
from proteinar_testing.paths import FIXTURES

EVIL = {"Origin": "http://evil.example", "Referer": "http://evil.example/page.html"}


def small_pdb(tag):
    """1UBI with a REMARK of its own, so each upload is a new file."""
    with open(os.path.join(FIXTURES, "pdb1ubi.pdb"), "rb") as f:
        text = f.read()
    return f"REMARK   1 {tag:<68}\n".encode() + text


def library_total(server):
    r = http(server, "GET", "/api/molecules?limit=1")
    return r.json.get("total") if r.status == 200 and isinstance(r.json, dict) else None


def cookie_account(server, name):
    """Registers with a session cookie: (cookie header value, csrf)."""
    r = tools.request(server, "POST", "/api/accounts", {"email": f"{name.lower()}-{rid('')}@example.org", "password": PASSWORD,
                                                        "name": name, "kind": "cookie"})
    cookie = r.headers.get("Set-Cookie", "").split(";", 1)[0]
    return cookie, (r.json or {}).get("csrf")


def check_roles(a):
    archive = ArchiveStandIn({"1ABC.cif.gz": os.path.join(FIXTURES, "5PTI.cif.gz")}, {})
    try:
        s = a.serve(rcsb_url=archive.url)
        before = library_total(s)
        statuses = {}

        r = tools.request(s, "DELETE", "/api/molecules/1UBI", source="127.0.0.2")
        statuses["anonymous DELETE"] = r.status
        a.check("anonymous DELETE /api/molecules/1UBI → 401", r.status == 401, f"got {r.status} {tools.message(r)}")
        r = tools.request(s, "GET", "/api/molecules/1UBI")
        a.check("…and 1UBI is still there (GET → 200)", r.status == 200, f"got {r.status}")
        r = tools.request(s, "POST", "/api/molecules?name=mine.pdb", small_pdb("anonymous"), content_type="chemical/x-pdb", source="127.0.0.2")
        statuses["anonymous upload"] = r.status
        a.check("anonymous upload POST /api/molecules → 401", r.status == 401, f"got {r.status} {tools.message(r)}")
        r = tools.request(s, "POST", "/api/molecules", {"id": "1ABC"}, source="127.0.0.2")
        statuses["anonymous fetch"] = r.status
        a.check('anonymous POST /api/molecules {"id": "1ABC"} (an RCSB fetch) → 401', r.status == 401, f"got {r.status} {tools.message(r)}")
        r = tools.request(s, "POST", "/api/molecules?name=x.pdb", small_pdb("cross-site"), content_type="text/plain", headers=EVIL,
                          source="127.0.0.2")
        statuses["cross-site text/plain"] = r.status
        a.check("cross-site text/plain POST (Origin: http://evil.example) → 415 or 401", r.status in (415, 401),
                f"got {r.status} {tools.message(r)}")
        r = tools.request(s, "POST", "/api/molecules", b"id=1ABC", content_type="application/x-www-form-urlencoded", headers=EVIL,
                          source="127.0.0.2")
        statuses["cross-site form"] = r.status
        a.check("cross-site form POST → 415 or 401", r.status in (415, 401), f"got {r.status} {tools.message(r)}")

        # The first account is the administrator; then a signed-in visitor of the evil page (the
        # browser sends the cookie, never the CSRF header), an owner and an attacker.
        admin = Account(s, "Admin")
        cookie, _ = cookie_account(s, "Victim")
        a.check("a cookie session for the cross-site case", bool(cookie), "registration set no cookie")
        r = tools.request(s, "POST", "/api/molecules?name=x.pdb", small_pdb("victim"), content_type="text/plain",
                          headers={**EVIL, "Cookie": cookie}, source="127.0.0.2")
        statuses["cross-site text/plain with the victim's cookie"] = r.status
        a.check("cross-site text/plain POST with a signed-in visitor's cookie → 415 (or 403 for the missing CSRF token)",
                r.status in (415, 403), f"got {r.status} {tools.message(r)}")
        after = library_total(s)
        a.check("nothing was added by those requests", before is not None and after == before, f"library total {before} → {after}")

        olive, mallory = Account(s, "Olive"), Account(s, "Mallory")
        r = tools.request(s, "DELETE", "/api/molecules/5PTI", token=mallory.token)
        statuses["non-owner DELETE"] = r.status
        a.check("a signed-in non-owner's DELETE of a starter molecule (5PTI) → 403", r.status == 403, f"got {r.status} {tools.message(r)}")
        r = tools.request(s, "GET", "/api/molecules/5PTI")
        a.check("5PTI is still there (GET → 200)", r.status == 200, f"got {r.status}")

        up = tools.request(s, "POST", "/api/molecules?name=olive.pdb", small_pdb("olive"), content_type="chemical/x-pdb", token=olive.token)
        a.check("a signed-in person may upload (201)", up.status == 201, f"got {up.status} {tools.message(up)}")
        mid = (up.json or {}).get("id") if up.status in (200, 201) else None
        if mid:
            r = tools.request(s, "DELETE", f"/api/molecules/{mid}", token=mallory.token)
            a.check("another person's DELETE of that upload → 403", r.status == 403, f"got {r.status} {tools.message(r)}")
            r = tools.request(s, "DELETE", f"/api/molecules/{mid}", token=olive.token)
            a.check("the owner of an upload may delete it (204)", r.status == 204, f"got {r.status} {tools.message(r)}")
        else:
            a.check("the owner of an upload may delete it (204)", False, "no upload to delete")
        r = tools.request(s, "DELETE", "/api/molecules/1AKE", token=admin.token)
        a.check("the administrator may delete any molecule (204)", r.status == 204, f"got {r.status} {tools.message(r)}")
        a.figure("statuses: " + ", ".join(f"{k} {v}" for k, v in statuses.items()),
                 table=f"anon DELETE {statuses['anonymous DELETE']}, upload {statuses['anonymous upload']}, "
                       f"non-owner DELETE {statuses['non-owner DELETE']}, text/plain {statuses['cross-site text/plain']}")
    finally:
        archive.close()
