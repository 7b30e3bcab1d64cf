// Measurements in Explore's 3D view, in the atomic styles (ball and stick, sticks, spacefill): with
// Measure on, taps pick atoms, two for a distance, a third for an angle, a fourth for a dihedral
// (Done or Escape keeps what has been tapped). Each is drawn as a dashed line with its value ("3.42 Å",
// "109.5°", "−62.3°"), upright and readable at any angle (SVG over the canvas, placed after every
// frame), listed under the view with × to remove it, and drawn in AR too, as dashed tubes handed to
// the viewer while a WebXR session draws. Values come from the identify table's coordinates (identify.json,
// the file's own Å), not from the model's vertices; the drawing follows the model shown (atom-places.js
// finds where it draws those coordinates), so a style change moves nothing.
//
// setupMeasure(...) returns the interface others use (view links among them):
//   list()                 the atoms of each measurement, [[a, b], [a, b, c], …] (identify table indices)
//   restore(lists, table?) shows those measurements instead (a Promise; the molecule's table is
//                          fetched when not given); lists of 2 to 4 distinct atoms, others are dropped
//   clear()                no measurements (another molecule)
//   pins()                 each measurement's value and where it stands (model coordinates), for AR's
//                          overlay (ar-identify.js writes them beside the dashed tubes)
//   modelChanged()         a new model is shown (a style, a colour, an ensemble's next model): the lines
//                          follow it, and Measure shows in atomic styles only
import { atomPlaces } from './atom-places.js';
import { pickFeature } from './pick.js';
import { ATOMIC_STYLES, describe, identifyTable } from './identify.js';
import { KINDS, dashedTubes, formatValue, measureValue } from './measure-geometry.js';
import { linearColor } from './strokes.js';

const AR_COLOUR = linearColor('#c2189b');  // as .measure-line's stroke in app.css
const AR_TUBE_RADIUS_A = 0.12;
const AR_TUBE_RADIUS_OF_MODEL = 0.005;     // of the model's bounding radius
const SVG = 'http://www.w3.org/2000/svg';
// Where a value is written, as weights of its atoms: at a distance's middle, inside an angle (between
// its two lines' middles), at the middle of a dihedral's axis; a single atom tapped has none.
const VALUE_WEIGHTS = { 1: [1], 2: [0.5, 0.5], 3: [0.25, 0.5, 0.25], 4: [0, 0.5, 0.5, 0] };
const NEXT = [
  'Tap an atom to start a measurement.',
  'Tap a second atom for a distance.',
  'Tap a third atom for an angle, or press Done.',
  'Tap a fourth atom for a dihedral, or press Done.',
];

/**
 * @param {{$: Function, el: Function, say: Function, viewer: () => object|null,
 *   molecule: () => ({id: string}|null), style: () => string}} app
 * @returns {{list: () => number[][], restore: (lists: number[][], table?: object) => Promise<void>,
 *   clear: () => void, pins: () => Array<{text: string, point: number[]}>, modelChanged: () => void}}
 */
