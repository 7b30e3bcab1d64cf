// A view is a link: Explore's address names the molecule and how it is shown, in short readable
// parameters after its ID, so that opening the address (a link, a QR code, a reload) shows the same
// view: #/explore/1AKE?style=ball-and-stick&color=chain&highlight=A:10-50&view=q0.12,0.3,0.1,0.94;d0.8;t0.01,0.12,0
// &labels=A:13,A:88&measure=101-230,5-9-12. The address bar follows the view as it changes (replaced,
// never a new history entry), and Share view hands the link to the system's share sheet on a phone,
// or copies it and shows it with its QR code. What each parameter holds:
//   style, color, hide, highlight, sticks, site: the model's options, as the server takes them (only
//     those that differ from the page's own defaults; site is the binding-site view, interactions.js);
//   view: the camera about the model's framing: q its rotation (a quaternion), d its distance as a
//     multiple of the first view's (d0.5 is twice as close), t where it looks, from the model's middle
//     in model radii (the same model options frame a model the same way, on any screen);
//   labels: the labelled residues, as chain:number (the Highlight box's words);
//   measure: each measurement's atoms (indices into the molecule's identify table), joined by '-'.
import { identifyTable } from './identify.js';
import { addressForPhones, drawQR } from './qr.js';
import { copyLinkOnClick } from './copy-link.js';

const PARAMS = ['style', 'color', 'hide', 'highlight', 'sticks', 'site', 'view', 'labels', 'measure'];
const WRITE_AFTER_MS = 400;   // the address follows the view once it has been still this long
const HIDE = ['water', 'ligands', 'hydrogens'];

// Characters a link keeps as they are (readable, and valid in an address's fragment); the rest
// are escaped, '&', '=', '/' and '?' among them.
const escape = (text) => String(text).replace(/[^A-Za-z0-9\-_.:,;~]/g, (c) => encodeURIComponent(c));
const trim = (x, decimals) => String(Number(x.toFixed(decimals)) || 0);  // -0 and NaN are 0
const short = (x) => String(Number(x.toPrecision(4)));

/** The camera of `viewer` as a link says it: {q: [x, y, z, w], d, t: [x, y, z]} (see the top). */
export function cameraOf(viewer) {
  const orbit = viewer._orbit;
  return {
    q: Array.from(orbit.rotation),
    d: orbit.distance / orbit.fitDistance(),
    t: [0, 1, 2].map((k) => (orbit.target[k] - orbit.center[k]) / orbit.radius),
  };
}

/** Puts `viewer`'s camera where `view` (cameraOf's form) says, about the model shown. */
export function setCamera(viewer, view) {
  const orbit = viewer._orbit;
  const norm = Math.hypot(...view.q) || 1;
  view.q.forEach((v, k) => { orbit.rotation[k] = v / norm; });
  orbit.distance = view.d * orbit.fitDistance();
  view.t.forEach((v, k) => { orbit.target[k] = orbit.center[k] + v * orbit.radius; });
  orbit.userMoved = true;  // a new size of the window keeps this view rather than refitting
  viewer.requestRender();
}

function writeView({ q, d, t }) {
  const text = `q${q.map((v) => trim(v, 4)).join(',')};d${short(d)};t${t.map((v) => trim(v, 4)).join(',')}`;
  return text === 'q0,0,0,1;d1;t0,0,0' ? null : text;  // the first view goes without saying
}

/** A camera (cameraOf's form) as a link's `view=` text ("q…;d…;t…"): a lesson's steps and presentations carry it. */
export function cameraWords(view) {
  return writeView(view) ?? 'q0,0,0,1;d1;t0,0,0';  // a link leaves the first view out; a lesson says it
}

/** A link's `view=` text as cameraOf's form, or null when it does not read. */
export function readCamera(text) {
  const parts = Object.fromEntries(text.split(';').map((p) => [p[0], p.slice(1).split(',').map(Number)]));
  const { q, d, t } = parts;
  const ok = q?.length === 4 && d?.length === 1 && t?.length === 3 && [...q, ...d, ...t].every(Number.isFinite)
    && Math.hypot(...q) > 0 && d[0] > 0;
  return ok ? { q, d: Math.min(50, Math.max(0.01, d[0])), t } : null;
}

/**
 * The address of a view: `state` is {id, style, color, hide, highlight, sticks, view (cameraOf's
 * form), labels (['A:13', …]), measure ([[atom, …], …])}; what is missing or empty is left out.
 * `base`: the page's address, whose fragment is replaced.
 */
