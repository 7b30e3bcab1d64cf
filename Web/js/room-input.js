// Input on the room screen (room-view.js): drawing strokes with a finger or the mouse, sent to the
// server in batches while they are drawn; the tools at the bottom (colours, brushes, Draw and Move,
// Undo, Clear); adding a note; and drawing in AR (RoomAR).
import { mat4, quat } from './math.js';
import { AR_STATUS, ARPlacement } from './xr.js';
import { newID } from './room-sync.js';
import { StrokeBuilder } from './strokes.js';
import { colourName, hexToHsl, hueColor } from './colour-names.js';
import { findResidue, moleculeAtoms, parseResidue } from './residue-pins.js';

// Points go out in batches this often while a finger moves (add-stroke, then extend-stroke).
const BATCH_MS = 50;
// The server's limits: points a message, points a stroke.
const POINTS_PER_MESSAGE = 500;
const POINTS_PER_STROKE = 5000;
// In AR, a touch draws where its ray reaches the molecule's distance from the phone, kept between
// these (a molecule behind the phone or at arm's length still gives a stroke one can see).
const AR_NEAR_M = 0.1;
const AR_FAR_M = 1.5;
// Without a ray to follow (a browser that gives none), new points appear this far ahead of the phone.
const AR_REACH_M = 0.15;
// What a finger does in AR once the room stands on the table, for the overlay's hint line.
export const AR_DRAW_HINT = 'Touch and move your finger to draw where it points; tap for a dot. Two fingers pinch and turn the room.';

export const SWATCHES = [['#1d2433', 'Black'], ['#d62828', 'Red'], ['#f77f00', 'Orange'], ['#2b9348', 'Green'], ['#1e6fd9', 'Blue'], ['#8e44ad', 'Purple']];
export const BRUSHES = [['fine', 'Fine', 0.002], ['medium', 'Medium', 0.005], ['bold', 'Bold', 0.012]];

/**
 * @param {{$: Function, el: Function, say: Function}} app
 * @param {{canvas: HTMLCanvasElement, stage: HTMLElement, sync: object|null, viewer: object|null, local: Map,
 *          role: () => string|null, mayDraw: () => boolean, mayEverDraw: () => boolean, isMine: (author: string) => boolean,
 *          queueRender: () => void, showStatus: () => void}} roomScreen
 *   what the room screen shows: `sync` and `viewer` are read when needed (getters); `local` holds
 *   our strokes until the server's copies are all back
 */
