"""What a person sees on one screen of the web app, measured in the page (scripts/checks/test_tour.py):
element ids that repeat, anything wider than the window, controls without a name or smaller than a
fingertip (44 × 44 CSS px, WCAG 2.5.5), where the page is scrolled and whether the screen's main
view is in sight below the top bar (and above the room's drawing tools), and the requests that failed."""

# Returns {duplicates, overflow, unnamed, small, scrollY, main, failed}. arguments[0]: a CSS selector
# for the screen's main view. A control's target is the control, or for a box or a radio button its
# label (a click there ticks it). Links inside a sentence are exempt from the size rule, as WCAG 2.5.5
# exempts inline targets; they still need a name.
AUDIT = r"""
const mainSelector = arguments[0];
const W = window.innerWidth, H = window.innerHeight;
const shown = (e) => { if (!e.getClientRects().length) return false; const s = getComputedStyle(e); return s.visibility !== 'hidden' && s.display !== 'none'; };
const describe = (e) => e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : ''}`
  + (e.textContent.trim() ? ` “${e.textContent.trim().slice(0, 30)}”` : '');
const counts = {};
for (const e of document.querySelectorAll('[id]')) counts[e.id] = (counts[e.id] || 0) + 1;
const duplicates = Object.keys(counts).filter((k) => counts[k] > 1);

// Anything wider than the window: the page scrolls sideways, or a shown element pokes out.
const overflow = [];
if (document.documentElement.scrollWidth > W + 1) overflow.push(`the page is ${document.documentElement.scrollWidth} px wide in a ${W} px window`);
for (const e of document.body.querySelectorAll('*')) {
  if (!shown(e) || e.closest('dialog:not([open])')) continue;
  const r = e.getBoundingClientRect();
  // (A skip link waits off to the left until it has focus: off the window entirely, it widens nothing.)
  if (r.width && (r.right > W + 1 || (r.left < -1 && r.right > 0))) {
    // Inside something that clips or scrolls sideways it does not widen the page.
    let clipped = false;
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      if (['hidden', 'auto', 'scroll', 'clip'].includes(getComputedStyle(p).overflowX)) { clipped = true; break; }
    }
    if (!clipped) overflow.push(`${describe(e)} spans ${Math.round(r.left)}–${Math.round(r.right)} px`);
  }
  if (overflow.length > 6) break;
}

function accessibleName(e) {
  const by = e.getAttribute('aria-labelledby');
  if (by) return by.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
  if (e.getAttribute('aria-label')) return e.getAttribute('aria-label').trim();
  if (e.labels && e.labels.length) return [...e.labels].map((l) => l.textContent).join(' ').trim();
  if (e.matches('input[type=submit], input[type=button], input[type=reset]')) return e.value.trim();
  const text = e.textContent.trim() || [...e.querySelectorAll('img[alt]')].map((i) => i.alt).join(' ').trim();
  return text || (e.getAttribute('title') ?? '').trim();
}
function target(e) {
  if (e.matches('input[type=checkbox], input[type=radio]') && e.labels && e.labels.length) return e.labels[0];
  return e;
}
// A link with words of a sentence beside it (text of its own parent, not other controls' text).
function inSentence(e) {
  if (!e.matches('a') || !e.parentElement) return false;
  const words = [...e.parentElement.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('');
  return words.replace(/[\s.,;:]/g, '').length >= 4;
}
const unnamed = [], small = [];
const controls = 'button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex="-1"])';
const openDialog = document.querySelector('dialog[open]');
for (const e of document.querySelectorAll(controls)) {
  if (!shown(e) || (openDialog ? !openDialog.contains(e) : e.closest('dialog')) || e.closest('.visually-hidden')) continue;
  if (e.matches('canvas')) { if (!accessibleName(e)) unnamed.push(describe(e)); continue; }
  if (!accessibleName(e)) unnamed.push(describe(e));
  const r = target(e).getBoundingClientRect();
  if (!inSentence(e) && (r.width < 43.5 || r.height < 43.5)) small.push(`${describe(e)} ${Math.round(r.width)}×${Math.round(r.height)}`);
}

// The main view: its top below the top bar and in the upper part of the window; a 3D view at least
// 30 % of the window high in sight, not under the room's drawing tools.
const bar = document.querySelector('.topbar').getBoundingClientRect().bottom;
const tools = document.getElementById('room-tools');
const floor = tools && shown(tools) && getComputedStyle(tools).position === 'fixed' ? tools.getBoundingClientRect().top : H;
const m = document.querySelector(mainSelector);
let main = { found: Boolean(m) };
if (m) {
  const r = m.getBoundingClientRect();
  const seen = Math.max(0, Math.min(r.bottom, floor) - Math.max(r.top, bar));
  main = { found: true, top: Math.round(r.top), bar: Math.round(bar), floor: Math.round(floor), seen: Math.round(seen), height: Math.round(r.height),
           ok: r.top >= bar - 1 && r.top < H * 0.6 && (m.tagName !== 'CANVAS' || seen >= Math.min(r.height, H * 0.3) - 1) };
}
// Requests that failed (4xx, 5xx), as Resource Timing reports them.
const failed = performance.getEntriesByType('resource').filter((r) => r.responseStatus >= 400)
  .map((r) => `${r.responseStatus} ${r.name.replace(location.origin, '')}`);
return { duplicates, overflow, unnamed, small, scrollY: Math.round(window.scrollY), main, failed };
"""

# Scrolls the current screen to its bottom, as someone who read it to the end would be.
SCROLL_DOWN = "window.scrollTo(0, document.documentElement.scrollHeight)"


def problems(audit, console, opened_at_top=True):
    """The audit's findings in words, one per kind of fault; empty when the screen passes."""
    out = []
    if audit["duplicates"]: out.append(f"ids used twice: {audit['duplicates'][:6]}")
    if audit["overflow"]: out.append(f"wider than the window: {audit['overflow'][:4]}")
    if audit["unnamed"]: out.append(f"controls without a name: {audit['unnamed'][:6]}")
    if audit["small"]: out.append(f"controls under 44 × 44 px: {audit['small'][:6]}")
    if opened_at_top and audit["scrollY"] != 0: out.append(f"opened scrolled down by {audit['scrollY']} px")
    if not audit["main"].get("ok"): out.append(f"main view not in sight: {audit['main']}")
    if audit["failed"]: out.append(f"failed requests: {audit['failed'][:4]}")
    if console: out.append(f"console: {console[:3]}")
    return out
