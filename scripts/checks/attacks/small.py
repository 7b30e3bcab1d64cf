"""9. The smaller findings: security headers; /metrics and detailed /healthz behind a token; tokens
in URLs; bcrypt work per address; designs cached; rooms per account and a paged room list; what
inviting an unknown e-mail and registering a taken one answer."""
import concurrent.futures
import time

from proteinar_testing import attack_sockets as sockets
from proteinar_testing import attack_tools as tools
from proteinar_testing.accounts import Account, PASSWORD, make_room, rid

METRICS_TOKEN = "attack-suite-metrics-" + rid("")
SMALL_DESIGN = "/api/designs/model.glb?pieces=helix:14,coil:4,helix:14"
BIG_DESIGN = "/api/designs/model.glb?pieces=helix:400,coil:8,helix:400,coil:8,helix:400,coil:8,helix:400"
BCRYPT_FLOOD = 70
ROOMS_CAP = 50


def check_headers(a, s):
    wanted = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY"}
    problems, csp_seen = [], None
    for path in ("/", "/api/molecules?limit=1", "/api/molecules/NOPE", "/healthz", "/api/openapi.yaml"):
        r = tools.try_request(s, "GET", path)
        csp = r.headers.get("Content-Security-Policy") or ""
        csp_seen = csp_seen or csp
        if "default-src 'self'" not in csp or "frame-ancestors 'none'" not in csp:
            problems.append(f"{path}: Content-Security-Policy {csp!r}")
        for k, v in wanted.items():
            if (r.headers.get(k) or "").lower() != v.lower():
                problems.append(f"{path}: {k} {r.headers.get(k)!r}")
    a.figure(f"Content-Security-Policy: {csp_seen or 'none'}")
    a.check("security headers on every answer (CSP default-src 'self' and frame-ancestors 'none', nosniff, "
            "Referrer-Policy same-origin, X-Frame-Options DENY)", not problems, "; ".join(problems[:4]))


def check_metrics(a, s):
    r = tools.try_request(s, "GET", "/metrics")
    a.check("/metrics without --metrics-token → 404", r.status == 404, f"got {r.status}")
    r = tools.try_request(s, "GET", "/healthz")
    body = r.text
    leaks = [w for w in ("database", "sqlite", s.data_dir) if w in body]
    a.figure(f"/healthz: {body.strip()[:120]}")
    a.check("/healthz names no database or path", r.status == 200 and not leaks, f"{r.status} {body[:120]}")
    r = tools.try_request(s, "GET", "/healthz?detail=true")
    a.check("/healthz?detail=true without the token names no database or path",
            not any(w in r.text for w in ("database", "sqlite", s.data_dir)), r.text[:120])
    if a.missing_options(["--metrics-token"]):
        a.check("/metrics behind --metrics-token", False, "the server has no --metrics-token option")
        return
    m = a.serve(extra=["--metrics-token", METRICS_TOKEN], name="attack9-metrics")
    statuses = [tools.try_request(m, "GET", "/metrics").status,
                tools.try_request(m, "GET", "/metrics", headers={"Authorization": "Bearer wrong-" + METRICS_TOKEN}).status]
    right = tools.try_request(m, "GET", "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    detail = tools.try_request(m, "GET", "/healthz?detail=true", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    a.figure(f"with --metrics-token: /metrics no token {statuses[0]}, wrong token {statuses[1]}, right token {right.status}; "
             f"detailed /healthz with the token: {detail.status} {detail.text.strip()[:160]}")
    a.check("/metrics with --metrics-token: 401/403 without or with a wrong token, 200 with the right one",
            all(x in (401, 403) for x in statuses) and right.status == 200, f"{statuses + [right.status]}")
    a.stop_probe(m)
    a.peak_now(m)
    m.close()


def check_url_tokens(a, s, owner):
    room = make_room(s, owner, "private")
    outcome = sockets.one_socket(s.port, f"/api/rooms/{room}/live?token={owner.token}")
    a.figure(f"the owner's token in a private room's socket URL (?token=), no header: {outcome}")
    a.check("?token= in a WebSocket URL is not taken as identity (the private room refuses the socket)", outcome != "admitted", outcome)
    r = tools.try_request(s, "GET", f"/api/profile?token={owner.token}")
    a.check("?token= on an HTTP request is not taken as identity (GET /api/profile → 401)", r.status == 401, f"got {r.status}")


