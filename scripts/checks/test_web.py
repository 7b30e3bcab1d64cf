"""The web app in a real headless Chromium (Debian's chromium and chromium-driver, WebGL2 through
SwiftShader), driven over the W3C WebDriver protocol, against a real `proteinar serve` whose archive
is a local stand-in for the RCSB (files, Search API, Data API) on loopback.

Adding to the library (an upload, keeping a design, Add to the library) needs an account; looking
does not: the run starts signed out (library entries open, Get asks the archive; an upload says to
sign in, with a link), then registers through that link and carries on signed in (My molecules,
Keep, Delete). Opening any entry without an account, Add to the library and a busy server's retries
are checked on servers of their own (proteinar_testing/open_any_entry_checks.py). Every page must
keep to the server's Content-Security-Policy: a console message naming it fails the run.
One flow in one browser, a test for each of its steps in order (the browser, server and stand-in
archive shared: conftest.py's session fixture `web`, which test_web_own_browsers.py's runs in
browsers and servers of their own use after it). A step's checks print ok/FAIL and the test fails
listing each FAIL; when a step of the flow stops on an error, the flow's later steps are skipped,
saying where it stopped. --screenshots DIR keeps the pictures."""
import os
import subprocess
import time
import urllib.request

import pytest

from in_browser.design_screen import check_design_screen
from in_browser.page_glb_decoding import check_page_decodes_glb
from in_browser.web_page import CANVAS, PHONE_URL
from proteinar_testing.browser import fill_registration
from proteinar_testing.qr_codes import decode_qr
from proteinar_testing.paths import CHECK_USDZ, FIXTURES

pytestmark = pytest.mark.browser

# The box of the 3D view's drawn (not white) pixels, as fractions of the view: [width, height, smaller side].
COVER = """const c = document.getElementById('viewer'); if (!c.width) return null;
const t = document.createElement('canvas'); t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);
const d = x.getImageData(0, 0, c.width, c.height).data; let x0 = c.width, x1 = -1, y0 = c.height, y1 = -1;
for (let y = 0; y < c.height; y += 2) for (let i = y * c.width * 4, k = 0; k < c.width; k += 2, i += 8)
  if (d[i] < 235 || d[i+1] < 235 || d[i+2] < 235) { x0 = Math.min(x0, k); x1 = Math.max(x1, k); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
const side = Math.min(c.width, c.height);
return x1 < 0 ? null : [(x1 - x0) / c.width, (y1 - y0) / c.height, Math.max(x1 - x0, y1 - y0) / side, Math.min(x1 - x0, y1 - y0) / side];"""
TAB = "\ue004"
ENTER = "\ue007"

def tab_to(browser, css, presses=60):
    """Presses Tab until `css` has focus: the control is reachable by keyboard alone."""
    for _ in range(presses):
        if browser.js("return document.activeElement && document.activeElement.matches(arguments[0])", css): return True
        browser.keys(TAB)
    return False

STATUS_ERROR = "const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent"
# The status line's "… needs an account. Sign in or register, then …" with its link to the sign-in page.
NEEDS_ACCOUNT = ("const s = document.getElementById('status'); const a = s.querySelector('a[href^=\"#/signin/\"]');"
                 " return s.classList.contains('error') && a && /account/.test(s.textContent) && [s.textContent, a.getAttribute('href')]")
LIBRARY_IDS = "return [...document.querySelectorAll('#library-list li[data-molecule]')].map(li => li.dataset.molecule)"



def test_landing_and_introduction_lead_to_explore(web, checks):
    with web.flow.step():
        b, base = web.browser, web.base
        click, wait = b.click, b.wait
        check, shot = checks.check, web.shot
        b.go(base + "/")
        check("landing page lists the sections", bool(wait("return document.querySelectorAll('.cards .card').length >= 5")))
        shot("landing")
        click("a.card[href='#/intro']")
        check("introduction shows three pages and Get started", bool(wait("return !document.getElementById('view-intro').hidden && document.querySelectorAll('#intro-pages .page').length === 3")))
        shot("intro")
        click("#view-intro a.button.primary")
        check("Get started opens Explore", bool(wait("return !document.getElementById('view-explore').hidden")))


