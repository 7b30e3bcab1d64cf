// Interactions, in Explore under the 3D view: what holds each ligand of the molecule shown. The
// server finds them (GET /api/molecules/{id}/interactions, InteractionReport: PLIP's criteria, see
// docs/interactions.md); this panel reads that report once per molecule, when it is first opened,
// and shows a ligand chooser (additives last), the chosen ligand's counts ("14 H-bonds, 10 salt
// bridges, …"), a legend and its interactions in words, grouped by kind. Show binding site asks the
// model again with `site=` (the ligand in ball and stick, its site as sticks, a faded cartoon, each
// interaction a dashed tube in its kind's colour) and frames the camera on it; pressed again, the
// style shown before comes back. A tapped interaction lights its residues (tint.js, as the sequence
// strip lights its own: no model is asked for) and turns the view about it.
//
// setupInteractions(...) returns what explore.js needs:
//   show(id)          another molecule (or the same one again)
//   site()            the model's `site` option ('' for none): modelOptions() adds it
//   setSite(text, id) a view link names a site for molecule `id` (view-link.js)
//   modelChanged()    a new model is in the view: the lit interaction is lit again, the site framed
import { getJSON } from './api.js';
import { atomPlaces } from './atom-places.js';
import { identifyTable } from './identify.js';
import { mat4 } from './math.js';
import { tintResidues } from './tint.js';
import { cameraOf, setCamera } from './view-link.js';

const FILL = 0.8;           // of the view's half-size that the site's farthest atom reaches, framed
const SIGHT_RADIUS = 6;     // Å: atoms this near the line from the camera to the ligand hide it
const SIGHT_LENGTH = 40;    // Å: how far out from the ligand they are counted
const SIDES = 96;           // directions tried, evenly spread over the sphere
// Counts in words: "1 H-bond", "14 H-bonds" (the legend's words, made plural).
const PLURAL = {
  'hydrogen-bond': 'H-bonds', 'salt-bridge': 'salt bridges', 'pi-stacking': 'π-stackings',
  'cation-pi': 'cation–π interactions', hydrophobic: 'hydrophobic contacts', 'halogen-bond': 'halogen bonds',
  'metal-complex': 'metal coordinations', 'water-bridge': 'water bridges',
};
const SINGULAR = { 'cation-pi': 'cation–π interaction' };

const reports = new Map();  // molecule id → Promise of its InteractionReport

/** The interactions of molecule `id` (fetched once; a failed fetch is tried again next time). */
export function interactionsOf(id) {
  if (!reports.has(id)) {
    const loading = getJSON(`/api/molecules/${encodeURIComponent(id)}/interactions`);
    loading.catch(() => reports.delete(id));
    reports.set(id, loading);
  }
  return reports.get(id);
}

/** The ligand as the site option names it: chain:number of its first residue ("A:215"). */
export function siteOption(site) {
  const first = site.ligand[0];
  return first.chain ? `${first.chain}:${first.number}` : first.residue;
}

const ligandWords = (site) => site.ligand.map((r) => `${r.residue} ${r.chain}${r.number}`).join(' + ');

/**
 * @param {{$: Function, el: Function, say: Function, viewer: () => object|null,
 *   molecule: () => ({id: string}|null), show: () => void}} app show: asks for the model again (explore.js's showModel)
 */
