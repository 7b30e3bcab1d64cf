#!/usr/bin/env python3
"""AR models against screen models (issue 15): sizes, triangles, shape error, USDZ conversion time
and compliance, for every starter molecule plus 4V8R and the 7CTH assembly, default style.

    scripts/benchmarks/benchmark-ar-models.py NEW_BIN [--landed OLD_BIN] [--runs 5] [--samples 20000]

For each molecule NEW_BIN converts the screen GLB (--target screen), the AR GLB (--target ar) and
the AR USDZ (the USDZ default, target ar); with --landed, OLD_BIN converts its text USDZ at its
default options (300,000 triangles) and at --max-triangles 100000 (which it may refuse: the error
is printed short).

Triangles are the placed triangles of the CLI's progress line "N triangles (...)" (instances
counted). The shape error is measured on true-scale GLBs (--true-scale, 1 Å = 1e-10 m, read with
node transforms, so as placed) converted for it: SAMPLES points drawn uniformly (area-weighted,
seeded) on the screen mesh and their exact distance to the AR mesh's triangles, and the same from
the AR mesh to the screen mesh; mean and maximum of both directions in Å (the larger maximum is
the sampled symmetric Hausdorff distance, a lower bound of the exact one). Closest points are
exact point-to-triangle distances (trimesh.triangles.closest_point) over the triangles of a
uniform grid's neighbouring cells, coarser grids for points farther away: numpy only, no rtree or
scipy needed.

Timing: 2XHE's AR USDZ, median of --runs runs, wall clock of the CLI process and the write time
from its progress lines ("wrote" minus the "N triangles" line), beside the landed text USDZ at
default options and at 100,000 triangles.

The AR USDZ files are checked with scripts/checks/check-usdz.py (Pixar's ComplianceChecker, ARKit
rules; or ../shared/tools/usdz-check when the project's checker cannot be set up) and their
encoding and triangles read with ../shared/tools/usdz-stats (or the same reading through .venv-usd
when that tool is absent). Prints per-molecule lines, a markdown table for docs/benchmarks.md and
the acceptance lines."""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time

import scripts_path  # noqa: E402,F401  (scripts/ on sys.path, for proteinar_testing)
from proteinar_testing.venv import require  # noqa: E402

require(__file__, ["numpy", "trimesh"], "benchmark-ar-models: numpy, trimesh")
import numpy as np  # noqa: E402
import trimesh  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STARTER = os.path.join(REPO, "Sources", "MoleculeLibrary", "Starter")
V8R = os.path.join(REPO, "Tests", "Fixtures", "structures", "pdb4v8r_hex.pdb.gz")
AR_MAX = 100_000
MB = 1_000_000
TRIANGLES = re.compile(r"^\[\s*([\d.]+)s\]\s+(\d+) triangles \((.*)\)")
WROTE = re.compile(r"^\[\s*([\d.]+)s\]\s+wrote ")


