// Notes pinned to a residue of the room's molecule ("A:45"): where that residue is in the room.
// The server keeps such a note as {chain, residue} and no position, and the molecule's model
// (GLB) carries no residue names, so the page reads the molecule's own file (mmCIF or PDB, from
// /api/molecules/{id}/file), takes the residue's Cα (or the middle of its atoms), and carries it
// into the room the way the server placed the model: centred over the origin, scaled so its
// longest side fits (MoleculeScene.place), then moved by the room's placement.
import { fetchWhenFree } from './api.js';
import { style as styleOf } from './model-options.js';

const WATER = new Set(['HOH', 'WAT', 'DOD', 'H2O']);
// Residue names as people write them ("Lys 45"), to find the chain when only the number is given.
const THREE_LETTER = /\b(Ala|Arg|Asn|Asp|Cys|Gln|Glu|Gly|His|Ile|Leu|Lys|Met|Phe|Pro|Ser|Thr|Trp|Tyr|Val)[ -]?(\d{1,5})\b/i;

const atomsByMolecule = new Map();  // moleculeID -> Promise of {residues, min, max}

/**
 * Reads a residue out of what a person typed: "A:45", "A 45", "B:Lys45", or "Lys 45" (any chain);
 * null when it names none.
 * @returns {{chain: string|null, number: number, name: string|null}|null}
 */
