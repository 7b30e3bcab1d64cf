"""test_web_own_browsers.py's checks of the gestures, the controls the original apps had and the help, in a
phone-sized page (390 × 844) with touch: the introduction closed by a downward swipe; Previous and
Next through the library, and the start page offering to continue with the last molecule seen; a
two-finger twist turning the 3D view; a double tap opening the style sheet; Hide hydrogens in the
model's address; search without autocorrection, with More results; Help on every screen and in a
room; every visible control named and at least 44 px on the main screens; and no screen wider than
the phone. Runs in a browser of its own against the run's server (its starter library holds 1AKE),
signed out, then registered to create a room."""
import os

from proteinar_testing.browser import Browser, register_through_page

WIDTH, HEIGHT = 390, 844
MIN_TARGET_PX = 44

# Pixels of the 3D view's middle that differ from the white background, and a hash of them.
CANVAS = """const c = document.getElementById('viewer'); if (!c.width) return null;
const t = document.createElement('canvas'); t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);
const d = x.getImageData(c.width * .2, c.height * .2, c.width * .6, c.height * .6).data; let n = 0, h = 0;
for (let i = 0; i < d.length; i += 4) { if (d[i] < 245 || d[i+1] < 245 || d[i+2] < 245) n++; h = (h * 31 + d[i] + d[i+1] * 3 + d[i+2] * 7) | 0; }
return [n, h];"""

# The drawn pixels of the whole 3D view: how many, and the angle of their long axis on the screen
# (degrees, clockwise from the right, from their second moments). A turn about the line of sight
# turns that axis by the same angle; a pinch or a slide does not turn it.
AXIS = """const c = document.getElementById('viewer'); if (!c.width) return null;
const t = document.createElement('canvas'); t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);
const d = x.getImageData(0, 0, c.width, c.height).data; let n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
for (let i = 0, p = 0; i < d.length; i += 4, p++) {
  if (d[i] > 240 && d[i+1] > 240 && d[i+2] > 240) continue;
  const px = p % c.width, py = Math.floor(p / c.width); n++; sx += px; sy += py; sxx += px * px; syy += py * py; sxy += px * py; }
if (!n) return [0, 0];
const mx = sx / n, my = sy / n, a = sxx / n - mx * mx, b = syy / n - my * my, cxy = sxy / n - mx * my;
return [n, 0.5 * Math.atan2(2 * cxy, a - b) * 180 / Math.PI];"""

# Synthetic fingers on the 3D view, as a phone's touch screen sends them (pointer events).
POINTERS = """window.__finger = (type, id, x, y) => {
  const c = document.getElementById('viewer'); const r = c.getBoundingClientRect();
  c.dispatchEvent(new PointerEvent(type, { pointerId: id, pointerType: 'touch', isPrimary: id === 1, button: type === 'pointermove' ? -1 : 0,
    buttons: type === 'pointerup' ? 0 : 1, clientX: r.left + x, clientY: r.top + y, bubbles: true, cancelable: true }));
};"""

# Two fingers 120 px apart about the view's centre, turned 60° in six steps: no pinch, no slide.
TWIST = POINTERS + """const c = document.getElementById('viewer'); const cx = c.clientWidth / 2, cy = c.clientHeight / 2, r = 60;
const at = (deg) => { const a = deg * Math.PI / 180; return [[cx - r * Math.cos(a), cy - r * Math.sin(a)], [cx + r * Math.cos(a), cy + r * Math.sin(a)]]; };
let [p, q] = at(0); __finger('pointerdown', 1, ...p); __finger('pointerdown', 2, ...q);
for (let deg = 10; deg <= 60; deg += 10) { [p, q] = at(deg); __finger('pointermove', 1, ...p); __finger('pointermove', 2, ...q); }
__finger('pointerup', 1, ...p); __finger('pointerup', 2, ...q);"""

DOUBLE_TAP = POINTERS + """const c = document.getElementById('viewer'); const x = c.clientWidth / 2, y = c.clientHeight / 2;
for (const _ of [0, 1]) { __finger('pointerdown', 1, x, y); __finger('pointerup', 1, x, y); }"""

# A finger drawn down the introduction: 200 px down, 10 across.
SWIPE_DOWN = """const v = document.getElementById('view-intro'); const r = v.getBoundingClientRect();
const touch = (x, y) => new Touch({ identifier: 7, target: v, clientX: r.left + x, clientY: r.top + y });
const send = (type, t, down) => v.dispatchEvent(new TouchEvent(type, { touches: down ? [t] : [], changedTouches: [t], bubbles: true, cancelable: true }));
send('touchstart', touch(100, 40), true); send('touchmove', touch(105, 140), true); send('touchend', touch(110, 240), false);"""

