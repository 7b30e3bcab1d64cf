// AR in the browser through WebXR (`immersive-ar` with hit-test, as Android Chrome offers): a
// reticle on the surfaces the phone finds, tap to place the molecule, drag to move it, pinch to
// scale, twist to turn, and a status line that says what to do next. It draws with the page's own
// MoleculeViewer, so the model on the table is the one already loaded, with nothing downloaded again.
// Once it stands, a tap on the molecule (not on the floor) asks what it is (`onIdentify`, with the
// atom the ray meets first: pick.js), and `onFrame` lets the page place labels over each frame.
import { mat4, quat } from './math.js';
import { encodePhoto, readARFrame } from './ar-photo.js';
import { pickRay } from './pick.js';
import { screenProjector } from './orbit.js';

// The molecule's diameter on the table at scale 1: big enough to walk around, small enough to fit.
const TABLE_SIZE_M = 0.3;
const MIN_SCALE = 0.1;
const MAX_SCALE = 10;

export const AR_STATUS = {
  searching: 'Move your phone slowly to find a surface.',
  found: 'Tap to place the molecule.',
  placed: 'Drag to move it, pinch to scale, twist with two fingers to turn.',
  lost: 'Tracking lost: move your phone slowly, in good light.',
};

/** Whether this browser can start an immersive AR session (false when unsure). */
export async function immersiveARSupported() {
  try {
    return Boolean(navigator.xr && (await navigator.xr.isSessionSupported('immersive-ar')));
  } catch {
    return false;
  }
}

export class ARPlacement {
  /**
   * @param {import('./viewer.js').MoleculeViewer} viewer holds the loaded model and the GL context
   * @param {HTMLElement} overlay shown over the camera image (WebXR DOM overlay): status line, Exit
   * @param {{onStatus?: (text: string) => void, onEnd?: () => void,
   *   onIdentify?: (hit: {feature: number, point: number[]}) => void,
   *   onFrame?: (project: (point: number[]) => ({x: number, y: number, inFront: boolean})) => void}} callbacks
   *   onIdentify: a tap met the standing molecule; onFrame: each frame, with where a point of the
   *   model (its coordinates) shows on the overlay, in CSS pixels
   */
  constructor(viewer, overlay, { onStatus = () => {}, onEnd = () => {}, onIdentify = null, onFrame = null } = {}) {
    this.viewer = viewer;
    this.overlay = overlay;
    this.onStatus = onStatus;
    this.onEnd = onEnd;
    this.onIdentify = onIdentify;
    this.onFrame = onFrame;
    this._tapped = null;         // the atom a tap in progress met, or null (a tap on the floor drags)
    this.session = null;
    this.position = null;        // where the molecule stands (metres, local space), null until placed
    this.scale = 1;              // the person's pinch, on top of TABLE_SIZE_M
    this.turn = 0;               // the person's twist about the vertical, radians
    this._status = '';
    this._dragging = false;
    this._reticle = null;        // the latest hit pose's matrix
    this._photo = null;          // a photo asked for, taken at the next frame ({resolve, reject})
    this._gesture = null;        // two-finger pinch/twist in progress
    this._pointers = new Map();
    this._placement = mat4.create();
    this._events = new AbortController();
  }

  /** Starts the session; rejects with a readable Error when the device cannot. */
  async start() {
    const { viewer, overlay } = this;
    let session;
    try {
      session = await navigator.xr.requestSession('immersive-ar', {
        requiredFeatures: ['hit-test'],
        // camera-access: the camera image for a photo of what the person sees (ar-photo.js).
        optionalFeatures: ['dom-overlay', 'camera-access'],
        domOverlay: { root: overlay },
      });
    } catch (error) {
      throw new Error(`This device could not start AR (${error?.message ?? error}).`, { cause: error });
    }
    this.session = session;
    try {
      const gl = viewer.gl;
      await gl.makeXRCompatible?.();
      session.updateRenderState({ baseLayer: new XRWebGLLayer(session, gl) });
      this.space = await session.requestReferenceSpace('local');
      const viewerSpace = await session.requestReferenceSpace('viewer');
      this.hitSource = await session.requestHitTestSource({ space: viewerSpace });
      // Finger hits, for dragging the placed molecule; not every browser offers them.
      this.touchHitSource = await session.requestHitTestSourceForTransientInput?.({ profile: 'generic-touchscreen' }).catch(() => null);
    } catch (error) {
      session.end().catch(() => {});
      throw new Error(`AR started but could not track surfaces (${error?.message ?? error}).`, { cause: error });
    }
    this.reticle = viewer.uploadOverlay(reticleMesh());
    overlay.hidden = false;
    this._listen();
    this._say(AR_STATUS.searching);
    session.requestAnimationFrame((t, frame) => this._frame(frame));
  }

