"""Models in motion, in headless Chromium at phone size (390 × 844) on the web run's server
(conftest.py's `web` fixture): 1LCD, an NMR entry of the starter library, shows Play and a slider
that counts gemmi's models; Play shows different pictures in turn with the camera left where it
was; the slider (by keyboard) shows the last model; each model shown is the file's own: its vertices lie
by the atoms they name (their feature ids) as gemmi places them in that model, not in the first;
and the GLB Scene Viewer gets plays the models (an animation, a channel per model). --screenshots DIR keeps a picture of a model in play (docs/models-in-motion.png)."""
import os
import time

import gemmi
import pytest

from proteinar_testing.browser import Browser
from proteinar_testing.explore_page import open_molecule
from proteinar_testing.paths import ROOT

pytestmark = pytest.mark.browser

FILE = os.path.join(ROOT, "Sources", "MoleculeLibrary", "Starter", "1LCD.cif.gz")

# A fingerprint of the canvas: its pixels, 64 × 64, as grey levels.
PIXELS = """const done = arguments[arguments.length - 1];
window.__proteinarExplore.viewer.snapshot().then(async (blob) => {
  const image = await createImageBitmap(blob);
  const c = new OffscreenCanvas(64, 64), g = c.getContext('2d');
  g.drawImage(image, 0, 0, 64, 64);
  const d = g.getImageData(0, 0, 64, 64).data, out = [];
  for (let i = 0; i < d.length; i += 4) out.push(Math.round((d[i] + d[i + 1] + d[i + 2]) / 3));
  done(out);
}, (e) => done(String(e)));"""

# For the model shown: each vertex (placed by its node, in the model's space) and the atom it names
# in `first` and in `shown` (flat x, y, z per atom of the first model, in Å; null where a model
# lacks the atom). The models are placed in the scene by a scale and a shift (quantisation
# included), fitted here from model 1 (`fit` null) or given; then each vertex's distance to its atom
# in Å, the median for each model, and how many vertices lie nearer to `shown`'s atom.
NEARER = """const [first, shown, given] = arguments;
const model = window.__proteinarExplore.viewer.model, pairs = [];
for (const node of model.nodes) {
  const M = node.matrix;
  for (const p of model.meshes[node.mesh].primitives) {
    if (!p.features) continue;
    for (let i = 0; i < p.vertexCount; i++) {
      const f = p.features[i];
      if (shown[3 * f] == null || first[3 * f] == null) continue;
      const x = p.positions[3 * i], y = p.positions[3 * i + 1], z = p.positions[3 * i + 2];
      pairs.push([[M[0] * x + M[4] * y + M[8] * z + M[12], M[1] * x + M[5] * y + M[9] * z + M[13], M[2] * x + M[6] * y + M[10] * z + M[14]], f]);
    }
  }
}
const atom = (xyz, f) => [xyz[3 * f], xyz[3 * f + 1], xyz[3 * f + 2]];
let fit = given;
if (!fit) {
  const mean = (points) => [0, 1, 2].map((k) => points.reduce((s, q) => s + q[k], 0) / points.length);
  const vs = pairs.map(([v]) => v), as = pairs.map(([, f]) => atom(first, f));
  const mv = mean(vs), ma = mean(as);
  const spread = (points, m) => points.reduce((s, q) => s + (q[0] - m[0]) ** 2 + (q[1] - m[1]) ** 2 + (q[2] - m[2]) ** 2, 0);
  const scale = Math.sqrt(spread(vs, mv) / spread(as, ma));
  fit = { scale, shift: [0, 1, 2].map((k) => mv[k] - scale * ma[k]) };
}
const place = (a) => a.map((c, k) => fit.scale * c + fit.shift[k]);
const distance = (v, a) => Math.hypot(v[0] - a[0], v[1] - a[1], v[2] - a[2]) / fit.scale;
const a = [], b = [];
let nearer = 0;
for (const [v, f] of pairs) {
  const da = distance(v, place(atom(first, f))), db = distance(v, place(atom(shown, f)));
  a.push(da); b.push(db);
  if (db < da) nearer++;
}
const median = (xs) => xs.sort((x, y) => x - y)[xs.length >> 1];
return { vertices: a.length, nearer, first: median(a), shown: median(b), fit };"""


def coordinates(structure, n):
    """Model n's atom positions in the order of the first model's atoms (null where it lacks one)."""
    where = {}
    for chain in structure[n - 1]:
        for residue in chain:
            for atom in residue:
                where.setdefault((chain.name, residue.seqid.num, residue.seqid.icode.strip(), atom.name, atom.altloc.strip()), atom.pos)
    out = []
    for chain in structure[0]:
        for residue in chain:
            for atom in residue:
                p = where.get((chain.name, residue.seqid.num, residue.seqid.icode.strip(), atom.name, atom.altloc.strip()))
                out += [p.x, p.y, p.z] if p else [None, None, None]
    return out


