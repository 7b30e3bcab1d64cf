// The app shell: hash routes for the landing page, introduction, Explore, Design, Library and
// Rooms (the rooms, a room, sign-in, profile, map); the top bar's Menu and Exit; progress and
// errors announced in one live region; the notice on a page that is not secure. The screens are
// modules of their own: explore.js, design.js, library.js, account.js, rooms.js, room-view.js and
// map.js; Camera, Record and the photo in AR are capture.js's; offline.js installs the app for
// offline use. Nothing here needs inline scripts or styles: the server's
// Content-Security-Policy allows neither.
import { MoleculeViewer } from './viewer.js';
import { ARPlacement, immersiveARSupported } from './xr.js';
import { addressForPhones, drawQR } from './qr.js';
import { setupDesign } from './design.js';
import { setupExplore } from './explore.js';
import { lastMolecule, setupLibrary } from './library.js';
import { setupAccount } from './account.js';
import { setupRooms } from './rooms.js';
import { setupRoomScreen } from './room-view.js';
import { setupMap } from './map.js';
import { setupLessons } from './lessons.js';
import { setupAddToLesson } from './lesson-add-step.js';
import { setupLessonPlayer } from './lesson-player.js';
import { formatSize } from './progress-text.js';
import { setupCapture } from './capture.js';
import { setupOffline } from './offline.js';
import { BUSY_EVENT, fetchWhenFree } from './api.js';
import { colours, fillMenu, loadModelOptions, styles } from './model-options.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const views = ['landing', 'intro', 'explore', 'design', 'library', 'rooms', 'room', 'signin', 'profile', 'map', 'lessons', 'lesson'];
// The screens' former names: links and QR codes shared before the rename still open them.
const formerNames = { build: 'design', draw: 'rooms' };
let designViewer = null;      // the Design screen's own 3D view
let design = null;

/** Says `message` in the status line; `action`, an element (a link to sign in, say), follows it. */
// `details`: the technical words (the server's own message), behind a "Details" disclosure: the
// line itself says what happened and what to do next, in a sentence.
// `carry`: said just before moving to another screen, for that screen (the line is otherwise
// cleared when the screen changes).
function say(message, { error = false, action = null, details = null, carry = false } = {}) {
  const more = details && details !== message
    ? [' ', el('details', { class: 'status-details' }, el('summary', {}, 'Details'), el('span', {}, details))] : [];
  status.replaceChildren(message ?? '', ...(action ? [' ', action] : []), ...more);
  status.classList.toggle('error', error);
  delete status.dataset.busy;
  if (carry) status.dataset.carry = ''; else delete status.dataset.carry;
}

