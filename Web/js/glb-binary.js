// The binary layer of a .glb file, for glb.js: its chunks (the JSON and the binary buffer), the
// buffers they describe, and the typed arrays its accessors read from them, checked so a damaged
// or unsupported file is said so in words rather than drawn wrong.

import { decodeGltfBuffer } from './meshopt-decode.js';

const GLB_MAGIC = 0x46546c67; // 'glTF' read as a little-endian uint32
const CHUNK_JSON = 0x4e4f534a; // 'JSON'
const CHUNK_BIN = 0x004e4942; // 'BIN\0'

// Accessor component types.
const BYTE = 5120;
export const UNSIGNED_BYTE = 5121;
const SHORT = 5122;
export const UNSIGNED_SHORT = 5123;
export const UNSIGNED_INT = 5125;
export const FLOAT = 5126;

const TYPED_ARRAYS = {
  [BYTE]: Int8Array,
  [UNSIGNED_BYTE]: Uint8Array,
  [SHORT]: Int16Array,
  [UNSIGNED_SHORT]: Uint16Array,
  [UNSIGNED_INT]: Uint32Array,
  [FLOAT]: Float32Array
};

const COMPONENT_COUNTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };

// Compression extensions change how buffers must be decoded; we cannot fake them.
const UNSUPPORTED_REQUIRED = new Set(['KHR_draco_mesh_compression', 'KHR_meshopt_compression']);

// --- Container -------------------------------------------------------------