def difference(a, b):
    return sum(abs(x - y) for x, y in zip(a, b)) / max(len(a), 1)


def test_an_nmr_entry_plays_its_models(web, checks, shots):
    check = checks.check
    structure = gemmi.read_structure(FILE)
    models = len(structure)
    b = Browser(width=390, height=844)
    try:
        b.phone_size()
        open_molecule(b, web.base, "1LCD", timeout=120)
        shown = b.wait("const p = document.getElementById('models-player'); return !p.hidden && document.getElementById('models-shown').textContent", 10)
        check("an NMR entry shows Play and a slider counting gemmi's models", shown == f"Model 1 of {models}", f"{shown!r}, gemmi: {models}")
        first = coordinates(structure, 1)
        near = b.js(NEARER, first, first, None)
        fit = near["fit"]
        check("model 1's vertices lie by the atoms they name (a cartoon's within 3 Å of its residue's traced atom: median under 2.5 Å)",
              near["vertices"] > 0 and near["shown"] < 2.5, str(near))
        camera = b.js("return window.__proteinarExplore.viewer.camera")
        before = b.js_async(PIXELS)
        b.click("#models-play")
        pictures, seen = [], set()
        deadline = time.time() + 120
        while time.time() < deadline and len(seen) < models:
            n = int(b.js("return document.getElementById('models-player').dataset.shown"))
            if n not in seen and n != 1:
                pictures.append((n, b.js_async(PIXELS)))
            seen.add(n)
            time.sleep(0.05)
        check("Play steps through every model", seen == set(range(1, models + 1)), str(sorted(seen)))
        if shots and pictures:
            os.makedirs(shots, exist_ok=True)
            b.js("document.querySelector('#view-explore .stage').scrollIntoView({ block: 'start' }); window.scrollBy(0, -64)")
            b.screenshot(os.path.join(shots, "models-in-motion.png"))
        b.click("#models-play")
        check("Pause stops", b.wait("return document.getElementById('models-play').getAttribute('aria-pressed') === 'false'", 5))
        differences = [round(difference(before, p), 2) for _, p in pictures]
        check("each model is another picture (mean grey difference to model 1 over 0.5 of 255)",
              len(differences) == models - 1 and all(d > 0.5 for d in differences), str(differences))
        after = b.js("return window.__proteinarExplore.viewer.camera")
        check("the camera stays where it was", after == camera, f"{camera} -> {after}")
        # The slider, by keyboard: End shows the last model, and it is the file's last model.
        b.js("document.getElementById('models-slider').focus()")
        b.keys("\ue010")  # End
        b.wait("return document.getElementById('models-player').dataset.shown === arguments[0]"
               " && window.__proteinarExplore.viewer.model", 60, str(models))
        time.sleep(0.3)
        said = b.js("return [document.getElementById('models-shown').textContent, document.getElementById('models-slider').getAttribute('aria-valuetext')]")
        check("the slider says which model is shown", said == [f"Model {models} of {models}"] * 2, str(said))
        last = coordinates(structure, models)
        near = b.js(NEARER, first, last, fit)
        print(f"model 1: {fit}; model {models}: median {near['shown']:.2f} Å from its own atoms, {near['first']:.2f} Å from model 1's; "
              f"{near['nearer']} of {near['vertices']} vertices nearer to their own; picture differences {differences}")
        check(f"model {models} shown is the file's: its vertices lie by gemmi's atoms of model {models}, not of model 1",
              near["vertices"] > 0 and near["shown"] < near["first"] and near["nearer"] > 0.6 * near["vertices"], str(near))
        # Scene Viewer's GLB plays the models: an animation with a channel per model; the USDZ is one model.
        links = b.js("return [...document.querySelectorAll('#ar-slot a[download]')].map((a) => a.href)")
        glb = next((u for u in links if ".glb?" in u), "")
        usdz = next((u for u in links if ".usdz?" in u), "")
        channels = b.js_async("""const done = arguments[arguments.length - 1];
            fetch(arguments[0]).then((r) => r.arrayBuffer()).then((buffer) => {
              const length = new DataView(buffer).getUint32(12, true);
              const gltf = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 20, length)));
              done((gltf.animations ?? []).map((a) => a.channels.length));
            }, (e) => done(String(e)));""", glb) if glb else None
        check("the GLB for Scene Viewer carries the models as an animation (a channel each); the USDZ one model",
              "model=all" in glb and channels == [models] and "model=" not in usdz, f"{glb} → {channels}; {usdz}")
        web.keep_csp(b)
    finally:
        b.close()
