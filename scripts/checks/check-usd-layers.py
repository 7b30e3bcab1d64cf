#!/usr/bin/env python3
"""Check that USDZ packages of the same scene hold the same USD data, through usd-core.

    scripts/checks/check-usd-layers.py A.usdz B.usdz [C.usdz D.usdz ...]

Arguments come in pairs, normally the crate (scene.usdc) and the text
(scene.usda) package of one scene; the format of each package's root layer
is read from its first zip entry (name and magic bytes), not assumed. Prints
`PASS A vs B` or `FAIL A vs B: reasons` per pair, each followed by one line
per package (root layer entry, format, package bytes, prims, points, faces),
then `N passed, M failed`; exits 1 when a pair differs, 2 when usd-core
cannot be set up or the arguments are wrong.

Why: issue 15 asks that the binary crate writer produce exactly what the text
writer does. Both are read back by usd-core, so this compares what a USD
consumer sees, not bytes. Compared, with no tolerance on any value:
- stage: defaultPrim, upAxis, metersPerUnit and all authored layer metadata;
- prims (Usd.PrimRange with Usd.PrimAllPrimsPredicate, so class/abstract/
  over prims too): same paths in the same order, type name, specifier, kind,
  instanceable, applied API schemas, references, property names;
- attributes: type name, variability, interpolation, connections, default
  value and time samples (arrays element by element: points, face indices,
  normals, colours, ...);
- relationships: targets (material:binding, ...);
- every field of each prim/property spec in the root layer (list op forms
  such as `prepend apiSchemas`, custom, typeName, variability, ...). This is
  needed because the composed view hides some of them: for attributes a
  schema defines (Mesh.points, subdivisionScheme) usd-core reports the
  schema's typeName and variability, not the authored ones;
- UsdShade: the material each Mesh and GeomSubset resolves to
  (ComputeBoundMaterial), and per Material its surface shader and that
  shader's diffuseColor/metallic/roughness/opacity values and connections.
Failure reasons name the prim/property and the first differing index/value.

Runs in the usd-core venv that check-usdz.py sets up and owns
(${PROTEINAR_USD_VENV:-.venv-usd}); its set-up code is imported, not copied,
and this script re-runs itself with the venv's python.
"""
import importlib.util
import os
import struct
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_REASONS = 20
SHADER_INPUTS = ("diffuseColor", "metallic", "roughness", "opacity")
SKIP_VALUES = ("default", "timeSamples")       # compared as composed values instead


