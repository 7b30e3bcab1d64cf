#!/usr/bin/env python3
"""Derive Sources/Molecule/Resources/ccd-bonds.tsv from the Chemical Component
Dictionary (CCD) that biotite ships in its wheel (biotite/structure/info/components.bcif).

    scripts/tools/derive-ccd-bonds.py [--source WHEEL_OR_BCIF] [--biotite-version V]
                                      [--structures DIR] [--out TSV]

Without --source the wheel is fetched with `pip download --no-deps biotite==V`.
Needs msgpack and numpy; when they are missing the script re-runs itself in a
throwaway venv (deleted afterwards).

Output, one component per line:  NAME<TAB>a1 a2 ORDER a1 a2 ORDER ...
ORDER is 1/2/3 (SING/DOUB/TRIP, anything else 1) plus 'a' when the bond is
aromatic (e.g. 2a). Components without bonds (ions, UNX) are written as
"NAME<TAB>" so the reader knows they exist. Lines starting with # are comments.
"""
import argparse, datetime, gzip, os, re, subprocess, sys, tempfile, venv, zipfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BCIF_IN_WHEEL = "biotite/structure/info/components.bcif"

# --- Which components -------------------------------------------------------
AMINO_ACIDS = """ALA ARG ASN ASP CYS GLN GLU GLY HIS ILE LEU LYS MET PHE PRO SER THR
TRP TYR VAL SEC PYL UNK"""
# modified / D- amino acids and peptide caps commonly seen in PDB entries
MODIFIED_AMINO_ACIDS = """MSE SEP TPO PTR HYP MLY M3L MLZ CSO CSD CSX CME CSS OCS KCX LLP
PCA ALY NLE ABA AIB SAR ORN HIC MEN CGU CXM FME TYS SCH SMC CAS CAF CSW OMT AGM
TRQ TOX HTR 2MR NEP IAS BFD AYA AME MVA MAA NMM LYZ HY3 FGL PHD CCS CYG YCM
SCY NVA DAB DPP 0QE CRO GYS CR2 SNN ACE NH2 NME FOR BOC
DAL DAR DSG DAS DCY DGN DGL DHI DIL DLE DLY MED DPN DPR DSN DTH DTR DTY DVA"""
NUCLEOTIDES = """DA DC DG DT DI DU DN A C G U I N"""
MODIFIED_NUCLEOTIDES = """PSU 5MC 5MU OMC OMG OMU 1MA 2MG M2G 7MG H2U 4SU YG 5BU CBR BRU
6MA 2MA 1MG MA6 A2M 5CM 8OG 2DT 5IU 5HC 5FC 1CC 3DR 2PR 6OG UR3 5CG CCC"""
# ligands, cofactors, sugars, lipids, detergents, buffers, additives, ions
LIGANDS = """
HOH DOD OH O OXY PER CMO NO CO2 H2S NH3 NH4 AZI CYN SCN NO3 NO2 BCT CO3 SO4 SO3
PO4 PI 2HP POP PPV VO4 MOO WO4 BO3 ACN URE GAI BEN MOH EOH IPA POL PGO BU3 ACT
ACY FMT TFA CAC IMD BME DTT DTU TCE GSH GTT GOL EDO PEG PGE PG4 1PE P6G 2PE PE4
PE5 PE8 12P 15P P33 PG6 PGR MPD MRD DMS DMF DIO TRS EPE MES BTB MPO PIN CXS EPE
HEZ HED CIT FLC TAR TLA MLI MLA SIN OXL FUM MAE LAC PYR AKG MLT MLZ ORO 2OP
NAG NDG MAN BMA GLC BGC GAL GLA FUC FUL SIA SLB XYP XYS SUC TRE MAL LAT FRU
RIB GCU IDS A2G NGA RAM ARA KDO BOG LMT BNG LDA SDS C8E DDQ HTG LMU DMU UMQ
OLC OLA OLB PLM MYR STE DAO CLR Y01 CHD LHG PCW PEE PGW CDL PC1 PTY LPP 3PE
D10 D12 DD9 HEX OCT UND TRD R16 LFA 11A
ATP ADP AMP ANP ACP AGS APC GTP GDP GMP GNP GCP GSP G2P CTP CDP CMP UTP UDP
U5P C5P TTP TMP DTP DGT DCP DUT DUP DAD 5GP 3AT ADN ADE GUN URA HPA CFF THM
NAD NAI NAP NDP NMN FAD FDA FMN RBF SAM SAH SFG COA ACO CAA MLC HXC PLP PMP TPP
TDP BTN B12 CNC HEM HEC HEA HEB HAS CLA CHL BCL BPH PHO PQN U10 UQ1 MQ7 FES SF4
F3S CUA MGD MTE H4B THB FOL THF MTX NCO RET LUT BCR A86 CRT SPN
KAI IMP XMP STI 1PG NHE TAM AE3 AE4 ETE
NA K MG CA ZN MN FE FE2 CO 3CO NI CU CU1 CD HG CL BR IOD F LI RB CS SR BA AL GA
PB PT AU AG YT3 SM GD LU TB EU EU3 YB HO IR OS RU W MO SE XE KR AR TL BE3 CE LA
PR ND DY PD RH CR V CAD ARS SB IN TE ZR UNX UNL
"""


