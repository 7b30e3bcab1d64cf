"""11. Opening 1,000 archive entries: a stand-in archive that answers every PDB ID (one small mmCIF,
1A8O, renamed to the ID asked for, so each is an entry of its own).

First, at the server's limits: one client (its cookie kept) opens 1,000 new entries, 8 at once as a
browser would: it gets its 20 a minute, then 429 with Retry-After; then 150 cookie-less requests
for new entries from the same address, 60 at once: the address's budget (120 a minute, 20 of it
already used) holds, at most 4 downloads run at once (the stand-in delays each file 0.3 s, so they
overlap) and past the 32 waiting the rest are 503 with Retry-After.

Then, with the rate limits lifted (--opens-per-minute 100000), the archive cache's bound: one
client opens 1,000 new entries into a 2 MB cache; archiveCacheBytes never exceeds it, the data
folder does not grow with the entries, the first ones are evicted (404, and opened again from the
archive), library molecules stay."""
import concurrent.futures
import os
import threading
import time

from proteinar_testing import attack_tools as tools
from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.paths import FIXTURES

from .client_ids import METRICS_TOKEN, DetailSampler, client_cookie, detail

SOURCE = "127.0.0.30"
ENTRIES = 1000
PER_CLIENT = 20          # --opens-per-minute
PER_ADDRESS = 120        # --opens-per-address-per-minute
AT_ONCE = 4              # --archive-downloads
WAITING = 32             # downloads that may wait
CACHE_MB = 2
FIXTURE = os.path.join(FIXTURES, "1A8O.cif")
GROWTH_LIMIT = 12 * 1024 * 1024   # the data folder after 1,000 entries of 99 KB (25 KB stored): 25+ MB unbounded


