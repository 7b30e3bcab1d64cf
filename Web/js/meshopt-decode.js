// Decodes glTF's EXT_meshopt_compression bitstreams (the attribute, triangle and index codecs and
// the octahedral, quaternion and exponential filters), so the viewer can take the compact GLB the
// server makes for it (a quarter of the quantised file). Plain ES module, written from the format
// description in KhronosGroup/glTF extensions/2.0/Vendor/EXT_meshopt_compression/README.md
// (Appendix A: bitstream, Appendix B: filters); test_web.py holds it to gltfpack's files and to the
// server's uncompressed GLB.
//
// All decoders write into `target` (a Uint8Array of at least count * byteStride bytes) and throw an
// Error on malformed input instead of returning codes. Multi-byte output (indices, filter results) is
// written little-endian as glTF requires; typed arrays are used where the target is aligned, which
// assumes a little-endian host (every browser platform in practice).

export const MODES = Object.freeze({ ATTRIBUTES: 0, TRIANGLES: 1, INDICES: 2 });
export const FILTERS = Object.freeze({ NONE: 0, OCTAHEDRAL: 1, QUATERNION: 2, EXPONENTIAL: 3 });

function fail(msg) {
  throw new Error('meshopt: ' + msg);
}

function checkTarget(target, count, byteStride) {
  if (!(target instanceof Uint8Array)) fail('target must be a Uint8Array');
  if (!Number.isInteger(count) || count < 0) fail('bad count ' + count);
  if (target.length < count * byteStride) fail('target too small: ' + target.length + ' < ' + count * byteStride);
}

// ---------------------------------------------------------------------------------------------------
// Mode 0: attributes (header 0xa0)
// ---------------------------------------------------------------------------------------------------

// Scratch for one data block's 16-element groups (max 256 elements per block).
const deltaScratch = new Uint8Array(256);

/**
 * Decode an attribute stream.
 * @param {Uint8Array} target  receives count * byteStride bytes
 * @param {number} count       element count
 * @param {number} byteStride  element size in bytes, multiple of 4, at most 256
 * @param {Uint8Array} source  the compressed bytes, exactly byteLength long (the stream is not self-delimiting)
 */
export function decodeVertexBuffer(target, count, byteStride, source) {
  if (!(byteStride > 0 && byteStride <= 256 && byteStride % 4 === 0)) fail('bad attribute byteStride ' + byteStride);
  checkTarget(target, count, byteStride);
  const len = source.length;
  if (len < 1 || source[0] !== 0xa0) fail('bad attribute header 0x' + (len ? source[0].toString(16) : '??') + ' (expected 0xa0)');
  const tailSize = byteStride < 32 ? 32 : byteStride;
  if (len < 1 + tailSize) fail('attribute stream truncated');

  // Baseline: last byteStride bytes of the stream (the first element's predecessor).
  // Copy explicitly: Node's Buffer.slice() returns a view, and `last` is updated in place below.
  const last = new Uint8Array(byteStride);
  for (let k = 0; k < byteStride; k++) last[k] = source[len - byteStride + k];
  const dataEnd = len - tailSize; // where attribute blocks must end exactly
  const maxBlock = Math.min((8192 / byteStride) & ~15, 256);
  const deltas = deltaScratch;
  let pos = 1;

  for (let start = 0; start < count; start += maxBlock) {
    const n = Math.min(count - start, maxBlock);
    const groups = (n + 15) >> 4;
    const headerSize = (groups + 3) >> 2;
    const base = start * byteStride;

    for (let k = 0; k < byteStride; k++) {
      if (pos + headerSize > dataEnd) fail('attribute stream truncated (data block header)');
      const hdr = pos;
      let data = pos + headerSize;

      for (let g = 0; g < groups; g++) {
        const mode = (source[hdr + (g >> 2)] >> ((g & 3) << 1)) & 3;
        const o = g << 4;
        // Largest group encodings: 4+16 (2-bit), 8+16 (4-bit), 16 (raw). The 32-byte padded tail lets a
        // valid stream satisfy data + 24 <= len; anything reaching further is malformed.
        if (data + 24 > len) fail('attribute stream truncated (group)');
        if (mode === 0) {
          for (let i = 0; i < 16; i++) deltas[o + i] = 0;
        } else if (mode === 1) {
          // 16 x 2-bit, first value in the top bits; 3 = sentinel -> next byte after the 4 packed bytes.
          let extra = data + 4;
          for (let b = 0; b < 4; b++) {
            const byte = source[data + b];
            for (let s = 6, i = o + (b << 2); s >= 0; s -= 2, i++) {
              const v = (byte >> s) & 3;
              deltas[i] = v === 3 ? source[extra++] : v;
            }
          }
          data = extra;
        } else if (mode === 2) {
          // 16 x 4-bit, first value in the high nibble; 15 = sentinel.
          let extra = data + 8;
          for (let b = 0; b < 8; b++) {
            const byte = source[data + b];
            const hi = byte >> 4;
            const lo = byte & 15;
            const i = o + (b << 1);
            deltas[i] = hi === 15 ? source[extra++] : hi;
            deltas[i + 1] = lo === 15 ? source[extra++] : lo;
          }
          data = extra;
        } else {
          for (let i = 0; i < 16; i++) deltas[o + i] = source[data + i];
          data += 16;
        }
      }
      if (data > dataEnd) fail('attribute stream truncated (group data)');
      pos = data;

      // Unzigzag and accumulate byte k of each element (mod 256).
      let p = last[k];
      for (let i = 0, t = base + k; i < n; i++, t += byteStride) {
        const v = deltas[i];
        p = (p + ((v >> 1) ^ -(v & 1))) & 255;
        target[t] = p;
      }
      last[k] = p;
    }
  }

  if (pos !== dataEnd) fail('attribute stream has ' + (dataEnd - pos) + ' unexpected bytes before the tail');
}

