"""2. Filling the disk: 30 uploads of 7.6 MB by one account.
3. gzip inside gzip (a 4.7 KB upload of gigabytes), three at once; a damaged gzip.
4. A 50 MB title, then eight library listings at once."""
import concurrent.futures
import os
import time

from proteinar_testing import attack_files as files
from proteinar_testing import attack_tools as tools
from proteinar_testing.paths import FIXTURES

MB = 1_000_000
FILL_UPLOADS = 30
FILL_BYTES = int(7.6 * MB)
ACCOUNT_QUOTA = 100 * MB


def upload(server, body, name, token, content_type="chemical/x-pdb", source="127.0.0.2", timeout=120):
    return tools.try_request(server, "POST", f"/api/molecules?name={name}", body, token=token, content_type=content_type,
                             source=source, timeout=timeout)


def check_disk_fill(a):
    pdbs = list(files.random_pdbs(FILL_UPLOADS + 1, FILL_BYTES, tools.rng(), title="DISK FILL"))
    s = a.serve()
    (attacker,) = a.admin_then(s, "Filler")
    stored_before = tools.du_bytes(s.data_dir)
    started = time.monotonic()
    results = [None] * len(pdbs)

    def send(i):
        results[i] = upload(s, pdbs[i], f"fill-{i + 1}.pdb", attacker.token)

    # Two at a time, as a script would; the 31st only after the 30 (it must be refused if none was).
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(send, range(FILL_UPLOADS)))
    if not any(r.status in (413, 429) for r in results[:FILL_UPLOADS]):
        send(FILL_UPLOADS)
    elapsed = time.monotonic() - started
    sent = [r for r in results if r is not None]
    accepted = [i for i, r in enumerate(results) if r is not None and r.status in (200, 201)]
    refused = [(i, r) for i, r in enumerate(results) if r is not None and r.status not in (200, 201)]
    stored = tools.du_bytes(s.data_dir) - stored_before
    accepted_bytes = sum(len(pdbs[i]) for i in accepted)
    first = refused[0] if refused else None
    a.figure(f"{len(sent)} uploads of {FILL_BYTES / MB:.1f} MB in {elapsed:.1f} s: {len(accepted)} accepted "
             f"({accepted_bytes / MB:.0f} MB accepted, the data folder grew by {stored / MB:.0f} MB), {len(refused)} refused"
             + (f"; first refusal: upload {first[0] + 1}, HTTP {first[1].status} {tools.message(first[1])}" if first else ""),
             table=f"{len(accepted)}/{len(sent)} accepted, {accepted_bytes / MB:.0f} MB")
    statuses = sorted({r.status for _, r in refused})
    a.check("uploads are refused once the account's quota or hourly limit is reached (413/429)",
            any(r.status in (413, 429) for _, r in refused), f"none of {len(sent)} uploads was refused")
    a.check("every refusal is 413 or 429", all(r.status in (413, 429) for _, r in refused), f"statuses {statuses}")
    a.check("429s carry Retry-After", all(r.headers.get("Retry-After") for _, r in refused if r.status == 429),
            "a 429 without Retry-After")
    a.check("at most 30 uploads accepted in the hour", len(accepted) <= 30, f"{len(accepted)} accepted")
    a.check("what the account stored stays within its 100 MB quota", stored <= ACCOUNT_QUOTA * 1.1,
            f"the data folder grew by {stored / MB:.0f} MB")


