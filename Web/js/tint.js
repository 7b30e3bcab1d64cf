// Highlighting on the client: chosen residues keep their colours and the rest of the model is
// dimmed as the server's own highlight dims it (each linear channel c → c × 0.25 + 0.55), by
// rewriting the vertex colours of the model already shown, on the GPU: no new model is asked for.
// A vertex's residue comes from its feature id (the GLB's atom index) and identify.json's atoms.
// Each primitive's colours as they came are kept, so an empty choice restores them; the tint is
// written into the parsed model's arrays too, so a re-upload (a lost and restored GL context) keeps it.
// The coarse model drawn while the view moves is tinted with the full one.
import { NO_FEATURE } from './glb.js';

const DIM_SCALE = 0.25;
const DIM_LIFT = 0.55;

const originals = new WeakMap();  // primitive → its colours as parsed

/**
 * Dims all but `residues` (indices into `table.residues`) in what `viewer` shows; an empty set or
 * null shows the model's own colours again. Call it again after the viewer gets a new model.
 * @param {object} viewer a MoleculeViewer
 * @param {{atoms: {residue: number[]}}} table the molecule's identify table
 * @param {Set<number>|null} residues
 */
export function tintResidues(viewer, table, residues) {
  if (!viewer) return;
  const lit = residues?.size && table ? litAtoms(table, residues) : null;
  paint(viewer.gl, viewer.model, viewer._gpu, lit);
  paint(viewer.gl, viewer._coarseModel, viewer._coarse, lit);
  viewer.requestRender();
}

// 1 for each atom of a chosen residue.
function litAtoms(table, residues) {
  const owner = table.atoms.residue;
  const lit = new Uint8Array(owner.length);
  for (let a = 0; a < owner.length; a++) if (residues.has(owner[a])) lit[a] = 1;
  return lit;
}

// Rewrites the colours of `model`'s primitives, and of their uploads (gl.js's uploadMeshes).
function paint(gl, model, uploads, lit) {
  if (!model) return;
  const live = gl && !gl.isContextLost();
  for (const entry of uploads ?? []) {
    const mesh = model.meshes[entry.mesh];
    if (!mesh) continue;
    mesh.primitives.forEach((primitive, i) => {
      const colors = tinted(primitive, lit);
      const buffer = entry.primitives[i]?.buffers[2];
      if (!colors || !buffer || !live) return;
      gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, colors);
    });
  }
  if (live) gl.bindBuffer(gl.ARRAY_BUFFER, null);
}

// The primitive's colours with `lit` applied (written into its own array), or null when nothing changes.
function tinted(primitive, lit) {
  const colors = primitive.colors;
  let base = originals.get(primitive);
  if (!lit) {
    if (!base) return null;  // never tinted: its colours are its own
    colors.set(base);
    originals.delete(primitive);
    return colors;
  }
  if (!base) {
    base = colors.slice();
    originals.set(primitive, base);
  }
  const features = primitive.features;
  for (let v = 0; v < primitive.vertexCount; v++) {
    const f = features ? features[v] : NO_FEATURE;
    const k = 4 * v;
    if (f !== NO_FEATURE && lit[f] === 1) {
      colors[k] = base[k]; colors[k + 1] = base[k + 1]; colors[k + 2] = base[k + 2];
    } else {
      colors[k] = base[k] * DIM_SCALE + DIM_LIFT;
      colors[k + 1] = base[k + 1] * DIM_SCALE + DIM_LIFT;
      colors[k + 2] = base[k + 2] * DIM_SCALE + DIM_LIFT;
    }
    colors[k + 3] = base[k + 3];
  }
  return colors;
}
