// Lessons (issue 34): a teacher's walk through molecules' views, each step a view link with text
// and perhaps a question. This module holds
// - the Lessons screen (#/lessons): the signed-in person's lessons and New lesson;
// - the editor (#/lessons/{id}): the title; the steps in order, each with its molecule and a short
//   summary of its view, its text (a textarea with a live preview, lesson-text.js) and its
//   question (a prompt, 2 to 6 choices, the right one or none), Move up, Move down and Delete;
//   Save (PUT of the whole lesson), Delete lesson (asked first), Open lesson, the lesson's link with
//   its QR code, and the answers so far under each question (refreshed every 2 s).
// Explore's "Add this view as a step" is lesson-add-step.js's; it takes from here titleProblem (a
// title as the server takes it) and the lesson last made or added to (rememberLesson, lastLesson),
// offered first next time. The lesson itself, as a student sees it, is lesson-player.js's
// (#/lesson/{id}); a step's view link read as Explore reads it is lesson-step-view.js's.
import * as api from './api.js';
import { copyLinkOnClick } from './copy-link.js';
import { signInHref } from './account.js';
import { addressForPhones, drawQR } from './qr.js';
import { renderLessonText } from './lesson-text.js';
import { describeView, stepHash } from './lesson-step-view.js';

const TALLY_EVERY_MS = 2000;
const LAST_LESSON = 'proteinar-last-lesson';  // the lesson a view was last added to: offered first next time

const lessonLink = (id) => new URL(`#/lesson/${encodeURIComponent(id)}`, location.href).href;

/** Remembers lesson `id` as the one last made or added to (offered first by Add this view as a step). */
export function rememberLesson(id) {
  try { localStorage.setItem(LAST_LESSON, id); } catch { /* only a default */ }
}
/** The lesson last made or added to on this device, or null. */
export function lastLesson() {
  try { return localStorage.getItem(LAST_LESSON); } catch { return null; }
}

// A title as the server takes it: one line, 1 to 120 characters.
export const titleProblem = (title) => (title.length < 1 || title.length > 120 || /[\r\n]/.test(title)
  ? 'A title needs 1 to 120 characters, on one line.' : null);

/**
 * The Lessons screen and the editor.
 * @param {{$: Function, el: Function, say: Function, account: object}} app  account: account.js's
 * @returns {{show: (arg: string|undefined) => void, leave: () => void}}
 */