// ---- A busy server: api.js waits and tries again (whenFree); the status line says how long ----
// "The server is busy — trying again in 3 s", counting down. Screen readers hear each wait once (a
// visually hidden copy); the seconds counting down are for the eyes only. When every wait is over
// and nothing else was said meanwhile, the line says again what it said before.
const busyWaits = new Map();   // request → performance.now() when it tries again
let busyTick = 0;
let beforeBusy = null;         // what the status line said before the first wait
window.addEventListener(BUSY_EVENT, (e) => {
  const { request, seconds } = e.detail;
  if (seconds > 0) busyWaits.set(request, performance.now() + seconds * 1000);
  else busyWaits.delete(request);
  showBusy(seconds > 0);
});
const busyWords = (left) => (left > 0 ? `The server is busy — trying again in ${left} s` : 'The server is busy — trying again now…');
function showBusy(announce = false) {
  clearTimeout(busyTick);
  const shown = status.dataset.busy !== undefined;
  if (busyWaits.size === 0) {
    if (shown) {
      status.replaceChildren(...(beforeBusy?.nodes ?? []));
      status.classList.toggle('error', beforeBusy?.error ?? false);
      delete status.dataset.busy;
    }
    beforeBusy = null;
    return;
  }
  const next = Math.min(...busyWaits.values());
  const left = Math.max(0, Math.ceil((next - performance.now()) / 1000));
  if (!shown || announce) {
    if (!shown) beforeBusy = { nodes: [...status.childNodes], error: status.classList.contains('error') };
    status.replaceChildren(el('span', { class: 'visually-hidden' }, `${busyWords(left)}.`), el('span', { 'aria-hidden': 'true', class: 'busy-countdown' }, busyWords(left)));
    status.classList.remove('error');
    status.dataset.busy = '';
  } else {
    status.querySelector('.busy-countdown').textContent = busyWords(left);
  }
  if (left > 0) busyTick = setTimeout(showBusy, Math.max(50, next - performance.now() - (left - 1) * 1000));
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k === 'class') node.className = v;
    else if (k === 'style') setStyle(node, v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) node.setAttribute(k, v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

// Styles through the CSSOM ({'--piece': '#ff0080'}), never a style attribute, which the page's
// Content-Security-Policy (style-src 'self') refuses.
function setStyle(node, style) {
  const entries = typeof style === 'string'
    ? style.split(';').map((d) => d.split(/:(.*)/s).map((t) => t.trim())).filter(([k]) => k)
    : Object.entries(style ?? {});
  for (const [k, v] of entries) node.style.setProperty(k, v);
}

// ---- Routing ----
let shownView = null;
let shownAddress = null;
function route() {
  const [, name = '', arg] = location.hash.split('/');
  if (formerNames[name]) {
    location.replace(`#/${[formerNames[name], ...location.hash.split('/').slice(2)].join('/')}`);
    return;
  }
  // #/rooms lists the rooms; #/rooms/ROOMID is one room.
  const view = name === 'rooms' && arg ? 'room' : views.includes(name) && name !== 'room' ? name : 'landing';
  for (const v of views) $(`view-${v}`).hidden = v !== view;
  // Another screen, or another molecule or room on the same one, opens at its top (not another
  // view of the same molecule: Explore's address follows its view, view-link.js).
  const address = `${view}/${(arg ?? '').split('?')[0]}`;
  if (address !== shownAddress) window.scrollTo(0, 0);
  shownAddress = address;
  if (view !== shownView) {
    // What the status line said belonged to the screen left.
    if (status.dataset.carry !== undefined) delete status.dataset.carry;
    else if (shownView !== null && status.dataset.busy === undefined) say('');
    shownView = view;
  }
  if (view === 'landing') showContinue();
  if (view === 'room') roomScreen.open(decodeURIComponent(arg));
  else roomScreen.leave();
  if (view !== 'map') map.leave();
  if (view === 'rooms') rooms.show();
  if (view === 'signin' || view === 'profile') account.show(view, arg);
  if (view === 'map') map.show();
  // Lessons: the person's lessons and the editor (#/lessons, #/lessons/ID), a lesson (#/lesson/ID).
  if (view === 'lessons') lessons.show(arg); else lessons.leave();
  if (view === 'lesson') openLesson(arg); else leaveLesson();
  if (view !== 'room' && document.title !== 'ProteinAR') document.title = 'ProteinAR';
  const inExplore = view === 'explore';
  $('exit-button').hidden = view === 'landing';
  if (view === 'library') library.show(arg);
  if (inExplore) explore.show(arg);
  if (view === 'design') {
    ensureDesignViewer();
    const [, , pieces, seed] = location.hash.split('/');
    if (pieces) design.open(decodeURIComponent(pieces), Number(seed) || 1);
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

// A downward swipe closes the introduction, as Get started does.
// Touch events, not pointer events: the browser's own scrolling of the pages cancels pointers.
let swipeStart = null;
const SWIPE_DOWN_PX = 80;
$('view-intro').addEventListener('touchstart', (e) => {
  swipeStart = e.touches.length === 1 ? { x: e.touches[0].clientX, y: e.touches[0].clientY } : null;
}, { passive: true });
$('view-intro').addEventListener('touchend', (e) => {
  const touch = e.changedTouches[0];
  if (!swipeStart || !touch) return;
  const dx = touch.clientX - swipeStart.x, dy = touch.clientY - swipeStart.y;
  swipeStart = null;
  // Mostly downward, so that turning the pages sideways never closes them.
  if (dy > SWIPE_DOWN_PX && Math.abs(dx) < dy / 2) location.hash = '#/explore';
});
// A touch the browser took over (a scroll, a system gesture) is no swipe.
$('view-intro').addEventListener('touchcancel', () => { swipeStart = null; }, { passive: true });

// ---- Screens ----
function ensureDesignViewer() {
  if (designViewer) return designViewer;
  try {
    designViewer = new MoleculeViewer($('design-viewer'), { background: '#ffffff' });
  } catch (error) {
    $('design-viewer-empty').textContent = error.message;
    return null;
  }
  design.show();
  return designViewer;
}
// The style and colour menus come from the server's model options, before any screen is set up.
await loadModelOptions();
fillMenu($('style'), styles());
fillMenu($('color'), colours());
// The profile lists the person's rooms as the rooms page does (rooms is made just below; the
// profile asks for it only once shown).
const account = setupAccount({ $, el, say, refresh: () => route(), roomItem: (room) => rooms.roomItem(room) });
const rooms = setupRooms({ $, el, say, account });
const explore = setupExplore({ $, el, say, account, route, onModelShown: () => updateAR() });
design = setupDesign({ $, el, say, account, viewer: () => designViewer, onBuilt: () => updateAR(), onPiecesShown: () => updateAR() });
const library = setupLibrary({ $, el, say, account });
const roomScreen = setupRoomScreen({ $, el, say, ready: account.ready, copyLinkButton: rooms.copyLinkButton, onSubjectChange: () => updateAR() });
const map = setupMap({ $, el, say });
const lessons = setupLessons({ $, el, say, account });
const lessonPlayer = setupLessonPlayer({ $, el, say, account, onModelShown: () => updateAR() });
setupAddToLesson({ $, el, say, account, link: () => explore.viewLink() });

// A lesson (#/lesson/ID); with ?room=ROOM in its address, followed live in that room, and without
// one, Present live for the lesson's owner: lesson-live.js, and the lesson works without it.
const LESSON_LIVE = './lesson-live.js';
let lessonLive = null;   // {lesson, room, live}: the live module's handle for the lesson (and room followed)
function openLesson(arg) {
  lessonPlayer.open(arg);
  const [lessonID, query] = (arg ?? '').split(/\?(.*)/s);
  const room = new URLSearchParams(query ?? '').get('room');
  if (lessonLive && lessonLive.room === room && lessonLive.lesson === lessonID) return;
  stopLessonLive();
  const handle = { lesson: lessonID, room, live: null };
  lessonLive = handle;
  import(LESSON_LIVE).then(async (module) => {
    if (lessonLive !== handle) return;
    handle.live = await module.startLessonLive?.({ player: lessonPlayer, roomID: room, $, el, say, account });
    if (lessonLive !== handle) handle.live?.stop?.();
  }).catch((error) => console.warn('Following the lesson live is not available:', error));
}
function stopLessonLive() {
  try { lessonLive?.live?.stop?.(); } catch (error) { console.warn(error); }
  lessonLive = null;
}
function leaveLesson() {
  stopLessonLive();
  lessonPlayer.leave();
}
setupOffline({ $ });

// ---- AR ----
// One "View in AR" button that does what the device can: AR Quick Look on iOS (a rel="ar" link to the
// USDZ), WebXR on Android Chrome with Scene Viewer as the fallback, and on a desktop an explanation
// with a QR code of this page for a phone to open.
const isAndroid = /Android/i.test(navigator.userAgent);
let arSession = null;

// What the AR button, the camera and the recorder act on: the molecule in Explore or the built
// design in Design, with its viewer and model addresses.
function activeSubject() {
  const view = location.hash.split('/')[1] ?? '';
  if (view === 'rooms') return roomScreen.subject();
  if (view === 'explore') return explore.subject();
  if (view === 'lesson') return lessonPlayer.subject();
  // A refused design is shown only to explain the refusal: it is not offered as a protein to take away.
  const built = design?.design;
  if (view === 'design' && built?.valid && designViewer?.model) {
    return {
      name: 'design', title: built.name, viewer: designViewer, slot: 'design-ar-slot', button: 'design-ar-button',
      usdz: built.links.usdz, glb: new URL(built.links.glb, location.href).href, thumbnail: null,
      page: new URL(`#/design/${built.pieces.map((p) => `${p.kind}:${p.length}`).join(',')}/${built.seed}`, location.href).href,
    };
  }
  return null;
}

// The Design screen's pieces before Try, not yet joined: AR only (the camera and the recorder act on
// the active subject), offered beside Try by the same code as every View in AR.
function piecesSubject() {
  const pieces = location.hash.split('/')[1] === 'design' && designViewer ? design?.piecesAR() : null;
  if (!pieces) return null;
  return {
    name: 'pieces', title: pieces.title, viewer: designViewer, slot: 'design-pieces-ar-slot', button: 'design-pieces-ar-button',
    label: 'See pieces in AR', primary: false, usdz: pieces.usdz, glb: new URL(pieces.glb, location.href).href, thumbnail: null,
    page: new URL(pieces.page, location.href).href,
  };
}

function sceneViewerURL(glb) {
  return `intent://arvr.google.com/scene-viewer/1.0?file=${encodeURIComponent(glb)}&mode=ar_preferred#Intent;scheme=https;package=com.google.ar.core;action=android.intent.action.VIEW;S.browser_fallback_url=${encodeURIComponent(glb)};end;`;
}

function updateAR() {
  const subjects = [activeSubject(), piecesSubject()].filter(Boolean);
  for (const id of ['ar-slot', 'design-ar-slot', 'design-pieces-ar-slot', 'room-ar-slot', 'lesson-ar-slot']) {
    if (!subjects.some((subject) => subject.slot === id)) $(id).replaceChildren();
  }
  capture.update();  // Camera and Record follow the subject
  for (const subject of subjects) offerAR(subject);
}

// The AR button of `subject` in its slot, with its USDZ and GLB links and the size the phone downloads.
function offerAR(subject) {
  const label = subject.label ?? 'View in AR';
  const slot = $(subject.slot);
  slot.replaceChildren();
  const anchor = document.createElement('a');
  if (anchor.relList.supports?.('ar')) {
    // AR Quick Look needs the link to wrap an image.
    anchor.rel = 'ar';
    anchor.href = subject.usdz;
    anchor.className = subject.primary === false ? 'button' : 'button primary';
    anchor.id = subject.button;
    const picture = subject.thumbnail ?? subject.viewer.canvas.toDataURL('image/png');
    anchor.append(el('img', { src: picture, alt: '', width: 24, height: 24 }), ` ${label}`);
    slot.append(anchor);
  } else {
    slot.append(el('button', { type: 'button', id: subject.button, class: subject.primary === false ? '' : 'primary', onclick: () => viewInAR(subject) }, label));
    if (isAndroid) slot.append(' ', el('a', { href: sceneViewerURL(subject.glb), class: 'scene-viewer-link' }, 'Open in Scene Viewer'));
  }
  slot.append(' ', el('a', { href: subject.usdz, download: `${subject.name}.usdz` }, 'USDZ'), ' ', el('a', { href: subject.glb, download: `${subject.name}.glb` }, 'GLB'));
  // What the phone will download for AR: the USDZ where AR Quick Look opens it, else the AR GLB.
  const size = el('span', { class: 'download-size', 'aria-live': 'polite' });
  slot.append(' ', size);
  showDownloadSize(size, anchor.rel === 'ar' ? subject.usdz : subject.glb);
}

async function showDownloadSize(span, url) {
  try {
    const response = await fetchWhenFree(url, { method: 'HEAD' });
    const bytes = Number(response.headers.get('Content-Length'));
    if (!response.ok || !(bytes > 0)) return;
    span.textContent = `AR model, ${formatSize(bytes)}`;
    span.title = 'What your phone downloads to place this model in your room (as sent, compressed)';
  } catch {
    // No size shown; the links still work.
  }
}

async function viewInAR(subject) {
  // A room can go to AR empty (to draw in the air); a molecule or a design needs its model.
  if ((!subject.viewer.model && !subject.createAR) || arSession) return;
  arSession = 'starting';  // a second tap while this one awaits must not start another session
  const supported = await immersiveARSupported();
  if (supported) {
    const callbacks = {
      onStatus: (text) => { $('ar-status').textContent = text; },
      // What stands there now: a lesson followed live changes its step's model during AR (lesson-live.js).
      onEnd: () => {
        arSession = null;
        const now = [activeSubject(), subject].find((s) => s?.button === subject.button);
        say(`Left AR. ${now.name}: ${now.title}`);
        $(subject.button)?.focus();
      },
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
  // A desktop: explain, and offer this page to a phone, by an address a phone can reach.
  const { url, why } = await addressForPhones(subject.page);
  $('ar-help-why').hidden = !why;
  $('ar-help-why').textContent = why ?? '';
  $('ar-help-url').hidden = !url;
  $('ar-help-url').textContent = url ?? '';
  $('ar-help-url').href = url ?? '#';
  // No address a phone can reach, no QR encoder on this server, or an address too long for a
  // QR code: the address stays as text to type.
  $('ar-qr').hidden = true;
  $('ar-help').showModal();
  if (url) $('ar-qr').hidden = !(await drawQR($('ar-qr'), url, { moduleSize: 5 }));
}

$('ar-exit').addEventListener('click', () => arSession?.end?.());

// ---- Capture: Camera, Record and the photo in AR (capture.js) ----
const capture = setupCapture({ $, say, subject: activeSubject, arSession: () => (typeof arSession === 'object' ? arSession : null) });

// ---- Menu and help: dialogs close on Escape, on Close, and on a tap outside ----
for (const dialog of document.querySelectorAll('dialog')) {
  dialog.addEventListener('click', (e) => { if (e.target === dialog) dialog.close(); });
}
$('menu-button').addEventListener('click', () => $('menu').showModal());
// Help opens at its top, the current screen's own help first (its Help section's words), then
// what holds everywhere.
$('help-button').addEventListener('click', () => {
  $('menu').close();
  const here = document.querySelector('.view:not([hidden]) details.help');
  $('help-here').hidden = !here;
  $('help-here-text').replaceChildren(...(here ? [...here.querySelectorAll(':scope > p')].map((p) => p.cloneNode(true)) : []));
  $('help').showModal();
  $('help').scrollTop = 0;
  $('help-title').focus();
});
$('menu-exit').addEventListener('click', () => $('menu').close());
for (const link of document.querySelectorAll('#menu .menu-link')) link.addEventListener('click', () => $('menu').close());

// ---- Not a secure page ----
// Phones grant AR, the camera, offline use and sharing only to secure pages (HTTPS, or localhost);
// on any other page a short notice says so, once per visit.
const NOTICE_DISMISSED = 'proteinar-insecure-notice-dismissed';
function showSecurityNotice() {
  let dismissed = false;
  try { dismissed = sessionStorage.getItem(NOTICE_DISMISSED) === '1'; } catch { /* storage refused: show it */ }
  $('insecure-notice').hidden = window.isSecureContext || dismissed;
}
$('insecure-dismiss').addEventListener('click', () => {
  try { sessionStorage.setItem(NOTICE_DISMISSED, '1'); } catch { /* for this page only */ }
  $('insecure-notice').hidden = true;
});
showSecurityNotice();

// The start page offers to go on with the last molecule seen ("Continue with 1AKE") rather than
// a launch on the bare address opening it unasked.
function showContinue() {
  const last = lastMolecule();
  $('landing-continue').hidden = !last;
  if (last) {
    $('landing-continue-link').href = `#/explore/${encodeURIComponent(last)}`;
    $('landing-continue-link').textContent = `Continue with ${last}`;
  }
}
route();