export function setupInteractions({ $, el, say, viewer, molecule, show }) {
  const panel = $('interactions'), chooser = $('interactions-ligand'), toggle = $('interactions-site');
  const said = $('interactions-said'), counts = $('interactions-counts'), legend = $('interactions-legend'), list = $('interactions-list');
  let id = null;        // the molecule whose interactions these are
  let report = null;    // its report, once read
  let sites = [];       // its sites, additives last
  let chosen = 0;       // the site shown (index into sites)
  let site = '';        // the model's site option
  let siteFor = null;   // the molecule `site` names a ligand of
  let frame = false;    // frame the camera on the site once its model is shown
  let lit = null;       // { index, residues, words }: the interaction tapped, lit in the view
  let table = null;     // the identify table of `id`, once needed

  const kinds = () => new Map((report?.legend ?? []).map((k) => [k.kind, k]));
  const swatch = (color) => el('span', { class: 'swatch', 'aria-hidden': 'true', style: { '--swatch': color } });
  const countWords = (kind, n) => `${n} ${n === 1 ? SINGULAR[kind] ?? kinds().get(kind)?.words ?? kind : PLURAL[kind] ?? `${kinds().get(kind)?.words ?? kind}s`}`;

  // ---- The report ----

  async function load() {
    const forId = id;
    if (!forId || report) return;
    said.textContent = 'Finding what holds each ligand…';
    try {
      const r = await interactionsOf(forId);
      if (forId !== id) return;
      report = r;
      sites = [...r.sites.filter((s) => !s.additive), ...r.sites.filter((s) => s.additive)];
    } catch (error) {
      if (forId === id) said.textContent = `The interactions could not be read: ${error.message}. Close and open Interactions to try again.`;
      return;
    }
    const wanted = sites.findIndex((s) => siteFor === id && [siteOption(s), s.ligand[0].residue].includes(site));
    chosen = Math.max(0, wanted);
    chooser.replaceChildren(...sites.map((s, i) => el('option', { value: String(i) },
      `${ligandWords(s)}${s.additive ? ' (additive)' : ''} · ${s.interactions.length} interaction${s.interactions.length === 1 ? '' : 's'}`)));
    chooser.value = String(chosen);
    render();
  }

  function render() {
    const s = sites[chosen];
    $('interactions-controls').hidden = !s;
    counts.hidden = legend.hidden = !s;
    toggle.setAttribute('aria-pressed', String(Boolean(site && siteFor === id)));
    if (!report) return;
    if (!s) {
      said.textContent = 'This molecule has no ligand: nothing binds it here.';
      list.replaceChildren();
      return;
    }
    said.textContent = `${sites.length} ligand${sites.length === 1 ? '' : 's'}. Tap an interaction to light its residues in the view.`;
    const present = (report.legend ?? []).filter((k) => s.counts[k.kind]);
    const tally = present.map((k) => countWords(k.kind, s.counts[k.kind]));
    counts.textContent = `${ligandWords(s)}: ${tally.length ? tally.join(', ') : 'no interactions'}; ${s.site.length} residues within ${report.siteRadius} Å.`;
    legend.replaceChildren(...present.map((k) => el('li', {}, swatch(k.color), k.words)));
    legend.hidden = present.length === 0;
    list.replaceChildren(...present.map((k) => {
      const heading = `interactions-${k.kind}`;
      return el('section', { class: 'interaction-group', 'aria-labelledby': heading },
        el('h3', { id: heading }, swatch(k.color), `${k.words[0].toUpperCase()}${k.words.slice(1)} · ${s.counts[k.kind]}`),
        el('ul', {}, ...s.interactions.map((i, index) => [i, index]).filter(([i]) => i.kind === k.kind).map(([i, index]) => el('li', {},
          el('button', { type: 'button', class: 'interaction', 'data-interaction': String(index), 'aria-pressed': String(lit?.index === index),
            style: { '--swatch': k.color }, onclick: () => tapped(index) }, i.words)))));
    }));
  }

  // ---- Show binding site: the model with site=, the camera on it ----

  function setSite(text, forId) {
    site = text;
    siteFor = text ? forId : null;
    frame = false;
    lit = null;
    if (text && forId === id) {
      const wanted = sites.findIndex((s) => [siteOption(s), s.ligand[0].residue].includes(text));
      if (wanted >= 0 && wanted !== chosen) { chosen = wanted; chooser.value = String(chosen); }
    }
    if (text) panel.open = true;  // a link that names a site shows its interactions
    render();
  }

  toggle.addEventListener('click', () => {
    const s = sites[chosen];
    if (!s || !id) return;
    const on = !(site && siteFor === id);
    setSite(on ? siteOption(s) : '', id);
    frame = on;
    say(on ? `Showing the binding site of ${ligandWords(s)}…` : 'Back to the style shown before…');
    show();
  });

  chooser.addEventListener('change', () => {
    chosen = Number(chooser.value);
    if (lit) { lit = null; tintResidues(viewer(), table, null); }
    if (site && siteFor === id) {
      setSite(siteOption(sites[chosen]), id);
      frame = true;
      show();
    } else {
      render();
    }
  });

  // The view turned to look at the ligand from the side where the least protein stands in the way,
  // centred on it, and zoomed so that it and its site fill most of the view.
  async function frameSite() {
    const m = molecule(), v = viewer(), s = sites[chosen];
    if (!m || !v?.model || !s) return;
    const t = await identifyTable(m.id).catch(() => null);
    if (!t || molecule()?.id !== m.id || viewer()?.model !== v.model) return;
    table = t;
    const places = atomPlaces(v.model, t);
    if (!places) return;
    const { residue: owner, xyz } = t.atoms;
    const at = (a) => [xyz[3 * a], xyz[3 * a + 1], xyz[3 * a + 2]];
    const ligandResidues = new Set(s.ligand.map((r) => r.index)), siteResidues = new Set(s.site.map((r) => r.index));
    const ligand = [], around = [];
    for (let a = 0; a < owner.length; a++) if (ligandResidues.has(owner[a])) ligand.push(a); else if (siteResidues.has(owner[a])) around.push(a);
    if (!ligand.length) return;
    const middle = mean(ligand.map(at));
    const others = [];
    for (let a = 0; a < owner.length; a++) if (!ligandResidues.has(owner[a]) && t.residues.kind[owner[a]] !== 'water') others.push(at(a));
    const centre = places.place(middle);
    const side = clearestSide(middle, others);
    const view = cameraOf(v);
    if (side) view.q = lookingAlong(view.q, places.place(middle.map((c, k) => c + side[k])).map((c, k) => c - centre[k]));
    setCamera(v, view);
    v.centreOn(centre);
    const points = [...ligand, ...around].map((a) => places.place(at(a)));
    const canvas = v.canvas;
    for (let step = 0; step < 4; step++) {
      const c = v.project(centre), w = canvas.clientWidth / 2, h = canvas.clientHeight / 2;
      let span = 0;
      for (const p of points) {
        const q = v.project(p);
        span = q.inFront ? Math.max(span, Math.abs(q.x - c.x) / w, Math.abs(q.y - c.y) / h) : Infinity;
        if (span === Infinity) break;
      }
      if (!(span > 0)) break;
      const now = cameraOf(v);
      setCamera(v, { ...now, d: now.d * (span === Infinity ? 2 : span / FILL) });
    }
    panel.dataset.framed = siteOption(s);
    const tally = (report.legend ?? []).filter((k) => s.counts[k.kind]).map((k) => countWords(k.kind, s.counts[k.kind]));
    say(`${m.id}: the binding site of ${ligandWords(s)}, ${s.site.length} residues within ${report.siteRadius} Å; dashes show ${tally.join(', ') || 'no interactions'}.`);
  }

  // ---- A tapped interaction: its residues lit, the view turned about it ----

  async function tapped(index) {
    const m = molecule(), v = viewer(), s = sites[chosen], i = s?.interactions[index];
    if (!m || !v?.model || !i) return;
    if (lit?.index === index) {
      lit = null;
      tintResidues(v, table, null);
      render();
      say(`${i.words}: no longer lit.`);
      return;
    }
    const t = await identifyTable(m.id).catch((error) => { say(`Cannot show it: ${error.message}.`, { error: true }); return null; });
    if (!t || molecule()?.id !== m.id) return;
    table = t;
    const atoms = [...i.ligand, ...i.partner, ...(i.water ? [i.water] : [])];
    const residues = new Set(atoms.map((a) => t.atoms.residue[a.index]));
    // One highlight at a time: the sequence strip's lets go (its own Clear), this one is lit.
    if (!$('sequence-clear').disabled) $('sequence-clear').click();
    lit = { index, residues };
    tintResidues(v, t, residues);
    const places = atomPlaces(v.model, t);
    const ends = [i.ligand, i.partner].map((part) => mean(part.map((a) => [0, 1, 2].map((k) => t.atoms.xyz[3 * a.index + k]))));
    if (places) v.centreOn(places.place(mean(ends)));
    render();
    const names = [...new Set(atoms.map((a) => `${a.residue} ${a.chain}${a.number}`))];
    say(`${i.words}. Lit: ${names.join(', ')}; the view turns about it.`);
  }

  // The sequence strip's own choice replaces the interaction lit here.
  $('sequence').addEventListener('click', () => { if (lit) { lit = null; render(); } });
  $('sequence').addEventListener('keydown', (e) => { if (lit && ['Enter', ' ', 'Escape'].includes(e.key)) { lit = null; render(); } });
  panel.addEventListener('toggle', () => { if (panel.open) load(); });
  // Another style is asked for in its own right: the binding-site view (which has its own) goes.
  $('style').addEventListener('change', () => { if (site) setSite('', id); });

  return {
    show(forId) {
      if (forId === id) return;
      id = forId;
      report = null;
      sites = [];
      chosen = 0;
      lit = null;
      table = null;
      if (siteFor !== id) { site = ''; siteFor = null; frame = false; }
      chooser.replaceChildren();
      list.replaceChildren();
      delete panel.dataset.framed;
      said.textContent = '';
      render();
      panel.hidden = false;
      if (panel.open) load();
    },
    site: () => (siteFor === id ? site : ''),
    setSite,
    modelChanged() {
      const v = viewer();
      if (!v?.model) return;
      if (lit && table) tintResidues(v, table, lit.residues);
      if (frame && site && siteFor === id) { frame = false; frameSite(); }
    },
  };
}