def wanted_static():
    return set(" ".join([AMINO_ACIDS, MODIFIED_AMINO_ACIDS, NUCLEOTIDES,
                         MODIFIED_NUCLEOTIDES, LIGANDS]).split())


# --- Dependencies: re-run inside a throwaway venv when msgpack/numpy are missing
def ensure_deps():
    try:
        import msgpack, numpy  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("CCD_BONDS_VENV"):
        sys.exit("msgpack/numpy still not importable inside the throwaway venv")
    with tempfile.TemporaryDirectory(prefix="ccd-venv-") as d:
        print(f"derive-ccd-bonds: creating throwaway venv {d}", file=sys.stderr)
        venv.create(d, with_pip=True)
        py = os.path.join(d, "bin", "python")
        subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "msgpack", "numpy"], check=True)
        env = dict(os.environ, CCD_BONDS_VENV="1")
        # The script that was run (this one, or one importing it) runs again inside the venv.
        sys.exit(subprocess.run([py, os.path.abspath(sys.argv[0]), *sys.argv[1:]], env=env).returncode)


# --- Minimal BinaryCIF decoding (only the encodings the CCD and PDB bcif use) --
def decode(encoded):
    """Decode a BinaryCIF EncodedData {data, encoding}; encodings apply last-first."""
    import numpy as np
    dtypes = {1: "<i1", 2: "<i2", 3: "<i4", 4: "<u1", 5: "<u2", 6: "<u4", 32: "<f4", 33: "<f8"}
    value = encoded["data"]
    for enc in reversed(encoded["encoding"]):
        kind = enc["kind"]
        if kind == "ByteArray":
            value = np.frombuffer(value, dtype=dtypes[enc["type"]])
        elif kind == "IntegerPacking":
            # values equal to the type's limit mean "add the next one too"
            v = value.astype(np.int64)
            bits = 8 * enc["byteCount"]
            limits = [2**bits - 1] if enc["isUnsigned"] else [2**(bits - 1) - 1, -2**(bits - 1)]
            ends = np.flatnonzero(~np.isin(v, limits))
            value = np.diff(np.cumsum(v)[ends], prepend=0)
        elif kind == "RunLength":
            value = np.repeat(value[0::2], value[1::2])
        elif kind == "Delta":
            value = np.cumsum(value, dtype=np.int64) + enc["origin"]
        elif kind == "FixedPoint":
            value = value / enc["factor"]
        elif kind == "IntervalQuantization":
            value = enc["min"] + (enc["max"] - enc["min"]) / (enc["numSteps"] - 1) * value
        elif kind == "StringArray":
            offsets = decode({"data": enc["offsets"], "encoding": enc["offsetEncoding"]})
            s = enc["stringData"]
            table = [s[a:b] for a, b in zip(offsets[:-1], offsets[1:])] + [""]  # -1 -> ""
            indices = decode({"data": value, "encoding": enc["dataEncoding"]})
            value = np.array(table, dtype=object)[indices]
        else:
            raise ValueError(f"unsupported BinaryCIF encoding {kind}")
    return value


def bcif_columns(blob, category, names):
    """Yield {name: column} per data block for one category of a BinaryCIF file."""
    import msgpack
    for block in msgpack.unpackb(blob, raw=False)["dataBlocks"]:
        for cat in block["categories"]:
            if cat["name"].lstrip("_") == category:
                yield {c["name"]: decode(c["data"]) for c in cat["columns"] if c["name"] in names}


# --- Component ids used in the sample structure files ----------------------
CIF_TOKEN = re.compile(r"""'(?:[^']|'(?=\S))*'|"(?:[^"]|"(?=\S))*"|\S+""")
CIF_KEYS = {"_atom_site.label_comp_id", "_atom_site.auth_comp_id", "_chem_comp.id",
            "_chem_comp_atom.comp_id", "_chem_comp_bond.comp_id"}


