// Following a lesson live (issue 34, point 3; lesson-live.js starts it, lesson-present.js is the
// teacher's side): the class follows the lesson's owner on their own screens, each step and each
// turn of the teacher's view.
//
// Follower (`?room=` in the address, with an account or as a guest): joins the room's socket and
// goes where the presentation says: its step, and its camera (absent: the step's own), gliding
// there when the model stays. A late joiner finds it in the welcome's snapshot. Someone who turns
// the view or steps away themselves stays where they are while the teacher only turns the view,
// and gets "Back to the teacher", one tap back; when the teacher goes to another step, everyone
// comes along. "Following Ada · step 2 of 3" says where things stand (a polite live region), and
// "The teacher has stopped presenting." when the presentation ends.
//
//   const session = follow({ player, roomID, $, el, say, account });   // lesson-live.js, with `?room=`
//   session.stepShown(index); session.cameraMoved(text);   // the player's callbacks, handed on
//   session.stop();   session.state() → {role: 'follower', room, status, teacher, away, sequence}
import { setupRoomConnection } from './room-connection.js';
import { lessonOf, mount, sameCamera, stepCamera } from './lesson-live-shared.js';

export function follow({ player, roomID, $, el, say, account }) {
  let stopped = false;
  let teacher = null;        // the presentation followed (the last one), or null
  let everPresented = false;
  let away = false;          // the follower turned the view or stepped away themselves
  let applied = false;       // the room's presentation applied once (the lesson known)
  let connection = null;
  let sync = null;
  let applyQueued = false;
  // The lesson this address names (the player may still hold the one before while it loads).
  let lessonID = null;
  try { lessonID = decodeURIComponent(/^#\/lesson\/([^?]*)/.exec(location.hash)?.[1] ?? '') || null; } catch { /* read from the lesson below */ }

  // The words go in the player's note line above the steps (a polite live region, role status);
  // Back to the teacher floats on the 3D view, where the person turned it.
  const said = el('span', { id: 'lesson-follow-said', class: 'lesson-follow-said' }, 'Joining the class…');
  const back = el('button', { type: 'button', id: 'lesson-follow-back', class: 'primary lesson-follow-back', hidden: true }, 'Back to the teacher');
  player.setNote?.(said);
  const unmounts = [];
  if (!said.isConnected) {
    // Without the player's note line, a line of its own in the live panel's place.
    unmounts.push(mount($, el('p', { class: 'lesson-follow', role: 'status', 'aria-live': 'polite' }, said)));
  }
  const stage = $('lesson-viewer')?.parentElement;
  if (stage) { stage.append(back); unmounts.push(() => back.remove()); } else unmounts.push(mount($, back));

  back.addEventListener('click', () => {
    away = false;
    if (teacher) go(teacher);
    show();
    // The button goes; the focus stays where the person was, on the 3D view (the line says where they are).
    $('lesson-viewer')?.focus({ preventScroll: true });
  });

  const teacherName = () => lessonOf(player)?.ownerName || sync?.room?.ownerName || 'the teacher';

  function show() {
    const lesson = lessonOf(player);
    const total = lesson?.steps?.length ?? 0;
    back.hidden = !(teacher && away);
    let words;
    if (!sync || sync.status === 'connecting' || (sync.status === 'live' && !applied)) words = 'Joining the class…';
    else if (sync.status === 'failed') words = sync.failure ?? 'This class cannot be reached.';
    else if (sync.status === 'reconnecting' || sync.status === 'offline') words = `Connection lost: reconnecting… ${teacher ? `You stay on step ${teacher.step + 1} meanwhile.` : ''}`.trim();
    else if (teacher) {
      const where = `step ${teacher.step + 1}${total ? ` of ${total}` : ''}`;
      words = away ? `You are looking around. ${capital(teacherName())} is on ${where}.` : `Following ${teacherName()} · ${where}`;
    } else if (everPresented) words = 'The teacher has stopped presenting. You can go through the lesson on your own.';
    else words = `Waiting for ${teacherName()} to start presenting. Meanwhile you can go through the lesson on your own.`;
    if (said.textContent !== words) said.textContent = words;
    said.dataset.following = teacher && !away ? 'true' : 'false';
  }

  // Goes where presentation `p` says: its step, its camera (else the step's own), gliding when the model stays.
  function go(p) {
    const camera = p.camera ?? stepCamera(lessonOf(player), p.step);
    return player.goToStep(p.step, { camera, smooth: true });
  }

  function apply() {
    applyQueued = false;
    if (stopped || !sync) return;
    // The lesson first (its first step shown): a step asked for before it is known would be lost.
    const lesson = lessonOf(player);
    if (!lesson || (lessonID && lesson.id !== lessonID)) {
      Promise.resolve(player.ready?.()).catch(() => null).then(() => { const now = lessonOf(player); if (now && (!lessonID || now.id === lessonID)) queueApply(); });
      return;
    }
    if (!lessonID) lessonID = lesson.id;
    applied = true;
    const p = sync.state.presentation ?? null;
    if (!p) {
      if (teacher) everPresented = true;
      teacher = null;
      away = false;
      show();
      return;
    }
    everPresented = true;
    // The teacher moved on to another lesson in the same room: follow them there.
    if (lessonID && p.lesson !== lessonID) {
      location.hash = `#/lesson/${encodeURIComponent(p.lesson)}?room=${encodeURIComponent(roomID)}`;
      return;
    }
    const before = teacher;
    teacher = p;
    // A new step brings everyone along; a turn of the teacher's view leaves those looking around be.
    if (!before || before.step !== p.step) away = false;
    if (!away) go(p);
    show();
  }
  // Operations that come together (a reconnect's catch-up) are applied once, the last one winning.
  function queueApply() {
    if (applyQueued) return;
    applyQueued = true;
    queueMicrotask(apply);
  }

  (async () => {
    try { await account?.ready?.(); } catch { /* as a guest */ }
    if (stopped) return;
    connection = setupRoomConnection({
      status: () => show(),
      welcome: () => { queueApply(); show(); },
      room: () => show(),
      change: (detail) => { if (detail.what === 'all' || detail.what === 'presentation') queueApply(); },
      presence: () => {},
      refused: () => {},
      ack: () => {},
    });
    sync = connection.open(roomID);
    sync.connect();
    show();
  })();

  return {
    stepShown(index) {
      // Stepping away by Back or Next is looking around too (a step shown by our own goToStep is
      // the teacher's: the player calls back only for the latest goToStep).
      if (teacher && index !== teacher.step) away = true;
      show();
    },
    cameraMoved(text) {
      if (!teacher) return;  // the player reports the person's own moves only, never goToStep's
      const wanted = teacher.camera ?? stepCamera(lessonOf(player), teacher.step);
      if (!sameCamera(text, wanted)) { away = true; show(); }
    },
    stop() {
      stopped = true;
      connection?.close();
      player.setNote?.(null);
      for (const undo of unmounts) undo();
    },
    state: () => ({ role: 'follower', room: roomID, status: sync?.status ?? 'connecting', teacher, away, sequence: sync?.sequence ?? 0 }),
  };
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