def check_bcrypt(a, s):
    source = "127.0.0.6"

    def one(i):
        if i % 2 == 0:
            body = {"email": f"flood{i}-{rid('')}@example.org", "password": PASSWORD, "kind": "token"}
            return tools.try_request(s, "POST", "/api/accounts", body, source=source, timeout=60)
        body = {"email": f"nobody{i}-{rid('')}@example.org", "password": PASSWORD, "kind": "token"}
        return tools.try_request(s, "POST", "/api/sessions", body, source=source, timeout=60)

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(one, range(BCRYPT_FLOOD)))
    took = time.monotonic() - started
    limited = [r for r in answers if r.status == 429]
    taken = len(answers) - len(limited)
    a.figure(f"{BCRYPT_FLOOD} registrations and sign-ins from one address in {took:.1f} s: {taken} answered, {len(limited)}× 429 "
             f"(Retry-After {sorted({r.headers.get('Retry-After') for r in limited})})",
             table=f"bcrypt flood: {len(limited)}× 429")
    a.check("more than 60 registrations/sign-ins a minute from one address → 429 with Retry-After",
            limited and all(r.headers.get("Retry-After") for r in limited) and taken <= 60 + took + 2,
            f"{taken} answered, {len(limited)} refused in {took:.1f} s")


def check_designs(a, s):
    times = {}
    for label, path in (("small", SMALL_DESIGN), ("large", BIG_DESIGN)):
        first = tools.try_request(s, "GET", path, source="127.0.0.7", timeout=120)
        second = tools.try_request(s, "GET", path, source="127.0.0.7", timeout=120)
        times[label] = (first.status, first.elapsed, second.status, second.elapsed)
    a.figure("designs, first and second identical GET: " + "; ".join(
        f"{k} {v[1]:.2f} s then {v[3]:.2f} s (HTTP {v[0]}, {v[2]})" for k, v in times.items()),
        table=f"design {times['large'][1]:.1f}→{times['large'][3]:.2f} s")
    st1, t1, st2, t2 = times["large"]
    a.check("a design's model is cached (a 1,624-residue design: second GET under a third of the first)",
            st1 == 200 and st2 == 200 and t2 < t1 / 3, f"{t1:.2f} s then {t2:.2f} s")


def check_rooms_cap(a, s):
    roomer = Account(s, "Roomer")
    statuses = []
    for i in range(ROOMS_CAP + 1):
        r = tools.request(s, "POST", "/api/rooms", {"name": f"room {i + 1}", "isPublic": True}, token=roomer.token)
        statuses.append(r.status)
    first_refusal = next((i + 1 for i, st in enumerate(statuses) if st != 201), None)
    a.figure(f"{len(statuses)} rooms asked for by one account: {statuses.count(201)} made, first refusal at "
             f"{first_refusal} (HTTP {statuses[first_refusal - 1] if first_refusal else '-'})", table=f"rooms: {statuses.count(201)} made")
    a.check(f"rooms per account capped: {ROOMS_CAP} made, then 429", statuses[:ROOMS_CAP].count(201) == ROOMS_CAP and statuses[ROOMS_CAP] == 429,
            f"{statuses.count(201)} made, then {statuses[ROOMS_CAP]}")
    page = tools.try_request(s, "GET", "/api/rooms?limit=10")
    whole = tools.try_request(s, "GET", "/api/rooms")
    n_page = len((page.json or {}).get("rooms", [])) if page.status == 200 else None
    n_whole = len((whole.json or {}).get("rooms", [])) if whole.status == 200 else None
    a.figure(f"GET /api/rooms?limit=10: HTTP {page.status}, {n_page} rooms, keys {sorted((page.json or {}).keys())}; "
             f"GET /api/rooms: {n_whole} rooms, {len(whole.raw)} bytes")
    a.check("GET /api/rooms is paged (?limit=10 → at most 10 rooms)", page.status == 200 and n_page is not None and n_page <= 10,
            f"HTTP {page.status}, {n_page} rooms")


def observe_member_lookup(a, s, owner, other):
    """Inviting answers the same for any e-mail (attack 19 asserts it over 2,002); registering a
    taken e-mail still says so."""
    room = make_room(s, owner, "members")
    unknown = tools.try_request(s, "POST", f"/api/rooms/{room}/invitations", {"email": f"nobody-{rid('')}@example.org"}, token=owner.token)
    known = tools.try_request(s, "POST", f"/api/rooms/{room}/invitations", {"email": other.email}, token=owner.token)
    again = tools.try_request(s, "POST", "/api/accounts", {"email": other.email, "password": PASSWORD, "kind": "token"})
    a.figure(f"(observed, not asserted) inviting an unknown e-mail: HTTP {unknown.status}; a known one: HTTP {known.status}; "
             f"registering a taken e-mail: HTTP {again.status} {tools.message(again)}")


def check_small(a):
    s = a.serve()
    owner, other = a.admin_then(s, "Owner", "Member")
    check_headers(a, s)
    check_metrics(a, s)
    check_url_tokens(a, s, owner)
    check_designs(a, s)
    check_rooms_cap(a, s)
    observe_member_lookup(a, s, owner, other)
    check_bcrypt(a, s)
