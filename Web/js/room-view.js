// The room screen (#/rooms/ROOMID): a 3D view of the room (its molecule, if it has one, and every
// stroke as a thin tube), drawing on it with a finger or the mouse, the tools at the bottom within
// thumb reach, notes pinned in space, who is here, and a status line that always says whether what
// you see is live. Content comes only from the server's operations (room-sync.js); a stroke being
// drawn here shows at once and is replaced by the server's copy once all of it has come back.
// This file enters and leaves rooms and wires the screen's parts together: the connection
// (room-connection.js), the view and its strokes (room-scene.js), the molecule (room-molecule.js),
// the status line (room-status.js), the room's details and owner's panels (room-details.js), who
// is here (room-people.js), the notes (room-notes.js), the history (room-history.js) and input
// (drawing, the tools, adding notes, AR: room-input.js).
import * as api from './api.js';
import { setupRoomInput } from './room-input.js';
import { RoomAR } from './room-ar.js';
import { setupRoomConnection } from './room-connection.js';
import { setupRoomScene } from './room-scene.js';
import { setupRoomMolecule } from './room-molecule.js';
import { setupRoomStatus } from './room-status.js';
import { setupRoomDetails } from './room-details.js';
import { showRoomPeople } from './room-people.js';
import { setupRoomHistory } from './room-history.js';
import { PeerMarkers } from './peer-markers.js';
import { setupRoomNotes } from './room-notes.js';

/**
 * @param {{$: Function, el: Function, say: Function, ready: () => Promise, copyLinkButton: Function,
 *          onSubjectChange: () => void}} app
 */
