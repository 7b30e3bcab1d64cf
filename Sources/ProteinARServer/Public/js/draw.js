// The room screen (#/draw/ROOMID): a 3D view of the room (its molecule, if it has one, and every
// stroke as a thin tube), drawing on it with a finger or the mouse, the tools at the bottom within
// thumb reach, notes pinned in space, who is here, and a status line that always says whether what
// you see is live. Content comes only from the server's operations (room-sync.js); a stroke being
// drawn here shows at once and is replaced by the server's copy once all of it has come back.
import * as api from './api.js';
import { combineModels, parseGLB } from './glb.js';
import { mat4, quat } from './math.js';
import { MoleculeViewer } from './viewer.js';
import { ARPlacement } from './xr.js';
import { RoomSync, newID } from './room-sync.js';
import { StrokeBuilder, floorMesh, strokeBounds, strokeMesh } from './strokes.js';

// Points go out in batches this often while a finger moves (add-stroke, then extend-stroke).
const BATCH_MS = 50;
// The server's limits: points a message, points a stroke.
const POINTS_PER_MESSAGE = 500;
const POINTS_PER_STROKE = 5000;
// An empty room's space: a floor ring of 20 cm and room above it, about what a molecule takes.
const EMPTY_ROOM = { center: [0, 0.1, 0], radius: 0.22 };
// In AR, new points appear this far in front of the phone.
const AR_REACH_M = 0.15;

export const SWATCHES = [['#1d2433', 'Black'], ['#d62828', 'Red'], ['#f77f00', 'Orange'], ['#2b9348', 'Green'], ['#1e6fd9', 'Blue'], ['#8e44ad', 'Purple']];
export const BRUSHES = [['fine', 'Fine', 0.002], ['medium', 'Medium', 0.005], ['bold', 'Bold', 0.012]];

/**
 * @param {{$: Function, el: Function, say: Function, ready: () => Promise, copyLinkButton: Function,
 *          onSubjectChange: () => void}} app
 */
