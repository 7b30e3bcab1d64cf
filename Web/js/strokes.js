// Stroke geometry for the drawing rooms: what a moving finger becomes before it is sent (thinned
// and lightly steadied, so a slow hand does not send hundreds of near-identical points), and what
// a stroke's points become on screen (a Catmull-Rom curve through them, wrapped in a thin tube
// lit like the molecule). Meshes come out in parseGLB's shape, so the viewer uploads them as is.

// A new point must be this far from the last one kept, in the room (metres) and on screen (CSS px).
export const MIN_STEP_M = 0.002;
export const MIN_STEP_PX = 3;
// How much of each new point the steadied position takes (1 = none of the old, no smoothing).
const STEADY = 0.5;
// Sides of a tube: six reads as round at stroke widths and keeps big rooms cheap.
const SIDES = 6;
// At most this many curve pieces between two points, fewer when they are close.
const MAX_SUBDIVISIONS = 4;

/**
 * Collects one stroke's points as a finger draws: drops points too close to the last kept one and
 * steadies the rest with a running average, so small tremors do not become zigzags.
 */
export class StrokeBuilder {
  /**
   * @param {number[]} first the first point (room metres)
   * @param {{x: number, y: number}|null} screen where it was on screen (CSS px), null in AR
   */
  constructor(first, screen) {
    this.points = [first.slice()];
    this._steady = first.slice();
    this._lastScreen = screen ? { ...screen } : null;
    this._raw = null;  // the latest input not yet kept, so finish() can end exactly there
  }

  /** Offers a point; returns it (as kept) when far enough from the last, else null. */
  add(point, screen) {
    this._raw = { point: point.slice() };
    for (let i = 0; i < 3; i++) this._steady[i] += (point[i] - this._steady[i]) * STEADY;
    const last = this.points[this.points.length - 1];
    if (distance(this._steady, last) < MIN_STEP_M) return null;
    // Without a screen position (drawing in AR) only the distance in the room counts.
    if (screen && this._lastScreen && Math.hypot(screen.x - this._lastScreen.x, screen.y - this._lastScreen.y) < MIN_STEP_PX) return null;
    const kept = this._steady.map(round);
    this.points.push(kept);
    this._lastScreen = screen ? { ...screen } : null;
    this._raw = null;
    return kept;
  }

  /** The stroke ends where the finger lifted: returns that last point if it is worth keeping. */
  finish() {
    const raw = this._raw;
    this._raw = null;
    if (!raw) return null;
    const last = this.points[this.points.length - 1];
    if (distance(raw.point, last) < MIN_STEP_M / 2) return null;
    const kept = raw.point.map(round);
    this.points.push(kept);
    return kept;
  }
}

// Points travel with a tenth of a millimetre's precision: finer only makes messages longer.
function round(v) {
  return Math.round(v * 1e4) / 1e4;
}

