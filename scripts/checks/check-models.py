#!/usr/bin/env python3
"""Independent checks of exported 3D models: .glb .obj .stl .ply .dae.

    scripts/checks/check-models.py [--allow-empty] FILES...

Each file is checked by reading its bytes directly (the layout rules of its
format) and then by loading it in third-party readers: trimesh for every
format, pygltflib for GLB, pycollada (and the COLLADA 1.4.1 XML schema) for
DAE, `assimp info` (Debian's assimp-utils; a file fails when assimp is
not on PATH, so a machine without it cannot pass by checking less), and for GLB
gltfpack (Debian's; likewise required).

  GLB  12-byte header (magic, version 2, total length), JSON chunk padded
       with spaces and BIN chunk padded with zeros to 4 bytes, nothing after;
       asset.version "2.0"; every index (scene, node, mesh, material,
       accessor, bufferView) in range; bufferViews inside the buffer and the
       buffer inside the BIN chunk; accessors inside their bufferView and
       aligned; floats finite; POSITION has min/max equal to the data;
       NORMAL unit length; COLOR_0 normalised when integer; indices below the
       vertex count, never the primitive-restart value, a multiple of 3 for
       triangles; materials' factors in 0..1; node matrices finite.
       KHR_mesh_quantization (listed in extensionsRequired): POSITION may be
       (unsigned) byte or short, min/max the stored integers; NORMAL
       normalised (signed) byte or short, unit length within the Khronos
       validator's 0.00674. EXT_meshopt_compression: the compressed views are
       first decoded with meshoptimizer's own decoder (libmeshoptimizer via
       ctypes; gltfpack refuses files it did not compress), then the decoded
       file goes through every check above and the readers below.
       EXT_mesh_features (used, never required): each primitive's feature id
       sets name a `_FEATURE_ID_n` attribute it has, SCALAR unsigned byte or
       short or float, not normalised, whole numbers, featureCount >= 1 and
       at least the distinct ids other than nullFeatureId.
  OBJ  numbers finite; face indices (1-based or negative) inside the v/vn/vt
       lists; `vn` unit length; `mtllib` found beside the file and every
       `usemtl` defined in it.
  STL  binary: size 84 + 50 n, header not starting with "solid"; floats
       finite; facet normals unit or zero.
  PLY  header parsed; element data exactly fills the file (binary); face
       indices below the vertex count; floats finite; normals unit length.
  DAE  valid against the COLLADA 1.4.1 schema; loads in pycollada; float
       arrays finite; primitive indices inside their sources.

A file passes when every check passes and it has at least one triangle
(with --allow-empty a valid file without triangles passes too; assimp is
then not asked, since it refuses every file without meshes). Prints one line
per file, `PATH: ok triangles=N [stored=S] [placed=P] bounds=...` or
`PATH: FAIL reason` (N: triangles of the distinct meshes trimesh loads; S: the
file's own count when it differs; P: triangles of every placed instance, when
a mesh is placed more than once), and a final `N passed, M failed` line;
exits 1 when any file fails.
Runs with the venv of scripts/tools/setup-python.sh (${PROTEINAR_VENV:-.venv},
relative to the repository root), re-executing itself there when needed.
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.venv import require  # noqa: E402

require(__file__, ["numpy", "trimesh", "pygltflib", "collada"], "check-models: numpy, trimesh, pygltflib, pycollada")

import json, shutil, struct, subprocess  # noqa: E402
import numpy as np  # noqa: E402
from proteinar_testing.glb_reader import Bad, decode_meshopt, glb_chunks, need, read_accessor  # noqa: E402

UNIT_TOLERANCE = 1e-3  # |length - 1| allowed for unit normals
# For normalised byte normals (KHR_mesh_quantization): the Khronos glTF validator's unitLengthThresholdVec3.
QUANTIZED_UNIT_TOLERANCE = 0.00674
QUANTIZED_POSITION = {5120, 5121, 5122, 5123}
QUANTIZED_NORMAL = {5120, 5122}


def check_unit(vectors, what, allow_zero=False):
    if len(vectors) == 0:
        return
    lengths = np.linalg.norm(np.asarray(vectors, dtype=np.float64), axis=1)
    if allow_zero:
        lengths = lengths[lengths > 0]
    if len(lengths):
        worst = np.abs(lengths - 1).max()
        need(worst <= UNIT_TOLERANCE, f"{what} not of unit length (worst |len-1| = {worst:.2e})")


# ---------------------------------------------------------------- GLB

RESTART = {5121: 0xFF, 5123: 0xFFFF, 5125: 0xFFFFFFFF}


def check_glb(path, data):
    json_bytes, binary = glb_chunks(data)
    need(not json_bytes.endswith(b"\0"), "JSON chunk is padded with zeros, not spaces")
    try:
        g = json.loads(json_bytes.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise Bad(f"JSON chunk does not parse: {error}")
    need(g.get("asset", {}).get("version") == "2.0", 'asset.version is not "2.0"')
    quantized = "KHR_mesh_quantization" in g.get("extensionsRequired", [])
    for name in g.get("extensionsUsed", []):
        need(name in ("KHR_mesh_quantization", "EXT_mesh_features"), f"extension {name} is not expected here")
    need(quantized == ("KHR_mesh_quantization" in g.get("extensionsUsed", [])), "KHR_mesh_quantization used but not required")
    need("EXT_mesh_features" not in g.get("extensionsRequired", []), "EXT_mesh_features is required: a reader without it could not draw the file")
    features = "EXT_mesh_features" in g.get("extensionsUsed", [])

    buffers = g.get("buffers", [])
    binary = binary or b""
    if buffers:
        need(len(buffers) == 1 and "uri" not in buffers[0], "a GLB should have one buffer, the BIN chunk")
        blen = buffers[0].get("byteLength", -1)
        need(0 < blen <= len(binary), f"buffer byteLength {blen} does not fit the BIN chunk ({len(binary)} bytes)")
        need(len(binary) - blen < 4, "BIN chunk is longer than its buffer plus padding")
        need(all(b == 0 for b in binary[blen:]), "BIN chunk padding is not zeros")
    else:
        need(not binary, "BIN chunk without a buffer")
        need(not g.get("bufferViews") and not g.get("accessors"), "bufferViews or accessors without a buffer")

    views_ok = set()
    for k, view in enumerate(g.get("bufferViews", [])):
        need(view.get("buffer") == 0, f"bufferView {k}: buffer {view.get('buffer')} does not exist")
        offset, length = view.get("byteOffset", 0), view.get("byteLength", 0)
        need(length >= 1 and offset >= 0 and offset + length <= buffers[0]["byteLength"],
             f"bufferView {k}: bytes {offset}..{offset + length} are not inside the buffer")
        if "byteStride" in view:
            need(4 <= view["byteStride"] <= 252 and view["byteStride"] % 4 == 0, f"bufferView {k}: bad byteStride")
        if "target" in view:
            need(view["target"] in (34962, 34963), f"bufferView {k}: bad target {view['target']}")
        views_ok.add(k)

    meshes, materials, nodes = g.get("meshes", []), g.get("materials", []), g.get("nodes", [])
    for key in ("scenes", "nodes", "meshes", "materials", "accessors", "bufferViews", "buffers"):
        need(key not in g or len(g[key]) >= 1, f'"{key}" is present but empty')
    scenes = g.get("scenes", [])
    if "scene" in g:
        need(0 <= g["scene"] < len(scenes), f"scene {g['scene']} does not exist")
    for s, scene in enumerate(scenes):
        for n in scene.get("nodes", []):
            need(0 <= n < len(nodes), f"scene {s}: node {n} does not exist")
    for n, node in enumerate(nodes):
        if "mesh" in node:
            need(0 <= node["mesh"] < len(meshes), f"node {n}: mesh {node['mesh']} does not exist")
        for c in node.get("children", []):
            need(0 <= c < len(nodes), f"node {n}: child {c} does not exist")
        if "matrix" in node:
            m = node["matrix"]
            need(len(m) == 16 and np.isfinite(np.asarray(m, dtype=np.float64)).all(), f"node {n}: bad matrix")
    # Animations (an ensemble's models as frames): channels on existing nodes without a matrix,
    # samplers over float key times that rise from 0, with min and max, and a value per key.
    for a, animation in enumerate(g.get("animations", [])):
        samplers = animation.get("samplers", [])
        need(animation.get("channels") and samplers, f"animation {a}: no channels or samplers")
        for c, channel in enumerate(animation["channels"]):
            target = channel.get("target", {})
            need(0 <= channel.get("sampler", -1) < len(samplers), f"animation {a} channel {c}: no such sampler")
            need(0 <= target.get("node", -1) < len(nodes) and target.get("path") in ("translation", "rotation", "scale", "weights"),
                 f"animation {a} channel {c}: bad target {target}")
            need("matrix" not in nodes[target["node"]], f"animation {a} channel {c}: node {target['node']} has a matrix, which glTF forbids animating")
        for k, sampler in enumerate(samplers):
            ia, times = read_accessor(g, binary, sampler["input"], views_ok)
            _, values = read_accessor(g, binary, sampler["output"], views_ok)
            times = times.ravel().astype(np.float64)
            need(ia["componentType"] == 5126 and ia["type"] == "SCALAR" and "min" in ia and "max" in ia,
                 f"animation {a} sampler {k}: key times are not float SCALAR with min and max")
            need(times[0] >= 0 and np.all(np.diff(times) > 0), f"animation {a} sampler {k}: key times do not rise from 0")
            need(abs(times.min() - ia["min"][0]) < 1e-6 and abs(times.max() - ia["max"][0]) < 1e-6, f"animation {a} sampler {k}: min/max are not the key times'")
            need(sampler.get("interpolation", "LINEAR") in ("LINEAR", "STEP"), f"animation {a} sampler {k}: interpolation {sampler.get('interpolation')}")
            need(len(values) == len(times), f"animation {a} sampler {k}: {len(values)} values for {len(times)} keys")
    for k, mat in enumerate(materials):
        pbr = mat.get("pbrMetallicRoughness", {})
        factors = list(pbr.get("baseColorFactor", [1, 1, 1, 1])) + [pbr.get("metallicFactor", 1), pbr.get("roughnessFactor", 1)]
        need(len(factors) == 6 and all(0 <= f <= 1 for f in factors), f"material {k}: factors outside 0..1")

    triangles = vertices = 0
    for m, mesh in enumerate(meshes):
        need(mesh.get("primitives"), f"mesh {m}: no primitives")
        for p, prim in enumerate(mesh["primitives"]):
            where = f"mesh {m} primitive {p}"
            attributes = prim.get("attributes", {})
            need("POSITION" in attributes, f"{where}: no POSITION")
            pa, positions = read_accessor(g, binary, attributes["POSITION"], views_ok)
            need(pa["type"] == "VEC3" and (pa["componentType"] == 5126 or quantized and pa["componentType"] in QUANTIZED_POSITION),
                 f"{where}: POSITION is not float VEC3" + (" nor a quantised one" if quantized else ""))
            need("min" in pa and "max" in pa, f"{where}: POSITION accessor lacks min/max")
            count = len(positions)
            for name, index in attributes.items():
                a, values = read_accessor(g, binary, index, views_ok)
                need(len(values) == count, f"{where}: {name} has {len(values)} elements for {count} positions")
                if name == "NORMAL" and a["componentType"] == 5126:
                    check_unit(values, f"{where}: NORMAL")
                elif name == "NORMAL":
                    need(quantized and a["componentType"] in QUANTIZED_NORMAL and a.get("normalized") is True,
                         f"{where}: NORMAL is not float, nor a normalised signed byte or short under KHR_mesh_quantization")
                    top = 127.0 if a["componentType"] == 5120 else 32767.0
                    lengths = np.linalg.norm(np.maximum(values.astype(np.float64) / top, -1.0), axis=1)
                    worst = np.abs(lengths - 1).max()
                    need(worst <= QUANTIZED_UNIT_TOLERANCE, f"{where}: NORMAL not of unit length (worst |len-1| = {worst:.2e})")
                if name.startswith("COLOR_") and a["componentType"] != 5126:
                    need(a.get("normalized") is True, f"{where}: integer {name} is not normalized")
            for s, ids in enumerate(prim.get("extensions", {}).get("EXT_mesh_features", {}).get("featureIds", [])):
                need(features, f"{where}: EXT_mesh_features on a primitive but not in extensionsUsed")
                name = f"_FEATURE_ID_{ids.get('attribute')}"
                need(name in attributes, f"{where}: feature id set {s} names {name}, which the primitive lacks")
                a, values = read_accessor(g, binary, attributes[name], views_ok)
                need(a["type"] == "SCALAR" and a["componentType"] in (5121, 5123, 5126) and not a.get("normalized"),
                     f"{where}: {name} is not a SCALAR unsigned byte, short or float, unnormalised")
                need(np.all(values == np.round(values)) and np.all(values >= 0), f"{where}: {name} holds values that are not whole numbers")
                distinct = len(set(values.ravel().tolist()) - {ids.get("nullFeatureId")})
                need(ids.get("featureCount", 0) >= max(1, distinct), f"{where}: featureCount {ids.get('featureCount')} is below the {distinct} distinct ids")
            if "material" in prim:
                need(0 <= prim["material"] < len(materials), f"{where}: material {prim['material']} does not exist")
            mode = prim.get("mode", 4)
            if "indices" in prim:
                ia, idx = read_accessor(g, binary, prim["indices"], views_ok)
                need(ia["componentType"] in RESTART and ia["type"] == "SCALAR", f"{where}: indices are not unsigned SCALAR")
                idx = idx.ravel()
                need(idx.max() < count, f"{where}: index {idx.max()} not below the vertex count {count}")
                need(idx.max() != RESTART[ia["componentType"]], f"{where}: index uses the primitive-restart value")
                corners = len(idx)
            else:
                corners = count
            if mode == 4:
                need(corners % 3 == 0, f"{where}: {corners} corners is not a multiple of 3")
                triangles += corners // 3
            vertices += count

    import pygltflib
    pygltflib.GLTF2().load(path)
    return triangles, vertices


# ---------------------------------------------------------------- OBJ

def check_obj(path, data):
    v = vn = vt = 0
    normals, materials_used, libraries = [], set(), []
    triangles = 0
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        key = parts[0]
        if key in ("v", "vn", "vt"):
            try:
                values = [float(x) for x in parts[1:]]
            except ValueError:
                raise Bad(f"line {number}: bad number in {line!r}")
            need(values and all(np.isfinite(values)), f"line {number}: non-finite or missing numbers")
            if key == "v":
                need(len(values) in (3, 4, 6, 7), f"line {number}: v with {len(values)} numbers")
                v += 1
            elif key == "vn":
                need(len(values) == 3, f"line {number}: vn with {len(values)} numbers")
                normals.append(values)
                vn += 1
            else:
                vt += 1
        elif key == "f":
            need(len(parts) >= 4, f"line {number}: face with fewer than 3 corners")
            for corner in parts[1:]:
                refs = corner.split("/")
                for slot, (ref, limit) in enumerate(zip(refs, (v, vt, vn))):
                    if ref == "" and slot > 0:
                        continue
                    try:
                        i = int(ref)
                    except ValueError:
                        raise Bad(f"line {number}: bad face corner {corner!r}")
                    need(1 <= i <= limit or -limit <= i <= -1, f"line {number}: corner {corner!r} refers past the lists")
            triangles += len(parts) - 3
        elif key == "mtllib":
            libraries.append(line.split(None, 1)[1].strip())
        elif key == "usemtl":
            materials_used.add(line.split(None, 1)[1].strip())
    check_unit(normals, "vn")
    defined = set()
    for library in libraries:
        mtl = os.path.join(os.path.dirname(path), library)
        need(os.path.exists(mtl), f"mtllib {library} not found beside the file")
        with open(mtl, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("newmtl"):
                    defined.add(line.split(None, 1)[1].strip())
    if materials_used:
        need(libraries, "usemtl without any mtllib")
        missing = sorted(materials_used - defined)
        need(not missing, f"usemtl without newmtl: {missing[:3]}")
    return triangles, v


# ---------------------------------------------------------------- STL

def check_stl(path, data):
    if data[:5].lower() == b"solid" and len(data) != 84 + 50 * (struct.unpack_from("<I", data, 80)[0] if len(data) >= 84 else -1):
        return check_ascii_stl(data)
    need(len(data) >= 84, "shorter than a binary STL header")
    need(not data[:5].lower() == b"solid", 'binary STL header starts with "solid" (readers take it for ASCII)')
    (count,) = struct.unpack_from("<I", data, 80)
    need(len(data) == 84 + 50 * count, f"{count} triangles need {84 + 50 * count} bytes, file has {len(data)}")
    record = np.dtype([("normal", "<f4", 3), ("corners", "<f4", (3, 3)), ("attribute", "<u2")])
    facets = np.frombuffer(data, record, count, 84)
    need(np.isfinite(facets["normal"]).all() and np.isfinite(facets["corners"]).all(), "non-finite floats")
    check_unit(facets["normal"], "facet normals", allow_zero=True)
    return count, 3 * count


def check_ascii_stl(data):
    text = data.decode("ascii", "replace").split()
    vertices = [text[i + 1: i + 4] for i, word in enumerate(text) if word == "vertex"]
    need(len(vertices) % 3 == 0, "ASCII STL: vertex count not a multiple of 3")
    need(np.isfinite(np.asarray(vertices, dtype=np.float64)).all() if vertices else True, "non-finite numbers")
    return len(vertices) // 3, len(vertices)


# ---------------------------------------------------------------- PLY

PLY_TYPES = {"char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2", "int16": "i2",
             "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
             "float": "f4", "float32": "f4", "double": "f8", "float64": "f8"}


def check_ply(path, data):
    end = data.find(b"end_header\n")
    need(data.startswith(b"ply\n") and end > 0, "no ply magic or end_header")
    header = data[:end].decode("ascii", "replace").splitlines()
    body = data[end + len(b"end_header\n"):]
    fmt = None
    elements = []  # [name, count, [(name, type) or (name, (counttype, itemtype))]]
    for line in header[1:]:
        words = line.split()
        if not words or words[0] in ("comment", "obj_info"):
            continue
        if words[0] == "format":
            fmt = words[1]
        elif words[0] == "element":
            elements.append([words[1], int(words[2]), []])
        elif words[0] == "property":
            need(elements, "property before any element")
            if words[1] == "list":
                need(words[2] in PLY_TYPES and words[3] in PLY_TYPES, f"bad list types in {line!r}")
                elements[-1][2].append((words[4], (PLY_TYPES[words[2]], PLY_TYPES[words[3]])))
            else:
                need(words[1] in PLY_TYPES, f"bad property type in {line!r}")
                elements[-1][2].append((words[2], PLY_TYPES[words[1]]))
    need(fmt in ("binary_little_endian", "binary_big_endian", "ascii"), f"format {fmt}")
    vertex_count = next((e[1] for e in elements if e[0] == "vertex"), 0)
    triangles = 0
    if fmt == "ascii":
        return triangles_from_trimesh_only(), vertex_count
    order = "<" if fmt == "binary_little_endian" else ">"
    offset = 0
    for name, count, props in elements:
        if all(not isinstance(t, tuple) for _, t in props):
            dtype = np.dtype([(p, order + t) for p, t in props])
            need(offset + dtype.itemsize * count <= len(body), f"element {name} runs past the end of the file")
            rows = np.frombuffer(body, dtype, count, offset)
            offset += dtype.itemsize * count
            for p, t in props:
                if t.startswith("f"):
                    need(np.isfinite(rows[p]).all(), f"{name}.{p}: non-finite floats")
            if name == "vertex" and all(k in rows.dtype.names for k in ("nx", "ny", "nz")):
                check_unit(np.stack([rows["nx"], rows["ny"], rows["nz"]], axis=1), "vertex normals")
        else:
            for _ in range(count):  # general lists: walk record by record
                for p, t in props:
                    if isinstance(t, tuple):
                        n_type, item_type = (np.dtype(order + t[0]), np.dtype(order + t[1]))
                        need(offset + n_type.itemsize <= len(body), f"element {name} runs past the end of the file")
                        n = int(np.frombuffer(body, n_type, 1, offset)[0])
                        offset += n_type.itemsize
                        need(offset + n * item_type.itemsize <= len(body), f"element {name} runs past the end of the file")
                        items = np.frombuffer(body, item_type, n, offset)
                        offset += n * item_type.itemsize
                        if name == "face":
                            need(n >= 3, "face with fewer than 3 corners")
                            need(items.max() < vertex_count and items.min() >= 0, "face index outside the vertices")
                            triangles += n - 2
                    else:
                        offset += np.dtype(t).itemsize
    need(offset == len(body), f"element data ends at {offset} of {len(body)} bytes")
    return triangles, vertex_count


def triangles_from_trimesh_only():
    return -1  # ASCII PLY: count taken from trimesh below


# ---------------------------------------------------------------- DAE

def check_dae(path, data):
    import collada
    from collada import schema
    from lxml import etree
    validator = schema.ColladaValidator()
    document = etree.fromstring(data)
    if not validator.validate(etree.ElementTree(document)):
        errors = str(validator.COLLADA_SCHEMA_1_4_1_INSTANCE.error_log).splitlines()
        raise Bad("not valid against the COLLADA 1.4.1 schema: " + (errors[0] if errors else "?"))
    namespace = "{http://www.collada.org/2005/11/COLLADASchema}"
    for array in document.iter(namespace + "float_array"):
        values = np.array((array.text or "").split(), dtype=np.float64)
        need(len(values) == int(array.get("count")), f"float_array {array.get('id')}: count attribute {array.get('count')} but {len(values)} numbers")
        need(np.isfinite(values).all(), f"float_array {array.get('id')}: non-finite numbers")
    for matrix in document.iter(namespace + "matrix"):
        values = np.array((matrix.text or "").split(), dtype=np.float64)
        need(len(values) == 16 and np.isfinite(values).all(), "bad node matrix")
    mesh = collada.Collada(path)
    triangles = vertices = 0
    for geometry in mesh.geometries:
        for primitive in geometry.primitives:
            if isinstance(primitive, collada.triangleset.TriangleSet):
                need(primitive.vertex_index.size == 0 or primitive.vertex_index.max() < len(primitive.vertex),
                     f"geometry {geometry.id}: index past its positions")
                if primitive.normal is not None and primitive.normal_index is not None and primitive.normal_index.size:
                    need(primitive.normal_index.max() < len(primitive.normal), f"geometry {geometry.id}: index past its normals")
                    check_unit(primitive.normal, f"geometry {geometry.id}: normals")
                triangles += len(primitive)
                vertices += len(primitive.vertex)
    return triangles, vertices


# ---------------------------------------------------------------- driver

CHECKS = {".glb": check_glb, ".obj": check_obj, ".stl": check_stl, ".ply": check_ply, ".dae": check_dae}


def check(path, allow_empty):
    import trimesh
    extension = os.path.splitext(path)[1].lower()
    need(extension in CHECKS, f"unknown extension {extension!r}")
    with open(path, "rb") as f:
        data = f.read()
    decoded = None
    if extension == ".glb" and b"EXT_meshopt_compression" in glb_chunks(data)[0]:
        decoded = path + ".decoded.glb"
        data = decode_meshopt(data)
        with open(decoded, "wb") as f:
            f.write(data)
        path = decoded
    try:
        return check_loaded(path, data, extension, allow_empty) + (" (meshopt decoded)" if decoded else "")
    finally:
        if decoded:
            os.remove(decoded)


def check_loaded(path, data, extension, allow_empty):
    import trimesh
    triangles, _ = CHECKS[extension](path, data)
    if triangles == 0:
        need(allow_empty, "no triangles")
        return "ok (empty: no triangles)"
    scene = trimesh.load(path, force="scene")
    meshes = [g for g in scene.geometry.values() if hasattr(g, "faces")]
    loaded = sum(len(g.faces) for g in meshes)
    need(loaded > 0, "trimesh loads no triangles")
    need(all(np.isfinite(g.vertices).all() for g in meshes), "trimesh: non-finite vertices")
    need(shutil.which("assimp"), "assimp not found on PATH (install assimp-utils): the file was not loaded in assimp")
    result = subprocess.run(["assimp", "info", path], capture_output=True, text=True)
    lines = (result.stdout + result.stderr).strip().splitlines()
    need(result.returncode == 0, "assimp info fails: " + (lines[-1] if lines else f"exit {result.returncode}"))
    if extension == ".glb":
        # gltfpack (meshoptimizer's packer) must read it too. It reads no file that is already
        # meshopt-compressed, so those are given to it decoded.
        need(shutil.which("gltfpack"), "gltfpack not found on PATH (install gltfpack): the file was not loaded in gltfpack")
        packed = path + ".gltfpack.glb"
        try:
            result = subprocess.run(["gltfpack", "-i", path, "-o", packed], capture_output=True, text=True)
            lines = (result.stdout + result.stderr).strip().splitlines()
            need(result.returncode == 0 and os.path.getsize(packed) > 0, "gltfpack cannot read it: " + (lines[-1] if lines else f"exit {result.returncode}"))
        finally:
            if os.path.exists(packed):
                os.remove(packed)
    # scene.geometry holds each mesh once; a mesh several nodes place (instancing: GLB and DAE
    # assemblies) counts once there. `placed` counts every placement, what a viewer draws.
    placed = sum(len(scene.geometry[name].faces) for name in
                 (scene.graph[node][1] for node in scene.graph.nodes_geometry)
                 if hasattr(scene.geometry[name], "faces"))
    bounds = np.round(scene.bounds, 5).tolist()
    stored = f" stored={triangles}" if triangles not in (-1, loaded) else ""
    shown = f" placed={placed}" if placed != loaded else ""
    return f"ok triangles={loaded}{stored}{shown} bounds={bounds}"


def main(argv):
    allow_empty = "--allow-empty" in argv
    paths = [a for a in argv if a != "--allow-empty"]
    if not paths:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    passed = failed = 0
    for path in paths:
        try:
            print(f"{path}: {check(path, allow_empty)}")
            passed += 1
        except Bad as error:
            print(f"{path}: FAIL {error}")
            failed += 1
        except Exception as error:  # a reader refused the file
            print(f"{path}: FAIL {type(error).__name__}: {error}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
