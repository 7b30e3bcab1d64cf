// Explore's "Add this view as a step" (issue 34; lessons are edited in lessons.js): for a signed-in
// person, the view shown in Explore, as its view link, becomes the last step of one of their
// lessons or of a new one. The button (#add-to-lesson) shows only while someone is signed in; its
// dialog (#lesson-add-dialog) names the view in words (lesson-step-view.js's describeView), offers
// the person's lessons (the one last made or added to first) and New lesson… with its title, and
// refuses a lesson that already has MAX_STEPS steps. Once added, the status line says "Added as
// step N of …" with Edit the lesson (#lesson-added-link, the editor open at that step).
//
//   setupAddToLesson({ $, el, say, account, link });   // app.js, once
import * as api from './api.js';
import { readViewLink } from './view-link.js';
import { describeView } from './lesson-step-view.js';
import { lastLesson, rememberLesson, titleProblem } from './lessons.js';

const MAX_STEPS = 40;

/**
 * Explore's "Add this view as a step" (signed in): the view shown, as its link, appended to one of
 * the person's lessons or to a new one (its title asked in a small dialog).
 * @param {{$: Function, el: Function, say: Function, account: object, link: () => Promise<string|null>}} app
 *   link: the view shown as its link (view-link.js), or null before a model is shown
 */
export function setupAddToLesson({ $, el, say, account, link }) {
  const button = $('add-to-lesson');
  const dialog = $('lesson-add-dialog');
  const choice = $('lesson-add-choice');
  const NEW = '';
  let step = null;   // the step to add: {molecule, view}

  const update = () => { button.hidden = !api.currentAccount(); };
  account.ready().then(update);
  window.addEventListener('hashchange', () => account.ready().then(update));

  function showNewTitle() {
    const isNew = choice.value === NEW;
    $('lesson-add-new').hidden = !isNew;
    $('lesson-add-new-title').required = isNew;
  }
  choice.addEventListener('change', showNewTitle);

  button.addEventListener('click', async () => {
    await account.ready();
    if (!api.currentAccount()) { update(); account.needsAccount('Lessons are made with an account.', 'press Add this view as a step again'); return; }
    const address = await link().catch(() => null);
    if (!address) { say('Wait for the model to show, then add its view.', { error: true }); return; }
    const { id } = readViewLink(new URL(address).hash);
    const query = new URL(address).hash.split(/\?(.*)/s)[1] ?? '';
    step = { molecule: id, view: query, text: '', question: null };
    let lessons = [];
    try {
      ({ lessons } = await api.listLessons());
    } catch (error) {
      if (api.needsAccount(error)) { update(); account.needsAccount('Lessons are made with an account.', 'press Add this view as a step again'); return; }
      say(error.message, { error: true });
      return;
    }
    const last = lastLesson();
    choice.replaceChildren(
      ...lessons.map((l) => el('option', { value: l.id }, `${l.title} (${l.steps} step${l.steps === 1 ? '' : 's'})`)),
      el('option', { value: NEW }, 'New lesson…'));
    choice.value = lessons.some((l) => l.id === last) ? last : lessons[0]?.id ?? NEW;
    $('lesson-add-new-title').value = '';
    $('lesson-add-error').textContent = '';
    $('lesson-add-what').textContent = `${id}, ${describeView(query)}.`;
    showNewTitle();
    dialog.showModal();
    (choice.value === NEW ? $('lesson-add-new-title') : choice).focus();
  });

  $('lesson-add-cancel').addEventListener('click', () => dialog.close());
  $('lesson-add-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!step) return;
    const error = $('lesson-add-error');
    error.textContent = '';
    const go = $('lesson-add-go');
    go.disabled = true;
    try {
      let lesson, n;
      if (choice.value === NEW) {
        const title = $('lesson-add-new-title').value.trim();
        const problem = titleProblem(title);
        if (problem) { error.textContent = problem; $('lesson-add-new-title').focus(); return; }
        lesson = await api.createLesson({ title, steps: [step] });
        n = lesson.steps.length;
      } else {
        const now = await api.lesson(choice.value);
        if (now.steps.length >= MAX_STEPS) { error.textContent = `“${now.title}” has ${MAX_STEPS} steps, as many as a lesson may have: choose another, or a new lesson.`; return; }
        lesson = await api.updateLesson(now.id, { title: now.title, steps: [...now.steps, step] });
        n = lesson.steps.length;
      }
      rememberLesson(lesson.id);
      dialog.close();
      say(`Added as step ${n} of ${lesson.title}.`, {
        action: el('a', { href: `#/lessons/${encodeURIComponent(lesson.id)}?step=${n}`, id: 'lesson-added-link' }, 'Edit the lesson'),
      });
      step = null;
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      go.disabled = false;
    }
  });
}