def molecules():
    """(label, path, extra args): the starter library in its order, then 4V8R and 7CTH assembly 1."""
    out = []
    with open(os.path.join(STARTER, "starter.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            ident, name = line.split("\t")[:2]
            out.append((ident, os.path.join(STARTER, name), []))
    out.append(("4V8R", V8R, []))
    out.append(("7CTH asm 1", os.path.join(STARTER, "7CTH.cif.gz"), ["--assembly", "1"]))
    return out


class Run:
    def __init__(self, ok, wall, stderr, path):
        self.ok, self.wall, self.stderr, self.path = ok, wall, stderr, path
        self.triangles = self.what = self.build_s = self.wrote_s = None
        for line in stderr.splitlines():
            m = TRIANGLES.match(line)
            if m:
                self.build_s, self.triangles, self.what = float(m[1]), int(m[2]), m[3]
            m = WROTE.match(line)
            if m:
                self.wrote_s = float(m[1])
        self.bytes = os.path.getsize(path) if ok and os.path.exists(path) else None

    @property
    def write_s(self):
        return None if self.build_s is None or self.wrote_s is None else self.wrote_s - self.build_s

    def error(self):
        lines = [l for l in self.stderr.strip().splitlines() if l.strip()]
        text = lines[-1] if lines else "no output"
        text = re.sub(r"^Error: \S+: ", "", text)
        return text if len(text) <= 110 else text[:107] + "..."


def convert(binary, src, extra, out, args):
    cmd = [binary, "convert", src, *extra, "-o", out, *args]
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return Run(p.returncode == 0, time.perf_counter() - t, p.stderr, out)


# ---- shape error ----------------------------------------------------------------------------

def load_placed(path):
    """The GLB's triangles as placed (node transforms applied, instances expanded), in Å."""
    scene = trimesh.load(path, force="scene")
    mesh = scene.to_geometry() if hasattr(scene, "to_geometry") else scene.dump(concatenate=True)
    mesh = trimesh.Trimesh(vertices=np.asarray(mesh.vertices, dtype=np.float64) * 1e10,
                           faces=np.asarray(mesh.faces), process=False)
    return mesh


def sample(mesh, count, seed):
    pts, _ = trimesh.sample.sample_surface(mesh, count, seed=seed)
    return np.asarray(pts, dtype=np.float64)


def point_triangle_distances(points, tris, pair_budget=1_500_000):
    """Exact distance from each point to the nearest of `tris` (m, 3, 3): grid cells of side h hold
    the triangles whose bounding box they meet; a point's candidates are the triangles of the 2x2x2
    block of cells around it (its own cell and the neighbours on the sides it is nearer to), which
    is exact whenever the nearest candidate is within h/2. Points left over go to a grid 4 times
    coarser, until one cell spans everything."""
    lo = np.minimum(points.min(0), tris.reshape(-1, 3).min(0))
    hi = np.maximum(points.max(0), tris.reshape(-1, 3).max(0))
    span = float((hi - lo).max()) or 1.0
    tlo, thi = tris.min(1), tris.max(1)
    h = max(float(np.median((thi - tlo).max(1))) * 2, span / 2000)
    result = np.full(len(points), np.inf)
    todo = np.arange(len(points))
    while len(todo):
        final = h >= 2 * span   # then every point and triangle is in one cell
        dims = np.floor((hi - lo) / h).astype(np.int64) + 3
        cl = np.floor((tlo - lo) / h).astype(np.int64) + 1
        ext = np.floor((thi - lo) / h).astype(np.int64) + 1 - cl + 1   # cells per axis, >= 1
        n = ext.prod(1)
        tri_of = np.repeat(np.arange(len(tris)), n)
        k = np.arange(len(tri_of)) - np.repeat(np.cumsum(n) - n, n)
        ex, ey = ext[tri_of, 0], ext[tri_of, 1]
        cx = cl[tri_of, 0] + k % ex
        cy = cl[tri_of, 1] + (k // ex) % ey
        cz = cl[tri_of, 2] + k // (ex * ey)
        keys = (cx * dims[1] + cy) * dims[2] + cz
        order = np.argsort(keys, kind="stable")
        keys, tri_of = keys[order], tri_of[order]
        f = (points[todo] - lo) / h
        q = np.floor(f).astype(np.int64) + 1
        side = np.where(f - np.floor(f) < 0.5, -1, 1)   # the 2x2x2 block of cells nearest the point
        off = np.array([(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)])
        nb = q[:, None, :] + off[None, :, :] * side[:, None, :]
        nkeys = (nb[..., 0] * dims[1] + nb[..., 1]) * dims[2] + nb[..., 2]
        start = np.searchsorted(keys, nkeys, "left")
        count = np.searchsorted(keys, nkeys, "right") - start
        per_point = count.sum(1)
        best = np.full(len(todo), np.inf)
        i = 0
        while i < len(todo):      # chunks of points whose candidate pairs fit the budget
            csum = np.cumsum(per_point[i:])
            j = i + max(1, int(np.searchsorted(csum, pair_budget, "right")))
            c = count[i:j].ravel()
            s = start[i:j].ravel()
            total = int(c.sum())
            if total:
                owner = np.repeat(np.arange(len(c)) // 8, c)
                pos = np.repeat(s, c) + (np.arange(total) - np.repeat(np.cumsum(c) - c, c))
                cand = tri_of[pos]
                qp = points[todo[i:j]][owner]
                # an upper bound per point (its nearest candidate vertex), then only the triangles
                # whose bounding box comes that near get the exact test
                bound = np.full(j - i, np.inf)
                np.minimum.at(bound, owner, np.sqrt((np.square(tris[cand] - qp[:, None, :]).sum(2)).min(1)))
                gap = np.maximum(np.maximum(tlo[cand] - qp, qp - thi[cand]), 0)
                keep = np.square(gap).sum(1) <= np.square(bound[owner]) * (1 + 1e-9)
                owner, cand, qp = owner[keep], cand[keep], qp[keep]
                cp = trimesh.triangles.closest_point(tris[cand], qp)
                d = np.linalg.norm(cp - qp, axis=1)
                d[~np.isfinite(d)] = np.inf
                seg = np.full(j - i, np.inf)
                np.minimum.at(seg, owner, d)
                best[i:j] = seg
            i = j
        done = final | (best <= h / 2)
        result[todo[done]] = best[done]
        todo = todo[~done]
        h *= 4
    return result


def shape_error(full_glb, ar_glb, samples, seed=15):
    a, b = load_placed(full_glb), load_placed(ar_glb)
    if a.faces.shape == b.faces.shape and np.array_equal(a.faces, b.faces) and np.allclose(a.vertices, b.vertices, atol=1e-6):
        return dict(same=True, fa_mean=0.0, fa_max=0.0, af_mean=0.0, af_max=0.0)

    def nondegenerate(m):
        return m.triangles[m.area_faces > 1e-12]

    fa = point_triangle_distances(sample(a, samples, seed), nondegenerate(b))
    af = point_triangle_distances(sample(b, samples, seed + 1), nondegenerate(a))
    return dict(same=False, fa_mean=fa.mean(), fa_max=fa.max(), af_mean=af.mean(), af_max=af.max())


# ---- USDZ check and stats ------------------------------------------------------------------

def shared_tool(name):
    for d in (os.path.join(REPO, "..", "shared", "tools"), os.path.join(REPO, "shared", "tools")):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return os.path.normpath(p)
    return None


STATS_PY = r"""
import os, sys, zipfile
from pxr import Usd, UsdGeom, UsdShade
for path in sys.argv[1:]:
    z = zipfile.ZipFile(path); first = z.infolist()[0]
    kind = 'crate' if z.read(first.filename)[:8] == b'PXR-USDC' else 'text'
    st = Usd.Stage.Open(path); tris = meshes = 0
    for p in Usd.PrimRange(st.GetPseudoRoot(), Usd.TraverseInstanceProxies()):
        if p.IsA(UsdGeom.Mesh):
            meshes += 1
            tris += sum(max(0, n - 2) for n in (UsdGeom.Mesh(p).GetFaceVertexCountsAttr().Get() or []))
    mats = sum(1 for p in st.Traverse() if p.IsA(UsdShade.Material))
    print(f"{path}: layer={first.filename} encoding={kind} bytes={os.path.getsize(path)} triangles={tris} meshes={meshes} materials={mats}")
"""


def usdz_stats(files):
    """{path: {layer, encoding, triangles, ...}} and where the figures came from."""
    tool = shared_tool("usdz-stats")
    if tool:
        cmd, source = [tool, *files], tool
    else:
        py = os.path.join(REPO, os.environ.get("PROTEINAR_USD_VENV", ".venv-usd"), "bin", "python")
        cmd, source = [py, "-c", STATS_PY, *files], "usd-core in .venv-usd"
    p = subprocess.run(cmd, capture_output=True, text=True)
    stats = {}
    for line in p.stdout.splitlines():
        path, _, rest = line.rpartition(": layer=")
        if path:
            stats[path] = dict(kv.split("=", 1) for kv in ("layer=" + rest).split())
    if p.returncode != 0 and not stats:
        source += f" (failed: {(p.stderr.strip().splitlines() or ['?'])[-1][:100]})"
    return stats, source


def usdz_check(files):
    """{path: (passed, reason)} and the checker used."""
    checker = os.path.join(REPO, "scripts", "checks", "check-usdz.py")
    p = subprocess.run([sys.executable, checker, *files], capture_output=True, text=True)
    source = "scripts/checks/check-usdz.py"
    if p.returncode == 2 and shared_tool("usdz-check"):
        p = subprocess.run([shared_tool("usdz-check"), *files], capture_output=True, text=True)
        source = shared_tool("usdz-check")
    result = {}
    for line in (p.stdout + "\n" + p.stderr).splitlines():
        m = re.match(r"^(PASS|FAIL)\s+(\S+?)(?::\s*(.*))?$", line.strip())
        if m:
            result[m[2]] = (m[1] == "PASS", m[3] or "")
    if not result:
        source += f" (exit {p.returncode}: {(p.stdout + p.stderr).strip()[-200:]})"
    return result, source


# ---- report --------------------------------------------------------------------------------

def mb(n):
    return "—" if n is None else f"{n / MB:.2f}"


def tri(n):
    return "—" if n is None else f"{n:,}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary", help="the new proteinar")
    p.add_argument("--landed", metavar="OLD_BIN", help="the landed proteinar (text USDZ, no --target)")
    p.add_argument("--runs", type=int, default=5, help="timing runs for 2XHE (median)")
    p.add_argument("--samples", type=int, default=20000, help="surface points per direction for the shape error")
    p.add_argument("--keep", metavar="DIR", help="write the models here and keep them")
    args = p.parse_args()
    new = os.path.abspath(args.binary)
    old = os.path.abspath(args.landed) if args.landed else None
    work = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="proteinar-ar-bench-")
    os.makedirs(work, exist_ok=True)
    print(f"new: {new}\nlanded: {old or '(not given)'}\nmodels in: {work}\n")
    rows = []
    try:
        for label, src, extra in molecules():
            slug = label.replace(" ", "_")
            f = lambda name: os.path.join(work, f"{slug}-{name}")  # noqa: E731
            r = dict(label=label)
            r["screen"] = convert(new, src, extra, f("screen.glb"), ["--target", "screen"])
            r["ar_glb"] = convert(new, src, extra, f("ar.glb"), ["--target", "ar"])
            r["ar_usdz"] = convert(new, src, extra, f("ar.usdz"), [])
            if old:
                r["landed"] = convert(old, src, extra, f("landed.usdz"), [])
                r["landed100k"] = convert(old, src, extra, f("landed-100k.usdz"), ["--max-triangles", str(AR_MAX)])
            fs = convert(new, src, extra, f("screen-true.glb"), ["--target", "screen", "--true-scale"])
            fa = convert(new, src, extra, f("ar-true.glb"), ["--target", "ar", "--true-scale"])
            if fs.ok and fa.ok:
                t = time.perf_counter()
                r["dist"] = shape_error(fs.path, fa.path, args.samples)
                r["dist_s"] = time.perf_counter() - t
            for k in ("screen", "ar_glb", "ar_usdz", "landed", "landed100k"):
                if k in r and not r[k].ok:
                    print(f"  {label} {k}: FAILED: {r[k].error()}")
            s, a, d = r["screen"], r["ar_usdz"], r.get("dist")
            line = (f"{label:11s} screen {tri(s.triangles):>8s} tris {mb(s.bytes):>6s} MB GLB | "
                    f"AR {tri(a.triangles):>7s} tris, USDZ {mb(a.bytes)} MB, GLB {mb(r['ar_glb'].bytes)} MB")
            if old:
                line += f" | landed USDZ {mb(r['landed'].bytes)} MB"
                line += (f", at 100k {mb(r['landed100k'].bytes)} MB" if r["landed100k"].ok
                         else f", at 100k: error: {r['landed100k'].error()}")
            if d:
                line += (" | same mesh" if d["same"] else
                         f" | screen→AR mean {d['fa_mean']:.3f} max {d['fa_max']:.2f} Å, "
                         f"AR→screen mean {d['af_mean']:.3f} max {d['af_max']:.2f} Å ({r['dist_s']:.1f} s)")
            print(line, flush=True)
            if a.what:
                print(f"            AR: {a.what}; screen: {s.what}", flush=True)
            rows.append(r)

        # timing
        print(f"\n2XHE USDZ conversion, {args.runs} runs each after one warm-up, interleaved (median; wall = whole "
              f"CLI process, read+mesh = the 'N triangles' progress time, write = 'wrote' minus that):")
        src = os.path.join(STARTER, "2XHE.cif.gz")
        timings = {}
        cases = [("new AR USDZ (crate)", new, [])]
        if old:
            cases += [("landed text USDZ, default", old, []), ("landed text USDZ, 100k", old, ["--max-triangles", str(AR_MAX)])]
        runs = {name: [] for name, _, _ in cases}
        for i in range(args.runs + 1):            # interleaved, so that a busy moment hits every case; the first round warms up
            for name, binary, a in cases:
                r = convert(binary, src, [], os.path.join(work, "timing.usdz"), a)
                if i:
                    runs[name].append(r)
        for name, binary, a in cases:
            ok = [x for x in runs[name] if x.ok]
            if not ok:
                print(f"  {name}: failed: {runs[name][0].error()}")
                continue
            wall = statistics.median(x.wall for x in ok) * 1000
            write = statistics.median(x.write_s for x in ok if x.write_s is not None) * 1000
            build = statistics.median(x.build_s for x in ok) * 1000
            timings[name] = (wall, write, build, ok[0].triangles, ok[0].bytes)
            print(f"  {name:28s} wall {wall:6.0f} ms (min {min(x.wall for x in ok) * 1000:.0f}), "
                  f"read+mesh {build:4.0f} ms, write {write:4.0f} ms; {tri(ok[0].triangles)} triangles, {mb(ok[0].bytes)} MB")

        # checks
        ar_files = [r["ar_usdz"].path for r in rows if r["ar_usdz"].ok]
        stats, stats_src = usdz_stats(ar_files)
        checks, check_src = usdz_check(ar_files)
        print(f"\nAR USDZ check ({check_src}) and stats ({stats_src}):")
        for r in rows:
            path = r["ar_usdz"].path
            st, ck = stats.get(path, {}), checks.get(path)
            r["check"], r["stats"] = ck, st
            verdict = "no result" if ck is None else ("PASS" if ck[0] else f"FAIL {ck[1]}")
            agree = ""
            if st.get("triangles") and r["ar_usdz"].triangles is not None:
                agree = "" if int(st["triangles"]) == r["ar_usdz"].triangles else f" (CLI said {r['ar_usdz'].triangles})"
            print(f"  {r['label']:11s} {verdict:5s} layer={st.get('layer', '?')} encoding={st.get('encoding', '?')} "
                  f"triangles={st.get('triangles', '?')}{agree} meshes={st.get('meshes', '?')} materials={st.get('materials', '?')}")

        # table
        print("\n| molecule | screen triangles | AR triangles | AR USDZ MB | landed USDZ MB (300k / 100k) | AR GLB MB | screen GLB MB | screen→AR mean / max Å | AR→screen mean / max Å | check |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for r in rows:
            d = r.get("dist")
            if old:
                l100 = mb(r["landed100k"].bytes) if r["landed100k"].ok else "error"
                landed = f"{mb(r['landed'].bytes)} / {l100}"
            else:
                landed = "—"
            if not d:
                fa = af = "—"
            elif d["same"]:
                fa = af = "0 (same mesh)"
            else:
                fa, af = f"{d['fa_mean']:.3f} / {d['fa_max']:.2f}", f"{d['af_mean']:.3f} / {d['af_max']:.2f}"
            ck = r["check"]
            print(f"| {r['label']} | {tri(r['screen'].triangles)} | {tri(r['ar_usdz'].triangles)} | {mb(r['ar_usdz'].bytes)} | "
                  f"{landed} | {mb(r['ar_glb'].bytes)} | {mb(r['screen'].bytes)} | {fa} | {af} | "
                  f"{'—' if ck is None else ('pass' if ck[0] else 'FAIL')} |")
        if timings:
            print("\n| 2XHE → USDZ (median of %d) | wall ms | write ms | triangles | MB |" % args.runs)
            print("| --- | ---: | ---: | ---: | ---: |")
            for name, (wall, write, build, t, b) in timings.items():
                print(f"| {name} | {wall:.0f} | {write:.0f} | {tri(t)} | {mb(b)} |")

        # acceptance
        print("\nAcceptance:")
        x = next(r for r in rows if r["label"] == "2XHE")["ar_usdz"]
        ok1 = x.ok and x.bytes <= 1.5 * MB and x.triangles <= AR_MAX
        print(f"  {'PASS' if ok1 else 'FAIL'}  2XHE AR USDZ ≤ 1.5 MB and ≤ 100,000 triangles: "
              f"{x.bytes:,} bytes ({x.bytes / MB:.2f} MB), {tri(x.triangles)} triangles")
        starters = [r for r in rows if r["label"] not in ("4V8R", "7CTH asm 1")]
        big = max(starters, key=lambda r: r["ar_usdz"].bytes or 0)
        ok2 = all(r["ar_usdz"].ok and r["ar_usdz"].bytes <= 3 * MB for r in starters)
        print(f"  {'PASS' if ok2 else 'FAIL'}  every starter's AR USDZ ≤ 3 MB: largest {big['label']} "
              f"{big['ar_usdz'].bytes / MB:.2f} MB (4V8R {mb(rows[-2]['ar_usdz'].bytes)} MB, 7CTH assembly {mb(rows[-1]['ar_usdz'].bytes)} MB)")
        if "new AR USDZ (crate)" in timings and "landed text USDZ, default" in timings:
            n, o = timings["new AR USDZ (crate)"], timings["landed text USDZ, default"]
            ok3 = n[0] <= o[0]
            print(f"  {'PASS' if ok3 else 'FAIL'}  2XHE AR USDZ conversion no slower than the text USDZ: "
                  f"{n[0]:.0f} ms against {o[0]:.0f} ms wall (write {n[1]:.0f} against {o[1]:.0f} ms)")
        else:
            print("  n/a   2XHE AR USDZ conversion no slower than the text USDZ: needs --landed")
        failed = [r["label"] for r in rows if not (r["check"] and r["check"][0])]
        print(f"  {'PASS' if not failed else 'FAIL'}  every AR USDZ passes the compliance check"
              + (f" (not: {', '.join(failed)})" if failed else f" ({len(rows)} files)"))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
