// An in-page 3D preview of the server's GLB exports, so people without an AR
// device can still inspect a structure, and so the site needs no third-party
// viewer, CDN or build step: the model, its camera and its render loop. It
// draws only when something changes, to stay cheap on phones, and records
// frame timings for the benchmarks. Its shaders and GPU buffers are in gl.js,
// the orbit camera and the pointer, touch and keyboard input in orbit.js.

import { followDisplaySize, pinAutoSize } from './canvas-size.js';
import { abortError, downloadModel } from './download.js';
import { parseGLB } from './glb.js';
import {
  createFrameTarget, createPresentProgram, createSceneProgram, deleteFrameTarget, drawMeshes, presentFrame, releaseMeshes, uploadMeshes
} from './gl.js';
import { mat4 } from './math.js';
import { OrbitControls } from './orbit.js';

const NO_WEBGL2_MESSAGE = 'This browser cannot show 3D (WebGL2 is not available).';

const FRAME_HISTORY = 120;

// While the view moves, a model whose full frame takes longer than this (GPU included) is drawn from
// its coarse version, and the full one returns once the view has been still for SETTLE_MS.
const FRAME_BUDGET_MS = 25;
const SETTLE_MS = 200;
// ... at half resolution or less: at most MOTION_PIXELS, as fill rate is what software GL lacks most.
const MOTION_RESOLUTION = 0.5;
const MOTION_PIXELS = 65536;

// Fog, in multiples of the model radius relative to the model centre's depth.
const FOG_START_RADII = -0.2;
const FOG_END_RADII = 0.7;
const FOG_STRENGTH = 0.75;

export class MoleculeViewer {
  /**
   * @param {HTMLCanvasElement} canvas sized by CSS; the drawing buffer follows it
   * @param {{background?: string, fog?: boolean, syncFrameTiming?: boolean}} options
   *   background: hex colour (default '#ffffff'); fog: depth cueing (default
   *   true); syncFrameTiming: wait for the GPU inside each measured frame so
   *   `frameTimes` include GPU work (slower; for benchmarks only).
   */
  constructor(canvas, { background = '#ffffff', fog = true, syncFrameTiming = false } = {}) {
    const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
    if (!gl) throw new Error(NO_WEBGL2_MESSAGE);

    this.canvas = canvas;
    this.gl = gl;
    /** Durations (ms) of the last 120 renders. */
    this.frameTimes = [];
    /** performance.now() when the current model's first frame was drawn, else null. */
    this.firstFrameAt = null;
    /** The parsed model being shown (parseGLB's result), or null. */
    this.model = null;

    this._background = parseColor(background);
    this._fog = fog;
    this._syncFrameTiming = syncFrameTiming;
    this._pixel = new Uint8Array(4);

    this._orbit = new OrbitControls(canvas, () => this.requestRender());
    this._fogRange = new Float32Array(3);
    this._scratchMat = mat4.create();

    this._program = null;
    this._presentProgram = null; // draws the half-resolution motion frame over the canvas
    this._motion = null;
    this._uniforms = null;
    this._gpu = [];
    this._extras = [];         // uploads drawn with the model, in its coordinates (setExtras)
    this._clearExtras = [];    // the same, drawn without the fog (setExtras' `clear`)
    this._xrExtras = [];       // uploads drawn with the model in AR frames only (setXRExtras)
    this._extraBounds = null;  // their bounding sphere, so clipping keeps them
    this._sceneBounds = null;  // what the camera fits when there is no model (setSceneBounds)
    this._coarse = [];         // the coarse version drawn while the view moves (loadCoarse)
    this._coarseModel = null;
    this._fullFrameMs = null;  // what one full frame costs, GPU included, once measured
    this._probes = 0;
    this._frameCostWaiters = [];
    this._settleTimer = 0;
    this._raf = 0;
    this._disposed = false;
    this._contextLost = false;
    this._loadSerial = 0;

    this._events = new AbortController();

    if (!canvas.hasAttribute('tabindex')) canvas.tabIndex = 0;
    canvas.style.touchAction = 'none';
    pinAutoSize(canvas);
    this._initGL();
    this._listen();
    this._observeSize();
    this.requestRender();
  }