def test_get_1ake_draws_it_with_numbers_a_student_can_copy(web, checks):
    """Words that are not an ID are searched for; Get 1AKE draws it, its details give its numbers."""
    with web.flow.step():
        b = web.browser
        js, type_into, wait = b.js, b.type_into, b.wait
        check, shot = checks.check, web.shot
        # Words that are not an ID are searched for; with no match the page says so, as no error.
        type_into("#entry-id", "hello!\ue007")
        bad = wait("const s = document.getElementById('status'); return !s.classList.contains('error') && s.textContent.includes('No entries match') && s.textContent")
        check("words in the ID box are searched for: “No entries match …”, not an error", bool(bad and "hello!" in bad), str(bad))
        js("document.getElementById('entry-id').value = ''")

        # Get 1AKE (Enter submits): the canvas shows the molecule, the details panel its title.
        type_into("#entry-id", "1AKE\ue007")
        drawn = wait(CANVAS.replace("return [n, h, d.length / 4];", "return n > d.length / 4 * 0.02 ? [n, h] : null;"), 90)
        check("typing 1AKE draws the molecule in the middle of the view", bool(drawn), str(drawn))
        time.sleep(1.0)  # the model settles (a coarse first frame, then the full one)
        cover = js(COVER)
        check("the 1AKE model fills its view: its longer side at least 60 % of the view's smaller side",
              bool(cover and cover[2] >= 0.6), str(cover))
        title = wait("const t = document.getElementById('details-title'); return !document.getElementById('details').hidden && t.textContent")
        check("the details panel shows the title", bool(title and "1AKE" in title), str(title))
        numbers = js("""const t = (id) => document.getElementById(id).textContent;
                        return [t('details-facts'), t('details-chains').split('Chain B')[0], t('details-ligands')]""")
        check("the details give numbers a student can copy: 214 amino acids in chain A, 428 in all, ligands and waters apart, AP5 named",
              bool(numbers and "214 amino acids" in numbers[1] and "Amino acids428" in numbers[0] and "Waters" in numbers[0]
                   and "Residues" not in numbers[0] and "AP5: bis(adenosine)-5′-pentaphosphate × 2" in numbers[2]), str(numbers))
        check("keyboard focus left the ID field after Get (the phone keyboard closes)", js("return document.activeElement !== document.getElementById('entry-id')"))
        check("signed out, an entry the library has opens without an account (and no Keep is offered)",
              js("return document.getElementById('status').textContent.startsWith('1AKE') && !document.querySelector('#details-keep button')"))
        check("on http://127.0.0.1 (a secure context) the notice about HTTPS is not shown",
              js("return window.isSecureContext === true && document.getElementById('insecure-notice').hidden"))
        shot("explore")


def test_static_files_are_versioned_and_cached_for_a_year(web, checks):
    with web.flow.step():
        b, base = web.browser, web.base
        js = b.js
        check = checks.check
        # Static files: the page names them under /v/<version>/, kept for a year; the page is revalidated.
        with urllib.request.urlopen(base + "/", timeout=30) as r:
            page, page_cache = r.read().decode(), r.headers.get("Cache-Control")
        import re
        versioned = re.findall(r'(?:src|href)="(/v/[0-9a-f]{12}/[^"]+)"', page)
        cached = []
        for path in versioned:
            with urllib.request.urlopen(base + path, timeout=30) as r:
                cached.append(r.headers.get("Cache-Control"))
        check("index.html is revalidated (no-cache) and names its script and stylesheet under /v/<version>/, cached for a year (immutable)",
              page_cache == "no-cache" and len(versioned) == 2 and all(c == "public, max-age=31536000, immutable" for c in cached),
              f"{page_cache!r} {versioned} {cached}")
        check("the page's modules were loaded from the versioned folder",
              js("return performance.getEntriesByType('resource').some(e => /\\/v\\/[0-9a-f]{12}\\/js\\/viewer\\.js$/.test(e.name))"))


