#!/usr/bin/env python3
"""The web app in a real headless Chromium (Debian's chromium and chromium-driver, WebGL2 through
SwiftShader), driven over the W3C WebDriver protocol, against a real `proteinar serve` whose archive
is a local stand-in for the RCSB (files, Search API, Data API) on loopback.

    scripts/check-web.py PROTEINAR_BIN [--screenshots docs]

Each check prints ok/FAIL; the script ends with `N passed, M failed` and exits 1 on a failure."""
import os, sys
from browser_session import FIXTURES, ArchiveStandIn, Browser, Server

binary = os.path.abspath(sys.argv[1])
shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
passed, failed = 0, 0

def check(name, ok, detail=""):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + name + (f" ({detail})" if detail and not ok else ""), flush=True)
    if ok: passed += 1
    else: failed += 1

TITLES = {"1AKE": ("STRUCTURE OF THE COMPLEX BETWEEN ADENYLATE KINASE FROM ESCHERICHIA COLI AND THE INHIBITOR AP5A", "X-RAY DIFFRACTION", 2.0, "1992-01-15")}
# Files: 5PTI only (1AKE, which the flow opens, is in the starter library already).
archive = ArchiveStandIn({"5PTI.cif.gz": os.path.join(FIXTURES, "5PTI.cif.gz")}, TITLES)
server = Server(binary, archive.url)
base = server.url
b = Browser()
js, find, click, type_into, wait = b.js, b.find, b.click, b.type_into, b.wait
def shot(name):
    if not shots: return
    os.makedirs(shots, exist_ok=True)
    b.screenshot(os.path.join(shots, f"web-{name}.png"))
# Pixels of the 3D view's middle that differ from the white background, and a hash of them.
CANVAS = """const c = document.getElementById('viewer'); if (!c.width) return null;
const t = document.createElement('canvas'); t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);
const d = x.getImageData(c.width * .3, c.height * .3, c.width * .4, c.height * .4).data; let n = 0, h = 0;
for (let i = 0; i < d.length; i += 4) { if (d[i] < 245 || d[i+1] < 245 || d[i+2] < 245) n++; h = (h * 31 + d[i] + d[i+1] * 3 + d[i+2] * 7) | 0; }
return [n, h, d.length / 4];"""

try:
    b.go(base + "/")
    check("landing page lists the sections", bool(wait("return document.querySelectorAll('.cards .card').length >= 5")))
    shot("landing")
    click("a.card[href='#/intro']")
    check("introduction shows three pages and Get started", bool(wait("return !document.getElementById('view-intro').hidden && document.querySelectorAll('#intro-pages .page').length === 3")))
    shot("intro")
    click("#view-intro a.button.primary")
    check("Get started opens Explore", bool(wait("return !document.getElementById('view-explore').hidden")))

    # A bad ID says so and leaves the app usable.
    type_into("#entry-id", "hello!\ue007")
    bad = wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent")
    check("a malformed ID shows an error in the page", bool(bad and "PDB ID" in bad), str(bad))
    js("document.getElementById('entry-id').value = ''")

    # Get 1AKE (Enter submits): the canvas shows the molecule, the details panel its title.
    type_into("#entry-id", "1AKE\ue007")
    drawn = wait(CANVAS.replace("return [n, h, d.length / 4];", "return n > d.length / 4 * 0.02 ? [n, h] : null;"), 90)
    check("typing 1AKE draws the molecule in the middle of the view", bool(drawn), str(drawn))
    title = wait("const t = document.getElementById('details-title'); return !document.getElementById('details').hidden && t.textContent")
    check("the details panel shows the title", bool(title and "1AKE" in title), str(title))
    check("keyboard focus left the ID field after Get (the phone keyboard closes)", js("return document.activeElement !== document.getElementById('entry-id')"))
    shot("explore")

    # Changing style re-renders.
    before = js(CANVAS)
    js("const s = document.getElementById('style'); s.value = 'spacefill'; s.dispatchEvent(new Event('change'));")
    after = wait("const v = (() => {" + CANVAS + "})(); return v && v[1] !== arguments[0] && document.getElementById('status').textContent.startsWith('1AKE') ? v : null;", 90, before[1] if before else 0)
    check("changing the style re-renders the view", bool(after))

    # The camera button yields a PNG.
    js("""window.__saved = null; const click = HTMLAnchorElement.prototype.click;
          HTMLAnchorElement.prototype.click = function () { if (this.download) { window.__saved = this.href; return; } return click.call(this); };""")
    click("#camera-button")
    png = wait("return window.__saved && fetch(window.__saved).then(r => r.arrayBuffer()).then(b => Array.from(new Uint8Array(b.slice(0, 8))))", 30)
    check("the camera button yields a PNG", png is not None and png[:4] == [0x89, 0x50, 0x4E, 0x47], str(png))

    # Keyword search lists results (from the stand-in's Search and Data APIs).
    type_into("#search-words", "kinase\ue007")
    results = wait("const l = document.getElementById('search-results'); return !l.hidden && l.querySelector('button') && l.textContent")
    check("keyword search lists results with titles", bool(results and "1AKE" in results and "ADENYLATE" in results), str(results))
    shot("search")

    # Every interactive element has an accessible name.
    unnamed = js("""const named = (e) => (e.getAttribute('aria-label') || (e.labels && [...e.labels].map(l => l.textContent).join('').trim())
                       || (e.getAttribute('aria-labelledby') && document.getElementById(e.getAttribute('aria-labelledby'))?.textContent)
                       || e.textContent.trim() || e.getAttribute('title') || e.querySelector('img[alt]')?.alt || '').trim();
                    return [...document.querySelectorAll('button, a[href], input, select, canvas, [tabindex]')]
                      .filter(e => !e.closest('[hidden]') && !e.classList.contains('visually-hidden') && !named(e)).map(e => e.outerHTML.slice(0, 80));""")
    check("every visible interactive element has an accessible name", unnamed == [], str(unnamed))

    # Keyboard: the 3D view takes focus and answers arrow keys.
    frames = js("return window.__frames = 0, document.getElementById('viewer').addEventListener('viewer-frame', () => window.__frames++), document.getElementById('viewer').focus(), document.activeElement.id")
    b.keys("\ue014", "\ue014", "+")
    check("arrow keys and + redraw the focused 3D view", bool(wait("return window.__frames > 0", 20)))

    # Library.
    b.go(base + "/#/library")
    items = wait("return document.querySelectorAll('#library-list li img').length")
    check("the library lists molecules with thumbnails", bool(items and items >= 10), str(items))
    wait("return [...document.querySelectorAll('#library-list img')].slice(0, 4).every(i => i.complete && i.naturalWidth > 0)", 60)
    shot("library")
except Exception as e:
    check("the browser run finished", False, repr(e))
finally:
    b.close(); server.close(); archive.close()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
