// Orbit controls for the 3D viewer (viewer.js): a camera that turns about a target, framing a
// sphere (the model's bounds), with its view and projection matrices, and the pointer, touch,
// wheel and keyboard input that moves it.
// Dragging rotates (the right or middle button, or Shift, pans), two fingers pinch to zoom, move
// to pan and twist to turn the model about the line of sight, the wheel zooms, arrow keys rotate, + and - zoom, and 0 returns to the first view. A
// tap is announced on the canvas as a `viewer-tap` event, a double tap also as `viewer-doubletap`.

import { mat4, quat, vec3 } from './math.js';

const FOV_Y = Math.PI / 4; // 45 degrees
const FIT_MARGIN = 1.02;
const BOX_MARGIN = 1.12;   // room around a box that fills the view
const MIN_DISTANCE_RADII = 0.05;
const MAX_DISTANCE_RADII = 20;

const TAP_MAX_MS = 300;
const TAP_MOVE_PX = 8;
const DOUBLE_TAP_MS = 350;
const DOUBLE_TAP_DISTANCE_PX = 30;
const KEY_ROTATE_STEP = Math.PI / 36; // 5 degrees
const KEY_ZOOM_STEP = 1.15;
const TWIST_MIN_SPREAD_PX = 20;

/**
 * (x, y, z) → [x, y, depth] through the column-major `clip` matrix (projection × view × model) onto
 * a `width` × `height` CSS-pixel view; depth is the clip w, the distance in front of the eye.
 */
export function screenProjector(clip, width, height) {
  return (x, y, z) => {
    const w = clip[3] * x + clip[7] * y + clip[11] * z + clip[15] || 1e-9;
    return [((clip[0] * x + clip[4] * y + clip[8] * z + clip[12]) / w + 1) / 2 * width,
      (1 - (clip[1] * x + clip[5] * y + clip[9] * z + clip[13]) / w) / 2 * height, w];
  };
}

export class OrbitControls {
  /**
   * @param {HTMLCanvasElement} canvas what the pointers and keys act on; its drawing buffer's shape
   *   is the view's
   * @param {() => void} onChange called whenever the camera moves, to draw a frame
   */
  constructor(canvas, onChange) {
    this.canvas = canvas;
    /** What the camera looks at and turns about. */
    this.target = vec3.create();
    this.rotation = quat.create();
    this.distance = 1;
    /** The sphere the camera frames (frame()): zoom limits and the fitting distance follow it. */
    this.center = vec3.create();
    this.radius = 1;
    /** Half-sizes of the model's box ([x, y, z]), which the fitting distance fills the view with; or null. */
    this.extent = null;
    this.home = { target: vec3.create(), rotation: quat.create() };
    /** The view matrix (viewMatrix() and updateMatrices() fill it) and the projection (updateMatrices()). */
    this.view = mat4.create();
    this.projection = mat4.create();
    /** Whether someone moved the view since it was last reset. */
    this.userMoved = false;
    /** performance.now() of the last move. */
    this.movedAt = -Infinity;

    this._onChange = onChange;
    this._scratchQuat = quat.create();
    this._scratchMat = mat4.create();
    this._pointers = new Map();
    this._dragMode = 'rotate';
    this._tap = null;
    this._lastTap = null;
  }

  /** The drawing buffer's width over its height. */
  _aspect() {
    const { width, height } = this.canvas;
    return width > 0 && height > 0 ? width / height : 1;
  }

  // Distance at which the model fills the view from the front: its box's width and height within
  // the two fields of view, measured at its front face (the bounding sphere, which fits any turn,
  // left an elongated protein at a third of the view). Without a box, the sphere fits.
  fitDistance() {
    const halfY = FOV_Y / 2;
    const halfX = Math.atan(Math.tan(halfY) * this._aspect());
    const e = this.extent;
    if (!e) return (this.radius / Math.sin(Math.min(halfX, halfY))) * FIT_MARGIN;
    return e[2] + Math.max(e[0] / Math.tan(halfX), e[1] / Math.tan(halfY)) * BOX_MARGIN;
  }

  /**
   * Frames the sphere (center, radius) from the front, filling the view with the box of half-sizes
   * `extent` ([x, y, z]) when given; this becomes the view reset() returns to.
   */
  frame(center, radius, extent = null) {
    this.radius = radius;
    this.extent = extent;
    vec3.copy(this.center, center);
    vec3.copy(this.home.target, this.center);
    quat.identity(this.home.rotation);
    this.reset();
  }