def load_check_usdz():
    spec = importlib.util.spec_from_file_location("check_usdz", os.path.join(HERE, "check-usdz.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def root_layer_format(path):
    """(entry name, format) of the package's first zip entry, the USDZ root layer."""
    with zipfile.ZipFile(path) as z:
        if not z.infolist():
            raise ValueError("empty zip")
        first = z.infolist()[0]
    with open(path, "rb") as f:       # raw bytes after the local header (USDZ entries are stored)
        f.seek(first.header_offset + 26)
        name_len, extra_len = struct.unpack("<HH", f.read(4))
        f.seek(first.header_offset + 30 + name_len + extra_len)
        magic = f.read(8)
    fmt = "usdc" if magic == b"PXR-USDC" else "usda" if magic.startswith(b"#usda") else f"unknown {magic!r}"
    return first.filename, fmt


def show(v, limit=100):
    s = " ".join(str(v).split())
    return s if len(s) <= limit else s[:limit] + "..."


def is_seq(v):
    return isinstance(v, (list, tuple)) or type(v).__module__ == "pxr.Vt"


def diff(a, b):
    """None when a and b are exactly equal, else a short description of the first difference."""
    if type(a) is not type(b):
        return f"{type(a).__name__} {show(a)} != {type(b).__name__} {show(b)}"
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return f"keys only in A {sorted(a.keys() - b.keys())}, only in B {sorted(b.keys() - a.keys())}"
        for k in a:
            d = diff(a[k], b[k])
            if d:
                return f"{k}: {d}"
        return None
    if a == b:
        return None
    if is_seq(a):
        for i, (x, y) in enumerate(zip(a, b)):
            if not (x == y or repr(x) == repr(y)):          # repr: NaN equals NaN
                return f"[{i}] {show(x)} != {show(y)} (lengths {len(a)}, {len(b)})"
        return None if len(a) == len(b) else f"length {len(a)} != {len(b)}"
    return None if repr(a) == repr(b) else f"{show(a)} != {show(b)}"


def stats(stage):
    from pxr import Usd
    prims = points = faces = 0
    for prim in Usd.PrimRange.Stage(stage, Usd.PrimAllPrimsPredicate):
        prims += 1
        if prim.GetTypeName() == "Mesh":
            points += len(prim.GetAttribute("points").Get() or [])
            faces += len(prim.GetAttribute("faceVertexCounts").Get() or [])
    return prims, points, faces


def compare(sa, sb):
    """All differences between stages sa (A) and sb (B), as strings."""
    from pxr import Usd, UsdGeom, UsdShade
    reasons = []

    def chk(what, a, b):
        d = diff(a, b)
        if d:
            reasons.append(f"{what}: {d}")

    chk("defaultPrim", sa.GetMetadata("defaultPrim"), sb.GetMetadata("defaultPrim"))
    chk("upAxis", UsdGeom.GetStageUpAxis(sa), UsdGeom.GetStageUpAxis(sb))
    chk("metersPerUnit", UsdGeom.GetStageMetersPerUnit(sa), UsdGeom.GetStageMetersPerUnit(sb))
    chk("layer metadata", sa.GetPseudoRoot().GetAllAuthoredMetadata(),
        sb.GetPseudoRoot().GetAllAuthoredMetadata())

    ranges = [list(Usd.PrimRange.Stage(s, Usd.PrimAllPrimsPredicate)) for s in (sa, sb)]
    paths_a, paths_b = ([p.GetPath() for p in r] for r in ranges)
    if paths_a != paths_b:
        in_a, in_b = set(paths_a), set(paths_b)
        reasons.append(f"prim paths: {len(paths_a)} vs {len(paths_b)} prims, only in A "
                       f"{show([str(p) for p in paths_a if p not in in_b])}, only in B "
                       f"{show([str(p) for p in paths_b if p not in in_a])}, first difference "
                       f"{diff([str(p) for p in paths_a], [str(p) for p in paths_b])}")
    prims_b = {p.GetPath(): p for p in ranges[1]}
    layers = (sa.GetRootLayer(), sb.GetRootLayer())

    for pa in ranges[0]:
        path = pa.GetPath()
        pb = prims_b.get(path)
        if pb is None:
            continue
        specs = [layer.GetPrimAtPath(path) for layer in layers]
        for what, get in (
                ("type", lambda p, s: str(p.GetTypeName())),
                ("specifier", lambda p, s: p.GetSpecifier()),
                ("kind", lambda p, s: Usd.ModelAPI(p).GetKind()),
                ("instanceable", lambda p, s: p.IsInstanceable()),
                ("apiSchemas", lambda p, s: list(p.GetAppliedSchemas())),
                ("references", lambda p, s: list(s.referenceList.prependedItems) if s else None),
                ("property names", lambda p, s: list(p.GetPropertyNames()))):
            chk(f"{path} {what}", get(pa, specs[0]), get(pb, specs[1]))
        chk(f"{path} spec", *[spec_info(s) for s in specs])

        for attr in pa.GetAttributes():
            other, where = pb.GetAttribute(attr.GetName()), attr.GetPath()
            if not other:
                continue                                   # reported by property names
            chk(f"{where} typeName", str(attr.GetTypeName()), str(other.GetTypeName()))
            chk(f"{where} variability", attr.GetVariability(), other.GetVariability())
            chk(f"{where} interpolation", attr.GetMetadata("interpolation"),
                other.GetMetadata("interpolation"))
            chk(f"{where} spec", *[spec_info(layer.GetPropertyAtPath(attr.GetPath()), SKIP_VALUES)
                                   for layer in layers])
            chk(f"{where} connections", list(attr.GetConnections()), list(other.GetConnections()))
            chk(f"{where} value", attr.Get(), other.Get())
            times = list(attr.GetTimeSamples())
            chk(f"{where} time samples", times, list(other.GetTimeSamples()))
            for t in times:
                chk(f"{where} value at {t}", attr.Get(t), other.Get(t))

        for rel in pa.GetRelationships():
            other = pb.GetRelationship(rel.GetName())
            if other:
                chk(f"{rel.GetPath()} targets", list(rel.GetTargets()), list(other.GetTargets()))
                chk(f"{rel.GetPath()} spec", *[spec_info(layer.GetPropertyAtPath(rel.GetPath()))
                                               for layer in layers])

        type_name = pa.GetTypeName()
        if type_name in ("Mesh", "GeomSubset"):
            bound = [UsdShade.MaterialBindingAPI(p).ComputeBoundMaterial()[0] for p in (pa, pb)]
            chk(f"{path} bound material", *[str(m.GetPath()) if m else None for m in bound])
        elif type_name == "Material":
            chk(f"{path} surface", *[surface(p) for p in (pa, pb)])
    return reasons


def spec_info(spec, skip=()):
    """Every field authored on a root layer prim/property spec (what the writer wrote), by key."""
    return {k: spec.GetInfo(k) for k in spec.ListInfoKeys() if k not in skip} if spec else None


def surface(prim):
    """Surface shader path, source output and the SHADER_INPUTS values/connections of a Material."""
    from pxr import UsdShade
    shader, output, _ = UsdShade.Material(prim).ComputeSurfaceSource()
    if not shader:
        return None
    found = {"shader": str(shader.GetPath()), "output": str(output)}
    for name in SHADER_INPUTS:
        inp = shader.GetInput(name)
        if inp:
            found[name] = inp.Get()
            found[name + ".connect"] = [str(c) for c in inp.GetAttr().GetConnections()]
    return found


def check_pair(a, b):
    from pxr import Usd
    infos, stages, reasons = [], [], []
    for path in (a, b):
        try:
            entry, fmt = root_layer_format(path)
            infos.append(f"  {path}: {entry} {fmt}, {os.path.getsize(path)} bytes")
            stage = Usd.Stage.Open(path)
            if stage is None:
                raise RuntimeError("usd-core could not open it")
            stages.append(stage)
            infos[-1] += ", %d prims, %d points, %d faces" % stats(stage)
        except Exception as e:  # missing file, bad zip, Tf errors from usd-core
            reasons.append(f"{path}: {type(e).__name__}: {show(e, 300)}")
    if not reasons:
        try:
            reasons = compare(*stages)
        except Exception as e:
            reasons.append(f"comparison raised {type(e).__name__}: {show(e, 300)}")
    if reasons:
        more = f" | (+{len(reasons) - MAX_REASONS} more)" if len(reasons) > MAX_REASONS else ""
        print(f"FAIL {a} vs {b}: " + " | ".join(reasons[:MAX_REASONS]) + more)
    else:
        print(f"PASS {a} vs {b}")
    for line in infos:
        print(line)
    return not reasons


def main():
    paths = sys.argv[1:]
    if paths and paths[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if not paths or len(paths) % 2:
        print("usage: scripts/checks/check-usd-layers.py A.usdz B.usdz [C.usdz D.usdz ...]",
              file=sys.stderr)
        return 2
    setup = load_check_usdz()
    if os.path.realpath(sys.prefix) != os.path.realpath(setup.VENV):
        if not setup.ready():
            try:
                setup.set_up()
            except Exception as e:
                setup.log(f"set-up failed: {e}")
                return 2
        py = setup.venv_python()
        os.execv(py, [py, os.path.abspath(__file__), *paths])
    if not setup.ready():
        setup.log(f"{setup.VENV} is not set up: run this script with another python to create it")
        return 2
    results = [check_pair(a, b) for a, b in zip(paths[::2], paths[1::2])]
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 1 if passed < len(results) else 0


if __name__ == "__main__":
    sys.exit(main())
