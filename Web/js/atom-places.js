// Where the model shown draws the identify table's atoms. The GLB's vertices are not in Å: the
// server centres and scales the molecule (30 cm across) and quantises the positions, folding both
// into the node's matrix, and an assembly's copy is turned besides. What ties the two is the feature
// ids: each vertex names the atom it draws. The middle of an atom's vertices is near the atom (a
// sphere's middle is its centre; half-bonds pull it a little their way, in every direction at once),
// so the affine map from the table's coordinates (Å) to those middles, fitted over every atom drawn
// by least squares, places each atom, all but exactly, in the viewer's model coordinates.

const fits = new WeakMap();  // model → its map for one table ({table, map})

/**
 * The map from `table`'s coordinates (identify.json, Å) to `model`'s (the viewer's model
 * coordinates, as drawn by its first node), or null when the model draws too few atoms to tell.
 * @returns {{place: (xyz: number[]) => number[], unit: number}|null} place maps a point; unit is how
 *   long one Å is in the model
 */
export function atomPlaces(model, table) {
  const known = fits.get(model);
  if (known?.table === table) return known.map;
  const map = fit(model, table);
  fits.set(model, { table, map });
  return map;
}

function fit(model, table) {
  const node = model?.nodes[0];
  const mesh = node && model.meshes[node.mesh];
  const count = table.atoms.name.length;
  if (!mesh) return null;
  const M = node.matrix;
  const sums = new Float64Array(count * 3), seen = new Uint32Array(count);
  for (const p of mesh.primitives) {
    if (!p.features) continue;
    const P = p.positions, F = p.features;
    for (let i = 0; i < p.vertexCount; i++) {
      const f = F[i];
      if (f >= count) continue;
      const x = P[3 * i], y = P[3 * i + 1], z = P[3 * i + 2];
      sums[3 * f] += M[0] * x + M[4] * y + M[8] * z + M[12];
      sums[3 * f + 1] += M[1] * x + M[5] * y + M[9] * z + M[13];
      sums[3 * f + 2] += M[2] * x + M[6] * y + M[10] * z + M[14];
      seen[f]++;
    }
  }
  // Centred sums: the means of both sides, then A = (Σ dc dxᵀ)(Σ dx dxᵀ)⁻¹ and t = c̄ − A x̄.
  const xyz = table.atoms.xyz;
  const atoms = [];
  for (let f = 0; f < count; f++) if (seen[f]) atoms.push(f);
  if (atoms.length < 4) return null;
  const mx = [0, 0, 0], mc = [0, 0, 0];
  for (const f of atoms) {
    for (let k = 0; k < 3; k++) { mx[k] += xyz[3 * f + k]; mc[k] += sums[3 * f + k] / seen[f]; }
  }
  for (let k = 0; k < 3; k++) { mx[k] /= atoms.length; mc[k] /= atoms.length; }
  const XX = [[0, 0, 0], [0, 0, 0], [0, 0, 0]], CX = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
  for (const f of atoms) {
    const dx = [0, 1, 2].map((k) => xyz[3 * f + k] - mx[k]);
    const dc = [0, 1, 2].map((k) => sums[3 * f + k] / seen[f] - mc[k]);
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) { XX[r][c] += dx[r] * dx[c]; CX[r][c] += dc[r] * dx[c]; }
    }
  }
  const inverse = invert3(XX);
  if (!inverse) return null;  // the atoms drawn lie on a plane or a line: no way to tell the map
  const A = CX.map((row) => [0, 1, 2].map((c) => row[0] * inverse[0][c] + row[1] * inverse[1][c] + row[2] * inverse[2][c]));
  const t = [0, 1, 2].map((r) => mc[r] - (A[r][0] * mx[0] + A[r][1] * mx[1] + A[r][2] * mx[2]));
  const unit = Math.cbrt(Math.abs(determinant(A)));
  return { place: (p) => [0, 1, 2].map((r) => A[r][0] * p[0] + A[r][1] * p[1] + A[r][2] * p[2] + t[r]), unit };
}

function determinant(m) {
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
    - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
    + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

function invert3(m) {
  const d = determinant(m);
  const scale = Math.max(...m.flat().map(Math.abs));
  if (!(Math.abs(d) > 1e-9 * scale ** 3)) return null;
  const c = (r0, c0, r1, c1) => m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
  return [
    [c(1, 1, 2, 2) / d, -c(0, 1, 2, 2) / d, c(0, 1, 1, 2) / d],
    [-c(1, 0, 2, 2) / d, c(0, 0, 2, 2) / d, -c(0, 0, 1, 2) / d],
    [c(1, 0, 2, 1) / d, -c(0, 0, 2, 1) / d, c(0, 0, 1, 1) / d],
  ];
}