// ---------------------------------------------------------------------------------------------------
// Index output helper: a Uint16Array/Uint32Array over target when aligned, otherwise a scratch array
// that is copied out byte by byte afterwards (little-endian).
// ---------------------------------------------------------------------------------------------------

function indexOutput(target, count, byteStride) {
  if (byteStride !== 2 && byteStride !== 4) fail('index byteStride must be 2 or 4, got ' + byteStride);
  checkTarget(target, count, byteStride);
  const T = byteStride === 2 ? Uint16Array : Uint32Array;
  if (target.byteOffset % byteStride === 0) return { out: new T(target.buffer, target.byteOffset, count), copy: null };
  const out = new T(count);
  return { out, copy: () => target.set(new Uint8Array(out.buffer, 0, count * byteStride)) };
}

// ---------------------------------------------------------------------------------------------------
// Mode 1: triangles (header 0xe1; 0xe0 = version 0 accepted too, see README)
// ---------------------------------------------------------------------------------------------------

// LEB128 varint of at most 5 bytes at source[at] (both index codecs use them); where it ends is
// left in varintEnd, so the hot loops allocate nothing.
let varintEnd = 0;
function readVarint(source, at) {
  let v = source[at++];
  if (v & 0x80) {
    v &= 0x7f;
    let b = source[at++];
    v |= (b & 0x7f) << 7;
    if (b & 0x80) {
      b = source[at++];
      v |= (b & 0x7f) << 14;
      if (b & 0x80) {
        b = source[at++];
        v |= (b & 0x7f) << 21;
        if (b & 0x80) {
          b = source[at++];
          v |= b << 28;
        }
      }
    }
  }
  varintEnd = at;
  return v >>> 0;
}

/**
 * Decode a triangle-list index stream.
 * @param {Uint8Array} target  receives count * byteStride bytes
 * @param {number} count       index count (multiple of 3)
 * @param {number} byteStride  2 or 4
 * @param {Uint8Array} source  compressed bytes
 */
