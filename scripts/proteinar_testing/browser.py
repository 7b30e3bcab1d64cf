"""A headless Chromium (Debian's chromium and chromium-driver; WebGL2 through SwiftShader) driven
over the W3C WebDriver protocol, with chromedriver's CDP passthrough for what WebDriver lacks
(scripts before the page's own); its console (Content-Security-Policy violations among it); the
Android phone the browser checks pretend to be; and registering through the app's own sign-in page."""
import base64
import json
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from urllib.parse import quote

from .accounts import PASSWORD, rid
from .ports import free_port

ANDROID_UA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
# WebXR as an Android phone would offer it. No browser here has a camera or an AR runtime, so this
# stub of navigator.xr (the one stub the checks use) stands in for the device: one view looking at
# a table 0.7 m high, a surface the test switches on, and finger hits the test sets.
XR_STUB = r"""(() => {
  const state = window.__xr = { surface: false, touch: null, session: null, frames: 0 };
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const unit = (a) => { const l = Math.hypot(...a); return a.map((v) => v / l); };
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  function lookAt(eye, target, up) {
    const z = unit(sub(eye, target)), x = unit(cross(up, z)), y = cross(z, x);
    return new Float32Array([x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, -dot(x, eye), -dot(y, eye), -dot(z, eye), 1]);
  }
  function perspective(fovy, aspect, near, far) {
    const f = 1 / Math.tan(fovy / 2);
    return new Float32Array([f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, 2 * far * near / (near - far), 0]);
  }
  const pose = (p) => ({ transform: { matrix: new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, p.x, p.y, p.z, 1]), position: p } });
  function frame(session) {
    const c = document.getElementById('viewer');
    return {
      session,
      getViewerPose: () => ({ views: [{ eye: 'none', projectionMatrix: perspective(Math.PI / 3, c.width / c.height, 0.01, 20),
                                        transform: { inverse: { matrix: lookAt([0, 1.1, 0.1], [0, 0.75, -0.5], [0, 1, 0]) } } }] }),
      getHitTestResults: () => state.surface ? [{ getPose: () => pose({ x: 0, y: 0.7, z: -0.5 }) }] : [],
      getHitTestResultsForTransientInput: () => state.touch ? [{ results: [{ getPose: () => pose(state.touch) }] }] : [],
    };
  }
  class Session extends EventTarget {
    constructor() { super(); this.renderState = {}; this.ended = false; }
    updateRenderState(s) { Object.assign(this.renderState, s); }
    async requestReferenceSpace(type) { return { type }; }
    async requestHitTestSource(options) { return { options }; }
    async requestHitTestSourceForTransientInput(options) { return { options }; }
    requestAnimationFrame(cb) { return requestAnimationFrame((t) => { if (!this.ended) { state.frames++; cb(t, frame(this)); } }); }
    async end() { if (!this.ended) { this.ended = true; this.dispatchEvent(new Event('end')); } }
  }
  Object.defineProperty(navigator, 'xr', { configurable: true, value: {
    isSessionSupported: async (mode) => mode === 'immersive-ar',
    requestSession: async (mode, init) => { state.mode = mode; state.init = init; return (state.session = new Session()); },
  } });
  window.XRWebGLLayer = class { constructor(session, gl) { this.framebuffer = null; this.gl = gl; }
    getViewport() { return { x: 0, y: 0, width: this.gl.drawingBufferWidth, height: this.gl.drawingBufferHeight }; } };
  WebGL2RenderingContext.prototype.makeXRCompatible = async function () {};
})();"""


