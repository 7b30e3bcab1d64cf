// A molecule's sequence as Explore's sequence strip shows it, read from the identify table
// (identify.json: the same residues the 3D model's feature ids count, so what the strip selects is
// what the model draws): one row per protein or nucleic acid chain in one-letter code, with the
// engine's DSSP letter per residue; the ligands and ions apart (a chip each, or one per kind when
// there are many); the waters only counted. Words for the strip are here too.
import { SECONDARY, readable, residueName } from './identify.js';

const ONE_LETTER = {
  ALA: 'A', ARG: 'R', ASN: 'N', ASP: 'D', CYS: 'C', GLN: 'Q', GLU: 'E', GLY: 'G', HIS: 'H', ILE: 'I',
  LEU: 'L', LYS: 'K', MET: 'M', PHE: 'F', PRO: 'P', SER: 'S', THR: 'T', TRP: 'W', TYR: 'Y', VAL: 'V',
  MSE: 'M', SEC: 'U', PYL: 'O', ASX: 'B', GLX: 'Z', HSD: 'H', HSE: 'H', HSP: 'H', HID: 'H', HIE: 'H', HIP: 'H',
  CYX: 'C', CYM: 'C', LYN: 'K', ASH: 'D', GLH: 'E',
};
const NUCLEOTIDE_LETTERS = new Set(['A', 'C', 'G', 'T', 'U', 'I']);

// More ligands than this get one chip per kind ("MG × 312") rather than one per copy.
export const CHIPS_PER_COPY = 60;

const POLYMER = new Set(['amino-acid', 'nucleotide']);

/**
 * The strip's contents.
 * @returns {{rows: {index: number, chain: string, kind: 'protein'|'nucleic', residues: number[]}[], ligands: number[],
 *   waters: number, rowOf: Int32Array, positionOf: Int32Array}} residues are indices into
 *   `table.residues`; rowOf and positionOf place a residue in its row (-1 off the rows)
 */
export function sequenceOf(table) {
  const { chain, kind } = table.residues;
  const count = kind.length;
  const rowOf = new Int32Array(count).fill(-1);
  const positionOf = new Int32Array(count).fill(-1);
  const byChain = new Map();
  const rows = [];
  const ligands = [];
  let waters = 0;
  for (let r = 0; r < count; r++) {
    if (kind[r] === 'water') { waters++; continue; }
    if (!POLYMER.has(kind[r])) { ligands.push(r); continue; }
    let row = byChain.get(chain[r]);
    if (!row) {
      row = { index: rows.length, chain: chain[r], residues: [], nucleotides: 0 };
      byChain.set(chain[r], row);
      rows.push(row);
    }
    rowOf[r] = row.index;
    positionOf[r] = row.residues.length;
    row.residues.push(r);
    if (kind[r] === 'nucleotide') row.nucleotides++;
  }
  for (const row of rows) {
    row.kind = row.nucleotides * 2 > row.residues.length ? 'nucleic' : 'protein';
    delete row.nucleotides;
  }
  return { rows, ligands, waters, rowOf, positionOf };
}

/** Residue `r` in one letter: "R" for ARG, "A" for DA; X (or N) for what has none. */
export function letterOf(table, r) {
  const name = table.residues.name[r];
  if (table.residues.kind[r] === 'nucleotide') {
    const last = name.slice(-1);
    return NUCLEOTIDE_LETTERS.has(last) ? last : 'N';
  }
  return ONE_LETTER[name] ?? 'X';
}

/** "88" or "52A". */
export function numberOf(table, r) {
  return `${table.residues.number[r]}${table.residues.insertion[r] ?? ''}`;
}

/** "Arg 88". */
export function shortName(table, r) {
  return `${residueName(table.residues.name[r], table.residues.kind[r])} ${numberOf(table, r)}`;
}

/** "Arg 88, chain A, α-helix": a residue's accessible name. */
export function residueLabel(table, r) {
  const words = [shortName(table, r), `chain ${table.residues.chain[r]}`];
  if (table.residues.kind[r] === 'amino-acid') words.push(SECONDARY[table.residues.secondary[r]] ?? 'coil');
  return words.join(', ');
}

/** The shape of the secondary-structure track under residue `r`: 'helix', 'strand' or '' (coil). */
export function shapeOf(table, r) {
  if (table.residues.kind[r] !== 'amino-acid') return '';
  const code = table.residues.secondary[r];
  return code === 'H' || code === 'G' || code === 'I' ? 'helix' : code === 'E' || code === 'B' ? 'strand' : '';
}

/** Whether a row shows the number above residue `r`, at `position`: tens, and where the row (or a stretch after a gap) starts. */
export function numbered(table, r, position, afterGap) {
  const n = table.residues.number[r];
  if (table.residues.insertion[r]) return false;
  if (n % 10 === 0) return true;
  // A start that a ten follows at once would crowd it.
  return (position === 0 || afterGap) && ((n % 10) + 10) % 10 < 8;
}

/** Whether the file skips numbers between residues `a` and `b` of one chain (unmodelled residues). */
export function gapBetween(table, a, b) {
  return table.residues.number[b] - table.residues.number[a] > 1;
}

/**
 * The ligand chips: one per copy, or one per kind when there are more than CHIPS_PER_COPY copies.
 * @returns {{residues: number[], text: string, label: string}[]}
 */
export function ligandChips(table, ligands) {
  const full = (name) => (table.components?.[name] ? `, ${readable(table.components[name])}` : '');
  const { name, chain } = table.residues;
  if (ligands.length <= CHIPS_PER_COPY) {
    return ligands.map((r) => ({
      residues: [r], text: `${name[r]} ${numberOf(table, r)} · ${chain[r]}`,
      label: `${name[r]} ${numberOf(table, r)}, chain ${chain[r]}${full(name[r])}`,
    }));
  }
  const kinds = new Map();
  for (const r of ligands) {
    if (!kinds.has(name[r])) kinds.set(name[r], []);
    kinds.get(name[r]).push(r);
  }
  return [...kinds].map(([kind, residues]) => ({
    residues, text: `${kind} × ${residues.length}`,
    label: `${kind}, ${residues.length} ${residues.length === 1 ? 'copy' : 'copies'}${full(kind)}`,
  }));
}

/** The selection in words: "Arg 88, chain A, α-helix", "Ile 4 to Gly 10, chain A: 7 residues", "12 residues in chains A and B". */
export function selectionWords(table, sequence, residues) {
  const chosen = [...residues].sort((a, b) => a - b);
  if (chosen.length === 0) return '';
  if (chosen.length === 1) {
    const r = chosen[0];
    return sequence.rowOf[r] >= 0 ? residueLabel(table, r) : `${table.residues.name[r]} ${numberOf(table, r)}, chain ${table.residues.chain[r]}`;
  }
  const row = sequence.rowOf[chosen[0]];
  const positions = chosen.map((r) => sequence.positionOf[r]);
  const stretch = row >= 0 && chosen.every((r) => sequence.rowOf[r] === row)
    && positions.every((p, i) => i === 0 || p === positions[i - 1] + 1);
  if (stretch) {
    const first = chosen[0], last = chosen[chosen.length - 1];
    return `${shortName(table, first)} to ${shortName(table, last)}, chain ${table.residues.chain[first]}: ${chosen.length} residues`;
  }
  const chains = [...new Set(chosen.map((r) => table.residues.chain[r]))];
  const list = chains.length === 1 ? `chain ${chains[0]}` : `chains ${chains.slice(0, -1).join(', ')} and ${chains.at(-1)}`;
  return `${chosen.length} residues in ${list}`;
}
