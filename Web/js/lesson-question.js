// A lesson step's question on the Lesson screen (issue 34; lesson-player.js shows the step): its
// prompt, its choices as radio buttons (the one answered on this device chosen again), Answer, and
// the verdict ("Right! …", "Not quite. …", or thanks for a poll). Offline, the answer waits on this
// device (lesson-offline.js's enqueue) and the verdict says so.
//
//   const question = setupLessonQuestion({ $, el, account, shownLesson, shownStep, enqueue });
//     shownLesson() / shownStep() → the lesson and the step the player shows now
//   question.show(step)   → the step's question (form #lesson-question hidden when it has none)
import * as api from './api.js';

/**
 * @param {{$: Function, el: Function, account: object, shownLesson: () => object|null,
 *          shownStep: () => object|undefined, enqueue: (answer: object) => void}} app
 *   account: account.js's (ready())
 */
export function setupLessonQuestion({ $, el, account, shownLesson, shownStep, enqueue }) {
  const chosen = new Map();    // `${lesson} ${step}` → the choice answered on this device

  function showQuestion(step) {
    const q = step.question;
    const form = $('lesson-question');
    form.hidden = !q;
    $('lesson-answer-said').textContent = '';
    $('lesson-answer-said').classList.remove('right', 'wrong');
    if (!q) return;
    $('lesson-question-prompt').textContent = q.prompt;
    const before = chosen.get(`${shownLesson().id} ${step.id}`);
    $('lesson-choices').replaceChildren(...q.choices.map((choice, k) => el('label', { class: 'check lesson-choice' },
      el('input', { type: 'radio', name: 'lesson-choice', value: String(k), id: `lesson-choice-${k}`, ...(before === k ? { checked: '' } : {}) }),
      ` ${choice}`)));
    form.dataset.step = step.id;
  }

  // ---- The question: Answer sends it; offline it waits on this device ----
  function verdict(step, choice, correct) {
    const q = step.question;
    if (correct === true) return `Right! ${q.choices[choice]} is the answer.`;
    if (correct === false) return `Not quite. The right answer: ${q.choices[q.answer] ?? 'another one'}.`;
    return 'Thanks: your answer is counted.';
  }
  function showVerdict(correct, words) {
    const said = $('lesson-answer-said');
    said.textContent = words;
    said.classList.toggle('right', correct === true);
    said.classList.toggle('wrong', correct === false);
  }

  $('lesson-question').addEventListener('submit', async (e) => {
    e.preventDefault();
    const lesson = shownLesson(), stepShown = shownStep();
    if (!stepShown?.question) return;
    const picked = $('lesson-choices').querySelector('input:checked');
    if (!picked) { showVerdict(null, 'Choose an answer first.'); $('lesson-choices').querySelector('input')?.focus(); return; }
    const choice = Number(picked.value);
    const button = $('lesson-answer');
    button.disabled = true;
    chosen.set(`${lesson.id} ${stepShown.id}`, choice);
    try {
      await account.ready();
      const answer = await api.answerLesson(lesson.id, stepShown.id, choice);
      if (stepShown === shownStep()) showVerdict(answer.correct, verdict(stepShown, choice, answer.correct));
    } catch (error) {
      if (error.status === 0 || error.offline) {
        enqueue({ lesson: lesson.id, step: stepShown.id, choice, at: new Date().toISOString() });
        const answer = stepShown.question.answer;
        const correct = answer === null || answer === undefined ? null : answer === choice;
        showVerdict(correct, `${verdict(stepShown, choice, correct)} You are offline: your answer is kept on this device and sent when the network is back.`);
      } else {
        showVerdict(null, `Your answer was not taken: ${error.message}`);
      }
    } finally {
      button.disabled = false;
    }
  });

  return { show: showQuestion };
}