def test_the_page_decodes_the_meshopt_glb(web, checks):
    with web.flow.step():
        b, base = web.browser, web.base
        check = checks.check
        # The viewer's GLB is the meshopt-compressed one, decoded in the page: held to the server's
        # quantised file and to gltfpack's own compressed files.
        check_page_decodes_glb(b, base, check)


def test_changing_the_style_rerenders_and_the_camera_yields_a_png(web, checks):
    with web.flow.step():
        b = web.browser
        js, click, wait = b.js, b.click, b.wait
        check = checks.check
        # Changing style re-renders.
        before = js(CANVAS)
        js("const s = document.getElementById('style'); s.value = 'spacefill'; s.dispatchEvent(new Event('change'));")
        after = wait("const v = (() => {" + CANVAS + "})(); return v && v[1] !== arguments[0] && document.getElementById('status').textContent.startsWith('1AKE') ? v : null;", 90, before[1] if before else 0)
        check("changing the style re-renders the view", bool(after))

        # The camera button yields a PNG.
        # The saved file is read from the Blob its address was made for: fetching a blob: address would
        # break the page's connect-src 'self'.
        js("""window.__saved = null; window.__blobs = {}; const click = HTMLAnchorElement.prototype.click;
              const made = URL.createObjectURL; URL.createObjectURL = (blob) => { const url = made(blob); window.__blobs[url] = blob; return url; };
              HTMLAnchorElement.prototype.click = function () { if (this.download) { window.__saved = this.href; return; } return click.call(this); };""")
        click("#camera-button")
        png = wait("return window.__saved && window.__blobs[window.__saved].arrayBuffer().then(b => Array.from(new Uint8Array(b.slice(0, 8))))", 30)
        check("the camera button yields a PNG", png is not None and png[:4] == [0x89, 0x50, 0x4E, 0x47], str(png))


