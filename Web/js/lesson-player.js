// The Lesson screen (#/lesson/{id}, issue 34): a lesson's steps one at a time — "Step 2 of 4", the
// step's text (lesson-text.js), its 3D view rebuilt from the step's molecule and view link exactly as
// Explore would open `#/explore/{molecule}?{view}` (the model's options, the camera, the labels;
// lesson-step-view.js reads the view link), Back and Next (and the left and right arrow keys), the
// step's question (lesson-question.js: radio buttons, Answer), and View in AR with that step's model.
// Offline (lesson-offline.js): a lesson opened once opens again (every step's molecule and model are
// fetched through sw.js, which keeps them and /api/lessons/{id}), and answers given offline wait in
// localStorage and are sent once the network is back (the `online` event, or the next load).
//
// ---- The player's interface (for lesson-live.js, following live; app.js hands it over) ----
//
//   const player = setupLessonPlayer({ $, el, say, account, onModelShown });
//
//   player.lesson()          → the lesson shown (the server's JSON, lessons contract), or null
//   player.stepIndex()       → the 0-based index of the step shown (-1 before the first is shown)
//   player.goToStep(index, { camera, smooth }) → Promise<boolean>: shows step `index` (0-based; out
//       of range is clamped) — its text, question and model. `camera`: a view link's `view=` text
//       ("q…;d…;t…") to put the camera there instead of the step's own camera; `smooth`: when the
//       model shown stays (same molecule and options), the camera glides there (~0.4 s) instead of
//       jumping. Resolves true once the model is shown and the camera placed (false: failed, or
//       another goToStep took over). Calling it again with only a new camera on the same step
//       just moves the camera.
//   player.onStepShown(callback(index))   → called after each step is shown (by Next, Back, the
//       arrow keys or goToStep), once its model and camera are in place (not for a goToStep that
//       only moves the camera on the step already shown).
//   player.onCameraMoved(callback(cameraText)) → called when the person moves the camera (drag,
//       pinch, keys; never for goToStep's own moves), with the `view=` text of the camera now:
//       at most ~5 times a second while it moves, and once more when it has been still 150 ms.
//   player.cameraText()      → the camera now, as `view=` text ("q…;d…;t…"), or null without a model
//   player.viewer()          → the MoleculeViewer of the screen (canvas #lesson-viewer), or null
//   player.setNavigation(enabled) → shows (true) or hides (false) Back/Next and turns the arrow keys
//       on or off (a follower whose teacher leads the steps, say); the step line stays.
//   player.setNote(node|string|null) → a line under the step heading for the live module's words
//       ("Following Ada · 3 following"); null clears it. Element #lesson-live-note.
//
// The screen is opened by app.js's route (#/lesson/{id}, and #/lesson/{id}?room={roomID}); with a
// `room` in the address app.js then imports lesson-live.js and calls
// startLessonLive({ player, roomID, $, say, account }) (inside try/catch: the page works without
// it); if that returns an object with stop(), app.js calls stop() when the person leaves the lesson
// (another address). `?step=N` (1-based) opens the lesson at step N.
//
// The camera callbacks' registrations return a function that removes them again, so a live module
// started twice does not hear everything twice. player.ready() resolves with the lesson once it is
// loaded (null when it cannot be), for a module that starts before the lesson arrives.
import * as api from './api.js';
import { MoleculeViewer } from './viewer.js';
import { cameraOf, cameraWords, readCamera, readViewLink, residuesNamed, setCamera } from './view-link.js';
import { identifyTable } from './identify.js';
import { setupLabels } from './labels.js';
import { renderLessonText } from './lesson-text.js';
import { modelOptionsOf, stepHash } from './lesson-step-view.js';
import { setupLessonOffline } from './lesson-offline.js';
import { setupLessonQuestion } from './lesson-question.js';

const GLIDE_MS = 400;                       // a smooth camera move between two views of one model
const STILL_MS = 150;                       // the camera counts as still after this long
const CAMERA_EVERY_MS = 200;                // at most ~5 camera reports a second while it moves
const FIRST_VIEW = { q: [0, 0, 0, 1], d: 1, t: [0, 0, 0] };

