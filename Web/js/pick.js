// Which atom a tap touches, with no round trip to the server: the ray from the camera through the
// tapped point, against every drawn triangle of the model (each instance moved by its node's
// matrix; a mesh's box first, so most are skipped whole). The nearest hit's nearest corner names
// the atom, by the model's feature ids (glb.js reads them: the server's atom indices, which
// identify.json describes). A tap that misses every triangle by a little (a finger is wide, a
// ribbon seen edge-on thin) takes the front-most vertex within TOUCH_SLOP_PX of it.
import { NO_FEATURE } from './glb.js';
import { mat4 } from './math.js';

/** How far (CSS pixels) a tap that touches nothing may be from what it names. */
export const TOUCH_SLOP_PX = 10;

/**
 * @param {{model: object, camera: {position: number[]}, unproject: Function}} viewer a MoleculeViewer
 * @param {number} x CSS pixels from the canvas's left
 * @param {number} y CSS pixels from its top
 * @returns {{feature: number, point: number[]}|null} the atom's index and the hit in model
 *   coordinates, or null when the tap misses the model or the model does not say what it draws
 */
export function pickFeature(viewer, x, y) {
  const model = viewer.model;
  if (!model) return null;
  const origin = viewer.camera.position;
  const far = viewer.unproject(x, y);
  // One tap is asked about by the card, the sequence strip and Measure: picked once (the same
  // model, and the same ray: the view has not moved).
  const key = `${origin.join()},${far.join()}`;
  if (last.model === model && last.key === key) return last.hit;
  const hit = pickUncached(viewer, model, origin, far, x, y);
  Object.assign(last, { model, key, hit });
  return hit;
}

const last = { model: null, key: '', hit: null };

function pickUncached(viewer, model, origin, far, x, y) {
  const direction = [far[0] - origin[0], far[1] - origin[1], far[2] - origin[2]];
  return pickRay(model, origin, direction) ?? nearestInSlop(viewer, x, y);
}

/**
 * What the ray origin + t · direction (t > 0, model coordinates) meets first: WebXR's taps, and the
 * view's. @returns {{feature: number, point: number[]}|null}
 */
export function pickRay(model, origin, direction) {
  let best = null;
  const inverse = mat4.create();
  for (const node of model.nodes) {
    const mesh = model.meshes[node.mesh];
    if (!mesh || !mesh.primitives.some((p) => p.features)) continue;
    if (!mat4.invert(inverse, node.matrix)) continue;  // a flattened instance shows nothing to tap
    // The ray in the mesh's coordinates; t stays the world ray's parameter (the map is affine).
    const o = transformPoint(inverse, origin);
    const d = transformVector(inverse, direction);
    if (!hitsBox(o, d, mesh.min, mesh.max, best ? best.t : Infinity)) continue;
    for (const primitive of mesh.primitives) {
      if (!primitive.features) continue;
      const hit = nearestHit(primitive, o, d, best ? best.t : Infinity);
      if (hit) best = { ...hit, primitive, node };
    }
  }
  if (!best) return null;
  const { primitive, t } = best;
  const point = [origin[0] + t * direction[0], origin[1] + t * direction[1], origin[2] + t * direction[2]];
  const local = transformPoint(mat4.invert(inverse, best.node.matrix), point);
  // The corner nearest the hit: a bond's half, a sphere's atom, the stretch of a residue.
  let corner = best.corners[0];
  let nearest = Infinity;
  for (const v of best.corners) {
    const p = primitive.positions;
    const dd = (p[3 * v] - local[0]) ** 2 + (p[3 * v + 1] - local[1]) ** 2 + (p[3 * v + 2] - local[2]) ** 2;
    if (dd < nearest) { nearest = dd; corner = v; }
  }
  const feature = primitive.features[corner];
  return feature === NO_FEATURE ? null : { feature, point };
}

