"""test_web_own_browsers.py's Android Chrome: WebXR immersive-ar with hit-test (navigator.xr stubbed, see
browser.XR_STUB), Scene Viewer beside it: View in AR on 1AKE (a clear layer before a surface, the
reticle, a tap places, pinch and twist, a finger drags, Exit AR), then See pieces in AR on Design.
One browser of its own, an Android phone's size and user agent."""
from proteinar_testing.browser import ANDROID_UA, XR_STUB, Browser

# Pixels of the 3D view's middle that are drawn (not transparent): what WebXR would lay over the camera.
DRAWN = """const c = document.getElementById('viewer'); const t = document.createElement('canvas'); t.width = c.width; t.height = c.height;
const x = t.getContext('2d'); x.drawImage(c, 0, 0); const d = x.getImageData(c.width * .3, c.height * .3, c.width * .4, c.height * .4).data;
let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n / (d.length / 4);"""


def check_android_ar(base, check, keep_csp, canvas):
    """`canvas`: test_web.py's script answering [drawn pixels, hash, pixels] of the 3D view."""
    phone = None
    try:
        phone = Browser(args=[f"--user-agent={ANDROID_UA}"], width=412, height=915)
        phone.before_each_page(XR_STUB)
        phone.go(base + "/#/explore/1AKE")
        ok = bool(phone.wait("return document.getElementById('status').textContent.startsWith('1AKE')", 90))
        link = phone.js("return document.querySelector('#ar-slot .scene-viewer-link')?.getAttribute('href')")
        check("on Android, a Scene Viewer link to the GLB sits beside View in AR", bool(ok and link and link.startswith("intent://arvr.google.com/scene-viewer/1.0?file=") and "model.glb" in link), str(link))
        phone.click("#ar-button")
        st = phone.wait("const s = document.getElementById('ar-status'); return !document.getElementById('ar-overlay').hidden && s.textContent", 20)
        init = phone.js("return window.__xr.mode + ' ' + JSON.stringify(window.__xr.init.requiredFeatures)")
        check("View in AR starts an immersive-ar session with hit-test and says to look for a surface",
              bool(st and "find a surface" in st) and init == 'immersive-ar ["hit-test"]', f"{st} / {init}")
        check("the AR overlay takes keyboard focus on Exit AR", phone.js("return document.activeElement.id") == "ar-exit")
        empty = phone.wait("const v = (() => {" + DRAWN + "})(); return v === 0 ? 'clear' : null", 10)
        check("before a surface is found the AR layer is clear (the camera shows through)", empty == "clear",
              str(phone.js("return (() => {" + DRAWN + "})()")))
        phone.js("window.__xr.surface = true")
        st = phone.wait("const s = document.getElementById('ar-status').textContent; return s.includes('Tap to place') && s", 10)
        ring = phone.wait("const v = (() => {" + DRAWN + "})(); return v > 0 && v < 0.05 && v", 10)
        check("a surface found: the reticle is drawn and the status says to tap", bool(st and ring), f"{st} / {ring}")
        phone.js("window.__xr.session.dispatchEvent(new Event('select'))")
        st = phone.wait("const o = document.getElementById('ar-overlay'); const s = document.getElementById('ar-status').textContent; return o.dataset.placed && s.includes('pinch') && s", 10)
        cover = phone.wait("const v = (() => {" + DRAWN + "})(); return v > 0.05 && v", 10)
        check("a tap places the molecule on the surface and draws it", bool(st and "pinch" in st and cover), f"{st} / {cover}")
        scale = phone.js("""const o = document.getElementById('ar-overlay');
            const ev = (type, id, x, y) => o.dispatchEvent(new PointerEvent(type, { pointerId: id, clientX: x, clientY: y, bubbles: true, pointerType: 'touch' }));
            ev('pointerdown', 1, 100, 400); ev('pointerdown', 2, 200, 400); ev('pointermove', 2, 300, 400);
            const scale = o.dataset.scale; ev('pointermove', 2, 100, 600); const turn = o.dataset.turn;
            ev('pointerup', 1, 100, 400); ev('pointerup', 2, 100, 600); return [scale, turn];""")
        check("pinch scales and twist turns the placed molecule", scale[0] == "2.00" and scale[1] not in ("0", "-0"), str(scale))
        phone.js("window.__xr.session.dispatchEvent(new Event('selectstart')); window.__xr.touch = { x: 0.2, y: 0.7, z: -0.6 };")
        moved = phone.wait("return document.getElementById('ar-overlay').dataset.position === '0.20 0.70 -0.60'", 10)
        phone.js("window.__xr.session.dispatchEvent(new Event('selectend')); window.__xr.touch = null;")
        check("dragging a finger moves the molecule to where it points on the surface", bool(moved),
              phone.js("return document.getElementById('ar-overlay').dataset.position"))
        phone.click("#ar-exit")
        st = phone.wait("return document.getElementById('ar-overlay').hidden && document.getElementById('status').textContent", 10)
        opaque = phone.wait("const v = (() => {" + DRAWN + "})(); return v === 1 && v", 10)
        check("Exit AR ends the session and returns to the page's own 3D view", bool(st and st.startswith("Left AR") and opaque), f"{st} / {opaque}")
        # The Design screen's pieces before Try: the same WebXR session, and Scene Viewer on the pieces' GLB.
        phone.go(base + "/#/design")
        phone.wait("return !!document.querySelector('#view-design .piece')", 20) and phone.click("#view-design .piece[data-kind='helix']")
        link = phone.wait("return document.getElementById('design-viewer').width && document.querySelector('#design-pieces-ar-slot .scene-viewer-link')?.getAttribute('href')", 30)
        drawn = "const v = (() => {" + canvas.replace("getElementById('viewer')", "getElementById('design-viewer')") + "})(); return v && v[0] > v[2] * 0.01"
        if link and phone.wait(drawn, 60): phone.click("#design-pieces-ar-button")
        st = phone.wait("const s = document.getElementById('ar-status'); return !document.getElementById('ar-overlay').hidden && s.textContent", 20)
        check("on Android, See pieces in AR starts WebXR, with Scene Viewer on the pieces' GLB beside it",
              bool(link and "pieces.glb" in link and st and ("find a surface" in st or "Tap to place" in st)), f"{link} / {st}")
        phone.click("#ar-exit")
    except Exception as e:
        check("the Android AR run finished", False, repr(e))
    finally:
        if phone:
            keep_csp(phone)
            phone.close()