  /** Returns to the view frame() set up. */
  reset() {
    vec3.copy(this.target, this.home.target);
    quat.copy(this.rotation, this.home.rotation);
    this.distance = this.fitDistance();
    this.userMoved = false;
    this._onChange();
  }

  // view = translate(0, 0, -distance) * rotation * translate(-target)
  viewMatrix() {
    const view = mat4.fromQuat(this.view, this.rotation);
    const t = this.target;
    view[12] = -(view[0] * t[0] + view[4] * t[1] + view[8] * t[2]);
    view[13] = -(view[1] * t[0] + view[5] * t[1] + view[9] * t[2]);
    view[14] = -(view[2] * t[0] + view[6] * t[1] + view[10] * t[2]) - this.distance;
    return view;
  }

  /**
   * Updates `view`, and `projection` with clip planes about the framed sphere and `extra` (another
   * sphere, {center, radius}, to keep in view; or null). Returns the depth of the framed sphere's
   * centre.
   */
  updateMatrices(extra) {
    const view = this.viewMatrix();

    // Clip planes follow the model itself, which panning and rotating
    // about a panned target can move nearer or further.
    const c = this.center;
    const centerDepth = -(view[2] * c[0] + view[6] * c[1] + view[10] * c[2] + view[14]);
    const r = this.radius;
    // Extras (strokes) may reach beyond the model: the clip planes take them in, the fog does not.
    let nearDepth = centerDepth - r * 1.05, farDepth = centerDepth + r * 1.05;
    if (extra) {
      const e = extra.center;
      const depth = -(view[2] * e[0] + view[6] * e[1] + view[10] * e[2] + view[14]);
      nearDepth = Math.min(nearDepth, depth - extra.radius * 1.05);
      farDepth = Math.max(farDepth, depth + extra.radius * 1.05);
    }
    const near = Math.max(nearDepth, r * 0.01);
    const far = Math.max(farDepth, near + r);
    mat4.perspective(this.projection, FOV_Y, this._aspect(), near, far);
    return centerDepth;
  }

  // The point under (x, y), CSS pixels from the canvas's top left, on the plane facing the camera
  // through `through`.
  unproject(x, y, through) {
    const view = this.viewMatrix();
    const width = this.canvas.clientWidth || 1;
    const height = this.canvas.clientHeight || 1;
    const depth = -(view[2] * through[0] + view[6] * through[1] + view[10] * through[2] + view[14]);
    const halfY = Math.tan(FOV_Y / 2) * depth;
    const halfX = halfY * (width / height);
    const eye = [((2 * x) / width - 1) * halfX, (1 - (2 * y) / height) * halfY, -depth];
    // The view matrix is a rigid motion: its inverse is the transposed rotation, then the shift.
    const d = [eye[0] - view[12], eye[1] - view[13], eye[2] - view[14]];
    return [0, 1, 2].map((i) => view[i * 4] * d[0] + view[i * 4 + 1] * d[1] + view[i * 4 + 2] * d[2]);
  }

  // Where a point shows on the canvas with the last updateMatrices(): {x, y} in CSS pixels, and
  // `inFront` false behind the camera.
  /**
   * For many points at once, with the matrices as they are now: (x, y, z) → [x, y, depth], x and y in
   * CSS pixels, depth the distance in front of the camera (≤ 0: behind).
   */
  projector() {
    const clip = mat4.multiply(mat4.create(), this.projection, this.view);
    return screenProjector(clip, this.canvas.clientWidth || 1, this.canvas.clientHeight || 1);
  }

  /** Where `point` shows: {x, y} in CSS pixels, `inFront` false behind the camera. */
  project(point) {
    const [x, y, depth] = this.projector()(point[0], point[1], point[2]);
    return { x, y, inFront: depth > 0 };
  }

  // Turns the model about the camera's own axes (a virtual trackball), so
  // dragging always moves the front of the model with the pointer.
  rotate(aboutUp, aboutRight) {
    const q = this._scratchQuat;
    quat.setAxisAngle(q, [0, 1, 0], aboutUp);
    quat.multiply(this.rotation, q, this.rotation);
    quat.setAxisAngle(q, [1, 0, 0], aboutRight);
    quat.multiply(this.rotation, q, this.rotation);
    quat.normalize(this.rotation, this.rotation);
    this._moved();
  }

