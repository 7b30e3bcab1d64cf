// The sequence strip, in Explore under the 3D view: each chain's sequence in one-letter code with
// its numbering and DSSP's secondary structure (sequence.js reads it from the identify table), a row
// per chain that one finger scrolls sideways; ligands and ions as chips. Tapping residues highlights
// them in 3D (tint.js recolours the model shown: no new model), Shift (or Range) extends to a
// stretch, Ctrl or ⌘ adds one, Clear shows every colour again; a tap on the model marks its residue
// here. One listbox with one tab stop: arrow keys move, Enter or Space selects, Shift with an arrow
// extends. A row's residues are made when it first comes near the window, and one listener on the
// strip serves them all, so a ribosome's strip stays quick.
import { identifyTable } from './identify.js';
import { pickFeature } from './pick.js';
import { gapBetween, letterOf, ligandChips, numbered, residueLabel, selectionWords, sequenceOf, shapeOf } from './sequence.js';
import { tintResidues } from './tint.js';

const HINT = 'Tap residues to highlight them in 3D; Shift-tap or Range selects a stretch.';
const OPTION = 'sequence-r-';  // a residue's element id: OPTION + its index in the identify table

/**
 * @param {{$: Function, el: Function, viewer: () => object|null}} app
 * @returns {{show: (id: string) => void, modelChanged: () => void}}
 */
