#!/usr/bin/env python3
"""Derive Sources/ProteinDesign/SideChainGeometry.swift, the builder's side-chain internal
coordinates, from the ideal coordinates of the Chemical Component Dictionary (CCD) that
biotite ships in its wheel (the same source as derive-ccd-bonds.py).

    scripts/tools/derive-side-chain-geometry.py [--source WHEEL_OR_BCIF] [--biotite-version V] [--out SWIFT]

Each side-chain heavy atom is placed from three atoms placed before it (natural-extension
reference frame): its bond length, bond angle and dihedral are measured in the CCD's ideal
coordinates. A dihedral that is a side-chain torsion χ (or moves with one) is stored as an
offset from that χ, so the builder can turn it to a rotamer's value; a dihedral within a ring
or a planar group is stored as it is.

Hydrogens, which a design has only when asked for, are measured the same way from three heavy
atoms of their residue, named: the heavy atom they are bonded to (X), the first of X's heavy
neighbours in placement order (B), and either X's second heavy neighbour or B's first other one
(A). Their dihedral A–B–X–H then follows every χ, as B and A do. The amide H of a residue inside
the chain is not here: it depends on the residue before (the builder puts it on the bisector).
"""
import argparse, importlib.util, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
spec = importlib.util.spec_from_file_location("derive_ccd_bonds", os.path.join(HERE, "derive-ccd-bonds.py"))
ccd = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ccd)

# The side-chain tree: (atom, parent a, parent b, parent c, χ). The dihedral a–b–c–atom is χ
# itself when the atom defines it (IUPAC-IUB 1970), moves with χ when it hangs off the same bond
# (χ given, offset measured), or is fixed (χ 0: rings, planar groups). Backbone atoms and CB come
# from the backbone builder.
TREES = {
    "SER": [("OG", "N", "CA", "CB", 1)],
    "CYS": [("SG", "N", "CA", "CB", 1)],
    "THR": [("OG1", "N", "CA", "CB", 1), ("CG2", "N", "CA", "CB", 1)],
    "VAL": [("CG1", "N", "CA", "CB", 1), ("CG2", "N", "CA", "CB", 1)],
    "ILE": [("CG1", "N", "CA", "CB", 1), ("CG2", "N", "CA", "CB", 1), ("CD1", "CA", "CB", "CG1", 2)],
    "LEU": [("CG", "N", "CA", "CB", 1), ("CD1", "CA", "CB", "CG", 2), ("CD2", "CA", "CB", "CG", 2)],
    "ASP": [("CG", "N", "CA", "CB", 1), ("OD1", "CA", "CB", "CG", 2), ("OD2", "CA", "CB", "CG", 2)],
    "ASN": [("CG", "N", "CA", "CB", 1), ("OD1", "CA", "CB", "CG", 2), ("ND2", "CA", "CB", "CG", 2)],
    "GLU": [("CG", "N", "CA", "CB", 1), ("CD", "CA", "CB", "CG", 2), ("OE1", "CB", "CG", "CD", 3), ("OE2", "CB", "CG", "CD", 3)],
    "GLN": [("CG", "N", "CA", "CB", 1), ("CD", "CA", "CB", "CG", 2), ("OE1", "CB", "CG", "CD", 3), ("NE2", "CB", "CG", "CD", 3)],
    "MET": [("CG", "N", "CA", "CB", 1), ("SD", "CA", "CB", "CG", 2), ("CE", "CB", "CG", "SD", 3)],
    "LYS": [("CG", "N", "CA", "CB", 1), ("CD", "CA", "CB", "CG", 2), ("CE", "CB", "CG", "CD", 3), ("NZ", "CG", "CD", "CE", 4)],
    "ARG": [("CG", "N", "CA", "CB", 1), ("CD", "CA", "CB", "CG", 2), ("NE", "CB", "CG", "CD", 3), ("CZ", "CG", "CD", "NE", 4),
            ("NH1", "CD", "NE", "CZ", 0), ("NH2", "CD", "NE", "CZ", 0)],
    "PRO": [("CG", "N", "CA", "CB", 1), ("CD", "CA", "CB", "CG", 2)],
    "PHE": [("CG", "N", "CA", "CB", 1), ("CD1", "CA", "CB", "CG", 2), ("CD2", "CA", "CB", "CG", 2),
            ("CE1", "CB", "CG", "CD1", 0), ("CE2", "CB", "CG", "CD2", 0), ("CZ", "CG", "CD1", "CE1", 0)],
    "TYR": [("CG", "N", "CA", "CB", 1), ("CD1", "CA", "CB", "CG", 2), ("CD2", "CA", "CB", "CG", 2),
            ("CE1", "CB", "CG", "CD1", 0), ("CE2", "CB", "CG", "CD2", 0), ("CZ", "CG", "CD1", "CE1", 0),
            ("OH", "CD1", "CE1", "CZ", 0)],
    "TRP": [("CG", "N", "CA", "CB", 1), ("CD1", "CA", "CB", "CG", 2), ("CD2", "CA", "CB", "CG", 2),
            ("NE1", "CB", "CG", "CD1", 0), ("CE2", "CB", "CG", "CD2", 0), ("CE3", "CB", "CG", "CD2", 0),
            ("CZ2", "CG", "CD2", "CE2", 0), ("CZ3", "CG", "CD2", "CE3", 0), ("CH2", "CD2", "CE2", "CZ2", 0)],
    "HIS": [("CG", "N", "CA", "CB", 1), ("ND1", "CA", "CB", "CG", 2), ("CD2", "CA", "CB", "CG", 2),
            ("CE1", "CB", "CG", "ND1", 0), ("NE2", "CB", "CG", "CD2", 0)],
}
ONE_LETTER = {"ALA": "A", "ARG": "R", "ASN": "N", "ASP": "D", "CYS": "C", "GLN": "Q", "GLU": "E", "GLY": "G", "HIS": "H",
              "ILE": "I", "LEU": "L", "LYS": "K", "MET": "M", "PHE": "F", "PRO": "P", "SER": "S", "THR": "T", "TRP": "W",
              "TYR": "Y", "VAL": "V"}