  // Turns the model about the line of sight by `angle` radians (clockwise on the screen for a
  // positive angle): two fingers twisting, as on a photo.
  roll(angle) {
    if (!angle || !Number.isFinite(angle)) return;
    const q = this._scratchQuat;
    // Screen y points down, the camera's y up: a clockwise twist on the screen is a negative turn
    // about the camera's z axis, which points at the viewer.
    quat.setAxisAngle(q, [0, 0, 1], -angle);
    quat.multiply(this.rotation, q, this.rotation);
    quat.normalize(this.rotation, this.rotation);
    this._moved();
  }

  // Moves the model with the pointer by `dx`, `dy` CSS pixels.
  pan(dx, dy) {
    const height = this.canvas.clientHeight || this.canvas.height || 1;
    const worldPerPixel = (2 * this.distance * Math.tan(FOV_Y / 2)) / height;
    const m = mat4.fromQuat(this._scratchMat, this.rotation);
    const right = [m[0], m[4], m[8]];
    const up = [m[1], m[5], m[9]];
    vec3.scaleAndAdd(this.target, this.target, right, -dx * worldPerPixel);
    vec3.scaleAndAdd(this.target, this.target, up, dy * worldPerPixel);
    this._moved();
  }

  // factor > 1 moves the camera away.
  zoom(factor) {
    if (!(factor > 0) || !Number.isFinite(factor)) return;
    const min = this.radius * MIN_DISTANCE_RADII;
    const max = this.radius * MAX_DISTANCE_RADII;
    this.distance = Math.min(max, Math.max(min, this.distance * factor));
    this._moved();
  }

  _moved() {
    this.userMoved = true;
    this.movedAt = performance.now();
    this._onChange();
  }

  _rotationPerPixel() {
    const { clientWidth, clientHeight } = this.canvas;
    const size = Math.min(clientWidth || 1, clientHeight || 1);
    return Math.PI / size;
  }

  // --- Input ---------------------------------------------------------------

  /** Starts listening to the canvas until `signal` aborts. */
  listen(signal) {
    const { canvas } = this;
    const options = { signal };
    canvas.addEventListener('pointerdown', (e) => this.pointerDown(e), options);
    canvas.addEventListener('pointermove', (e) => this._onPointerMove(e), options);
    canvas.addEventListener('pointerup', (e) => this._onPointerEnd(e), options);
    canvas.addEventListener('pointercancel', (e) => this._onPointerEnd(e), options);
    canvas.addEventListener('lostpointercapture', (e) => this._onPointerEnd(e), options);
    canvas.addEventListener('wheel', (e) => this._onWheel(e), { ...options, passive: false });
    canvas.addEventListener('keydown', (e) => this._onKeyDown(e), options);
    canvas.addEventListener('contextmenu', (e) => e.preventDefault(), options);
  }

  /** A pointer going down on the canvas (or handed over: MoleculeViewer.trackPointer). */
  pointerDown(e) {
    if (e.pointerType === 'mouse' && e.button > 2) return;
    e.preventDefault();
    this.canvas.focus({ preventScroll: true });
    try {
      this.canvas.setPointerCapture(e.pointerId);
    } catch {
      // The pointer may already be gone; dragging still works without capture.
    }
    this._pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (this._pointers.size === 1) {
      this._dragMode = e.button === 1 || e.button === 2 ? 'pan' : 'rotate';
      this._tap = e.button === 0 ? { id: e.pointerId, x: e.clientX, y: e.clientY, t: e.timeStamp, type: e.pointerType } : null;
    } else {
      // A second finger turns the gesture into pinch/pan; it is not a tap.
      this._tap = null;
      this._lastTap = null;
    }
  }

