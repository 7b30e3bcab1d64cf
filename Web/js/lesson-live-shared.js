// What both sides of following a lesson live share (lesson-live.js picks a side: presenting,
// lesson-present.js; following, lesson-follow.js): a presentation's camera as `view=` text
// (q…;d…;t…) — compared within a tolerance, and the camera a step opens with, which a
// presentation leaves out — where the live panel goes on the lesson screen, and the lesson the player
// shows.
//
//   sameCamera(a, b[, tolerance]) → boolean (the texts read by view-link.js's readCamera)
//   stepCamera(lesson, step) → `view=` text;  mount($, node) → a function that takes it away again
//   lessonOf(player) → the player's lesson or null

import { readCamera } from './view-link.js';

const FIRST_VIEW = 'q0,0,0,1;d1;t0,0,0';
// Cameras this close are the same: 0.5° of turn, 1 % of distance, 0.01 model radii of target (the
// text keeps 4 decimals).
const CAMERA_TOLERANCE = { degrees: 0.5, distance: 0.01, target: 0.01 };

/** Whether two `view=` texts say the same camera, within `tolerance` (a quaternion and its negative are one turn). */
export function sameCamera(a, b, tolerance = CAMERA_TOLERANCE) {
  const x = readCamera(a), y = readCamera(b);
  if (!x || !y) return a === b;
  const dot = x.q.reduce((s, v, i) => s + v * y.q[i], 0) / ((Math.hypot(...x.q) * Math.hypot(...y.q)) || 1);
  const degrees = (2 * Math.acos(Math.min(1, Math.abs(dot))) * 180) / Math.PI;
  return degrees <= tolerance.degrees && Math.abs(Math.log(x.d / y.d)) <= tolerance.distance
    && x.t.every((v, i) => Math.abs(v - y.t[i]) <= tolerance.target);
}

/** The camera step `step` of `lesson` opens with (its view link's `view=`, else the first view). */
export function stepCamera(lesson, step) {
  const view = lesson?.steps?.[step]?.view ?? '';
  let camera = null;
  try { camera = new URLSearchParams(view).get('view'); } catch { /* a view that does not read: the first view */ }
  return camera && readCamera(camera) ? camera : FIRST_VIEW;
}

// Where the live panel goes: its own place in the lesson screen, else after the player's note.
export function mount($, node) {
  const slot = $('lesson-live');
  if (slot) { slot.replaceChildren(node); slot.hidden = false; return () => { slot.replaceChildren(); slot.hidden = true; }; }
  const view = $('view-lesson') ?? document.querySelector('main');
  view.append(node);
  return () => node.remove();
}

export const lessonOf = (player) => player.lesson?.() ?? null;
