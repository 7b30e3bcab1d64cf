"""5. Conversions: 30 heavy model requests with distinct sizes, each abandoned after 2 s; an ordinary
model meanwhile; how long the server stays busy after the clients leave; thumbnail sizes; a
selection of 39,000 terms."""
import threading

from proteinar_testing import attack_tools as tools

from .client_ids import client_cookie

HEAVY = "/api/molecules/4JSV/model.usdz?style=spacefill&max-triangles={triangles}&size={size}"
ORDINARY = "/api/molecules/1AKE/model.glb?size=0.27"
WAVE = 30
ABANDON_AFTER = 2.0
BUSY_WINDOW = 10.0
BUSY_LIMIT = 5.0   # CPU seconds over the window: on average under half of one of the two cores


def abandoned_wave(server, triangles, source, cookie=None):
    """WAVE requests, each with its own size, sent at once and closed after ABANDON_AFTER s: for each,
    the status and Retry-After that came in time, or (None, None). `cookie`: one client's
    `proteinar_client` value on every request (without it each request is a new anonymous client,
    held by its address's ceiling: attack 10)."""
    paths = [HEAVY.format(triangles=triangles, size=f"{0.2 + 0.0137 * i:.4f}") for i in range(WAVE)]
    extra = f"Cookie: proteinar_client={cookie}\r\n" if cookie else ""
    return tools.wave_at_once(server.port, [(p, extra) for p in paths], source, ABANDON_AFTER)


def summary(results):
    counts = {}
    for status, _ in results:
        key = str(status) if status else "no answer in 2 s"
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{n}× {k}" for k, n in sorted(counts.items()))


def check_conversions(a):
    s = a.serve()
    # Wave A: above the HTTP limit of max-triangles.
    wave = abandoned_wave(s, 5_000_000, "127.0.0.2")
    a.figure(f"30 requests of max-triangles=5000000 (4JSV, spacefill, USDZ), distinct sizes, closed after 2 s: {summary(wave)}",
             table=f"5M wave: {summary(wave)}")
    a.check("max-triangles=5000000 → 400 (or 429/503 with Retry-After), none left converting",
            all(st == 400 or (st in (429, 503) and ra) for st, ra in wave), summary(wave))
    # The moment they leave: another visitor's ordinary, uncached model, and the server's CPU.
    ordinary = {}
    t = threading.Thread(target=lambda: ordinary.update(r=tools.try_request(s, "GET", ORDINARY, source="127.0.0.9", timeout=300)))
    t.start()
    profile = tools.cpu_profile(s.pid, BUSY_WINDOW)
    t.join()
    r = ordinary["r"]
    a.figure(f"an ordinary uncached model (1AKE GLB) meanwhile: HTTP {r.status} in {r.elapsed:.1f} s; "
             f"server CPU over the {BUSY_WINDOW:.0f} s after the clients left: {sum(profile):.1f} s",
             table=f"ordinary model {r.elapsed:.1f} s")
    a.check("an ordinary uncached model answers within 5 s", r.status == 200 and r.elapsed < 5, f"HTTP {r.status} in {r.elapsed:.1f} s")
    a.check(f"the server is not kept busy after they leave (CPU over {BUSY_WINDOW:.0f} s under {BUSY_LIMIT:.0f} s)",
            sum(profile) < BUSY_LIMIT, f"{sum(profile):.1f} CPU seconds")
    # Wave B: the largest allowed model, so that the queue and the per-client share are what bound it:
    # one client, the browser that the server gave a client id (its cookie on every request).
    first = tools.try_request(s, "GET", "/api/molecules?limit=1", source="127.0.0.3")
    cookie, _ = client_cookie(first)
    a.check("the client was given an id (a proteinar_client cookie)", cookie is not None, f"HTTP {first.status}")
    wave = abandoned_wave(s, 1_000_000, "127.0.0.3", cookie)
    profile = tools.cpu_profile(s.pid, BUSY_WINDOW)
    held = sum(1 for st, _ in wave if st is None or st == 200)
    a.figure(f"30 requests of max-triangles=1000000, closed after 2 s: {summary(wave)}; server CPU over the next "
             f"{BUSY_WINDOW:.0f} s: {sum(profile):.1f} s (by second: {', '.join(f'{x + y:.1f}' for x, y in zip(profile[::2], profile[1::2]))})",
             table=f"1M wave: {summary(wave)}, CPU after {sum(profile):.1f} s")
    # A client's share: 4 converting, 8 more waiting their turn (no answer yet), the rest refused.
    a.check("max-triangles=1000000 from one client: at most 4 converting and 8 waiting, the rest 429/503 with Retry-After",
            held <= 12 and all(st in (None, 200) or (st in (429, 503) and ra) for st, ra in wave), summary(wave))
    a.check(f"…and the server is not kept busy after they leave (CPU over {BUSY_WINDOW:.0f} s under {BUSY_LIMIT:.0f} s)",
            sum(profile) < BUSY_LIMIT, f"{sum(profile):.1f} CPU seconds")
    # Thumbnails of a size not offered, and selections past 1,000 characters.
    r = tools.try_request(s, "GET", "/api/molecules/4JSV/thumbnail.png?size=2048&style=surface", source="127.0.0.4", timeout=300)
    a.figure(f"thumbnail size=2048 (surface): HTTP {r.status} in {r.elapsed:.1f} s; peak RSS so far {a.peak_now(s):.0f} MB",
             table=f"2048 px thumbnail {r.status}")
    a.check("thumbnail size=2048 → 400", r.status == 400, f"got {r.status}")
    r = tools.try_request(s, "GET", "/api/molecules/4JSV/thumbnail.png?size=300", source="127.0.0.4", timeout=300)
    a.check("thumbnail size=300 (not one of 64…1024) → 400", r.status == 400, f"got {r.status}")
    long_select = ",".join(["A"] * 39_000)
    r = tools.try_request(s, "GET", f"/api/molecules/4JSV/model.glb?select={long_select}", source="127.0.0.5", timeout=300)
    a.figure(f"a 39,000-term selection ({len(long_select)} characters in the URL): HTTP {r.status} in {r.elapsed:.2f} s "
             f"({tools.message(r)})", table=f"39,000 terms {r.status} in {r.elapsed:.2f} s")
    a.check("a 39,000-term selection is refused at once (400; 414/431 for a URL over the header limit)",
            r.status in (400, 414, 431) and r.elapsed < 1, f"HTTP {r.status} in {r.elapsed:.2f} s")
    r = tools.try_request(s, "GET", "/api/molecules/4JSV/model.glb?select=" + ",".join(["A"] * 600), source="127.0.0.5", timeout=300)
    a.check("a 1,199-character selection (600 terms, within the header limit) → 400", r.status == 400, f"got {r.status} {tools.message(r)}")
