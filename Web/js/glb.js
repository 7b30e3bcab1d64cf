// Reads the binary glTF (.glb) models the server already exports for AR, so
// the browser can show the same file without a third-party 3D library. It
// covers what molecular models use: triangle meshes with per-vertex colours,
// node hierarchies, and many nodes reusing one mesh (symmetric assemblies
// such as virus capsids). Textures, skins, morph targets and animation are
// deliberately ignored. This is the model (meshes, nodes, bounds);
// glb-binary.js reads the file's chunks, buffers and accessors.

import {
  FLOAT, UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT, checkAsset, readAccessor, readContainer, resolveBuffers, toFloat32
} from './glb-binary.js';
import { mat4 } from './math.js';

const MODE_TRIANGLES = 4;

// Shown when a primitive has neither COLOR_0 nor a material colour (linear).
const LIGHT_GREY = [0.6, 0.6, 0.6, 1];

// Above this many instanced vertices the world bounds are taken from each
// instance's transformed local box instead of every vertex (looser, faster).
const EXACT_BOUNDS_VERTEX_LIMIT = 4_000_000;

/**
 * Parses a GLB file.
 * @param {ArrayBuffer|ArrayBufferView} arrayBuffer the whole .glb file
 * @returns {{meshes: Array, nodes: Array, bounds: object, warnings: string[]}}
 *   meshes[i] = { name, primitives: [{ positions, normals, colors, indices,
 *     vertexCount, baseColor, features }], min, max } with Float32Array positions and
 *     normals (xyz), Float32Array colors (linear rgba per vertex), indices a
 *     Uint8Array/Uint16Array/Uint32Array or null; min/max are the mesh's
 *     local bounding box. `meshes` keeps the file's mesh indices. `features`
 *     is what each vertex draws (EXT_mesh_features' first feature id set, the
 *     server's atom indices: identify.json counts them) as a Uint32Array with
 *     the null id as -1 >>> 0, or null when the file says nothing.
 *   nodes = [{ name, node, mesh, matrix }] one entry per drawn instance, with
 *     `matrix` the world transform (column-major Float32Array(16)).
 *   bounds = { min, max, center, radius, empty } world-space box over all
 *     instances; radius is half its diagonal.
 */
export function parseGLB(arrayBuffer) {
  const bytes = toBytes(arrayBuffer);
  const { json, bin } = readContainer(bytes);
  checkAsset(json);
  const ctx = {
    json,
    buffers: resolveBuffers(json, bin),
    accessorCache: new Map(),
    warnings: []
  };
  const meshes = (json.meshes ?? []).map((mesh, index) => readMesh(ctx, mesh, index));
  const nodes = readNodes(ctx, meshes);
  const bounds = computeBounds(meshes, nodes);
  return { meshes, nodes, bounds, warnings: ctx.warnings };
}

function toBytes(input) {
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError('parseGLB expects an ArrayBuffer with the contents of a .glb file.');
}

// --- Meshes ----------------------------------------------------------------

function readMesh(ctx, mesh, meshIndex) {
  const primitives = [];
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  (mesh.primitives ?? []).forEach((primitive, primitiveIndex) => {
    const label = `mesh ${meshIndex} primitive ${primitiveIndex}`;
    const mode = primitive.mode ?? MODE_TRIANGLES;
    if (mode !== MODE_TRIANGLES) {
      ctx.warnings.push(`Skipped ${label}: drawing mode ${mode} is not triangles.`);
      return;
    }
    const result = readPrimitive(ctx, primitive, label);
    if (!result) return;
    const p = result.positions;
    for (let i = 0; i < p.length; i += 3) {
      for (let c = 0; c < 3; c++) {
        const v = p[i + c];
        if (v < min[c]) min[c] = v;
        if (v > max[c]) max[c] = v;
      }
    }
    primitives.push(result);
  });
  return { name: mesh.name ?? `mesh ${meshIndex}`, primitives, min, max };
}