def test_search_lists_results_controls_are_named_and_arrow_keys_redraw(web, checks):
    with web.flow.step():
        b = web.browser
        js, type_into, wait = b.js, b.type_into, b.wait
        check, shot = checks.check, web.shot
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
                          .filter(e => !e.closest('[hidden], dialog:not([open])') && !e.classList.contains('visually-hidden') && !named(e)).map(e => e.outerHTML.slice(0, 80));""")
        check("every visible interactive element has an accessible name", unnamed == [], str(unnamed))

        # Keyboard: the 3D view takes focus and answers arrow keys.
        frames = js("return window.__frames = 0, document.getElementById('viewer').addEventListener('viewer-frame', () => window.__frames++), document.getElementById('viewer').focus(), document.activeElement.id")
        b.keys("\ue014", "\ue014", "+")
        check("arrow keys and + redraw the focused 3D view", bool(wait("return window.__frames > 0", 20)))


def test_signed_out_get_of_an_entry_the_library_lacks_asks_the_archive(web, checks):
    with web.flow.step():
        b = web.browser
        js, type_into, wait = b.js, b.type_into, b.wait
        check = checks.check
        # Signed out, Get of an entry the library does not have asks the archive all the same (looking is
        # not adding): this stand-in has no 4HHB, so the answer names it, and no sign-in is asked for.
        js("document.getElementById('entry-id').value = ''")
        type_into("#entry-id", "4HHB\ue007")
        said = wait(STATUS_ERROR, 60)
        check("signed out, Get of an entry the library lacks (4HHB) asks the archive with no account: its answer names the entry, no sign-in asked",
              bool(said and "4HHB" in said and "account" not in said) and not js("return !!document.querySelector('#status a[href^=\"#/signin/\"]')"),
              str(said or js("return document.getElementById('status').textContent")))


def test_the_library_signed_out_then_signed_in_upload_keep_and_delete(web, checks):
    """The library signed out (no Delete, Keep, My molecules; an upload refused with a link to sign in), then
    signed in through that link: the upload, My molecules, a bad upload, Keep, Delete."""
    with web.flow.step():
        b, server, base = web.browser, web.server, web.base
        js, find, click, wait = b.js, b.find, b.click, b.wait
        check, shot = checks.check, web.shot
        # Library.
        b.go(base + "/#/library")
        items = wait("return document.querySelectorAll('#library-list li img').length")
        check("the library lists molecules with thumbnails", bool(items and items >= 10), str(items))
        loaded = wait("return [...document.querySelectorAll('#library-list img')].slice(0, 4).every(i => i.complete && i.naturalWidth > 0)", 60)
        check("the library's first thumbnails load (a size the server offers)", bool(loaded),
              str(js("return [...document.querySelectorAll('#library-list img')].slice(0, 4).map(i => [i.src.split('/api/')[1], i.naturalWidth])")))
        shot("library")
        # (Keep offline is offered to everyone: it keeps files in this browser, not in an account.)
        check("signed out, the library offers no Delete, no Keep and no My molecules",
              js("return !document.querySelector('#library-list button:not(.keep-offline)') && document.getElementById('library-mine-field').hidden"
                 " && document.getElementById('library-account').textContent.includes('sign in')"))

        # Signed out, an upload is refused with a way to sign in; the library stays as it was.
        good = os.path.join(FIXTURES, "benzene.xyz")
        count = js("return document.querySelectorAll('#library-list li img').length")
        b.wd("POST", b.s + f"/element/{find('#upload-file')}/value", {"text": good})
        said = wait(NEEDS_ACCOUNT, 30)
        check("signed out, an upload says adding to the library needs an account, with a link to sign in",
              bool(said and "benzene.xyz" in said[0] and said[1] == "#/signin/%23%2Flibrary"), str(said or js("return document.getElementById('status').textContent")))
        check("the library is unchanged after the refused upload", js("return document.querySelectorAll('#library-list li img').length") == count)

        # Sign in through that link (registering: the first account of this server, its administrator),
        # back to the library, and the same upload works.
        click("#status a[href^='#/signin/']")
        wait("return !document.getElementById('view-signin').hidden", 10)
        back = fill_registration(b, "Rosalind", "rosalind@example.org", "#/library")
        bar = wait("const t = document.getElementById('library-account').textContent; return t.includes('Signed in as Rosalind') && t", 20)
        check("the message's link registers and comes back to the library, signed in as the administrator",
              bool(back and bar and "(administrator)" in bar), str(js("return [location.hash, document.getElementById('library-account').textContent, document.getElementById('register-error').textContent]")))
        b.wd("POST", b.s + f"/element/{find('#upload-file')}/value", {"text": good})
        added = wait("const s = document.getElementById('status').textContent; return s.startsWith('Added ') && s", 60)
        uploaded = added.split(":")[0].removeprefix("Added ").strip() if added else None
        check("signed in, the same upload is added to the library",
              bool(added and wait("return document.querySelector(`#library-list li[data-molecule='${arguments[0]}'] img`)", 20, uploaded)), str(added))

        # My molecules: what this account added, and only that.
        click("#library-mine")
        mine = wait("return location.hash === '#/library/mine' && document.getElementById('library-title').textContent === 'My molecules'"
                    " && !document.getElementById('library-list').hasAttribute('aria-busy') && (() => { " + LIBRARY_IDS + " })()", 20)
        check("My molecules lists what was added (the upload), and only that", mine == [uploaded], str(mine))
        shot("library-mine")

        # An unreadable upload names the file and leaves the library as it was.
        click("#library-mine")
        wait("return location.hash === '#/library' && document.querySelectorAll('#library-list li img').length > 1", 20)
        bad = os.path.join(server.tmp, "notes.pdb")
        with open(bad, "w") as f: f.write("this is not a structure file\n")
        count = js("return document.querySelectorAll('#library-list li img').length")
        b.wd("POST", b.s + f"/element/{find('#upload-file')}/value", {"text": bad})
        err = wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent", 30)
        check("an unreadable upload shows an error naming the file", bool(err and "notes.pdb" in err and "account" not in err), str(err))
        check("the library is unchanged after a bad upload", js("return document.querySelectorAll('#library-list li img').length") == count)

        # Keep on a molecule's details: 1AKE joins My molecules; pressed again, it leaves.
        b.go(base + "/#/explore/1AKE")
        keep = "#details-keep button.keep"
        shown = wait(f"const k = document.querySelector(\"{keep}\"); return k && k.getAttribute('aria-pressed')", 60)
        click(keep)
        kept = wait(f"return document.querySelector(\"{keep}\").getAttribute('aria-pressed') === 'true' && document.getElementById('status').textContent", 20)
        b.go(base + "/#/library/mine")
        listed = wait("return !document.getElementById('library-list').hasAttribute('aria-busy') && (() => { const l = (() => { " + LIBRARY_IDS + " })(); return l.length === 2 && l; })()", 20)
        check("Keep on a molecule's details puts it in My molecules", shown == "false" and bool(kept and "Kept 1AKE" in kept) and listed and "1AKE" in listed,
              f"{shown!r} {kept!r} {listed!r}")
        b.go(base + "/#/explore/1AKE")
        wait(f"const k = document.querySelector(\"{keep}\"); return k && k.getAttribute('aria-pressed') === 'true'", 60)
        click(keep)
        unkept = wait(f"return document.querySelector(\"{keep}\").getAttribute('aria-pressed') === 'false' && document.getElementById('status').textContent", 20)
        b.go(base + "/#/library/mine")
        left = wait("return !document.getElementById('library-list').hasAttribute('aria-busy') && (() => { const l = (() => { " + LIBRARY_IDS + " })(); return l.length === 1 && l; })()", 20)
        check("pressed again, Keep takes it off My molecules", bool(unkept and "Took 1AKE off" in unkept) and left == [uploaded], f"{unkept!r} {left!r}")

        # Delete, offered once signed in: the person who added the upload deletes it.
        b.go(base + "/#/library")
        # The whole library's list, rendered (not My molecules' list, which has a Delete button too and
        # is replaced when the route's render lands: a click on it would hit a removed element).
        wait("return document.getElementById('library-title').textContent === 'Library' && !document.getElementById('library-list').hasAttribute('aria-busy')"
             f" && document.querySelector(\"#library-list button[aria-label='Delete {uploaded}']\")", 20)
        js("window.confirm = () => true")
        click(f"#library-list button[aria-label='Delete {uploaded}']")
        gone = wait(f"return document.getElementById('status').textContent === 'Deleted {uploaded}.' && !document.querySelector(\"#library-list li[data-molecule='{uploaded}']\")", 20)
        check("signed in, Delete is offered, and the person who added an upload deletes it", bool(gone), str(js("return document.getElementById('status').textContent")))


def test_an_unknown_entry_says_what_to_do_and_a_name_in_the_id_box_is_searched(web, checks):
    with web.flow.step():
        b, base = web.browser, web.base
        js, type_into, wait = b.js, b.type_into, b.wait
        check = checks.check
        # An entry the archive does not have.
        b.go(base + "/#/explore")
        wait("return !document.getElementById('view-explore').hidden")
        js("document.getElementById('entry-id').value = ''")
        type_into("#entry-id", "9ZZZ\ue007")
        err = wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent", 60)
        check("an unknown entry says so in a sentence with what to do next, the server's words behind Details",
              bool(err and "There is no entry “9ZZZ”" in err and "search for it by name" in err)
              and js("const d = document.querySelector('#status details.status-details'); return !!d && !d.open") is True, str(err))
        # One box for IDs and names: words typed where an ID goes are searched for, no red error.
        js("document.getElementById('entry-id').value = ''")
        type_into("#entry-id", "kinase\ue007")
        found = wait("const s = document.getElementById('status'); return !s.classList.contains('error')"
                     " && document.querySelectorAll('#search-results li button').length > 0 && s.textContent", 60)
        check("a name typed in the ID box is searched for (results, no error)", bool(found),
              str(js("return document.getElementById('status').textContent")))


def test_a_wide_screen_puts_the_view_beside_the_controls(web, checks):
    with web.flow.step():
        b = web.browser
        wait = b.wait
        check, shot = checks.check, web.shot
        # A wide screen: the view beside the controls, not one stretched column.
        b.wd("POST", b.s + "/window/rect", {"width": 1280, "height": 800})
        side = wait("""const v = document.querySelector('#view-explore .stage').getBoundingClientRect(), f = document.getElementById('get-form').getBoundingClientRect();
                       return innerWidth >= 1100 && [Math.round(v.left), Math.round(f.right), Math.round(v.height), innerHeight, document.documentElement.scrollWidth <= innerWidth]""", 10)
        check("at 1280 × 800 Explore puts the 3D view beside its controls, most of the window high, with nothing wider than the window",
              bool(side and side[0] >= side[1] and side[2] >= 0.6 * side[3] and side[4]), str(side))
        shot("explore-desktop")
        b.wd("POST", b.s + "/window/rect", {"width": 900, "height": 1200})


def test_desktop_ar_explains_with_a_qr_code_a_phone_can_reach(web, checks):
    with web.flow.step():
        b, base = web.browser, web.base
        js, click, wait = b.js, b.click, b.wait
        check, shot = checks.check, web.shot
        # Desktop AR: an explanation and a QR code of the page that a phone can scan.
        b.go(base + "/#/explore/1AKE")
        back = wait("return document.getElementById('status').textContent.startsWith('1AKE')", 90)
        check("back on Explore (#/explore/1AKE), the status names the molecule, not the earlier error", bool(back),
              str(js("return document.getElementById('status').textContent")))
        click("#ar-button")
        qr = wait("const d = document.getElementById('ar-help'); const q = document.getElementById('ar-qr'); return d.open && !q.hidden && q.width > 0 && q.toDataURL('image/png')", 20)
        want = PHONE_URL + "/#/explore/1AKE"
        got = decode_qr(qr) if qr else None
        check("on a desktop, View in AR explains and shows a QR code of the page at an address a phone can reach (--public-url, not 127.0.0.1)",
              got == want and js("return document.getElementById('ar-help-url').textContent") == want, f"decoded {got!r}, wanted {want!r}")
        shot("ar-desktop")
        b.keys("\ue00c")  # Escape closes the dialog
        check("Escape closes the AR explanation", bool(wait("return !document.getElementById('ar-help').open", 5)))


def test_keyboard_alone_from_the_landing_page_to_the_camera_and_menu(web, checks):
    with web.flow.step():
        b, base = web.browser, web.base
        js, wait = b.js, b.wait
        check = checks.check
        # Keyboard alone: landing → Explore → Get 1AKE → style → camera, by Tab, Enter and arrow keys.
        # The landing page by its own address: the bare one reopens the last molecule seen.
        b.go(base + "/#/")
        wait("return document.querySelectorAll('.cards .card').length >= 5")
        ok = tab_to(b, "a.card[href='#/explore']")
        if ok: b.keys(ENTER)
        ok = ok and bool(wait("return !document.getElementById('view-explore').hidden", 10)) and tab_to(b, "#entry-id")
        if ok: b.keys(*"5PTI", ENTER)
        ok = ok and bool(wait("return document.getElementById('status').textContent.startsWith('5PTI')", 90))
        check("keyboard only: Tab to Explore, type an ID, Enter fetches and shows it", ok)
        ok = tab_to(b, "#style")
        if ok:
            before = js(CANVAS)
            b.keys("\ue015")  # ArrowDown picks the next style
            ok = bool(wait("const v = (() => {" + CANVAS + "})(); return v && v[1] !== arguments[0] && document.getElementById('style').value !== 'auto' && document.getElementById('status').textContent.startsWith('5PTI')", 90, before[1] if before else 0))
        check("keyboard only: the style picker changes the view with the arrow keys", ok)
        js("""window.__saved = null; const click = HTMLAnchorElement.prototype.click;
              HTMLAnchorElement.prototype.click = function () { if (this.download) { window.__saved = this.href; return; } return click.call(this); };""")
        js("window.scrollTo(0, 0)")
        ok = tab_to(b, "#camera-button")
        if ok: b.keys(ENTER)
        check("keyboard only: the camera button saves a picture", ok and bool(wait("return window.__saved", 20)))
        ok = tab_to(b, "#menu-button")
        if ok: b.keys(ENTER)
        ok = ok and bool(wait("return document.getElementById('menu').open", 5))
        if ok: b.keys("\ue00c")
        check("keyboard only: the menu opens with Enter and closes with Escape", ok and bool(wait("return !document.getElementById('menu').open", 5)))


def test_the_design_screen(web, checks):
    with web.flow.step():
        b, base = web.browser, web.base
        check, shot = checks.check, web.shot
        # Design: pieces, their AR link before Try, More options, Try, Try again, an impossible design.
        check_design_screen(b, base, check, CANVAS.replace("getElementById('viewer')", "getElementById('design-viewer')"), shot)


def test_ios_ar_quick_look_links_are_usdz_that_pass_usdz_check(web, checks):
    with web.flow.step():
        b, server, base = web.browser, web.server, web.base
        js, click, wait = b.js, b.click, b.wait
        check = checks.check
        # iOS: AR Quick Look. Chromium has no Quick Look, so the page is told the link type is supported
        # (what Safari on iOS answers); the link must then point at a USDZ that passes Pixar's checker.
        script = b.cdp("Page.addScriptToEvaluateOnNewDocument", {"source":
            "const s = DOMTokenList.prototype.supports; DOMTokenList.prototype.supports = function (t) { return t === 'ar' || s.call(this, t); };"})
        def quick_look(page, button, slot, path, name, clicks=()):
            b.go(base + page)  # a new document, so the script above runs first
            for css in clicks: wait(f"return !!document.querySelector(\"{css}\")", 30) and click(css)
            href = wait(f"const a = document.getElementById('{button}'); return a && a.rel === 'ar' && a.querySelector('img') && a.href", 90)
            ok = bool(href and path in href)
            if not ok:
                href = js(f"return [location.href, document.getElementById('{slot}').innerHTML, document.getElementById('status').textContent]")
            else:
                usdz = os.path.join(server.tmp, f"quicklook-{name}.usdz")
                with urllib.request.urlopen(href, timeout=120) as r, open(usdz, "wb") as f: f.write(r.read())
                r = subprocess.run(["python3", CHECK_USDZ, usdz], capture_output=True, text=True)
                ok = r.returncode == 0
                if not ok: href += " " + r.stdout[-400:]
            return ok, href
        ok, href = quick_look("/?ios#/explore/1AKE", "ar-button", "ar-slot", "/api/molecules/1AKE/model.usdz", "1AKE")
        check("on iOS, View in AR is a Quick Look link (rel=ar, wrapping an image) to a USDZ that passes usdz-check", ok, str(href))
        shown = wait("const s = document.querySelector('#ar-slot .download-size'); return s && s.textContent", 60)
        # What goes over the wire to a phone, which accepts gzip as the page's browser does.
        wire = urllib.request.Request(base + "/api/molecules/1AKE/model.usdz", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(wire, timeout=120) as r:
            size = len(r.read())
        expected = f"AR model, {size / 1e6:.1f} MB" if size >= 1e6 else f"AR model, {max(1, round(size / 1e3))} KB"
        check("beside View in AR the page says what the phone downloads (the USDZ as sent, gzip-compressed)", shown == expected, f"{shown!r}, sent {size} bytes")
        ok, href = quick_look("/?ios-build#/design/strand:6,flexible-coil:2,strand:6/1", "design-ar-button", "design-ar-slot", "/api/designs/model.usdz", "design")
        check("on iOS, a built design's Quick Look link is a USDZ that passes usdz-check", ok, str(href))
        ok, href = quick_look("/?ios-pieces#/design", "design-pieces-ar-button", "design-pieces-ar-slot", "/api/designs/pieces.usdz", "pieces",
                              clicks=["#view-design .piece[data-kind='strand']", "#view-design .piece[data-kind='rigid-coil']"])
        check("on iOS, before Try, See pieces in AR is a Quick Look link to the pieces' USDZ that passes usdz-check", ok, str(href))
        b.cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