// The slerp of two unit quaternions (the shorter way round).
function slerp(a, b, s) {
  let dot = a.reduce((sum, v, k) => sum + v * b[k], 0);
  const to = dot < 0 ? b.map((v) => -v) : b;
  dot = Math.abs(dot);
  if (dot > 0.9995) {
    const q = a.map((v, k) => v + (to[k] - v) * s);
    const n = Math.hypot(...q);
    return q.map((v) => v / n);
  }
  const theta = Math.acos(dot), sin = Math.sin(theta);
  const wa = Math.sin((1 - s) * theta) / sin, wb = Math.sin(s * theta) / sin;
  return a.map((v, k) => v * wa + to[k] * wb);
}

/**
 * @param {{$: Function, el: Function, say: Function, account: object, onModelShown: () => void}} app
 *   account: account.js's (ready()); onModelShown: a model is in the view (the AR button follows)
 */
export function setupLessonPlayer(app) {
  const { $, el, say, account } = app;
  let viewer = null;
  let current = null;          // the lesson shown
  let shownIndex = -1;
  let arrived = null;          // the address part last opened: "{id}?{query}"
  let loading = null;          // resolves with the lesson once loaded (ready())
  let stepSerial = 0;          // the latest goToStep: an earlier one gives way
  let loadController = null;
  let shown = null;            // {key, molecule, options, step}: the model in the view
  let navigation = true;
  let glide = 0;               // the animation frame of a camera glide
  let placing = 0;             // > 0 while the page itself moves the camera
  let expected = null;         // the camera text the page last put there
  let lastSent = null, lastSentAt = 0, stillTimer = 0;
  const stepCallbacks = new Set();
  const cameraCallbacks = new Set();
  const labelList = document.createElement('ul');  // the labels' list with × buttons is Explore's: not shown here
  const labels = setupLabels({ $, el, say: () => {}, viewer: () => viewer }, $('lesson-labels'), labelList);

  function ensureViewer() {
    if (viewer) return viewer;
    try {
      viewer = new MoleculeViewer($('lesson-viewer'), { background: '#ffffff' });
    } catch (error) {
      $('lesson-viewer-empty').textContent = error.message;
      say(error.message, { error: true });
      return null;
    }
    labels.follow($('lesson-viewer'));
    $('lesson-viewer').addEventListener('viewer-frame', cameraFollow);
    // A person who takes hold of the view while the page glides it ends the glide there: the move
    // is theirs (before the view's own handlers see the event, so it counts as theirs).
    for (const type of ['pointerdown', 'wheel', 'keydown']) {
      $('lesson-viewer').addEventListener(type, () => stopGlide(), { capture: true, passive: true });
    }
    // The checks read the viewer's camera and the model it shows (scripts/checks/test_web_lessons.py).
    window.__proteinarLesson = { viewer, player, model: () => shown?.url ?? null };
    return viewer;
  }

  const cameraText = () => (viewer?.model ? cameraWords(cameraOf(viewer)) : null);

  // ---- The person moves the camera: onCameraMoved hears it (never for the page's own moves) ----
  function cameraFollow() {
    if (placing > 0 || glide || !viewer?.model || !shown) return;
    const text = cameraText();
    if (text === expected) return;
    expected = text;
    clearTimeout(stillTimer);
    stillTimer = setTimeout(() => report(cameraText()), STILL_MS);
    if (performance.now() - lastSentAt >= CAMERA_EVERY_MS) report(text);
  }
  function report(text) {
    if (!text || text === lastSent) return;
    lastSent = text;
    lastSentAt = performance.now();
    for (const callback of cameraCallbacks) {
      try { callback(text); } catch (error) { console.warn('onCameraMoved', error); }
    }
  }

  // Ends a glide under way where it is, its promise kept; the next frame's camera is the person's.
  let stopGlide = () => {};

  // The page's own camera moves: set, glided, or back to the first view.
  function place(view, smooth) {
    cancelAnimationFrame(glide);
    glide = 0;
    stopGlide = () => {};
    clearTimeout(stillTimer);  // a report of the person's last move still to come would read the page's own move
    const done = () => { expected = cameraText(); lastSent = expected; };
    if (!smooth) {
      placing++;
      try {
        if (view) setCamera(viewer, view); else viewer.resetView();
      } finally { placing--; }
      done();
      return Promise.resolve();
    }
    const from = cameraOf(viewer), to = view ?? FIRST_VIEW;
    const start = performance.now();
    return new Promise((resolve) => {
      stopGlide = () => {
        cancelAnimationFrame(glide);
        glide = 0;
        stopGlide = () => {};
        expected = null;
        resolve();
      };
      const frame = () => {
        const s = Math.min(1, (performance.now() - start) / GLIDE_MS);
        const e = s < 0.5 ? 2 * s * s : 1 - 2 * (1 - s) * (1 - s);  // ease in and out
        placing++;
        try {
          setCamera(viewer, {
            q: slerp(from.q, to.q, e),
            d: Math.exp(Math.log(from.d) + (Math.log(to.d) - Math.log(from.d)) * e),
            t: from.t.map((v, k) => v + (to.t[k] - v) * e),
          });
          if (s >= 1 && !view) viewer.resetView();
        } finally { placing--; }
        if (s < 1) { glide = requestAnimationFrame(frame); return; }
        glide = 0;
        stopGlide = () => {};
        done();
        resolve();
      };
      glide = requestAnimationFrame(frame);
    });
  }

  // ---- A molecule's details: the library's, else opened from the archive as Explore opens it ----
  const details = new Map();
  async function moleculeOf(id, signal) {
    if (details.has(id)) return details.get(id);
    let m;
    try {
      m = await api.molecule(id);
    } catch (error) {
      if (error.status !== 404 || !api.looksLikeEntryID(id)) throw error;
      say(`Opening ${id}…`);
      const opened = await api.openEntry(id, { signal, onProgress: (p) => say(p.message) });
      m = await api.molecule(opened.id).catch(() => opened);
    }
    details.set(id, m);
    return m;
  }

  function progress(on) { $('lesson-progress').hidden = !on; }

  // ---- The step: its words at once, then its model and camera ----
  function showWords(index) {
    const steps = current.steps;
    const step = steps[index];
    $('lesson-position').textContent = `Step ${index + 1} of ${steps.length}`;
    $('lesson-step-title').textContent = `Step ${index + 1} of ${steps.length}`;
    $('lesson-back').disabled = index <= 0;
    $('lesson-next').disabled = index >= steps.length - 1;
    $('lesson-step-molecule').textContent = details.get(step.molecule)?.title ? `${step.molecule}: ${details.get(step.molecule).title}` : step.molecule;
    renderLessonText(step.text ?? '', $('lesson-step-text'));
    $('lesson-step-text').hidden = !(step.text ?? '').trim();
    $('lesson-explore-link').href = stepHash(step);
    question.show(step);
  }

  async function goToStep(index, { camera = null, smooth = false } = {}) {
    if (!current || !current.steps.length) return false;
    const i = Math.max(0, Math.min(current.steps.length - 1, Number(index) || 0));
    const serial = ++stepSerial;
    const step = current.steps[i];
    const sameStep = i === shownIndex;
    shownIndex = i;
    if (!sameStep) showWords(i);
    if (!ensureViewer()) return false;
    const state = readViewLink(stepHash(step)).state ?? { labels: [], measure: [] };
    const options = modelOptionsOf(state);
    const key = JSON.stringify([step.molecule, options]);
    const view = camera ? readCamera(camera) ?? state.view : state.view;
    let changed = !sameStep;  // a camera alone, on the step shown, is no new step
    try {
      if (shown?.key !== key || !viewer.model) {
        changed = true;
        loadController?.abort();
        const controller = (loadController = new AbortController());
        progress(true);
        say(`Step ${i + 1}: opening ${step.molecule}…`);
        const molecule = await moleculeOf(step.molecule, controller.signal);
        if (serial !== stepSerial) return false;
        if (shownIndex === i) $('lesson-step-molecule').textContent = `${step.molecule}: ${molecule.title ?? ''}`;
        const url = await api.prepareModel(molecule.id, 'glb', { ...options, compression: 'meshopt' }, {
          signal: controller.signal, onProgress: (p) => say(p.message),
        });
        placing++;
        try {
          await viewer.load(url, { signal: controller.signal });
        } finally { placing--; }
        if (serial !== stepSerial) return false;
        shown = { key, molecule, options, step, url };
        smooth = false;
        $('lesson-viewer-empty').hidden = true;
        progress(false);
        labels.clear();
      }
      shown.step = step;
      await place(view, smooth);
      if (serial !== stepSerial) return false;
      if (!changed) return true;
      await showLabels(state, serial);
      if (serial !== stepSerial) return false;
      say(`Step ${i + 1} of ${current.steps.length}: ${shown.molecule.id}${shown.molecule.title ? `: ${shown.molecule.title}` : ''}`);
      app.onModelShown?.();
      for (const callback of stepCallbacks) {
        try { callback(i); } catch (error) { console.warn('onStepShown', error); }
      }
      return true;
    } catch (error) {
      if (error.name === 'AbortError' || serial !== stepSerial) return false;
      progress(false);
      say(error.status === 0 || error.offline
        ? `This step's molecule (${step.molecule}) was not opened on this device before, so it cannot be shown offline. Its text and question are here; connect to see it.`
        : `Step ${i + 1}'s view cannot be shown: ${error.message}`, { error: true });
      return false;
    }
  }

  // The step's labels, named from the molecule's identify table as Explore names them.
  async function showLabels(state, serial) {
    const words = state.labels ?? [];
    if (!words.length) { labels.clear(); return; }
    try {
      const table = await identifyTable(shown.molecule.id);
      if (serial !== stepSerial) return;
      labels.restore(table, residuesNamed(table, words));
    } catch {
      labels.clear();  // labels are a nicety: the view stands without them
    }
  }

  // ---- Offline: every step fetched for later, answers kept until the network is back ----
  const offline = setupLessonOffline({ $, account, moleculeOf, shownLesson: () => current });

  // ---- Opening a lesson by its address ----
  async function open(arg) {
    const [rawID, query = ''] = (arg ?? '').split(/\?(.*)/s);
    const id = decodeURIComponent(rawID ?? '');
    const params = new URLSearchParams(query);
    const address = `${id}?${query}`;
    if (address === arrived && current?.id === id) {
      if (shownIndex >= 0 && viewer?.model) app.onModelShown?.();
      return loading;
    }
    arrived = address;
    const fresh = current?.id !== id;
    if (fresh) {
      current = null;
      shownIndex = -1;
      $('lesson-title').textContent = 'Lesson';
      $('lesson-by').textContent = '';
      $('lesson-body').hidden = true;
      $('lesson-missing').hidden = true;
    }
    setNavigation(navigation);
    const controlled = Boolean(navigator.serviceWorker?.controller);
    loading = (async () => {
      try {
        await account.ready();
        // Asked again each time the screen is opened: the author may have changed it meanwhile.
        const lesson = await api.lesson(id);
        if (arrived !== address) return null;
        const again = !fresh && current?.id === id && shownIndex >= 0;
        current = lesson;
        $('lesson-title').textContent = lesson.title;
        $('lesson-by').textContent = `By ${lesson.ownerName ?? 'its author'} · ${lesson.steps.length} step${lesson.steps.length === 1 ? '' : 's'}`;
        $('lesson-edit').hidden = !lesson.mine;
        $('lesson-edit').href = `#/lessons/${encodeURIComponent(lesson.id)}`;
        if (!lesson.steps.length) {
          $('lesson-body').hidden = true;
          showMissing(lesson.mine ? 'This lesson has no steps yet: open a molecule in Explore and press Add this view as a step.'
            : 'This lesson has no steps yet. Ask its author to add some, then open the link again.');
          return lesson;
        }
        $('lesson-body').hidden = false;
        const wanted = Number(params.get('step')) - 1;
        if (again) {
          // Back on the lesson shown before: the same step, its words as they are now.
          shownIndex = Math.min(shownIndex, lesson.steps.length - 1);
          showWords(shownIndex);
          await goToStep(shownIndex);
        } else {
          shownIndex = -1;
          await goToStep(Number.isInteger(wanted) && wanted >= 0 ? wanted : 0);
        }
        offline.prefetch(lesson, { controlled });
        offline.flushAnswers();
        return lesson;
      } catch (error) {
        if (arrived !== address) return null;
        progress(false);
        if (error.status === 404) {
          showMissing('There is no lesson at this address: it may have been deleted. Ask whoever shared it for a new link.');
          say('No lesson at this address.', { error: true });
        } else if (error.status === 0 || error.offline) {
          showMissing('You are offline, and this lesson was not opened on this device before. Connect to the network and open the link again.');
          say(error.message, { error: true });
        } else {
          showMissing(`The lesson cannot be opened: ${error.message}`);
          say(error.message, { error: true });
        }
        return null;
      }
    })();
    return loading;
  }

  function showMissing(text) {
    $('lesson-missing').hidden = false;
    $('lesson-missing').textContent = text;
  }

  function leave() {
    if (arrived === null) return;
    arrived = null;
    loadController?.abort();
    offline.stopPrefetch();
    cancelAnimationFrame(glide);
    glide = 0;
    progress(false);
    setNavigation(true);
    player.setNote(null);
  }

  function setNavigation(enabled) {
    navigation = Boolean(enabled);
    $('lesson-nav').hidden = !navigation;
  }

  // ---- Back, Next and the arrow keys ----
  const step = (by) => { if (current && navigation) goToStep(shownIndex + by, { smooth: true }); };
  $('lesson-back').addEventListener('click', () => step(-1));
  $('lesson-next').addEventListener('click', () => step(1));
  document.addEventListener('keydown', (e) => {
    if ($('view-lesson').hidden || !navigation || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    // Arrow keys that belong to something else: typing, a choice, the 3D view (turning), a dialog.
    if (e.target.closest?.('input, textarea, select, canvas, [contenteditable], dialog[open]')) return;
    e.preventDefault();
    step(e.key === 'ArrowRight' ? 1 : -1);
  });

  // ---- The question: Answer sends it; offline it waits on this device ----
  const question = setupLessonQuestion({
    $, el, account, shownLesson: () => current, shownStep: () => current?.steps[shownIndex], enqueue: offline.enqueue,
  });

  const player = {
    lesson: () => current,
    stepIndex: () => shownIndex,
    goToStep,
    onStepShown(callback) { stepCallbacks.add(callback); return () => stepCallbacks.delete(callback); },
    onCameraMoved(callback) { cameraCallbacks.add(callback); return () => cameraCallbacks.delete(callback); },
    cameraText,
    viewer: () => viewer,
    ready: () => loading ?? Promise.resolve(null),
    setNavigation,
    setNote(note) {
      const line = $('lesson-live-note');
      line.hidden = note === null || note === undefined || note === '';
      line.replaceChildren(...(line.hidden ? [] : [note]));
    },
    /** app.js: the address #/lesson/{arg} is shown. */
    open,
    /** app.js: another screen is shown. */
    leave,
    /** What the top bar's camera, recorder and View in AR act on: the step's model, with its options. */
    subject() {
      if (!current || !shown || !viewer?.model || shownIndex < 0) return null;
      const m = shown.molecule;
      const query = new URLSearchParams({ ...shown.options, target: 'ar' }).toString();
      const glbQuery = (m.details?.models ?? 1) > 1 ? `${query}&model=all` : query;
      const path = `/api/molecules/${encodeURIComponent(m.id)}`;
      return {
        name: m.id, title: m.title ?? m.id, viewer, slot: 'lesson-ar-slot', button: 'lesson-ar-button',
        usdz: `${path}/model.usdz?${query}`, glb: new URL(`${path}/model.glb?${glbQuery}`, location.href).href,
        thumbnail: `${path}/thumbnail.png?size=64`,
        page: new URL(`#/lesson/${encodeURIComponent(current.id)}?step=${shownIndex + 1}`, location.href).href,
      };
    },
    /** Sends the answers kept on this device now (also done on `online` and on each lesson opened). */
    flushAnswers: offline.flushAnswers,
  };
  return player;
}