function readPrimitive(ctx, primitive, label) {
  const attributes = primitive.attributes ?? {};
  if (attributes.POSITION === undefined) {
    ctx.warnings.push(`Skipped ${label}: it has no POSITION attribute.`);
    return null;
  }
  const position = readAccessor(ctx, attributes.POSITION);
  if (position.components !== 3) throw new Error(`The GLB model is damaged: ${label} positions are not 3D vectors.`);
  const positions = toFloat32(position);
  const vertexCount = position.count;

  let indices = null;
  if (primitive.indices !== undefined) {
    const acc = readAccessor(ctx, primitive.indices);
    if (acc.components !== 1 || ![UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT].includes(acc.componentType)) {
      throw new Error(`The GLB model is damaged: ${label} has indices that are not unsigned integers.`);
    }
    indices = acc.array;
    let largest = 0;
    for (let i = 0; i < indices.length; i++) if (indices[i] > largest) largest = indices[i];
    if (indices.length > 0 && largest >= vertexCount) {
      throw new Error(`The GLB model is damaged: ${label} refers to vertex ${largest} but has only ${vertexCount}.`);
    }
  }

  let normals;
  if (attributes.NORMAL !== undefined) {
    const acc = readAccessor(ctx, attributes.NORMAL);
    if (acc.components !== 3 || acc.count !== vertexCount) {
      throw new Error(`The GLB model is damaged: ${label} normals do not match its positions.`);
    }
    normals = toFloat32(acc);
  } else {
    normals = computeNormals(positions, indices, vertexCount);
  }

  const material = primitive.material !== undefined ? ctx.json.materials?.[primitive.material] : undefined;
  const factor = material?.pbrMetallicRoughness?.baseColorFactor;
  const baseColor = Array.isArray(factor) && factor.length === 4 ? factor.map(Number) : null;

  // glTF multiplies COLOR_0 by the factor (default white); without COLOR_0
  // the factor alone colours the primitive, and with neither we use grey.
  const hasVertexColors = attributes.COLOR_0 !== undefined;
  const effectiveBase = baseColor ?? (hasVertexColors ? [1, 1, 1, 1] : LIGHT_GREY);
  const colors = hasVertexColors
    ? readColors(ctx, attributes.COLOR_0, vertexCount, effectiveBase, label)
    : fillColor(vertexCount, effectiveBase);

  const features = readFeatures(ctx, primitive, vertexCount, label);
  return { positions, normals, colors, indices, vertexCount, baseColor: effectiveBase, features };
}

// What each vertex draws: the EXT_mesh_features feature id attribute of the primitive's first set
// (unsigned bytes or shorts, or floats holding whole numbers), its null id as NO_FEATURE.
export const NO_FEATURE = 0xFFFFFFFF;
function readFeatures(ctx, primitive, vertexCount, label) {
  const set = primitive.extensions?.EXT_mesh_features?.featureIds?.[0];
  if (!set || !Number.isInteger(set.attribute)) return null;
  const index = primitive.attributes?.[`_FEATURE_ID_${set.attribute}`];
  if (index === undefined) return null;
  const acc = readAccessor(ctx, index);
  if (acc.components !== 1 || acc.count !== vertexCount || acc.normalized) {
    throw new Error(`The GLB model is damaged: ${label} feature ids do not match its positions.`);
  }
  const out = new Uint32Array(vertexCount);
  const src = acc.array;
  for (let i = 0; i < vertexCount; i++) out[i] = src[i] === set.nullFeatureId ? NO_FEATURE : src[i];
  return out;
}