# Search answered in the page: the stand-in archive ignores paging, so 25 made-up hits, served a
# page at a time as the server's /api/search does (start, rows), show what More results asks for.
SEARCH_STUB = """window.__searches = []; const real = window.fetch;
window.fetch = (url, options) => {
  const u = new URL(String(url), location.href);
  if (u.pathname !== '/api/search') return real(url, options);
  window.__searches.push(u.search);
  const start = Number(u.searchParams.get('start') || 0), rows = Number(u.searchParams.get('rows') || 10);
  const hits = []; for (let i = start; i < Math.min(25, start + rows); i++) hits.push({ id: `${i + 1}XYZ`.slice(-4), title: `Made-up result ${i + 1}` });
  return Promise.resolve(new Response(JSON.stringify({ total: 25, hits }), { headers: { 'Content-Type': 'application/json' } }));
};"""

# Visible controls with no accessible name, and those smaller than MIN_TARGET_PX either way. A
# checkbox's target is its label; a link inside a sentence (WCAG's inline exception) is not measured.
AUDIT = """const min = arguments[0], screenWidth = arguments[1];
const shown = (e) => !e.closest('[hidden], dialog:not([open])') && !e.classList.contains('visually-hidden') && e.getClientRects().length > 0;
const named = (e) => (e.getAttribute('aria-label') || (e.labels && [...e.labels].map(l => l.textContent).join('').trim())
  || (e.getAttribute('aria-labelledby') && document.getElementById(e.getAttribute('aria-labelledby'))?.textContent)
  || e.textContent.trim() || e.getAttribute('title') || e.querySelector('img[alt]')?.alt || '').trim();
// In a sentence: its paragraph has words of its own once every link's text is taken out.
const inline = (a) => { const p = a.closest('p, li, dd'); if (!p || a.classList.contains('button')) return false;
  let words = p.textContent; for (const l of p.querySelectorAll('a')) words = words.replace(l.textContent, ''); return /[A-Za-z]{3}/.test(words); };
// Off the page until focused (the skip link): nothing to tap.
const offscreen = (e) => e.getBoundingClientRect().right <= 0;
const controls = [...document.querySelectorAll('button, a[href], input, select, summary, textarea, [tabindex]:not([tabindex="-1"])')].filter(e => shown(e) && !offscreen(e));
const unnamed = controls.filter(e => !named(e)).map(e => e.outerHTML.slice(0, 80));
const small = controls.filter(e => !(e.tagName === 'A' && inline(e))).map(e => {
  const target = (e.type === 'checkbox' || e.type === 'radio') && e.closest('label') ? e.closest('label') : e;
  const r = target.getBoundingClientRect();
  return [e.id || e.textContent.trim().slice(0, 30) || e.outerHTML.slice(0, 60), Math.round(r.width), Math.round(r.height)];
}).filter(([, w, h]) => w < min - 0.5 || h < min - 0.5);
// Wider than the phone's screen: the page pans sideways and is drawn smaller (Lighthouse's "content
// sized to the viewport"). A phone then widens the page to fit it (innerWidth follows): the screen's width is the measure.
const wide = document.documentElement.scrollWidth > screenWidth
  ? [...document.querySelectorAll('main *')].filter(e => e.getClientRects().length && e.getBoundingClientRect().right > screenWidth + 1).map(e => e.outerHTML.slice(0, 60)).slice(0, 3) : [];
// Ids used twice: the page reads the first, whatever a person changed in the second (a room's settings once).
const seen = new Map(); for (const e of document.querySelectorAll('[id]')) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
const duplicates = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
return { unnamed, small, wide, duplicates, top: Math.round(window.scrollY), count: controls.length };"""


