// The answers to a lesson's questions, counted (GET /api/lessons/{id}/answers, the owner's): each
// question with how many chose each choice, as a number, a share and a bar, the right answer marked
// in words, and who answered what among those with an account (guests are counted, never named).
// Built from DOM nodes with textContent only; the bars' widths go through the CSSOM (the page's
// Content-Security-Policy refuses style attributes).

/**
 * Fills `container` with the tally `answers` ({questions: [{step, index, prompt, choices, answer,
 * counts, total, named}]}); `lesson` (optional) names the steps.
 */
export function renderTally(container, answers, lesson = null) {
  const questions = Array.isArray(answers?.questions) ? answers.questions : [];
  if (!questions.length) {
    container.replaceChildren(node('p', 'meta', 'No questions in this lesson.'));
    return;
  }
  const steps = lesson?.steps?.length ?? null;
  container.replaceChildren(...questions.map((q) => {
    const total = q.total ?? 0;
    const part = node('section', 'tally-question');
    part.dataset.step = q.step;
    part.append(node('h4', null, `Step ${q.index + 1}${steps ? ` of ${steps}` : ''}: ${q.prompt}`));
    part.append(node('p', 'meta tally-total', total === 1 ? '1 answer' : `${total} answers`));
    const list = node('ul', 'plain tally-choices');
    q.choices.forEach((choice, i) => {
      const n = q.counts?.[i] ?? 0;
      const share = total ? Math.round((n / total) * 100) : 0;
      const right = q.answer === i;
      const item = node('li', right ? 'tally-choice right' : 'tally-choice');
      item.dataset.count = n;
      const bar = node('span', 'tally-bar');
      bar.setAttribute('aria-hidden', 'true');
      bar.style.setProperty('--share', `${share}%`);
      item.append(node('span', 'tally-words', `${choice}${right ? ' (the right answer)' : ''}: ${n}${total ? ` (${share}%)` : ''}`), bar);
      list.append(item);
    });
    part.append(list);
    const named = Array.isArray(q.named) ? q.named : [];
    if (named.length) {
      part.append(node('p', 'meta tally-named', named.map((a) => `${a.name}: ${q.choices[a.choice] ?? '?'}`).join('; ')));
    }
    return part;
  }));
}

function node(tag, className, text) {
  const n = document.createElement(tag);
  if (className) n.className = className;
  if (text !== undefined) n.textContent = text;
  return n;
}
