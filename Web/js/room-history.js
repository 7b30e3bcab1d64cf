// The room screen's history: a slider from 0 (the empty room) to the room's latest operation, Play
// to watch the drawing grow from the start, and Back to live. Past states come from the server,
// asked for and kept by room-history-fetch.js. While someone looks back the live socket keeps
// syncing in the background; only the view shows the past, and drawing waits.
import { setupHistoryFetch } from './room-history-fetch.js';

// Play shows the whole room in about this long, in at most PLAY_STEPS steps (a request each), and
// no step shorter or longer than these (a tiny room does not crawl, a big one does not flash).
const PLAY_MS = 6000;
const PLAY_STEPS = 24;
const STEP_MIN_MS = 250;
const STEP_MAX_MS = 500;

/**
 * @param {{$: Function, say: Function}} app
 * @param {{roomID: () => string|null, liveSequence: () => number, show: () => void, modeChanged: () => void}} room
 *   show: the view should draw `content` again; modeChanged: history began or ended (tools, status line)
 */
export function setupRoomHistory(app, room) {
  const { $, say } = app;
  const slider = $('room-history-slider');
  const playButton = $('room-history-play');
  const liveButton = $('room-history-live');
  const said = $('room-history-said');
  const panel = $('room-history');
  let wanted = null;        // the operation the slider shows (null: live)
  let shown = null;         // {at, state}: the past state on screen (null: the live room, or not yet come)
  let playing = null;       // a token per Play; a new Play or a stop replaces it
  const past = setupHistoryFetch({ roomID: room.roomID, wanted: () => wanted, shownAt: () => shown?.at ?? null,
    holding: () => Boolean(playing), arrived: display, failed: (at, error) => say(`Operation ${at} could not be shown: ${error.message}`, { error: true }) });

  // ---- The state on screen ----
  function display(at, state) {
    shown = { at, state };
    slider.value = String(at);
    describe();
    room.show();
  }

  // ---- Moving through time ----
  /** Shows the room as it was after operation `at`; the live end is the live room. */
  function goTo(at) {
    if (at >= room.liveSequence()) return backToLive();
    const began = wanted === null;
    wanted = at;
    describe();
    if (began) room.modeChanged();
    past.askSoon();
    return undefined;
  }

  function backToLive() {
    const wasBack = wanted !== null;
    stopPlay();
    past.cancel();
    wanted = null;
    shown = null;
    const focused = document.activeElement === liveButton;
    liveChanged();
    if (focused) slider.focus();  // the button goes; the keyboard stays in the history control
    if (wasBack) {
      room.show();
      room.modeChanged();
    }
  }

  // Play: from where the slider is (the start when live or at the end) to the live end, in steps
  // evenly spread, the next one asked for while this one shows; at the end, the live room.
  async function play() {
    const end = room.liveSequence();
    if (end === 0) return;
    const { steps, stepMs } = playSteps(wanted !== null && wanted < end - 1 ? wanted : 0, end);
    const token = {};
    playing = token;
    showPlaying();
    const began = wanted === null;
    wanted = steps[0];
    describe();
    if (began) room.modeChanged();
    // The last step is where the room was when Play began: the live room shows it (and what came since).
    steps.pop();
    let next = past.stateAt(steps[0]);
    for (let i = 0; i < steps.length; i++) {
      const stepBegan = performance.now();
      let state;
      try {
        state = await next;
      } catch (error) {
        if (playing === token) { say(`Play stopped: ${error.message}`, { error: true }); stopPlay(); }
        return;
      }
      if (playing !== token) return;
      wanted = steps[i];
      display(steps[i], state);
      if (i + 1 < steps.length) {
        next = past.stateAt(steps[i + 1]);
        next.catch(() => {});  // seen when awaited
      }
      await new Promise((resolve) => { setTimeout(resolve, Math.max(0, stepMs - (performance.now() - stepBegan))); });
      if (playing !== token) return;
    }
    if (playing === token) backToLive();
  }

  function stopPlay() {
    if (!playing) return;
    playing = null;
    showPlaying();
    if (wanted !== null) past.askSoon();
  }

  function showPlaying() {
    playButton.textContent = playing ? 'Pause' : 'Play';
    playButton.setAttribute('aria-label', playing ? 'Pause the replay' : 'Play the drawing from the start');
  }

  // ---- Words ----
  function describe() {
    const last = room.liveSequence();
    slider.max = String(last);
    slider.disabled = last === 0;
    playButton.disabled = last === 0;
    liveButton.hidden = wanted === null;
    panel.dataset.mode = wanted === null ? 'live' : 'history';
    panel.dataset.at = String(wanted ?? last);
    panel.dataset.shown = String(shown?.at ?? last);
    said.textContent = words(last, wanted, shown?.at !== wanted);
    slider.setAttribute('aria-valuetext', wanted === null ? `Live, ${changes(last)}` : `After change ${wanted} of ${last}, looking back`);
  }

  /** The live room moved on (an operation, a new snapshot): the slider's end follows it. */
  function liveChanged() {
    if (wanted === null) slider.value = String(room.liveSequence());
    if (wanted !== null && wanted >= room.liveSequence()) return backToLive();  // a resync left us past the end
    describe();
    return undefined;
  }

  slider.addEventListener('input', () => {
    stopPlay();
    goTo(Number(slider.value));
  });
  playButton.addEventListener('click', () => (playing ? stopPlay() : play()));
  liveButton.addEventListener('click', backToLive);
  // Escape anywhere in the control goes back to the live room, like the button.
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && wanted !== null) {
      e.preventDefault();
      backToLive();
    }
  });

  return {
    /** Whether someone is looking back (drawing waits meanwhile). */
    get active() { return wanted !== null; },
    /** The past state on screen, or null while the view shows the live room. */
    get state() { return wanted === null ? null : shown?.state ?? null; },
    liveChanged,
    backToLive,
    /** Leaving the room: forget its states and go back to live without redrawing. */
    reset() {
      playing = null;
      showPlaying();
      past.cancel();
      wanted = null;
      shown = null;
      past.forget();
      slider.value = '0';
      describe();
    },
  };
}

// Play's steps from operation `from` to `end` (both included), evenly spread, and how long each shows.
function playSteps(from, end) {
  const count = Math.min(PLAY_STEPS, end - from);
  const steps = Array.from({ length: count + 1 }, (_, k) => Math.round(from + ((end - from) * k) / count));
  const stepMs = Math.min(STEP_MAX_MS, Math.max(STEP_MIN_MS, PLAY_MS / count));
  return { steps, stepMs };
}

// What the panel says: of `last` operations, the live room (`wanted` null) or the one wanted,
// `loading` while its state has not come yet.
function words(last, wanted, loading) {
  if (last === 0) return 'Nothing drawn yet: the history starts with the first stroke.';
  if (wanted === null) return `Live — ${changes(last)} so far. Drag the slider or press Play to look back.`;
  return `After change ${wanted} of ${last}${loading ? ' (loading…)' : ''} — looking back; drawing waits until you press Back to live.`;
}

// "1 change", "13 changes": each stroke, note, undo or clear is one.
function changes(n) { return `${n} ${n === 1 ? 'change' : 'changes'}`; }