def entry_ids(count, first="7"):
    """`count` distinct PDB IDs: `first`, then three base-36 digits (7000, 7001, … 70RR); none is a
    starter molecule's."""
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = []
    for n in range(count):
        out.append(first + digits[n // 1296 % 36] + digits[n // 36 % 36] + digits[n % 36])
    return out


def open_all(server, ids, cookie, at_once, source=SOURCE):
    """GET /api/archive/{id} for each of `ids`, `at_once` at a time, with `cookie` (None: none):
    [(status, Retry-After, elapsed)] in the order of `ids`, and the seconds it took."""
    headers = {"Cookie": f"proteinar_client={cookie}"} if cookie else {}
    out = [None] * len(ids)

    def one(i):
        r = tools.try_request(server, "GET", f"/api/archive/{ids[i]}", source=source, headers=headers, timeout=120)
        out[i] = (r.status, r.headers.get("Retry-After") if r.headers else None, r.elapsed, r)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(at_once) as pool:
        list(pool.map(one, range(len(ids))))
    return out, time.monotonic() - started


def first_refusal(results):
    for st, ra, _, r in results:
        if st not in (200,):
            return f"HTTP {st}, Retry-After {ra}, {tools.message(r)}"
    return "none"


def check_rate_limits(a, archive):
    s = a.serve(extra=["--metrics-token", METRICS_TOKEN, "--opens-per-minute", str(PER_CLIENT),
                       "--opens-per-address-per-minute", str(PER_ADDRESS), "--archive-downloads", str(AT_ONCE)],
                rcsb_url=archive.url, name="attack11-limits")
    archive.delay = 0.3
    archive.reset_counts()
    first = tools.try_request(s, "GET", "/api/molecules?limit=1", source=SOURCE)
    cookie, _ = client_cookie(first)
    a.check("the client has an id (a proteinar_client cookie)", bool(cookie), f"Set-Cookie {first.headers.get('Set-Cookie') if first.headers else None}")
    before = detail(s)
    ids = entry_ids(ENTRIES, "7")
    results, took = open_all(s, ids, cookie, 8)
    after = detail(s)
    statuses = [r[0] for r in results]
    served = statuses.count(200)
    downloads = (after.get("archiveDownloads") or 0) - (before.get("archiveDownloads") or 0) if "archiveDownloads" in after else None
    allowance = PER_CLIENT + int(took * PER_CLIENT / 60) + 1
    a.figure(f"one client, {ENTRIES} new entries, 8 at once, in {took:.1f} s: {tools.status_counts(statuses)}; archive downloads {downloads} "
             f"(the stand-in sent {archive.downloads} files, at most {archive.max_in_flight} at once); first refusal: {first_refusal(results)}",
             table=f"one client: {served} opened, {statuses.count(429)}× 429")
    a.check(f"one client opens at most its {PER_CLIENT} a minute (here {allowance} in {took:.0f} s)", served <= allowance, f"{served} opened")
    a.check("the rest are 429 with Retry-After", all(st == 200 or (st == 429 and ra) for st, ra, _, _ in results), tools.status_counts(statuses))
    a.check("archive downloads started ≤ the entries opened", downloads is not None and downloads <= served,
            f"archiveDownloads +{downloads}, {served} opened")
    used = served
    # Fresh clients from the same address, many at once: the address's budget, and the downloads at once.
    archive.reset_counts()
    before = detail(s)
    ids = entry_ids(150, "8")
    results, took = open_all(s, ids, None, 60)
    after = detail(s)
    statuses = [r[0] for r in results]
    served = statuses.count(200)
    downloads = (after.get("archiveDownloads") or 0) - (before.get("archiveDownloads") or 0) if "archiveDownloads" in after else None
    allowance = PER_ADDRESS - used + int(took * PER_ADDRESS / 60) + 1
    first429 = next((f"HTTP 429, Retry-After {ra}, {tools.message(r)}" for st, ra, _, r in results if st == 429), "none")
    first503 = next((f"HTTP 503, Retry-After {ra}, {tools.message(r)}" for st, ra, _, r in results if st == 503), "none")
    a.figure(f"150 cookie-less requests for new entries, 60 at once, in {took:.1f} s: {tools.status_counts(statuses)}; archive downloads {downloads}; "
             f"the stand-in sent {archive.downloads} files, at most {archive.max_in_flight} at once; first 503: {first503}; first 429: {first429}",
             table=f"150 fresh clients: {tools.status_counts(statuses)}; {archive.max_in_flight} at once")
    a.check(f"at most {AT_ONCE} archive downloads at once", 0 < archive.max_in_flight <= AT_ONCE, f"{archive.max_in_flight} at once")
    a.check(f"past {AT_ONCE} running and {WAITING} waiting downloads: 503 with Retry-After",
            any(st == 503 for st in statuses) and all(ra for st, ra, _, _ in results if st == 503), tools.status_counts(statuses))
    a.check(f"the address opens at most its {PER_ADDRESS} a minute over all its clients (here {allowance} more)",
            served <= allowance, f"{served} opened")
    a.check("every answer is 200, or 429/503 with Retry-After", all(st == 200 or (st in (429, 503) and ra) for st, ra, _, _ in results),
            tools.status_counts(statuses))
    a.stop_probe(s)
    a.peak_now(s)
    s.close()


def check_cache_bound(a, archive):
    bound = CACHE_MB * 1024 * 1024
    s = a.serve(extra=["--metrics-token", METRICS_TOKEN, "--archive-cache-mb", str(CACHE_MB), "--opens-per-minute", "100000",
                       "--opens-per-address-per-minute", "100000"], rcsb_url=archive.url, name="attack11-cache")
    archive.delay = 0.0
    archive.reset_counts()
    first = tools.try_request(s, "GET", "/api/molecules?limit=1", source=SOURCE)
    cookie, _ = client_cookie(first)
    stored_before = tools.du_bytes(s.data_dir)
    largest = [stored_before]
    stop = threading.Event()

    def watch_disk():
        while not stop.wait(1.0):
            largest[0] = max(largest[0], tools.du_bytes(s.data_dir))
    watcher = threading.Thread(target=watch_disk, daemon=True)
    watcher.start()
    sampler = DetailSampler(s, every=0.2)
    ids = entry_ids(ENTRIES, "6")
    results, took = open_all(s, ids, cookie, 4)
    sampler.stop()
    stop.set()
    watcher.join(5)
    after = detail(s)
    statuses = [r[0] for r in results]
    stored_after = tools.du_bytes(s.data_dir)
    largest[0] = max(largest[0], stored_after)
    growth = largest[0] - stored_before
    peak_bytes, peak_entries = sampler.peaks.get("archiveCacheBytes"), sampler.peaks.get("archiveCacheEntries")
    a.figure(f"one client, {ENTRIES} new entries of {os.path.getsize(FIXTURE) / 1000:.0f} KB (uncompressed) into a {CACHE_MB} MB cache, "
             f"4 at once, in {took:.1f} s: {tools.status_counts(statuses)}; archiveDownloads {after.get('archiveDownloads')}; archiveCacheBytes at most "
             f"{peak_bytes} (now {after.get('archiveCacheBytes')}), entries at most {peak_entries} (now {after.get('archiveCacheEntries')}), "
             f"over {sampler.reads} reads; the data folder {stored_before / 1e6:.1f} MB before, at most {largest[0] / 1e6:.1f} MB, "
             f"{stored_after / 1e6:.1f} MB after",
             table=f"cache: {peak_bytes} B max, data +{growth / 1e6:.1f} MB")
    a.check(f"all {ENTRIES} opened (rate limits lifted)", statuses.count(200) == ENTRIES, f"{tools.status_counts(statuses)}; first other: {first_refusal(results)}")
    a.check(f"archiveCacheBytes never above the {CACHE_MB} MB bound", peak_bytes is not None and peak_bytes <= bound and
            (after.get("archiveCacheBytes") or 0) <= bound, f"at most {peak_bytes}, now {after.get('archiveCacheBytes')} (bound {bound})")
    a.check(f"the data folder does not grow with the entries (at most {GROWTH_LIMIT / 1e6:.0f} MB more)", growth <= GROWTH_LIMIT,
            f"{growth / 1e6:.1f} MB more")
    gone = tools.try_request(s, "GET", f"/api/molecules/{ids[0]}", source=SOURCE)
    last = tools.try_request(s, "GET", f"/api/molecules/{ids[-1]}", source=SOURCE)
    starter = tools.try_request(s, "GET", "/api/molecules/1AKE", source=SOURCE)
    a.figure(f"after: GET /api/molecules/{ids[0]} (the first opened) HTTP {gone.status}; {ids[-1]} (the last) HTTP {last.status} "
             f"inLibrary {(last.json or {}).get('inLibrary')}; the starter 1AKE HTTP {starter.status}")
    a.check("the first entries opened were evicted (404); the last is there (200, inLibrary false)",
            gone.status == 404 and last.status == 200 and (last.json or {}).get("inLibrary") is False,
            f"first {gone.status}, last {last.status} {tools.message(last)}")
    a.check("library molecules are never evicted (1AKE 200)", starter.status == 200, f"HTTP {starter.status}")
    before = detail(s)
    again = tools.try_request(s, "GET", f"/api/archive/{ids[0]}", source=SOURCE, headers={"Cookie": f"proteinar_client={cookie}"} if cookie else {})
    after = detail(s)
    a.check("an evicted entry is opened again from the archive (200, archiveDownloads +1)",
            again.status == 200 and (after.get("archiveDownloads") or 0) - (before.get("archiveDownloads") or 0) == 1,
            f"HTTP {again.status}, archiveDownloads {before.get('archiveDownloads')} → {after.get('archiveDownloads')}")


def check_archive_opens(a):
    archive = ArchiveStandIn({}, {}, any_id=FIXTURE)
    try:
        check_rate_limits(a, archive)
        check_cache_bound(a, archive)
    finally:
        archive.close()