  end() {
    this.session?.end().catch(() => {});
  }

  /**
   * A photo of what the person sees, taken at the next frame: resolves {blob, withCamera}, the camera
   * image with the molecule where the browser granted camera-access, else the molecule alone over a
   * transparent background (withCamera false).
   */
  takePhoto() {
    if (!this.session) return Promise.reject(new Error('AR has ended.'));
    if (!this.position) return Promise.reject(new Error('Place the molecule first: tap where the ring shows.'));
    this._photo?.reject(new Error('Another photo was asked for.'));
    return new Promise((resolve, reject) => { this._photo = { resolve, reject }; });
  }

  _listen() {
    const { session, overlay } = this;
    const signal = this._events.signal;
    session.addEventListener('select', (event) => {
      if (this._tapped) { this.onIdentify(this._tapped); this._tapped = null; return; }
      if (!this.position && this._reticle) this._placeAt(this._reticle.slice(12, 15));
    }, { signal });
    session.addEventListener('selectstart', (event) => {
      if (!this.position) return;
      this._tapped = this.onIdentify ? this._pick(event) : null;
      if (this._tapped) return;  // a tap on the molecule asks what it is; it does not move it
      this._dragging = true;
      this._dragFrom = this.position.slice();
    }, { signal });
    session.addEventListener('selectend', () => { this._dragging = false; }, { signal });
    session.addEventListener('end', () => this._finish(), { signal });
    // A lost GL context takes the layer and the reticle with it: leave AR rather than draw nothing.
    this.viewer.canvas.addEventListener('webglcontextlost', () => this.end(), { signal });

    // Two fingers on the overlay: pinch scales, twist turns (the DOM sees touches; WebXR sees selects).
    overlay.addEventListener('pointerdown', (e) => {
      this._pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (this._pointers.size === 2) {
        // The first finger started a drag; a pinch it is, so undo what that drag moved.
        if (this._dragging && this._dragFrom) this._moveTo(this._dragFrom);
        this._dragging = false;
        this._gesture = { ...twoFingers(this._pointers), scale: this.scale, turn: this.turn };
      }
    }, { signal });
    overlay.addEventListener('pointermove', (e) => {
      if (!this._pointers.has(e.pointerId)) return;
      this._pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (!this._gesture || this._pointers.size !== 2) return;
      const now = twoFingers(this._pointers);
      if (this._gesture.spread > 0) {
        this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, this._gesture.scale * (now.spread / this._gesture.spread)));
      }
      this.turn = this._gesture.turn - (now.angle - this._gesture.angle);
      overlay.dataset.scale = this.scale.toFixed(2);
      overlay.dataset.turn = (this.turn * 180 / Math.PI).toFixed(0);
    }, { signal });
    const lift = (e) => {
      this._pointers.delete(e.pointerId);
      if (this._pointers.size < 2) this._gesture = null;
    };
    overlay.addEventListener('pointerup', lift, { signal });
    overlay.addEventListener('pointercancel', lift, { signal });
    // Buttons on the overlay must not also place or drag the molecule.
    overlay.addEventListener('beforexrselect', (e) => { if (e.target.closest('button, a')) e.preventDefault(); }, { signal });
  }

  // The atom the tap's ray meets first (the input's target ray, from the event's frame), or null.
  _pick(event) {
    const pose = event.frame?.getPose?.(event.inputSource?.targetRaySpace, this.space);
    if (!pose || !this.viewer.model) return null;
    const m = pose.transform.matrix;
    const inverse = mat4.invert(mat4.create(), this._placementMatrix());
    if (!inverse) return null;
    const along = (v, w) => [0, 1, 2].map((i) => inverse[i] * v[0] + inverse[4 + i] * v[1] + inverse[8 + i] * v[2] + w * inverse[12 + i]);
    // The ray leaves the pose's origin along its −z axis.
    return pickRay(this.viewer.model, along([m[12], m[13], m[14]], 1), along([-m[8], -m[9], -m[10]], 0));
  }

  // Where model point p shows on the overlay (CSS pixels) in view `view`, with the placement `place`.
  _projector(view, place) {
    const clip = mat4.multiply(mat4.create(), mat4.multiply(mat4.create(), view.projection, view.view), place);
    const project = screenProjector(clip, this.overlay.clientWidth || 1, this.overlay.clientHeight || 1);
    return (p) => {
      const [x, y, depth] = project(p[0], p[1], p[2]);
      return { x, y, inFront: depth > 0 };
    };
  }

  _placeAt(position) {
    this._moveTo(position);
    this.overlay.dataset.placed = 'true';
    this.overlay.dataset.scale = this.scale.toFixed(2);
    this.overlay.dataset.turn = '0';
  }

  _moveTo(position) {
    this.position = Array.from(position);
    // Where it stands, in the overlay's data, for tests and for anyone inspecting the page.
    this.overlay.dataset.position = this.position.map((v) => v.toFixed(2)).join(' ');
  }

  _frame(frame) {
    const session = this.session;
    if (!session) return;
    session.requestAnimationFrame((t, next) => this._frame(next));
    const pose = frame.getViewerPose(this.space);
    if (!pose) {
      this._say(AR_STATUS.lost);
      return;
    }
    const hits = frame.getHitTestResults(this.hitSource);
    this._reticle = hits.length ? hits[0].getPose(this.space)?.transform.matrix ?? null : null;
    if (this._dragging && this.touchHitSource && !this._gesture) {
      for (const { results } of frame.getHitTestResultsForTransientInput(this.touchHitSource)) {
        const hit = results[0]?.getPose(this.space);
        if (hit) this._moveTo([hit.transform.position.x, hit.transform.position.y, hit.transform.position.z]);
      }
    }
    this._say(this.position ? AR_STATUS.placed : this._reticle ? AR_STATUS.found : AR_STATUS.searching);

    const layer = session.renderState.baseLayer;
    const views = pose.views.map((view) => ({
      viewport: layer.getViewport(view),
      view: view.transform.inverse.matrix,
      projection: view.projectionMatrix,
    }));
    // The ring shows where a tap would place the molecule; once it stands, the molecule itself shows.
    const overlays = this._reticle && !this.position ? [{ model: this.reticle, matrix: this._reticle }] : [];
    this.viewer.drawXR(layer.framebuffer, views, this.position ? this._placementMatrix() : null, overlays);
    if (this.onFrame && this.position) this.onFrame(this._projector(views[0], this._placementMatrix()));
    if (this._photo && this.position) this._takePhoto(pose.views[0], views[0]);
  }

  // Within the frame, where the camera image is valid; the encoding finishes after it.
  _takePhoto(xrView, view) {
    const { resolve, reject } = this._photo;
    this._photo = null;
    try {
      const pixels = readARFrame(this.viewer, this.session, xrView, view, this._placementMatrix());
      encodePhoto(pixels).then((blob) => resolve({ blob, withCamera: Boolean(pixels.camera) }), reject);
    } catch (error) {
      reject(error);
    }
  }

  // model → world: the bounding sphere's centre stands one radius above the surface point, turned and scaled.
  _placementMatrix() {
    const { center, radius } = this.viewer.bounds;
    const k = (TABLE_SIZE_M / 2 / (radius || 1)) * this.scale;
    const m = mat4.fromTRS(this._placement, null, quat.setAxisAngle(quat.create(), [0, 1, 0], this.turn), [k, k, k]);
    const lifted = [this.position[0], this.position[1] + radius * k, this.position[2]];
    for (let i = 0; i < 3; i++) {
      m[12 + i] = lifted[i] - (m[i] * center[0] + m[4 + i] * center[1] + m[8 + i] * center[2]);
    }
    return m;
  }

  _say(text) {
    if (text === this._status) return;
    this._status = text;
    this.onStatus(text);
  }

  _finish() {
    this._photo?.reject(new Error('AR ended before the photo was taken.'));
    this._photo = null;
    this._events.abort();
    this._tapped = null;
    this.viewer.releaseOverlay(this.reticle ?? []);
    this.session = null;
    this.overlay.hidden = true;
    delete this.overlay.dataset.placed;
    delete this.overlay.dataset.position;
    this.viewer.requestRender();
    this.onEnd();
  }
}