// The vertex nearest the camera among those drawn within TOUCH_SLOP_PX of (x, y), or null.
function nearestInSlop(viewer, x, y) {
  const project = viewer.projector();
  const model = viewer.model;
  const slop2 = TOUCH_SLOP_PX * TOUCH_SLOP_PX;
  let best = null;
  for (const node of model.nodes) {
    const M = node.matrix;
    for (const primitive of model.meshes[node.mesh]?.primitives ?? []) {
      const P = primitive.positions, F = primitive.features;
      if (!F) continue;
      for (let i = 0; i < primitive.vertexCount; i++) {
        if (F[i] === NO_FEATURE) continue;
        const px = P[3 * i], py = P[3 * i + 1], pz = P[3 * i + 2];
        const wx = M[0] * px + M[4] * py + M[8] * pz + M[12];
        const wy = M[1] * px + M[5] * py + M[9] * pz + M[13];
        const wz = M[2] * px + M[6] * py + M[10] * pz + M[14];
        const [sx, sy, depth] = project(wx, wy, wz);
        if (depth <= 0 || (sx - x) ** 2 + (sy - y) ** 2 > slop2 || (best && depth >= best.depth)) continue;
        best = { depth, feature: F[i], point: [wx, wy, wz] };
      }
    }
  }
  return best && { feature: best.feature, point: best.point };
}

// The nearest triangle the ray (o + t d, 0 < t < limit) crosses, Möller–Trumbore, either side.
function nearestHit(primitive, o, d, limit) {
  const p = primitive.positions;
  const idx = primitive.indices;
  const count = idx ? idx.length : primitive.vertexCount;
  let best = null;
  let tBest = limit;
  for (let k = 0; k + 2 < count; k += 3) {
    const a = idx ? idx[k] : k, b = idx ? idx[k + 1] : k + 1, c = idx ? idx[k + 2] : k + 2;
    const ax = p[3 * a], ay = p[3 * a + 1], az = p[3 * a + 2];
    const e1x = p[3 * b] - ax, e1y = p[3 * b + 1] - ay, e1z = p[3 * b + 2] - az;
    const e2x = p[3 * c] - ax, e2y = p[3 * c + 1] - ay, e2z = p[3 * c + 2] - az;
    const px = d[1] * e2z - d[2] * e2y, py = d[2] * e2x - d[0] * e2z, pz = d[0] * e2y - d[1] * e2x;
    const det = e1x * px + e1y * py + e1z * pz;
    if (Math.abs(det) < 1e-20) continue;
    const inv = 1 / det;
    const sx = o[0] - ax, sy = o[1] - ay, sz = o[2] - az;
    const u = (sx * px + sy * py + sz * pz) * inv;
    if (u < 0 || u > 1) continue;
    const qx = sy * e1z - sz * e1y, qy = sz * e1x - sx * e1z, qz = sx * e1y - sy * e1x;
    const v = (d[0] * qx + d[1] * qy + d[2] * qz) * inv;
    if (v < 0 || u + v > 1) continue;
    const t = (e2x * qx + e2y * qy + e2z * qz) * inv;
    if (t > 0 && t < tBest) { tBest = t; best = { t, corners: [a, b, c] }; }
  }
  return best;
}

// Whether the ray enters the box [lo, hi] before `limit` (slab test).
function hitsBox(o, d, lo, hi, limit) {
  let near = 0, far = limit;
  for (let i = 0; i < 3; i++) {
    if (Math.abs(d[i]) < 1e-30) {
      if (o[i] < lo[i] || o[i] > hi[i]) return false;
      continue;
    }
    let t0 = (lo[i] - o[i]) / d[i], t1 = (hi[i] - o[i]) / d[i];
    if (t0 > t1) [t0, t1] = [t1, t0];
    near = Math.max(near, t0);
    far = Math.min(far, t1);
    if (near > far) return false;
  }
  return true;
}

function transformPoint(m, p) {
  return [
    m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
    m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
    m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
  ];
}

function transformVector(m, v) {
  return [
    m[0] * v[0] + m[4] * v[1] + m[8] * v[2],
    m[1] * v[0] + m[5] * v[1] + m[9] * v[2],
    m[2] * v[0] + m[6] * v[1] + m[10] * v[2],
  ];
}
