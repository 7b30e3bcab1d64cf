// The app shell: hash routes for the landing page, introduction, Explore, Build, Library and
// Draw together (rooms, a room, sign-in, profile, map); the top bar's Menu, Record, Camera and
// Exit; progress and errors announced in one live region.
import * as api from './api.js';
import { MoleculeViewer } from './viewer.js';
import { ARPlacement, immersiveARSupported } from './xr.js';
import { drawQR } from './qr.js';
import { setupBuild } from './build.js';
import { setupRooms } from './rooms.js';
import { setupRoomScreen } from './draw.js';
import { setupMap } from './map.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const views = ['landing', 'intro', 'explore', 'build', 'library', 'draw', 'room', 'signin', 'profile', 'map'];
let viewer = null;
let buildViewer = null;      // the Build screen's own 3D view
let build = null;
let current = null;          // the molecule shown in Explore
let loadController = null;   // aborts a load when another starts

function say(message, { error = false } = {}) {
  status.textContent = message;
  status.classList.toggle('error', error);
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) node.setAttribute(k, v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

// ---- Routing ----
function route() {
  const [, name = '', arg] = location.hash.split('/');
  // #/draw lists the rooms; #/draw/ROOMID is one room.
  const view = name === 'draw' && arg ? 'room' : views.includes(name) && name !== 'room' ? name : 'landing';
  for (const v of views) $(`view-${v}`).hidden = v !== view;
  if (view === 'room') roomScreen.open(decodeURIComponent(arg));
  else roomScreen.leave();
  if (view !== 'map') map.leave();
  if (view === 'draw' || view === 'signin' || view === 'profile') rooms.show(view, arg);
  if (view === 'map') map.show();
  if (view !== 'room' && document.title !== 'ProteinAR') document.title = 'ProteinAR';
  const inExplore = view === 'explore';
  $('exit-button').hidden = view === 'landing';
  if (view === 'library') showLibrary();
  if (inExplore) {
    ensureViewer();
    if (arg && decodeURIComponent(arg) !== current?.id) openMolecule(decodeURIComponent(arg));
  }
  if (view === 'build') {
    ensureBuildViewer();
    const [, , pieces, seed] = location.hash.split('/');
    if (pieces) build.open(decodeURIComponent(pieces), Number(seed) || 1);
  }
  updateAR();
  $('main').focus({ preventScroll: true });
}
window.addEventListener('hashchange', route);

// ---- Introduction ----
const pages = $('intro-pages');
pages.addEventListener('scroll', () => {
  const index = Math.round(pages.scrollLeft / pages.clientWidth);
  [...$('intro-dots').children].forEach((d, i) => d.classList.toggle('on', i === index));
});
pages.addEventListener('keydown', (e) => {
  if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
    pages.scrollBy({ left: (e.key === 'ArrowRight' ? 1 : -1) * pages.clientWidth, behavior: 'smooth' });
    e.preventDefault();
  }
});

// ---- Explore ----
function ensureViewer() {
  if (viewer) return viewer;
  try {
    // ?frame-timing makes each measured frame wait for the GPU (benchmarks only).
    const syncFrameTiming = new URLSearchParams(location.search).has('frame-timing');
    viewer = new MoleculeViewer($('viewer'), { background: '#ffffff', syncFrameTiming });
  } catch (error) {
    $('viewer-empty').textContent = error.message;
    say(error.message, { error: true });
    return null;
  }
  $('viewer').addEventListener('viewer-doubletap', () => $('style').focus());
  return viewer;
}

function ensureBuildViewer() {
  if (buildViewer) return buildViewer;
  try {
    buildViewer = new MoleculeViewer($('build-viewer'), { background: '#ffffff' });
  } catch (error) {
    $('build-viewer-empty').textContent = error.message;
    return null;
  }
  build.show();
  return buildViewer;
}
build = setupBuild({ $, el, say, viewer: () => buildViewer, onBuilt: () => updateAR() });
const rooms = setupRooms({ $, el, say });
const roomScreen = setupRoomScreen({ $, el, say, ready: rooms.ready, copyLinkButton: rooms.copyLinkButton, onSubjectChange: () => updateAR() });
const map = setupMap({ $, el, say });

