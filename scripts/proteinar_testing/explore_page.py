"""Explore in a checks' browser as a person opens it: a molecule by its address, shown once its model
is in the view and the status names it; another style from the Style control, shown once the new
model has replaced the old one; the view's pixels kept once it is drawn in full; a panel's controls
named and big enough to tap."""

SHOWN = "return window.__proteinarExplore?.viewer?.model && document.getElementById('status').textContent.startsWith(arguments[0])"


def open_molecule(browser, base, entry, timeout=90):
    """Opens `#/explore/ENTRY` on the server at `base` and waits for its model."""
    browser.go(f"{base}/#/explore/{entry}")
    browser.wait(SHOWN, timeout, entry)


def show_style(browser, entry, style, timeout=90):
    """Picks `style` in Explore's Style control (when it is not the one shown) and waits for its model."""
    if browser.js("return document.getElementById('style').value") == style:
        return
    browser.js("window.__shown = window.__proteinarExplore.viewer.model; const s = document.getElementById('style');"
               " s.value = arguments[0]; s.dispatchEvent(new Event('change'))", style)
    browser.wait(SHOWN + " && window.__proteinarExplore.viewer.model !== window.__shown", timeout, entry)


# The 3D view's pixels, kept as window.__frames[arguments[0]] (read them with the checks' own sums).
KEEP_FRAME = """const c = document.getElementById('viewer'); const t = document.createElement('canvas'); t.width = c.width; t.height = c.height;
const x = t.getContext('2d'); x.drawImage(c, 0, 0); (window.__frames ??= {})[arguments[0]] = x.getImageData(0, 0, c.width, c.height).data;"""


def draw_in_full(browser, reset=False, timeout=30):
    """Draws the view (first returned to where it started, with `reset`) and waits until the viewer
    has drawn it in full, not the coarse stand-in drawn while it moves: on a loaded machine a frame
    can take longer than any fixed pause, and the canvas would still hold the frame before (in CI
    once, the last AR frame)."""
    browser.js("""const c = document.getElementById('viewer'); window.__drawnInFull = false;
        const seen = (e) => { if (e.detail.coarse) return; window.__drawnInFull = true; c.removeEventListener('viewer-frame', seen); };
        c.addEventListener('viewer-frame', seen);
        const v = window.__proteinarExplore.viewer; if (arguments[0]) v.resetView(); v.requestRender();""", reset)
    browser.wait("return window.__drawnInFull", timeout)


# The visible controls matching the selector arguments[0]: [id or tag, accessible name (aria-label,
# else its labels' text, else its own), width, height].
CONTROLS = """return [...document.querySelectorAll(arguments[0])].filter((e) => e.offsetParent).map((e) => {
  const r = e.getBoundingClientRect();
  const name = (e.getAttribute('aria-label') || [...(e.labels ?? [])].map((l) => l.textContent).join(' ') || e.textContent).trim();
  return [e.id || e.tagName, name.slice(0, 40), r.width, r.height]; })"""


def check_controls(browser, check, what, controls):
    """Checks that every control of `controls` (rows as CONTROLS gives them) is named and at least 44 px
    each way, and that nothing in the page is wider than the window."""
    small = [c for c in controls if c[2] < 44 or c[3] < 44]
    unnamed = [c for c in controls if not c[1]]
    check(f"every control of {what} is named and at least 44 px ({len(controls)} controls)", bool(controls) and not small and not unnamed,
          f"{small} {unnamed}")
    wide = browser.js("return [document.documentElement.scrollWidth, innerWidth]")
    check("nothing is wider than the window", wide[0] <= wide[1], str(wide))