BACKBONE = ["N", "CA", "C", "O", "CB"]
ELEMENTS = {"C": "carbon", "N": "nitrogen", "O": "oxygen", "S": "sulfur"}
# Hydrogens the builder leaves out: the carboxyl's (the chain ends in C=O, no OXT), and the
# protonation the CCD's neutral or charged forms carry that a protein at pH 7 lacks: aspartate
# and glutamate are charged, histidine is the neutral NE2-protonated tautomer (the commoner one).
NO_HYDROGEN = {"HXT", "ASP HD2", "GLU HE2", "HIS HD1"}


def sub(a, b): return [a[i] - b[i] for i in range(3)]
def dot(a, b): return sum(a[i] * b[i] for i in range(3))
def cross(a, b): return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
def norm(a): return math.sqrt(dot(a, a))


def angle(a, b, c):
    u, v = sub(a, b), sub(c, b)
    return math.degrees(math.acos(max(-1, min(1, dot(u, v) / (norm(u) * norm(v))))))


def dihedral(a, b, c, d):
    b1, b2, b3 = sub(b, a), sub(c, b), sub(d, c)
    n1, n2 = cross(b1, b2), cross(b2, b3)
    x = dot(n1, n2)
    y = dot(cross(n1, n2), [v / norm(b2) for v in b2])
    return math.degrees(math.atan2(y, x))


def wrap(degrees): return (degrees + 180) % 360 - 180