function progress(fraction, label) {
  const box = $('progress');
  const bar = box.querySelector('.bar');
  box.hidden = fraction === null;
  if (fraction === null) return;
  bar.classList.toggle('indeterminate', fraction === undefined);
  if (fraction === undefined) bar.removeAttribute('aria-valuenow');
  else bar.setAttribute('aria-valuenow', String(Math.round(fraction * 100)));
  bar.querySelector('span').style.width = fraction === undefined ? '' : `${Math.round(fraction * 100)}%`;
  if (label) bar.setAttribute('aria-valuetext', label);
}

function modelOptions() {
  const hide = [];
  if ($('hide-water').checked) hide.push('water');
  if ($('hide-ligands').checked) hide.push('ligands');
  const options = { style: $('style').value, hide: hide.join(',') || 'none' };
  if ($('color').value) options.color = $('color').value;
  const highlight = $('highlight').value.trim();
  if (highlight) options.highlight = highlight;
  return options;
}

async function showModel() {
  if (!current || !ensureViewer()) return;
  loadController?.abort();
  const controller = (loadController = new AbortController());
  try {
    progress(undefined, 'Building the model');
    say(`Building the ${$('style').selectedOptions[0].text.toLowerCase()} model of ${current.id}…`);
    const url = await api.prepareModel(current.id, 'glb', modelOptions(), {
      signal: controller.signal,
      onProgress: (p) => say(p.message),
    });
    await viewer.load(url, {
      signal: controller.signal,
      onProgress: (received, total) => total && progress(received / total, 'Downloading the model'),
    });
    $('viewer-empty').hidden = true;
    progress(null);
    say(`${current.id}: ${current.title}`);
    updateAR();
    loadCoarse(current.id, controller.signal);
  } catch (error) {
    if (error.name === 'AbortError') return;
    progress(null);
    say(error.message, { error: true });
  }
}

// A big model also gets a coarse version for the viewer to draw while it moves, if full frames
// turn out too slow on this device. It is a background nicety: failures are ignored.
const COARSE_ABOVE_TRIANGLES = 40000;
const COARSE_TRIANGLES = 20000;
async function loadCoarse(id, signal) {
  if (viewer.triangleCount <= COARSE_ABOVE_TRIANGLES) return;
  await viewer.frameCostKnown();
  if (!viewer.slowFrames || signal.aborted) return;
  try {
    const url = await api.prepareModel(id, 'glb', { ...modelOptions(), 'max-triangles': COARSE_TRIANGLES }, { signal });
    await viewer.loadCoarse(url, { signal });
  } catch {
    // The full model stays; motion is just slower.
  }
}

async function openMolecule(id) {
  try {
    const m = await api.molecule(id);
    current = m;
    $('entry-id').value = m.id;
    $('view-controls').hidden = false;
    showDetails(m);
    route();
    await showModel();
  } catch (error) {
    say(error.message, { error: true });
  }
}

async function getEntry(text) {
  const id = text.trim();
  if (!api.looksLikeEntryID(id)) {
    say(`“${id}” is not a PDB ID. Use four characters such as 1AKE, an extended ID such as pdb_00001ake, or a UniProt accession such as P69905.`, { error: true });
    $('entry-id').focus();
    return;
  }
  $('entry-id').blur();  // closes the phone's keyboard
  loadController?.abort();
  try {
    progress(undefined, 'Fetching the entry');
    say(`Fetching ${id.toUpperCase()}…`);
    const m = await api.fetchEntry(id, {
      onProgress: (p) => { say(p.message); if (p.fraction != null) progress(p.fraction, p.message); },
    });
    progress(null);
    if (location.hash !== `#/explore/${m.id}`) history.replaceState(null, '', `#/explore/${m.id}`);
    await openMolecule(m.id);
  } catch (error) {
    progress(null);
    say(error.message, { error: true });
  }
}

$('get-form').addEventListener('submit', (e) => { e.preventDefault(); getEntry($('entry-id').value); });

