"""test_web_own_browsers.py's checks of installing the app and using it offline, in a browser of their own at
phone size (a fresh profile: no service worker from the other checks): the manifest (parsed, its
icons loaded at their sizes), the service worker registered and controlling the page, a molecule
opened before that opens again after an offline reload (its title and a drawn 3D view), the offline
banner shown offline and gone online, and Keep offline putting a molecule's files in its cache (a tap
on it offline still names what it touched)."""
import json, re, time

from proteinar_testing.aimed_taps import click, front_of_model
from proteinar_testing.browser import Browser

KEPT = "proteinar-kept-v1"

# The manifest as the page links it, parsed, with each icon loaded: [manifest, [[src, purpose, sizes, width, height]], apple-touch-icon size].
MANIFEST = """const done = arguments[arguments.length - 1];
const size = (src) => new Promise((ok) => { const i = new Image(); i.onload = () => ok([i.naturalWidth, i.naturalHeight]); i.onerror = () => ok([0, 0]); i.src = src; });
(async () => {
  const link = document.querySelector('link[rel=manifest]');
  const manifest = await (await fetch(link.href)).json();
  const icons = [];
  for (const icon of manifest.icons ?? []) icons.push([icon.src, icon.purpose ?? 'any', icon.sizes, ...(await size(new URL(icon.src, link.href).href))]);
  const apple = document.querySelector('link[rel=apple-touch-icon]');
  return [manifest, icons, apple ? await size(apple.href) : null];
})().then(done, (e) => done(String(e)));"""

# Whether a cache holds a molecule's details and a model: [details, models].
CACHED = """const done = arguments[arguments.length - 1];
caches.open(arguments[0]).then((c) => c.keys()).then((keys) => {
  const paths = keys.map((r) => new URL(r.url).pathname);
  done([paths.includes('/api/molecules/' + arguments[1]), paths.filter((p) => p.startsWith('/api/molecules/' + arguments[1] + '/model.glb')).length]);
}, (e) => done(String(e)));"""

# [the page kept, how many /v/ files the page loaded, those of them not in the shell cache].
SHELL_KEPT = """const done = arguments[arguments.length - 1];
caches.open('proteinar-shell-v1').then((c) => c.keys()).then((keys) => {
  const kept = new Set(keys.map((r) => new URL(r.url).pathname));
  const loaded = [...new Set(performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.startsWith('/v/')))];
  done([kept.has('/'), loaded.length, loaded.filter((p) => !kept.has(p))]);
}, (e) => done(String(e)));"""

DRAWN = """const c = document.getElementById('viewer'); if (!c.width) return null;
const t = document.createElement('canvas'); t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);
const d = x.getImageData(c.width * .3, c.height * .3, c.width * .4, c.height * .4).data; let n = 0;
for (let i = 0; i < d.length; i += 4) if (d[i] < 245 || d[i+1] < 245 || d[i+2] < 245) n++;
return n > d.length / 4 * 0.02 && n;"""
TITLE = "const t = document.getElementById('details-title'); return !document.getElementById('details').hidden && t.textContent.startsWith(arguments[0]) && t.textContent"
BANNER = "const b = document.getElementById('offline-banner'); return !b.hidden && b.getBoundingClientRect().height > 0 && b.textContent"


