// An in-page 3D preview of the server's GLB exports, so people without an AR
// device can still inspect a structure, and so the site needs no third-party
// viewer, CDN or build step. Shading imitates Mol*'s defaults (headlight-style
// key light, soft fill, faint highlights, depth fog) so the preview looks
// familiar to structural biologists. It draws only when something changes, to
// stay cheap on phones, and records frame timings for the benchmarks.

import { parseGLB } from './glb.js';
import { mat4, quat, vec3 } from './math.js';

const NO_WEBGL2_MESSAGE = 'This browser cannot show 3D (WebGL2 is not available).';

const FOV_Y = Math.PI / 4; // 45 degrees
const FIT_MARGIN = 1.02;
const MAX_PIXEL_RATIO = 2;
const FRAME_HISTORY = 120;
const MIN_DISTANCE_RADII = 0.05;
const MAX_DISTANCE_RADII = 20;

const TAP_MAX_MS = 300;
const TAP_MOVE_PX = 8;
const DOUBLE_TAP_MS = 350;
const DOUBLE_TAP_DISTANCE_PX = 30;
const KEY_ROTATE_STEP = Math.PI / 36; // 5 degrees
const KEY_ZOOM_STEP = 1.15;

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

// Per-instance attributes: a mat4 model matrix then a mat3 normal matrix.
const INSTANCE_FLOATS = 16 + 9;
const INSTANCE_STRIDE = INSTANCE_FLOATS * 4;

const VERTEX_SHADER = `#version 300 es
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec4 aColor;
layout(location = 3) in mat4 aModel;        // locations 3-6, one per instance
layout(location = 7) in mat3 aNormalMatrix; // locations 7-9, one per instance

uniform mat4 uView;
uniform mat4 uProjection;

out vec3 vViewPosition;
out vec3 vNormal;
out vec4 vColor;

void main() {
  vec4 viewPosition = uView * (aModel * vec4(aPosition, 1.0));
  vViewPosition = viewPosition.xyz;
  // The view matrix is a rigid motion, so its 3x3 part transforms normals.
  vNormal = mat3(uView) * (aNormalMatrix * aNormal);
  vColor = aColor;
  gl_Position = uProjection * viewPosition;
}
`;

const FRAGMENT_SHADER = `#version 300 es
precision highp float;

in vec3 vViewPosition;
in vec3 vNormal;
in vec4 vColor;

uniform vec3 uBackground; // display (sRGB) colour, so fog meets the clear colour exactly
uniform vec3 uFog;        // start depth, end depth, strength (0 turns fog off)

out vec4 outColor;

void main() {
  vec3 n = normalize(vNormal);
  vec3 v = normalize(-vViewPosition);
  // Light both faces: exported surfaces are not always closed or consistently wound.
  if (dot(n, v) < 0.0) n = -n;

  // Key light just above-left of the camera, weaker fill from lower right.
  vec3 key = normalize(vec3(-0.3, 0.4, 1.0));
  vec3 fill = normalize(vec3(0.6, -0.35, 0.5));
  float diffuse = 0.6 * max(dot(n, key), 0.0) + 0.15 * max(dot(n, fill), 0.0);
  vec3 h = normalize(key + v);
  float specular = 0.12 * pow(max(dot(n, h), 0.0), 40.0);

  // Vertex colours are linear; light in linear space, then encode for display.
  vec3 linearColor = vColor.rgb * (0.35 + diffuse) + vec3(specular);
  vec3 color = pow(clamp(linearColor, 0.0, 1.0), vec3(1.0 / 2.2));

  float fog = uFog.z * smoothstep(uFog.x, uFog.y, -vViewPosition.z);
  outColor = vec4(mix(color, uBackground, fog), 1.0);
}
`;

// Draws a texture over the whole viewport from one oversized triangle, with no vertex buffer.
const PRESENT_VERTEX_SHADER = `#version 300 es
out vec2 vUV;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  vUV = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
`;