export function setupLessons(app) {
  const { $, el, say, account } = app;
  let draft = null;       // the lesson being edited: {id, title, steps, deleted: Set, dirty}
  let open = new Set();   // the steps whose editors are open
  let tallyTimer = 0;
  let showing = null;     // the address shown ('' for the list, else the lesson's id)

  // ---- #/lessons: the person's lessons ----
  async function showList() {
    $('lessons-home').hidden = false;
    $('lesson-editor').hidden = true;
    await account.ready();
    if (showing !== '') return;
    const signedIn = Boolean(api.currentAccount());
    account.accountBar($('lessons-account'), 'Lessons are made with an account. Anyone can follow a lesson from its link, no account needed.');
    $('lesson-new-form').hidden = !signedIn;
    $('lessons-list-title').hidden = !signedIn;
    const list = $('lessons-list');
    if (!signedIn) { list.replaceChildren(); return; }
    list.setAttribute('aria-busy', 'true');
    try {
      const { lessons } = await api.listLessons();
      if (showing !== '') return;
      list.replaceChildren(...lessons.map((l) => el('li', { 'data-lesson': l.id },
        el('a', { class: 'room-name', href: `#/lessons/${encodeURIComponent(l.id)}`, 'aria-label': `Edit ${l.title}` }, l.title),
        el('span', { class: 'meta' }, `${l.steps} step${l.steps === 1 ? '' : 's'} · changed ${when(l.updatedAt)}`),
        el('a', { class: 'button', href: `#/lesson/${encodeURIComponent(l.id)}`, 'aria-label': `Open ${l.title}` }, 'Open'))));
      if (!lessons.length) list.append(el('li', { class: 'empty-note' }, el('span', {}, 'No lessons yet: open a molecule in ', el('a', { href: '#/explore' }, 'Explore'), ' and press Add this view as a step, or make an empty one with New lesson.')));
    } catch (error) {
      if (api.needsAccount(error)) account.needsAccount('Lessons are kept for your account.', 'come back here');
      else say(error.message, { error: true });
    } finally {
      list.removeAttribute('aria-busy');
    }
  }

  function when(iso) {
    const t = Date.parse(iso);
    if (Number.isNaN(t)) return 'some time ago';
    const s = Math.max(0, (Date.now() - t) / 1000);
    if (s < 60) return 'just now';
    if (s < 3600) return `${Math.round(s / 60)} min ago`;
    if (s < 86400) return `${Math.round(s / 3600)} h ago`;
    return new Date(t).toLocaleDateString();
  }

  $('lesson-new-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = $('lesson-new-title'), error = $('lesson-new-error');
    error.textContent = '';
    input.removeAttribute('aria-invalid');
    const title = input.value.trim();
    const problem = titleProblem(title);
    if (problem) { input.setAttribute('aria-invalid', 'true'); error.textContent = problem; input.focus(); return; }
    try {
      const lesson = await api.createLesson({ title, steps: [] });
      input.value = '';
      rememberLesson(lesson.id);
      say(`Made the lesson “${lesson.title}”. Add steps from Explore: open a molecule and press Add this view as a step.`, { carry: true });
      location.hash = `#/lessons/${encodeURIComponent(lesson.id)}`;
    } catch (failure) {
      if (api.needsAccount(failure)) account.needsAccount('Lessons are kept for your account.', 'press New lesson again');
      else { error.textContent = failure.message; input.focus(); }
    }
  });

  // ---- #/lessons/{id}: the editor ----
  async function showEditor(id, query) {
    $('lessons-home').hidden = true;
    $('lesson-editor').hidden = false;
    await account.ready();
    account.accountBar($('lessons-account'), 'Lessons are made with an account. Anyone can follow a lesson from its link, no account needed.');
    let lesson;
    try {
      lesson = await api.lesson(id);
    } catch (error) {
      if (showing !== id) return;
      $('lesson-editor').hidden = true;
      $('lessons-home').hidden = false;
      say(error.status === 404 ? 'There is no lesson at this address: it may have been deleted.' : error.message, { error: true });
      return;
    }
    if (showing !== id) return;
    if (!lesson.mine) {
      $('lesson-editor').hidden = true;
      $('lessons-home').hidden = false;
      const open = el('a', { href: `#/lesson/${encodeURIComponent(id)}` }, 'Open the lesson');
      if (api.currentAccount()) say(`Only its author (${lesson.ownerName}) may change “${lesson.title}”.`, { error: true, action: open });
      else say(`Sign in as the author of “${lesson.title}” to change it.`, { error: true, action: el('a', { href: signInHref() }, 'Sign in or register') });
      return;
    }
    if (draft?.id === id && draft.dirty) {
      // Unsaved changes stay; steps added meanwhile (from Explore) join them at the end.
      const known = new Set(draft.steps.map((s) => s.id));
      for (const s of lesson.steps) if (!known.has(s.id) && !draft.deleted.has(s.id)) draft.steps.push(copyStep(s));
    } else {
      draft = { id, title: lesson.title, steps: lesson.steps.map(copyStep), deleted: new Set(), dirty: false };
      open = new Set();
    }
    const wanted = Number(new URLSearchParams(query).get('step')) - 1;
    if (draft.steps[wanted]) open.add(draft.steps[wanted].id);
    $('lesson-edit-title').value = draft.title;
    $('lesson-edit-error').textContent = '';
    $('lesson-open').href = `#/lesson/${encodeURIComponent(id)}`;
    renderSteps();
    markDirty(draft.dirty);
    showShare(id);
    startTally();
    if (draft.steps[wanted]) {
      const item = $('lesson-steps').querySelector(`li[data-step="${CSS.escape(draft.steps[wanted].id)}"]`);
      item?.scrollIntoView({ block: 'start' });
      item?.querySelector('textarea')?.focus({ preventScroll: true });
    }
  }

  const copyStep = (s) => ({
    id: s.id, molecule: s.molecule, view: s.view ?? '', text: s.text ?? '',
    question: s.question ? { prompt: s.question.prompt, choices: [...s.question.choices], answer: s.question.answer ?? null } : null,
  });

  function markDirty(dirty = true) {
    if (!draft) return;
    draft.dirty = dirty;
    $('lesson-dirty').textContent = dirty ? 'Unsaved changes' : 'All changes saved';
  }

  $('lesson-edit-title').addEventListener('input', (e) => { if (draft) { draft.title = e.target.value; markDirty(); } });

  // The steps' list, drawn again after each change of its shape (a move, a deletion, a choice added);
  // `focus`: [step id, selector] of the control to put the cursor back on.
  function renderSteps(focus = null) {
    const list = $('lesson-steps');
    const count = draft.steps.length;
    list.replaceChildren(...draft.steps.map((step, i) => stepItem(step, i, count)));
    $('lesson-steps-empty').hidden = count > 0;
    if (focus) {
      const [id, selector] = focus;
      const item = list.querySelector(`li[data-step="${CSS.escape(id)}"]`);
      const target = item?.querySelector(selector);
      (target && !target.disabled ? target : item?.querySelector('summary'))?.focus();
    }
  }

  function stepItem(step, i, count) {
    const n = i + 1;
    const base = `lesson-step-${n}`;
    const structural = (change, focus) => () => { change(); markDirty(); renderSteps(focus); };
    const details = el('details', { class: 'lesson-step-editor' });
    details.open = open.has(step.id);
    details.addEventListener('toggle', () => { if (details.open) open.add(step.id); else open.delete(step.id); });

    // The step's text and its preview, as the lesson shows it.
    const preview = el('div', { class: 'lesson-text lesson-preview', id: `${base}-preview`, 'aria-live': 'off' });
    renderLessonText(step.text, preview);
    const textarea = el('textarea', { id: `${base}-text`, rows: '5', maxlength: '2000', class: 'lesson-text-input', 'aria-describedby': `${base}-text-help` });
    textarea.value = step.text;
    textarea.addEventListener('input', () => {
      step.text = textarea.value;
      renderLessonText(step.text, preview);
      preview.hidden = !step.text.trim();
      markDirty();
    });
    preview.hidden = !step.text.trim();

    details.append(
      el('summary', {}, el('strong', {}, `Step ${n}`), ` · ${step.molecule}`, el('span', { class: 'meta lesson-step-summary' }, ` · ${describeView(step.view)}`),
        step.question ? el('span', { class: 'meta' }, ' · question') : null),
      el('div', { class: 'row lesson-step-actions', role: 'group', 'aria-label': `Step ${n}` },
        el('button', { type: 'button', class: 'lesson-up', 'aria-label': `Move step ${n} up`, disabled: i === 0 ? '' : null,
          onclick: structural(() => { draft.steps.splice(i - 1, 0, draft.steps.splice(i, 1)[0]); }, [step.id, '.lesson-up']) }, 'Move up'),
        el('button', { type: 'button', class: 'lesson-down', 'aria-label': `Move step ${n} down`, disabled: i === count - 1 ? '' : null,
          onclick: structural(() => { draft.steps.splice(i + 1, 0, draft.steps.splice(i, 1)[0]); }, [step.id, '.lesson-down']) }, 'Move down'),
        el('button', { type: 'button', class: 'lesson-remove danger', 'aria-label': `Delete step ${n}`, onclick: () => {
          draft.steps.splice(i, 1);
          draft.deleted.add(step.id);
          markDirty();
          const next = draft.steps[Math.min(i, draft.steps.length - 1)];
          renderSteps(next ? [next.id, 'summary'] : null);
          if (!next) $('lesson-edit-title').focus();
          say(`Step ${n} deleted. Save to keep the change.`);
        } }, 'Delete step'),
        el('a', { class: 'tap', href: stepHash(step), 'aria-label': `Open step ${n}'s view in Explore` }, 'Open in Explore')),
      el('label', { for: `${base}-text` }, 'Text'),
      textarea,
      el('p', { id: `${base}-text-help`, class: 'meta' }, 'A blank line starts a new paragraph. **bold**, *italic*, [words](https://…) for a link.'),
      el('p', { class: 'meta lesson-preview-title', 'aria-hidden': 'true' }, 'Preview'),
      preview,
      questionEditor(step, n, base, structural),
      tallyPanel(step, n));
    return el('li', { class: 'lesson-step', 'data-step': step.id }, details);
  }

  // The question: Ask a question (a checkbox), the prompt, 2 to 6 choices each with a "right answer"
  // radio, and "No right answer".
  function questionEditor(step, n, base, structural) {
    const q = step.question;
    const ask = el('input', { type: 'checkbox', id: `${base}-ask`, class: 'lesson-ask' });
    ask.checked = Boolean(q);
    ask.addEventListener('change', structural(() => {
      step.question = ask.checked ? { prompt: '', choices: ['', ''], answer: 0 } : null;
    }, [step.id, ask.checked ? '.lesson-prompt' : '.lesson-ask']));
    const box = el('fieldset', { class: 'lesson-question-editor' }, el('legend', {}, `Step ${n}'s question`),
      el('label', { class: 'check' }, ask, ' Ask a question'));
    if (!q) return box;
    const prompt = el('input', { id: `${base}-prompt`, class: 'lesson-prompt', maxlength: '300' });
    prompt.value = q.prompt;
    prompt.addEventListener('input', () => { q.prompt = prompt.value; markDirty(); });
    const group = `${base}-right`;
    const choices = el('ol', { class: 'lesson-choices-editor', 'aria-label': `Choices of step ${n}'s question` }, ...q.choices.map((text, k) => {
      const input = el('input', { class: 'lesson-choice-text', maxlength: '200', 'aria-label': `Choice ${k + 1}` });
      input.value = text;
      input.addEventListener('input', () => { q.choices[k] = input.value; markDirty(); });
      const right = el('input', { type: 'radio', name: group, value: String(k), class: 'lesson-right' });
      right.checked = q.answer === k;
      right.addEventListener('change', () => { if (right.checked) { q.answer = k; markDirty(); } });
      return el('li', { class: 'lesson-choice-row' },
        el('label', { class: 'check lesson-right-label' }, right, el('span', { class: 'visually-hidden' }, `Choice ${k + 1} is the right answer`), el('span', { 'aria-hidden': 'true' }, 'Right')),
        input,
        el('button', { type: 'button', class: 'small lesson-remove-choice', 'aria-label': `Remove choice ${k + 1}`, disabled: q.choices.length <= 2 ? '' : null,
          onclick: structural(() => {
            q.choices.splice(k, 1);
            if (q.answer === k) q.answer = null; else if (q.answer > k) q.answer -= 1;
          }, [step.id, '.lesson-choice-text']) }, '×'));
    }));
    const none = el('input', { type: 'radio', name: group, value: 'none', class: 'lesson-right-none' });
    none.checked = q.answer === null;
    none.addEventListener('change', () => { if (none.checked) { q.answer = null; markDirty(); } });
    box.append(
      el('label', { for: `${base}-prompt` }, 'Question'), prompt,
      el('p', { class: 'meta' }, 'Choices: mark the right one, or choose No right answer (a poll).'),
      choices,
      el('label', { class: 'check' }, none, ' No right answer'),
      el('button', { type: 'button', class: 'lesson-add-choice', disabled: q.choices.length >= 6 ? '' : null,
        onclick: structural(() => { q.choices.push(''); }, [step.id, '.lesson-choices-editor li:last-child .lesson-choice-text']) }, 'Add a choice'));
    return box;
  }

  // The answers to the step's question so far (filled by the tally, every 2 s).
  function tallyPanel(step, n) {
    if (!step.question) return null;
    return el('section', { class: 'lesson-tally', 'data-step': step.id, 'aria-label': `Answers to step ${n}'s question` },
      el('h3', {}, 'Answers'),
      el('p', { class: 'meta lesson-tally-said' }, 'Answers show here as they come in.'));
  }

  // ---- The tally: GET /api/lessons/{id}/answers every 2 s while the editor is shown ----
  function startTally() {
    stopTally();
    const tick = async () => {
      const id = draft?.id;
      if (!id || showing !== id) return;
      try {
        const { questions } = await api.lessonAnswers(id);
        if (showing !== id) return;
        for (const q of questions) showTally(q);
      } catch {
        // The tally waits for the next tick (offline, a busy server).
      }
      if (showing === id) tallyTimer = setTimeout(tick, TALLY_EVERY_MS);
    };
    tick();
  }
  function stopTally() { clearTimeout(tallyTimer); tallyTimer = 0; }

  function showTally(q) {
    const panel = $('lesson-steps').querySelector(`.lesson-tally[data-step="${CSS.escape(q.step)}"]`);
    if (!panel) return;
    const key = JSON.stringify(q);
    if (panel.dataset.key === key) return;
    panel.dataset.key = key;
    panel.dataset.total = String(q.total);
    const rows = q.choices.map((choice, k) => el('li', { 'data-choice': String(k) },
      `${choice}: ${q.counts[k] ?? 0}`, q.answer === k ? el('span', { class: 'meta' }, ' (right)') : null));
    const named = (q.named ?? []).map((a) => `${a.name}: ${q.choices[a.choice] ?? a.choice}`);
    panel.replaceChildren(
      el('h3', {}, 'Answers'),
      el('p', { class: 'lesson-tally-said' }, q.total ? `${q.total} answer${q.total === 1 ? '' : 's'} to “${q.prompt}”` : 'No answers yet.'),
      q.total ? el('ul', { class: 'plain lesson-tally-counts' }, ...rows) : null,
      named.length ? el('p', { class: 'meta' }, `By name: ${named.join(' · ')}`) : null);
  }

  // ---- Save: the whole lesson, as it stands here ----
  function problems() {
    const title = draft.title.trim();
    if (titleProblem(title)) return [titleProblem(title), $('lesson-edit-title')];
    for (const [i, step] of draft.steps.entries()) {
      const item = () => $('lesson-steps').querySelector(`li[data-step="${CSS.escape(step.id)}"]`);
      const opened = (selector) => { const li = item(); li.querySelector('details').open = true; return li.querySelector(selector); };
      if (step.text.length > 2000) return [`Step ${i + 1}: the text can have at most 2,000 characters (it has ${step.text.length}).`, () => opened('textarea')];
      const q = step.question;
      if (!q) continue;
      if (!q.prompt.trim() || q.prompt.trim().length > 300) return [`Step ${i + 1}: the question needs 1 to 300 characters.`, () => opened('.lesson-prompt')];
      const empty = q.choices.findIndex((c) => !c.trim() || c.trim().length > 200);
      if (empty >= 0) return [`Step ${i + 1}: choice ${empty + 1} needs 1 to 200 characters.`, () => opened(`.lesson-choices-editor li:nth-child(${empty + 1}) .lesson-choice-text`)];
      if (q.choices.length < 2 || q.choices.length > 6) return [`Step ${i + 1}: a question needs 2 to 6 choices.`, () => opened('.lesson-add-choice')];
    }
    return null;
  }

  $('lesson-edit-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!draft) return;
    const error = $('lesson-edit-error');
    error.textContent = '';
    const problem = problems();
    if (problem) {
      error.textContent = problem[0];
      (typeof problem[1] === 'function' ? problem[1]() : problem[1])?.focus();
      return;
    }
    const body = {
      title: draft.title.trim(),
      steps: draft.steps.map((s) => ({
        id: s.id, molecule: s.molecule, view: s.view, text: s.text,
        question: s.question ? { prompt: s.question.prompt.trim(), choices: s.question.choices.map((c) => c.trim()), answer: s.question.answer } : null,
      })),
    };
    const button = $('lesson-save');
    button.disabled = true;
    try {
      const saved = await api.updateLesson(draft.id, body);
      if (draft?.id !== saved.id) return;
      draft = { id: saved.id, title: saved.title, steps: saved.steps.map(copyStep), deleted: new Set(), dirty: false };
      $('lesson-edit-title').value = draft.title;
      renderSteps();
      markDirty(false);
      say(`Saved “${saved.title}”: ${saved.steps.length} step${saved.steps.length === 1 ? '' : 's'}.`);
      startTally();
    } catch (failure) {
      if (api.needsAccount(failure)) account.needsAccount('Lessons are kept for your account.', 'press Save again');
      else { error.textContent = `Not saved: ${failure.message}`; say(`Not saved: ${failure.message}`, { error: true }); }
    } finally {
      button.disabled = false;
    }
  });

  // ---- Delete lesson, asked first ----
  $('lesson-delete').addEventListener('click', () => {
    if (!draft) return;
    $('lesson-delete-name').textContent = `“${draft.title}”`;
    $('lesson-delete-dialog').showModal();
    $('lesson-delete-cancel').focus();
  });
  $('lesson-delete-cancel').addEventListener('click', () => $('lesson-delete-dialog').close());
  $('lesson-delete-confirm').addEventListener('click', async () => {
    $('lesson-delete-dialog').close();
    if (!draft) return;
    const { id, title } = draft;
    try {
      await api.deleteLesson(id);
      draft = null;
      say(`Deleted the lesson “${title}”.`, { carry: true });
      location.hash = '#/lessons';
    } catch (failure) {
      say(`Not deleted: ${failure.message}`, { error: true });
    }
  });

  // ---- The lesson's link and its QR code ----
  async function showShare(id) {
    const here = lessonLink(id);
    $('lesson-share-link').value = here;
    $('lesson-share-qr').hidden = true;
    $('lesson-share-why').hidden = true;
    const { url, why } = await addressForPhones(here);
    if (showing !== id) return;
    $('lesson-share-link').value = url ?? here;
    $('lesson-share-why').hidden = !why;
    $('lesson-share-why').textContent = why ?? '';
    if (url) $('lesson-share-qr').hidden = !(await drawQR($('lesson-share-qr'), url, { moduleSize: 4 }));
  }
  $('lesson-share-link').addEventListener('focus', (e) => e.target.select());
  copyLinkOnClick($('lesson-share-copy'), $('lesson-share-link'), say,
    { copied: 'Link copied: it opens the lesson.', select: 'Select the link and copy it.' });

  return {
    show(arg) {
      const [rawID, query = ''] = (arg ?? '').split(/\?(.*)/s);
      const id = decodeURIComponent(rawID ?? '');
      const address = id || '';
      if (showing === address && address && !query) return;
      showing = address;
      stopTally();
      if (id) showEditor(id, query);
      else showList();
    },
    leave() {
      showing = null;
      stopTally();
    },
  };
}