def cif_tokens(text):
    """Tokens of a text CIF, quotes kept (so quoted values never look like tags)."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith(";"):  # multi-line text field: one token
            i += 1
            while i < len(lines) and not lines[i].startswith(";"):
                i += 1
            yield ";text;"
        else:
            for tok in CIF_TOKEN.findall(lines[i]):
                if tok.startswith("#"):
                    break
                yield tok
        i += 1


def cif_comp_ids(text):
    toks, ids, i = list(cif_tokens(text)), set(), 0
    is_key = lambda t: t.startswith("_") or t.lower().startswith(("loop_", "data_", "save_"))
    while i < len(toks):
        if toks[i].lower() == "loop_":
            i, tags, vals = i + 1, [], []
            while i < len(toks) and toks[i].startswith("_"):
                tags.append(toks[i].lower()); i += 1
            while i < len(toks) and not is_key(toks[i]):
                vals.append(toks[i]); i += 1
            for k, tag in enumerate(tags):
                if tag in CIF_KEYS:
                    ids.update(vals[k::len(tags)])
        elif toks[i].lower() in CIF_KEYS and i + 1 < len(toks):
            ids.add(toks[i + 1]); i += 2
        else:
            i += 1
    return {v.strip("'\"") for v in ids} - {".", "?"}


# Amber residue names (e.g. in standard_aa.cif) are CCD codes of unrelated
# molecules; the reader should map them to the parent residue instead.
AMBER_NAMES = {"ASH", "GLH", "HID", "HIE", "HIP", "CYX", "CYM", "LYN"}


def structure_comp_ids(directory):
    ids = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        opener = gzip.open if name.endswith(".gz") else open
        base = name[:-3] if name.endswith(".gz") else name
        found = set()
        if base.endswith((".pdb", ".ent")):
            with opener(path, "rt") as fh:
                found = {l[17:20].strip() for l in fh if l.startswith(("ATOM  ", "HETATM"))}
        elif base.endswith(".bcif"):
            with opener(path, "rb") as fh:
                blob = fh.read()
            for cols in bcif_columns(blob, "atom_site", {"label_comp_id", "auth_comp_id"}):
                for col in cols.values():
                    found.update(col)
        elif base.endswith(".cif"):
            with opener(path, "rt") as fh:
                found = cif_comp_ids(fh.read())
        found -= AMBER_NAMES | {""}
        if found:
            ids[name] = found
    return ids


# --- Main ----------------------------------------------------------------------
def load_ccd_bcif(source, version):
    """Return (components.bcif bytes, name of its source)."""
    if source and source.endswith(".bcif"):
        with open(source, "rb") as fh:
            return fh.read(), os.path.basename(source)
    if source:
        with zipfile.ZipFile(source) as whl:
            return whl.read(BCIF_IN_WHEEL), os.path.basename(source)
    with tempfile.TemporaryDirectory(prefix="biotite-wheel-") as tmp:
        print(f"derive-ccd-bonds: pip download biotite=={version} -> {tmp}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--disable-pip-version-check", "--only-binary", ":all:",
                        "-d", tmp, f"biotite=={version}"], check=True)
        wheel = [f for f in os.listdir(tmp) if f.endswith(".whl")][0]
        return load_ccd_bcif(os.path.join(tmp, wheel), version)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", help="biotite wheel or components.bcif (default: pip download)")
    ap.add_argument("--biotite-version", default="1.6.0")
    ap.add_argument("--structures", default="/work/shared/structures")
    ap.add_argument("--out", default=os.path.join(REPO, "Sources/Molecule/Resources/ccd-bonds.tsv"))
    args = ap.parse_args()
    ensure_deps()
    import numpy as np

    blob, source_name = load_ccd_bcif(args.source, args.biotite_version)
    comps = next(bcif_columns(blob, "chem_comp", {"id"}))["id"]
    bonds = next(bcif_columns(blob, "chem_comp_bond", {
        "comp_id", "atom_id_1", "atom_id_2", "value_order", "pdbx_aromatic_flag"}))
    del blob

    wanted = wanted_static()
    if os.path.isdir(args.structures):
        for fname, ids in structure_comp_ids(args.structures).items():
            wanted |= ids
    known = set(comps)
    missing = sorted(wanted - known)
    wanted &= known

    # bonds are grouped by comp_id in the CCD; index the row range of each component
    comp_col = bonds["comp_id"]
    starts = np.flatnonzero(np.r_[True, comp_col[1:] != comp_col[:-1]])
    ends = np.r_[starts[1:], len(comp_col)]
    ranges = {comp_col[s]: (s, e) for s, e in zip(starts, ends)}
    if len(ranges) != len(starts):
        sys.exit("chem_comp_bond rows are not grouped by comp_id")
    order = {"SING": "1", "DOUB": "2", "TRIP": "3"}

    lines = []
    for name in sorted(wanted):
        fields = []
        s, e = ranges.get(name, (0, 0))
        for k in range(s, e):
            a1, a2 = bonds["atom_id_1"][k], bonds["atom_id_2"][k]
            if not a1 or not a2 or re.search(r"\s", a1 + a2):
                sys.exit(f"bad atom name in {name}: {a1!r} {a2!r}")
            o = order.get(bonds["value_order"][k], "1")
            o += "a" if bonds["pdbx_aromatic_flag"][k] == "Y" else ""
            fields.append(f"{a1} {a2} {o}")
        lines.append(f"{name}\t{' '.join(fields)}")

    header = [f"# Bonds of {len(lines)} CCD components; derived by scripts/tools/derive-ccd-bonds.py",
              f"# source: {source_name} ({BCIF_IN_WHEEL}, {len(known)} components)",
              f"# date: {datetime.date.today().isoformat()}",
              "# format: NAME<TAB>atom1 atom2 ORDER ...; ORDER 1/2/3 (+a = aromatic)"]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        fh.write("\n".join(header + lines) + "\n")
    print(f"derive-ccd-bonds: wrote {len(lines)} components, {os.path.getsize(args.out)} bytes "
          f"to {args.out}", file=sys.stderr)
    if missing:
        print(f"derive-ccd-bonds: not in the CCD (skipped): {' '.join(missing)}", file=sys.stderr)


if __name__ == "__main__":
    main()
