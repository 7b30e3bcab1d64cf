"""test_web.py's checks of the Design screen: the piece buttons, the pieces in the 3D view and their
AR link before Try, the Seed under More options, Try and its verdict, Try again (the next seed, valid
again), Keep in the library, an impossible combination (no Try again: the verdict does not depend on
the seed) and a length out of range. The browser is signed in (Keep needs an account)."""
import time


PIECES_USDZ = "/api/designs/pieces.usdz?pieces=helix%3A14%2Cflexible-coil%3A4%2Chelix%3A14"

# The text of the verdict banner once it is shown with `kind` (ok or bad).
VERDICT = "const v = document.getElementById('design-verdict'); return !v.hidden && v.classList.contains(arguments[0]) && v.textContent"
# The built design's GLB link beside View in AR (its query names the seed).
DESIGN_GLB = "return document.querySelector('#design-ar-slot a[download=\"design.glb\"]')?.getAttribute('href')"


def set_length(browser, index, value):
    browser.js("""const input = document.querySelectorAll('#design-pieces input')[arguments[0]];
                  input.value = arguments[1]; input.dispatchEvent(new Event('change'));""", index, value)


def check_design_screen(b, base, check, canvas, shot):
    """`canvas`: a script answering [drawn pixels, hash, pixels] of the Design screen's 3D view."""
    js, wait, click = b.js, b.wait, b.click
    b.console()  # what was logged before Design is not Design's
    b.go(base + "/#/design")
    wait("return !document.getElementById('view-design').hidden")
    check("Design: no pieces, no See pieces in AR", js("return !document.getElementById('design-pieces-ar-button')"))
    for kind in ["helix", "flexible-coil", "helix"]:
        click(f"#view-design .piece[data-kind='{kind}']")
    listed = wait("const l = document.querySelectorAll('#design-pieces li'); return l.length === 3 && [...l].map(li => li.textContent).join(' | ')", 10)
    check("Design: the piece buttons add pieces to the list", bool(listed and "Helix" in listed and "Flex coil" in listed), str(listed))
    names = js("return [...document.querySelectorAll('#view-design .piece')].map((b) => [b.textContent.trim(), b.dataset.kind])")
    check("Design: a piece has its button's name in the list (Flex coil, not Coil)",
          bool(listed and "Flex coil" in listed) and ["Flex coil", "flexible-coil"] in names and ["Sheet", "strand"] in names, str(listed))
    pieces = wait("const v = (() => {" + canvas + "})(); return v && v[0] > v[2] * 0.01 ? v : null", 60)
    check("Design: the pieces appear in the 3D view", bool(pieces), str(pieces))
    ar = wait("""const b = document.getElementById('design-pieces-ar-button'); const u = document.querySelector('#design-pieces-ar-slot a[download="pieces.usdz"]');
                 return b && u && document.getElementById('design-try').parentElement.contains(b) && [b.textContent, u.getAttribute('href')]""", 20)
    check("Design: before Try, See pieces in AR sits beside Try with the pieces' USDZ", bool(ar and ar[0] == "See pieces in AR" and ar[1] == PIECES_USDZ), str(ar))
    seed = js("""const s = document.getElementById('design-seed'); const d = s.closest('details');
                 const help = document.getElementById(s.getAttribute('aria-describedby'));
                 return d && !d.open && [d.querySelector('summary').textContent, s.closest('label').textContent.trim(), help && help.textContent]""")
    check("Design: the Seed is under More options (closed), with a line saying what it does",
          bool(seed and seed[0] == "More options" and seed[1] == "Seed" and "same pieces and seed" in (seed[2] or "")
               and "verdict does not depend" in (seed[2] or "")), str(seed))
    shot("design-pieces")
    click("#design-try")
    verdict = wait(VERDICT, 60, "ok")
    check("Design: Try gives the verdict as a banner", bool(verdict and "Congratulations, you have created a new protein made of Helix – Flex coil – Helix" in verdict
                                                         and "helix-turn-helix" in verdict), str(verdict))
    built = wait("const v = (() => {" + canvas + "})(); return v && v[0] > v[2] * 0.01 && v[1] !== arguments[0] ? v : null", 60, pieces[1] if pieces else 0)
    check("Design: the built protein replaces the pieces in the 3D view", bool(built), str(built))
    check("Design: View in AR, camera and record are offered for the design; the pieces' AR link makes way",
          js("return !!document.getElementById('design-ar-button') && !document.getElementById('camera-button').hidden"
             " && !document.getElementById('design-pieces-ar-button')"))
    shot("design")
    click("#design-save")
    saved = wait("const s = document.getElementById('status').textContent; return s.startsWith('Kept in the library as ') && s", 60)
    check("Design: signed in, Keep in the library saves the design", bool(saved), str(js("return document.getElementById('status').textContent")))

    # Try again: the next seed, written in the Seed box, and another valid build of the same pieces.
    first = wait(DESIGN_GLB, 30)
    again = js("const a = document.getElementById('design-again'); return !a.hidden && !a.disabled")
    # Everything the status line says from here on (the build may answer before a poll would see it).
    js("""window.__said = []; const s = document.getElementById('status');
          new MutationObserver(() => window.__said.push(s.textContent)).observe(s, { childList: true, characterData: true, subtree: true });""")
    if again: click("#design-again")
    said = wait("return window.__said.find(t => /Trying again with seed 2/.test(t))", 10) if again else None
    link = wait(DESIGN_GLB.replace("return ", "const h = ") + "; return h && h !== arguments[0] && h", 90, first or "")
    verdict = wait(VERDICT, 30, "ok")
    check("Design: Try again writes the next seed in the Seed box, says so, and builds a valid protein again",
          bool(again and js("return document.getElementById('design-seed').value") == "2" and said and link and "seed=2" in link
               and verdict and "Congratulations" in verdict), f"{again} / {said} / {first} -> {link} / {verdict}")

    # A design's link from before the screen was named Design (#/build/PIECES/SEED) opens it at #/design.
    b.go(base + "/#/build/helix:14,flexible-coil:4,helix:14/3")
    moved = wait("return location.hash.startsWith('#/design/') && !document.getElementById('view-design').hidden && location.hash", 10)
    opened = wait("const l = document.querySelectorAll('#design-pieces li'); return l.length === 3 && document.getElementById('design-seed').value", 10)
    check("Design: a link from before the rename (#/build/PIECES/SEED) opens the design at #/design/PIECES/SEED",
          bool(moved == "#/design/helix:14,flexible-coil:4,helix:14/3" and opened == "3"), f"{moved} seed={opened}")

    # Building as a person does logs nothing in the console (HEAD of the design's files once gave 404s).
    logged = [m["message"][:160] for m in b.console() if m.get("level") in ("SEVERE", "WARNING")]
    check("Design: pieces, Try, Keep and Try again log no errors in the console (no failed requests)", logged == [], "\n  ".join(logged[:5]))

    # An impossible design: two long helices and a 1-residue coil. No Try again: the seed cannot help.
    for index, value in [(0, 20), (1, 1), (2, 20)]: set_length(b, index, value)
    click("#design-try")
    verdict = wait(VERDICT, 60, "bad")
    check("Design: an impossible combination says why, naming the coil", bool(verdict and "Sorry, this combination cannot be made" in verdict and "too short" in verdict
                                                                   and "Flex coil (piece 2)" in verdict), str(verdict))
    offered = wait("return document.querySelector('#design-verdict').className.includes('bad') && !document.getElementById('design-ar-button')"
                   " && !document.querySelector('#design-ar-slot a[download]')", 10)
    check("Design: a refused design is not offered as a model to take away (no View in AR, no USDZ or GLB)", bool(offered),
          str(js("return document.getElementById('design-ar-slot')?.innerHTML.slice(0, 200)")))
    marked = wait("const m = document.getElementById('design-marked'); return m && m.textContent", 10)
    lit = js("return performance.getEntriesByType('resource').map((r) => r.name).filter((n) => n.includes('/api/designs/model.glb') && n.includes('highlight=')).pop() || null")
    if marked:
        time.sleep(1.0)  # the lit model drawn
        b.js("document.getElementById('design-verdict').scrollIntoView({ block: 'start' })")
        shot("design-refused")
    check("Design: the refused attempt is shown only to explain it: the view lights the residues the refusal is about (the 1-residue coil, 21) and greys the rest",
          bool(marked and "21" in marked and "lit" in marked and lit), f"{marked!r} / {lit}")
    check("Design: after an impossible combination Try again is not offered, and the banner says another seed would not help",
          bool(verdict and "Another seed gives the same verdict" in verdict and js("return document.getElementById('design-again').hidden")), str(verdict))
    # A piece length out of range is refused in the page.
    set_length(b, 0, 0)
    err = wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent", 10)
    check("Design: a length out of range is refused with a message", bool(err and "1 to 500" in err), str(err))