export function setupSequenceStrip({ $, el, viewer }) {
  const section = $('sequence');
  const box = $('sequence-chains');
  const chips = $('sequence-ligands');
  let id = null;          // the molecule whose strip this is
  let table = null;
  let sequence = null;    // sequence.js's sequenceOf(table)
  let chipList = [];      // ligandChips(table, …)
  let selected = new Set();
  let anchor = null;      // where a stretch starts
  let active = null;      // the residue the keyboard is on
  let marked = null;      // the residue of the last tap on the model
  let rangeFrom = null;   // with Range pressed, where the stretch a second tap ends begins
  let loading = null;
  const filled = new Set();  // rows whose residues are made
  const waiting = [];         // rows come into sight, made one a frame so that none holds the page up
  let frame = 0;
  const observer = 'IntersectionObserver' in window
    ? new IntersectionObserver((entries) => {
      for (const e of entries) if (e.isIntersecting) waiting.push(Number(e.target.dataset.row));
      if (!frame) fillWaiting();
    }, { rootMargin: '300px' })
    : null;

  function fillWaiting() {
    frame = 0;
    if (waiting.length) fill(waiting.shift());
    if (waiting.length) frame = requestAnimationFrame(fillWaiting);
  }

  // ---- The molecule and its table ----

  function show(moleculeId) {
    if (moleculeId === id) return;
    id = moleculeId;
    table = sequence = null;
    chipList = [];
    selected = new Set();
    anchor = active = marked = rangeFrom = null;
    loading = null;
    filled.clear();
    waiting.length = 0;
    cancelAnimationFrame(frame);
    frame = 0;
    observer?.disconnect();
    box.replaceChildren();
    chips.replaceChildren();
    box.removeAttribute('aria-activedescendant');
    $('sequence-said').textContent = '';
    section.hidden = true;
  }

  function modelChanged() {
    // (Always: a model shown before, such as an ensemble's, may come back with an older highlight.)
    if (table) { tintResidues(viewer(), table, selected); return; }
    if (id && !loading) load(id);
  }

  async function load(forId) {
    loading = identifyTable(forId);
    let t;
    try {
      t = await loading;
    } catch (error) {
      if (forId !== id) return;
      loading = null;  // the next model shown tries again
      for (const part of [box, chips, $('sequence-legend'), $('sequence-waters')]) part.hidden = true;
      section.hidden = false;
      $('sequence-empty').hidden = false;
      $('sequence-empty').textContent = `The sequence could not be read: ${error.message}. It is tried again with the next model shown.`;
      return;
    }
    if (forId !== id) return;
    table = t;
    sequence = sequenceOf(t);
    build();
  }

  function build() {
    const { rows, ligands, waters } = sequence;
    box.hidden = rows.length === 0;
    $('sequence-empty').hidden = rows.length > 0;
    $('sequence-empty').textContent = 'No sequence: this file has no protein or nucleic acid chain.';
    $('sequence-legend').hidden = !rows.some((row) => row.kind === 'protein');
    box.replaceChildren(...rows.map((row) => {
      const length = row.residues.length;
      const words = `Chain ${row.chain}, ${row.kind === 'protein' ? 'protein' : 'nucleic acid'}, ${length} ${row.kind === 'protein' ? 'residues' : 'nucleotides'}`;
      const residues = el('div', { class: 'sequence-residues', role: 'group', 'aria-label': words, tabindex: '-1' });
      const element = el('div', { class: `sequence-row sequence-${row.kind}`, 'data-row': String(row.index) },
        el('div', { class: 'sequence-row-label', 'aria-hidden': 'true' }, words), residues);
      observer?.observe(element);
      return element;
    }));
    if (!observer) rows.forEach((row) => fill(row.index));
    chipList = ligandChips(table, ligands);
    chips.hidden = chipList.length === 0;
    chips.replaceChildren(...chipList.map((chip, i) => el('button', {
      type: 'button', class: 'sequence-chip', 'data-chip': String(i), 'aria-pressed': 'false', 'aria-label': chip.label,
    }, chip.text)));
    $('sequence-waters').hidden = waters === 0;
    $('sequence-waters').textContent = `${waters.toLocaleString()} ${waters === 1 ? 'water' : 'waters'}, not listed.`;
    section.hidden = false;
    showSelection();
  }

  // Makes row `index`'s residues (once): a span each, with a gap mark where the file skips numbers.
  function fill(index) {
    if (filled.has(index) || !sequence) return;
    filled.add(index);
    const row = sequence.rows[index];
    const target = box.querySelector(`[data-row="${index}"] .sequence-residues`);
    observer?.unobserve(target.parentElement);
    const fragment = document.createDocumentFragment();
    const size = String(row.residues.length);
    const model = el('span', { class: 'sequence-residue', role: 'option', 'aria-setsize': size });
    row.residues.forEach((r, position) => {
      const gap = position > 0 && gapBetween(table, row.residues[position - 1], r);
      if (gap) fragment.append(el('span', { class: 'sequence-gap', 'aria-hidden': 'true' }, '⋯'));
      const option = model.cloneNode(false);
      option.id = OPTION + r;
      option.setAttribute('aria-label', residueLabel(table, r));
      option.setAttribute('aria-selected', selected.has(r) ? 'true' : 'false');
      option.setAttribute('aria-posinset', String(position + 1));
      const shape = shapeOf(table, r);
      if (shape) option.dataset.ss = shape;
      if (numbered(table, r, position, gap)) option.dataset.n = String(table.residues.number[r]);
      if (r === marked) option.setAttribute('aria-current', 'true');
      if (r === active) option.classList.add('active');
      option.textContent = letterOf(table, r);
      fragment.append(option);
    });
    target.append(fragment);
  }

  // The element of residue `r` (its row made first), or null for one off the rows.
  function optionOf(r) {
    if (r === null || !sequence || sequence.rowOf[r] < 0) return null;
    fill(sequence.rowOf[r]);
    return document.getElementById(OPTION + r);
  }

  // ---- Selecting ----

  function select(residues, { from = null } = {}) {
    const before = selected;
    selected = new Set(residues);
    if (from !== null) anchor = from;
    if (selected.size === 0) anchor = rangeFrom = null;
    for (const r of before) if (!selected.has(r)) document.getElementById(OPTION + r)?.setAttribute('aria-selected', 'false');
    for (const r of selected) if (!before.has(r)) document.getElementById(OPTION + r)?.setAttribute('aria-selected', 'true');
    tintResidues(viewer(), table, selected);
    showSelection();
  }

  function showSelection() {
    for (const button of chips.children) {
      const chip = chipList[Number(button.dataset.chip)];
      button.setAttribute('aria-pressed', String(chip.residues.every((r) => selected.has(r))));
    }
    $('sequence-clear').disabled = selected.size === 0;
    const words = table ? selectionWords(table, sequence, selected) : '';
    const hint = sequence?.rows.length ? HINT : chipList.length ? 'Tap a ligand to highlight it in 3D.' : '';
    $('sequence-said').textContent = words ? `Highlighted: ${words}.` : hint;
  }

  // The residues of `a`'s row from `a` to `b`, or just `b` when they are not in one row.
  function stretch(a, b) {
    const row = sequence.rowOf[b];
    if (a === null || row < 0 || sequence.rowOf[a] !== row) return [b];
    const [p, q] = [sequence.positionOf[a], sequence.positionOf[b]].sort((x, y) => x - y);
    return sequence.rows[row].residues.slice(p, q + 1);
  }

  // What a tap (or Enter) on residue `r` does: Shift or Range extends from the anchor, Ctrl or ⌘
  // adds or removes one, else it alone is chosen (and a second tap on it alone lets it go).
  // With Range pressed, taps take turns: one starts a stretch, the next ends it.
  function choose(r, { extend = false, add = false } = {}) {
    if ($('sequence-range').getAttribute('aria-pressed') === 'true' && !extend && !add) {
      if (rangeFrom === null) select([r], { from: r }); else select(stretch(rangeFrom, r), { from: rangeFrom });
      rangeFrom = rangeFrom === null ? r : null;
      if (rangeFrom !== null) $('sequence-said').textContent += ' Tap where the stretch ends.';
    } else if (extend) {
      select(stretch(anchor ?? r, r), { from: anchor ?? r });
    } else if (add) {
      const next = new Set(selected);
      if (next.has(r)) next.delete(r); else next.add(r);
      select(next, { from: r });
    } else {
      select(selected.size === 1 && selected.has(r) ? [] : [r], { from: r });
    }
  }

  // ---- The keyboard's place, and the tap's mark ----

  function setActive(r, { reveal: scroll = true } = {}) {
    document.getElementById(OPTION + active)?.classList.remove('active');
    active = r;
    const option = optionOf(r);
    if (!option) { box.removeAttribute('aria-activedescendant'); return; }
    option.classList.add('active');
    box.setAttribute('aria-activedescendant', option.id);
    if (scroll) reveal(option);
  }

  // Scrolls `element`'s row sideways (and the strip's list down or up) to show it, the page not at all.
  function reveal(element, { centre = false } = {}) {
    const scroller = element.parentElement;
    const left = element.offsetLeft, width = element.offsetWidth;
    if (centre || left < scroller.scrollLeft || left + width > scroller.scrollLeft + scroller.clientWidth) {
      scroller.scrollLeft = centre ? left - (scroller.clientWidth - width) / 2
        : left < scroller.scrollLeft ? left - width : left + 2 * width - scroller.clientWidth;
    }
    const rowElement = scroller.closest('.sequence-row');
    if (rowElement && box.scrollHeight > box.clientHeight) {
      const top = rowElement.offsetTop;
      if (top < box.scrollTop || top + rowElement.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top - box.clientHeight / 3;
    }
  }

  function mark(r) {
    for (const e of section.querySelectorAll('[aria-current="true"]')) e.removeAttribute('aria-current');
    marked = r;
    if (r === null || !sequence) return;
    const option = optionOf(r);
    if (option) {
      option.setAttribute('aria-current', 'true');
      setActive(r, { reveal: false });
      reveal(option, { centre: true });
      return;
    }
    const index = chipList.findIndex((chip) => chip.residues.includes(r));
    const chip = chips.querySelector(`[data-chip="${index}"]`);
    if (chip) {
      chip.setAttribute('aria-current', 'true');
      chips.scrollLeft = chip.offsetLeft - (chips.clientWidth - chip.offsetWidth) / 2;
    }
  }

  // The neighbour of `r` in its row (step ±1), the same place in the next or previous row (row ±1),
  // or its row's first or last residue.
  function moved(r, key) {
    const { rows, rowOf, positionOf } = sequence;
    const row = rows[rowOf[r]], position = positionOf[r];
    const at = (list, p) => list[Math.max(0, Math.min(list.length - 1, p))];
    switch (key) {
      case 'ArrowRight': return at(row.residues, position + 1);
      case 'ArrowLeft': return at(row.residues, position - 1);
      case 'Home': return row.residues[0];
      case 'End': return row.residues.at(-1);
      case 'ArrowDown': return at(rows[Math.min(rows.length - 1, row.index + 1)].residues, position);
      case 'ArrowUp': return at(rows[Math.max(0, row.index - 1)].residues, position);
      default: return null;
    }
  }

  function firstResidue() {
    if (marked !== null && sequence.rowOf[marked] >= 0) return marked;
    const chosen = [...selected].filter((r) => sequence.rowOf[r] >= 0);
    return chosen.length ? chosen.reduce((a, b) => Math.min(a, b)) : sequence.rows[0]?.residues[0] ?? null;
  }

  box.addEventListener('keydown', (e) => {
    if (!sequence || sequence.rows.length === 0) return;
    const r = active ?? firstResidue();
    if (r === null) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      setActive(r);
      choose(r, { extend: e.shiftKey, add: e.ctrlKey || e.metaKey });
      return;
    }
    if (e.key === 'Escape' && selected.size) {
      e.preventDefault();
      select([]);
      return;
    }
    const next = moved(r, e.key);
    if (next === null || next === undefined) return;
    e.preventDefault();
    if (e.shiftKey) select(stretch(anchor ?? r, next), { from: anchor ?? r });
    setActive(next);
  });
  box.addEventListener('focus', () => {
    if (sequence && active === null) setActive(firstResidue());
  });
  box.addEventListener('click', (e) => {
    const option = e.target.closest?.('[role="option"]');
    if (!option || !sequence) return;
    const r = Number(option.id.slice(OPTION.length));
    setActive(r, { reveal: false });
    choose(r, { extend: e.shiftKey, add: e.ctrlKey || e.metaKey });
    box.focus({ preventScroll: true });  // the keyboard goes on from here (a click focused the row)
  });
  chips.addEventListener('click', (e) => {
    const button = e.target.closest?.('[data-chip]');
    if (!button || !sequence) return;
    const chip = chipList[Number(button.dataset.chip)];
    const next = new Set(selected);
    const on = chip.residues.every((r) => next.has(r));
    for (const r of chip.residues) if (on) next.delete(r); else next.add(r);
    select(next);
  });
  $('sequence-clear').addEventListener('click', () => {
    select([]);  // which disables Clear: the keyboard goes on in the rows
    if (!box.hidden) box.focus({ preventScroll: true });
  });
  $('sequence-range').addEventListener('click', (e) => {
    const on = e.currentTarget.getAttribute('aria-pressed') !== 'true';
    e.currentTarget.setAttribute('aria-pressed', String(on));
    rangeFrom = null;
  });
  // A tap on the model marks its residue here (identify-card.js names it in the card).
  $('viewer').addEventListener('viewer-tap', ({ detail }) => {
    const v = viewer();
    if (!v?.model || !table) return;
    const hit = pickFeature(v, detail.x, detail.y);
    const r = hit && hit.feature < table.atoms.residue.length ? table.atoms.residue[hit.feature] : null;
    mark(r !== null && table.residues.kind[r] !== 'water' ? r : null);
  });

  return {
    /** Another molecule (or the same one again): its strip, once its first model is shown. */
    show,
    /** A new model is in the view (a style, a colour, the coarse one): the highlight is applied to it again. */
    modelChanged,
  };
}