export function setupMeasure({ $, el, say, viewer, molecule, style }) {
  const canvas = $('viewer'), bar = $('measure-bar'), toggle = $('measure-toggle'), done = $('measure-done');
  const hint = $('measure-hint'), layer = $('measure-layer'), list = $('measure-list');
  let measurements = [];  // { atoms, kind, value, text, words }
  let building = [];      // atoms tapped for the measurement being made
  let table = null;       // the identify table of the molecule shown, once a tap or restore needed it
  let measuring = false;
  let ar = null;          // { key, model, upload }: the dashed tubes the viewer draws in AR
  let drawn = [];         // what render() made for each measurement shown: { atoms, group, text }

  // ---- Words ----

  // Atoms in words: "Arg 88 NH1 – Glu 12 OE1", with their chain where the molecule has several
  // ("…, chain B" when all are in one, else "Arg 88 NH1 (A) – Glu 12 OE1 (B)").
  function atomWords(atoms) {
    const chainOf = (atom) => table.residues.chain[table.atoms.residue[atom]];
    const chains = new Set(atoms.map(chainOf));
    const several = new Set(table.residues.chain).size > 1;
    const words = atoms.map((atom) => `${describe(table, atom, { atomic: true }).residue} ${table.atoms.name[atom]}`
      + (several && chains.size > 1 ? ` (${chainOf(atom)})` : '')).join(' – ');
    return several && chains.size === 1 ? `${words}, chain ${chainOf(atoms[0])}` : words;
  }

  function measurement(atoms) {
    const kind = KINDS[atoms.length];
    const value = measureValue(atoms.map(coordinates));
    return { atoms, kind, value, text: formatValue(kind, value), words: atomWords(atoms) };
  }

  const capital = (word) => word[0].toUpperCase() + word.slice(1);

  // ---- Where atoms are ----

  // An atom's coordinates in Å, as the file gives them.
  function coordinates(atom) {
    const xyz = table.atoms.xyz;
    return [xyz[3 * atom], xyz[3 * atom + 1], xyz[3 * atom + 2]];
  }

  // Where the model shown draws an atom (the viewer's model coordinates), or null.
  function pointOf(atom) {
    const model = viewer()?.model;
    const places = model && table ? atomPlaces(model, table) : null;
    return places ? places.place(coordinates(atom)) : null;
  }

  const shown = () => (building.length ? [...measurements, { atoms: building, building: true }] : measurements);

  // ---- Drawing in the view ----

  const svg = (tag, attributes = {}) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
    return node;
  };

  // Each measurement's lines and atoms in a group of its own; the values in one group over them all,
  // so no line crosses a value.
  function render() {
    drawn = shown().map((m) => {
      const atoms = m.atoms.join(' ');
      const group = svg('g', { class: m.building ? 'measurement building' : 'measurement', 'data-atoms': atoms });
      const segments = m.atoms.length - 1;
      for (let i = 0; i < segments; i++) group.append(svg('line', { class: 'measure-halo' }));
      for (let i = 0; i < segments; i++) group.append(svg('line', { class: 'measure-line' }));
      for (let i = 0; i < m.atoms.length; i++) group.append(svg('circle', { class: 'measure-atom', r: '3.5' }));
      const text = svg('text', { class: 'measure-value', 'data-atoms': atoms, 'text-anchor': 'middle', 'dominant-baseline': 'central' });
      text.textContent = m.building ? (m.atoms.length > 1 ? measurement(m.atoms).text : '') : m.text;
      return { atoms: m.atoms, group, text };
    });
    const values = svg('g', { class: 'measure-values' });
    values.append(...drawn.map((d) => d.text));
    layer.replaceChildren(...drawn.map((d) => d.group), values);
    list.replaceChildren(...measurements.map((m) => el('li', {},
      el('span', { class: 'measure-words' }, el('strong', {}, `${capital(m.kind)} ${m.text}`), ' ', el('span', { class: 'meta' }, m.words)),
      el('button', { type: 'button', class: 'measure-remove', 'aria-label': `Remove the ${m.kind} ${m.text}, ${m.words}`,
        onclick: () => remove(m) }, '×'))));
    list.hidden = measurements.length === 0;
    done.hidden = !measuring || building.length === 0;
    place();
    viewer()?.requestRender();
  }

  // After every frame: each line from atom to atom where the view shows them now.
  function place() {
    const v = viewer();
    for (const { atoms, group, text } of drawn) {
      const points = atoms.map(pointOf);
      const at = v && points.every(Boolean) ? points.map((p) => v.project(p)) : null;
      const visible = Boolean(at?.every((p) => p.inFront));
      group.setAttribute('visibility', visible ? 'visible' : 'hidden');
      text.setAttribute('visibility', visible ? 'visible' : 'hidden');
      if (!visible) continue;
      const n = at.length;
      const lines = group.querySelectorAll('line');
      const circles = group.querySelectorAll('circle');
      for (let i = 0; i < n - 1; i++) {
        for (const line of [lines[i], lines[n - 1 + i]]) {
          line.setAttribute('x1', at[i].x.toFixed(1));
          line.setAttribute('y1', at[i].y.toFixed(1));
          line.setAttribute('x2', at[i + 1].x.toFixed(1));
          line.setAttribute('y2', at[i + 1].y.toFixed(1));
        }
      }
      at.forEach((p, i) => { circles[i].setAttribute('cx', p.x.toFixed(1)); circles[i].setAttribute('cy', p.y.toFixed(1)); });
      const weights = VALUE_WEIGHTS[n];
      const x = at.reduce((s, p, i) => s + p.x * weights[i], 0), y = at.reduce((s, p, i) => s + p.y * weights[i], 0);
      text.setAttribute('x', x.toFixed(1));
      text.setAttribute('y', (y - 12).toFixed(1));
    }
  }

  // ---- Drawing in AR: dashed tubes the viewer draws in AR frames only, while a WebXR session draws ----

  function showInAR() {
    const v = viewer();
    if (!v) return;
    const lined = shown().filter((m) => m.atoms.length > 1);
    const key = lined.map((m) => m.atoms.join(',')).join(';');
    if (ar && ar.key === key && ar.model === v.model) return;
    dropAR(v);
    const lines = [];
    for (const m of lined) {
      const points = m.atoms.map(pointOf);
      if (points.every(Boolean)) for (let i = 0; i + 1 < points.length; i++) lines.push([points[i], points[i + 1]]);
    }
    const places = v.model && table ? atomPlaces(v.model, table) : null;
    // A tube at least 0.12 Å thick, and about a millimetre on the 30 cm molecule AR first stands on
    // the table, however many Å that is (half a bond on a small protein, more on a big one).
    const radius = places && Math.max(AR_TUBE_RADIUS_A * places.unit, AR_TUBE_RADIUS_OF_MODEL * v.bounds.radius);
    const mesh = places ? dashedTubes(lines, radius, AR_COLOUR) : null;
    const upload = mesh ? v.uploadOverlay(mesh) : null;
    ar = { key, model: v.model, upload };
    if (upload) v.setXRExtras([upload]);
  }

  function dropAR(v = viewer()) {
    if (!ar) return;
    if (ar.upload && v) { v.setXRExtras([]); v.releaseOverlay(ar.upload); }
    ar = null;
  }

  canvas.addEventListener('viewer-frame', (e) => {
    if (e.detail?.xr) { showInAR(); return; }
    // The page's own frames never draw the tubes (the SVG shows the measurements); after AR they go.
    if (ar && $('ar-overlay')?.hidden !== false) dropAR();
    place();
  });

  // ---- Measuring ----

  // The line beside Measure that says what to do next (a live status: screen readers hear it).
  function guide(text) { hint.textContent = text; }

  async function tapped({ x, y }) {
    const v = viewer();
    const m = molecule();
    if (!measuring || !v?.model || !m) return;
    const hit = pickFeature(v, x, y);
    if (!hit) return;
    let t;
    try {
      t = await identifyTable(m.id);
    } catch (error) {
      say(`Cannot measure here: ${error.message}.`, { error: true });
      return;
    }
    if (molecule()?.id !== m.id || !measuring || hit.feature >= t.atoms.name.length) return;
    table = t;
    if (building.includes(hit.feature)) {
      guide(`${atomWords([hit.feature])} is already in this measurement: tap another atom.`);
      return;
    }
    building = [...building, hit.feature];
    if (building.length === 4) { finish(); return; }
    const now = building.length > 1 ? measurement(building) : null;
    guide(now ? `${capital(now.kind)} ${now.text}. ${NEXT[building.length]}` : `${atomWords([hit.feature])}. ${NEXT[1]}`);
    render();
  }

  // The measurement being made joins the list when it has two atoms or more.
  function finish() {
    const atoms = building;
    building = [];
    if (atoms.length >= 2) {
      const m = measurement(atoms);
      measurements.push(m);
      say(`${capital(m.kind)} ${m.text}: ${m.words}.`);
      guide(`${capital(m.kind)} ${m.text} measured. ${NEXT[0]}`);
    } else {
      guide(NEXT[0]);
    }
    render();
  }

  function start() {
    measuring = true;
    toggle.setAttribute('aria-pressed', 'true');
    guide(NEXT[0]);
    render();
  }

  function stop() {
    if (building.length >= 2) finish();
    building = [];
    measuring = false;
    toggle.setAttribute('aria-pressed', 'false');
    guide('');
    render();
  }

  function remove(m) {
    measurements = measurements.filter((k) => k !== m);
    render();
    say(`Removed the ${m.kind} ${m.text}.`);
  }

  canvas.addEventListener('viewer-tap', (e) => tapped(e.detail));
  toggle.addEventListener('click', () => (measuring ? stop() : start()));
  done.addEventListener('click', finish);
  // Escape on the view, on Measure's own buttons or on nothing in particular (not in a box or the
  // sequence strip, whose Escape is their own).
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !measuring || document.querySelector('dialog[open]') || $('view-explore').hidden) return;
    if (e.target !== document.body && e.target !== canvas && !bar.contains(e.target)) return;
    if (building.length) finish();
    else stop();
  });

  return {
    list: () => measurements.map((m) => m.atoms.slice()),
    async restore(lists, given) {
      const m = molecule();
      const t = given ?? (m ? await identifyTable(m.id) : null);
      if (!t || (!given && molecule()?.id !== m.id)) return;
      table = t;
      const count = t.atoms.name.length;
      building = [];
      measurements = (lists ?? []).filter((atoms) => Array.isArray(atoms) && atoms.length >= 2 && atoms.length <= 4
        && atoms.every((a) => Number.isInteger(a) && a >= 0 && a < count) && new Set(atoms).size === atoms.length)
        .map((atoms) => measurement(atoms.slice()));
      render();
    },
    pins() {
      return shown().filter((m) => m.atoms.length > 1).flatMap((m) => {
        const points = m.atoms.map(pointOf);
        if (!points.every(Boolean)) return [];
        const weights = VALUE_WEIGHTS[points.length];
        const point = [0, 1, 2].map((k) => points.reduce((s, p, i) => s + p[k] * weights[i], 0));
        return [{ text: m.building ? measurement(m.atoms).text : m.text, point, measurement: true }];
      });
    },
    clear() {
      measurements = [];
      building = [];
      table = null;
      if (measuring) guide(NEXT[0]);
      render();
    },
    modelChanged() {
      const atomic = ATOMIC_STYLES.has(style());
      bar.hidden = !atomic || !viewer()?.model;
      // The lines find their atoms in the new model; the list and the layer's parts stay as they are
      // (an ensemble's player calls this for each model it shows).
      if (!atomic && measuring) stop();
      else { place(); viewer()?.requestRender(); }
    },
  };
}
