// The room screen (#/draw/ROOMID): a 3D view of the room (its molecule, if it has one, and every
// stroke as a thin tube), drawing on it with a finger or the mouse, the tools at the bottom within
// thumb reach, notes pinned in space, who is here, and a status line that always says whether what
// you see is live. Content comes only from the server's operations (room-sync.js); a stroke being
// drawn here shows at once and is replaced by the server's copy once all of it has come back.
// Input (drawing, the tools, adding notes, AR) is in room-input.js.
import * as api from './api.js';
import { combineModels, parseGLB } from './glb.js';
import { mat4 } from './math.js';
import { MoleculeViewer } from './viewer.js';
import { RoomSync } from './room-sync.js';
import { RoomAR, setupRoomInput } from './room-input.js';
import { setupRoomPlace } from './room-place.js';
import { setupRoomInvite } from './room-invite.js';
import { setupRoomHistory } from './room-history.js';
import { PeerMarkers, peerColor } from './peer-markers.js';
import { setupRoomNotes } from './room-notes.js';
import { floorMesh, strokeBounds, strokeMesh } from './strokes.js';

// An empty room's space: a floor ring of 20 cm and room above it, about what a molecule takes.
const EMPTY_ROOM = { center: [0, 0.1, 0], radius: 0.22 };
// A note pinned to a residue shows as a ball of this diameter (metres) at the residue, in the note's yellow.
const RESIDUE_MARK = { color: '#e0a800', width: 0.012 };

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
  const local = new Map();     // id -> {points, color, width, finished, sent, added}: our strokes not yet all back
  const drawn = new Map();     // id -> {count, color, width, upload}: what the viewer holds for each stroke
  let renderQueued = false;
  let moleculeKey = null;
  let statusTimer = 0;
  let lastView = '';
  const invite = setupRoomInvite(app, { roomID: () => roomID });
  const place = setupRoomPlace(app, { roomID: () => roomID, saved: (updated) => showRoom({ ...updated, role: room?.role ?? updated.role }) });
  let moleculeFrame = null;    // the shown molecule's id, style, GLB box and placement: for residue pins
  // Looking back (room-history.js): the view shows a past state and drawing waits; the socket stays live.
  const history = setupRoomHistory(app, { roomID: () => roomID, liveSequence: () => sync?.state.sequence ?? 0,
    show: () => { if (sync) { notes.show(); showMolecule(); queueRender(); } }, modeChanged: historyModeChanged });
  /** What the view shows: the live room, or the past state the history slider is on. */
  const content = () => history.state ?? sync.state;
  // The others where they stand, looking where they look (peer-markers.js), drawn with the strokes.
  const peerMarkers = new PeerMarkers(canvas, $('room-peers-layer'), el, () => queueRender());

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
    canvas.addEventListener('viewer-frame', () => { notes.placeLabels(); shareView(); });
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
      answer = await api.roomSummary(id);
    } catch (error) {
      if (roomID !== id) return;
      const why = error.status === 404 ? 'There is no such room: check the link.'
        : error.status === 401 || error.status === 403 ? 'This room is private. Sign in with the e-mail its owner invited, then accept the invitation on your profile.' : error.message;
      setStatus('failed', why);
      $('room-signin').hidden = Boolean(api.currentAccount());
      say(why, { error: true });
      return;
    }
    if (roomID !== id) return;
    showRoom(answer.room);
    const account = api.currentAccount();
    sync = new RoomSync(id, { guest: account ? null : api.guestKey() });  // the content comes from the socket
    window.__proteinarRoom = { get state() { return sync?.state; }, get sync() { return sync; }, get you() { return you; }, get room() { return room; }, get viewer() { return viewer; }, local,
      drawn, history, get shown() { return sync && content(); } };
    sync.addEventListener('status', () => { showStatus(); checkStillThere(); });
    sync.addEventListener('welcome', (e) => { showRoom(e.detail.room); you = e.detail.you; updateTools(); showStatus(); showPeerMarkers(); });
    // Settings changed while connected (by the owner, maybe on another server): name, pen, owner's panels.
    sync.addEventListener('room', (e) => { you = e.detail.you; showRoom(e.detail.room); showStatus(); });
    sync.addEventListener('change', (e) => changed(e.detail.what, e.detail.op));
    sync.addEventListener('presence', () => { showPeers(); showStatus(); showPeerMarkers(); });
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
      await api.roomSummary(s.roomID);
    } catch (error) {
      if (s === sync && [401, 403, 404].includes(error.status)) {
        s.fail(error.status === 404 ? 'This room no longer exists.' : `You can no longer enter this room: ${error.message}`);
      }
    } finally {
      checking = false;
    }
  }

  function leave() {
    input.endStroke(false);
    history.reset();
    peerMarkers.clear();
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
    notes.residueMarks.clear();
    moleculeFrame = null;
    $('room-hint').hidden = true;
    $('room-notes').replaceChildren();
    $('room-peers').replaceChildren();
    delete stage.dataset.strokes;
    $('room-dialog-clear').close?.();
    input.cancelNotePick();
  }

  function showRoom(r) {
    if (!r) return;
    room = r;
    $('room-title').textContent = r.name;
    document.title = `${r.name} · ProteinAR`;
    $('room-facts').textContent = [r.ownerName ? `by ${r.ownerName}` : null, r.isPublic ? 'public' : 'private',
      r.guestsMayDraw ? 'guests may draw' : 'guests watch', place.describe(r.location)].filter(Boolean).join(' · ');
    $('room-link-slot').replaceChildren(app.copyLinkButton(r));
    $('room-signin').hidden = Boolean(api.currentAccount());
    $('room-signin-link').href = `#/signin/${encodeURIComponent(`#/draw/${r.id}`)}`;
    invite.show(r);
    $('room-settings').hidden = r.role !== 'owner';
    $('room-place').hidden = r.role !== 'owner';
    $('room-settings-public').checked = Boolean(r.isPublic);
    $('room-settings-guests-draw').checked = Boolean(r.guestsMayDraw);
    if (r.role === 'owner') place.show(r);
    updateTools();
  }

  // ---- Who may do what ----
  const role = () => you?.role ?? room?.role ?? null;
  const mayEverDraw = () => (you ? Boolean(you.mayDraw) : Boolean(room?.mayDraw));
  const mayDraw = () => !history.active && mayEverDraw();
  const isMine = (author) => Boolean(you && (author === you.id || author === `guest:${you.id}` || `guest:${author}` === you.id));

  const input = setupRoomInput(app, {
    canvas, stage, local, role, mayDraw, mayEverDraw, isMine, queueRender, showStatus,
    get sync() { return sync; },
    get viewer() { return viewer; },
  });
  const { updateTools } = input;
  const notes = setupRoomNotes(app, { canvas, viewer: () => viewer, sync: () => sync, content, moleculeFrame: () => moleculeFrame,
    mayRemove: (note) => mayDraw() && (isMine(note.author) || role() === 'owner'), authorName, queueRender });

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
    if (history.active && sync.status === 'live') {
      return setStatus('history', `History: you are looking back, drawing is paused · the room stays live behind it${waitingText}`);
    }
    const readOnly = sync.status === 'live' && !mayDraw() ? ' · read-only: guests may only watch in this room' : '';
    switch (sync.status) {
      case 'connecting':
        return setStatus('connecting', 'Connecting…');
      case 'live': {
        const here = new Set(sync.peers.map((p) => p.connection ?? p.id)).size;
        const watching = sync.watchers ? ` · ${sync.watchers} watching` : '';
        return setStatus('live', `Live${here ? ` · ${here} here` : ''}${watching}${readOnly}${waitingText}`);
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
    history.liveChanged();
    // Our strokes that someone removed (undo, the owner, Clear) go from the screen with theirs.
    const o = op?.operation;
    if (o?.type === 'remove-stroke' && local.get(o.id)?.finished) local.delete(o.id);
    if (o?.type === 'clear') for (const [id, stroke] of local) if (stroke.finished) local.delete(id);
    if (what === 'all' || what === 'strokes') {
      settleLocal();
      queueRender();
    }
    if (what === 'all' || what === 'notes') notes.show();
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
    for (const stroke of content().strokes.values()) shown.set(stroke.id, stroke);
    // Our strokes on their way show in the live room only (drawing waits while someone looks back).
    if (!history.state) for (const [id, stroke] of local) if (!stroke.removed) shown.set(id, stroke);
    // Residue notes' balls go with the strokes (a dot each): in the 3D view, where the molecule
    // hides them when it is in front, and on the table in AR.
    for (const [id, point] of notes.residueMarks) shown.set(`note:${id}`, { points: [point], ...RESIDUE_MARK });
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
    // The others' markers stay clear of the fog: they often stand behind the molecule.
    viewer.setExtras(floor && !viewer.model ? [floor, ...uploads] : uploads, strokeBounds([...shown.values(), ...peerMarkers.extents]), peerMarkers.uploads);
    // For tests and for anyone inspecting the page: what the view holds.
    stage.dataset.strokes = String(sync.state.strokes.size);
    stage.dataset.shown = String(shown.size - notes.residueMarks.size);
    stage.dataset.residueMarks = String(notes.residueMarks.size);
  }

  async function showMolecule() {
    const placement = history.state ? history.state.molecule : (sync?.state.molecule ?? room?.molecule ?? null);
    const key = placement ? JSON.stringify(placement) : null;
    if (key === moleculeKey || !viewer) return;
    moleculeKey = key;
    moleculeFrame = null;
    notes.residueMarks.clear();
    if (!placement) {
      viewer.setModel(null);
      notes.show();
      queueRender();
      return;
    }
    const id = roomID;
    try {
      setStatus($('room-status').dataset.state ?? 'connecting', `Loading ${placement.moleculeID}…`);
      const url = await api.prepareModel(placement.moleculeID, 'glb', { style: placement.style || 'cartoon', compression: 'meshopt' });
      const response = await api.fetchWhenFree(url);
      if (!response.ok) throw new Error(`Could not load ${placement.moleculeID} (HTTP ${response.status}).`);
      const model = parseGLB(await response.arrayBuffer());
      if (id !== roomID || key !== moleculeKey) return;
      // The placement moves the model into the room (column-major, metres).
      const matrix = new Float32Array(placement.transform?.length === 16 ? placement.transform : mat4.create());
      viewer.setModel(combineModels([{ model, matrix }]));
      moleculeFrame = { id: placement.moleculeID, style: placement.style || 'cartoon', bounds: model.bounds, matrix };
      notes.show();
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
      input.forgetStroke(op.id);
      queueRender();
    }
    say(`Not done: ${detail.message ?? detail.code}`, { error: true });
    showStatus();
  }

  function authorName(author) {
    if (room && author === room.ownerID) return room.ownerName ?? null;
    const peer = sync?.peers.find((p) => p.id === author || `guest:${p.id}` === author);
    return peer?.name ?? null;
  }

  // ---- Who is here ----
  // The people drawing or able to draw, by name; people watching without an account or a guest key
  // are only counted (the server sends their number, not who they are).
  function showPeers() {
    const peers = sync?.peers ?? [];
    const live = sync?.status === 'live';
    $('room-peers').replaceChildren(...peers.map((p) => el('li', { 'data-peer': p.id },
      el('span', { class: 'peer-dot', 'aria-hidden': 'true', style: { '--peer': peerColor(p.id ?? p.connection) } }), p.name ?? 'Someone',
      el('span', { class: 'meta' }, ` · ${p.role ?? 'guest'}${you && p.id === you.id ? ' (you)' : ''}`))));
    if (peers.length === 0) {
      $('room-peers').append(el('li', { class: 'empty-note' }, !live ? 'Not connected.'
        : sync.peersHidden ? 'Who is here is shown to people who sign in or draw as guests.' : 'Only you.'));
    }
    const watchers = live ? sync.watchers : 0;
    if (watchers > 0) {
      $('room-peers').append(el('li', { class: 'watchers meta', 'data-watchers': String(watchers) },
        `${watchers} ${watchers === 1 ? 'person' : 'people'} watching without an account`));
    }
  }

  function showPeerMarkers() {
    if (peerMarkers.update(viewer, sync?.peers ?? [], you?.id ?? null)) queueRender();
  }

  // History began or ended: a stroke being drawn is finished first, and the tools, the notes and
  // the status line say which room is shown.
  function historyModeChanged() {
    if (history.active) {
      input.endStroke(true);
      input.cancelNotePick();
    }
    stage.dataset.history = history.active ? 'true' : 'false';
    updateTools();
    if (sync) notes.show();
    showStatus();
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
      const updated = await api.updateRoom(roomID, { isPublic: $('room-settings-public').checked, guestsMayDraw: $('room-settings-guests-draw').checked });
      showRoom({ ...updated, role: room?.role ?? updated.role });
      // Said beside the Save button, where the eye is, and on the status line for screen readers.
      $('room-settings-said').textContent = 'Saved.';
      say('Saved. People who are here now see the change when they next join.');
    } catch (error) {
      say(error.message, { error: true });
    }
  });

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
        createAR: (overlay, callbacks) => new RoomAR(viewer, overlay, callbacks, input.arDraw),
      };
    },
  };
}