class Browser:
    """One headless Chromium session. `args` are extra command-line switches."""

    def __init__(self, args=(), width=900, height=1200):
        self.port = free_port()
        self.driver = subprocess.Popen(["chromedriver", f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(100):
            try: self.wd("GET", "/status"); break
            except Exception: time.sleep(0.1)
        self.session = None
        self.session = self.wd("POST", "/session", {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": shutil.which("chromium") or "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
                     f"--window-size={width},{height}", *args]}}}})["sessionId"]
        self.s = f"/session/{self.session}"
        self.logged = []  # every console message read so far (chromedriver hands each out once)

    def wd(self, method, path, body=None):
        r = urllib.request.Request(self.base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                   headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(r, timeout=120) as resp:
            return json.loads(resp.read())["value"]

    def go(self, url): self.wd("POST", self.s + "/url", {"url": url})
    def js(self, script, *args): return self.wd("POST", self.s + "/execute/sync", {"script": script, "args": list(args)})
    def js_async(self, script, *args): return self.wd("POST", self.s + "/execute/async", {"script": script, "args": list(args)})
    def find(self, css): return list(self.wd("POST", self.s + "/element", {"using": "css selector", "value": css}).values())[0]
    def click(self, css): self.wd("POST", self.s + f"/element/{self.find(css)}/click", {})

    def press(self, css):
        """A click on `css` as a person makes it: scrolled to the middle of the window first (a sticky
        top bar would take a click on a control scrolled just under it); WebDriver's refusal in words."""
        self.js("document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })", css)
        try:
            self.click(css)
        except urllib.error.HTTPError as e:
            raise AssertionError(f"click on {css}: {e.read().decode(errors='replace')[:400]}") from None

    def type_into(self, css, text): self.wd("POST", self.s + f"/element/{self.find(css)}/value", {"text": text})
    def cdp(self, cmd, params=None): return self.wd("POST", self.s + "/goog/cdp/execute", {"cmd": cmd, "params": params or {}})

    def phone_size(self, width=390, height=844):
        """A true phone's viewport (headless Chromium makes no window narrower than 500 px)."""
        self.cdp("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    def before_each_page(self, source):
        """Runs `source` in every page this session opens from now on, before the page's own scripts."""
        self.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": source})

    def keys(self, *keys):
        """Presses keys on whatever has focus, as a keyboard would (WebDriver key codes such as '\\ue004')."""
        actions = []
        for k in keys: actions += [{"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]
        self.wd("POST", self.s + "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})

    def wait(self, script, timeout=60, *args):
        """Polls `script` until it returns something truthy; script errors (a page mid-navigation)
        count as not yet, up to the timeout."""
        end = time.time() + timeout
        while time.time() < end:
            try:
                v = self.js(script, *args)
                if v: return v
            except urllib.error.HTTPError:
                pass
            time.sleep(0.2)
        return None

    def console(self):
        """The console messages since the last call ({level, message, source}), also kept in self.logged."""
        try:
            entries = self.wd("POST", self.s + "/se/log", {"type": "browser"})
        except Exception:  # noqa: BLE001 — a driver without the log: nothing to report
            entries = []
        self.logged += entries
        return entries

    def csp_violations(self):
        """Every console message so far that names the Content Security Policy (what the browser
        refused: an inline style or script, a load from another origin)."""
        self.console()
        return [e["message"] for e in self.logged if "Content Security Policy" in e.get("message", "")]

    def screenshot(self, path):
        with open(path, "wb") as f: f.write(base64.b64decode(self.wd("GET", self.s + "/screenshot")))

    def close(self):
        try:
            if self.session: self.wd("DELETE", self.s)
        except Exception: pass
        self.driver.terminate()


def register_through_page(browser, base, name, back="#/", timeout=30):
    """Registers a new account (a unique e-mail) with the app's own sign-in page, which then returns
    to `back`; the browser is signed in with the session cookie from then on. Returns the e-mail, or
    None when the page did not come back to `back` signed in."""
    email = f"{name.lower()}-{rid('')}@example.org"
    browser.go(f"{base}/#/signin/{quote(back, safe='')}")
    if not browser.wait("return !document.getElementById('view-signin').hidden", timeout):
        return None
    return email if fill_registration(browser, name, email, back, timeout) else None


def fill_registration(browser, name, email, back, timeout=30, password=PASSWORD):
    """Fills and sends the register form of the sign-in page on show; true once the page is back at `back`."""
    browser.type_into("#register-name", name)
    browser.type_into("#register-email", email)
    browser.type_into("#register-password", password)
    browser.click("#register-form button[type=submit]")
    return bool(browser.wait("return location.hash === arguments[0] && document.getElementById('view-signin').hidden", timeout, back))
