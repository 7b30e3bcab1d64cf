"""10. One address minting client ids: thousands of cookie-less requests, each for a conversion of a
model nobody asked for (so each would be a new client with a fresh share), many at once. The
per-address ceiling must hold them (429 with Retry-After), the conversion queue stay bounded and
/healthz fast; the address must stop minting ids after its hourly budget; and a forged or edited
`proteinar_client` cookie must not buy a fresh share.

The server's own queue limit (--waiting-conversions) and the edge's connections per address are
raised here so that what holds the flood is the per-address ceiling (--conversions-per-address),
not a limit in front of it. Helpers for the detailed /healthz and for cookies are shared with
archive_opens.py."""
import concurrent.futures
import re
import threading
import time

from proteinar_testing import attack_tools as tools
from proteinar_testing.accounts import rid

METRICS_TOKEN = "attack-suite-metrics-" + rid("")
COOKIE = "proteinar_client"
SOURCE = "127.0.0.20"          # the flooding address (the health probe comes from 127.0.0.1)
OTHER = "127.0.0.21"           # a quiet address for the cookie checks
FLOOD = 2000
AT_ONCE = 120
RATE = 200                     # requests a second at most: the attacker's own CPU (this 2-core machine) left for the server
MINT_BUDGET = 600              # --client-ids-per-address-per-hour
ADDRESS_CEILING = 48           # --conversions-per-address
SHARE = 4 + 8                  # one client's share: 4 running, 8 waiting
WAVE = 30
# Small molecules of the starter library, so that the flood costs conversions, not minutes.
MOLECULES = ["1UBI", "5PTI", "1EJG", "1A8O", "3JQH", "1LCD"]
STYLES = ["cartoon", "ball-and-stick", "spacefill", "sticks", "backbone"]
HEAVY = "/api/molecules/4JSV/model.glb?style=surface&max-triangles=1000000&size={size}"   # ~0.3 s each, alone


# -- shared with archive_opens.py

def detail(server, token=METRICS_TOKEN):
    """The detailed /healthz as a dict, or {} when it did not answer with JSON."""
    r = tools.try_request(server, "GET", "/healthz?detail=true", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    return r.json if r.status == 200 and isinstance(r.json, dict) else {}


class DetailSampler:
    """Reads the detailed /healthz every `every` s in a thread of its own and keeps the largest value
    of each numeric field (`peaks`) and how many reads answered."""

    def __init__(self, server, token=METRICS_TOKEN, every=0.1):
        self.server, self.token, self.every = server, token, every
        self.peaks, self.reads = {}, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            d = detail(self.server, self.token)
            if d:
                self.reads += 1
                for k, v in d.items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool):
                        self.peaks[k] = max(self.peaks.get(k, v), v)
            self._stop.wait(self.every)

    def stop(self):
        self._stop.set()
        self._thread.join(15)
        return self


def set_cookies(resp):
    """The Set-Cookie header lines of a response."""
    headers = resp.headers
    if hasattr(headers, "get_all"):
        return headers.get_all("Set-Cookie") or []
    return [v for k, v in dict(headers or {}).items() if k.lower() == "set-cookie"]


def client_cookie(resp):
    """(value, attributes line) of the proteinar_client cookie the response sets, or (None, None)."""
    for line in set_cookies(resp):
        m = re.match(rf"\s*{COOKIE}=([^;]*)", line)
        if m:
            return m.group(1), line
    return None, None










def settle(server, token=METRICS_TOKEN, limit=30.0):
    """Waits (at most `limit` s) until no conversion waits and conversionsRun has stopped moving."""
    deadline = time.monotonic() + limit
    last = None
    while time.monotonic() < deadline:
        d = detail(server, token)
        now = (d.get("conversionsWaiting"), d.get("conversionsRun"))
        if d and now == last and not now[0]:
            return True
        last = now
        time.sleep(0.5)
    return False


# -- the attack

