// What a tapped atom is, in words: the server's identify table (GET /api/molecules/{id}/identify.json,
// the atoms the model's feature ids count) read once per molecule, then every tap is answered here,
// offline too once the table is kept (the service worker keeps it with the molecule's models).
import { getJSON } from './api.js';

export const SECONDARY = {
  H: 'α-helix', G: '3₁₀-helix', I: 'π-helix', E: 'β-strand', B: 'β-bridge',
  T: 'turn', S: 'bend', P: 'polyproline helix', '-': 'coil',
};

/** The styles that draw atoms (a tap names the atom itself; Measure works there). */
export const ATOMIC_STYLES = new Set(['ball-and-stick', 'sticks', 'spacefill']);

const tables = new Map();  // molecule id → Promise of its table

/** The identify table of molecule `id` (fetched once, waiting out a busy server as every API read
 * does; a failed fetch is tried again next time). */
export function identifyTable(id) {
  if (!tables.has(id)) {
    const loading = getJSON(`/api/molecules/${encodeURIComponent(id)}/identify.json`);
    loading.catch(() => tables.delete(id));
    tables.set(id, loading);
  }
  return tables.get(id);
}

// "ARG" → "Arg"; ligands and nucleotides keep their codes ("AP5", "DA").
export function residueName(name, kind) {
  return kind === 'amino-acid' && name.length === 3 ? name[0] + name.slice(1).toLowerCase() : name;
}

// "BIS(ADENOSINE)-5'-PENTAPHOSPHATE" as the dictionary writes it → "bis(adenosine)-5′-pentaphosphate".
export function readable(name) {
  return (name === name.toUpperCase() ? name.toLowerCase() : name).replace(/'/g, '′');
}

/**
 * Atom `atom` of `table` in words.
 * @returns {{residue: string, where: string[], atom: string, text: string, selection: string}}
 *   `residue` "Arg 88"; `where` its chain and secondary structure (or a ligand's full name);
 *   `atom` "NH1 · N · B 23.4"; `text` the whole line for a screen reader; `selection` "A:88"
 *   (the highlight that names the residue)
 */
export function describe(table, atom, { atomic }) {
  const atoms = table.atoms, residues = table.residues;
  const r = atoms.residue[atom];
  const kind = residues.kind[r];
  const number = `${residues.number[r]}${residues.insertion[r] ?? ''}`;
  const chain = residues.chain[r];
  const name = residues.name[r];
  const residue = kind === 'water' ? `Water ${number}` : `${residueName(name, kind)} ${number}`;
  const where = [];
  if (kind === 'other' && table.components?.[name]) where.push(readable(table.components[name]));
  where.push(`chain ${chain}`);
  if (kind === 'amino-acid') where.push(SECONDARY[residues.secondary[r]] ?? 'coil');
  const element = atoms.element[atom];
  const atomWords = `${atoms.name[atom]} · ${element} · B ${Number(atoms.bFactor[atom]).toFixed(1)}`;
  const line = [residue, ...where].join(' · ');
  return {
    residue, where, atom: atomic ? atomWords : '',
    text: atomic ? `${line}; atom ${atomWords}` : line,
    selection: `${chain}:${number}`,
  };
}