def offline(b, on):
    """Takes the network away (or gives it back) as DevTools' Offline does: for the page and for its
    service worker, whose own fetches the page's emulation does not cover. Back online, waits until
    the worker reaches the server again."""
    conditions = {"offline": on, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    b.cdp("Network.enable")
    b.cdp("Network.emulateNetworkConditions", conditions)
    # chromedriver forwards commands to the page only: a worker's session gets its commands wrapped
    # (Target.sendMessageToTarget); the answers come back as events nobody reads. One session per
    # worker, kept, and every one told: the conditions belong to the session that set them.
    sessions = b.__dict__.setdefault("worker_sessions", {})
    for target in b.cdp("Target.getTargets")["targetInfos"]:
        if target["type"] == "service_worker" and target["targetId"] not in sessions:
            sessions[target["targetId"]] = b.cdp("Target.attachToTarget", {"targetId": target["targetId"], "flatten": False})["sessionId"]
    for session in sessions.values():
        for i, (method, params) in enumerate([("Network.enable", {}), ("Network.emulateNetworkConditions", conditions)]):
            try:
                b.cdp("Target.sendMessageToTarget", {"sessionId": session, "message": json.dumps({"id": i + 1, "method": method, "params": params})})
            except Exception:  # noqa: BLE001 — a worker that has since stopped
                pass
    if not on:
        b.wait("""return fetch('/manifest.webmanifest', { cache: 'no-store' }).then((r) => !r.headers.has('X-Served-Offline'), () => false)""", 15)


def phone_shot(b, shot, name):
    """A screenshot at a phone's size, 390 × 844 (headless windows are at least 500 px wide). Only
    for the picture: WebDriver's clicks miss their element under this emulation."""
    b.phone_size()
    try:
        shot(name, b)
    finally:
        b.cdp("Emulation.clearDeviceMetricsOverride")


def check_offline(base, check, shot, molecule="1AKE"):
    """`shot(name, browser)` saves a screenshot when the run keeps them. Returns the browser's CSP messages."""
    b = Browser(width=390, height=844)
    try:
        b.go(f"{base}/#/explore/{molecule}")
        found = b.js_async(MANIFEST)
        manifest, icons, apple = found if isinstance(found, list) else ({}, [], None)
        sizes = {(i[1], i[2]): (i[3], i[4]) for i in icons}
        check("installable: the manifest names the app, start_url and display standalone, with icons of 192 and 512 px (and a maskable one) that load at those sizes, and a 180 px apple-touch-icon",
              manifest.get("name") == "ProteinAR" and manifest.get("short_name") and manifest.get("start_url") == "/"
              and manifest.get("display") == "standalone" and manifest.get("theme_color") and manifest.get("background_color")
              and sizes.get(("any", "192x192")) == (192, 192) and sizes.get(("any", "512x512")) == (512, 512)
              and sizes.get(("maskable", "512x512")) == (512, 512) and apple == [180, 180], str(found)[:600])
        sw = b.wait("""const c = navigator.serviceWorker && navigator.serviceWorker.controller;
                       return c && c.state === 'activated' && new URL(c.scriptURL).pathname""", 30)
        check("the service worker (/sw.js) is registered and controls the page", sw == "/sw.js", str(sw))
        # The worker's install follows app.js's imports: every file under /v/ the page loaded is kept.
        shell = b.js_async(SHELL_KEPT)
        check("the service worker keeps the app itself: the page, the stylesheet and every module the page loaded",
              isinstance(shell, list) and shell[0] and shell[1] >= 20 and shell[2] == [], str(shell))
        # Chromium's own verdict on installing (what Lighthouse's "installable" reads): no errors.
        errors = b.cdp("Page.getInstallabilityErrors").get("installabilityErrors")
        check("Chromium finds the app installable (no installability errors)", errors == [], str(errors))
        # A molecule opened before, on the first visit (before the worker ran: offline.js has it
        # fetch the molecule's files again through the worker once it takes over).
        ready = b.wait(DRAWN, 90) and b.wait(TITLE, 10, molecule)
        cached = None
        for _ in range(50):  # the worker writes the cache as the answers pass: a moment after the view
            cached = b.js_async(CACHED, "proteinar-recent-v1", molecule)
            if isinstance(cached, list) and cached[0] and cached[1]: break
            time.sleep(0.2)
        offline(b, True)
        b.go(f"{base}/?offline#/explore/{molecule}")  # another address: the page itself comes from the cache, not the memory
        title = b.wait(TITLE, 30, molecule)
        drawn = b.wait(DRAWN, 60)
        # The worker marks what it answers from its cache because the network failed.
        served = b.js_async("""const done = arguments[arguments.length - 1];
            fetch('/api/molecules/' + encodeURIComponent(arguments[0])).then((r) => done(r.ok && r.headers.get('X-Served-Offline')), (e) => done(String(e)));""", molecule)
        check(f"offline, a reload still shows the app and {molecule} opened before: its title and a drawn 3D view, from the service worker's cache",
              bool(ready and title and drawn and served == "1"), f"before {ready} {cached}; offline: title {title!r}, drawn {drawn}, served offline {served!r}")
        banner = b.wait(BANNER, 10)
        check("offline, a banner says so and what still works", bool(banner and "You are offline" in banner and "opened or kept" in banner
                                                                  and "need the network" in banner), str(banner))
        phone_shot(b, shot, "offline-banner")
        offline(b, False)
        check("back online, the banner goes", bool(b.wait("return document.getElementById('offline-banner').hidden", 10)))
        # Keep offline: the molecule's details and model go into the kept cache, and the page says how much is kept.
        b.click("#details-offline button")
        pressed = b.wait("const b = document.querySelector('#details-offline button'); return b.getAttribute('aria-pressed') === 'true' && !b.disabled", 60)
        kept = b.js_async(CACHED, KEPT, molecule)
        note = b.wait("const n = document.getElementById('details-offline-note').textContent; return n.includes('1 molecule') && n", 10)
        status = b.js("return document.getElementById('status').textContent")
        label = b.js("const b = document.querySelector('#details-offline button'); return [b.getAttribute('aria-label'), b.getBoundingClientRect().height]")
        check("Keep offline keeps the molecule on this device (its details and model in the kept cache) and says how much is kept",
              bool(pressed and isinstance(kept, list) and kept[0] and kept[1] >= 1 and note and ("MB" in note or "KB" in note))
              and label[0] == f"Keep offline: {molecule}, on this device" and label[1] >= 44, f"{pressed} {kept} {note!r} {label} status: {status!r}")
        # Kept means kept: with the cache of recent molecules gone, it still opens offline.
        b.js_async("const done = arguments[arguments.length - 1]; caches.delete('proteinar-recent-v1').then(done, () => done(false))")
        offline(b, True)
        b.go(f"{base}/?kept#/explore/{molecule}")
        again = b.wait(TITLE, 30, molecule) and b.wait(DRAWN, 60)
        if not again:
            again_why = b.js_async("""const done = arguments[arguments.length - 1];
                (async () => { const out = {}; for (const n of await caches.keys()) out[n] = (await (await caches.open(n)).keys()).map((r) => r.url.split('/api/')[1] ?? r.url); return out; })().then(done, (e) => done(String(e)));""")
        # Tap to identify needs no network either: the identify table was kept with the molecule.
        named = None
        if again:
            x, y, atom, _, _ = front_of_model(b)
            click(b, x, y)
            named = b.wait("const c = document.getElementById('identify-card');"
                           " return !c.hidden && c.dataset.atom === arguments[0] && document.getElementById('identify-residue').textContent", 10, str(atom))
        # What holds its ligands was kept too (Explore's Interactions reads it).
        held = b.js_async(f"""const done = arguments[arguments.length - 1];
            fetch('/api/molecules/{molecule}/interactions').then((r) => r.ok ? r.json() : null).then((j) => done(j && j.sites.length), () => done(null));""") if again else None
        offline(b, False)
        check("a molecule kept offline opens offline even once the recently opened ones are gone", bool(again),
              str(b.js("return document.getElementById('status').textContent")) + ("" if again else f" {again_why}"))
        check("offline, a tap on the kept molecule still names what it touched (its identify table kept with it)", bool(named),
              str(named) + " " + str(b.js("return document.getElementById('status').textContent")))
        check(f"offline, the kept molecule's interactions answer ({held} ligand sites)", bool(held), str(held))
        b.go(f"{base}/#/library")
        listed = b.wait(f"""const b = document.querySelector("#library-list li[data-molecule='{molecule}'] button.keep-offline");
                            return b && b.getAttribute('aria-pressed') === 'true' && [b.getAttribute('aria-label'), b.getAttribute('aria-pressed'), b.getBoundingClientRect().height]""", 20)
        check("the Library list offers Keep offline on each molecule, pressed for the one kept",
              listed == [f"Keep offline: {molecule}, on this device", "true", listed and listed[2]] and listed[2] >= 44, str(listed))
        # What the worker must never keep: a file opened in a frame standing in for the app's page
        # (a navigation too), a filter typed into the library one keystroke at a time, and anything
        # per person (the session, My molecules, search, rooms).
        state = b.js_async("""const done = arguments[arguments.length - 1];
            (async () => {
              const frame = document.createElement('iframe');
              frame.hidden = true;
              const loaded = new Promise((resolve) => { frame.onload = resolve; setTimeout(resolve, 5000); });
              frame.src = '/api/openapi.yaml';
              document.body.append(frame);
              await loaded;
              await Promise.all(['/api/molecules?limit=200&q=ak', '/api/session', '/api/molecules?mine=true', '/api/rooms']
                .map((url) => fetch(url).catch(() => null)));
              await new Promise((resolve) => setTimeout(resolve, 500));
              const urls = [];
              for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
              const page = await caches.match('/');
              return { urls, page: page && page.headers.get('Content-Type'), html: page && /<html/i.test(await page.text()) };
            })().then(done, (e) => done(String(e)));""")
        kept_wrongly = [u for u in (state.get("urls", []) if isinstance(state, dict) else [])
                        if re.search(r"/api/(session|search|rooms|accounts|profile|openapi)|mine=true|[?&]q=", u)]
        check("the worker keeps the app's page as the page (a file opened in a frame does not replace it) and nothing per person or per keystroke",
              isinstance(state, dict) and (state.get("page") or "").startswith("text/html") and state.get("html") and not kept_wrongly,
              f"page {state.get('page') if isinstance(state, dict) else state}, kept wrongly {kept_wrongly}")
    except Exception as e:  # noqa: BLE001 — one failed check, not a stopped run
        check("the installable and offline run finished", False, repr(e))
    finally:
        csp = b.csp_violations()
        b.close()
    return csp
