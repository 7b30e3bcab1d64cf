// A small QR Code encoder (ISO/IEC 18004, Model 2), written for this app so a
// desktop page can show its own URL as a QR code for a phone to scan, without
// a third-party library. It covers what that needs: byte mode (UTF-8),
// error correction levels L/M/Q/H, the smallest fitting version 1-40, and the
// standard's mask selection by penalty score. Other modes (numeric,
// alphanumeric, kanji), ECI and structured append are deliberately left out.

// ---- Tables from the standard (Table 9), indexed [level][version - 1] ----

// Error correction codewords in each block.
const EC_PER_BLOCK = {
  L: [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
    28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  M: [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
    26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  Q: [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
    28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  H: [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
    30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
};

// Number of error correction blocks (both groups together).
const BLOCKS = {
  L: [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
    8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  M: [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
    17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  Q: [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
    23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  H: [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
    25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
};

// The two bits the format information uses for each level (Table 12).
const LEVEL_BITS = { L: 0b01, M: 0b00, Q: 0b11, H: 0b10 };

// ---- GF(256) arithmetic with the QR polynomial x^8+x^4+x^3+x^2+1 (0x11D) ----

const EXP = new Uint8Array(512); // doubled so a product's log sum needs no modulo
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
}

function gfMul(a, b) {
  return a === 0 || b === 0 ? 0 : EXP[LOG[a] + LOG[b]];
}

// Generator polynomial (x - a^0)(x - a^1)...(x - a^(n-1)), highest term first
// and its leading 1 dropped; results are cached as few degrees occur.
const generators = new Map();
function generator(degree) {
  let g = generators.get(degree);
  if (g) return g;
  let poly = [1];
  for (let i = 0; i < degree; i++) {
    const next = new Array(poly.length + 1).fill(0);
    for (let j = 0; j < poly.length; j++) {
      next[j] ^= poly[j];                     // times x
      next[j + 1] ^= gfMul(poly[j], EXP[i]);  // times a^i (minus is plus in GF(2^8))
    }
    poly = next;
  }
  g = Uint8Array.from(poly.slice(1));
  generators.set(degree, g);
  return g;
}

// Remainder of data(x) * x^n divided by the generator: the n EC codewords.
function reedSolomon(data, n) {
  const g = generator(n);
  const rem = new Uint8Array(n);
  for (const byte of data) {
    const factor = byte ^ rem[0];
    rem.copyWithin(0, 1);
    rem[n - 1] = 0;
    if (factor !== 0) for (let i = 0; i < n; i++) rem[i] ^= gfMul(g[i], factor);
  }
  return rem;
}

// ---- BCH codes for format and version information ----

// Appends the remainder of value * x^(deg g) modulo the generator g.
function bch(value, poly, polyDegree) {
  let rem = value << polyDegree;
  for (let bit = 31 - Math.clz32(rem); bit >= polyDegree; bit--) {
    if (rem & (1 << bit)) rem ^= poly << (bit - polyDegree);
  }
  return (value << polyDegree) | rem;
}

// (15,5) code, masked with 0x5412 so the format is never all light.
const formatBits = (level, mask) => bch((LEVEL_BITS[level] << 3) | mask, 0x537, 10) ^ 0x5412;
// (18,6) code for versions 7 and up.
const versionBits = (version) => bch(version, 0x1f25, 12);

// ---- Symbol geometry ----

const sizeOf = (version) => version * 4 + 17;

// Centre coordinates of the alignment patterns (Annex E): first at 6, last at
// size - 7, the rest evenly spaced by an even step counted back from the end.
// Version 32 is the one the even-step rule does not give (its step is 26).
function alignmentPositions(version) {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const size = sizeOf(version);
  const step = version === 32 ? 26 : Math.ceil((size - 13) / (count * 2 - 2)) * 2;
  const positions = [6];
  for (let i = count - 2; i >= 0; i--) positions.push(size - 7 - i * step);
  return positions;
}

// The symbol under construction: module colours plus which modules are
// function patterns (not data, never masked).
class Matrix {
  constructor(version) {
    this.version = version;
    this.size = sizeOf(version);
    this.dark = new Uint8Array(this.size * this.size);
    this.reserved = new Uint8Array(this.size * this.size);
    this.drawFunctionPatterns();
  }

  set(x, y, dark) {
    const i = y * this.size + x;
    this.dark[i] = dark ? 1 : 0;
    this.reserved[i] = 1;
  }

  drawFunctionPatterns() {
    const { size, version } = this;
    // Timing patterns first; finders and alignments then overwrite their ends.
    for (let i = 0; i < size; i++) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    this.drawFinder(3, 3);
    this.drawFinder(size - 4, 3);
    this.drawFinder(3, size - 4);

    const align = alignmentPositions(version);
    const last = align.length - 1;
    for (let i = 0; i <= last; i++) {
      for (let j = 0; j <= last; j++) {
        // Skip the three corners the finder patterns occupy.
        if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue;
        this.drawAlignment(align[i], align[j]);
      }
    }

    // Reserve the format areas now (filled once the mask is known); this also
    // places the dark module, which is never masked.
    this.drawFormat(0);
    this.drawVersion();
  }

  // 7x7 finder centred at (cx, cy) with its light separator ring.
  drawFinder(cx, cy) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx;
        const y = cy + dy;
        if (x < 0 || y < 0 || x >= this.size || y >= this.size) continue;
        const ring = Math.max(Math.abs(dx), Math.abs(dy)); // 0..4 from the centre
        this.set(x, y, ring !== 2 && ring !== 4);
      }
    }
  }

  // 5x5 alignment pattern centred at (cx, cy).
  drawAlignment(cx, cy) {
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) {
        this.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }
  }

  // Format information, 15 bits, bit 14 first-read: one copy around the
  // top-left finder, the other split between the top-right and bottom-left.
  drawFormat(bits) {
    const { size } = this;
    const bit = (i) => (bits >>> i) & 1;
    for (let i = 0; i <= 5; i++) this.set(8, i, bit(i));
    this.set(8, 7, bit(6));
    this.set(8, 8, bit(7));
    this.set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) this.set(14 - i, 8, bit(i));

    for (let i = 0; i < 8; i++) this.set(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) this.set(8, size - 15 + i, bit(i));
    this.set(8, size - 8, 1); // the dark module
  }

  // Version information, 18 bits, in two 6x3 blocks beside the top-right and
  // bottom-left finders (versions 7 and up only).
  drawVersion() {
    if (this.version < 7) return;
    const bits = versionBits(this.version);
    for (let i = 0; i < 18; i++) {
      const dark = (bits >>> i) & 1;
      const a = this.size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      this.set(a, b, dark);
      this.set(b, a, dark);
    }
  }

  // Data bits in the standard's order: two-module-wide columns from the right,
  // alternately upwards and downwards, skipping the vertical timing pattern.
  // Bits left over (remainder bits) stay light.
  drawData(codewords) {
    const { size } = this;
    const totalBits = codewords.length * 8;
    let n = 0;
    let upward = true;
    for (let right = size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      for (let k = 0; k < size; k++) {
        const y = upward ? size - 1 - k : k;
        for (let dx = 0; dx < 2; dx++) {
          const x = right - dx;
          const i = y * size + x;
          if (this.reserved[i]) continue;
          if (n < totalBits) this.dark[i] = (codewords[n >>> 3] >>> (7 - (n & 7))) & 1;
          n++;
        }
      }
      upward = !upward;
    }
  }

  // Data modules a symbol of this version holds: everything not reserved.
  dataModuleCount() {
    let count = 0;
    for (const r of this.reserved) if (!r) count++;
    return count;
  }
}

// The eight mask conditions (Table 10); a data module is inverted where true.
// i is the row, j the column.
const MASKS = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i + j) % 2) + ((i * j) % 3)) % 2 === 0,
];