/** The JSON chunk (parsed) and the binary chunk (bytes, or null) of a whole .glb file. */
export function readContainer(bytes) {
  if (bytes.byteLength < 12) {
    throw new Error(`Not a GLB model: the file is only ${bytes.byteLength} bytes long.`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== GLB_MAGIC) {
    throw new Error(`Not a GLB model: expected the file to start with "glTF" but it starts with ${describeStart(bytes)}.`);
  }
  const version = view.getUint32(4, true);
  if (version !== 2) {
    throw new Error(`Unsupported GLB version ${version}: only glTF 2.0 binary files can be shown.`);
  }
  const declaredLength = view.getUint32(8, true);
  if (declaredLength > bytes.byteLength) {
    throw new Error(`The GLB model is truncated: its header says ${declaredLength} bytes but only ${bytes.byteLength} arrived.`);
  }

  let json = null;
  let bin = null;
  let offset = 12;
  let chunkIndex = 0;
  while (offset < declaredLength) {
    if (offset + 8 > declaredLength) {
      throw new Error('The GLB model is damaged: a chunk header runs past the end of the file.');
    }
    const chunkLength = view.getUint32(offset, true);
    const chunkType = view.getUint32(offset + 4, true);
    const start = offset + 8;
    const end = start + chunkLength;
    if (end > declaredLength) {
      throw new Error('The GLB model is damaged: a chunk runs past the end of the file.');
    }
    if (chunkIndex === 0 && chunkType !== CHUNK_JSON) {
      throw new Error(`The GLB model is damaged: its first chunk must be JSON but has type 0x${chunkType.toString(16)}.`);
    }
    if (chunkType === CHUNK_JSON) {
      if (chunkIndex !== 0) throw new Error('The GLB model is damaged: it has more than one JSON chunk.');
      json = decodeJSON(bytes.subarray(start, end));
    } else if (chunkType === CHUNK_BIN) {
      if (chunkIndex !== 1) throw new Error('The GLB model is damaged: its binary chunk is not the second chunk.');
      bin = bytes.subarray(start, end);
    }
    // Any other chunk type is an extension's; the spec says to skip it.
    offset = end;
    chunkIndex++;
  }
  if (!json) throw new Error('The GLB model is damaged: it has no JSON chunk.');
  return { json, bin };
}

function describeStart(bytes) {
  const head = Array.from(bytes.subarray(0, 4), (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
  if (head.startsWith('{')) return `"${head}" (this looks like a .gltf JSON file, not a binary .glb)`;
  if (head.startsWith('<')) return `"${head}" (this looks like an HTML or XML page)`;
  return `"${head}"`;
}

function decodeJSON(chunk) {
  // Writers pad the JSON chunk with spaces; some use NULs, which JSON.parse rejects.
  let end = chunk.byteLength;
  while (end > 0 && (chunk[end - 1] === 0 || chunk[end - 1] === 0x20)) end--;
  const text = new TextDecoder('utf-8').decode(chunk.subarray(0, end));
  try {
    const json = JSON.parse(text);
    if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error('the top level is not an object');
    return json;
  } catch (error) {
    throw new Error(`The GLB model is damaged: its JSON chunk cannot be read (${error.message}).`);
  }
}

export function checkAsset(json) {
  const version = json.asset?.version;
  if (typeof version === 'string' && !version.startsWith('2.')) {
    throw new Error(`Unsupported glTF asset version ${version}: only glTF 2.0 can be shown.`);
  }
  for (const name of json.extensionsRequired ?? []) {
    if (UNSUPPORTED_REQUIRED.has(name)) {
      throw new Error(`This GLB model needs the ${name} extension, which this viewer does not support.`);
    }
  }
}

export function resolveBuffers(json, bin) {
  return (json.buffers ?? []).map((buffer, index) => {
    let data;
    // EXT_meshopt_compression: a fallback buffer holds no bytes; its views are decoded instead.
    if (buffer.uri === undefined && buffer.extensions?.EXT_meshopt_compression?.fallback) return null;
    if (buffer.uri === undefined) {
      if (index !== 0 || !bin) throw new Error(`The GLB model is damaged: buffer ${index} has no data.`);
      data = bin;
    } else if (typeof buffer.uri === 'string' && buffer.uri.startsWith('data:')) {
      data = decodeDataURI(buffer.uri, index);
    } else {
      throw new Error(`The GLB model refers to an external file (${buffer.uri}); only self-contained .glb files can be shown.`);
    }
    if (typeof buffer.byteLength === 'number' && data.byteLength < buffer.byteLength) {
      throw new Error(`The GLB model is damaged: buffer ${index} is shorter than declared.`);
    }
    return data;
  });
}

function decodeDataURI(uri, index) {
  const comma = uri.indexOf(',');
  if (comma < 0 || !uri.slice(0, comma).endsWith(';base64')) {
    throw new Error(`The GLB model is damaged: buffer ${index} has an unsupported data URI.`);
  }
  const binary = atob(uri.slice(comma + 1));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

// --- Accessors -------------------------------------------------------------

// Returns { array, components, componentType, normalized, count } where
// `array` is a tightly packed typed array of the accessor's component type.
// It may be a view into the file's memory: callers must not modify it.
export function readAccessor(ctx, index) {
  const cached = ctx.accessorCache.get(index);
  if (cached) return cached;
  const accessor = ctx.json.accessors?.[index];
  if (!accessor) throw new Error(`The GLB model is damaged: accessor ${index} does not exist.`);
  const Typed = TYPED_ARRAYS[accessor.componentType];
  const components = COMPONENT_COUNTS[accessor.type];
  const count = accessor.count;
  if (!Typed || !components || !Number.isInteger(count) || count < 0) {
    throw new Error(`The GLB model is damaged: accessor ${index} has an invalid type.`);
  }
  let array = accessor.bufferView === undefined
    ? new Typed(count * components)
    : readBufferView(ctx, accessor.bufferView, accessor.byteOffset ?? 0, Typed, components, count, index);
  if (accessor.sparse) array = applySparse(ctx, accessor, array, components, index);
  const result = { array, components, componentType: accessor.componentType, normalized: !!accessor.normalized, count };
  ctx.accessorCache.set(index, result);
  return result;
}

function bufferViewBytes(ctx, viewIndex, what) {
  const view = ctx.json.bufferViews?.[viewIndex];
  if (!view) throw new Error(`The GLB model is damaged: ${what} uses missing buffer view ${viewIndex}.`);
  const compressed = view.extensions?.EXT_meshopt_compression;
  if (compressed) return { bytes: decodedView(ctx, viewIndex, view, compressed), stride: view.byteStride ?? 0 };
  const buffer = ctx.buffers[view.buffer];
  if (!buffer) throw new Error(`The GLB model is damaged: buffer view ${viewIndex} uses missing buffer ${view.buffer}.`);
  const start = view.byteOffset ?? 0;
  const end = start + view.byteLength;
  if (!(end <= buffer.byteLength)) {
    throw new Error(`The GLB model is damaged: buffer view ${viewIndex} runs past the end of its buffer.`);
  }
  return { bytes: buffer.subarray(start, end), stride: view.byteStride ?? 0 };
}

// A view compressed with EXT_meshopt_compression, decoded once per file.
function decodedView(ctx, viewIndex, view, ext) {
  ctx.decodedViews ??= new Map();
  const cached = ctx.decodedViews.get(viewIndex);
  if (cached) return cached;
  const source = ctx.buffers[ext.buffer];
  const start = ext.byteOffset ?? 0;
  if (!source || !(start + ext.byteLength <= source.byteLength) || ext.count * ext.byteStride !== view.byteLength) {
    throw new Error(`The GLB model is damaged: compressed buffer view ${viewIndex} does not fit its buffer.`);
  }
  const target = new Uint8Array(view.byteLength);
  try {
    decodeGltfBuffer(target, ext.count, ext.byteStride, source.subarray(start, start + ext.byteLength), ext.mode, ext.filter);
  } catch (error) {
    throw new Error(`The GLB model is damaged: compressed buffer view ${viewIndex} cannot be decoded (${error.message}).`);
  }
  ctx.decodedViews.set(viewIndex, target);
  return target;
}

function readBufferView(ctx, viewIndex, byteOffset, Typed, components, count, accessorIndex) {
  const { bytes, stride: declaredStride } = bufferViewBytes(ctx, viewIndex, `accessor ${accessorIndex}`);
  const elementSize = Typed.BYTES_PER_ELEMENT * components;
  const stride = declaredStride || elementSize;
  if (count === 0) return new Typed(0);
  if (byteOffset + stride * (count - 1) + elementSize > bytes.byteLength) {
    throw new Error(`The GLB model is damaged: accessor ${accessorIndex} reads past the end of its buffer view.`);
  }
  const absolute = bytes.byteOffset + byteOffset;
  if (stride === elementSize && absolute % Typed.BYTES_PER_ELEMENT === 0) {
    return new Typed(bytes.buffer, absolute, count * components);
  }
  // Interleaved or misaligned: copy each element's bytes into a packed array.
  const out = new Typed(count * components);
  const outBytes = new Uint8Array(out.buffer);
  for (let i = 0; i < count; i++) {
    const from = byteOffset + i * stride;
    outBytes.set(bytes.subarray(from, from + elementSize), i * elementSize);
  }
  return out;
}

function applySparse(ctx, accessor, dense, components, accessorIndex) {
  const { count, indices, values } = accessor.sparse;
  const IndexTyped = TYPED_ARRAYS[indices.componentType];
  if (![UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT].includes(indices.componentType)) {
    throw new Error(`The GLB model is damaged: accessor ${accessorIndex} has invalid sparse indices.`);
  }
  const ValueTyped = dense.constructor;
  const where = readBufferView(ctx, indices.bufferView, indices.byteOffset ?? 0, IndexTyped, 1, count, accessorIndex);
  const what = readBufferView(ctx, values.bufferView, values.byteOffset ?? 0, ValueTyped, components, count, accessorIndex);
  const out = dense.slice(); // never write into the file's memory
  for (let i = 0; i < count; i++) {
    const target = where[i];
    if (target >= accessor.count) throw new Error(`The GLB model is damaged: accessor ${accessorIndex} has a sparse index out of range.`);
    for (let c = 0; c < components; c++) out[target * components + c] = what[i * components + c];
  }
  return out;
}

// Converts an accessor to floats, applying glTF's normalisation rules for
// integer components when the accessor is flagged `normalized`.
export function toFloat32(acc) {
  const src = acc.array;
  if (src instanceof Float32Array) return src;
  const out = new Float32Array(src.length);
  if (!acc.normalized) {
    for (let i = 0; i < src.length; i++) out[i] = src[i];
    return out;
  }
  switch (acc.componentType) {
    case BYTE:
      for (let i = 0; i < src.length; i++) out[i] = Math.max(src[i] / 127, -1);
      break;
    case UNSIGNED_BYTE:
      for (let i = 0; i < src.length; i++) out[i] = src[i] / 255;
      break;
    case SHORT:
      for (let i = 0; i < src.length; i++) out[i] = Math.max(src[i] / 32767, -1);
      break;
    case UNSIGNED_SHORT:
      for (let i = 0; i < src.length; i++) out[i] = src[i] / 65535;
      break;
    default:
      for (let i = 0; i < src.length; i++) out[i] = src[i];
  }
  return out;
}

