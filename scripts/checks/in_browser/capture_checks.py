"""test_web_own_browsers.py's checks of pictures, videos and AR photos (Web/js/capture.js, ar-photo.js) and of
the status line's words while the server works (progress-text.js), on an Android-sized phone with
XR_STUB. Chromium here has no share sheet and records no MP4, so the page's MediaRecorder,
navigator.share and navigator.canShare are stand-ins that say what they were given; so is WebXR's
camera image (a magenta picture, for the browser that grants `camera-access`)."""
import re

from proteinar_testing.browser import ANDROID_UA, XR_STUB, Browser

# Before the page's own scripts: every text a status line (or a progress bar's words) shows, kept.
SAID = r"""(() => {
  const said = window.__said = [];
  new MutationObserver((records) => {
    for (const r of records) {
      const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (r.type === 'attributes') said.push(node.getAttribute('aria-valuetext') ?? '');
      const live = node?.closest?.('[role=status], [aria-live], .status');
      if (live) said.push(live.textContent);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['aria-valuetext'] });
})();"""

# The stand-ins, installed in the page: a MediaRecorder taking the types in __rec.supported, a share
# sheet keeping what it gets (or refusing as __share.answer says), downloads kept instead of made.
STAND_INS = r"""
window.__rec = { supported: [], asked: [], last: null };
window.FakeRecorder = class extends EventTarget {
  static isTypeSupported(t) { return window.__rec.supported.some((p) => t.startsWith(p)); }
  constructor(stream, options) { super(); this.mimeType = options?.mimeType ?? ''; this.state = 'inactive'; window.__rec.asked.push(this.mimeType); window.__rec.last = this; }
  start() { this.state = 'recording'; }
  stop() { this.state = 'inactive'; const e = new Event('dataavailable'); e.data = new Blob([new Uint8Array(64)], { type: this.mimeType }); this.dispatchEvent(e); this.dispatchEvent(new Event('stop')); }
};
window.MediaRecorder = window.FakeRecorder;
window.__share = { got: [], answer: null };
window.shareSheet = (on) => {
  Object.defineProperty(navigator, 'canShare', { configurable: true, value: on ? (d) => Boolean(d?.files?.length) : undefined });
  Object.defineProperty(navigator, 'share', { configurable: true, value: on ? async (d) => { window.__share.got.push(d);
    if (window.__share.answer) throw new DOMException('no', window.__share.answer); } : undefined });
};
window.__downloads = []; window.__blobs = {};
const made = URL.createObjectURL; URL.createObjectURL = (blob) => { const url = made(blob); window.__blobs[url] = blob; return url; };
const click = HTMLAnchorElement.prototype.click;
HTMLAnchorElement.prototype.click = function () { if (this.download) { window.__downloads.push({ name: this.download, blob: window.__blobs[this.href] }); return; } return click.call(this); };
"""

# WebXR's camera image as a browser granting camera-access hands it: a 32 × 32 magenta texture, and a
# `camera` on each view; window.__camera.grant off, the session has neither.
CAMERA = r"""
const cam = window.__camera = { grant: true, images: 0 };
window.XRWebGLBinding = class { constructor(session, gl) { this.gl = gl; }
  getCameraImage() { const gl = this.gl, t = gl.createTexture(); cam.images++; gl.bindTexture(gl.TEXTURE_2D, t);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 32, 32, 0, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(32 * 32 * 4).map((_, i) => [255, 0, 255, 255][i % 4]));
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST); gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST); return t; } };
const request = navigator.xr.requestSession;
navigator.xr.requestSession = async (mode, init) => {
  const s = await request(mode, init);
  if (!cam.grant || !init?.optionalFeatures?.includes('camera-access')) return s;
  const raf = s.requestAnimationFrame.bind(s);
  s.requestAnimationFrame = (cb) => raf((t, f) => { const pose = f.getViewerPose;
    f.getViewerPose = (space) => { const p = pose(space); for (const v of p.views) v.camera = { width: 32, height: 32 }; return p; }; cb(t, f); });
  return s;
};
"""