const PRESENT_FRAGMENT_SHADER = `#version 300 es
precision mediump float;
uniform sampler2D uFrame;
in vec2 vUV;
out vec4 outColor;
void main() { outColor = texture(uFrame, vUV); }
`;

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

    this._target = vec3.create();
    this._rotation = quat.create();
    this._distance = 1;
    this._radius = 1;
    this._center = vec3.create();
    this._home = { target: vec3.create(), rotation: quat.create() };
    this._userMoved = false;
    this._view = mat4.create();
    this._projection = mat4.create();
    this._fogRange = new Float32Array(3);
    this._scratchQuat = quat.create();
    this._scratchMat = mat4.create();

    this._program = null;
    this._presentProgram = null; // draws the half-resolution motion frame over the canvas
    this._motion = null;
    this._uniforms = null;
    this._gpu = [];
    this._extras = [];         // uploads drawn with the model, in its coordinates (setExtras)
    this._extraBounds = null;  // their bounding sphere, so clipping keeps them
    this._sceneBounds = null;  // what the camera fits when there is no model (setSceneBounds)
    this._coarse = [];         // the coarse version drawn while the view moves (loadCoarse)
    this._coarseModel = null;
    this._fullFrameMs = null;  // what one full frame costs, GPU included, once measured
    this._probes = 0;
    this._frameCostWaiters = [];
    this._movedAt = -Infinity;
    this._settleTimer = 0;
    this._raf = 0;
    this._disposed = false;
    this._contextLost = false;
    this._loadSerial = 0;

    this._pointers = new Map();
    this._dragMode = 'rotate';
    this._tap = null;
    this._lastTap = null;
    this._events = new AbortController();

    if (!canvas.hasAttribute('tabindex')) canvas.tabIndex = 0;
    canvas.style.touchAction = 'none';
    this._lockAutoSize();
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
    this._coarse = this._contextLost ? [] : this._upload(parsed);
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

  async _fetchGLB(url, serial, { signal, onProgress } = {}) {
    let response;
    try {
      response = await fetch(url, { signal });
    } catch (error) {
      if (error?.name === 'AbortError') throw error;
      throw new Error(`Could not reach the server to load the model (${error?.message ?? error}).`, { cause: error });
    }
    if (!response.ok) throw await httpError(response);

    let buffer;
    try {
      buffer = await readBody(response, onProgress);
    } catch (error) {
      if (error?.name === 'AbortError') throw error;
      throw new Error(`The model download was interrupted (${error?.message ?? error}).`, { cause: error });
    }
    if (signal?.aborted) throw signal.reason ?? abortError('The model load was cancelled.');
    if (serial !== this._loadSerial || this._disposed) throw abortError('A newer model load replaced this one.');
    return parseGLB(buffer);
  }

  /** Shows an already parsed model (parseGLB's result), or nothing for null. */
  setModel(parsed) {
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
    if (parsed && !this._contextLost) this._gpu = this._upload(parsed);
    this._fitCamera();
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
    this._movedAt = -Infinity;  // a picture is always of the full model
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
    vec3.copy(this._target, this._home.target);
    quat.copy(this._rotation, this._home.rotation);
    this._distance = this._fitDistance();
    this._userMoved = false;
    this.requestRender();
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
   */
  setExtras(uploads, bounds = null) {
    this._extras = uploads;
    this._extraBounds = bounds && bounds.radius > 0 ? { center: Array.from(bounds.center), radius: bounds.radius } : null;
    this.requestRender();
  }

  /** The sphere ({center, radius}) the camera fits while no model is shown: an empty room's space. */
  setSceneBounds(bounds) {
    this._sceneBounds = bounds;
    if (!this.model) this._fitCamera();
  }

  /** Where the camera is and what it looks at ({position, target}, model coordinates). */
  get camera() {
    const inverse = mat4.invert(mat4.create(), this._viewMatrix());
    return { position: [inverse[12], inverse[13], inverse[14]], target: Array.from(this._target) };
  }

  /**
   * The point under the canvas position (x, y), in CSS pixels from its top left, on the plane that
   * faces the camera through `through` (default: the view's target): where a finger draws.
   */
  unproject(x, y, through = this._target) {
    const view = this._viewMatrix();
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

  /** Where a point (model coordinates) shows on the canvas: {x, y} in CSS pixels, `inFront` false behind the camera. */
  project(point) {
    this._updateMatrices();
    const clip = [0, 0, 0, 0];
    const v = this._view, p = this._projection;
    const eye = [0, 1, 2].map((i) => v[i] * point[0] + v[4 + i] * point[1] + v[8 + i] * point[2] + v[12 + i]);
    for (let i = 0; i < 4; i++) clip[i] = p[i] * eye[0] + p[4 + i] * eye[1] + p[8 + i] * eye[2] + p[12 + i];
    const w = clip[3] || 1e-9;
    return {
      x: ((clip[0] / w + 1) / 2) * (this.canvas.clientWidth || 1),
      y: ((1 - clip[1] / w) / 2) * (this.canvas.clientHeight || 1),
      inFront: eye[2] < 0,
    };
  }

  /**
   * Hands the viewer a pointer that went down while something else had it (a finger that began a
   * drawing stroke, then a second finger made the gesture a pinch), so it can join the gesture.
   */
  trackPointer(event) {
    this._onPointerDown(event);
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
    const program = linkProgram(gl, VERTEX_SHADER, FRAGMENT_SHADER);
    this._program = program;
    this._uniforms = {
      view: gl.getUniformLocation(program, 'uView'),
      projection: gl.getUniformLocation(program, 'uProjection'),
      background: gl.getUniformLocation(program, 'uBackground'),
      fog: gl.getUniformLocation(program, 'uFog')
    };
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LEQUAL);
    gl.disable(gl.CULL_FACE);
  }

  // Uploads a parsed model's meshes, one instance per node; returns what _release frees.
  _upload(parsed) {
    const gl = this.gl;
    const uploaded = [];
    const matricesByMesh = new Map();
    for (const node of parsed.nodes) {
      if (!matricesByMesh.has(node.mesh)) matricesByMesh.set(node.mesh, []);
      matricesByMesh.get(node.mesh).push(node.matrix);
    }
    const normalMatrix = new Float32Array(9);
    for (const [meshIndex, matrices] of matricesByMesh) {
      const mesh = parsed.meshes[meshIndex];
      if (!mesh || mesh.primitives.length === 0) continue;

      const instances = new Float32Array(matrices.length * INSTANCE_FLOATS);
      matrices.forEach((matrix, i) => {
        instances.set(matrix, i * INSTANCE_FLOATS);
        instances.set(mat4.normalMatrix(normalMatrix, matrix), i * INSTANCE_FLOATS + 16);
      });
      const instanceBuffer = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, instanceBuffer);
      gl.bufferData(gl.ARRAY_BUFFER, instances, gl.STATIC_DRAW);
      const entry = { instanceBuffer, instanceCount: matrices.length, primitives: [] };
      uploaded.push(entry);

      for (const primitive of mesh.primitives) {
        const vao = gl.createVertexArray();
        gl.bindVertexArray(vao);
        const buffers = [
          vertexBuffer(gl, 0, primitive.positions, 3),
          vertexBuffer(gl, 1, primitive.normals, 3),
          vertexBuffer(gl, 2, primitive.colors, 4)
        ];
        gl.bindBuffer(gl.ARRAY_BUFFER, instanceBuffer);
        for (let column = 0; column < 4; column++) {
          instanceAttribute(gl, 3 + column, 4, column * 16);
        }
        for (let column = 0; column < 3; column++) {
          instanceAttribute(gl, 7 + column, 3, 64 + column * 12);
        }
        let indexType = 0;
        let count = primitive.vertexCount - (primitive.vertexCount % 3);
        if (primitive.indices) {
          const indexBuffer = gl.createBuffer();
          gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, indexBuffer);
          gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, primitive.indices, gl.STATIC_DRAW);
          buffers.push(indexBuffer);
          indexType = primitive.indices instanceof Uint32Array ? gl.UNSIGNED_INT
            : primitive.indices instanceof Uint16Array ? gl.UNSIGNED_SHORT : gl.UNSIGNED_BYTE;
          count = primitive.indices.length - (primitive.indices.length % 3);
        }
        gl.bindVertexArray(null);
        entry.primitives.push({ vao, buffers, indexType, count });
      }
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, null);
    if (gl.getError() === gl.OUT_OF_MEMORY) {
      this._release(uploaded);
      throw new Error('This model is too large for the graphics memory of this device.');
    }
    return uploaded;
  }

  _releaseModel() {
    this._release(this._gpu);
    this._gpu = [];
  }

  _release(uploaded) {
    const gl = this.gl;
    if (!this._contextLost) {
      for (const mesh of uploaded) {
        for (const primitive of mesh.primitives) {
          gl.deleteVertexArray(primitive.vao);
          for (const buffer of primitive.buffers) gl.deleteBuffer(buffer);
        }
        gl.deleteBuffer(mesh.instanceBuffer);
      }
    }
  }

  _draw() {
    const gl = this.gl;
    const { width, height } = this.canvas;
    this._updateMatrices();
    const moving = performance.now() - this._movedAt < SETTLE_MS;
    const coarse = moving && this._gpu.length > 0 && this._coarse.length > 0 && this._fullFrameMs > FRAME_BUDGET_MS;
    // A slow device in motion also draws at a lower resolution (no multisampling), then scales it up.
    const target = coarse ? this._motionTarget(width, height) : null;
    gl.bindFramebuffer(gl.FRAMEBUFFER, target?.framebuffer ?? null);
    gl.viewport(0, 0, target?.width ?? width, target?.height ?? height);
    const [r, g, b] = this._background;
    gl.clearColor(r, g, b, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    if ((this._gpu.length === 0 && this._extras.length === 0) || !this._program) return null;

    gl.useProgram(this._program);
    gl.uniformMatrix4fv(this._uniforms.view, false, this._view);
    gl.uniformMatrix4fv(this._uniforms.projection, false, this._projection);
    gl.uniform3fv(this._uniforms.background, this._background);
    gl.uniform3fv(this._uniforms.fog, this._fogRange);
    this._drawMeshes(coarse ? this._coarse : this._gpu);
    for (const extra of this._extras) this._drawMeshes(extra);
    if (target) this._present(target, width, height);
    return coarse ? 'coarse' : 'full';
  }

  // An offscreen colour texture and depth buffer, a fraction of the canvas's size.
  _motionTarget(width, height) {
    const scale = Math.min(MOTION_RESOLUTION, Math.sqrt(MOTION_PIXELS / (width * height)));
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    if (this._motion?.width === w && this._motion?.height === h) return this._motion;
    this._releaseMotionTarget();
    const gl = this.gl;
    const texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, w, h);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    const depth = gl.createRenderbuffer();
    gl.bindRenderbuffer(gl.RENDERBUFFER, depth);
    gl.renderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, w, h);
    const framebuffer = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
    gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, depth);
    if (!this._presentProgram) this._presentProgram = linkProgram(gl, PRESENT_VERTEX_SHADER, PRESENT_FRAGMENT_SHADER);
    this._motion = { framebuffer, texture, depth, width: w, height: h };
    return this._motion;
  }

  // Stretches the offscreen frame over the canvas (one triangle that covers it).
  _present(target, width, height) {
    const gl = this.gl;
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.viewport(0, 0, width, height);
    gl.disable(gl.DEPTH_TEST);
    gl.useProgram(this._presentProgram);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, target.texture);
    gl.bindVertexArray(null);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.enable(gl.DEPTH_TEST);
  }

  _releaseMotionTarget() {
    if (!this._motion) return;
    if (!this._contextLost) {
      const gl = this.gl;
      gl.deleteFramebuffer(this._motion.framebuffer);
      gl.deleteTexture(this._motion.texture);
      gl.deleteRenderbuffer(this._motion.depth);
    }
    this._motion = null;
  }

  _drawMeshes(uploaded) {
    const gl = this.gl;
    for (const mesh of uploaded) {
      for (const primitive of mesh.primitives) {
        gl.bindVertexArray(primitive.vao);
        if (primitive.indexType) {
          gl.drawElementsInstanced(gl.TRIANGLES, primitive.count, primitive.indexType, 0, mesh.instanceCount);
        } else {
          gl.drawArraysInstanced(gl.TRIANGLES, 0, primitive.count, mesh.instanceCount);
        }
      }
    }
    gl.bindVertexArray(null);
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
        this._drawMeshes(this._gpu);
        for (const extra of this._extras) this._drawMeshes(extra);
      }
      for (const overlay of overlays) {
        gl.uniformMatrix4fv(this._uniforms.view, false, mat4.multiply(eye, view, overlay.matrix));
        this._drawMeshes(overlay.model);
      }
    }
    const end = performance.now();
    this.frameTimes.push(end - start);
    if (this.frameTimes.length > FRAME_HISTORY) this.frameTimes.splice(0, this.frameTimes.length - FRAME_HISTORY);
    this.canvas.dispatchEvent(new CustomEvent('viewer-frame', { detail: { duration: end - start, xr: true } }));
  }

  /** Uploads extra geometry (parseGLB's shape) for drawXR overlays; free it with releaseOverlay. */
  uploadOverlay(parsed) {
    return this._contextLost ? [] : this._upload(parsed);
  }

  releaseOverlay(uploaded) {
    this._release(uploaded);
  }

  /** The shown model's bounding sphere ({center, radius}, model units), for placing it in AR. */
  get bounds() {
    return { center: Array.from(this._center), radius: this._radius };
  }

  // --- Camera --------------------------------------------------------------

  _aspect() {
    const { width, height } = this.canvas;
    return width > 0 && height > 0 ? width / height : 1;
  }

  // Distance at which the bounding sphere fits the narrower field of view.
  _fitDistance() {
    const halfY = FOV_Y / 2;
    const halfX = Math.atan(Math.tan(halfY) * this._aspect());
    return (this._radius / Math.sin(Math.min(halfX, halfY))) * FIT_MARGIN;
  }

  _fitCamera() {
    const modelBounds = this.model?.bounds;
    const bounds = modelBounds && !modelBounds.empty ? modelBounds : this._sceneBounds;
    const usable = bounds && !bounds.empty && bounds.radius > 0;
    this._radius = usable ? bounds.radius : 1;
    vec3.copy(this._center, usable ? bounds.center : [0, 0, 0]);
    vec3.copy(this._home.target, this._center);
    quat.identity(this._home.rotation);
    this.resetView();
  }

  // view = translate(0, 0, -distance) * rotation * translate(-target)
  _viewMatrix() {
    const view = mat4.fromQuat(this._view, this._rotation);
    const t = this._target;
    view[12] = -(view[0] * t[0] + view[4] * t[1] + view[8] * t[2]);
    view[13] = -(view[1] * t[0] + view[5] * t[1] + view[9] * t[2]);
    view[14] = -(view[2] * t[0] + view[6] * t[1] + view[10] * t[2]) - this._distance;
    return view;
  }

  _updateMatrices() {
    const view = this._viewMatrix();

    // Clip planes and fog follow the model itself, which panning and
    // rotating about a panned target can move nearer or further.
    const c = this._center;
    const centerDepth = -(view[2] * c[0] + view[6] * c[1] + view[10] * c[2] + view[14]);
    const r = this._radius;
    // Extras (strokes) may reach beyond the model: the clip planes take them in, the fog does not.
    let nearDepth = centerDepth - r * 1.05, farDepth = centerDepth + r * 1.05;
    const extra = this._extraBounds;
    if (extra) {
      const e = extra.center;
      const depth = -(view[2] * e[0] + view[6] * e[1] + view[10] * e[2] + view[14]);
      nearDepth = Math.min(nearDepth, depth - extra.radius * 1.05);
      farDepth = Math.max(farDepth, depth + extra.radius * 1.05);
    }
    const near = Math.max(nearDepth, r * 0.01);
    const far = Math.max(farDepth, near + r);
    mat4.perspective(this._projection, FOV_Y, this._aspect(), near, far);

    this._fogRange[0] = centerDepth + r * FOG_START_RADII;
    this._fogRange[1] = centerDepth + r * FOG_END_RADII;
    this._fogRange[2] = this._fog ? FOG_STRENGTH : 0;
  }

  // Turns the model about the camera's own axes (a virtual trackball), so
  // dragging always moves the front of the model with the pointer.
  _rotate(aboutUp, aboutRight) {
    const q = this._scratchQuat;
    quat.setAxisAngle(q, [0, 1, 0], aboutUp);
    quat.multiply(this._rotation, q, this._rotation);
    quat.setAxisAngle(q, [1, 0, 0], aboutRight);
    quat.multiply(this._rotation, q, this._rotation);
    quat.normalize(this._rotation, this._rotation);
    this._userMoved = true;
    this._movedAt = performance.now();
    this.requestRender();
  }

  // Moves the model with the pointer by `dx`, `dy` CSS pixels.
  _pan(dx, dy) {
    const height = this.canvas.clientHeight || this.canvas.height || 1;
    const worldPerPixel = (2 * this._distance * Math.tan(FOV_Y / 2)) / height;
    const m = mat4.fromQuat(this._scratchMat, this._rotation);
    const right = [m[0], m[4], m[8]];
    const up = [m[1], m[5], m[9]];
    vec3.scaleAndAdd(this._target, this._target, right, -dx * worldPerPixel);
    vec3.scaleAndAdd(this._target, this._target, up, dy * worldPerPixel);
    this._userMoved = true;
    this._movedAt = performance.now();
    this.requestRender();
  }

  // factor > 1 moves the camera away.
  _zoom(factor) {
    if (!(factor > 0) || !Number.isFinite(factor)) return;
    const min = this._radius * MIN_DISTANCE_RADII;
    const max = this._radius * MAX_DISTANCE_RADII;
    this._distance = Math.min(max, Math.max(min, this._distance * factor));
    this._userMoved = true;
    this._movedAt = performance.now();
    this.requestRender();
  }

  _rotationPerPixel() {
    const { clientWidth, clientHeight } = this.canvas;
    const size = Math.min(clientWidth || 1, clientHeight || 1);
    return Math.PI / size;
  }

  // --- Size ----------------------------------------------------------------

  // A canvas with no CSS size takes its size from its width/height
  // attributes; at a pixel ratio above 1 every resize would then grow it.
  // Pin such a canvas to its current CSS size to break that loop.
  _lockAutoSize() {
    const { canvas } = this;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    canvas.width += 1;
    canvas.height += 1;
    const autoWidth = canvas.clientWidth !== width;
    const autoHeight = canvas.clientHeight !== height;
    canvas.width -= 1;
    canvas.height -= 1;
    if (autoWidth && width > 0) canvas.style.width = `${width}px`;
    if (autoHeight && height > 0) canvas.style.height = `${height}px`;
  }

  _observeSize() {
    const apply = (width, height) => {
      width = Math.max(1, Math.round(width));
      height = Math.max(1, Math.round(height));
      const { canvas } = this;
      if (canvas.width === width && canvas.height === height) return;
      canvas.width = width;
      canvas.height = height;
      if (!this._userMoved) this._distance = this._fitDistance();
      // Resizing clears the canvas; redraw before the browser paints it.
      this.render();
    };

    if (typeof ResizeObserver === 'undefined') {
      const onResize = () => {
        const ratio = Math.min(window.devicePixelRatio || 1, MAX_PIXEL_RATIO);
        if (this.canvas.clientWidth > 0) apply(this.canvas.clientWidth * ratio, this.canvas.clientHeight * ratio);
      };
      window.addEventListener('resize', onResize, { signal: this._events.signal });
      onResize();
      return;
    }

    this._resizeObserver = new ResizeObserver((entries) => {
      const entry = entries[entries.length - 1];
      const ratio = window.devicePixelRatio || 1;
      const devicePixels = entry.devicePixelContentBoxSize?.[0];
      if (devicePixels) {
        if (devicePixels.inlineSize === 0 || devicePixels.blockSize === 0) return;
        const scale = Math.min(1, MAX_PIXEL_RATIO / ratio);
        apply(devicePixels.inlineSize * scale, devicePixels.blockSize * scale);
      } else {
        const box = entry.contentBoxSize?.[0];
        const width = box ? box.inlineSize : entry.contentRect.width;
        const height = box ? box.blockSize : entry.contentRect.height;
        if (width === 0 || height === 0) return;
        const capped = Math.min(ratio, MAX_PIXEL_RATIO);
        apply(width * capped, height * capped);
      }
    });
    try {
      this._resizeObserver.observe(this.canvas, { box: 'device-pixel-content-box' });
    } catch {
      this._resizeObserver.observe(this.canvas);
    }
  }

  // --- Input ---------------------------------------------------------------

  _listen() {
    const { canvas } = this;
    const options = { signal: this._events.signal };
    canvas.addEventListener('pointerdown', (e) => this._onPointerDown(e), options);
    canvas.addEventListener('pointermove', (e) => this._onPointerMove(e), options);
    canvas.addEventListener('pointerup', (e) => this._onPointerEnd(e), options);
    canvas.addEventListener('pointercancel', (e) => this._onPointerEnd(e), options);
    canvas.addEventListener('lostpointercapture', (e) => this._onPointerEnd(e), options);
    canvas.addEventListener('wheel', (e) => this._onWheel(e), { ...options, passive: false });
    canvas.addEventListener('keydown', (e) => this._onKeyDown(e), options);
    canvas.addEventListener('contextmenu', (e) => e.preventDefault(), options);
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
      if (this.model) this._gpu = this._upload(this.model);
      if (this._coarseModel) this._coarse = this._upload(this._coarseModel);
      this.requestRender();
    }, options);
  }

  _onPointerDown(e) {
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
        this._pan(dx, dy);
      } else {
        const k = this._rotationPerPixel();
        this._rotate(dx * k, dy * k);
      }
      return;
    }

    // Two (or more) pointers: the first two pinch to zoom and move to pan.
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
    if (before.spread > 0 && after.spread > 0) this._zoom(before.spread / after.spread);
    if (after.x !== before.x || after.y !== before.y) this._pan(after.x - before.x, after.y - before.y);
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
    this._zoom(Math.exp(delta * (e.ctrlKey ? 0.01 : 0.0015)));
  }

  _onKeyDown(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    switch (e.key) {
      case 'ArrowLeft':
        this._rotate(-KEY_ROTATE_STEP, 0);
        break;
      case 'ArrowRight':
        this._rotate(KEY_ROTATE_STEP, 0);
        break;
      case 'ArrowUp':
        this._rotate(0, -KEY_ROTATE_STEP);
        break;
      case 'ArrowDown':
        this._rotate(0, KEY_ROTATE_STEP);
        break;
      case '+':
      case '=':
        this._zoom(1 / KEY_ZOOM_STEP);
        break;
      case '-':
      case '_':
        this._zoom(KEY_ZOOM_STEP);
        break;
      case '0':
        this.resetView();
        break;
      default:
        return;
    }
    e.preventDefault();
  }
}

