// A lesson offline (issue 34; the lesson player's, lesson-player.js): a lesson opened once opens
// again without a network, and answers given offline are sent once it is back.
// - Prefetch: once a lesson's first step is shown, every step's molecule details, model and (for
//   labels) identify table are fetched through the service worker, which keeps them (sw.js keeps
//   /api/lessons/{id} and the steps' molecules). On the first visit the page runs before the worker
//   does: once it takes control, the lesson and its steps are fetched again.
// - The answers given offline wait in localStorage (proteinar-lesson-answers: [{lesson, step,
//   choice, at}], one per step, the latest) and are sent, oldest first, on the `online` event, when
//   api.js or the service worker says the network is back, on each lesson opened, and on the next
//   load; once one is sent, the verdict line's "You are offline…" (if the lesson is still shown)
//   says the answer was sent.
//
//   const offline = setupLessonOffline({ $, account, moleculeOf, shownLesson });
//     moleculeOf(id, signal) → Promise of the molecule's details (the player's, which keeps them);
//     shownLesson() → the lesson the player shows now (a prefetch for another one stops)
//   offline.prefetch(lesson, { controlled })  controlled: whether the worker controlled the page
//       when the lesson was asked for (if not, the lesson is fetched once more, through it)
//   offline.stopPrefetch()     the person left the lesson
//   offline.enqueue(answer)    an answer the network refused to take now: {lesson, step, choice, at}
//   offline.flushAnswers()     → Promise: sends the answers kept on this device now
import * as api from './api.js';
import { readViewLink } from './view-link.js';
import { modelOptionsOf, stepHash } from './lesson-step-view.js';

const QUEUE = 'proteinar-lesson-answers';  // answers given offline: [{lesson, step, choice, at}]

// ---- Answers given offline wait here, and go once the network is back ----
function queued() {
  try { return JSON.parse(localStorage.getItem(QUEUE) ?? '[]').filter((a) => a && a.lesson && a.step); } catch { return []; }
}
function keepQueue(items) {
  try { if (items.length) localStorage.setItem(QUEUE, JSON.stringify(items)); else localStorage.removeItem(QUEUE); } catch { /* storage refused */ }
}
function enqueue(answer) {
  keepQueue([...queued().filter((a) => !(a.lesson === answer.lesson && a.step === answer.step)), answer]);
}

/**
 * @param {{$: Function, account: object, moleculeOf: (id: string, signal: AbortSignal) => Promise<object>,
 *          shownLesson: () => object|null}} app  account: account.js's (ready())
 */
export function setupLessonOffline({ $, account, moleculeOf, shownLesson }) {
  let prefetchController = null;

  // ---- Every step's model fetched once the first is shown, so the whole lesson opens offline ----
  // Through the service worker, which keeps them (sw.js): the details first (they mark a molecule
  // opened), then the model and, for labels, the identify table. On the first visit the page runs
  // before the worker does: once it takes control, the lesson and its steps are fetched again.
  async function prefetch(lesson, { controlled = true } = {}) {
    prefetchController?.abort();
    const controller = (prefetchController = new AbortController());
    const { signal } = controller;
    const worker = navigator.serviceWorker;
    const lessonAgain = () => api.fetchWhenFree(`/api/lessons/${encodeURIComponent(lesson.id)}`, { signal, headers: { Accept: 'application/json' } })
      .then((r) => r.arrayBuffer()).catch(() => {});
    if (worker && !worker.controller) {
      worker.addEventListener('controllerchange', () => {
        if (shownLesson() !== lesson || signal.aborted) return;
        lessonAgain();
        prefetch(lesson);
      }, { once: true });
    } else if (worker && !controlled) {
      lessonAgain();  // the lesson came before the worker took control: once more, through it
    }
    for (const step of lesson.steps) {
      if (signal.aborted || shownLesson() !== lesson) return;
      try {
        const state = readViewLink(stepHash(step)).state ?? { labels: [] };
        const molecule = await moleculeOf(step.molecule, signal);
        await api.fetchWhenFree(`/api/molecules/${encodeURIComponent(molecule.id)}`, { signal, headers: { Accept: 'application/json' } }).then((r) => r.arrayBuffer());
        const url = await api.prepareModel(molecule.id, 'glb', { ...modelOptionsOf(state), compression: 'meshopt' }, { signal });
        await (await api.fetchWhenFree(url, { signal })).arrayBuffer();
        if ((state.labels ?? []).length) await (await api.fetchWhenFree(`/api/molecules/${encodeURIComponent(molecule.id)}/identify.json`, { signal })).arrayBuffer();
      } catch (error) {
        if (error.name === 'AbortError') return;
        // A step that cannot be fetched now is fetched when shown.
      }
    }
  }

  // Sends the answers kept on this device, oldest first; those the network still refuses wait on.
  let flushing = null;
  function flushAnswers() {
    if (flushing) return flushing;
    flushing = (async () => {
      await account.ready();
      let sent = 0;
      for (const answer of queued()) {
        try {
          await api.answerLesson(answer.lesson, answer.step, answer.choice);
          sent++;
        } catch (error) {
          if (error.status === 0 || error.offline || error.status === 429 || error.status >= 500) break;  // try again later
          // Refused for good (the step or its question is gone): nothing to send any more.
        }
        keepQueue(queued().filter((a) => !(a.lesson === answer.lesson && a.step === answer.step && a.at === answer.at)));
      }
      if (sent && !$('view-lesson').hidden) {
        const said = $('lesson-answer-said');
        if (said.textContent.includes('You are offline')) said.textContent = said.textContent.replace(/ You are offline: .*$/, ' Your answer was sent.');
      }
    })().finally(() => { flushing = null; });
    return flushing;
  }
  window.addEventListener('online', () => flushAnswers());
  window.addEventListener(api.NETWORK_EVENT, (e) => { if (e.detail.up) flushAnswers(); });
  navigator.serviceWorker?.addEventListener('message', (e) => { if (e.data?.type === 'network' && e.data.up) flushAnswers(); });
  if (queued().length) flushAnswers();

  return {
    prefetch,
    stopPrefetch() { prefetchController?.abort(); },
    enqueue,
    flushAnswers,
  };
}
