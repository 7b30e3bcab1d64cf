// Presenting a lesson live (issue 34, point 3; lesson-live.js starts it, lesson-follow.js is the
// class's side): the lesson's owner presents it in a room of their own.
//
// Teacher (the lesson's owner, signed in): "Present live" on the lesson player makes a public room
// ("Lesson: <title>"; the same one again for this lesson in this tab, so the class link survives a
// reload), joins its live socket (room-connection.js / room-sync.js: ops with clientOpIDs, acks,
// reconnecting with `after=N`) and sends a `present` op for each step shown and for the camera as
// the teacher moves it (the player reports it at most ~5 a second and once more when it has been
// still 150 ms). The presenting panel shows the class link `#/lesson/{id}?room={roomID}` with its
// QR code, "N following" (the room's presence: peers other than the teacher, and watchers), the
// answers to the lesson's questions as they come (every 2 s) and "Stop presenting" (`present`
// with no presentation). Leaving the lesson stops presenting too.
//
//   const session = offerPresenting({ player, $, say, account });   // lesson-live.js, without a room
//   session.stepShown(index); session.cameraMoved(text);   // the player's callbacks, handed on
//   session.stop();   session.state() → {role: 'teacher', presenting, room, link, status, following, lastSent}
import * as api from './api.js';
import { copyLinkOnClick } from './copy-link.js';
import { setupRoomConnection } from './room-connection.js';
import { addressForPhones, drawQR } from './qr.js';
import { renderTally } from './lesson-tally.js';
import { lessonOf, mount, sameCamera, stepCamera } from './lesson-live-shared.js';

const TALLY_EVERY_MS = 2000;
const STOP_ACK_WAIT_MS = 3000;
const ROOM_NAME_MAX = 100;            // the server's limit on a room's name
const rememberedRoom = (lessonID) => `proteinar-lesson-room-${lessonID}`;

const followingWords = (n) => (n === 0 ? 'No one is following yet.' : `${n} following`);

export function offerPresenting({ player, $, el, say, account }) {
  let stopped = false;
  let presenting = null;   // the presenting part, once Present live was pressed
  let unmount = null;
  const button = el('button', { type: 'button', id: 'lesson-present', class: 'primary' }, 'Present live');
  const intro = el('p', { class: 'meta', id: 'lesson-present-about' },
    'Present live: your class opens a link (or scans its QR code) and follows your steps and your view of the model on their own screens.');
  button.setAttribute('aria-describedby', intro.id);
  const panel = el('section', { class: 'panel lesson-live', id: 'lesson-live-panel', 'aria-label': 'Present live' }, intro, button);

  button.addEventListener('click', async () => {
    if (presenting) return;
    button.disabled = true;
    try {
      presenting = await startPresenting({ player, $, el, say, panel, onEnd: () => { presenting = null; showOffer(); } });
      if (stopped) presenting?.stop();
    } catch (error) {
      presenting = null;
      say(`Presenting could not start: ${error.message}`, { error: true });
    } finally {
      button.disabled = false;
    }
  });

  function showOffer() {
    if (stopped) return;
    panel.replaceChildren(intro, button);
    panel.removeAttribute('aria-labelledby');
    panel.setAttribute('aria-label', 'Present live');
  }

  // Only the lesson's owner presents it, signed in; the lesson may arrive after this is called.
  function check() {
    if (stopped || unmount) return;
    const lesson = lessonOf(player);
    if (!lesson?.mine || !api.currentAccount()) return;
    unmount = mount($, panel);
  }
  Promise.all([account?.ready?.(), player.ready?.()]).catch(() => null).then(check);
  check();

  return {
    stepShown(index) { check(); presenting?.stepShown(index); },
    cameraMoved(text) { presenting?.cameraMoved(text); },
    stop() {
      stopped = true;
      presenting?.stop();
      presenting = null;
      unmount?.();
    },
    state: () => presenting?.state() ?? { role: 'teacher', presenting: false },
  };
}

