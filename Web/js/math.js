// Just enough vector and matrix maths for the GLB loader and the viewer, so
// the page ships no third-party maths library. Matrices are column-major
// Float32Arrays (the same layout glTF and WebGL uniforms use); functions write
// into `out` and return it so callers can reuse scratch arrays per frame.

const EPSILON = 1e-12;
const MULTIPLY_SCRATCH = new Float64Array(16);

export const vec3 = {
  create(x = 0, y = 0, z = 0) {
    const out = new Float32Array(3);
    out[0] = x;
    out[1] = y;
    out[2] = z;
    return out;
  },

  set(out, x, y, z) {
    out[0] = x;
    out[1] = y;
    out[2] = z;
    return out;
  },

  copy(out, a) {
    out[0] = a[0];
    out[1] = a[1];
    out[2] = a[2];
    return out;
  },

  add(out, a, b) {
    out[0] = a[0] + b[0];
    out[1] = a[1] + b[1];
    out[2] = a[2] + b[2];
    return out;
  },

  sub(out, a, b) {
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
    return out;
  },

  scale(out, a, s) {
    out[0] = a[0] * s;
    out[1] = a[1] * s;
    out[2] = a[2] * s;
    return out;
  },

  // out = a + b * s
  scaleAndAdd(out, a, b, s) {
    out[0] = a[0] + b[0] * s;
    out[1] = a[1] + b[1] * s;
    out[2] = a[2] + b[2] * s;
    return out;
  },

  dot(a, b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  },

  cross(out, a, b) {
    const x = a[1] * b[2] - a[2] * b[1];
    const y = a[2] * b[0] - a[0] * b[2];
    const z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    return out;
  },

  length(a) {
    return Math.hypot(a[0], a[1], a[2]);
  },

  normalize(out, a) {
    const len = Math.hypot(a[0], a[1], a[2]);
    const inv = len > EPSILON ? 1 / len : 0;
    out[0] = a[0] * inv;
    out[1] = a[1] * inv;
    out[2] = a[2] * inv;
    return out;
  },

  // Transforms a point (w = 1) by an affine or projective mat4.
  transformMat4(out, p, m) {
    const x = p[0];
    const y = p[1];
    const z = p[2];
    const w = m[3] * x + m[7] * y + m[11] * z + m[15] || 1;
    out[0] = (m[0] * x + m[4] * y + m[8] * z + m[12]) / w;
    out[1] = (m[1] * x + m[5] * y + m[9] * z + m[13]) / w;
    out[2] = (m[2] * x + m[6] * y + m[10] * z + m[14]) / w;
    return out;
  }
};

export const quat = {
  create() {
    const out = new Float32Array(4);
    out[3] = 1;
    return out;
  },

  identity(out) {
    out[0] = 0;
    out[1] = 0;
    out[2] = 0;
    out[3] = 1;
    return out;
  },

  copy(out, a) {
    out[0] = a[0];
    out[1] = a[1];
    out[2] = a[2];
    out[3] = a[3];
    return out;
  },

  // Rotation of `angle` radians about `axis` (need not be unit length).
  setAxisAngle(out, axis, angle) {
    const len = Math.hypot(axis[0], axis[1], axis[2]);
    if (len < EPSILON) return quat.identity(out);
    const s = Math.sin(angle / 2) / len;
    out[0] = axis[0] * s;
    out[1] = axis[1] * s;
    out[2] = axis[2] * s;
    out[3] = Math.cos(angle / 2);
    return out;
  },

  // Hamilton product a * b: applying the result rotates by b first, then a.
  multiply(out, a, b) {
    const [ax, ay, az, aw] = a;
    const [bx, by, bz, bw] = b;
    out[0] = aw * bx + ax * bw + ay * bz - az * by;
    out[1] = aw * by - ax * bz + ay * bw + az * bx;
    out[2] = aw * bz + ax * by - ay * bx + az * bw;
    out[3] = aw * bw - ax * bx - ay * by - az * bz;
    return out;
  },

  normalize(out, a) {
    const len = Math.hypot(a[0], a[1], a[2], a[3]);
    if (len < EPSILON) return quat.identity(out);
    out[0] = a[0] / len;
    out[1] = a[1] / len;
    out[2] = a[2] / len;
    out[3] = a[3] / len;
    return out;
  }
};

