// Drawing a stroke on the room screen: with a finger or the mouse on the view, or in AR (room-ar.js
// calls `arDraw`). A stroke shows at once (it is one of `local` until the server's copy is all
// back) and its points go to the server in batches while it is drawn (add-stroke, then
// extend-stroke), a long one carried on in a new stroke at the server's limit.
import { newID } from './room-sync.js';
import { StrokeBuilder } from './strokes.js';

// Points go out in batches this often while a finger moves (add-stroke, then extend-stroke).
const BATCH_MS = 50;
// The server's limits: points a message, points a stroke.
const POINTS_PER_MESSAGE = 500;
const POINTS_PER_STROKE = 5000;

/**
 * @param {{canvas: HTMLCanvasElement, stage: HTMLElement, sync: object|null, viewer: object|null, local: Map,
 *          tools: {mode: string, color: string, width: number, updateTools: () => void},
 *          notePick: {picking: boolean, pinAt: (point: number[]) => void},
 *          mayDraw: () => boolean, queueRender: () => void, showStatus: () => void}} room
 *   `sync` and `viewer` are read when needed (getters); `tools`: the pen picked; `notePick`: a note
 *   waiting for its spot takes the next tap instead
 */
export function setupRoomDrawing(room) {
  const { canvas, stage, local, tools, notePick, mayDraw, queueRender, showStatus } = room;
  let drawing = null;          // the stroke a pointer (or AR) is drawing now

  // ---- Drawing with a pointer ----
  // The stage listens before the canvas (capture), so a drawing pointer never reaches the viewer's
  // own rotate; a second finger hands both to the viewer, which pinches and pans as usual.
  stage.addEventListener('pointerdown', (e) => {
    if (e.target !== canvas || !room.sync || !room.viewer) return;
    if (notePick.picking && e.isPrimary && e.button === 0) {
      e.stopPropagation();
      e.preventDefault();
      notePick.pinAt(pointAt(e));
      return;
    }
    if (drawing?.pointer !== undefined && drawing.pointer !== e.pointerId) {
      // A second finger: this is a pinch after all. The stroke goes; the viewer takes both fingers,
      // the first where it is now (not where it went down, or the view would jump).
      const { pointer, down, at } = drawing;
      endStroke(false);
      room.viewer.trackPointer({ pointerId: pointer, pointerType: down.pointerType, button: 0, clientX: at.x, clientY: at.y,
        timeStamp: e.timeStamp, preventDefault() {} });
      return;
    }
    const orbit = e.pointerType === 'mouse' && (e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey);
    if (tools.mode !== 'draw' || !mayDraw() || orbit || drawing) return;
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
    return room.viewer.unproject(x, y, drawing?.through);
  }

  function beginStroke(point, screen, extra = {}) {
    const id = newID('s');
    const stroke = { points: [], color: tools.color, width: tools.width, finished: false, sent: 0, added: false };
    drawing = { id, builder: new StrokeBuilder(point, screen), stroke, through: room.viewer?.camera.target, ...extra };
    stroke.points = drawing.builder.points;
    local.set(id, stroke);
    drawing.timer = setInterval(flush, BATCH_MS);
    tools.updateTools();
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
      if (stroke.added) room.sync?.send({ type: 'remove-stroke', id });
    }
    drawing = null;
    queueRender();
    tools.updateTools();
  }

  // Sends the points drawn since the last batch: the first batch creates the stroke.
  function flush() {
    if (!drawing || !room.sync) return;
    const { id, stroke } = drawing;
    while (stroke.sent < stroke.points.length) {
      const points = stroke.points.slice(stroke.sent, stroke.sent + POINTS_PER_MESSAGE);
      const operation = stroke.added ? { type: 'extend-stroke', id, points } : { type: 'add-stroke', id, points, color: stroke.color, width: stroke.width };
      room.sync.send(operation);
      stroke.added = true;
      stroke.sent += points.length;
    }
    showStatus();
  }

  // ---- AR ----
  // In AR the same strokes float in the room placed on the table; a finger on the screen draws
  // where it points, at the molecule's distance (RoomAR), following it as it moves.
  const arDraw = {
    mayDraw: () => Boolean(room.sync) && mayDraw(),
    begin(point) { if (!drawing) beginStroke(point, null, { ar: true }); },
    add(point) { if (drawing?.ar) addPoint(point, null); },
    end(keep) { if (drawing?.ar) endStroke(keep); },
  };

  return {
    /** Whether a stroke is being drawn now. */
    get active() { return Boolean(drawing); },
    endStroke,
    /** The server refused the stroke `id`: if it is the one being drawn, drawing it stops. */
    forgetStroke(id) {
      if (drawing?.id === id) drawing = null;
    },
    arDraw,
  };
}