// --- Helpers ---------------------------------------------------------------

function linkProgram(gl, vertexSource, fragmentSource) {
  const program = gl.createProgram();
  const vertex = compileShader(gl, gl.VERTEX_SHADER, vertexSource);
  const fragment = compileShader(gl, gl.FRAGMENT_SHADER, fragmentSource);
  gl.attachShader(program, vertex);
  gl.attachShader(program, fragment);
  gl.linkProgram(program);
  gl.deleteShader(vertex);
  gl.deleteShader(fragment);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost()) {
    const log = gl.getProgramInfoLog(program);
    gl.deleteProgram(program);
    throw new Error(`The 3D viewer's shaders failed to link: ${log}`);
  }
  return program;
}

function compileShader(gl, type, source) {
  const shader = gl.createShader(type);
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS) && !gl.isContextLost()) {
    const log = gl.getShaderInfoLog(shader);
    gl.deleteShader(shader);
    throw new Error(`The 3D viewer's shader failed to compile: ${log}`);
  }
  return shader;
}

function vertexBuffer(gl, location, data, size) {
  const buffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
  gl.enableVertexAttribArray(location);
  gl.vertexAttribPointer(location, size, gl.FLOAT, false, 0, 0);
  return buffer;
}

// One column of a per-instance matrix, read from the bound instance buffer.
function instanceAttribute(gl, location, size, offset) {
  gl.enableVertexAttribArray(location);
  gl.vertexAttribPointer(location, size, gl.FLOAT, false, INSTANCE_STRIDE, offset);
  gl.vertexAttribDivisor(location, 1);
}

