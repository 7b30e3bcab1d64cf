"""Files to attack the server with (scripts/checks/test_attacks.py): random_pdbs() (random but
readable), cif_with_title(), nested_gzip(), truncated_gzip(); glb_triangles() counts what came back.
Standard library only, like the rest of proteinar_testing."""
import gzip
import json
import struct
import zlib


AMINO = ["ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET", "PHE",
         "PRO", "SER", "THR", "TRP", "TYR", "VAL"]
ATOMS = [(" N  ", "N"), (" CA ", "C"), (" C  ", "C"), (" O  ", "O"), (" CB ", "C"), (" CG ", "C"), (" OD1", "O"), (" NZ ", "N")]


def random_pdbs(count, target_bytes, rng, title="RANDOM ATOMS"):
    """`count` distinct readable PDB files of about `target_bytes` each: ATOM records with random
    names, residues and coordinates spread over a 400 Å box (so that bonds stay few), chains A-Z,
    then END. One set of records is made; each file deals the coordinates out in its own random
    order (and has its own seed line), which is quick."""
    n = max(1, (target_bytes - 400) // 81)
    chains = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    u = rng.uniform
    heads, coords, rests = [], [], []
    for i in range(n):
        name, element = ATOMS[i % len(ATOMS)]
        residue = i // len(ATOMS)
        heads.append("ATOM  %5d %4s %3s %1s%4d    " % ((i % 99999) + 1, name, AMINO[residue % 20],
                                                       chains[(residue // 9000) % 26], residue % 9000 + 1))
        coords.append("%8.3f%8.3f%8.3f" % (u(-200, 200), u(-200, 200), u(-200, 200)))
        rests.append("%6.2f%6.2f          %2s  " % (u(0.5, 1.0), u(5, 90), element))
    for k in range(count):
        rng.shuffle(coords)
        top = (f"HEADER    RANDOM ATOMS                            01-JAN-26   XXXX              \n"
               f"TITLE     {title[:60]:<60}          \n"
               f"REMARK   1 FILE {k:<6d} SEED {rng.getrandbits(63):<20d}                                 \n")
        yield (top + "\n".join(map("".join, zip(heads, coords, rests))) + "\nEND\n").encode()


def cif_with_title(title_chars, template):
    """`template` (an mmCIF file's text) with its _struct.title replaced by `title_chars` characters."""
    words = b"a very long title "
    title = (words * (title_chars // len(words) + 1))[:title_chars]
    out, replaced = [], False
    for line in template.splitlines(keepends=True):
        if line.startswith(b"_struct.title") and not replaced:
            out.append(b"_struct.title '" + title + b"'\n")
            replaced = True
        else:
            out.append(line)
    if not replaced:
        raise ValueError("the template has no _struct.title line")
    return b"".join(out)


def nested_gzip(inner_size, chunk=1 << 24):
    """gzip of a gzip file of `inner_size` zero bytes (rounded down to 16 MiB): a few kilobytes. The
    inner stream is one deflate block repeated (each after a full flush, so the blocks are equal),
    with the CRC and length a whole compression would give; built in about a second."""
    zeros = bytes(chunk)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    if block != c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH):
        raise RuntimeError("zlib's blocks of zeros differ; cannot build the nested gzip this way")
    n = max(1, inner_size // chunk)
    crc = 0
    for _ in range(n):
        crc = zlib.crc32(zeros, crc)
    inner = (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + first + block * (n - 1) + b"\x03\x00"
             + struct.pack("<II", crc, (n * chunk) & 0xFFFFFFFF))
    outer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return outer.compress(inner) + outer.flush()


def truncated_gzip(data, keep=0.6):
    """gzip of `data`, cut after `keep` of its bytes (no trailer: damaged, not a bomb)."""
    packed = gzip.compress(data)
    return packed[:int(len(packed) * keep)]


def glb_triangles(glb):
    """Triangles a GLB draws: each mesh's triangles (indices, else positions, over 3) times the nodes
    of the scene that place it."""
    if glb[:4] != b"glTF":
        raise ValueError("not a GLB file")
    length = struct.unpack("<I", glb[12:16])[0]
    doc = json.loads(glb[20:20 + length])
    accessors = doc.get("accessors", [])

    def mesh_triangles(mesh):
        total = 0
        for p in mesh.get("primitives", []):
            if p.get("mode", 4) != 4:
                continue
            if "indices" in p:
                total += accessors[p["indices"]]["count"] // 3
            else:
                total += accessors[p["attributes"]["POSITION"]]["count"] // 3
        return total

    nodes, meshes = doc.get("nodes", []), doc.get("meshes", [])
    scene = doc.get("scenes", [{}])[doc.get("scene", 0)] if doc.get("scenes") else {"nodes": list(range(len(nodes)))}
    total, stack = 0, list(scene.get("nodes", []))
    while stack:
        node = nodes[stack.pop()]
        if "mesh" in node:
            total += mesh_triangles(meshes[node["mesh"]])
        stack += node.get("children", [])
    return total
