// A residue's neighbours: every residue with an atom within 5 Å of one of its atoms, found in the
// identify table's coordinates (identify.json's atoms.xyz, in Å), as the selection that names them
// ("A:86,A:88-90,B:5"). Identify's Neighbours action draws them as sticks (the model's `sticks`).

export const NEIGHBOUR_DISTANCE = 5;  // Å

/** The residues (indices into table.residues) within `distance` Å of residue `residue`, itself included. */
export function neighbourResidues(table, residue, distance = NEIGHBOUR_DISTANCE) {
  const { residue: owner, xyz } = table.atoms;
  const mine = [];
  for (let a = 0; a < owner.length; a++) if (owner[a] === residue) mine.push(a);
  const near = new Set([residue]);
  const d2 = distance * distance;
  for (let a = 0; a < owner.length; a++) {
    if (near.has(owner[a]) || table.residues.kind[owner[a]] === 'water') continue;
    const x = xyz[3 * a], y = xyz[3 * a + 1], z = xyz[3 * a + 2];
    for (const b of mine) {
      const dx = x - xyz[3 * b], dy = y - xyz[3 * b + 1], dz = z - xyz[3 * b + 2];
      if (dx * dx + dy * dy + dz * dz <= d2) { near.add(owner[a]); break; }
    }
  }
  return [...near].sort((p, q) => p - q);
}

/** Residues (indices) as the selection language writes them, runs of one chain joined: "A:86-90,B:5". */
export function selectionOf(table, residues) {
  const { chain, number, insertion } = table.residues;
  const terms = [];
  let run = null;  // { chain, from, to, last } of consecutive numbers without insertion codes
  const flush = () => { if (run) terms.push(run.from === run.to ? `${run.chain}:${run.from}` : `${run.chain}:${run.from}-${run.to}`); run = null; };
  for (const r of residues) {
    if (insertion[r]) { flush(); terms.push(`${chain[r]}:${number[r]}${insertion[r]}`); continue; }
    if (run && run.chain === chain[r] && number[r] === run.to + 1) { run.to = number[r]; continue; }
    flush();
    run = { chain: chain[r], from: number[r], to: number[r] };
  }
  flush();
  return terms.join(',');
}
