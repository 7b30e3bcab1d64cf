// Drawing in AR for a room (RoomAR): the room is placed on a surface like a molecule (xr.js's
// ARPlacement), at its true size, and then a finger on the screen draws where it points, at the
// molecule's distance from the phone. The strokes themselves are drawn by room-drawing.js.
import { mat4, quat } from './math.js';
import { AR_STATUS, ARPlacement } from './xr.js';

// In AR, a touch draws where its ray reaches the molecule's distance from the phone, kept between
// these (a molecule behind the phone or at arm's length still gives a stroke one can see).
const AR_NEAR_M = 0.1;
const AR_FAR_M = 1.5;
// Without a ray to follow (a browser that gives none), new points appear this far ahead of the phone.
const AR_REACH_M = 0.15;
// What a finger does in AR once the room stands on the table, for the overlay's hint line.
export const AR_DRAW_HINT = 'Touch and move your finger to draw where it points; tap for a dot. Two fingers pinch and turn the room.';

/**
 * AR for a room: placed like a molecule (tap a surface), then a finger on the screen draws. The
 * room keeps its true size: one metre in the room is one metre on the table. `draw`
 * ({mayDraw, begin, add, end}) draws the stroke a touch makes (room-drawing.js's `arDraw`).
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