export const mat4 = {
  create() {
    return mat4.identity(new Float32Array(16));
  },

  identity(out) {
    out.fill(0);
    out[0] = 1;
    out[5] = 1;
    out[10] = 1;
    out[15] = 1;
    return out;
  },

  copy(out, a) {
    out.set(a);
    return out;
  },

  // out = a * b (b is applied first). `out` may alias `a` or `b`.
  multiply(out, a, b) {
    const r = MULTIPLY_SCRATCH;
    for (let col = 0; col < 4; col++) {
      const b0 = b[col * 4];
      const b1 = b[col * 4 + 1];
      const b2 = b[col * 4 + 2];
      const b3 = b[col * 4 + 3];
      for (let row = 0; row < 4; row++) {
        r[col * 4 + row] = a[row] * b0 + a[4 + row] * b1 + a[8 + row] * b2 + a[12 + row] * b3;
      }
    }
    out.set(r);
    return out;
  },

  // General inverse by Gauss-Jordan elimination with partial pivoting.
  // Returns null (and leaves `out` untouched) when `m` is singular.
  invert(out, m) {
    // Augmented 4x8 matrix [m | I], stored row-major for easy row swaps.
    const a = new Float64Array(32);
    for (let row = 0; row < 4; row++) {
      for (let col = 0; col < 4; col++) a[row * 8 + col] = m[col * 4 + row];
      a[row * 8 + 4 + row] = 1;
    }
    for (let col = 0; col < 4; col++) {
      let pivot = col;
      for (let row = col + 1; row < 4; row++) {
        if (Math.abs(a[row * 8 + col]) > Math.abs(a[pivot * 8 + col])) pivot = row;
      }
      const p = a[pivot * 8 + col];
      if (Math.abs(p) < EPSILON) return null;
      if (pivot !== col) {
        for (let k = 0; k < 8; k++) {
          const t = a[col * 8 + k];
          a[col * 8 + k] = a[pivot * 8 + k];
          a[pivot * 8 + k] = t;
        }
      }
      for (let k = 0; k < 8; k++) a[col * 8 + k] /= p;
      for (let row = 0; row < 4; row++) {
        if (row === col) continue;
        const f = a[row * 8 + col];
        if (f === 0) continue;
        for (let k = 0; k < 8; k++) a[row * 8 + k] -= f * a[col * 8 + k];
      }
    }
    for (let row = 0; row < 4; row++) {
      for (let col = 0; col < 4; col++) out[col * 4 + row] = a[row * 8 + 4 + col];
    }
    return out;
  },

  // OpenGL-style perspective projection; `fovy` in radians.
  perspective(out, fovy, aspect, near, far) {
    const f = 1 / Math.tan(fovy / 2);
    out.fill(0);
    out[0] = f / aspect;
    out[5] = f;
    out[10] = (far + near) / (near - far);
    out[11] = -1;
    out[14] = (2 * far * near) / (near - far);
    return out;
  },

  // View matrix for a camera at `eye` looking at `center`.
  lookAt(out, eye, center, up) {
    const z = vec3.normalize(vec3.create(), vec3.sub(vec3.create(), eye, center));
    const x = vec3.normalize(vec3.create(), vec3.cross(vec3.create(), up, z));
    if (x[0] === 0 && x[1] === 0 && x[2] === 0) {
      // `up` is parallel to the view direction: pick any perpendicular axis.
      const alt = Math.abs(z[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
      vec3.normalize(x, vec3.cross(x, alt, z));
    }
    const y = vec3.cross(vec3.create(), z, x);
    out[0] = x[0];
    out[1] = y[0];
    out[2] = z[0];
    out[3] = 0;
    out[4] = x[1];
    out[5] = y[1];
    out[6] = z[1];
    out[7] = 0;
    out[8] = x[2];
    out[9] = y[2];
    out[10] = z[2];
    out[11] = 0;
    out[12] = -vec3.dot(x, eye);
    out[13] = -vec3.dot(y, eye);
    out[14] = -vec3.dot(z, eye);
    out[15] = 1;
    return out;
  },

  // Rotation matrix from a unit quaternion [x, y, z, w].
  fromQuat(out, q) {
    return mat4.fromTRS(out, null, q, null);
  },

  // Translation * Rotation * Scale, as glTF composes a node's TRS.
  // Any of t, r, s may be null to mean identity.
  fromTRS(out, t, r, s) {
    const [x, y, z, w] = r ?? [0, 0, 0, 1];
    const sx = s ? s[0] : 1;
    const sy = s ? s[1] : 1;
    const sz = s ? s[2] : 1;
    out[0] = (1 - 2 * (y * y + z * z)) * sx;
    out[1] = 2 * (x * y + w * z) * sx;
    out[2] = 2 * (x * z - w * y) * sx;
    out[3] = 0;
    out[4] = 2 * (x * y - w * z) * sy;
    out[5] = (1 - 2 * (x * x + z * z)) * sy;
    out[6] = 2 * (y * z + w * x) * sy;
    out[7] = 0;
    out[8] = 2 * (x * z + w * y) * sz;
    out[9] = 2 * (y * z - w * x) * sz;
    out[10] = (1 - 2 * (x * x + y * y)) * sz;
    out[11] = 0;
    out[12] = t ? t[0] : 0;
    out[13] = t ? t[1] : 0;
    out[14] = t ? t[2] : 0;
    out[15] = 1;
    return out;
  },

  // The 3x3 matrix that transforms normals: inverse-transpose of the upper
  // left 3x3 of `m`, written column-major into a 9-element `out`. Built from
  // the cofactors (cross products of the columns) divided by the
  // determinant. Falls back to the plain 3x3 when `m` is singular.
  normalMatrix(out, m) {
    const c0 = [m[0], m[1], m[2]];
    const c1 = [m[4], m[5], m[6]];
    const c2 = [m[8], m[9], m[10]];
    const k0 = vec3.cross([0, 0, 0], c1, c2);
    const k1 = vec3.cross([0, 0, 0], c2, c0);
    const k2 = vec3.cross([0, 0, 0], c0, c1);
    const det = vec3.dot(c0, k0);
    if (Math.abs(det) < EPSILON) {
      out.set([...c0, ...c1, ...c2]);
      return out;
    }
    const inv = 1 / det;
    for (let i = 0; i < 3; i++) {
      out[i] = k0[i] * inv;
      out[3 + i] = k1[i] * inv;
      out[6 + i] = k2[i] * inv;
    }
    return out;
  }
};
