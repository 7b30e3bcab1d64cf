"""test_web.py's checks of the page's own GLB decoder (Web/js/glb.js with js/meshopt-decode.js): the
viewer's GLB is the meshopt-compressed one (EXT_meshopt_compression), held to the server's
uncompressed (quantised) file of the same model, and to files gltfpack compressed itself (-c: the same
views, byte for byte; -cc: filters too). Needs Debian's gltfpack on PATH."""
import base64
import os
import subprocess
import tempfile
import urllib.request

# Two parsed GLBs alike: positions and colours exact, normals exact or within 2.5 steps of a normalised
# byte, the same triangles (each may start at another corner). A list of the differences.
SAME = """const same = (a, b, exact) => { const out = [];
      const ma = a.meshes, mb = b.meshes;
      if (ma.length !== mb.length) return ['meshes ' + ma.length + ' vs ' + mb.length];
      const rotated = (x, y) => { for (let t = 0; t < x.length; t += 3) { let ok = false;
          for (let r = 0; r < 3; r++) ok ||= x[t] === y[t + r % 3] && x[t + 1] === y[t + (r + 1) % 3] && x[t + 2] === y[t + (r + 2) % 3];
          if (!ok) return false; } return true; };
      ma.forEach((m, i) => m.primitives.forEach((p, j) => { const q = mb[i].primitives[j];
        if (p.positions.length !== q.positions.length || p.positions.some((v, k) => v !== q.positions[k])) out.push(`mesh ${i}.${j} positions differ`);
        if (p.colors.some((v, k) => v !== q.colors[k])) out.push(`mesh ${i}.${j} colours differ`);
        if (p.normals.some((v, k) => Math.abs(v - q.normals[k]) > (exact ? 0 : 2.5 / 127))) out.push(`mesh ${i}.${j} normals differ`);
        if (!p.indices || !q.indices || p.indices.length !== q.indices.length || !rotated(p.indices, q.indices)) out.push(`mesh ${i}.${j} triangles differ`);
      }));
      return out; };"""

# gltfpack -cc against gltfpack's plain file: [triangles, triangles, unit normals, the same box].
PACKED_ALIKE = ("const done = arguments[arguments.length - 1]; import('/js/glb.js').then(m => {"
                "const parse = (s) => m.parseGLB(Uint8Array.from(atob(s), c => c.charCodeAt(0)));"
                "const a = parse(arguments[0]), b = parse(arguments[1]);"
                "const count = (g) => g.meshes.reduce((n, m) => n + m.primitives.reduce((k, p) => k + p.indices.length / 3, 0), 0);"
                "const unit = (g) => g.meshes.every(m => m.primitives.every(p => { for (let i = 0; i < p.normals.length; i += 3) {"
                "  const l = Math.hypot(p.normals[i], p.normals[i + 1], p.normals[i + 2]); if (Math.abs(l - 1) > 0.02) return false; } return true; }));"
                "const box = (g) => [...g.bounds.min, ...g.bounds.max].map(v => v.toFixed(4)).join(',');"
                "done([count(a), count(b), unit(a), box(a) === box(b)]); }).catch(e => done(['error: ' + e.message]));")


def compare(browser, first, second, exact):
    """The differences between two GLBs (base64) as the page's parseGLB reads them."""
    # The comparison is part of the script (the page's CSP allows no eval).
    return browser.js_async(SAME + "const done = arguments[arguments.length - 1]; import('/js/glb.js').then(m => {"
                            "const parse = (s) => m.parseGLB(Uint8Array.from(atob(s), c => c.charCodeAt(0)));"
                            "done(same(parse(arguments[0]), parse(arguments[1]), arguments[2])); }).catch(e => done(['error: ' + e.message]));",
                            first, second, exact)


def check_page_decodes_glb(browser, base, check):
    """With 1AKE open in `browser` on the server at `base`; each result goes to check(name, ok, detail)."""
    check("the viewer asked for the compact GLB (compression=meshopt)",
          browser.js("return performance.getEntriesByType('resource').some(e => e.name.includes('/model.glb') && e.name.includes('compression=meshopt'))"))
    def glb_bytes(query):
        with urllib.request.urlopen(f"{base}/api/molecules/1AKE/model.glb?{query}", timeout=60) as r:
            return r.read()
    small = "style=cartoon&max-triangles=20000"
    served = {c: base64.b64encode(glb_bytes(f"{small}&compression={c}")).decode() for c in ("meshopt", "quantized", "float")}
    differences = compare(browser, served["meshopt"], served["quantized"], False)
    check("the page decodes the server's meshopt GLB to its quantised GLB (positions, colours, triangles exact; normals within 2 steps)",
          differences == [], str(differences)[:300])
    with tempfile.TemporaryDirectory() as packed:
        source = os.path.join(packed, "float.glb")
        with open(source, "wb") as f:
            f.write(base64.b64decode(served["float"]))
        made = {}
        for name, flags in (("plain", []), ("c", ["-c"]), ("cc", ["-cc"])):
            target = os.path.join(packed, name + ".glb")
            run = subprocess.run(["gltfpack", "-i", source, "-o", target, *flags], capture_output=True, text=True)
            made[name] = base64.b64encode(open(target, "rb").read()).decode() if run.returncode == 0 else None
        check("gltfpack (Debian) packs the server's float GLB, plain, -c and -cc", all(made.values()), str({k: v is not None for k, v in made.items()}))
        if all(made.values()):
            same = compare(browser, made["c"], made["plain"], True)
            check("the page decodes gltfpack -c to exactly gltfpack's uncompressed file (attributes byte for byte, the same triangles)", same == [], str(same)[:300])
            cc = browser.js_async(PACKED_ALIKE, made["cc"], made["plain"])
            check("the page decodes gltfpack -cc (octahedral normals): the same triangles count and box, unit normals",
                  isinstance(cc, list) and len(cc) == 4 and cc[0] == cc[1] and cc[2] is True and cc[3] is True, str(cc))