# The last file handed to the share sheet or downloaded, decoded: [name, type, width, height, pixels
# (RGBA, top row first) as a plain list at the corners and the share of the middle unlike the corner].
LAST_FILE = r"""const done = arguments[arguments.length - 1];
const shared = window.__share.got.at(-1)?.files?.[0], kept = window.__downloads.at(-1);
const file = arguments[0] === 'download' ? kept?.blob && { name: kept.name, type: kept.blob.type, blob: kept.blob } : shared && { name: shared.name, type: shared.type, blob: shared, isFile: shared instanceof File };
if (!file) return done(null);
if (!file.type.startsWith('image/')) return done([file.name, file.type, file.blob.size, file.isFile ?? null]);
createImageBitmap(file.blob).then((image) => {
  const c = document.createElement('canvas'); c.width = image.width; c.height = image.height; const x = c.getContext('2d'); x.drawImage(image, 0, 0);
  const d = x.getImageData(0, 0, c.width, c.height).data, at = (px, py) => Array.from(d.slice((py * c.width + px) * 4, (py * c.width + px) * 4 + 4));
  const corner = at(2, 2); let unlike = 0, n = 0;
  for (let py = Math.floor(c.height * .3); py < c.height * .7; py += 2) for (let px = Math.floor(c.width * .3); px < c.width * .7; px += 2, n++) {
    const p = at(px, py); if (Math.abs(p[0] - corner[0]) + Math.abs(p[1] - corner[1]) + Math.abs(p[2] - corner[2]) + Math.abs(p[3] - corner[3]) > 60) unlike++; }
  done([file.name, file.type, c.width, c.height, corner, unlike / n, file.isFile ?? null]);
}, (e) => done(String(e)));"""

# The picture shared against the 3D view's own pixels: [picture w, h, canvas w, h, pixels that differ by more than 8 per channel].
SAME_AS_CANVAS = r"""const done = arguments[arguments.length - 1];
const file = window.__share.got.at(-1)?.files?.[0], canvas = document.getElementById('viewer');
if (!file) return done(null);
createImageBitmap(file).then((image) => {
  const read = (source) => { const c = document.createElement('canvas'); c.width = canvas.width; c.height = canvas.height;
    const x = c.getContext('2d'); x.drawImage(source, 0, 0); return x.getImageData(0, 0, c.width, c.height).data; };
  const a = read(image), b = read(canvas); let differ = 0;
  for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i] - b[i]) > 8 || Math.abs(a[i + 1] - b[i + 1]) > 8 || Math.abs(a[i + 2] - b[i + 2]) > 8) differ++;
  done([image.width, image.height, canvas.width, canvas.height, differ]);
}, (e) => done(String(e)));"""

STATUS = "return document.getElementById('status').textContent"