export function decodeIndexBuffer(target, count, byteStride, source) {
  if (count % 3 !== 0) fail('triangle index count must be a multiple of 3');
  const { out, copy } = indexOutput(target, count, byteStride);
  const len = source.length;
  const triCount = count / 3;
  if (len < 1 + triCount + 16) fail('triangle stream truncated');
  const header = source[0];
  if (header !== 0xe1 && header !== 0xe0) fail('bad triangle header 0x' + header.toString(16) + ' (expected 0xe1)');
  const version = header & 15;
  // Codes 0xX1..0xXc read the vertex FIFO; version 1 adds 0xXd/0xXe (last -/+ 1).
  const fecmax = version >= 1 ? 13 : 15;

  const auxBase = len - 16; // codeaux table; also the end of the data area
  const edgeA = new Uint32Array(16);
  const edgeB = new Uint32Array(16);
  const vfifo = new Uint32Array(16);
  let eo = 0; // next edge FIFO write slot
  let vo = 0; // next vertex FIFO write slot
  let next = 0;
  let last = 0;
  let codePos = 1;
  let data = 1 + triCount;

  // A varint, then a zigzag delta from `last`.
  function readIndex() {
    const v = readVarint(source, data);
    data = varintEnd;
    last = (last + ((v >>> 1) ^ -(v & 1))) >>> 0;
    return last;
  }

  for (let i = 0; i < count; i += 3) {
    // Worst case per triangle is 1 aux byte + 3 five-byte varints = 16 bytes, covered by the tail.
    if (data > auxBase) fail('triangle stream truncated');
    const code = source[codePos++];
    const x = code >> 4;
    const y = code & 15;
    let a, b, c;

    if (x < 15) {
      const e = (eo - 1 - x) & 15;
      a = edgeA[e];
      b = edgeB[e];
      if (y === 0) {
        c = next++;
        vfifo[vo] = c; vo = (vo + 1) & 15;
      } else if (y < fecmax) {
        c = vfifo[(vo - 1 - y) & 15];
      } else if (y < 15) {
        c = last = (y === 13 ? last - 1 : last + 1) >>> 0;
        vfifo[vo] = c; vo = (vo + 1) & 15;
      } else {
        c = readIndex();
        vfifo[vo] = c; vo = (vo + 1) & 15;
      }
      out[i] = a; out[i + 1] = b; out[i + 2] = c;
      edgeA[eo] = c; edgeB[eo] = b; eo = (eo + 1) & 15;
      edgeA[eo] = a; edgeB[eo] = c; eo = (eo + 1) & 15;
    } else {
      let z, w;
      if (y < 14) {
        const aux = source[auxBase + y];
        z = aux >> 4;
        w = aux & 15;
        a = next++;
        b = z === 0 ? next++ : vfifo[(vo - z) & 15];
        c = w === 0 ? next++ : vfifo[(vo - w) & 15];
      } else {
        const aux = source[data++];
        if (aux === 0) next = 0;
        z = aux >> 4;
        w = aux & 15;
        a = y === 14 ? next++ : readIndex();
        b = z === 0 ? next++ : z === 15 ? readIndex() : vfifo[(vo - z) & 15];
        c = w === 0 ? next++ : w === 15 ? readIndex() : vfifo[(vo - w) & 15];
      }
      out[i] = a; out[i + 1] = b; out[i + 2] = c;
      vfifo[vo] = a; vo = (vo + 1) & 15;
      if (z === 0 || z === 15) { vfifo[vo] = b; vo = (vo + 1) & 15; }
      if (w === 0 || w === 15) { vfifo[vo] = c; vo = (vo + 1) & 15; }
      edgeA[eo] = b; edgeB[eo] = a; eo = (eo + 1) & 15;
      edgeA[eo] = c; edgeB[eo] = b; eo = (eo + 1) & 15;
      edgeA[eo] = a; edgeB[eo] = c; eo = (eo + 1) & 15;
    }
  }

  if (data !== auxBase) fail('triangle stream data area has ' + (auxBase - data) + ' unexpected bytes');
  if (copy) copy();
}

// ---------------------------------------------------------------------------------------------------
// Mode 2: index sequence (header 0xd1; 0xd0 has the identical bitstream and is accepted)
// ---------------------------------------------------------------------------------------------------

/**
 * Decode an index sequence (any topology, sparse indices).
 * @param {Uint8Array} target  receives count * byteStride bytes
 * @param {number} count       index count
 * @param {number} byteStride  2 or 4
 * @param {Uint8Array} source  compressed bytes
 */
export function decodeIndexSequence(target, count, byteStride, source) {
  const { out, copy } = indexOutput(target, count, byteStride);
  const len = source.length;
  if (len < 1 + count + 4) fail('index sequence truncated');
  if (source[0] !== 0xd1 && source[0] !== 0xd0) fail('bad index sequence header 0x' + source[0].toString(16) + ' (expected 0xd1)');
  const end = len - 4;
  let last0 = 0;
  let last1 = 0;
  let data = 1;
  for (let i = 0; i < count; i++) {
    if (data >= end) fail('index sequence truncated');
    const v = readVarint(source, data);
    data = varintEnd;
    const d = v >>> 1;
    const delta = (d >>> 1) ^ -(d & 1);
    if (v & 1) out[i] = last1 = (last1 + delta) >>> 0;
    else out[i] = last0 = (last0 + delta) >>> 0;
  }
  if (data !== end) fail('index sequence has ' + (end - data) + ' unexpected bytes before the tail');
  if (copy) copy();
}

// ---------------------------------------------------------------------------------------------------
// Filters (in place, after mode-0 decoding). Arithmetic is done in float32 (Math.fround) to follow
// the spec's float32_t pseudo-code; the spec allows 1 ULP of the output type either way.
// ---------------------------------------------------------------------------------------------------

const f32 = Math.fround;

// Round half away from zero, then truncate to integer.
function roundAway(v) {
  return v >= 0 ? Math.floor(v + 0.5) : -Math.floor(-v + 0.5);
}

// A signed typed view over `data` (Int8/Int16/Int32) when aligned, else a copy written back by done().
function signedView(data, T, count, byteStride) {
  const bytes = count * byteStride;
  if (data.length < bytes) fail('filter target too small');
  const n = bytes / T.BYTES_PER_ELEMENT;
  if (data.byteOffset % T.BYTES_PER_ELEMENT === 0) return { v: new T(data.buffer, data.byteOffset, n), done() {} };
  const tmp = new Uint8Array(data.subarray(0, bytes));
  return { v: new T(tmp.buffer, 0, n), done: () => data.set(tmp) };
}