def check_gestures_and_help(base, check, docs, keep_csp):
    """`docs`: the folder for the phone-sized screenshots (style-sheet.png, help-design.png), or None;
    `keep_csp(browser)` collects the browser's console messages naming the page's policy."""
    b = Browser(width=WIDTH, height=HEIGHT)
    js, wait, click = b.js, b.wait, b.click
    audits = {}

    def audit(screen):
        audits[screen] = js(AUDIT, MIN_TARGET_PX, WIDTH)

    try:
        b.cdp("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": True})
        b.cdp("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})

        b.go(base + "/#/")
        wait("return document.querySelectorAll('.cards .card').length >= 5", 30)
        audit("landing")
        b.go(base + "/#/intro")
        wait("return !document.getElementById('view-intro').hidden", 10)
        audit("introduction")
        js(SWIPE_DOWN)
        check("phone: a downward swipe closes the introduction (to Explore)",
              bool(wait("return location.hash === '#/explore' && !document.getElementById('view-explore').hidden", 5)), js("return location.hash"))
        if js("return location.hash") != "#/explore": b.go(base + "/#/explore")  # the checks below go on without it

        # Search: no autocorrection; More results asks for the next page and adds it below.
        attrs = js("const s = document.getElementById('search-words'); return ['autocorrect', 'autocapitalize', 'spellcheck'].map(a => s.getAttribute(a))")
        check("phone: the search box has autocorrect, autocapitalisation and spellcheck off", attrs == ["off", "none", "false"], str(attrs))
        js(SEARCH_STUB)
        b.type_into("#search-words", "kinase\ue007")
        first = wait("const n = document.querySelectorAll('#search-results button').length; return n === 10 && !document.getElementById('search-more-row').hidden && n", 10)
        audit("explore (search results)")
        if first: click("#search-more")
        second = wait("return document.querySelectorAll('#search-results button').length === 20 && window.__searches.slice()", 10)
        if second: click("#search-more")
        third = wait("return document.querySelectorAll('#search-results button').length === 25 && document.getElementById('search-more-row').hidden", 10)
        check("phone: More results loads the next page of the search (start=10), until none are left",
              bool(first and second and "start=10" in second[1] and third), f"{first} {second} {third}")

        # Library: Open a molecule, then Next and Previous step through the list.
        b.go(base + "/#/library")
        ids = wait("const l = [...document.querySelectorAll('#library-list li[data-molecule]')].map(li => li.dataset.molecule); return l.length > 2 && l", 30)
        audit("library")
        start = ids.index("1AKE") if ids and "1AKE" in ids else 0
        if start == len(ids or []) - 1: start -= 1
        here, after = (ids[start], ids[start + 1]) if ids else (None, None)
        shown = "return document.getElementById('details-title').textContent.startsWith(arguments[0] + ':') && !document.getElementById('library-steps').hidden"
        if ids: click(f"#library-list li[data-molecule='{here}'] a.button")
        opened = wait(shown, 60, here)
        nxt = js("const a = document.getElementById('library-next'); return !a.hidden && [a.getAttribute('href'), a.getAttribute('aria-label')]")
        if opened and nxt: click("#library-next")
        moved = wait(shown + " && location.hash === '#/explore/' + arguments[0]", 60, after)
        if moved: click("#library-previous")
        back = wait(shown + " && location.hash === '#/explore/' + arguments[0]", 60, here)
        check("phone: a molecule opened from the library offers Next and Previous, which move to its neighbours in the list",
              bool(opened and nxt and moved and back and nxt[0] == f"#/explore/{after}"), f"{here}->{after}: {opened} {nxt} {moved} {back}")

        # The model shown: the twist, the style sheet and Hide hydrogens act on it.
        loaded = wait("return document.getElementById('status').textContent.startsWith(arguments[0] + ':') && (() => {" + CANVAS + "})()", 120, here)
        b.wait("return new Promise(r => setTimeout(() => r(true), 600))", 5)  # the first frames settle
        before = js(AXIS)
        js(TWIST)
        b.wait("return new Promise(r => setTimeout(() => r(true), 600))", 5)  # the full model drawn again after the move
        after = js(AXIS)
        # The long axis turned by the twist's 60° clockwise (an axis: modulo 180°).
        turned = ((after[1] - before[1] + 90) % 180 - 90) if before and after else None
        check("phone: a two-finger twist (60° clockwise, no pinch, no slide) turns the model as much in the 3D view",
              bool(loaded and before and after and before[0] > 0 and after[0] > 0 and turned is not None and 45 < turned < 75),
              f"{before} -> {after}: {turned}")

        # The view at the top of the screen, under the sheet's picture.
        js("window.scrollTo(0, document.getElementById('viewer').getBoundingClientRect().top + window.scrollY - 60)")
        js(DOUBLE_TAP)
        sheet = wait("""const d = document.getElementById('style-sheet'); const cur = d.querySelectorAll('[aria-current="true"]');
                        return d.open && cur.length === 1 && [cur[0].dataset.style, document.getElementById('style').value, d.querySelectorAll('button[data-style]').length]""", 5)
        check("phone: a double tap on the 3D view opens the style sheet, the current style marked",
              bool(sheet and sheet[0] == sheet[1] and sheet[2] >= 4), str(sheet))
        if docs and sheet: b.screenshot(os.path.join(docs, "style-sheet.png"))
        audit("style sheet")
        choice = "cartoon" if sheet and sheet[1] != "cartoon" else "spacefill"
        if sheet: click(f"#style-sheet button[data-style='{choice}']")
        applied = wait("""return !document.getElementById('style-sheet').open && document.getElementById('style').value === arguments[0]
                          && performance.getEntriesByType('resource').some(e => e.name.includes('/model.glb?') && e.name.includes('style=' + arguments[0]))""", 30, choice)
        check("phone: choosing a style in the sheet applies it (the model is asked for in that style) and closes the sheet", bool(applied), choice)

        wait("return document.getElementById('status').textContent.startsWith(arguments[0] + ':')", 120, here)
        audit("explore (a molecule)")
        js("window.__glbs = performance.getEntriesByType('resource').length")
        click("label:has(#hide-hydrogens)")
        hidden = wait("""return performance.getEntriesByType('resource').slice(window.__glbs).map(e => decodeURIComponent(e.name))
                         .find(n => /\\/model\\.glb\\?/.test(n) && /hide=[^&]*hydrogens/.test(n) && /hide=[^&]*water/.test(n))""", 30)
        check("phone: Hide hydrogens adds hydrogens to the model's hide parameter", bool(hidden), str(hidden))
        wait("return document.getElementById('status').textContent.startsWith(arguments[0] + ':')", 120, here)

        # A launch of the bare address opens the start page, which offers to continue with the last
        # molecule seen; Continue reopens it; an explicit address stays.
        b.go(base + "/")
        offered = wait("return !document.getElementById('view-landing').hidden && !document.getElementById('landing-continue').hidden"
                       " && document.getElementById('landing-continue-link').textContent", 20)
        b.click("#landing-continue-link")
        reopened = wait("return location.hash === '#/explore/' + arguments[0] && document.getElementById('details-title').textContent.startsWith(arguments[0])", 60, here)
        b.go(base + "/#/design")
        kept = wait("return location.hash === '#/design' && !document.getElementById('view-design').hidden", 10)
        check("phone: the bare address opens the start page with “Continue with …” the last molecule, which reopens it; an explicit address (#/design) is kept",
              bool(offered == f"Continue with {here}" and reopened and kept), f"{offered} {reopened} {kept} {js('return location.hash')}")

        # Help on every screen, saying something about that screen.
        words = {"explore": ["PDB ID", "Double-tap", "twist"], "design": ["Try", "Clear", "verdict", "helix"],
                 "library": ["Filter", "Open", "Next"], "rooms": ["Undo", "Note", "AR", "draw"], "map": ["map", "nearest"]}
        missing = {}
        for screen, need in words.items():
            b.go(f"{base}/#/{screen}")
            wait(f"return !document.getElementById('view-{screen}').hidden", 10)
            css = f"#view-{screen} details.help > summary"
            found = js("return !!document.querySelector(arguments[0])", css)
            if found: click(css)
            text = wait("const d = document.querySelector(arguments[0])?.parentElement; return d && d.open && d.textContent", 5, css) or ""
            lacks = [w for w in need if w.lower() not in text.lower()]
            if not found or lacks: missing[screen] = lacks or "no Help"
            if screen == "design":
                js("window.scrollTo(0, 0)")
                if docs: b.screenshot(os.path.join(docs, "help-design.png"))
                for kind in ["helix", "flexible-coil", "helix"]: click(f"#view-design .piece[data-kind='{kind}']")
            audit(screen)
        check("phone: Help on Explore, Design, Rooms, Library and Map opens and speaks of that screen", missing == {}, str(missing))

        # The top bar keeps the app's name whole beside Camera, Record and Exit.
        b.go(f"{base}/#/explore/{here}")
        wait("return !document.getElementById('camera-button').hidden", 60)
        brand = js("const a = document.querySelector('.topbar .brand'); return [a.scrollWidth, a.clientWidth]")
        check("phone: the top bar shows the name “ProteinAR” whole beside Camera, Record and Exit", bool(brand and brand[0] <= brand[1]), str(brand))

        # Each screen opens at its top, however far down the one before was scrolled.
        tops = {}
        for screen in ["explore", "library", "design", "rooms", "map", "explore"]:
            js("window.scrollTo(0, document.documentElement.scrollHeight)")
            js("location.hash = arguments[0]", f"#/{screen}")
            wait(f"return !document.getElementById('view-{screen}').hidden", 10)
            tops[screen] = js("return Math.round(window.scrollY)")
        check("phone: each screen opens at its top (not where the screen before was scrolled to)", all(v == 0 for v in tops.values()), str(tops))

        # The Menu's Help opens at its top, with the current screen's help first.
        b.go(f"{base}/#/design")
        wait("return !document.getElementById('view-design').hidden", 10)
        click("#menu-button")
        wait("return document.getElementById('menu').open", 5)
        click("#help-button")
        opened = wait("""const d = document.getElementById('help'); const here = document.getElementById('help-here');
                         return d.open && [d.scrollTop, !here.hidden && here.textContent.includes('Try'),
                                           here.compareDocumentPosition(d.querySelector('h3:not(#help-here-title)')) & Node.DOCUMENT_POSITION_FOLLOWING]""", 5)
        js("document.getElementById('help').close()")
        check("phone: the Menu's Help opens at its top, this screen's help (Design's) first, then what holds everywhere",
              bool(opened and opened[0] == 0 and opened[1] and opened[2]), str(opened))

        # Signed in: the form for a new room, then a room of one's own with its drawing tools.
        if register_through_page(b, base, "Grace", back="#/rooms"):
            # The molecules' names fill the form's list a moment later: measured with them.
            wait("return !document.getElementById('room-form').hidden && document.querySelectorAll('#room-molecule option').length > 1", 20)
            audit("rooms (signed in)")
            b.type_into("#room-name", "Tap targets")
            js("document.querySelector('#room-form button[type=submit]').scrollIntoView({ block: 'center' })")
            click("#room-form button[type=submit]")
            live = wait("return document.getElementById('room-status').dataset.state === 'live'", 30)
            if live:  # in the middle of the screen: on a phone the drawing tools are fixed over its bottom edge
                js("document.querySelector('#help-room > summary').scrollIntoView({ block: 'center' })")
                click("#help-room > summary")
            said = wait("const d = document.getElementById('help-room'); return d.open && d.textContent", 5) or ""
            check("phone: a room's Help speaks of drawing, Undo, Note and AR",
                  all(w in said for w in ["draw", "Undo", "Note", "AR"]), said[:200] or js("return location.hash"))
            bar = js("return [document.getElementById('room-tools').getBoundingClientRect().height, innerHeight]")
            click("#room-tools-toggle")
            folded = js("""const t = document.getElementById('room-tools'); return [t.getBoundingClientRect().height,
                           getComputedStyle(document.getElementById('room-swatches')).display, document.getElementById('room-tools-toggle').textContent,
                           getComputedStyle(document.getElementById('room-mode-draw')).display]""")
            click("#room-tools-toggle")
            check("phone: the room's toolbar takes at most a quarter of the screen, and Fewer tools folds it to Draw and Move",
                  bool(bar and bar[0] <= 0.25 * bar[1] and folded and folded[1] == "none" and folded[2] == "More tools" and folded[3] != "none"),
                  f"{bar} {folded}")
            audit("a room")
        else:
            audits["signing in"] = {"unnamed": ["(could not register to see a room)"], "small": [], "wide": [], "count": 0}

        unnamed = {k: v["unnamed"] for k, v in audits.items() if v["unnamed"]}
        small = {k: v["small"] for k, v in audits.items() if v["small"]}
        counted = sum(v["count"] for v in audits.values())
        check("phone: every visible control on the main screens has an accessible name", counted > 50 and unnamed == {}, str(unnamed))
        wide = {k: v["wide"] for k, v in audits.items() if v.get("wide")}
        check(f"phone: no screen is wider than the phone ({WIDTH} px)", wide == {}, str(wide))
        duplicates = {k: v["duplicates"] for k, v in audits.items() if v.get("duplicates")}
        check("phone: no element id is used twice on any screen", duplicates == {}, str(duplicates))
        check(f"phone: every visible control on the main screens is at least {MIN_TARGET_PX} px each way (links inside sentences aside)",
              counted > 50 and small == {}, str(small))
    finally:
        keep_csp(b)
        b.close()
