"""Reading a GLB file's bytes as check-models.py checks them: the container's chunks, an accessor's
values (quantised or float, tightly packed or strided) held to the rules of its bufferView, and a file
with EXT_meshopt_compression decoded by meshoptimizer's own decoder (libmeshoptimizer through
ctypes) into the plain quantised GLB it stands for.

Every rule broken raises Bad, whose message says which. Needs numpy: import it after venv.require()."""
import json
import struct

import numpy as np


class Bad(Exception):
    """A check failed; the message says which."""


def need(condition, message):
    if not condition:
        raise Bad(message)


COMPONENTS = {5120: ("i1", 1), 5121: ("u1", 1), 5122: ("i2", 2), 5123: ("u2", 2), 5125: ("u4", 4), 5126: ("f4", 4)}
WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


def glb_chunks(data):
    need(len(data) >= 20, "shorter than a GLB header and one chunk")
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    need(magic == b"glTF", "magic is not 'glTF'")
    need(version == 2, f"container version {version}, not 2")
    need(length == len(data), f"header length {length} but file has {len(data)} bytes")
    chunks, offset = [], 12
    while offset < len(data):
        need(offset + 8 <= len(data), "truncated chunk header")
        size, kind = struct.unpack_from("<II", data, offset)
        need(size % 4 == 0, f"chunk at {offset} has length {size}, not a multiple of 4")
        need(offset + 8 + size <= len(data), f"chunk at {offset} runs past the end of the file")
        chunks.append((kind, data[offset + 8: offset + 8 + size]))
        offset += 8 + size
    need(chunks and chunks[0][0] == 0x4E4F534A, "first chunk is not JSON")
    need(len(chunks) <= 2, f"{len(chunks)} chunks; expected JSON and at most one BIN")
    if len(chunks) == 2:
        need(chunks[1][0] == 0x004E4942, "second chunk is not BIN")
    return chunks[0][1], (chunks[1][1] if len(chunks) == 2 else None)


def read_accessor(g, binary, index, views_ok):
    accessors = g.get("accessors", [])
    need(0 <= index < len(accessors), f"accessor {index} does not exist")
    a = accessors[index]
    need(a.get("componentType") in COMPONENTS, f"accessor {index}: bad componentType {a.get('componentType')}")
    need(a.get("type") in WIDTHS, f"accessor {index}: bad type {a.get('type')}")
    count = a.get("count", 0)
    need(isinstance(count, int) and count >= 1, f"accessor {index}: count must be >= 1")
    code, size = COMPONENTS[a["componentType"]]
    width = WIDTHS[a["type"]]
    need("bufferView" in a, f"accessor {index}: no bufferView (sparse/zero accessors are not expected here)")
    vi = a["bufferView"]
    need(vi in views_ok, f"accessor {index}: bufferView {vi} missing or invalid")
    view = g["bufferViews"][vi]
    stride = view.get("byteStride", size * width)
    start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
    need(start % size == 0, f"accessor {index}: offset {start} not aligned to its {size}-byte components")
    need(a.get("byteOffset", 0) + stride * (count - 1) + size * width <= view["byteLength"],
         f"accessor {index}: runs past the end of bufferView {vi}")
    dtype = np.dtype("<" + code)
    if stride == size * width:
        values = np.frombuffer(binary, dtype, count * width, start).reshape(count, width)
    else:
        # Interleaved or padded (a quantised VEC3 in a 4- or 8-byte stride): a strided view, copied.
        values = np.ndarray((count, width), dtype, buffer=binary, offset=start, strides=(stride, size)).copy()
    if a["componentType"] == 5126:
        need(np.isfinite(values).all(), f"accessor {index}: non-finite floats")
    for bound, pick in (("min", values.min(axis=0)), ("max", values.max(axis=0))):
        if bound in a:
            declared = np.asarray(a[bound], dtype=np.float64)
            need(declared.shape == (width,), f"accessor {index}: {bound} has {declared.size} numbers, not {width}")
            need(np.allclose(declared, pick.astype(np.float64), rtol=1e-6, atol=1e-7),
                 f"accessor {index}: {bound} {declared.tolist()} differs from the data's {pick.tolist()}")
    return a, values


def decode_meshopt(data):
    """A GLB with EXT_meshopt_compression, decoded by libmeshoptimizer into a plain (quantised) GLB."""
    import ctypes, ctypes.util
    json_bytes, binary = glb_chunks(data)
    g = json.loads(json_bytes.decode("utf-8"))
    name = ctypes.util.find_library("meshoptimizer")
    need(name, "EXT_meshopt_compression: libmeshoptimizer not found (install libmeshoptimizer-dev) to decode the file")
    lib = ctypes.CDLL(name)
    out = bytearray()
    for k, view in enumerate(g.get("bufferViews", [])):
        ext = view.get("extensions", {}).get("EXT_meshopt_compression")
        need(ext is not None, f"bufferView {k}: not compressed, in a file whose views are")
        count, stride, mode = ext["count"], ext["byteStride"], ext.get("mode")
        source = bytes(binary[ext.get("byteOffset", 0):ext.get("byteOffset", 0) + ext["byteLength"]])
        target = ctypes.create_string_buffer(count * stride)
        if mode == "ATTRIBUTES":
            rc = lib.meshopt_decodeVertexBuffer(target, ctypes.c_size_t(count), ctypes.c_size_t(stride), source, ctypes.c_size_t(len(source)))
        elif mode == "TRIANGLES":
            rc = lib.meshopt_decodeIndexBuffer(target, ctypes.c_size_t(count), ctypes.c_size_t(stride), source, ctypes.c_size_t(len(source)))
        else:
            raise Bad(f"bufferView {k}: unexpected meshopt mode {mode!r}")
        need(rc == 0, f"bufferView {k}: meshoptimizer cannot decode it ({mode}, error {rc})")
        if ext.get("filter") == "OCTAHEDRAL":
            lib.meshopt_decodeFilterOct(target, ctypes.c_size_t(count), ctypes.c_size_t(stride))
        elif ext.get("filter", "NONE") != "NONE":
            raise Bad(f"bufferView {k}: unexpected filter {ext['filter']!r}")
        need(count * stride == view["byteLength"], f"bufferView {k}: decodes to {count * stride} bytes, not its byteLength {view['byteLength']}")
        while len(out) % 4:
            out.append(0)
        view.pop("extensions")
        view["buffer"], view["byteOffset"] = 0, len(out)
        out += target.raw
    while len(out) % 4:
        out.append(0)
    g["buffers"] = [{"byteLength": len(out)}]
    for key in ("extensionsUsed", "extensionsRequired"):
        g[key] = [e for e in g.get(key, []) if e != "EXT_meshopt_compression"]
    text = json.dumps(g, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    total = 12 + 8 + len(text) + 8 + len(out)
    return (struct.pack("<4sII", b"glTF", 2, total) + struct.pack("<I4s", len(text), b"JSON") + text
            + struct.pack("<I4s", len(out), b"BIN\0") + bytes(out))
