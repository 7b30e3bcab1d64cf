// The room screen's 3D view (a MoleculeViewer on #room-viewer) and what it holds of the strokes:
// every stroke of the room shown as a thin tube, uploaded once and replaced only when it changed
// (`drawn`), our own strokes on their way (`local`) until the server's copies are all back, the
// others' markers, residue notes' balls, and the floor ring that gives an empty room its size.
import { MoleculeViewer } from './viewer.js';
import { floorMesh, strokeBounds, strokeMesh } from './strokes.js';

// An empty room's space: a floor ring of 20 cm and room above it, about what a molecule takes.
const EMPTY_ROOM = { center: [0, 0.1, 0], radius: 0.22 };
// A note pinned to a residue shows as a ball of this diameter (metres) at the residue, in the note's yellow.
const RESIDUE_MARK = { color: '#e0a800', width: 0.012 };

/**
 * @param {{$: Function}} app
 * @param {{canvas: HTMLCanvasElement, stage: HTMLElement, sync: () => object|null, content: () => object,
 *          lookingBack: () => boolean, residueMarks: () => Map, peerMarkers: object, frame: () => void}} room
 *   `content()`: the state shown (live or a point in history); `lookingBack()`: whether that is a
 *   past state (our strokes on their way then wait); `frame()`: the viewer drew a frame
 */
export function setupRoomScene(app, room) {
  const { $ } = app;
  const { canvas, stage, peerMarkers } = room;
  let viewer = null;
  let floor = null;            // the floor ring's upload
  const local = new Map();     // id -> {points, color, width, finished, sent, added}: our strokes not yet all back
  const drawn = new Map();     // id -> {count, color, width, upload}: what the viewer holds for each stroke
  let renderQueued = false;

  /** The viewer, made on first use (null, and said in the view, where WebGL is missing). */
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
    canvas.addEventListener('viewer-frame', () => room.frame());
    return viewer;
  }

  // Our strokes that someone removed (undo, the owner, Clear) go from the screen with theirs.
  function forgetRemoved(o) {
    if (o?.type === 'remove-stroke' && local.get(o.id)?.finished) local.delete(o.id);
    if (o?.type === 'clear') for (const [id, stroke] of local) if (stroke.finished) local.delete(id);
  }

  // A local stroke gives way to the server's copy once it is finished and all its points came back.
  function settleLocal() {
    for (const [id, stroke] of local) {
      const confirmed = room.sync().state.strokes.get(id);
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
    const sync = room.sync();
    if (!viewer || !sync) return;
    const shown = new Map();
    for (const stroke of room.content().strokes.values()) shown.set(stroke.id, stroke);
    // Our strokes on their way show in the live room only (drawing waits while someone looks back).
    if (!room.lookingBack()) for (const [id, stroke] of local) if (!stroke.removed) shown.set(id, stroke);
    // Residue notes' balls go with the strokes (a dot each): in the 3D view, where the molecule
    // hides them when it is in front, and on the table in AR.
    const residueMarks = room.residueMarks();
    for (const [id, point] of residueMarks) shown.set(`note:${id}`, { points: [point], ...RESIDUE_MARK });
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
    stage.dataset.shown = String(shown.size - residueMarks.size);
    stage.dataset.residueMarks = String(residueMarks.size);
  }

  return {
    /** The viewer, or null before the first room (or without WebGL). */
    get viewer() { return viewer; },
    local,
    drawn,
    ensureViewer,
    /** Draws the strokes again on the next animation frame (once, however often asked). */
    queueRender,
    /** An operation came from the server: our finished strokes it removed go. */
    forgetRemoved,
    /** The room's strokes changed: ours that came back whole give way to the server's copies. */
    settleLocal,
    /** Leaving the room: our strokes and every tube go; the view keeps its floor ring. */
    clear() {
      local.clear();
      for (const entry of drawn.values()) viewer?.releaseOverlay(entry.upload);
      drawn.clear();
    },
    /** The view with nothing but the floor ring (after the model went too). */
    showFloor() {
      viewer?.setExtras(floor ? [floor] : []);
    },
  };
}