function twoFingers(pointers) {
  const [a, b] = [...pointers.values()];
  return { spread: Math.hypot(b.x - a.x, b.y - a.y), angle: Math.atan2(b.y - a.y, b.x - a.x) };
}

// A flat ring lying on the surface (the hit pose's y axis is the surface normal), 8 cm across.
function reticleMesh() {
  const segments = 48, inner = 0.03, outer = 0.04;
  const positions = new Float32Array(segments * 2 * 3);
  const normals = new Float32Array(segments * 2 * 3);
  const colors = new Float32Array(segments * 2 * 4).fill(1);
  const indices = new Uint16Array(segments * 6);
  for (let i = 0; i < segments; i++) {
    const a = (i / segments) * Math.PI * 2, c = Math.cos(a), s = Math.sin(a);
    positions.set([c * inner, 0, s * inner, c * outer, 0, s * outer], i * 6);
    normals.set([0, 1, 0, 0, 1, 0], i * 6);
    const j = (i + 1) % segments;
    indices.set([2 * i, 2 * i + 1, 2 * j + 1, 2 * i, 2 * j + 1, 2 * j], i * 6);
  }
  return {
    meshes: [{ primitives: [{ positions, normals, colors, indices, vertexCount: segments * 2 }] }],
    nodes: [{ mesh: 0, matrix: mat4.create() }],
  };
}