function pinch(a, b) {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, spread: Math.hypot(a.x - b.x, a.y - b.y) };
}

function parseColor(value) {
  const match = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(String(value).trim());
  if (!match) throw new Error(`Unsupported background colour "${value}": use a hex colour such as #ffffff.`);
  let hex = match[1];
  if (hex.length === 3) hex = Array.from(hex, (c) => c + c).join('');
  return new Float32Array([0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255));
}

function abortError(message) {
  return new DOMException(message, 'AbortError');
}

// An Error for a failed HTTP response, using the server's {"error": "..."} text when present.
async function httpError(response) {
  let detail = '';
  try {
    const body = JSON.parse(await response.text());
    if (body && typeof body.error === 'string') detail = body.error;
  } catch {
    // Not JSON (or unreadable): fall back to the status line.
  }
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const error = new Error(detail
    ? `Could not load the model: ${detail} (${status}).`
    : `Could not load the model (${status}).`);
  error.status = response.status;
  return error;
}

// Reads the response, streaming it for progress reports when its size is known.
async function readBody(response, onProgress) {
  const total = Number(response.headers.get('Content-Length')) || 0;
  if (!onProgress || !response.body || total <= 0) {
    const buffer = await response.arrayBuffer();
    onProgress?.(buffer.byteLength, buffer.byteLength);
    return buffer;
  }
  const reader = response.body.getReader();
  const chunks = [];
  let received = 0;
  onProgress(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.byteLength;
    // A compressed transfer can deliver more bytes than Content-Length says.
    onProgress(received, Math.max(total, received));
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes.buffer;
}