/** Makes (or finds again) the lesson's room, joins it and presents; resolves with its controls. */
async function startPresenting({ player, $, el, say, panel, onEnd }) {
  const lesson = lessonOf(player);
  let room = null;
  let remembered = null;
  try { remembered = sessionStorage.getItem(rememberedRoom(lesson.id)); } catch { /* storage refused: a new room */ }
  if (remembered) {
    try {
      const found = (await api.roomSummary(remembered)).room;
      if (found?.role === 'owner') room = found;
    } catch { /* gone: a new one */ }
  }
  if (!room) {
    let name = `Lesson: ${lesson.title}`;
    if (name.length > ROOM_NAME_MAX) name = `${name.slice(0, ROOM_NAME_MAX - 1)}…`;
    room = await api.createRoom({ name, isPublic: true });
    try { sessionStorage.setItem(rememberedRoom(lesson.id), room.id); } catch { /* this page only */ }
  }

  let ended = false;
  let lastSent = null;       // the presentation last sent (JSON), so the same one is not sent twice
  let shownStep = player.stepIndex();
  let tallyTimer = 0;
  const classLink = new URL(`#/lesson/${encodeURIComponent(lesson.id)}?room=${encodeURIComponent(room.id)}`, location.href).href;

  // ---- The panel ----
  // The count is said by the player's note line (a live region); here, the connection's state.
  const said = el('span', { id: 'lesson-live-said', class: 'lesson-live-said', role: 'status' }, 'Connecting…');
  const count = el('strong', { id: 'lesson-live-count' }, '');
  // Who follows: the names of those signed in with an account; guests and watchers only counted.
  const who = el('span', { id: 'lesson-live-who', class: 'meta' }, '');
  const linkBox = el('input', { id: 'lesson-live-link', type: 'text', readonly: true, value: classLink, 'aria-describedby': 'lesson-live-link-why' });
  linkBox.addEventListener('focus', () => linkBox.select());
  const copy = el('button', { type: 'button', id: 'lesson-live-copy', 'aria-label': 'Copy the class link' }, 'Copy link');
  const why = el('p', { id: 'lesson-live-link-why', class: 'meta', hidden: true });
  const qr = el('canvas', { id: 'lesson-live-qr', class: 'lesson-live-qr', width: 0, height: 0, hidden: true });
  const tally = el('div', { id: 'lesson-live-answers', class: 'lesson-live-answers' });
  const tallyPart = el('section', { 'aria-labelledby': 'lesson-live-answers-title', hidden: true },
    el('h3', { id: 'lesson-live-answers-title' }, 'Answers so far'), tally);
  const stopButton = el('button', { type: 'button', id: 'lesson-present-stop' }, 'Stop presenting');
  panel.replaceChildren(
    el('h2', { id: 'lesson-live-title' }, 'Presenting live'),
    el('p', { class: 'lesson-live-state' }, count, el('br'), who, el('br'), said),
    el('div', { class: 'field' }, el('label', { for: 'lesson-live-link' }, 'Class link: your class opens it, or scans the QR code'),
      el('div', { class: 'row' }, linkBox, copy)),
    why, qr, tallyPart,
    el('div', { class: 'row' }, stopButton),
  );
  panel.setAttribute('aria-labelledby', 'lesson-live-title');
  panel.removeAttribute('aria-label');

  copyLinkOnClick(copy, linkBox, say,
    { copied: 'Class link copied: send it to your class, or show the QR code.', select: 'Select the class link and copy it.' });
  // At an address a phone reaches (this computer's own, localhost, is every phone's own too).
  addressForPhones(classLink).then(async ({ url, why: reason }) => {
    if (ended) return;
    if (url) linkBox.value = url;
    why.hidden = !reason;
    why.textContent = reason ?? '';
    if (url) qr.hidden = !(await drawQR(qr, url, { moduleSize: 4 }));
  });

  // ---- The room ----
  const connection = setupRoomConnection({
    status: () => showStatus(),
    welcome: () => { publish(true); showStatus(); },
    room: () => {},
    change: () => {},
    presence: () => showCount(),
    refused: (detail) => {
      say(`The room refused the presentation: ${detail.message ?? detail.code}`, { error: true });
    },
    ack: () => {},
  });
  const sync = connection.open(room.id);
  sync.connect();

  function showStatus() {
    const state = sync.status;
    said.textContent = state === 'live' ? 'Live: your class sees each step you show, and your view as you turn it.'
      : state === 'failed' ? (sync.failure ?? 'The room cannot be reached.')
        : state === 'offline' ? 'Offline: your class sees your last step until you are back online.'
          : state === 'reconnecting' ? 'Connection lost: reconnecting… Your class sees your last step meanwhile.'
            : 'Connecting…';
    showCount();
  }

  function following() {
    const me = sync.you?.id;
    return sync.peers.filter((p) => p.id !== me).length + (sync.watchers || 0);
  }
  // The names of the followers signed in with an account (once each, however many tabs); guests
  // (`guest:…`) and watchers are counted, never named.
  function namedFollowers() {
    const me = sync.you?.id;
    const named = sync.peers.filter((p) => p.id !== me && p.id && p.id !== 'anonymous' && !p.id.startsWith('guest:'));
    return [...new Map(named.map((p) => [p.id, p.name])).values()].sort((a, b) => a.localeCompare(b));
  }
  function showCount() {
    const n = sync.status === 'live' ? following() : null;
    const names = n ? namedFollowers() : [];
    who.textContent = names.length ? `Signed in: ${names.join(', ')}` : n ? 'No names: those following have no account here.' : '';
    count.textContent = n === null ? '' : followingWords(n);
    count.dataset.following = n ?? '';
    player.setNote?.(n === null ? 'Presenting live' : `Presenting live · ${followingWords(n)}`);
  }

  // The presentation: the step shown, and the teacher's camera when they moved it.
  function send(presentation, force = false) {
    const text = JSON.stringify(presentation);
    if (ended || (!force && text === lastSent)) return;
    lastSent = text;
    sync.send({ type: 'present', presentation });
  }
  function publish(force = false) {
    const step = player.stepIndex();
    if (step < 0) return;
    const camera = step === shownStep ? player.cameraText?.() : null;
    // A camera that is the step's own goes without saying (the followers find it in the step).
    send(camera && !sameCamera(camera, stepCamera(lesson, step)) ? { lesson: lesson.id, step, camera } : { lesson: lesson.id, step }, force);
  }

  // ---- Answers, as they come ----
  async function refreshTally() {
    tallyTimer = 0;
    if (ended) return;
    if (!lesson.steps.some((s) => s.question)) return;
    try {
      const answers = await api.lessonAnswers(lesson.id);
      if (ended) return;
      tallyPart.hidden = false;
      const key = JSON.stringify(answers);
      if (tally.dataset.key !== key) { tally.dataset.key = key; renderTally(tally, answers, lesson); }
    } catch {
      // The next try in two seconds; the tally shown stays.
    }
    if (!ended) tallyTimer = setTimeout(refreshTally, TALLY_EVERY_MS);
  }
  refreshTally();

  async function end({ tellClass = true } = {}) {
    if (ended) return;
    ended = true;
    clearTimeout(tallyTimer);
    if (tellClass && sync.status === 'live') {
      const id = sync.send({ type: 'present' });
      await new Promise((resolve) => {
        const done = (e) => { if (!e || e.detail?.clientOpID === id) { sync.removeEventListener('ack', done); clearTimeout(timer); resolve(); } };
        const timer = setTimeout(done, STOP_ACK_WAIT_MS);
        sync.addEventListener('ack', done);
      });
    } else if (tellClass) {
      // Not connected now: the stop waits in the queue of a connection that is closing; say so.
      say('You were not connected: your class still sees your last step until you present again.');
    }
    connection.close();
    player.setNote?.(null);
  }

  stopButton.addEventListener('click', async () => {
    stopButton.disabled = true;
    await end();
    say('You stopped presenting. Your class was told; the class link works again the next time you present.');
    onEnd();
    document.getElementById('lesson-present')?.focus();
  });

  say(`Presenting live: send your class the link, or show them the QR code.`);
  showStatus();
  stopButton.focus();

  return {
    stepShown(index) {
      shownStep = index;
      if (sync.status === 'live') { publish(); showStatus(); }
    },
    cameraMoved(text) {
      if (!text || player.stepIndex() !== shownStep) return;
      send({ lesson: lesson.id, step: shownStep, camera: text });
    },
    stop() { end(); },
    state: () => ({ role: 'teacher', presenting: !ended, room: room.id, link: classLink, status: sync.status, following: following(), lastSent: lastSent && JSON.parse(lastSent) }),
  };
}