export function parseResidue(text) {
  const t = String(text ?? '').trim();
  let m = /(?:^|[\s(,;])([A-Za-z0-9]{1,4}):\s?(?:([A-Za-z]{3})\s?)?(-?\d{1,5})\b/.exec(` ${t}`);
  if (m) return { chain: m[1], number: Number(m[3]), name: m[2]?.toUpperCase() ?? null };
  m = /^([A-Za-z0-9]{1,4})\s+(-?\d{1,5})$/.exec(t);
  if (m && !THREE_LETTER.test(t)) return { chain: m[1], number: Number(m[2]), name: null };
  m = /^(-?\d{1,5})$/.exec(t);
  if (m) return { chain: null, number: Number(m[1]), name: null };
  m = THREE_LETTER.exec(t);
  if (m) return { chain: null, number: Number(m[2]), name: m[1].toUpperCase() };
  return null;
}

/** The residue's atoms for `moleculeID` (read once per page), or a rejection with a readable reason. */
export function moleculeAtoms(moleculeID) {
  if (!atomsByMolecule.has(moleculeID)) {
    const loading = fetchWhenFree(`/api/molecules/${encodeURIComponent(moleculeID)}/file`).then(async (response) => {
      if (!response.ok) throw new Error(`the molecule's file could not be read (HTTP ${response.status})`);
      const text = await response.text();
      const atoms = /^data_|_atom_site\./m.test(text) ? readMmCIF(text) : readPDB(text);
      if (atoms.residues.size === 0) throw new Error('the molecule\'s file has no atoms this page can read');
      return atoms;
    });
    loading.catch(() => atomsByMolecule.delete(moleculeID));  // a later note tries again
    atomsByMolecule.set(moleculeID, loading);
  }
  return atomsByMolecule.get(moleculeID);
}

/** Finds the residue a person named: the chain they gave, else the first chain with that number (and name). */
export function findResidue(atoms, { chain, number, name }) {
  if (chain) {
    const r = atoms.residues.get(`${chain}:${number}`) ?? atoms.residues.get(`${chain.toUpperCase()}:${number}`);
    return r && (!name || r.name === name) ? r : null;
  }
  for (const r of atoms.residues.values()) if (r.number === number && (!name || r.name === name)) return r;
  return null;
}

/**
 * Where a residue is in the room (metres).
 * @param {{residues: Map, min: number[], max: number[], trace: object}} atoms  from moleculeAtoms
 * @param {{min: number[], max: number[]}} modelBounds  the model's box as the GLB has it (before the placement)
 * @param {ArrayLike<number>} placement  the room's column-major placement of the model
 */
export function residuePoint(atoms, residue, modelBounds, placement, style = 'cartoon') {
  // How far the style's surface reaches past the atom centres (the model's box is that much bigger
  // on every side), and whether it is drawn along the trace (its box the trace's): from the engine.
  const { reachAngstroms: margin, followsTrace } = styleOf(style);
  const box = followsTrace && atoms.trace.min[0] <= atoms.trace.max[0] ? atoms.trace : atoms;
  const longestA = Math.max(...[0, 1, 2].map((i) => box.max[i] - box.min[i])) + 2 * margin;
  const longestM = Math.max(...[0, 1, 2].map((i) => modelBounds.max[i] - modelBounds.min[i]));
  const s = longestA > 0 ? longestM / longestA : 0;
  // Box middle onto box middle: the server centres the model's box, and the margin is the same on every side.
  const local = [0, 1, 2].map((i) => s * (residue.at[i] - (box.min[i] + box.max[i]) / 2) + (modelBounds.min[i] + modelBounds.max[i]) / 2);
  const m = placement;
  return [0, 1, 2].map((i) => Math.round((m[i] * local[0] + m[4 + i] * local[1] + m[8 + i] * local[2] + m[12 + i]) * 1e4) / 1e4);
}

// ---- Reading the files: only what a pin needs (first model, no water) ----

function collector() {
  const residues = new Map();
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  const trace = { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
  return {
    residues, min, max,
    add(chain, number, name, atom, x, y, z) {
      if (WATER.has(name) || ![x, y, z].every(Number.isFinite)) return;
      const p = [x, y, z];
      for (let i = 0; i < 3; i++) { min[i] = Math.min(min[i], p[i]); max[i] = Math.max(max[i], p[i]); }
      if (atom === 'CA' || atom === 'P') {
        for (let i = 0; i < 3; i++) { trace.min[i] = Math.min(trace.min[i], p[i]); trace.max[i] = Math.max(trace.max[i], p[i]); }
      }
      const key = `${chain}:${number}`;
      let r = residues.get(key);
      if (!r) residues.set(key, (r = { chain, number, name, sum: [0, 0, 0], count: 0, at: null }));
      for (let i = 0; i < 3; i++) r.sum[i] += p[i];
      r.count += 1;
      if (atom === 'CA' || (atom === "C4'" && !r.ca)) { r.at = p; r.ca = atom === 'CA'; }
    },
    done() {
      for (const r of residues.values()) r.at ??= r.sum.map((v) => v / r.count);
      return { residues, min, max, trace };
    },
  };
}

function readPDB(text) {
  const c = collector();
  for (const line of text.split('\n')) {
    if (line.startsWith('ENDMDL')) break;
    if (!line.startsWith('ATOM') && !line.startsWith('HETATM')) continue;
    c.add(line.slice(21, 22).trim() || 'A', Number(line.slice(22, 26)), line.slice(17, 20).trim(), line.slice(12, 16).trim(),
      Number(line.slice(30, 38)), Number(line.slice(38, 46)), Number(line.slice(46, 54)));
  }
  return c.done();
}

function readMmCIF(text) {
  const c = collector();
  const lines = text.split('\n');
  let i = lines.findIndex((l) => l.startsWith('_atom_site.'));
  if (i < 0) return c.done();
  const columns = [];
  for (; i < lines.length && lines[i].startsWith('_atom_site.'); i++) columns.push(lines[i].trim().slice('_atom_site.'.length));
  const col = (...names) => names.map((n) => columns.indexOf(n)).find((k) => k >= 0) ?? -1;
  const [chain, seq, comp, atom, x, y, z, model] = [col('auth_asym_id', 'label_asym_id'), col('auth_seq_id', 'label_seq_id'),
    col('auth_comp_id', 'label_comp_id'), col('auth_atom_id', 'label_atom_id'), col('Cartn_x'), col('Cartn_y'), col('Cartn_z'),
    col('pdbx_PDB_model_num')];
  let firstModel = null;
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('#') || line.startsWith('loop_') || line.startsWith('_')) break;
    const t = line.match(/'[^']*'|"[^"]*"|\S+/g);
    if (!t || t.length < columns.length) continue;
    if (model >= 0) {
      firstModel ??= t[model];
      if (t[model] !== firstModel) break;
    }
    const unquote = (v) => v.replace(/^['"]|['"]$/g, '');
    c.add(t[chain], Number(t[seq]), t[comp], unquote(t[atom]), Number(t[x]), Number(t[y]), Number(t[z]));
  }
  return c.done();
}
