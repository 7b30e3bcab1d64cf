// Fetching the past states the room screen's history shows (room-history.js): the server rebuilds
// each one from the room's log (GET /api/rooms/{id}/state?at=N) with the caller's fair share of its
// CPU, so the slider's wish is asked for only once it rests, at most a few times a second and one
// request at a time, and every answer is kept (a past state never changes).
import * as api from './api.js';
import { RoomState } from './room-sync.js';

// The slider asks once it has rested this long, and never sooner than MIN_GAP_MS after the last ask.
const REST_MS = 120;
const MIN_GAP_MS = 250;
// Past states kept in the page (the oldest asked goes first): enough for a Play and some scrubbing.
const KEEP_STATES = 64;

/**
 * @param {{roomID: () => string|null, wanted: () => number|null, shownAt: () => number|null, holding: () => boolean,
 *          arrived: (at: number, state: object) => void, failed: (at: number, error: Error) => void}} history
 *   `wanted()`: the operation the slider is on (null: live); `shownAt()`: the one on screen;
 *   `holding()`: an answer is not to be shown (Play shows its own); `arrived`: show this state
 */
export function setupHistoryFetch(history) {
  const kept = new Map();   // operation number -> RoomState, for the room `keptFor`
  let keptFor = null;
  let restTimer = 0;
  let askedAt = -Infinity;
  let asking = false;

  /** The room's state after operation `at`: kept, or asked for now. */
  async function stateAt(at) {
    const id = history.roomID();
    if (keptFor !== id) { kept.clear(); keptFor = id; }
    const known = kept.get(at);
    if (known) return known;
    const state = new RoomState(await api.roomStateAt(id, at));
    if (keptFor !== id) return state;
    kept.set(at, state);
    if (kept.size > KEEP_STATES) kept.delete(kept.keys().next().value);
    return state;
  }

  // Asks for the wanted state once the slider rests, one request at a time, within MIN_GAP_MS of the last.
  function askSoon() {
    clearTimeout(restTimer);
    const wanted = history.wanted();
    if (wanted === null || history.shownAt() === wanted) return;
    if (kept.has(wanted) && keptFor === history.roomID()) return history.arrived(wanted, kept.get(wanted));
    if (asking) return;  // the answer's arrival asks again for whatever is wanted then
    restTimer = setTimeout(ask, Math.max(REST_MS, askedAt + MIN_GAP_MS - performance.now()));
  }

  async function ask() {
    const at = history.wanted();
    if (at === null || asking) return;
    asking = true;
    askedAt = performance.now();
    try {
      const state = await stateAt(at);
      if (history.wanted() === at && !history.holding()) history.arrived(at, state);
    } catch (error) {
      if (history.wanted() === at) history.failed(at, error);
    } finally {
      asking = false;
    }
    const wanted = history.wanted();
    if (wanted !== null && wanted !== at) askSoon();
  }

  return {
    stateAt,
    /** The slider moved (or Play stopped): its state is shown once it has come. */
    askSoon,
    /** No state is wanted any more: a wait to ask is dropped. */
    cancel() {
      clearTimeout(restTimer);
    },
    /** Leaving the room: its kept states go. */
    forget() {
      kept.clear();
      keptFor = null;
    },
  };
}