def hydrogen_lines(ideal, neighbours):
    """The Swift table of hydrogens, those on N left out (the builder places them)."""
    rest = []
    for comp in sorted(ONE_LETTER, key=lambda c: ONE_LETTER[c]):
        coords = ideal[comp]
        order = BACKBONE + [t[0] for t in TREES.get(comp, [])]
        heavy = lambda atom: sorted((n for n in neighbours[comp][atom] if coords[n][1] != "H" and n in order), key=order.index)
        entries = []
        for h, (p, element) in coords.items():
            (x,) = neighbours[comp][h] if element == "H" else (None,)
            if element != "H" or x == "N" or h in NO_HYDROGEN or f"{comp} {h}" in NO_HYDROGEN:
                continue
            b = heavy(x)[0]
            a = heavy(x)[1] if len(heavy(x)) > 1 else [n for n in heavy(b) if n != x][0]
            q = [coords[n][0] for n in (a, b, x)] + [p]
            bond, ang, tor = norm(sub(q[3], q[2])), angle(q[1], q[2], q[3]), dihedral(*q)
            if len(heavy(x)) == 2 and abs(abs(tor) - 90) > 75:
                # In a ring or planar group: on the outer bisector of the ring angle, in its plane
                # (the CCD's computed conformers place some of these a few degrees off, His's HD2
                # 20°).
                ang, tor = (360 - angle(q[1], q[2], q[0])) / 2, 180.0
            if (comp, h) == ("TYR", "HH"):
                # A phenol's H lies in the ring's plane (the CCD's conformer turns it 90° out).
                tor = 180.0
            entries.append(f'.init("{h}", on: "{x}", "{b}", "{a}", bond: {bond:.3f}, angle: {ang:.2f}, torsion: {tor:.2f})')
        rest += [f'        "{ONE_LETTER[comp]}": [  // {comp}'] + [f"            {e}," for e in entries] + ["        ],"]
    return ["    /// Per residue: its hydrogens except those on N (`Hydrogens.swift` places them), from",
            "    /// named heavy atoms of the residue. The chain ends in C=O; at pH 7 Asp and Glu are",
            "    /// charged, and His carries its H on NE2 (the commoner neutral tautomer).",
            "    static let hydrogens: [Character: [HydrogenAtom]] = ["] + rest + ["    ]", ""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", help="biotite wheel or components.bcif (default: pip download)")
    ap.add_argument("--biotite-version", default="1.6.0")
    ap.add_argument("--out", default=os.path.join(REPO, "Sources/ProteinDesign/SideChainGeometry.swift"))
    args = ap.parse_args()
    ccd.ensure_deps()
    blob, source_name = ccd.load_ccd_bcif(args.source, args.biotite_version)
    cols = next(ccd.bcif_columns(blob, "chem_comp_atom", {
        "comp_id", "atom_id", "type_symbol", "pdbx_model_Cartn_x_ideal", "pdbx_model_Cartn_y_ideal", "pdbx_model_Cartn_z_ideal"}))
    ideal = {}
    for k, comp in enumerate(cols["comp_id"]):
        if comp in ONE_LETTER:
            ideal.setdefault(comp, {})[cols["atom_id"][k]] = (
                [float(cols[f"pdbx_model_Cartn_{x}_ideal"][k]) for x in "xyz"], cols["type_symbol"][k])

    lines = [
        "// Generated by scripts/tools/derive-side-chain-geometry.py from the ideal coordinates of the",
        f"// Chemical Component Dictionary ({source_name}, components.bcif). Do not edit: run the script.",
        "",
        "extension SideChainGeometry {",
        "    /// Per residue (one-letter code): the side-chain heavy atoms beyond CB, in the CCD's order of",
        "    /// placement. Parents index the residue's atoms: 0 N, 1 CA, 2 C, 3 O, 4 CB, then these atoms.",
        "    static let atoms: [Character: [SideChainAtom]] = [",
    ]
    bond_cols = next(ccd.bcif_columns(blob, "chem_comp_bond", {"comp_id", "atom_id_1", "atom_id_2"}))
    neighbours = {}
    for comp, a, b in zip(bond_cols["comp_id"], bond_cols["atom_id_1"], bond_cols["atom_id_2"]):
        if comp in ONE_LETTER:
            neighbours.setdefault(comp, {}).setdefault(a, []).append(b)
            neighbours[comp].setdefault(b, []).append(a)
    for comp in sorted(TREES, key=lambda c: ONE_LETTER[c]):
        coords = ideal[comp]
        names = BACKBONE + [t[0] for t in TREES[comp]]
        defining = {}  # χ -> dihedral of the atom that defines it
        entries = []
        for atom, a, b, c, chi in TREES[comp]:
            p = [coords[n][0] for n in (a, b, c, atom)]
            bond, ang, tor = norm(sub(p[3], p[2])), angle(p[1], p[2], p[3]), dihedral(*p)
            # IUPAC names arginine's NH1 the one cis to CD (CD–NE–CZ–NH1 near 0°), as structures in
            # the PDB do; the CCD's computed conformer has them the other way round.
            if comp == "ARG" and atom in ("NH1", "NH2"):
                tor = 0.0 if atom == "NH1" else 180.0
            if chi and chi not in defining:
                defining[chi] = tor
                offset = 0.0
            else:
                offset = wrap(tor - defining[chi]) if chi else tor
            element = ELEMENTS[coords[atom][1]]
            entries.append(f'.init("{atom}", .{element}, {names.index(a)}, {names.index(b)}, {names.index(c)}, '
                           f'bond: {bond:.3f}, angle: {ang:.2f}, torsion: {offset:.2f}, chi: {chi})')
        lines.append(f'        "{ONE_LETTER[comp]}": [  // {comp}')
        lines += [f"            {e}," for e in entries]
        lines.append("        ],")
    lines += ["    ]", ""] + hydrogen_lines(ideal, neighbours)
    # Proline's ring closes on the backbone N: the builder turns χ2 until CD lies this far from N.
    # Its CB also sits closer to N than other residues' (N–CA–CB), or the ring could not close.
    pro = {k: v[0] for k, v in ideal["PRO"].items()}
    lines += ["    /// Proline's N–CD bond, closing its ring.", f"    static let prolineBondNCD = {norm(sub(pro['N'], pro['CD'])):.3f}",
              "    /// Proline's N–CA–CB angle (degrees), smaller than other residues' so the ring closes.",
              f"    static let prolineAngleNCACB = {angle(pro['N'], pro['CA'], pro['CB']):.2f}",
              "    /// Proline's C–N–CA–CB dihedral (degrees), with that angle.",
              f"    static let prolineTorsionCNCACB = {dihedral(pro['C'], pro['N'], pro['CA'], pro['CB']):.2f}", "}", ""]
    with open(args.out, "w") as fh:
        fh.write("\n".join(lines))
    print(f"wrote {args.out} ({len(TREES)} residue types)", file=sys.stderr)


if __name__ == "__main__":
    main()