  /**
   * Downloads, parses and shows a GLB model.
   * @param {string|URL} url
   * @param {{signal?: AbortSignal, onProgress?: (received: number, total: number) => void}} options
   * @returns {Promise<object>} the parsed model
   */
  async load(url, { signal, onProgress } = {}) {
    const serial = ++this._loadSerial;
    const parsed = await this._fetchGLB(url, serial, { signal, onProgress });
    this.setModel(parsed);
    return parsed;
  }

  /**
   * Downloads a coarser version of the shown model, drawn instead of it while the view moves when
   * a full frame is too slow for smooth motion (software GL, weak phones); still views stay full.
   */
  async loadCoarse(url, { signal } = {}) {
    const serial = this._loadSerial;
    const parsed = await this._fetchGLB(url, serial, { signal });
    this._release(this._coarse);
    this._coarseModel = parsed;
    this._coarse = this._contextLost ? [] : uploadMeshes(this.gl, parsed);
  }

  /** Resolves once the shown model's full-frame cost has been measured. */
  frameCostKnown() {
    if (this._probes >= 2 || (this._probes === 1 && this._fullFrameMs <= FRAME_BUDGET_MS)) return Promise.resolve();
    return new Promise((resolve) => this._frameCostWaiters.push(resolve));
  }

  /** Whether full frames of the shown model are too slow for smooth motion on this device. */
  get slowFrames() {
    return this._fullFrameMs !== null && this._fullFrameMs > FRAME_BUDGET_MS;
  }

  /** Triangles in the shown model, counting each instance. */
  get triangleCount() {
    if (!this.model) return 0;
    const perMesh = this.model.meshes.map((mesh) => mesh.primitives.reduce((n, p) =>
      n + Math.floor((p.indices ? p.indices.length : p.vertexCount) / 3), 0));
    return this.model.nodes.reduce((n, node) => n + (perMesh[node.mesh] ?? 0), 0);
  }

  async _fetchGLB(url, serial, options) {
    const buffer = await downloadModel(url, options);
    if (serial !== this._loadSerial || this._disposed) throw abortError('A newer model load replaced this one.');
    return parseGLB(buffer);
  }

  /** Shows a parsed model (parseGLB's), or nothing for null; framed unless `keepView` (another model of an ensemble). */
  setModel(parsed, { keepView = false } = {}) {
    if (parsed !== null && (!parsed || !Array.isArray(parsed.meshes) || !Array.isArray(parsed.nodes))) {
      throw new TypeError('setModel expects the result of parseGLB() or null.');
    }
    this._releaseModel();
    this._release(this._coarse);
    this._coarse = [];
    this._coarseModel = null;
    this._fullFrameMs = null;
    this._probes = 0;
    this._frameCostWaiters.splice(0).forEach((resolve) => resolve());
    this.model = parsed;
    this.firstFrameAt = null;
    if (parsed && !this._contextLost) this._gpu = uploadMeshes(this.gl, parsed);
    if (!keepView) this._fitCamera();
    this.requestRender();
  }

