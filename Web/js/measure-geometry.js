// The arithmetic of measurements (measure.js): a distance, an angle or a dihedral from atoms'
// coordinates in Å, in words ("3.42 Å", "109.5°", "−62.3°"), and the dashed tubes that draw them in
// AR (parseGLB's shape, so the viewer uploads them as it uploads a room's strokes).

/** What two, three and four atoms measure. */
export const KINDS = { 2: 'distance', 3: 'angle', 4: 'dihedral' };

const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const length = (a) => Math.hypot(a[0], a[1], a[2]);
const DEGREES = 180 / Math.PI;

/**
 * The value of a measurement between `points` (2 to 4 positions in Å): the distance |a − b| in Å,
 * the angle a–b–c at the middle atom in degrees (0 to 180), or the dihedral a–b–c–d in degrees,
 * signed as IUPAC signs it (−180 to 180: positive when, looking along b → c, a turns clockwise
 * onto d). Null for fewer than two points or coinciding atoms.
 */
export function measureValue(points) {
  if (points.length === 2) return length(sub(points[0], points[1]));
  if (points.length === 3) {
    const u = sub(points[0], points[1]), v = sub(points[2], points[1]);
    const n = length(u) * length(v);
    return n > 0 ? Math.acos(Math.min(1, Math.max(-1, dot(u, v) / n))) * DEGREES : null;
  }
  if (points.length === 4) {
    const b1 = sub(points[1], points[0]), b2 = sub(points[2], points[1]), b3 = sub(points[3], points[2]);
    const n1 = cross(b1, b2), n2 = cross(b2, b3);
    const y = length(b2) * dot(b1, n2), x = dot(n1, n2);
    return x === 0 && y === 0 ? null : Math.atan2(y, x) * DEGREES;
  }
  return null;
}

/** A value in words: "3.42 Å" for a distance, "109.5°" or "−62.3°" (a true minus) for angles. */
export function formatValue(kind, value) {
  if (value === null || !Number.isFinite(value)) return '—';
  const text = kind === 'distance' ? value.toFixed(2) : value.toFixed(1);
  // No "−0.0°": a value that rounds to zero has no sign.
  const signed = /^-0(\.0+)?$/.test(text) ? text.slice(1) : text.replace('-', '−');
  return kind === 'distance' ? `${signed} Å` : `${signed}°`;
}

// ---- Dashed tubes for AR ----

const SIDES = 6;
const DASH = 4;  // a dash's length, in tube radii, then
const GAP = 3;   // the gap's

/**
 * Dashed tubes along `lines` ([[a, b], …], points in the viewer's model coordinates), `radius` thick
 * (model units), `color` linear RGBA, in parseGLB's shape. Null when there is nothing to draw.
 */
export function dashedTubes(lines, radius, color) {
  const positions = [], normals = [], indices = [];
  const dash = DASH * radius, gap = GAP * radius;
  for (const [a, b] of lines) {
    const along = sub(b, a);
    const total = length(along);
    if (!(total > 0)) continue;
    const t = along.map((c) => c / total);
    const side = cross(t, Math.abs(t[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0]);
    const s = length(side);
    const n1 = side.map((c) => c / s), n2 = cross(t, n1);
    // Dashes centred on the line, so both ends look alike.
    const count = Math.max(1, Math.floor((total + gap) / (dash + gap)));
    const start = (total - (count * (dash + gap) - gap)) / 2;
    for (let k = 0; k < count; k++) {
      const from = Math.max(0, start + k * (dash + gap)), to = Math.min(total, from + dash);
      const base = positions.length / 3;
      for (const at of [from, to]) {
        for (let i = 0; i < SIDES; i++) {
          const angle = (i / SIDES) * Math.PI * 2, c = Math.cos(angle), sn = Math.sin(angle);
          const n = [0, 1, 2].map((j) => n1[j] * c + n2[j] * sn);
          positions.push(...[0, 1, 2].map((j) => a[j] + t[j] * at + n[j] * radius));
          normals.push(...n);
        }
      }
      for (let i = 0; i < SIDES; i++) {
        const p = base + i, q = base + ((i + 1) % SIDES);
        indices.push(p, p + SIDES, q, q, p + SIDES, q + SIDES);
      }
    }
  }
  const vertexCount = positions.length / 3;
  if (!vertexCount) return null;
  const colors = new Float32Array(vertexCount * 4);
  for (let i = 0; i < vertexCount; i++) colors.set(color, i * 4);
  return {
    meshes: [{ primitives: [{
      positions: new Float32Array(positions), normals: new Float32Array(normals), colors,
      indices: vertexCount > 65535 ? new Uint32Array(indices) : new Uint16Array(indices), vertexCount,
    }] }],
    nodes: [{ mesh: 0, matrix: new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]) }],
  };
}