// The direction (a unit vector, Å) from `middle` in which the fewest atoms of `others` stand near
// the line of sight: where a camera sees the ligand past the least protein. Null when there are none.
function clearestSide(middle, others) {
  if (!others.length) return null;
  const golden = Math.PI * (3 - Math.sqrt(5));
  let best = null;
  for (let i = 0; i < SIDES; i++) {
    const z = 1 - (2 * i + 1) / SIDES, r = Math.sqrt(1 - z * z);
    const d = [Math.cos(golden * i) * r, Math.sin(golden * i) * r, z];
    let hidden = 0;
    for (const p of others) {
      const x = p[0] - middle[0], y = p[1] - middle[1], w = p[2] - middle[2];
      const along = x * d[0] + y * d[1] + w * d[2];
      if (along < 1 || along > SIGHT_LENGTH) continue;
      if (x * x + y * y + w * w - along * along < SIGHT_RADIUS * SIGHT_RADIUS) hidden++;
    }
    if (!best || hidden < best.hidden) best = { d, hidden };
  }
  return best.d;
}

function mean(points) {
  const sum = [0, 0, 0];
  for (const p of points) for (let k = 0; k < 3; k++) sum[k] += p[k];
  return sum.map((s) => s / Math.max(points.length, 1));
}

// The rotation (a quaternion, [x, y, z, w]) that looks along −`back` (the camera on the `back` side of
// what it looks at), keeping the view's up as near to `q`'s as it can.
function lookingAlong(q, back) {
  const m = mat4.fromQuat(mat4.create(), q);
  const z = unit(back), up0 = [m[1], m[5], m[9]];
  let x = cross(up0, z);
  if (Math.hypot(...x) < 1e-6) x = [m[0], m[4], m[8]];
  x = unit(x);
  const y = cross(z, x);
  // Rows x, y, z: the matrix that takes the model's axes to the camera's.
  const [m00, m01, m02] = x, [m10, m11, m12] = y, [m20, m21, m22] = z;
  const trace = m00 + m11 + m22;
  let r;
  if (trace > 0) {
    const s = Math.sqrt(trace + 1) * 2;
    r = [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4];
  } else if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2;
    r = [s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2;
    r = [(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = Math.sqrt(1 + m22 - m00 - m11) * 2;
    r = [(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s];
  }
  return r;
}

const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a) => { const l = Math.hypot(...a) || 1; return a.map((v) => v / l); };
