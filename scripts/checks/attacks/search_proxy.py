"""12. The search as an open proxy (issue 29, finding 9): 1,000 searches in about 2 s, each of its
own words and without a cookie (so each a new anonymous client), from one address. Before, each
made one Search API request and one Data API request (1,984 archive requests); now only searches
within the address's budget reach the archive (120 a minute), the rest are 429 with Retry-After,
and one client asking the same words again and again asks the archive once (answers kept a
minute)."""
import concurrent.futures
import time

from proteinar_testing import attack_tools as tools
from proteinar_testing.archive import ArchiveStandIn

from .client_ids import client_cookie

SOURCE = "127.0.0.40"
SEARCHES = 1000
AT_ONCE = 50
PER_ADDRESS = 120     # --searches-per-address-per-minute
PER_CLIENT = 20       # --searches-per-minute
TITLES = {"1ABC": ("Lysozyme stand-in", "X-RAY DIFFRACTION", 1.5, "1990-01-01")}


def search_all(server, words, headers, at_once):
    """GET /api/search for each of `words`: [(status, Retry-After)], and the seconds it took."""
    out = [None] * len(words)

    def one(i):
        r = tools.try_request(server, "GET", f"/api/search?q={words[i]}", source=SOURCE, headers=headers, timeout=60)
        out[i] = (r.status, r.headers.get("Retry-After") if r.headers else None)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(at_once) as pool:
        list(pool.map(one, range(len(words))))
    return out, time.monotonic() - started


def check_search_proxy(a):
    archive = ArchiveStandIn({}, TITLES)
    try:
        s = a.serve(rcsb_url=archive.url, name="attack12")
        archive.reset_counts()
        results, took = search_all(s, [f"word{i}" for i in range(SEARCHES)], {}, AT_ONCE)
        statuses = [st for st, _ in results]
        allowance = PER_ADDRESS + int(took * PER_ADDRESS / 60) + 1
        a.figure(f"{SEARCHES} cookie-less searches of distinct words, {AT_ONCE} at once, in {took:.1f} s: "
                 f"{tools.status_counts(statuses)}; the archive was asked {archive.searches} times",
                 table=f"{SEARCHES} searches: {statuses.count(200)} answered, archive asked {archive.searches}×")
        a.check(f"only the address's budget reaches the archive (at most {allowance} searches, one request each when nothing matches)",
                archive.searches <= allowance, f"{archive.searches} archive requests")
        a.check("the rest are 429 with Retry-After", all(st == 200 or (st == 429 and ra) for st, ra in results),
                tools.status_counts(statuses))
        # One client, the same words 100 times: the archive is asked once.
        first = tools.try_request(s, "GET", "/api/molecules?limit=1", source="127.0.0.41")
        cookie, _ = client_cookie(first)
        archive.reset_counts()
        headers = {"Cookie": f"proteinar_client={cookie}"} if cookie else {}
        results = []
        for _ in range(100):
            r = tools.try_request(s, "GET", "/api/search?q=lysozyme", source="127.0.0.41", headers=headers, timeout=60)
            results.append(r.status)
        a.figure(f"one client, the same search 100 times: {tools.status_counts(results)}; the archive was asked {archive.searches} times")
        a.check("the same words again are answered from the kept answer (the archive asked once: search and details)",
                results.count(200) == 100 and archive.searches <= 2, f"{tools.status_counts(results)}; {archive.searches} archive requests")
    finally:
        archive.close()