  _onPointerMove(e) {
    const pointer = this._pointers.get(e.pointerId);
    if (!pointer) return;
    if (this._tap?.id === e.pointerId && Math.hypot(e.clientX - this._tap.x, e.clientY - this._tap.y) > TAP_MOVE_PX) {
      this._tap = null;
    }

    if (this._pointers.size === 1) {
      const dx = e.clientX - pointer.x;
      const dy = e.clientY - pointer.y;
      pointer.x = e.clientX;
      pointer.y = e.clientY;
      if (dx === 0 && dy === 0) return;
      if (this._dragMode === 'none') return;
      if (this._dragMode === 'pan' || e.shiftKey) {
        this.pan(dx, dy);
      } else {
        const k = this._rotationPerPixel();
        this.rotate(dx * k, dy * k);
      }
      return;
    }

    // Two (or more) pointers: the first two pinch to zoom, move to pan and twist to roll.
    const [a, b] = this._pointers.values();
    if (pointer !== a && pointer !== b) {
      pointer.x = e.clientX;
      pointer.y = e.clientY;
      return;
    }
    const before = pinch(a, b);
    pointer.x = e.clientX;
    pointer.y = e.clientY;
    const after = pinch(a, b);
    if (before.spread > 0 && after.spread > 0) this.zoom(before.spread / after.spread);
    if (after.x !== before.x || after.y !== before.y) this.pan(after.x - before.x, after.y - before.y);
    // Fingers too close together give a jittery angle: no twist from them.
    if (before.spread > TWIST_MIN_SPREAD_PX && after.spread > TWIST_MIN_SPREAD_PX) {
      let turn = after.angle - before.angle;
      if (turn > Math.PI) turn -= 2 * Math.PI;        // across the ±π seam, the short way round
      else if (turn < -Math.PI) turn += 2 * Math.PI;
      this.roll(turn);
    }
  }

  _onPointerEnd(e) {
    if (!this._pointers.has(e.pointerId)) return;
    const wasMultiTouch = this._pointers.size > 1;
    this._pointers.delete(e.pointerId);
    // After a pinch, the finger left behind should not suddenly rotate.
    if (wasMultiTouch) this._dragMode = 'none';

    const tap = this._tap;
    this._tap = null;
    if (e.type !== 'pointerup' || !tap || tap.id !== e.pointerId || e.timeStamp - tap.t > TAP_MAX_MS) return;
    // Every tap is announced (what it touched is identified); a second one soon after is a double tap too.
    const where = this.canvas.getBoundingClientRect();
    this.canvas.dispatchEvent(new CustomEvent('viewer-tap', {
      detail: { x: tap.x - where.left, y: tap.y - where.top, pointerType: tap.type }
    }));
    const last = this._lastTap;
    if (last && tap.t - last.t < DOUBLE_TAP_MS && Math.hypot(tap.x - last.x, tap.y - last.y) < DOUBLE_TAP_DISTANCE_PX) {
      this._lastTap = null;
      const rect = this.canvas.getBoundingClientRect();
      this.canvas.dispatchEvent(new CustomEvent('viewer-doubletap', {
        detail: { x: tap.x - rect.left, y: tap.y - rect.top, pointerType: tap.type }
      }));
    } else {
      this._lastTap = { x: tap.x, y: tap.y, t: e.timeStamp };
    }
  }

  _onWheel(e) {
    e.preventDefault();
    let delta = e.deltaY;
    if (e.deltaMode === 1) delta *= 16; // lines
    else if (e.deltaMode === 2) delta *= this.canvas.clientHeight || 800; // pages
    // Trackpad pinches arrive as ctrl+wheel with small deltas.
    this.zoom(Math.exp(delta * (e.ctrlKey ? 0.01 : 0.0015)));
  }

  _onKeyDown(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    switch (e.key) {
      case 'ArrowLeft':
        this.rotate(-KEY_ROTATE_STEP, 0);
        break;
      case 'ArrowRight':
        this.rotate(KEY_ROTATE_STEP, 0);
        break;
      case 'ArrowUp':
        this.rotate(0, -KEY_ROTATE_STEP);
        break;
      case 'ArrowDown':
        this.rotate(0, KEY_ROTATE_STEP);
        break;
      case '+':
      case '=':
        this.zoom(1 / KEY_ZOOM_STEP);
        break;
      case '-':
      case '_':
        this.zoom(KEY_ZOOM_STEP);
        break;
      case '0':
        this.reset();
        break;
      default:
        return;
    }
    e.preventDefault();
  }
}

function pinch(a, b) {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, spread: Math.hypot(a.x - b.x, a.y - b.y), angle: Math.atan2(b.y - a.y, b.x - a.x) };
}