  /** Draws a frame now (normally frames are drawn on demand by themselves). */
  render() {
    if (this._disposed || this._contextLost) return;
    if (this._raf) {
      cancelAnimationFrame(this._raf);
      this._raf = 0;
    }
    const start = performance.now();
    const drawn = this._draw();  // 'full', 'coarse' or null (nothing to draw)
    const drewFull = drawn === 'full';
    // The first full frames of a model wait for the GPU, to learn what a full frame costs: the
    // cheaper of two, as the first also pays for shader and upload work.
    const probe = drewFull && this._gpu.length > 0 && this._probes < 2;
    if (this._syncFrameTiming || probe) {
      const gl = this.gl;
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, this._pixel);
    }
    const end = performance.now();
    if (probe) {
      this._fullFrameMs = Math.min(this._fullFrameMs ?? Infinity, end - start);
      this._probes += 1;
      if (this._probes === 1 && this._fullFrameMs > FRAME_BUDGET_MS) this.requestRender();
      else this._frameCostWaiters.splice(0).forEach((resolve) => resolve());
    }
    if (drawn === 'coarse') {
      clearTimeout(this._settleTimer);
      this._settleTimer = setTimeout(() => this.requestRender(), SETTLE_MS);
    }
    this.frameTimes.push(end - start);
    if (this.frameTimes.length > FRAME_HISTORY) this.frameTimes.splice(0, this.frameTimes.length - FRAME_HISTORY);
    if (this.model && this.firstFrameAt === null) this.firstFrameAt = end;
    this.canvas.dispatchEvent(new CustomEvent('viewer-frame', { detail: { duration: end - start, coarse: drawn === 'coarse' } }));
  }

  /** Schedules one frame on the next animation frame, if none is pending. */
  requestRender() {
    if (this._raf || this._disposed || this._contextLost) return;
    this._raf = requestAnimationFrame(() => {
      this._raf = 0;
      this.render();
    });
  }

  /** A PNG of the canvas alone (no page chrome). */
  snapshot() {
    if (this._disposed) return Promise.reject(new Error('The viewer has been closed.'));
    this._orbit.movedAt = -Infinity;  // a picture is always of the full model
    this.render();
    return new Promise((resolve, reject) => {
      this.canvas.toBlob((blob) => {
        if (blob) resolve(blob);
        else reject(new Error('Could not capture a picture of the model.'));
      }, 'image/png');
    });
  }

  /** Returns to the view shown right after loading. */
  resetView() {
    this._orbit.reset();
  }

  /** Changes the background (and fog) colour; accepts '#rgb' or '#rrggbb'. */
  setBackground(color) {
    this._background = parseColor(color);
    this.requestRender();
  }

  /**
   * Extra geometry drawn with the model in the model's own coordinates, such as the strokes of a
   * drawing room: uploads from uploadOverlay (the caller keeps and frees them), and their bounding
   * sphere ({center, radius}) so the clip planes do not cut them off. drawXR draws them too.
   * `clear`: more uploads drawn without the fog, for things that matter however far behind the model
   * they are (the other people in a drawing room).
   */
  setExtras(uploads, bounds = null, clear = []) {
    this._extras = uploads;
    this._clearExtras = clear;
    this._extraBounds = bounds && bounds.radius > 0 ? { center: Array.from(bounds.center), radius: bounds.radius } : null;
    this.requestRender();
  }

  /** The sphere ({center, radius}) the camera fits while no model is shown: an empty room's space. */
  setSceneBounds(bounds) {
    this._sceneBounds = bounds;
    if (!this.model) this._fitCamera();
  }

  /** Turns the view about `point` (model coordinates) from where it is: what a tapped atom's Centre does. */
  centreOn(point) {
    this._orbit.target.set(point);
    this.requestRender();
  }

  /** Where the camera is and what it looks at ({position, target}, model coordinates). */
  get camera() {
    const inverse = mat4.invert(mat4.create(), this._orbit.viewMatrix());
    return { position: [inverse[12], inverse[13], inverse[14]], target: Array.from(this._orbit.target) };
  }

  /**
   * The point under the canvas position (x, y), in CSS pixels from its top left, on the plane that
   * faces the camera through `through` (default: the view's target): where a finger draws.
   */
  unproject(x, y, through = this._orbit.target) {
    return this._orbit.unproject(x, y, through);
  }

  /** Where a point (model coordinates) shows on the canvas: {x, y} in CSS pixels, `inFront` false behind the camera. */
  project(point) {
    this._updateMatrices();
    return this._orbit.project(point);
  }

  /** project() for many points: (x, y, z) → [x, y, depth] (orbit.js projector()). */
  projector() {
    this._updateMatrices();
    return this._orbit.projector();
  }

  /**
   * Hands the viewer a pointer that went down while something else had it (a finger that began a
   * drawing stroke, then a second finger made the gesture a pinch), so it can join the gesture.
   */
  trackPointer(event) {
    this._orbit.pointerDown(event);
  }

  /** Frees GPU memory and listeners; the viewer cannot be used afterwards. */
  dispose() {
    if (this._disposed) return;
    this._disposed = true;
    this._loadSerial++;
    if (this._raf) cancelAnimationFrame(this._raf);
    this._raf = 0;
    this._events.abort();
    this._resizeObserver?.disconnect();
    this._releaseModel();
    this._release(this._coarse);
    this._releaseMotionTarget();
    clearTimeout(this._settleTimer);
    if (this._program && !this._contextLost) this.gl.deleteProgram(this._program);
    if (this._presentProgram && !this._contextLost) this.gl.deleteProgram(this._presentProgram);
    this._program = null;
    this.model = null;
  }

  // --- GPU -----------------------------------------------------------------

  _initGL() {
    const gl = this.gl;
    const { program, uniforms } = createSceneProgram(gl);
    this._program = program;
    this._uniforms = uniforms;
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LEQUAL);
    gl.disable(gl.CULL_FACE);
  }

  _releaseModel() {
    this._release(this._gpu);
    this._gpu = [];
  }

  _release(uploaded) {
    if (!this._contextLost) releaseMeshes(this.gl, uploaded);
  }

  _draw() {
    const gl = this.gl;
    const { width, height } = this.canvas;
    this._updateMatrices();
    const moving = performance.now() - this._orbit.movedAt < SETTLE_MS;
    const coarse = moving && this._gpu.length > 0 && this._coarse.length > 0 && this._fullFrameMs > FRAME_BUDGET_MS;
    // A slow device in motion also draws at a lower resolution (no multisampling), then scales it up.
    const target = coarse ? this._motionTarget(width, height) : null;
    gl.bindFramebuffer(gl.FRAMEBUFFER, target?.framebuffer ?? null);
    gl.viewport(0, 0, target?.width ?? width, target?.height ?? height);
    const [r, g, b] = this._background;
    gl.clearColor(r, g, b, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    if ((this._gpu.length === 0 && this._extras.length === 0 && this._clearExtras.length === 0) || !this._program) return null;

    gl.useProgram(this._program);
    gl.uniformMatrix4fv(this._uniforms.view, false, this._orbit.view);
    gl.uniformMatrix4fv(this._uniforms.projection, false, this._orbit.projection);
    gl.uniform3fv(this._uniforms.background, this._background);
    gl.uniform3fv(this._uniforms.fog, this._fogRange);
    drawMeshes(gl, coarse ? this._coarse : this._gpu);
    for (const extra of this._extras) drawMeshes(gl, extra);
    if (this._clearExtras.length) {
      gl.uniform3f(this._uniforms.fog, 0, 1, 0);
      for (const extra of this._clearExtras) drawMeshes(gl, extra);
    }
    if (target) presentFrame(gl, this._presentProgram, target, width, height);
    return coarse ? 'coarse' : 'full';
  }

  // An offscreen colour texture and depth buffer, a fraction of the canvas's size.
  _motionTarget(width, height) {
    const scale = Math.min(MOTION_RESOLUTION, Math.sqrt(MOTION_PIXELS / (width * height)));
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    if (this._motion?.width === w && this._motion?.height === h) return this._motion;
    this._releaseMotionTarget();
    const target = createFrameTarget(this.gl, w, h);
    if (!this._presentProgram) this._presentProgram = createPresentProgram(this.gl);
    this._motion = target;
    return this._motion;
  }

  _releaseMotionTarget() {
    if (!this._motion) return;
    if (!this._contextLost) deleteFrameTarget(this.gl, this._motion);
    this._motion = null;
  }

  // --- AR --------------------------------------------------------------------

  /**
   * Draws one AR frame into `framebuffer` (a WebXR layer's): for each view, the model moved by
   * `placement` and any `overlays` ({model: an upload() result, matrix}) such as the reticle, with the
   * view's own matrices, no fog and a transparent background so the camera image shows through.
   * @param {WebGLFramebuffer|null} framebuffer
   * @param {{viewport: {x: number, y: number, width: number, height: number}, view: Float32Array, projection: Float32Array}[]} views
   *   view: the inverse of the eye's pose (world → eye), column-major
   * @param {Float32Array|null} placement model → world, or null while the model is not placed
   */
  drawXR(framebuffer, views, placement, overlays = []) {
    if (this._disposed || this._contextLost || !this._program) return;
    const gl = this.gl;
    const start = performance.now();
    const eye = this._scratchMat;
    gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.useProgram(this._program);
    gl.uniform3fv(this._uniforms.background, this._background);
    gl.uniform3f(this._uniforms.fog, 0, 1, 0);
    for (const { viewport, view, projection } of views) {
      gl.viewport(viewport.x, viewport.y, viewport.width, viewport.height);
      gl.uniformMatrix4fv(this._uniforms.projection, false, projection);
      // Placing is folding the placement into the view: the shader takes one model-view matrix.
      if (placement) {
        gl.uniformMatrix4fv(this._uniforms.view, false, mat4.multiply(eye, view, placement));
        drawMeshes(gl, this._gpu);
        for (const extra of [...this._extras, ...this._clearExtras, ...this._xrExtras]) drawMeshes(gl, extra);
      }
      for (const overlay of overlays) {
        gl.uniformMatrix4fv(this._uniforms.view, false, mat4.multiply(eye, view, overlay.matrix));
        drawMeshes(gl, overlay.model);
      }
    }
    const end = performance.now();
    this.frameTimes.push(end - start);
    if (this.frameTimes.length > FRAME_HISTORY) this.frameTimes.splice(0, this.frameTimes.length - FRAME_HISTORY);
    this.canvas.dispatchEvent(new CustomEvent('viewer-frame', { detail: { duration: end - start, xr: true } }));
  }

  /** Uploads (uploadOverlay's) drawn with the model in AR frames only: what the page shows its own way, as measurements. */
  setXRExtras(uploads) {
    this._xrExtras = uploads;
  }

  /** Uploads extra geometry (parseGLB's shape) for drawXR overlays; free it with releaseOverlay. */
  uploadOverlay(parsed) {
    return this._contextLost ? [] : uploadMeshes(this.gl, parsed);
  }

  releaseOverlay(uploaded) {
    this._release(uploaded);
  }

  /** The shown model's bounding sphere ({center, radius}, model units), for placing it in AR. */
  get bounds() {
    return { center: Array.from(this._orbit.center), radius: this._orbit.radius };
  }

  // --- Camera --------------------------------------------------------------

  _fitCamera() {
    const modelBounds = this.model?.bounds;
    const bounds = modelBounds && !modelBounds.empty ? modelBounds : this._sceneBounds;
    const usable = bounds && !bounds.empty && bounds.radius > 0;
    const extent = usable && bounds.min && bounds.max ? [0, 1, 2].map((k) => (bounds.max[k] - bounds.min[k]) / 2) : null;
    this._orbit.frame(usable ? bounds.center : [0, 0, 0], usable ? bounds.radius : 1, extent);
  }

  // The camera's matrices, and the fog, which follows the model itself (not the strokes).
  _updateMatrices() {
    const centerDepth = this._orbit.updateMatrices(this._extraBounds);
    const r = this._orbit.radius;
    this._fogRange[0] = centerDepth + r * FOG_START_RADII;
    this._fogRange[1] = centerDepth + r * FOG_END_RADII;
    this._fogRange[2] = this._fog ? FOG_STRENGTH : 0;
  }

  // --- Size ----------------------------------------------------------------

  _observeSize() {
    this._resizeObserver = followDisplaySize(this.canvas, () => {
      if (!this._orbit.userMoved) this._orbit.distance = this._orbit.fitDistance();
      // Resizing clears the canvas; redraw before the browser paints it.
      this.render();
    }, this._events.signal);
  }

  // --- Events --------------------------------------------------------------

  _listen() {
    const { canvas } = this;
    const options = { signal: this._events.signal };
    this._orbit.listen(this._events.signal);
    canvas.addEventListener('webglcontextlost', (e) => {
      e.preventDefault(); // ask the browser to restore the context later
      this._contextLost = true;
      if (this._raf) cancelAnimationFrame(this._raf);
      this._raf = 0;
      this._gpu = [];
      this._coarse = [];
      this._program = null;
      this._presentProgram = null;
      this._motion = null;
    }, options);
    canvas.addEventListener('webglcontextrestored', () => {
      this._contextLost = false;
      this._initGL();
      if (this.model) this._gpu = uploadMeshes(this.gl, this.model);
      if (this._coarseModel) this._coarse = uploadMeshes(this.gl, this._coarseModel);
      this.requestRender();
    }, options);
  }
}

// --- Helpers ---------------------------------------------------------------

function parseColor(value) {
  const match = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(String(value).trim());
  if (!match) throw new Error(`Unsupported background colour "${value}": use a hex colour such as #ffffff.`);
  let hex = match[1];
  if (hex.length === 3) hex = Array.from(hex, (c) => c + c).join('');
  return new Float32Array([0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255));
}