export function setupRoomInput(app, roomScreen) {
  const { $, el, say } = app;
  const { canvas, stage, local, role, mayDraw, isMine, queueRender, showStatus } = roomScreen;
  let mode = 'draw';           // 'draw' | 'move'
  let color = SWATCHES[4][0];
  let width = BRUSHES[1][2];
  let drawing = null;          // the stroke a pointer (or AR) is drawing now
  let pendingNoteText = null;  // a note waiting for its spot ("Pick a spot")
  let drawWhenAllowed = false; // Draw was on when drawing stopped being allowed (history, a setting): back on with it

  // ---- What the tools allow ----
  // Fewer tools: the colours and brushes fold away, leaving the view more room; More tools brings them back.
  $('room-tools-toggle').addEventListener('click', () => {
    const collapse = $('room-tools').dataset.collapsed !== 'true';
    $('room-tools').dataset.collapsed = String(collapse);
    $('room-tools-toggle').setAttribute('aria-expanded', String(!collapse));
    $('room-tools-toggle').textContent = collapse ? 'More tools' : 'Fewer tools';
  });

  function updateTools() {
    const { sync } = roomScreen;
    const draws = mayDraw();
    // Someone who may only watch gets no drawing tools at all (not a toolbar greyed out): Move and
    // the view remain. Looking back at the history only pauses them.
    const watchOnly = !roomScreen.mayEverDraw();
    $('room-tools').dataset.watchOnly = String(watchOnly);
    for (const id of ['room-mode-draw', 'room-tools-toggle', 'room-swatches', 'room-color-custom', 'room-brushes', 'room-undo', 'room-note']) $(id).hidden = watchOnly;
    $('room-hue').closest('label').hidden = watchOnly;
    for (const control of $('room-tools').querySelectorAll('[data-needs-draw]')) control.disabled = !draws;
    $('room-clear').hidden = role() !== 'owner';
    if (!draws && mode === 'draw') {
      setMode('move');
      drawWhenAllowed = true;
    } else if (draws && drawWhenAllowed) {
      drawWhenAllowed = false;
      setMode('draw');
    }
    $('room-mode-draw').disabled = !draws;
    const mine = sync ? [...sync.state.strokes.values()].some((s) => isMine(s.author)) : false;
    $('room-undo').disabled = !draws || !mine || Boolean(drawing);
    const empty = !sync || (sync.state.strokes.size === 0 && sync.state.notes.size === 0);
    $('room-clear').disabled = empty || !draws;  // not while looking back at the room's history
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

  // ---- Drawing with a pointer ----
  // The stage listens before the canvas (capture), so a drawing pointer never reaches the viewer's
  // own rotate; a second finger hands both to the viewer, which pinches and pans as usual.
  stage.addEventListener('pointerdown', (e) => {
    if (e.target !== canvas || !roomScreen.sync || !roomScreen.viewer) return;
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
      roomScreen.viewer.trackPointer({ pointerId: pointer, pointerType: down.pointerType, button: 0, clientX: at.x, clientY: at.y,
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
    return roomScreen.viewer.unproject(x, y, drawing?.through);
  }

  function beginStroke(point, screen, extra = {}) {
    const id = newID('s');
    const stroke = { points: [], color, width, finished: false, sent: 0, added: false };
    drawing = { id, builder: new StrokeBuilder(point, screen), stroke, through: roomScreen.viewer?.camera.target, ...extra };
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
      if (stroke.added) roomScreen.sync?.send({ type: 'remove-stroke', id });
    }
    drawing = null;
    queueRender();
    updateTools();
  }

  // Sends the points drawn since the last batch: the first batch creates the stroke.
  function flush() {
    if (!drawing || !roomScreen.sync) return;
    const { id, stroke } = drawing;
    while (stroke.sent < stroke.points.length) {
      const points = stroke.points.slice(stroke.sent, stroke.sent + POINTS_PER_MESSAGE);
      const operation = stroke.added ? { type: 'extend-stroke', id, points } : { type: 'add-stroke', id, points, color: stroke.color, width: stroke.width };
      roomScreen.sync.send(operation);
      stroke.added = true;
      stroke.sent += points.length;
    }
    showStatus();
  }

  // ---- Tools ----
  const swatches = $('room-swatches');
  swatches.replaceChildren(...SWATCHES.map(([value, name]) => el('button', {
    type: 'button', class: 'swatch', style: { '--swatch': value }, 'aria-label': name, 'aria-pressed': String(value === color),
    'data-color': value, 'data-needs-draw': '', onclick: () => pickColor(value),
  })));
  $('room-color-custom').addEventListener('input', (e) => pickColor(e.target.value));
  // The hue slider picks any colour of the wheel with one thumb, where the picker needs a dialog.
  $('room-hue').addEventListener('input', (e) => pickColor(hueColor(Number(e.target.value)), { fromSlider: true }));
  let announced = '';
  function pickColor(value, { fromSlider = false, quiet = false } = {}) {
    color = value.toLowerCase();
    for (const b of swatches.querySelectorAll('.swatch')) b.setAttribute('aria-pressed', String(b.dataset.color === color));
    $('room-color-custom').value = color;
    if (!fromSlider) $('room-hue').value = String(Math.round(hexToHsl(color).h));
    $('room-tools').style.setProperty('--brush', color);
    // Said once per name (a slider sends many inputs per name), by the swatch's own name if it has one.
    const name = SWATCHES.find(([v]) => v === color)?.[1].toLowerCase() ?? colourName(color);
    $('room-hue').setAttribute('aria-valuetext', name);
    if (!quiet && name !== announced) $('room-colour-said').textContent = `Colour: ${name}`;
    announced = name;
  }
  pickColor(color, { quiet: true });

  $('room-brushes').replaceChildren(...BRUSHES.map(([key, name, size]) => el('button', {
    type: 'button', class: `brush brush-${key}`, 'aria-label': `${name} brush (${size * 1000} mm)`, 'aria-pressed': String(size === width),
    'data-size': String(size), 'data-needs-draw': '', onclick: () => pickBrush(size),
  }, el('span', { 'aria-hidden': 'true' }))));
  function pickBrush(size) {
    width = size;
    for (const b of $('room-brushes').children) b.setAttribute('aria-pressed', String(Number(b.dataset.size) === size));
  }

  // A mode picked by hand is kept: drawing coming back allowed does not switch Move back to Draw.
  $('room-mode-draw').addEventListener('click', () => { drawWhenAllowed = false; setMode('draw'); });
  $('room-mode-move').addEventListener('click', () => { drawWhenAllowed = false; setMode('move'); });
  setMode('draw');

  function undo() {
    if (!roomScreen.sync || !mayDraw() || drawing) return;
    roomScreen.sync.send({ type: 'undo' });
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
    if (role() !== 'owner' || !mayDraw()) return;
    $('room-dialog-clear').showModal();
    $('room-clear-cancel').focus();
  });
  $('room-clear-cancel').addEventListener('click', () => $('room-dialog-clear').close());
  $('room-clear-confirm').addEventListener('click', () => {
    $('room-dialog-clear').close();
    roomScreen.sync?.send({ type: 'clear' });
    say('Cleared the room for everyone.');
  });

  // ---- Adding a note ----
  $('room-note').addEventListener('click', () => {
    $('room-note-text').value = '';
    $('room-note-residue').value = '';
    $('room-note-error').textContent = '';
    $('room-dialog-note').showModal();
    $('room-note-text').focus();
  });
  $('room-note-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = $('room-note-text').value.trim();
    if (text.length < 1 || text.length > 500) {
      $('room-note-error').textContent = 'A note has 1 to 500 characters.';
      $('room-note-text').focus();
      return;
    }
    // A residue in its own field, else one named in the text ("A:45"): the note is pinned to it.
    const typed = $('room-note-residue').value.trim();
    const asked = parseResidue(typed) ?? (typed ? null : parseResidue(text));
    if (typed && !asked) {
      $('room-note-error').textContent = 'Name the residue by chain and number, as A:45, or by name and number, as Lys 13.';
      $('room-note-residue').focus();
      return;
    }
    if (asked) {
      const anchor = await residueAnchor(asked);
      if (typeof anchor === 'string') {
        // Only an error when the person typed the residue themselves; one read from the text is a guess.
        if (typed) { $('room-note-error').textContent = anchor; $('room-note-residue').focus(); return; }
      } else {
        $('room-dialog-note').close();
        addNote(text, anchor);
        return;
      }
    }
    $('room-dialog-note').close();
    if (e.submitter?.value === 'pick') {
      pendingNoteText = text;
      stage.classList.add('picking');
      say('Tap the view where the note should be pinned.');
      canvas.focus();
    } else {
      addNote(text, { point: roomScreen.viewer ? roomScreen.viewer.camera.target.map((v) => Math.round(v * 1e4) / 1e4) : [0, 0, 0] });
    }
  });
  $('room-note-cancel').addEventListener('click', () => $('room-dialog-note').close());

  // {chain, residue} for the server, once the residue is found in the room's molecule; else why not.
  async function residueAnchor(asked) {
    const molecule = roomScreen.sync?.state.molecule?.moleculeID;
    if (!molecule) return 'This room has no molecule to pin a residue of.';
    try {
      const found = findResidue(await moleculeAtoms(molecule), asked);
      if (found) return { chain: found.chain, residue: found.number };
      return `${molecule} has no residue ${asked.chain ? `${asked.chain}:` : ''}${asked.name ?? ''}${asked.number}.`;
    } catch (error) {
      return `The residue could not be looked up: ${error.message}.`;
    }
  }

  function addNote(text, anchor) {
    if (!roomScreen.sync) return;
    roomScreen.sync.send({ type: 'add-note', id: newID('n'), text, anchor });
    say('Note added.');
  }

  // ---- AR ----
  // In AR the same strokes float in the room placed on the table; a finger on the screen draws
  // where it points, at the molecule's distance (RoomAR), following it as it moves.
  const arDraw = {
    mayDraw: () => Boolean(roomScreen.sync) && mayDraw(),
    begin(point) { if (!drawing) beginStroke(point, null, { ar: true }); },
    add(point) { if (drawing?.ar) addPoint(point, null); },
    end(keep) { if (drawing?.ar) endStroke(keep); },
  };

  return {
    updateTools,
    endStroke,
    /** The server refused the stroke `id`: if it is the one being drawn, drawing it stops. */
    forgetStroke(id) {
      if (drawing?.id === id) drawing = null;
    },
    /** Forgets a note waiting for its spot. */
    cancelNotePick() {
      pendingNoteText = null;
    },
    arDraw,
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
    this.session.addEventListener('selectstart', (e) => {
      if (!this.position || !this.draw.mayDraw()) return;
      this._dragging = false;
      this._drawingAR = true;
      this._arStarted = false;
      this._tapped = false;
      // A finger on the screen is a transient input whose target ray runs from the camera through
      // the finger: the stroke follows that ray, not the middle of the screen.
      this._source = e.inputSource?.targetRaySpace ? e.inputSource : null;
      this._rayMatrix = this._eventRay(e);
      this._depth = null;
    }, { signal });
    this.session.addEventListener('selectend', (e) => {
      if (!this._drawingAR) return;
      // A quick tap has ended before the next frame, whose pose for it is then gone: the ray at
      // the moment the finger lifted is kept for the dot.
      this._rayMatrix = this._eventRay(e) ?? this._rayMatrix;
      if (!this._arStarted) {
        // Lifted before a frame drew anything: a tap, which the next frame makes a dot.
        this._tapped = true;
        return;
      }
      this._drawingAR = false;
      this._source = null;
      this.draw.end(true);
    }, { signal });
  }

  _say(text) {
    // Once placed, the hint says what a touch does here: it draws rather than dragging the room.
    super._say(text === AR_STATUS.placed && this.draw.mayDraw() ? AR_DRAW_HINT : text);
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
    const ray = this._ray(frame);
    const toRoom = ray && mat4.invert(mat4.create(), this._placementMatrix());
    if (!toRoom) return;
    if (this._depth === null) {
      // The depth is the molecule's distance when the finger goes down, kept for the whole stroke
      // so a stroke lies on one shell round the phone rather than jumping in and out.
      const centre = this._roomCentre();
      const along = ray.direction.reduce((sum, d, i) => sum + d * (centre[i] - ray.origin[i]), 0);
      this._depth = this._source ? Math.min(AR_FAR_M, Math.max(AR_NEAR_M, along)) : AR_REACH_M;
    }
    const world = [0, 1, 2].map((i) => ray.origin[i] + ray.direction[i] * this._depth);
    const point = [0, 1, 2].map((i) => Math.round((toRoom[i] * world[0] + toRoom[4 + i] * world[1] + toRoom[8 + i] * world[2] + toRoom[12 + i]) * 1e4) / 1e4);
    if (!this._arStarted) {
      this._arStarted = true;
      this.draw.begin(point);
    } else {
      this.draw.add(point);
    }
    if (this._tapped) {
      this._drawingAR = false;
      this._source = null;
      this.draw.end(true);
    }
  }

  /** The ray the touch draws along (world space): the finger's target ray, else the camera's -z. */
  _ray(frame) {
    const live = this._source && frame.getPose?.(this._source.targetRaySpace, this.space)?.transform?.matrix;
    if (live) this._rayMatrix = live;
    const m = live ?? (this._source && this._rayMatrix) ?? cameraMatrix(frame.getViewerPose(this.space));
    if (!m) return null;
    const length = Math.hypot(m[8], m[9], m[10]) || 1;
    return { origin: [m[12], m[13], m[14]], direction: [-m[8] / length, -m[9] / length, -m[10] / length] };
  }

  /** The touch's target ray (a matrix) at the moment of an input-source event, when it has one. */
  _eventRay(e) {
    return (e.inputSource?.targetRaySpace && e.frame?.getPose?.(e.inputSource.targetRaySpace, this.space)?.transform?.matrix) ?? null;
  }

  /** The middle of what stands on the table (the molecule, else the room's floor ring), in world space. */
  _roomCentre() {
    const c = this.viewer.bounds.center;
    const m = this._placementMatrix();
    return [0, 1, 2].map((i) => m[i] * c[0] + m[4 + i] * c[1] + m[8 + i] * c[2] + m[12 + i]);
  }

  _finish() {
    if (this._drawingAR) this.draw.end(true);
    this._drawingAR = false;
    this._source = null;
    super._finish();
  }
}

function cameraMatrix(pose) {
  const eye = pose?.views?.[0]?.transform?.inverse?.matrix;
  return eye ? mat4.invert(mat4.create(), eye) : null;
}