function applyMask(matrix, mask) {
  const { size, dark, reserved } = matrix;
  const test = MASKS[mask];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = y * size + x;
      if (!reserved[i] && test(y, x)) dark[i] ^= 1;
    }
  }
}

// ---- Mask evaluation (section 7.8.3) ----

// Penalty of one row or column, read through get(k) for k in 0..size-1:
// N1 for runs of five or more, N3 for 1:1:3:1:1 finder-like patterns with
// four light modules on one side or both. Beyond the symbol counts as light: the
// quiet zone is light, so a pattern at the edge still looks like a finder.
function linePenalty(get, size) {
  let penalty = 0;
  let runColour = -1;
  let run = 0;
  for (let k = 0; k < size; k++) {
    const c = get(k);
    if (c === runColour) {
      run++;
    } else {
      if (run >= 5) penalty += run - 2;
      runColour = c;
      run = 1;
    }
  }
  if (run >= 5) penalty += run - 2;

  const at = (k) => (k < 0 || k >= size ? 0 : get(k));
  for (let k = 0; k + 7 <= size; k++) {
    if (at(k) && !at(k + 1) && at(k + 2) && at(k + 3) && at(k + 4) && !at(k + 5) && at(k + 6)) {
      const lightBefore = !at(k - 1) && !at(k - 2) && !at(k - 3) && !at(k - 4);
      const lightAfter = !at(k + 7) && !at(k + 8) && !at(k + 9) && !at(k + 10);
      // "Preceded or followed by" four light modules: one pattern, one penalty.
      if (lightBefore || lightAfter) penalty += 40;
    }
  }
  return penalty;
}