export function setupRoomScreen(app) {
  const { $, el, say } = app;
  const canvas = $('room-viewer');
  const stage = $('room-stage');
  let roomID = null;
  let room = null;
  let you = null;
  const connection = setupRoomConnection({
    status: () => { status.show(); },
    welcome: (detail) => { showRoom(detail.room); you = detail.you; updateTools(); status.show(); showPeerMarkers(); },
    room: (detail) => { you = detail.you; showRoom(detail.room); status.show(); },
    change: (detail) => changed(detail.what, detail.op),
    presence: () => { showRoomPeople(app, connection.sync, you); status.show(); showPeerMarkers(); },
    refused,
    ack: () => status.show(),
  });
  const details = setupRoomDetails(app, { roomID: () => roomID, saved: (updated) => showRoom({ ...updated, role: room?.role ?? updated.role }) });
  // Looking back (room-history.js): the view shows a past state and drawing waits; the socket stays live.
  const history = setupRoomHistory(app, { roomID: () => roomID, liveSequence: () => connection.sync?.state.sequence ?? 0,
    show: () => { if (connection.sync) { notes.show(); molecule.show(); scene.queueRender(); } }, modeChanged: historyModeChanged });
  /** What the view shows: the live room, or the past state the history slider is on. */
  const content = () => history.state ?? connection.sync.state;
  // The others where they stand, looking where they look (peer-markers.js), drawn with the strokes.
  const peerMarkers = new PeerMarkers(canvas, $('room-peers-layer'), el, () => scene.queueRender());
  const scene = setupRoomScene(app, { canvas, stage, peerMarkers, content, sync: () => connection.sync,
    lookingBack: () => Boolean(history.state), residueMarks: () => notes.residueMarks,
    frame: () => { notes.placeLabels(); connection.shareView(scene.viewer); } });
  const { local, drawn, queueRender } = scene;

  // ---- Entering and leaving ----
  async function open(id) {
    if (id === roomID && connection.sync && connection.sync.status !== 'failed') return;
    leave();
    roomID = id;
    room = null;
    you = null;
    $('room-title').textContent = 'Room';
    status.set('connecting', 'Connecting…');
    scene.ensureViewer();
    await app.ready();
    if (roomID !== id) return;
    let answer;
    try {
      answer = await api.roomSummary(id);
    } catch (error) {
      if (roomID !== id) return;
      const why = error.status === 404 ? 'There is no such room: check the link.'
        : error.status === 401 || error.status === 403 ? 'This room is private. Sign in with the e-mail its owner invited, then accept the invitation on your profile.' : error.message;
      status.set('failed', why);
      $('room-signin').hidden = Boolean(api.currentAccount());
      say(why, { error: true });
      return;
    }
    if (roomID !== id) return;
    showRoom(answer.room);
    const sync = connection.open(id);
    window.__proteinarRoom = { get state() { return connection.sync?.state; }, get sync() { return connection.sync; }, get you() { return you; },
      get room() { return room; }, get viewer() { return scene.viewer; }, local, drawn, history, get shown() { return connection.sync && content(); } };
    changed('all');
    sync.connect();
    app.onSubjectChange();
  }

  function leave() {
    input.endStroke(false);
    history.reset();
    peerMarkers.clear();
    connection.close();
    roomID = null;
    room = null;
    scene.clear();
    status.stop();
    molecule.clear();
    scene.showFloor();
    $('room-notes-layer').replaceChildren();
    notes.residueMarks.clear();
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
    details.show(r);
    updateTools();
  }

  // ---- Who may do what ----
  const role = () => you?.role ?? room?.role ?? null;
  const mayEverDraw = () => (you ? Boolean(you.mayDraw) : Boolean(room?.mayDraw));
  const mayDraw = () => !history.active && mayEverDraw();
  const isMine = (author) => Boolean(you && (author === you.id || author === `guest:${you.id}` || `guest:${author}` === you.id));

  const input = setupRoomInput(app, {
    canvas, stage, local, role, mayDraw, mayEverDraw, isMine, queueRender, showStatus: () => status.show(),
    get sync() { return connection.sync; },
    get viewer() { return scene.viewer; },
  });
  const { updateTools } = input;
  const notes = setupRoomNotes(app, { canvas, viewer: () => scene.viewer, sync: () => connection.sync, content, moleculeFrame: () => molecule.frame,
    mayRemove: (note) => mayDraw() && (isMine(note.author) || role() === 'owner'), authorName, queueRender });
  const status = setupRoomStatus(app, { sync: () => connection.sync, lookingBack: () => history.active, mayDraw });
  const molecule = setupRoomMolecule(app, { viewer: () => scene.viewer, roomID: () => roomID, status,
    placement: () => (history.state ? history.state.molecule : (connection.sync?.state.molecule ?? room?.molecule ?? null)),
    cleared: () => notes.residueMarks.clear(), shown: () => { notes.show(); queueRender(); } });

  // ---- Content ----
  function changed(what, op) {
    if (!connection.sync) return;
    history.liveChanged();
    scene.forgetRemoved(op?.operation);
    if (what === 'all' || what === 'strokes') {
      scene.settleLocal();
      queueRender();
    }
    if (what === 'all' || what === 'notes') notes.show();
    if (what === 'all' || what === 'molecule') molecule.show();
    updateTools();
  }

  function refused(detail) {
    const op = detail.operation;
    if (op?.id && local.has(op.id) && (op.type === 'add-stroke' || op.type === 'extend-stroke')) {
      local.delete(op.id);
      input.forgetStroke(op.id);
      queueRender();
    }
    say(`Not done: ${detail.message ?? detail.code}`, { error: true });
    status.show();
  }

  function authorName(author) {
    if (room && author === room.ownerID) return room.ownerName ?? null;
    const peer = connection.sync?.peers.find((p) => p.id === author || `guest:${p.id}` === author);
    return peer?.name ?? null;
  }

  function showPeerMarkers() {
    if (peerMarkers.update(scene.viewer, connection.sync?.peers ?? [], you?.id ?? null)) queueRender();
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
    if (connection.sync) notes.show();
    status.show();
  }

  return {
    open,
    leave,
    get viewer() { return scene.viewer; },
    /** What the top bar's camera, recorder and "View in AR" act on while a room is open. */
    subject() {
      const viewer = scene.viewer;
      if (!room || !viewer) return null;
      const id = room.id;
      return {
        name: room.name.replace(/[^\w.-]+/g, '-').slice(0, 40) || 'room', title: room.name, viewer, slot: 'room-ar-slot', button: 'room-ar-button',
        usdz: api.roomModelURL(id, 'usdz'), glb: new URL(api.roomModelURL(id, 'glb'), location.href).href, thumbnail: null,
        page: new URL(`#/rooms/${encodeURIComponent(id)}`, location.href).href,
        createAR: (overlay, callbacks) => new RoomAR(viewer, overlay, callbacks, input.arDraw),
      };
    },
  };
}