export function viewLink(state, base = location.href) {
  const values = {
    ...state,
    view: state.view ? writeView(state.view) : null,
    labels: state.labels?.join(','),
    measure: state.measure?.map((atoms) => atoms.join('-')).join(','),
  };
  const query = PARAMS.filter((k) => values[k]).map((k) => `${k}=${escape(values[k])}`).join('&');
  const url = new URL(base);
  url.hash = `#/explore/${encodeURIComponent(state.id)}${query ? `?${query}` : ''}`;
  return url.href;
}

/**
 * What an address's fragment (`#/explore/1AKE?…`) names: {id, state}, `state` null when the address
 * carries no view (a plain #/explore/1AKE), else viewLink's `state` (what it leaves out is undefined;
 * a parameter that does not read is left out too).
 */
export function readViewLink(hash) {
  const [path, query] = hash.replace(/^#/, '').split(/\?(.*)/s);
  const [, screen, id = ''] = path.split('/');
  const safe = (text) => { try { return decodeURIComponent(text); } catch { return ''; } };
  if (screen !== 'explore') return { id: '', state: null };
  if (query === undefined) return { id: safe(id), state: null };
  const raw = Object.fromEntries(query.split('&').map((pair) => pair.split(/=(.*)/s)).map(([k, v = '']) => [k, safe(v)]));
  const list = (text) => (text ?? '').split(',').filter(Boolean);
  const measure = list(raw.measure).map((m) => m.split('-').map(Number))
    .filter((atoms) => atoms.length >= 2 && atoms.length <= 4 && atoms.every((a) => Number.isInteger(a) && a >= 0));
  return {
    id: safe(id),
    state: {
      style: raw.style || undefined, color: raw.color || undefined, hide: raw.hide || undefined,
      highlight: raw.highlight || undefined, sticks: raw.sticks || undefined, site: raw.site || undefined,
      view: raw.view ? readCamera(raw.view) ?? undefined : undefined,
      labels: list(raw.labels), measure,
    },
  };
}

// A residue as a link names it ("A:88", "A:52B") and back, through the identify table.
const residueWords = (table, r) => `${table.residues.chain[r]}:${table.residues.number[r]}${table.residues.insertion[r] ?? ''}`;
export function residuesNamed(table, words) {
  const index = new Map();
  for (let r = table.residues.chain.length - 1; r >= 0; r--) index.set(residueWords(table, r), r);
  return words.map((w) => index.get(w)).filter((r) => r !== undefined);
}

/**
 * Explore's view link: the address bar follows the view, an address with a view is shown as it
 * says, and Share view shares it.
 * @param {{$: Function, say: Function, viewer: () => object|null, molecule: () => ({id: string, title: string}|null),
 *   options: () => object, setSticks: (selection: string) => void, setSite?: (site: string, id: string) => void,
 *   labels: object, measure: object|null}} app
 *   options: the model's options as asked for (explore.js's modelOptions); setSticks: the residues
 *   drawn as sticks over the style; setSite: the binding-site view of molecule `id` ('' for none,
 *   interactions.js); labels: labels.js's; measure: measure.js's (list, restore, clear), or null
 * @returns {{arrive: (hash: string) => {id: string, rebuild: boolean}, modelShown: () => void, link: () => Promise<string|null>}}
 *   arrive: the address changed (a link opened): sets the controls it names, and returns the
 *   molecule and whether the model shown must be built again; modelShown: call once a model is shown
 */
export function setupViewLink({ $, say, viewer, molecule, options, setSticks, setSite, labels, measure }) {
  const style = $('style'), colour = $('color'), highlight = $('highlight');
  const defaults = { style: style.value, color: colour.value, hide: options().hide };
  let pending = null;     // the view an address asked for, shown once its model is
  let written = null;     // the last address this module wrote or followed
  let known = null;       // {id, table}: the identify table of the molecule shown, once needed
  let timer = 0;

  async function tableOf(id) {
    if (known?.id !== id) known = { id, table: await identifyTable(id) };
    return known.table;
  }

  // The view shown, as viewLink's state; the labels and measurements need the identify table.
  async function stateNow() {
    const m = molecule(), v = viewer();
    if (!m || !v?.model) return null;
    const o = options();
    const marks = { labels: labels.serialize(), measure: measure?.list() ?? [] };
    const table = marks.labels.length ? await tableOf(m.id) : null;
    return {
      id: m.id,
      style: o.style !== defaults.style ? o.style : null,
      color: (o.color ?? '') !== defaults.color ? o.color || 'auto' : null,
      hide: o.hide !== defaults.hide ? o.hide : null,
      highlight: o.highlight, sticks: o.sticks, site: o.site,
      view: cameraOf(v),
      labels: table ? marks.labels.map((r) => residueWords(table, r)) : [],
      measure: marks.measure,
    };
  }

  const addressedID = () => readViewLink(location.hash).id;

  // The address bar follows the view (no new history entry), once it is still.
  async function write() {
    if (pending && pending.id !== addressedID()) pending = null;  // another molecule was opened since
    if (pending) return;
    const state = await stateNow().catch(() => null);  // no identify table: the address waits
    if (!state || pending || addressedID() !== state.id || molecule()?.id !== state.id) return;
    const hash = new URL(viewLink(state)).hash;
    if (location.hash !== hash) history.replaceState(history.state, '', hash);
    written = location.hash;
  }
  const schedule = () => { clearTimeout(timer); timer = setTimeout(write, WRITE_AFTER_MS); };
  // Every change of the view draws a frame: a turn, a style, a label, a measurement.
  $('viewer').addEventListener('viewer-frame', schedule);

  // The controls as `state` says (its defaults for what it leaves out), for molecule `id`.
  function setControls(state, id) {
    const pick = (select, value, fallback) => {
      select.value = [...select.options].some((o) => o.value === value) ? value : fallback;
    };
    pick(style, state.style, defaults.style);
    pick(colour, state.color === 'auto' ? '' : state.color, defaults.color);
    highlight.value = state.highlight ?? '';
    const hide = (state.hide ?? defaults.hide).split(',');
    for (const what of HIDE) $(`hide-${what}`).checked = hide.includes(what);
    setSticks(state.sticks ?? '');
    setSite?.(state.site ?? '', id);
  }

  // The camera, labels and measurements an address asked for, on the model now shown.
  async function showPending() {
    const wanted = pending, v = viewer();
    if (!wanted || !v?.model || molecule()?.id !== wanted.id) return;
    if (wanted.view) setCamera(v, wanted.view); else v.resetView();
    try {
      const table = wanted.labels.length || wanted.measure.length ? await tableOf(wanted.id) : null;
      if (pending !== wanted) return;
      labels.restore(table, table ? residuesNamed(table, wanted.labels) : []);
      if (table && wanted.measure.length) await measure?.restore(wanted.measure, table);
      else measure?.clear();
    } catch (error) {
      say(`The link's labels cannot be shown: ${error.message}.`, { error: true });
    } finally {
      if (pending === wanted) pending = null;
      schedule();
    }
  }

  // ---- Share view: the share sheet on a phone; elsewhere the link copied, and shown with its QR code ----
  async function share() {
    clearTimeout(timer);
    let state;
    try {
      state = await stateNow();
    } catch (error) {
      say(`The view cannot be shared: ${error.message}.`, { error: true });
      return;
    }
    if (!state) return;
    const here = viewLink(state);
    if (location.hash !== new URL(here).hash) history.replaceState(history.state, '', new URL(here).hash);
    written = location.hash;
    // On this computer's own address (localhost), the address a phone or another person reaches.
    const { url, why } = await addressForPhones(here);
    const link = url ?? here;
    const title = `${state.id}: ${molecule()?.title ?? ''}`;
    if (navigator.share && matchMedia('(pointer: coarse)').matches) {
      try {
        await navigator.share({ title, url: link });
        return;
      } catch (error) {
        if (error.name === 'AbortError') return;  // the person closed the sheet
      }
    }
    let copied = false;
    try { await navigator.clipboard.writeText(link); copied = true; } catch { /* the dialog shows it to copy */ }
    say(copied ? 'Link copied: it opens this view.' : 'Copy the link below: it opens this view.');
    $('view-link-text').value = link;
    $('view-link-why').hidden = !why;
    $('view-link-why').textContent = why ?? '';
    $('view-link-qr').hidden = true;
    $('view-link-dialog').showModal();
    $('view-link-text').select();
    $('view-link-qr').hidden = !url || !(await drawQR($('view-link-qr'), url, { moduleSize: 4 }));
  }
  $('share-view').addEventListener('click', share);
  $('view-link-text').addEventListener('focus', (e) => e.target.select());
  copyLinkOnClick($('view-link-copy'), $('view-link-text'), say,
    { copied: 'Link copied: it opens this view.', select: 'Select the link and copy it.' });

  return {
    arrive(hash) {
      const { id, state } = readViewLink(hash);
      if (!state || hash === written) return { id, rebuild: false };
      written = hash;
      const before = JSON.stringify(options());
      setControls(state, id);
      const same = molecule()?.id === id;
      const rebuild = same && JSON.stringify(options()) !== before;
      pending = { ...state, id };
      if (same && !rebuild && viewer()?.model) showPending();
      return { id, rebuild };
    },
    modelShown() {
      if (pending) showPending();
      else schedule();
    },
    /** The view shown as its link (viewLink's address), or null with no model shown (a lesson's step: lesson-add-step.js). */
    async link() {
      const state = await stateNow();
      return state && viewLink(state);
    },
  };
}