function penalty(matrix) {
  const { size, dark } = matrix;
  let score = 0;
  for (let y = 0; y < size; y++) score += linePenalty((x) => dark[y * size + x], size);
  for (let x = 0; x < size; x++) score += linePenalty((y) => dark[y * size + x], size);

  // N2: each 2x2 block of one colour.
  for (let y = 0; y < size - 1; y++) {
    for (let x = 0; x < size - 1; x++) {
      const c = dark[y * size + x];
      if (c === dark[y * size + x + 1] && c === dark[(y + 1) * size + x]
        && c === dark[(y + 1) * size + x + 1]) score += 3;
    }
  }

  // N4: 10 points for each full 5% the dark share strays from 50%.
  let darkCount = 0;
  for (const d of dark) darkCount += d;
  const total = size * size;
  score += Math.floor(Math.abs(darkCount * 20 - total * 10) / total) * 10;
  return score;
}

// ---- Data encoding ----

// Splits the data codewords into the version's blocks, adds each block's EC
// codewords and interleaves them (section 7.6). Group 1 blocks are the short
// ones; group 2 blocks carry one data codeword more.
function interleave(data, version, level, totalCodewords) {
  const blockCount = BLOCKS[level][version - 1];
  const ecLen = EC_PER_BLOCK[level][version - 1];
  const shortCount = blockCount - (totalCodewords % blockCount);
  const shortDataLen = Math.floor(totalCodewords / blockCount) - ecLen;

  const blocks = [];
  let offset = 0;
  for (let b = 0; b < blockCount; b++) {
    const len = shortDataLen + (b < shortCount ? 0 : 1);
    const chunk = data.subarray(offset, offset + len);
    offset += len;
    blocks.push({ data: chunk, ec: reedSolomon(chunk, ecLen) });
  }

  const out = new Uint8Array(totalCodewords);
  let n = 0;
  for (let i = 0; i <= shortDataLen; i++) {
    for (const block of blocks) if (i < block.data.length) out[n++] = block.data[i];
  }
  for (let i = 0; i < ecLen; i++) {
    for (const block of blocks) out[n++] = block.ec[i];
  }
  return out;
}

// Total codewords of a version, counted from its actual layout rather than a
// third table; cached since the count is the same for every level.
const totalCodewordCache = new Map();
function totalCodewords(version) {
  let total = totalCodewordCache.get(version);
  if (total === undefined) {
    total = Math.floor(new Matrix(version).dataModuleCount() / 8);
    totalCodewordCache.set(version, total);
  }
  return total;
}

const dataCodewords = (version, level) =>
  totalCodewords(version) - BLOCKS[level][version - 1] * EC_PER_BLOCK[level][version - 1];

// Byte mode's character count field is 8 bits up to version 9, 16 after.
const countBits = (version) => (version <= 9 ? 8 : 16);