/** OCTAHEDRAL (filter 1): byteStride 4 (int8 x4) or 8 (int16 x4). In place. */
export function decodeFilterOct(data, count, byteStride) {
  if (byteStride !== 4 && byteStride !== 8) fail('OCTAHEDRAL needs byteStride 4 or 8');
  const { v, done } = signedView(data, byteStride === 4 ? Int8Array : Int16Array, count, byteStride);
  const max = byteStride === 4 ? 127 : 32767;
  for (let i = 0, j = 0; i < count; i++, j += 4) {
    const one = v[j + 2];
    let x = f32(v[j] / one);
    let y = f32(v[j + 1] / one);
    const z = f32(f32(1 - Math.abs(x)) - Math.abs(y));
    const t = z < 0 ? z : 0;
    x = f32(x - (x < 0 || Object.is(x, -0) ? -Math.abs(t) : Math.abs(t)));
    y = f32(y - (y < 0 || Object.is(y, -0) ? -Math.abs(t) : Math.abs(t)));
    const len = f32(Math.sqrt(f32(f32(f32(x * x) + f32(y * y)) + f32(z * z))));
    const s = f32(max / len);
    v[j] = roundAway(f32(x * s));
    v[j + 1] = roundAway(f32(y * s));
    v[j + 2] = roundAway(f32(z * s));
    // v[j + 3] passes through
  }
  done();
}

/** QUATERNION (filter 2): byteStride 8 (int16 x4). In place. */
export function decodeFilterQuat(data, count, byteStride) {
  if (byteStride !== 8) fail('QUATERNION needs byteStride 8');
  const { v, done } = signedView(data, Int16Array, count, byteStride);
  const range = f32(1 / Math.SQRT2);
  for (let i = 0, j = 0; i < count; i++, j += 4) {
    const w3 = v[j + 3];
    const one = w3 | 3;
    const s = f32(range / one);
    const x = f32(v[j] * s);
    const y = f32(v[j + 1] * s);
    const z = f32(v[j + 2] * s);
    const ww = f32(f32(f32(1 - f32(x * x)) - f32(y * y)) - f32(z * z));
    const w = f32(Math.sqrt(ww > 0 ? ww : 0));
    const qc = w3 & 3;
    v[j + ((qc + 1) & 3)] = roundAway(f32(x * 32767));
    v[j + ((qc + 2) & 3)] = roundAway(f32(y * 32767));
    v[j + ((qc + 3) & 3)] = roundAway(f32(z * 32767));
    v[j + qc] = roundAway(f32(w * 32767));
  }
  done();
}

/** EXPONENTIAL (filter 3): byteStride % 4 == 0; each int32 becomes float32 m * 2^e. In place. */
export function decodeFilterExp(data, count, byteStride) {
  if (byteStride % 4 !== 0 || byteStride <= 0) fail('EXPONENTIAL needs byteStride % 4 == 0');
  const { v, done } = signedView(data, Int32Array, count, byteStride);
  const f = new Float32Array(v.buffer, v.byteOffset, v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    const e = x >> 24;
    const m = (x << 8) >> 8;
    f[i] = m * Math.pow(2, e); // exact: |m| < 2^23 and e in [-100, 100]
  }
  done();
}

// Aliases matching the brief's naming.
export const OCTAHEDRAL = decodeFilterOct;
export const QUATERNION = decodeFilterQuat;
export const EXPONENTIAL = decodeFilterExp;

/**
 * Decode one EXT_meshopt_compression stream by mode/filter name (as in the glTF JSON).
 * @returns {Uint8Array} target
 */
export function decodeGltfBuffer(target, count, byteStride, source, mode, filter) {
  switch (mode) {
    case 'ATTRIBUTES': decodeVertexBuffer(target, count, byteStride, source); break;
    case 'TRIANGLES': decodeIndexBuffer(target, count, byteStride, source); break;
    case 'INDICES': decodeIndexSequence(target, count, byteStride, source); break;
    default: fail('unknown mode ' + mode);
  }
  if (filter && filter !== 'NONE') {
    if (mode !== 'ATTRIBUTES') fail('filters apply only to ATTRIBUTES');
    if (filter === 'OCTAHEDRAL') decodeFilterOct(target, count, byteStride);
    else if (filter === 'QUATERNION') decodeFilterQuat(target, count, byteStride);
    else if (filter === 'EXPONENTIAL') decodeFilterExp(target, count, byteStride);
    else fail('unknown filter ' + filter);
  }
  return target;
}
