"""The browser side of scripts/benchmarks/benchmark-classroom.py: headless Chromium pages, each a
phone with the app open, that open an entry and report when the viewer showed its model, what the
page said, and the statuses of its API requests."""
import time

PAGE_DEADLINE = 240     # seconds a page may take to show its model

# Before the app's own scripts: each frame the viewer draws, and whether it showed a model.
PROBE = """(() => {
  const b = window.__classroom = { shown: null };
  window.addEventListener('viewer-frame', () => {
    const empty = document.getElementById('viewer-empty');
    if (b.shown === null && empty && empty.hidden) b.shown = performance.timeOrigin + performance.now();
  }, true);
})();"""
# The page's outcome so far: when it showed the model (epoch ms), an error it says, and the statuses
# of its API requests (PerformanceResourceTiming.responseStatus).
RESULT = """const b = window.__classroom; const s = document.getElementById('status');
const api = performance.getEntriesByType('resource').filter((r) => r.name.includes('/api/')).map((r) => r.responseStatus || 0);
return { shown: b ? b.shown : null, error: s && s.classList.contains('error') ? s.textContent : null, api };"""
READY = "return !!window.__classroom && document.readyState === 'complete' && !!document.getElementById('view-explore')"


def start_browsers(n):
    from proteinar_testing.browser import Browser
    out = []
    for _ in range(n):
        b = Browser(width=412, height=915)
        b.before_each_page(PROBE)
        out.append(b)
    return out


def load_app(pages, base, tag):
    """Each page loads the app from `base` (before the clock): a phone with the app open."""
    for k, b in enumerate(pages):
        b.go(f"{base}/?classroom={tag}-{k}#/")
        if not b.wait(READY, 60):
            raise RuntimeError(f"page {k} did not load the app from {base}")


def page_visit(b, base, entry, t0, opened, out, deadline=600):
    """Opens #/explore/ENTRY once the entry exists (the app already loaded, `deadline` s at most)
    and waits for the model, at most PAGE_DEADLINE s."""
    rec = {"entry": entry, "shown": None, "error": None, "refused": 0, "served": 0, "failed": 0}
    if opened[entry].wait(max(0.0, t0 + deadline - time.time())):
        b.js("location.hash = arguments[0]", f"#/explore/{entry}")
        end = t0 + PAGE_DEADLINE
        last, error_since = None, None
        while time.time() < end:
            try:
                last = b.js(RESULT)
            except Exception:  # noqa: BLE001 — a page between states: ask again
                last = None
            if last and last["shown"]:
                rec["shown"] = last["shown"] / 1000 - t0
                break
            # An error the page still shows after 20 s is its answer (one it retries goes away).
            error_since = (error_since or time.time()) if last and last["error"] else None
            if error_since and time.time() - error_since > 20:
                break
            time.sleep(0.2)
        if last:
            rec["error"] = None if rec["shown"] else last["error"] or "no model shown"
            rec["refused"] = sum(1 for st in last["api"] if st in (429, 503))
            rec["served"] = sum(1 for st in last["api"] if 200 <= st < 400)
            rec["failed"] = sum(1 for st in last["api"] if st >= 400 and st not in (429, 503))
    else:
        rec["error"] = "the entry never opened"
    out.append(rec)