export function setupRoomScreen(app) {
  const { $, el, say } = app;
  const canvas = $('room-viewer');
  const stage = $('room-stage');
  let viewer = null;
  let floor = null;            // the floor ring's upload
  let sync = null;
  let roomID = null;
  let room = null;
  let you = null;
  let mode = 'draw';           // 'draw' | 'move'
  let color = SWATCHES[4][0];
  let width = BRUSHES[1][2];
  let drawing = null;          // the stroke a pointer (or AR) is drawing now
  const local = new Map();     // id -> {points, color, width, finished, sent, added}: our strokes not yet all back
  const drawn = new Map();     // id -> {count, color, width, upload}: what the viewer holds for each stroke
  let renderQueued = false;
  let moleculeKey = null;
  let statusTimer = 0;
  let pendingNoteText = null;  // a note waiting for its spot ("Pick a spot")
  let lastView = '';

  // ---- Viewer ----
  function ensureViewer() {
    if (viewer) return viewer;
    try {
      viewer = new MoleculeViewer(canvas, { background: '#ffffff' });
    } catch (error) {
      $('room-empty').hidden = false;
      $('room-empty').textContent = error.message;
      return null;
    }
    viewer.setSceneBounds(EMPTY_ROOM);
    floor = viewer.uploadOverlay(floorMesh(0.2));
    canvas.addEventListener('viewer-frame', () => { placeNoteLabels(); shareView(); });
    return viewer;
  }

  // ---- Entering and leaving ----
  async function open(id) {
    if (id === roomID && sync && sync.status !== 'failed') return;
    leave();
    roomID = id;
    room = null;
    you = null;
    $('room-title').textContent = 'Room';
    setStatus('connecting', 'Connecting…');
    ensureViewer();
    await app.ready();
    if (roomID !== id) return;
    let answer;
    try {
      answer = await api.room(id);
    } catch (error) {
      if (roomID !== id) return;
      const why = error.status === 404 ? 'There is no such room: check the link.'
        : error.status === 401 || error.status === 403 ? 'This room is private. Sign in with an account its owner invited.' : error.message;
      setStatus('failed', why);
      $('room-signin').hidden = Boolean(api.currentAccount());
      say(why, { error: true });
      return;
    }
    if (roomID !== id) return;
    showRoom(answer.room);
    const account = api.currentAccount();
    sync = new RoomSync(id, { guest: account ? null : api.guestKey(), snapshot: answer.state });
    window.__proteinarRoom = { get state() { return sync?.state; }, get sync() { return sync; }, get you() { return you; }, get room() { return room; }, get viewer() { return viewer; }, local };
    sync.addEventListener('status', () => { showStatus(); checkStillThere(); });
    sync.addEventListener('welcome', (e) => { showRoom(e.detail.room); you = e.detail.you; updateTools(); showStatus(); });
    sync.addEventListener('change', (e) => changed(e.detail.what, e.detail.op));
    sync.addEventListener('presence', () => { showPeers(); showStatus(); });
    sync.addEventListener('refused', (e) => refused(e.detail));
    sync.addEventListener('ack', () => showStatus());  // "N changes not yet sent" counts down
    changed('all');
    sync.connect();
    app.onSubjectChange();
  }

  // A socket refused before its welcome says nothing about why. After a few such refusals, ask over
  // HTTP: a room that is gone, or closed to us, is said so, and the retries stop.
  let checking = false;
  async function checkStillThere() {
    const s = sync;
    if (!s || s.status !== 'reconnecting' || s.lastClose?.welcomed !== false || s.attempts < 3 || checking) return;
    checking = true;
    try {
      await api.room(s.roomID);
    } catch (error) {
      if (s === sync && [401, 403, 404].includes(error.status)) {
        s.fail(error.status === 404 ? 'This room no longer exists.' : `You can no longer enter this room: ${error.message}`);
      }
    } finally {
      checking = false;
    }
  }

  function leave() {
    endStroke(false);
    sync?.close();
    sync = null;
    roomID = null;
    room = null;
    local.clear();
    clearInterval(statusTimer);
    for (const entry of drawn.values()) viewer?.releaseOverlay(entry.upload);
    drawn.clear();
    moleculeKey = null;
    viewer?.setModel(null);
    viewer?.setExtras(floor ? [floor] : []);
    $('room-notes-layer').replaceChildren();
    $('room-hint').hidden = true;
    $('room-notes').replaceChildren();
    $('room-peers').replaceChildren();
    delete stage.dataset.strokes;
    $('room-dialog-clear').close?.();
    pendingNoteText = null;
  }

  function showRoom(r) {
    if (!r) return;
    room = r;
    $('room-title').textContent = r.name;
    document.title = `${r.name} · ProteinAR`;
    $('room-facts').textContent = [r.ownerName ? `by ${r.ownerName}` : null, r.isPublic ? 'public' : 'private',
      r.guestsMayDraw ? 'guests may draw' : 'guests watch'].filter(Boolean).join(' · ');
    $('room-link-slot').replaceChildren(app.copyLinkButton(r));
    $('room-signin').hidden = Boolean(api.currentAccount());
    $('room-signin-link').href = `#/signin/${encodeURIComponent(`#/draw/${r.id}`)}`;
    $('room-members').hidden = r.role !== 'owner';
    $('room-settings').hidden = r.role !== 'owner';
    $('room-public').checked = Boolean(r.isPublic);
    $('room-guests-draw').checked = Boolean(r.guestsMayDraw);
    updateTools();
  }

  // ---- Who may do what ----
  const role = () => you?.role ?? room?.role ?? null;
  const mayDraw = () => (you ? Boolean(you.mayDraw) : Boolean(room?.mayDraw));
  const isMine = (author) => Boolean(you && (author === you.id || author === `guest:${you.id}` || `guest:${author}` === you.id));

  function updateTools() {
    const draws = mayDraw();
    for (const control of $('room-tools').querySelectorAll('[data-needs-draw]')) control.disabled = !draws;
    $('room-clear').hidden = role() !== 'owner';
    if (!draws && mode === 'draw') setMode('move');
    $('room-mode-draw').disabled = !draws;
    const mine = sync ? [...sync.state.strokes.values()].some((s) => isMine(s.author)) : false;
    $('room-undo').disabled = !draws || !mine || Boolean(drawing);
    const empty = !sync || (sync.state.strokes.size === 0 && sync.state.notes.size === 0);
    $('room-clear').disabled = empty;
    $('room-hint').hidden = !empty || !draws || !sync || local.size > 0;
  }

  function setMode(next) {
    mode = next;
    $('room-mode-draw').setAttribute('aria-pressed', String(mode === 'draw'));
    $('room-mode-move').setAttribute('aria-pressed', String(mode === 'move'));
    stage.dataset.mode = mode;
    canvas.setAttribute('aria-label', mode === 'draw'
      ? 'The room in 3D. Drawing: drag to draw, tap for a dot; two fingers pinch and move the view, Alt-drag turns it, arrow keys rotate.'
      : 'The room in 3D. Moving: drag to rotate, pinch or scroll to zoom, arrow keys rotate.');
  }

  // ---- Status line ----
  function setStatus(state, text) {
    const line = $('room-status');
    line.dataset.state = state;
    line.textContent = text;
  }

  function showStatus() {
    if (!sync) return;
    clearInterval(statusTimer);
    const waiting = sync.unacknowledged;
    const waitingText = waiting ? ` · ${waiting} change${waiting === 1 ? '' : 's'} not yet sent` : '';
    const readOnly = sync.status === 'live' && !mayDraw() ? ' · read-only: guests may only watch in this room' : '';
    switch (sync.status) {
      case 'connecting':
        return setStatus('connecting', 'Connecting…');
      case 'live': {
        const here = new Set(sync.peers.map((p) => p.connection ?? p.id)).size;
        return setStatus('live', `Live${here ? ` · ${here} here` : ''}${readOnly}${waitingText}`);
      }
      case 'reconnecting': {
        const tick = () => {
          const seconds = sync?.retryAt ? Math.max(0, Math.ceil((sync.retryAt - Date.now()) / 1000)) : 0;
          setStatus('reconnecting', `${seconds ? `Connection lost: reconnecting in ${seconds} s` : 'Reconnecting…'}${waitingText}`);
        };
        tick();
        statusTimer = setInterval(tick, 500);
        return undefined;
      }
      case 'offline':
        return setStatus('offline', `Offline: waiting for the network${waitingText}`);
      case 'failed':
        return setStatus('failed', sync.failure ?? 'The room cannot be reached.');
      default:
        return setStatus(sync.status, '');
    }
  }

  // ---- Content ----
  function changed(what, op) {
    if (!sync) return;
    // Our strokes that someone removed (undo, the owner, Clear) go from the screen with theirs.
    const o = op?.operation;
    if (o?.type === 'remove-stroke' && local.get(o.id)?.finished) local.delete(o.id);
    if (o?.type === 'clear') for (const [id, stroke] of local) if (stroke.finished) local.delete(id);
    if (what === 'all' || what === 'strokes') {
      settleLocal();
      queueRender();
    }
    if (what === 'all' || what === 'notes') showNotes();
    if (what === 'all' || what === 'molecule') showMolecule();
    updateTools();
  }

  // A local stroke gives way to the server's copy once it is finished and all its points came back.
  function settleLocal() {
    for (const [id, stroke] of local) {
      const confirmed = sync.state.strokes.get(id);
      if (stroke.finished && confirmed && confirmed.points.length >= stroke.points.length) local.delete(id);
    }
  }

  function queueRender() {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => { renderQueued = false; renderStrokes(); });
  }

  // Builds the tubes of the strokes that changed and hands the viewer the lot.
  function renderStrokes() {
    if (!viewer || !sync) return;
    const shown = new Map();
    for (const stroke of sync.state.strokes.values()) shown.set(stroke.id, stroke);
    for (const [id, stroke] of local) if (!stroke.removed) shown.set(id, stroke);
    for (const [id, entry] of drawn) {
      if (!shown.has(id)) {
        viewer.releaseOverlay(entry.upload);
        drawn.delete(id);
      }
    }
    for (const [id, stroke] of shown) {
      const entry = drawn.get(id);
      if (entry && entry.count === stroke.points.length && entry.color === stroke.color && entry.width === stroke.width) continue;
      if (entry) viewer.releaseOverlay(entry.upload);
      if (stroke.points.length === 0) { drawn.delete(id); continue; }
      drawn.set(id, { count: stroke.points.length, color: stroke.color, width: stroke.width, upload: viewer.uploadOverlay(strokeMesh(stroke)) });
    }
    const uploads = [...drawn.values()].map((e) => e.upload);
    // The floor ring gives an empty room something to turn about; a molecule does that better.
    viewer.setExtras(floor && !viewer.model ? [floor, ...uploads] : uploads, strokeBounds(shown.values()));
    // For tests and for anyone inspecting the page: what the view holds.
    stage.dataset.strokes = String(sync.state.strokes.size);
    stage.dataset.shown = String(shown.size);
  }

  async function showMolecule() {
    const placement = sync?.state.molecule ?? room?.molecule ?? null;
    const key = placement ? JSON.stringify(placement) : null;
    if (key === moleculeKey || !viewer) return;
    moleculeKey = key;
    if (!placement) {
      viewer.setModel(null);
      queueRender();
      return;
    }
    const id = roomID;
    try {
      setStatus($('room-status').dataset.state ?? 'connecting', `Loading ${placement.moleculeID}…`);
      const url = await api.prepareModel(placement.moleculeID, 'glb', { style: placement.style || 'cartoon' });
      const response = await fetch(url);
      if (!response.ok) throw new Error(`Could not load ${placement.moleculeID} (HTTP ${response.status}).`);
      const model = parseGLB(await response.arrayBuffer());
      if (id !== roomID || key !== moleculeKey) return;
      // The placement moves the model into the room (column-major, metres).
      const matrix = new Float32Array(placement.transform?.length === 16 ? placement.transform : mat4.create());
      viewer.setModel(combineModels([{ model, matrix }]));
      queueRender();
      app.onSubjectChange();
    } catch (error) {
      if (id === roomID) say(`The room's molecule could not be shown: ${error.message}`, { error: true });
    } finally {
      if (id === roomID) showStatus();
    }
  }

  function refused(detail) {
    const op = detail.operation;
    if (op?.id && local.has(op.id) && (op.type === 'add-stroke' || op.type === 'extend-stroke')) {
      local.delete(op.id);
      if (drawing?.id === op.id) drawing = null;
      queueRender();
    }
    say(`Not done: ${detail.message ?? detail.code}`, { error: true });
    showStatus();
  }

  // ---- Drawing with a pointer ----
  // The stage listens before the canvas (capture), so a drawing pointer never reaches the viewer's
  // own rotate; a second finger hands both to the viewer, which pinches and pans as usual.
  stage.addEventListener('pointerdown', (e) => {
    if (e.target !== canvas || !sync || !viewer) return;
    if (pendingNoteText !== null && e.isPrimary && e.button === 0) {
      e.stopPropagation();
      e.preventDefault();
      const point = pointAt(e);
      const text = pendingNoteText;
      pendingNoteText = null;
      stage.classList.remove('picking');
      addNote(text, { point });
      return;
    }
    if (drawing?.pointer !== undefined && drawing.pointer !== e.pointerId) {
      // A second finger: this is a pinch after all. The stroke goes; the viewer takes both fingers,
      // the first where it is now (not where it went down, or the view would jump).
      const { pointer, down, at } = drawing;
      endStroke(false);
      viewer.trackPointer({ pointerId: pointer, pointerType: down.pointerType, button: 0, clientX: at.x, clientY: at.y,
        timeStamp: e.timeStamp, preventDefault() {} });
      return;
    }
    const orbit = e.pointerType === 'mouse' && (e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey);
    if (mode !== 'draw' || !mayDraw() || orbit || drawing) return;
    e.stopPropagation();
    e.preventDefault();
    canvas.focus({ preventScroll: true });
    try { canvas.setPointerCapture(e.pointerId); } catch { /* drawing works without capture */ }
    beginStroke(pointAt(e), screenAt(e), { pointer: e.pointerId, down: e, at: { x: e.clientX, y: e.clientY } });
  }, { capture: true });

  stage.addEventListener('pointermove', (e) => {
    if (!drawing || drawing.pointer !== e.pointerId) return;
    e.stopPropagation();
    drawing.at = { x: e.clientX, y: e.clientY };
    const events = e.getCoalescedEvents?.() ?? [];
    for (const sample of events.length ? events : [e]) addPoint(pointAt(sample), screenAt(sample));
  }, { capture: true });

  for (const type of ['pointerup', 'pointercancel']) {
    stage.addEventListener(type, (e) => {
      if (!drawing || drawing.pointer !== e.pointerId) return;
      e.stopPropagation();
      endStroke(type === 'pointerup');
    }, { capture: true });
  }

  function screenAt(e) {
    const rect = canvas.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top };
  }

  // Where the pointer is on the plane facing the camera through what the view turns about (the
  // molecule's middle until someone pans): strokes land at the molecule's depth.
  function pointAt(e) {
    const { x, y } = screenAt(e);
    return viewer.unproject(x, y, drawing?.through);
  }

  function beginStroke(point, screen, extra = {}) {
    const id = newID('s');
    const stroke = { points: [], color, width, finished: false, sent: 0, added: false };
    drawing = { id, builder: new StrokeBuilder(point, screen), stroke, through: viewer?.camera.target, ...extra };
    stroke.points = drawing.builder.points;
    local.set(id, stroke);
    drawing.timer = setInterval(flush, BATCH_MS);
    updateTools();
    queueRender();
  }

  function addPoint(point, screen) {
    if (!drawing) return;
    const kept = drawing.builder.add(point, screen);
    if (!kept) return;
    queueRender();
    if (drawing.stroke.points.length >= POINTS_PER_STROKE) {
      // The server's limit for one stroke: carry on in a new one from the same spot.
      const carry = drawing.stroke.points[drawing.stroke.points.length - 1];
      const { pointer, down, at, through, ar } = drawing;
      endStroke(true);
      beginStroke(carry, screen, { pointer, down, at, ar });
      drawing.through = through;
    }
  }

  /** Ends the stroke being drawn: `keep` sends what is left; otherwise it is withdrawn. */
  function endStroke(keep) {
    if (!drawing) return;
    const { id, stroke, timer } = drawing;
    clearInterval(timer);
    if (keep) {
      drawing.builder.finish();
      flush();
      stroke.finished = true;
    } else {
      local.delete(id);
      if (stroke.added) sync?.send({ type: 'remove-stroke', id });
    }
    drawing = null;
    queueRender();
    updateTools();
  }

  // Sends the points drawn since the last batch: the first batch creates the stroke.
  function flush() {
    if (!drawing || !sync) return;
    const { id, stroke } = drawing;
    while (stroke.sent < stroke.points.length) {
      const points = stroke.points.slice(stroke.sent, stroke.sent + POINTS_PER_MESSAGE);
      const operation = stroke.added ? { type: 'extend-stroke', id, points } : { type: 'add-stroke', id, points, color: stroke.color, width: stroke.width };
      sync.send(operation);
      stroke.added = true;
      stroke.sent += points.length;
    }
    showStatus();
  }

  // ---- Tools ----
  const swatches = $('room-swatches');
  swatches.replaceChildren(...SWATCHES.map(([value, name]) => el('button', {
    type: 'button', class: 'swatch', style: `--swatch:${value}`, 'aria-label': name, 'aria-pressed': String(value === color),
    'data-color': value, 'data-needs-draw': '', onclick: () => pickColor(value),
  })));
  $('room-color-custom').addEventListener('input', (e) => pickColor(e.target.value));
  function pickColor(value) {
    color = value.toLowerCase();
    for (const b of swatches.querySelectorAll('.swatch')) b.setAttribute('aria-pressed', String(b.dataset.color === color));
    $('room-color-custom').value = color;
    $('room-tools').style.setProperty('--brush', color);
  }
  pickColor(color);

  $('room-brushes').replaceChildren(...BRUSHES.map(([key, name, size]) => el('button', {
    type: 'button', class: `brush brush-${key}`, 'aria-label': `${name} brush (${size * 1000} mm)`, 'aria-pressed': String(size === width),
    'data-size': String(size), 'data-needs-draw': '', onclick: () => pickBrush(size),
  }, el('span', { 'aria-hidden': 'true' }))));
  function pickBrush(size) {
    width = size;
    for (const b of $('room-brushes').children) b.setAttribute('aria-pressed', String(Number(b.dataset.size) === size));
  }

  $('room-mode-draw').addEventListener('click', () => setMode('draw'));
  $('room-mode-move').addEventListener('click', () => setMode('move'));
  setMode('draw');

  function undo() {
    if (!sync || !mayDraw() || drawing) return;
    sync.send({ type: 'undo' });
  }
  $('room-undo').addEventListener('click', undo);
  $('view-room').addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z' && !e.target.closest('input, textarea')) {
      e.preventDefault();
      undo();
    }
  });

  // Clear empties the room for everyone: it asks first, with Cancel first in line.
  $('room-clear').addEventListener('click', () => {
    if (role() !== 'owner') return;
    $('room-dialog-clear').showModal();
    $('room-clear-cancel').focus();
  });
  $('room-clear-cancel').addEventListener('click', () => $('room-dialog-clear').close());
  $('room-clear-confirm').addEventListener('click', () => {
    $('room-dialog-clear').close();
    sync?.send({ type: 'clear' });
    say('Cleared the room for everyone.');
  });

  // ---- Notes ----
  $('room-note').addEventListener('click', () => {
    $('room-note-text').value = '';
    $('room-note-error').textContent = '';
    $('room-dialog-note').showModal();
    $('room-note-text').focus();
  });
  $('room-note-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('room-note-text').value.trim();
    if (text.length < 1 || text.length > 500) {
      $('room-note-error').textContent = 'A note has 1 to 500 characters.';
      $('room-note-text').focus();
      return;
    }
    $('room-dialog-note').close();
    if (e.submitter?.value === 'pick') {
      pendingNoteText = text;
      stage.classList.add('picking');
      say('Tap the view where the note should be pinned.');
      canvas.focus();
    } else {
      addNote(text, { point: viewer ? viewer.camera.target.map((v) => Math.round(v * 1e4) / 1e4) : [0, 0, 0] });
    }
  });
  $('room-note-cancel').addEventListener('click', () => $('room-dialog-note').close());

  function addNote(text, anchor) {
    if (!sync) return;
    sync.send({ type: 'add-note', id: newID('n'), text, anchor });
    say('Note added.');
  }

  // Notes are the others' words: always shown as text (textContent), never as markup.
  function showNotes() {
    const list = $('room-notes');
    const layer = $('room-notes-layer');
    const notes = [...sync.state.notes.values()];
    list.replaceChildren(...notes.map((note) => {
      const item = el('li', { 'data-note': note.id });
      const text = el('span', { class: 'note-text' });
      text.textContent = note.text;
      item.append(text);
      const by = authorName(note.author);
      if (by) item.append(el('span', { class: 'meta' }, ` by ${by}`));
      if (note.anchor && !note.anchor.point) item.append(el('span', { class: 'meta' }, ` at ${note.anchor.chain} ${note.anchor.residue}`));
      if (mayDraw() && (isMine(note.author) || role() === 'owner')) {
        item.append(el('button', { type: 'button', class: 'small', 'aria-label': `Remove the note “${note.text.slice(0, 40)}”`,
          onclick: () => sync?.send({ type: 'remove-note', id: note.id }) }, 'Remove'));
      }
      return item;
    }));
    if (notes.length === 0) list.append(el('li', { class: 'empty-note' }, 'No notes yet. Add one with Note.'));
    layer.replaceChildren(...notes.filter((n) => n.anchor?.point).map((note) => {
      const pin = el('div', { class: 'note-pin', 'data-note': note.id });
      pin.textContent = note.text;
      pin.anchor = note.anchor.point;
      return pin;
    }));
    placeNoteLabels();
  }

  function placeNoteLabels() {
    if (!viewer) return;
    for (const pin of $('room-notes-layer').children) {
      const at = viewer.project(pin.anchor);
      pin.hidden = !at.inFront;
      pin.style.transform = `translate(${at.x.toFixed(1)}px, ${at.y.toFixed(1)}px)`;
    }
  }

  function authorName(author) {
    if (room && author === room.ownerID) return room.ownerName ?? null;
    const peer = sync?.peers.find((p) => p.id === author || `guest:${p.id}` === author);
    return peer?.name ?? null;
  }

  // ---- Who is here ----
  function showPeers() {
    const peers = sync?.peers ?? [];
    $('room-peers').replaceChildren(...peers.map((p) => el('li', { 'data-peer': p.id },
      el('span', { class: 'peer-dot', 'aria-hidden': 'true' }), p.name ?? 'Someone',
      el('span', { class: 'meta' }, ` · ${p.role ?? 'guest'}${you && p.id === you.id ? ' (you)' : ''}`))));
    if (peers.length === 0) $('room-peers').append(el('li', { class: 'empty-note' }, sync?.status === 'live' ? 'Only you.' : 'Not connected.'));
  }

  // Our own view for the others, when it changed (the sync layer paces it to 5 a second).
  function shareView() {
    if (!sync || sync.status !== 'live') return;
    const { position, target } = viewer.camera;
    const view = { position: position.map((v) => Math.round(v * 1e3) / 1e3), target: target.map((v) => Math.round(v * 1e3) / 1e3) };
    const key = JSON.stringify(view);
    if (key === lastView) return;
    lastView = key;
    sync.setView(view);
  }

  // ---- Settings (owner) ----
  $('room-settings').addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!roomID) return;
    try {
      const updated = await api.updateRoom(roomID, { isPublic: $('room-public').checked, guestsMayDraw: $('room-guests-draw').checked });
      showRoom({ ...updated, role: room?.role ?? updated.role });
      say('Saved. People who are here now see the change when they next join.');
    } catch (error) {
      say(error.message, { error: true });
    }
  });

  // ---- Members (owner) ----
  $('room-members').addEventListener('submit', async (e) => {
    e.preventDefault();
    const email = $('room-member-email').value.trim();
    if (!email || !roomID) return;
    try {
      const updated = await api.addRoomMember(roomID, email);
      showRoom({ ...updated, role: room?.role ?? updated.role });
      $('room-member-email').value = '';
      say(`${email} may now draw in this room.`);
    } catch (error) {
      say(error.status === 404 ? `No account has the e-mail ${email}: they need to register first.` : error.message, { error: true });
    }
  });

  // ---- AR ----
  // In AR the same strokes float in the room placed on the table; a finger on the screen draws a
  // stroke a hand's width in front of the phone, following it as it moves.
  const arDraw = {
    mayDraw: () => Boolean(sync) && mayDraw(),
    begin(point) { if (!drawing) beginStroke(point, null, { ar: true }); },
    add(point) { if (drawing?.ar) addPoint(point, null); },
    end(keep) { if (drawing?.ar) endStroke(keep); },
  };

  return {
    open,
    leave,
    get viewer() { return viewer; },
    /** What the top bar's camera, recorder and "View in AR" act on while a room is open. */
    subject() {
      if (!room || !viewer) return null;
      const id = room.id;
      return {
        name: room.name.replace(/[^\w.-]+/g, '-').slice(0, 40) || 'room', title: room.name, viewer, slot: 'room-ar-slot', button: 'room-ar-button',
        usdz: api.roomModelURL(id, 'usdz'), glb: new URL(api.roomModelURL(id, 'glb'), location.href).href, thumbnail: null,
        page: new URL(`#/draw/${encodeURIComponent(id)}`, location.href).href,
        createAR: (overlay, callbacks) => new RoomAR(viewer, overlay, callbacks, arDraw),
      };
    },
  };
}