// Mode indicator, count, bytes, terminator and pad codewords (section 7.4).
function dataStream(bytes, version, capacity) {
  const out = new Uint8Array(capacity);
  let bitPos = 0;
  const put = (value, bits) => {
    for (let b = bits - 1; b >= 0; b--) {
      if ((value >>> b) & 1) out[bitPos >>> 3] |= 0x80 >>> (bitPos & 7);
      bitPos++;
    }
  };
  put(0b0100, 4);
  put(bytes.length, countBits(version));
  for (const byte of bytes) put(byte, 8);
  // The terminator (up to four 0 bits) and the padding to a byte boundary are
  // already zero in the buffer, so just skip past them.
  bitPos = Math.min(bitPos + 4, capacity * 8);
  let n = Math.ceil(bitPos / 8);
  for (let pad = 0xec; n < capacity; n++, pad ^= 0xec ^ 0x11) out[n] = pad;
  return out;
}

/**
 * Encodes text as a QR code in byte mode (UTF-8), using the smallest version
 * that fits at the given error correction level.
 * @param {string} text
 * @param {{ecc?: 'L'|'M'|'Q'|'H'}} [options]
 * @returns {{size: number, version: number, modules: Uint8Array}} modules is
 *   row-major, size*size, 1 = dark; the quiet zone is not included.
 */
export function encodeQR(text, { ecc = 'M' } = {}) {
  const level = String(ecc).toUpperCase();
  if (!(level in LEVEL_BITS)) throw new Error(`Unknown QR error correction level "${ecc}" (use L, M, Q or H).`);
  const bytes = new TextEncoder().encode(String(text));

  let version = 1;
  for (; version <= 40; version++) {
    if (4 + countBits(version) + bytes.length * 8 <= dataCodewords(version, level) * 8) break;
  }
  if (version > 40) {
    const max = Math.floor((dataCodewords(40, level) * 8 - 4 - 16) / 8);
    throw new Error(`Text is too long for a QR code: ${bytes.length} bytes of UTF-8, `
      + `but at most ${max} fit at error correction level ${level}.`);
  }

  const data = dataStream(bytes, version, dataCodewords(version, level));
  const codewords = interleave(data, version, level, totalCodewords(version));
  const matrix = new Matrix(version);
  matrix.drawData(codewords);

  // Try every mask and keep the lowest penalty (first one wins ties).
  const unmasked = matrix.dark.slice();
  let best = null;
  let bestScore = Infinity;
  for (let mask = 0; mask < 8; mask++) {
    matrix.dark.set(unmasked);
    applyMask(matrix, mask);
    matrix.drawFormat(formatBits(level, mask));
    const score = penalty(matrix);
    if (score < bestScore) {
      bestScore = score;
      best = matrix.dark.slice();
    }
  }
  return { size: matrix.size, version, modules: best };
}

/**
 * Draws text as a QR code on a canvas, sizing the canvas to fit the symbol and
 * its quiet zone, and labels the canvas for assistive technology.
 * @param {HTMLCanvasElement} canvas
 * @param {string} text
 * @param {{ecc?: string, moduleSize?: number, margin?: number, dark?: string, light?: string}} [options]
 *   moduleSize is in canvas pixels; margin is the quiet zone in modules (the standard asks for 4).
 * @returns the encodeQR result.
 */
export function drawQR(canvas, text, {
  ecc = 'M', moduleSize = 4, margin = 4, dark = '#000', light = '#fff',
} = {}) {
  const qr = encodeQR(text, { ecc });
  const { size, modules } = qr;
  const px = (size + margin * 2) * moduleSize;
  canvas.width = px;
  canvas.height = px;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `QR code of ${text}`);

  const ctx = canvas.getContext('2d');
  ctx.fillStyle = light;
  ctx.fillRect(0, 0, px, px);
  ctx.fillStyle = dark;
  // One rectangle per horizontal run of dark modules: fewer calls, and no
  // anti-aliased seams between neighbouring modules.
  for (let y = 0; y < size; y++) {
    let x = 0;
    while (x < size) {
      if (!modules[y * size + x]) { x++; continue; }
      const start = x;
      while (x < size && modules[y * size + x]) x++;
      ctx.fillRect((margin + start) * moduleSize, (margin + y) * moduleSize,
        (x - start) * moduleSize, moduleSize);
    }
  }
  return qr;
}