// COLOR_0 as linear RGBA floats, multiplied by the material's base colour
// factor as glTF specifies.
function readColors(ctx, accessorIndex, vertexCount, factor, label) {
  const acc = readAccessor(ctx, accessorIndex);
  const n = acc.components;
  if ((n !== 3 && n !== 4) || acc.count !== vertexCount) {
    throw new Error(`The GLB model is damaged: ${label} COLOR_0 does not match its positions.`);
  }
  if (![FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT].includes(acc.componentType)) {
    throw new Error(`The GLB model is damaged: ${label} COLOR_0 has an unsupported component type.`);
  }
  // Integer colours are always normalised, even if a writer forgot the flag.
  const src = toFloat32({ ...acc, normalized: acc.componentType !== FLOAT });
  const out = new Float32Array(vertexCount * 4);
  const [fr, fg, fb, fa] = factor;
  for (let v = 0; v < vertexCount; v++) {
    out[v * 4] = src[v * n] * fr;
    out[v * 4 + 1] = src[v * n + 1] * fg;
    out[v * 4 + 2] = src[v * n + 2] * fb;
    out[v * 4 + 3] = (n === 4 ? src[v * n + 3] : 1) * fa;
  }
  return out;
}

function fillColor(vertexCount, rgba) {
  const out = new Float32Array(vertexCount * 4);
  for (let v = 0; v < vertexCount; v++) out.set(rgba, v * 4);
  return out;
}

// Area-weighted vertex normals: smooth where triangles share vertices, flat
// where they do not (as in most exported molecular surfaces and cartoons).
function computeNormals(positions, indices, vertexCount) {
  const normals = new Float32Array(vertexCount * 3);
  const triangleCount = Math.floor((indices ? indices.length : vertexCount) / 3);
  for (let t = 0; t < triangleCount; t++) {
    const a = indices ? indices[t * 3] : t * 3;
    const b = indices ? indices[t * 3 + 1] : t * 3 + 1;
    const c = indices ? indices[t * 3 + 2] : t * 3 + 2;
    const ax = positions[a * 3];
    const ay = positions[a * 3 + 1];
    const az = positions[a * 3 + 2];
    const e1x = positions[b * 3] - ax;
    const e1y = positions[b * 3 + 1] - ay;
    const e1z = positions[b * 3 + 2] - az;
    const e2x = positions[c * 3] - ax;
    const e2y = positions[c * 3 + 1] - ay;
    const e2z = positions[c * 3 + 2] - az;
    // Unnormalised cross product: its length is twice the triangle's area.
    const nx = e1y * e2z - e1z * e2y;
    const ny = e1z * e2x - e1x * e2z;
    const nz = e1x * e2y - e1y * e2x;
    normals[a * 3] += nx;
    normals[a * 3 + 1] += ny;
    normals[a * 3 + 2] += nz;
    normals[b * 3] += nx;
    normals[b * 3 + 1] += ny;
    normals[b * 3 + 2] += nz;
    normals[c * 3] += nx;
    normals[c * 3 + 1] += ny;
    normals[c * 3 + 2] += nz;
  }
  for (let v = 0; v < vertexCount; v++) {
    const x = normals[v * 3];
    const y = normals[v * 3 + 1];
    const z = normals[v * 3 + 2];
    const len = Math.hypot(x, y, z);
    if (len > 0) {
      normals[v * 3] = x / len;
      normals[v * 3 + 1] = y / len;
      normals[v * 3 + 2] = z / len;
    } else {
      normals[v * 3 + 2] = 1;
    }
  }
  return normals;
}

// --- Nodes -----------------------------------------------------------------

function localMatrix(node) {
  if (Array.isArray(node.matrix) && node.matrix.length === 16) return Float32Array.from(node.matrix);
  return mat4.fromTRS(new Float32Array(16), node.translation, node.rotation, node.scale);
}