/**
 * AR for a room: placed like a molecule (tap a surface), then a finger on the screen draws. The
 * room keeps its true size: one metre in the room is one metre on the table.
 */
export class RoomAR extends ARPlacement {
  constructor(viewer, overlay, callbacks, draw) {
    super(viewer, overlay, callbacks);
    this.draw = draw;
    this._drawingAR = false;
  }

  _listen() {
    super._listen();
    const signal = this._events.signal;
    // Registered after ARPlacement's own: once placed, a touch draws instead of dragging.
    this.session.addEventListener('selectstart', () => {
      if (!this.position || !this.draw.mayDraw()) return;
      this._dragging = false;
      this._drawingAR = true;
      this._arStarted = false;
    }, { signal });
    this.session.addEventListener('selectend', () => {
      if (!this._drawingAR) return;
      this._drawingAR = false;
      this.draw.end(true);
    }, { signal });
  }

  _placementMatrix() {
    const s = this.scale;
    return mat4.fromTRS(this._placement, this.position, quat.setAxisAngle(quat.create(), [0, 1, 0], this.turn), [s, s, s]);
  }

  _frame(frame) {
    super._frame(frame);
    if (!this._drawingAR || !this.session) return;
    if (this._gesture) {
      // Two fingers: a pinch or a twist, not a stroke.
      this._drawingAR = false;
      this.draw.end(false);
      return;
    }
    const pose = frame.getViewerPose(this.space);
    const eye = pose?.views?.[0]?.transform?.inverse?.matrix;
    if (!eye) return;
    const camera = mat4.invert(mat4.create(), eye);
    const toRoom = camera && mat4.invert(mat4.create(), this._placementMatrix());
    if (!toRoom) return;
    // A point AR_REACH_M in front of the camera (its -z axis), in the room's coordinates.
    const world = [0, 1, 2].map((i) => camera[12 + i] - camera[8 + i] * AR_REACH_M);
    const point = [0, 1, 2].map((i) => Math.round((toRoom[i] * world[0] + toRoom[4 + i] * world[1] + toRoom[8 + i] * world[2] + toRoom[12 + i]) * 1e4) / 1e4);
    if (!this._arStarted) {
      this._arStarted = true;
      this.draw.begin(point);
    } else {
      this.draw.add(point);
    }
  }

  _finish() {
    if (this._drawingAR) this.draw.end(true);
    this._drawingAR = false;
    super._finish();
  }
}