$('search-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const words = $('search-words').value.trim();
  const list = $('search-results');
  list.replaceChildren();
  list.hidden = false;
  say(`Searching for “${words}”…`);
  try {
    const results = await api.search(words);
    if (results.hits.length === 0) {
      list.append(el('li', {}, `No entries match “${words}”.`));
      say(`No entries match “${words}”.`);
      return;
    }
    say(`${results.total} entries match “${words}”; showing ${results.hits.length}.`);
    for (const hit of results.hits) {
      const facts = [hit.method, hit.resolution ? `${hit.resolution.toFixed(2)} Å` : null, hit.releaseDate].filter(Boolean).join(' · ');
      list.append(el('li', {}, el('button', {
        type: 'button', onclick: () => { list.hidden = true; getEntry(hit.id); },
        'aria-label': `Open ${hit.id}: ${hit.title ?? ''}`,
      }, el('strong', {}, hit.id), el('span', {}, hit.title ?? ''), el('span', { class: 'meta' }, facts))));
    }
  } catch (error) {
    list.hidden = true;
    say(error.message, { error: true });
  }
});

for (const id of ['style', 'color', 'hide-water', 'hide-ligands']) $(id).addEventListener('change', showModel);
$('highlight').addEventListener('change', showModel);

function showDetails(m) {
  const d = m.details ?? {};
  $('details').hidden = false;
  $('details-title').textContent = `${m.id}: ${m.title}`;
  const facts = [
    ['Authors', (d.authors ?? []).join(', ')], ['Method', m.method], ['Resolution', m.resolution ? `${m.resolution.toFixed(2)} Å` : null],
    ['Organism', m.organism], ['Atoms', m.atoms.toLocaleString()], ['Residues', m.residues.toLocaleString()],
    ['Deposited', d.depositionDate], ['About', m.description],
  ].filter(([, v]) => v);
  $('details-facts').replaceChildren(...facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
  $('details-chains').replaceChildren(...(d.chains ?? []).map((c) =>
    el('li', {}, el('strong', {}, `Chain ${c.id}`), ` · ${c.type}, ${c.residues} residues `, el('div', { class: 'sequence' }, c.sequence))));
  const ligands = d.ligands ?? [];
  $('details-ligands').replaceChildren(...(ligands.length ? ligands.map((l) => el('li', {}, `${l.name} × ${l.count}`)) : [el('li', {}, 'None')]));
  const links = [];
  if (/^[1-9][A-Z0-9]{3}$/.test(m.id)) links.push(el('a', { href: `https://www.rcsb.org/structure/${m.id}`, target: '_blank', rel: 'noopener' }, `${m.id} at RCSB PDB`));
  links.push(el('a', { href: 'https://pdb101.rcsb.org/', target: '_blank', rel: 'noopener' }, 'PDB-101'));
  $('details-links').replaceChildren(...links.flatMap((a, i) => (i ? [' · ', a] : [a])));
}

// ---- AR ----
// One "View in AR" button that does what the device can: AR Quick Look on iOS (a rel="ar" link to the
// USDZ), WebXR on Android Chrome with Scene Viewer as the fallback, and on a desktop an explanation
// with a QR code of this page for a phone to open.
const isAndroid = /Android/i.test(navigator.userAgent);
let arSession = null;

// What the AR button, the camera and the recorder act on: the molecule in Explore or the built
// design in Build, with its viewer and model addresses.
function activeSubject() {
  const view = location.hash.split('/')[1] ?? '';
  if (view === 'draw') return roomScreen.subject();
  if (view === 'explore' && current && viewer?.model) {
    const query = new URLSearchParams(modelOptions()).toString();
    const path = `/api/molecules/${encodeURIComponent(current.id)}`;
    return {
      name: current.id, title: current.title, viewer, slot: 'ar-slot', button: 'ar-button',
      usdz: `${path}/model.usdz?${query}`, glb: new URL(`${path}/model.glb?${query}`, location.href).href,
      thumbnail: `${path}/thumbnail.png?size=64`, page: new URL(`#/explore/${encodeURIComponent(current.id)}`, location.href).href,
    };
  }
  const design = build?.design;
  if (view === 'build' && design && buildViewer?.model) {
    return {
      name: 'design', title: design.name, viewer: buildViewer, slot: 'build-ar-slot', button: 'build-ar-button',
      usdz: design.links.usdz, glb: new URL(design.links.glb, location.href).href, thumbnail: null,
      page: new URL(`#/build/${design.pieces.map((p) => `${p.kind}:${p.length}`).join(',')}/${design.seed}`, location.href).href,
    };
  }
  return null;
}

function sceneViewerURL(glb) {
  return `intent://arvr.google.com/scene-viewer/1.0?file=${encodeURIComponent(glb)}&mode=ar_preferred#Intent;scheme=https;package=com.google.ar.core;action=android.intent.action.VIEW;S.browser_fallback_url=${encodeURIComponent(glb)};end;`;
}

function updateAR() {
  const subject = activeSubject();
  for (const id of ['ar-slot', 'build-ar-slot', 'room-ar-slot']) if (id !== subject?.slot) $(id).replaceChildren();
  updateTopBar();
  if (!subject) return;
  const slot = $(subject.slot);
  slot.replaceChildren();
  const anchor = document.createElement('a');
  if (anchor.relList.supports?.('ar')) {
    // AR Quick Look needs the link to wrap an image.
    anchor.rel = 'ar';
    anchor.href = subject.usdz;
    anchor.className = 'button primary';
    anchor.id = subject.button;
    const picture = subject.thumbnail ?? subject.viewer.canvas.toDataURL('image/png');
    anchor.append(el('img', { src: picture, alt: '', width: 24, height: 24 }), ' View in AR');
    slot.append(anchor);
  } else {
    slot.append(el('button', { type: 'button', id: subject.button, class: 'primary', onclick: () => viewInAR(subject) }, 'View in AR'));
    if (isAndroid) slot.append(' ', el('a', { href: sceneViewerURL(subject.glb), class: 'scene-viewer-link' }, 'Open in Scene Viewer'));
  }
  slot.append(' ', el('a', { href: subject.usdz, download: `${subject.name}.usdz` }, 'USDZ'), ' ', el('a', { href: subject.glb, download: `${subject.name}.glb` }, 'GLB'));
}

async function viewInAR(subject) {
  // A room can go to AR empty (to draw in the air); a molecule or a design needs its model.
  if ((!subject.viewer.model && !subject.createAR) || arSession) return;
  arSession = 'starting';  // a second tap while this one awaits must not start another session
  const supported = await immersiveARSupported();
  if (supported) {
    const callbacks = {
      onStatus: (text) => { $('ar-status').textContent = text; },
      onEnd: () => { arSession = null; say(`Left AR. ${subject.name}: ${subject.title}`); $(subject.button)?.focus(); },
    };
    const placement = subject.createAR ? subject.createAR($('ar-overlay'), callbacks) : new ARPlacement(subject.viewer, $('ar-overlay'), callbacks);
    try {
      await placement.start();
      arSession = placement;
      $('ar-exit').focus();
    } catch (error) {
      // Refused (the camera prompt, say): say why; Scene Viewer stays one tap away on Android.
      arSession = null;
      say(isAndroid ? `${error.message} You can open the model in Scene Viewer instead.` : error.message, { error: true });
      $(subject.slot).querySelector('.scene-viewer-link')?.focus();
    }
    return;
  }
  arSession = null;
  if (isAndroid) {
    location.href = sceneViewerURL(subject.glb);
    return;
  }
  // A desktop: explain, and offer this page to a phone.
  $('ar-help-url').textContent = subject.page;
  $('ar-help-url').href = subject.page;
  try {
    drawQR($('ar-qr'), subject.page, { moduleSize: 5 });
    $('ar-qr').hidden = false;
  } catch {
    $('ar-qr').hidden = true;  // an address too long for a QR code: the link is still there
  }
  $('ar-help').showModal();
}
$('ar-exit').addEventListener('click', () => arSession?.end?.());

// ---- Capture ----
function updateTopBar() {
  const subject = activeSubject();
  $('camera-button').hidden = !subject;
  $('record-button').hidden = !subject || !('MediaRecorder' in window);
}

function flash() {
  const f = $('flash');
  f.classList.add('on');
  requestAnimationFrame(() => requestAnimationFrame(() => f.classList.remove('on')));
}

$('camera-button').addEventListener('click', async () => {
  const subject = activeSubject();
  if (!subject) return;
  const blob = await subject.viewer.snapshot();
  flash();
  const link = el('a', { href: URL.createObjectURL(blob), download: `${subject.name}.png` });
  document.body.append(link);
  link.click();
  link.remove();
  say(`Saved a picture of ${subject.name}.`);
});

let recorder = null;
let pressTimer = null;
const recordButton = $('record-button');
function startRecording() {
  const subject = activeSubject();
  if (!subject) return;
  const stream = subject.viewer.canvas.captureStream(30);
  const chunks = [];
  recorder = new MediaRecorder(stream, { mimeType: MediaRecorder.isTypeSupported('video/webm;codecs=vp9') ? 'video/webm;codecs=vp9' : 'video/webm' });
  recorder.ondataavailable = (e) => e.data.size && chunks.push(e.data);
  recorder.onstop = () => {
    const url = URL.createObjectURL(new Blob(chunks, { type: 'video/webm' }));
    $('recording-video').src = url;
    $('recording-keep').href = url;
    $('recording').showModal();
  };
  recorder.start();
  recordButton.setAttribute('aria-pressed', 'true');
  recordButton.textContent = 'Stop';
  say('Recording… tap Stop to finish.');
}
function stopRecording() {
  recorder?.stop();
  recorder = null;
  recordButton.setAttribute('aria-pressed', 'false');
  recordButton.textContent = 'Record';
}
recordButton.addEventListener('pointerdown', () => { if (!recorder) pressTimer = setTimeout(startRecording, 500); });
recordButton.addEventListener('pointerup', () => clearTimeout(pressTimer));
recordButton.addEventListener('click', () => { if (recorder) stopRecording(); });
recordButton.addEventListener('keydown', (e) => { if ((e.key === 'Enter' || e.key === ' ') && !recorder) { e.preventDefault(); startRecording(); } });
$('recording-discard').addEventListener('click', () => $('recording').close());
$('recording-keep').addEventListener('click', () => setTimeout(() => $('recording').close(), 0));

// ---- Menu and help: dialogs close on Escape, on Close, and on a tap outside ----
for (const dialog of document.querySelectorAll('dialog')) {
  dialog.addEventListener('click', (e) => { if (e.target === dialog) dialog.close(); });
}
$('menu-button').addEventListener('click', () => $('menu').showModal());
$('help-button').addEventListener('click', () => { $('menu').close(); $('help').showModal(); });
$('menu-exit').addEventListener('click', () => $('menu').close());
for (const link of document.querySelectorAll('#menu .menu-link')) link.addEventListener('click', () => $('menu').close());

// ---- Library ----
async function showLibrary() {
  const list = $('library-list');
  try {
    const filter = $('library-filter').value.trim();
    const page = await api.listMolecules({ limit: 200, sort: 'id', ...(filter ? { q: filter } : {}) });
    list.replaceChildren(...page.molecules.map((m) => el('li', {},
      el('img', { src: `${m.links.thumbnail}?size=192`, alt: `${m.id}: picture of the structure`, loading: 'lazy' }),
      el('strong', {}, m.id), el('span', { class: 'title' }, m.title),
      el('div', { class: 'row' },
        el('a', { class: 'button primary', href: `#/explore/${encodeURIComponent(m.id)}`, 'aria-label': `Open ${m.id}` }, 'Open'),
        el('button', { type: 'button', 'aria-label': `Delete ${m.id}`, onclick: async () => {
          if (!confirm(`Delete ${m.id} from the library?`)) return;
          try { await api.removeMolecule(m.id); say(`Deleted ${m.id}.`); showLibrary(); } catch (error) { say(error.message, { error: true }); }
        } }, 'Delete')))));
    if (page.molecules.length === 0) list.append(el('li', {}, filter ? `Nothing matches “${filter}”.` : 'The library is empty: Explore an entry or upload a file.'));
  } catch (error) {
    say(error.message, { error: true });
  }
}
$('library-filter').addEventListener('input', () => showLibrary());
$('upload-file').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  if (!file) return;
  say(`Uploading ${file.name}…`);
  try {
    const m = await api.upload(file, { onProgress: (p) => say(p.message) });
    say(`Added ${m.id}: ${m.title}.`);
    showLibrary();
  } catch (error) {
    say(`${file.name}: ${error.message}`, { error: true });
  }
  e.target.value = '';
});

route();