def check_nested_gzip(a):
    bomb = files.nested_gzip(int(2.8 * 2 ** 30))
    with open(os.path.join(FIXTURES, "pdb1ubi.pdb"), "rb") as f:
        damaged = files.truncated_gzip(f.read())
    s = a.serve()
    (attacker,) = a.admin_then(s, "Bomber")
    r = upload(s, bomb, "bomb.pdb.gz", attacker.token, content_type="application/gzip")
    a.figure(f"a {len(bomb)}-byte upload (gzip of a gzip of 2.8 GiB): HTTP {r.status} in {r.elapsed:.1f} s, "
             f"{tools.message(r)}; peak RSS so far {a.peak_now(s):.0f} MB", table=f"{len(bomb) / 1000:.1f} KB → {r.status}")
    a.check("gzip in gzip → 413 naming nested compression", r.status == 413 and "nested" in tools.message(r, 400).lower(),
            f"got {r.status} {tools.message(r)}")
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        three = list(pool.map(lambda i: upload(s, bomb, f"bomb{i}.pdb.gz", attacker.token, content_type="application/gzip",
                                               source=f"127.0.0.{3 + i}"), range(3)))
    a.figure(f"three at once: {[x.status for x in three]} in {max(x.elapsed for x in three):.1f} s; peak RSS so far {a.peak_now(s):.0f} MB")
    a.check("three at once → 413 each", all(x.status == 413 for x in three), f"got {[x.status for x in three]}")
    r = upload(s, damaged, "damaged.pdb.gz", attacker.token, content_type="application/gzip")
    text = tools.message(r, 400).lower()
    a.figure(f"a truncated gzip: HTTP {r.status} {tools.message(r)}")
    a.check("a truncated gzip → 422", r.status == 422, f"got {r.status} {tools.message(r)}")
    a.check("…that says damaged or truncated, not too large", ("damaged" in text or "truncated" in text)
            and not any(w in text for w in ("inflates to", "bomb", "too large", "more than")), tools.message(r))


def check_long_title(a):
    with open(os.path.join(FIXTURES, "1A8O.cif"), "rb") as f:
        body = files.cif_with_title(50 * MB, f.read())
    s = a.serve()
    (author,) = a.admin_then(s, "Author")
    r = upload(s, body, "long-title.cif", author.token, content_type="chemical/x-mmcif")
    mid = (r.json or {}).get("id") if r.status in (200, 201) else None
    a.figure(f"a {len(body) / MB:.0f} MB mmCIF whose title is 50 MB: HTTP {r.status} in {r.elapsed:.1f} s"
             + (f" ({tools.message(r)})" if not mid else f", id {mid}"))
    a.check("the 50 MB-title upload is stored (201) or refused (413/422)", r.status in (200, 201, 413, 422), f"got {r.status}")
    listing = tools.try_request(s, "GET", "/api/molecules?limit=500", timeout=120)
    titles = [m.get("title") or "" for m in (listing.json or {}).get("molecules", [])] if listing.status == 200 else []
    longest = max((len(t) for t in titles), default=0)
    a.figure(f"GET /api/molecules: {len(listing.raw) / 1000:.1f} KB in {listing.elapsed:.2f} s, longest title {longest} characters",
             table=f"listing {len(listing.raw) / 1000:.0f} KB, title {longest} chars")
    a.check("the library listing stays small (under 1 MB)", listing.status == 200 and len(listing.raw) < MB,
            f"HTTP {listing.status}, {len(listing.raw)} bytes")
    a.check("every title in the listing has at most 300 characters", listing.status == 200 and longest <= 300, f"longest {longest}")
    if mid:
        d = tools.try_request(s, "GET", f"/api/molecules/{mid}", timeout=120)
        a.check("the molecule's own title has at most 300 characters",
                d.status == 200 and len((d.json or {}).get("title") or "") <= 300,
                f"HTTP {d.status}, title of {len((d.json or {}).get('title') or '')} characters, answer {len(d.raw)} bytes")
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        eight = list(pool.map(lambda i: tools.try_request(s, "GET", "/api/molecules", source=f"127.0.0.{10 + i}", timeout=120), range(8)))
    slowest = max(x.elapsed for x in eight)
    a.figure(f"eight listings at once: slowest {slowest:.2f} s, {sum(len(x.raw) for x in eight) / MB:.1f} MB in all",
             table=f"8 listings {slowest:.2f} s")
    a.check("eight listings at once each answer within 1 s", all(x.status == 200 for x in eight) and slowest < 1.0,
            f"statuses {[x.status for x in eight]}, slowest {slowest:.2f} s")
