"""Explore in a checks' browser as a person opens it: a molecule by its address, shown once its model
is in the view and the status names it; another style from the Style control, shown once the new
model has replaced the old one."""

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