function readNodes(ctx, meshes) {
  const { json } = ctx;
  const jsonNodes = json.nodes ?? [];
  let roots;
  if (Array.isArray(json.scenes) && json.scenes.length > 0) {
    roots = json.scenes[json.scene ?? 0]?.nodes ?? [];
  } else {
    const children = new Set();
    for (const node of jsonNodes) for (const child of node.children ?? []) children.add(child);
    roots = jsonNodes.map((_, i) => i).filter((i) => !children.has(i));
  }

  const instances = [];
  const visited = new Set();
  const stack = roots.map((index) => ({ index, parent: null }));
  stack.reverse(); // keep file order when popping
  while (stack.length > 0) {
    const { index, parent } = stack.pop();
    const node = jsonNodes[index];
    if (!node) throw new Error(`The GLB model is damaged: node ${index} does not exist.`);
    if (visited.has(index)) {
      ctx.warnings.push(`Node ${index} appears more than once in the scene tree; drawn only once.`);
      continue;
    }
    visited.add(index);
    const local = localMatrix(node);
    const world = parent ? mat4.multiply(new Float32Array(16), parent, local) : local;
    if (node.mesh !== undefined) {
      if (!meshes[node.mesh]) throw new Error(`The GLB model is damaged: node ${index} uses missing mesh ${node.mesh}.`);
      instances.push({ name: node.name ?? `node ${index}`, node: index, mesh: node.mesh, matrix: world });
    }
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ index: children[i], parent: world });
  }

  // A file with meshes but no scene graph still deserves a picture.
  if (instances.length === 0 && jsonNodes.length === 0) {
    meshes.forEach((mesh, i) => {
      if (mesh.primitives.length > 0) instances.push({ name: mesh.name, node: -1, mesh: i, matrix: mat4.create() });
    });
  }
  return instances;
}

// --- Bounds ----------------------------------------------------------------

function computeBounds(meshes, nodes) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const include = (x, y, z) => {
    if (x < min[0]) min[0] = x;
    if (y < min[1]) min[1] = y;
    if (z < min[2]) min[2] = z;
    if (x > max[0]) max[0] = x;
    if (y > max[1]) max[1] = y;
    if (z > max[2]) max[2] = z;
  };

  let instancedVertices = 0;
  for (const node of nodes) {
    for (const p of meshes[node.mesh].primitives) instancedVertices += p.vertexCount;
  }
  const exact = instancedVertices <= EXACT_BOUNDS_VERTEX_LIMIT;

  for (const node of nodes) {
    const mesh = meshes[node.mesh];
    if (mesh.primitives.length === 0) continue;
    const m = node.matrix;
    const transform = (x, y, z) => include(
      m[0] * x + m[4] * y + m[8] * z + m[12],
      m[1] * x + m[5] * y + m[9] * z + m[13],
      m[2] * x + m[6] * y + m[10] * z + m[14]
    );
    if (exact) {
      for (const primitive of mesh.primitives) {
        const p = primitive.positions;
        for (let i = 0; i < p.length; i += 3) transform(p[i], p[i + 1], p[i + 2]);
      }
    } else {
      for (let corner = 0; corner < 8; corner++) {
        transform(
          corner & 1 ? mesh.max[0] : mesh.min[0],
          corner & 2 ? mesh.max[1] : mesh.min[1],
          corner & 4 ? mesh.max[2] : mesh.min[2]
        );
      }
    }
  }

  const empty = !(min[0] <= max[0] && min[1] <= max[1] && min[2] <= max[2]);
  if (empty) return { min: [0, 0, 0], max: [0, 0, 0], center: [0, 0, 0], radius: 0, empty: true };
  const center = [0, 1, 2].map((c) => (min[c] + max[c]) / 2);
  const radius = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2;
  return { min, max, center, radius, empty: false };
}

/**
 * Several parsed models shown as one, each moved by its own column-major matrix: the builder's
 * pieces scattered over the view.
 * @param {{model: object, matrix: Float32Array}[]} parts
 */
export function combineModels(parts) {
  const meshes = [];
  const nodes = [];
  for (const { model, matrix } of parts) {
    const base = meshes.length;
    meshes.push(...model.meshes);
    for (const node of model.nodes) {
      nodes.push({ ...node, mesh: node.mesh + base, matrix: mat4.multiply(mat4.create(), matrix, node.matrix) });
    }
  }
  return { meshes, nodes, bounds: computeBounds(meshes, nodes), warnings: [] };
}