def flood_path(i):
    molecule = MOLECULES[i % len(MOLECULES)]
    style = STYLES[(i // len(MOLECULES)) % len(STYLES)]
    size = 1.0 + 0.1 * (i // (len(MOLECULES) * len(STYLES)))   # 1.0 … 7.6: two significant digits, each key its own
    return f"/api/molecules/{molecule}/model.glb?style={style}&size={size:.1f}"


def edits(value, n):
    """`n` distinct edits of a cookie value: one character changed, from the end."""
    out = []
    for k in range(1, len(value) + 1):
        ch = value[-k]
        for repl in "AbZ0q":
            if repl != ch:
                out.append(value[:-k] + repl + value[len(value) - k + 1:])
                break
        if len(out) == n:
            return out
    while len(out) < n:
        out.append(value + "x" * (len(out) + 1))
    return out


def check_cookie_edits(a, s):
    """On a quiet address: a cookie-less request gets an id; the same id sent back is kept; an edited
    one is replaced, not taken."""
    first = tools.try_request(s, "GET", "/api/molecules?limit=1", source=OTHER)
    value, line = client_cookie(first)
    a.figure(f"a cookie-less GET /api/molecules: HTTP {first.status}, Set-Cookie {line!r}")
    a.check("a cookie-less /api/ request gets a proteinar_client cookie (HttpOnly, SameSite=Lax, Path=/)",
            bool(value) and all(x.lower() in (line or "").lower() for x in ("HttpOnly", "SameSite=Lax", "Path=/")), f"Set-Cookie {line!r}")
    if not value:
        return None
    again = tools.try_request(s, "GET", "/api/molecules?limit=1", source=OTHER, headers={"Cookie": f"{COOKIE}={value}"})
    kept, _ = client_cookie(again)
    a.check("the cookie sent back is kept (no other id set)", kept in (None, value), f"Set-Cookie {set_cookies(again)}")
    edited = edits(value, 1)[0]
    forged = tools.try_request(s, "GET", "/api/molecules?limit=1", source=OTHER, headers={"Cookie": f"{COOKIE}={edited}"})
    replaced, _ = client_cookie(forged)
    a.figure(f"the cookie with one character changed ({edited[-12:]!r} at its end): HTTP {forged.status}, "
             f"Set-Cookie {'a new id' if replaced and replaced not in (value, edited) else repr(replaced)}")
    a.check("an edited cookie is not taken: the answer sets a new id in its place",
            bool(replaced) and replaced not in (value, edited), f"Set-Cookie {set_cookies(forged)}")
    return value


def check_client_ids(a):
    s = a.serve(extra=["--metrics-token", METRICS_TOKEN, "--client-ids-per-address-per-hour", str(MINT_BUDGET),
                       "--conversions-per-address", str(ADDRESS_CEILING), "--waiting-conversions", "256",
                       "--connections-per-address", "256"])
    check_cookie_edits(a, s)
    # The flooding address's first id, kept to edit later.
    mine = tools.try_request(s, "GET", "/api/molecules?limit=1", source=SOURCE)
    own, _ = client_cookie(mine)
    before = detail(s)
    offset = tools.log_size(s)
    tools.raise_open_file_limit(4 * AT_ONCE + 256)
    sampler = DetailSampler(s)
    results = [None] * FLOOD
    order = []
    lock = threading.Lock()

    def one(i):
        delay = started + i / RATE - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        r = tools.try_request(s, "GET", flood_path(i), source=SOURCE, headers={"Accept": "*/*"}, timeout=120)
        value, _ = client_cookie(r)
        results[i] = (r.status, r.headers.get("Retry-After") if r.headers else None, value, r.elapsed)
        with lock:
            order.append(i)

    started = time.monotonic()  # request i leaves at started + i / RATE, or when one of the AT_ONCE is free
    with concurrent.futures.ThreadPoolExecutor(AT_ONCE) as pool:
        list(pool.map(one, range(FLOOD)))
    took = time.monotonic() - started
    sampler.stop()
    after = detail(s)
    statuses = [r[0] for r in results]
    minted = {r[2] for r in results if r[2]}
    with_cookie = sum(1 for r in results if r[2])
    refused = [r for r in results if r[0] in (429, 503)]
    ok = statuses.count(200)
    # When did minting stop: the last answer (in the order answers came) that set a new id.
    seen, last_new = set(), None
    for k, i in enumerate(order):
        v = results[i][2]
        if v and v not in seen:
            seen.add(v)
            last_new = k + 1
    run = (after.get("conversionsRun") or 0) - (before.get("conversionsRun") or 0) if "conversionsRun" in after else None
    lines = tools.converted_lines(s, offset)
    waiting_peak = sampler.peaks.get("conversionsWaiting")
    a.figure(f"{FLOOD} cookie-less requests for distinct models, up to {AT_ONCE} at once and {RATE} a second from {SOURCE}, "
             f"in {took:.1f} s: {tools.status_counts(statuses)}; "
             f"{len(minted)} distinct ids set ({with_cookie} answers set one; the last new id in answer {last_new} of {FLOOD}); "
             f"conversions run {run} ({len(lines)} `converted` lines); conversionsWaiting at most {waiting_peak} "
             f"over {sampler.reads} reads of /healthz?detail=true",
             table=f"{FLOOD} cookie-less: {ok}× 200, {len(refused)} refused, {len(minted)} ids, waiting ≤ {waiting_peak}")
    a.check("cookie-less answers set proteinar_client ids", len(minted) > 0, "no answer set one")
    # The budget is a bucket (600, then one every 6 s), as the server's other per-address limits are.
    mint_allowance = MINT_BUDGET + int(took * MINT_BUDGET / 3600) + 1
    a.check(f"the address mints at most {MINT_BUDGET} ids an hour (here {mint_allowance}, its own first one included, in {took:.0f} s)",
            len(minted) + (1 if own else 0) <= mint_allowance, f"{len(minted)} distinct ids set in the flood, and its own first one")
    a.check("429s appear, each with Retry-After", any(st == 429 for st in statuses) and all(ra for _, ra, _, _ in refused),
            tools.status_counts(statuses))
    a.check("every answer is 200, or 429/503 with Retry-After", all(st == 200 or (st in (429, 503) and ra) for st, ra, _, _ in results),
            tools.status_counts(statuses))
    a.check(f"the conversion queue stays within the per-address ceiling (conversionsWaiting ≤ {ADDRESS_CEILING})",
            waiting_peak is not None and waiting_peak <= ADDRESS_CEILING,
            f"conversionsWaiting at most {waiting_peak} ({sampler.reads} reads)")
    a.check("no conversion ran for a refused request (conversionsRun rose by at most the 200s)",
            run is not None and run <= ok, f"conversionsRun +{run}, {ok} answers 200")
    a.check("one `converted` log line per conversion run", run is not None and len(lines) == run, f"{len(lines)} lines, conversionsRun +{run}")
    settle(s)
    # Over its budget the address's cookie-less requests share one share: edited or forged cookies
    # must land there too, not in 30 fresh shares (which the ceiling of 48 would all let in).
    for label, cookies in (("edits of the address's own valid id", edits(own, WAVE) if own else [f"x{i}" for i in range(WAVE)]),
                           ("forged ids", [f"forged-{rid('')}-{i}" for i in range(WAVE)])):
        first = 0.60 if label.startswith("forged") else 0.30   # sizes under 1: two significant digits, 30 keys each
        paths = [HEAVY.format(size=f"{first + 0.01 * i:.2f}") for i in range(WAVE)]
        wave = tools.wave_at_once(s.port, [(p, f"Cookie: {COOKIE}={c}\r\n" if c else "") for p, c in zip(paths, cookies)], SOURCE, 2.0)
        held = sum(1 for st, _ in wave if st in (None, 200))
        # Ids the bucket has minted again since the flood emptied it (one every 6 s) may each be a fresh share.
        refilled = int((time.monotonic() - started) * MINT_BUDGET / 3600) - int(took * MINT_BUDGET / 3600) + 1
        a.figure(f"{WAVE} heavy conversions at once with {label}, closed after 2 s: {tools.status_counts([st for st, _ in wave])}",
                 table=f"{WAVE} {label.split()[0]}: {held} held")
        a.check(f"{label} are no fresh shares: at most one share ({SHARE}, and {refilled} for ids minted again since the flood) held, "
                "the rest 429/503 with Retry-After (as fresh shares all 30 would be held)",
                held <= SHARE + refilled and all(st in (None, 200) or (st in (429, 503) and ra) for st, ra in wave),
                f"{held} held: {tools.status_counts([st for st, _ in wave])}")
        settle(s)