def check_capture(base, check, keep_csp):
    """Camera, Record, the share sheet and downloads, the AR photo, and the status line's words;
    `keep_csp(browser)` is handed the phone before it closes (test_web gathers CSP violations)."""
    phone = None
    try:
        phone = Browser(args=[f"--user-agent={ANDROID_UA}"], width=412, height=915)
        phone.before_each_page(XR_STUB)
        phone.before_each_page(SAID)
        js, wait = phone.js, phone.wait
        phone.go(base + "/#/explore/5PTI")
        wait("return document.getElementById('status').textContent.startsWith('5PTI')", 90)
        # A style and colouring nothing else in the run asks for: the server builds it, with progress.
        js("""document.getElementById('color').value = 'hydrophobicity'; const s = document.getElementById('style');
              s.value = 'sticks'; s.dispatchEvent(new Event('change'));""")
        wait("return document.getElementById('status').textContent.startsWith('5PTI') && window.__said.some(t => /Preparing/.test(t))", 90)
        said = js("return window.__said.filter(t => /bytes|Preparing|Building/.test(t))")
        words = phone.js_async("""const done = arguments[0];
            const url = performance.getEntriesByType('resource').map(e => e.name).find(n => n.endsWith('/js/progress-text.js'));
            import(url).then(m => done([m.describeProgress({ stage: 'download', message: 'downloaded 5645892 bytes', fraction: .5 }, { name: '4HHB' }),
                                        m.describeProgress({ stage: 'write', message: 'wrote 5645892 bytes', fraction: 1 }, { name: '4HHB', format: 'usdz' }),
                                        m.readableSizes('x.pdb: inflates to more than 2147483648 bytes')]), e => done(String(e)));""")
        check("progress and the server's errors are said in words with sizes in KB, MB or GB, never as a raw byte count",
              not any(re.search(r"\d{5,} bytes", t) for t in said)
              and any(re.search(r"Preparing the 3D model… \d+(\.\d)? [KM]B", t) for t in said)
              and words == ["Downloading 4HHB from the archive… 5.6 MB", "Preparing the AR model… 5.6 MB", "x.pdb: inflates to more than 2.1 GB"],
              f"{said[-6:]} / {words}")

        js(STAND_INS + "window.shareSheet(true); window.__errs = []; window.addEventListener('unhandledrejection', e => window.__errs.push(String(e.reason)));")
        # Camera: the share sheet gets a PNG file of the canvas alone.
        phone.click("#camera-button")
        got = phone.wait("return window.__share.got.length === 1", 20) and phone.js_async(LAST_FILE, "share")
        check("Camera hands the share sheet a PNG file named after the molecule", bool(
            got and got[0].startswith("ProteinAR 5PTI ") and got[0].endswith(".png") and got[1] == "image/png" and got[-1] is True), str(got))
        same = phone.js_async(SAME_AS_CANVAS)
        check("the picture is the 3D view alone: the canvas's size and pixels, no page controls",
              bool(same and same[:2] == same[2:4] and same[4] <= same[0] * same[1] * 0.01), str(same))
        js("window.__share.answer = 'AbortError'")
        phone.click("#camera-button")
        cancelled = wait("return window.__share.got.length === 2 && document.getElementById('status').textContent.startsWith('Not saved')", 20)
        js("window.__share.answer = null")
        phone.click("#camera-button")
        again = wait("return window.__share.got.length === 3 && document.getElementById('status').textContent.startsWith('Shared')", 20)
        check("cancelling the share sheet says the picture was not saved, and Camera works again", bool(cancelled and again), js(STATUS))

        # Record, MP4 only (Safari): Enter (on the button) starts, a tap stops, Save shares the video.
        js("window.__rec.supported = ['video/mp4']")
        phone.wd("POST", phone.s + f"/element/{phone.find('#record-button')}/value", {"text": "\ue007"})
        recording = wait("return window.__rec.last?.state === 'recording' && document.getElementById('record-button').getAttribute('aria-pressed') === 'true'", 10)
        phone.click("#record-button")
        wait("return document.getElementById('capture').open", 10) and phone.click("#capture-save")
        got = wait("return window.__share.got.length === 4", 10) and phone.js_async(LAST_FILE, "share")
        check("only MP4 recordable (Safari): Record asks for MP4, and Save shares an .mp4 video file", bool(
            recording and js("return window.__rec.asked.at(-1)").startswith("video/mp4")
            and got and got[0].endswith(".mp4") and got[1] == "video/mp4" and got[3] is True), f"{recording} / {js('return window.__rec.asked')} / {got}")

        # WebM only, and no share sheet: the video downloads.
        js("window.__rec.supported = ['video/webm']; window.shareSheet(false);")
        phone.wd("POST", phone.s + f"/element/{phone.find('#record-button')}/value", {"text": "\ue007"})
        wait("return window.__rec.last?.state === 'recording'", 10) and phone.click("#record-button")
        wait("return document.getElementById('capture').open", 10) and phone.click("#capture-save")
        got = wait("return window.__downloads.length === 1", 10) and phone.js_async(LAST_FILE, "download")
        check("only WebM recordable: Record asks for WebM; with no share sheet, Save downloads a .webm", bool(
            js("return window.__rec.asked.at(-1)").startswith("video/webm") and got and got[0].endswith(".webm") and got[1] == "video/webm"),
            f"{got} / {js('return [window.__rec.asked, window.__downloads.length, window.__rec.last.state, document.getElementById(`record-button`).textContent, window.__errs, document.getElementById(`status`).textContent, document.getElementById(`capture`).open]')}")

        # One tap starts filming, the next stops it; while filming, a still view keeps drawing (a
        # canvas that is not drawn gives the recorder no frames: a still model once recorded nothing).
        js("window.__frames = 0; window.addEventListener('viewer-frame', () => { window.__frames += 1; }, true)")
        phone.click("#record-button")
        started = wait("return window.__rec.last?.state === 'recording' && document.getElementById('record-button').getAttribute('aria-pressed') === 'true'", 5)
        said = js(STATUS)
        js("window.__frames = 0")
        # A still view drew none before; SwiftShader manages a few a second, fewer on a loaded machine:
        # at least 3 frames while filming, within 5 s.
        frames = wait("return window.__frames >= 3 && window.__frames", 5) or js("return window.__frames")
        phone.click("#record-button")
        stopped = wait("return window.__rec.last.state === 'inactive' && document.getElementById('capture').open", 10)
        js("document.getElementById('capture').close()")
        check("a tap on Record starts filming (one way, said once: “tap Stop to finish”), the next tap stops it; a still model keeps drawing meanwhile",
              bool(started and stopped and frames >= 3 and "tap Stop to finish" in said and "Hold" not in said), f"{started} {stopped} {frames} frames, {said!r}")

        # No MediaRecorder, then no captureStream: Record says why, in the status line.
        js("delete window.MediaRecorder")
        phone.click("#record-button")
        no_recorder = wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.offsetHeight > 0 && s.textContent", 5)
        js("window.MediaRecorder = window.FakeRecorder; HTMLCanvasElement.prototype.captureStream = undefined; document.getElementById('status').textContent = ''")
        phone.click("#record-button")
        no_stream = wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent", 5)
        check("where the browser cannot record, Record says so in words (shown, not hidden)", bool(
            no_recorder and "cannot record video" in no_recorder and no_stream and "cannot film the 3D view" in no_stream
            and js("return !document.getElementById('record-button').hidden")), f"{no_recorder} / {no_stream}")

        # AR with camera access: the photo is the camera image with the molecule over it.
        js(CAMERA + "window.shareSheet(true); window.__share.got = [];")
        ar_photo(phone)
        got = wait("return window.__share.got.length === 1", 15) and phone.js_async(LAST_FILE, "share")
        size = js("const c = document.getElementById('viewer'); return [c.width, c.height]")
        check("in AR with camera access, Take a photo saves the camera image with the molecule over it (a JPEG)", bool(
            js("return window.__xr.init.optionalFeatures.includes('camera-access') && window.__camera.images > 0")
            and got and got[1] == "image/jpeg" and got[2:4] == size and got[4][0] > 200 and got[4][1] < 60 and got[4][2] > 200 and got[5] > 0.05),
            f"{got} / {size} / {js('return window.__camera.images')}")
        phone.click("#ar-exit")
        wait("return document.getElementById('ar-overlay').hidden", 10)

        # Without it: the molecule over a transparent background, and the person is told so.
        js("window.__camera.grant = false; window.__share.got = []; window.__camera.images = 0;")
        ar_photo(phone)
        got = wait("return window.__share.got.length === 1", 15) and phone.js_async(LAST_FILE, "share")
        note = wait("const n = document.getElementById('ar-photo-note'); return !n.hidden && n.textContent", 5)
        check("in AR without camera access, the photo is the molecule over a transparent background (a PNG), and the page says so", bool(
            got and got[1] == "image/png" and got[4][3] == 0 and got[5] > 0.05 and note and "transparent background" in note
            and js("return window.__camera.images") == 0), f"{got} / {note}")
        phone.click("#ar-exit")
    except Exception as e:  # noqa: BLE001 — one failed check, the rest of test_web goes on
        check("the capture run finished", False, repr(e))
    finally:
        if phone:
            keep_csp(phone)
            phone.close()


def ar_photo(phone):
    """Starts AR on the page's molecule, places it on the stub's table and presses Take a photo."""
    phone.click("#ar-button")
    phone.wait("return !document.getElementById('ar-overlay').hidden", 20)
    phone.js("window.__xr.surface = true")
    phone.wait("return document.getElementById('ar-status').textContent.includes('Tap to place')", 10)
    phone.js("window.__xr.session.dispatchEvent(new Event('select'))")
    phone.wait("return document.getElementById('ar-overlay').dataset.placed", 10)
    phone.click("#ar-photo")