function distance(a, b) {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** A smooth curve through `points` (centripetal-free, uniform Catmull-Rom), denser where points are far apart. */
export function smoothPath(points, width) {
  if (points.length < 3) return points.map((p) => p.slice());
  const out = [];
  for (let i = 0; i < points.length - 1; i++) {
    const p0 = points[Math.max(0, i - 1)], p1 = points[i], p2 = points[i + 1], p3 = points[Math.min(points.length - 1, i + 2)];
    const pieces = Math.max(1, Math.min(MAX_SUBDIVISIONS, Math.round(distance(p1, p2) / Math.max(width, 1e-4))));
    for (let k = 0; k < pieces; k++) {
      const t = k / pieces, t2 = t * t, t3 = t2 * t;
      out.push([0, 1, 2].map((c) => 0.5 * ((2 * p1[c]) + (-p0[c] + p2[c]) * t
        + (2 * p0[c] - 5 * p1[c] + 4 * p2[c] - p3[c]) * t2 + (-p0[c] + 3 * p1[c] - 3 * p2[c] + p3[c]) * t3)));
    }
  }
  out.push(points[points.length - 1].slice());
  return out;
}

/** '#rrggbb' as linear RGBA (the viewer lights in linear space, like the GLB's vertex colours). */
export function linearColor(hex) {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex ?? '');
  const value = m ? m[1] : '333333';
  const channel = (i) => {
    const c = parseInt(value.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return [channel(0), channel(2), channel(4), 1];
}

/**
 * One stroke as a closed tube (a small ball for a single point), in parseGLB's shape.
 * @param {{points: number[][], color: string, width: number}} stroke width is the diameter in metres
 */
export function strokeMesh(stroke) {
  const radius = Math.max(stroke.width, 0.0005) / 2;
  const color = linearColor(stroke.color);
  const path = dedupe(smoothPath(stroke.points, stroke.width));
  const geometry = path.length < 2 ? ball(path[0] ?? [0, 0, 0], radius) : tube(path, radius);
  const count = geometry.positions.length / 3;
  const colors = new Float32Array(count * 4);
  for (let i = 0; i < count; i++) colors.set(color, i * 4);
  const primitive = {
    positions: new Float32Array(geometry.positions), normals: new Float32Array(geometry.normals), colors,
    indices: count > 65535 ? new Uint32Array(geometry.indices) : new Uint16Array(geometry.indices), vertexCount: count,
  };
  return { meshes: [{ primitives: [primitive] }], nodes: [{ mesh: 0, matrix: IDENTITY }] };
}

const IDENTITY = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);

function dedupe(path) {
  const out = [];
  for (const p of path) if (!out.length || distance(p, out[out.length - 1]) > 1e-6) out.push(p);
  return out;
}

// A tube along the path with frames carried from point to point (no twisting at bends), and a
// pointed cap at each end so a stroke looks finished rather than cut.
function tube(path, radius) {
  const positions = [], normals = [], indices = [];
  const tangents = path.map((p, i) => normalize(sub(path[Math.min(i + 1, path.length - 1)], path[Math.max(i - 1, 0)])));
  let normal = perpendicular(tangents[0]);
  for (let i = 0; i < path.length; i++) {
    const t = tangents[i];
    // Parallel transport: keep the previous normal, minus its part along the new tangent.
    normal = normalize(sub(normal, scale(t, dot(normal, t))));
    if (!Number.isFinite(normal[0])) normal = perpendicular(t);
    const binormal = cross(t, normal);
    for (let s = 0; s < SIDES; s++) {
      const a = (s / SIDES) * Math.PI * 2;
      const n = add(scale(normal, Math.cos(a)), scale(binormal, Math.sin(a)));
      positions.push(...add(path[i], scale(n, radius)));
      normals.push(...n);
    }
  }
  for (let i = 0; i < path.length - 1; i++) {
    for (let s = 0; s < SIDES; s++) {
      const a = i * SIDES + s, b = i * SIDES + ((s + 1) % SIDES), c = a + SIDES, d = b + SIDES;
      indices.push(a, c, b, b, c, d);
    }
  }
  for (const [end, sign] of [[0, -1], [path.length - 1, 1]]) {
    const tip = positions.length / 3;
    const t = scale(tangents[end], sign);
    positions.push(...add(path[end], scale(t, radius)));
    normals.push(...t);
    for (let s = 0; s < SIDES; s++) indices.push(tip, end * SIDES + s, end * SIDES + ((s + 1) % SIDES));
  }
  return { positions, normals, indices };
}

// A low-poly sphere: a tap's dot.
function ball(center, radius) {
  const positions = [], normals = [], indices = [];
  const rings = 4, segments = SIDES;
  for (let r = 0; r <= rings; r++) {
    const phi = (r / rings) * Math.PI;
    for (let s = 0; s <= segments; s++) {
      const theta = (s / segments) * Math.PI * 2;
      const n = [Math.sin(phi) * Math.cos(theta), Math.cos(phi), Math.sin(phi) * Math.sin(theta)];
      positions.push(...add(center, scale(n, radius)));
      normals.push(...n);
    }
  }
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * (segments + 1) + s, b = a + segments + 1;
      indices.push(a, b, a + 1, a + 1, b, b + 1);
    }
  }
  return { positions, normals, indices };
}

/** A faint ring and cross on the floor (y = 0) of an empty room, so orbiting has something to hold on to. */
export function floorMesh(radius = 0.2) {
  const positions = [], normals = [], indices = [];
  const band = radius * 0.01;
  const quad = (a, b, c, d) => {
    const base = positions.length / 3;
    positions.push(...a, ...b, ...c, ...d);
    for (let i = 0; i < 4; i++) normals.push(0, 1, 0);
    indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
  };
  const segments = 64;
  for (let i = 0; i < segments; i++) {
    const a0 = (i / segments) * Math.PI * 2, a1 = ((i + 1) / segments) * Math.PI * 2;
    const at = (a, r) => [Math.cos(a) * r, 0, Math.sin(a) * r];
    quad(at(a0, radius - band), at(a0, radius + band), at(a1, radius + band), at(a1, radius - band));
  }
  quad([-radius, 0, -band], [-radius, 0, band], [radius, 0, band], [radius, 0, -band]);
  quad([-band, 0, -radius], [band, 0, -radius], [band, 0, radius], [-band, 0, radius]);
  const count = positions.length / 3;
  const colors = new Float32Array(count * 4);
  for (let i = 0; i < count; i++) colors.set([0.55, 0.6, 0.68, 1], i * 4);
  return {
    meshes: [{ primitives: [{ positions: new Float32Array(positions), normals: new Float32Array(normals), colors, indices: new Uint16Array(indices), vertexCount: count }] }],
    nodes: [{ mesh: 0, matrix: IDENTITY }],
  };
}

/** The bounding sphere of strokes' points ({center, radius}), or null when there are none. */
export function strokeBounds(strokes) {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  let widest = 0;
  for (const stroke of strokes) {
    widest = Math.max(widest, stroke.width);
    for (const p of stroke.points) {
      for (let i = 0; i < 3; i++) {
        if (p[i] < min[i]) min[i] = p[i];
        if (p[i] > max[i]) max[i] = p[i];
      }
    }
  }
  if (!(min[0] <= max[0])) return null;
  const center = [0, 1, 2].map((i) => (min[i] + max[i]) / 2);
  return { center, radius: distance(min, max) / 2 + widest };
}

function add(a, b) { return [a[0] + b[0], a[1] + b[1], a[2] + b[2]]; }
function sub(a, b) { return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]; }
function scale(a, k) { return [a[0] * k, a[1] * k, a[2] * k]; }
function dot(a, b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
function cross(a, b) { return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; }
function normalize(a) { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; }
function perpendicular(t) { return normalize(cross(t, Math.abs(t[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0])); }
