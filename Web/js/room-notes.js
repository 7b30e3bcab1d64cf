// The room's notes: the list beside the view, labels pinned in it at a point or at a residue of
// the molecule (a ball there too), kept where their points project as the view moves. Notes are
// the others' words: always shown as text (textContent), never as markup.
import { findResidue, moleculeAtoms, residuePoint } from './residue-pins.js';

/**
 * `content()`: the state shown (live or a point in history); `moleculeFrame()`: the shown
 * molecule's id, style, box and placement, or null; `mayRemove(note)`: whether this person may
 * remove it; `queueRender()`: draw again (residue balls are strokes of the view).
 */
export function setupRoomNotes(app, { canvas, viewer, sync, content, moleculeFrame, mayRemove, authorName, queueRender }) {
  const { $, el } = app;
  const residueMarks = new Map();  // note id -> where its residue is (room metres)

  function show() {
    const list = $('room-notes');
    const layer = $('room-notes-layer');
    const notes = [...content().notes.values()];
    list.replaceChildren(...notes.map((note) => {
      const item = el('li', { 'data-note': note.id });
      const text = el('span', { class: 'note-text' });
      text.textContent = note.text;
      item.append(text);
      const by = authorName(note.author);
      if (by) item.append(el('span', { class: 'meta' }, ` by ${by}`));
      if (note.anchor && !note.anchor.point) item.append(el('span', { class: 'meta' }, ` at ${note.anchor.chain} ${note.anchor.residue}`));
      if (mayRemove(note)) {
        item.append(el('button', { type: 'button', class: 'small', 'aria-label': `Remove the note “${note.text.slice(0, 40)}”`,
          onclick: () => sync()?.send({ type: 'remove-note', id: note.id }) }, 'Remove'));
      }
      return item;
    }));
    if (notes.length === 0) list.append(el('li', { class: 'empty-note' }, 'No notes yet. Add one with Note.'));
    layer.replaceChildren(...notes.filter((n) => n.anchor?.point).map((note) => {
      const pin = el('div', { class: 'note-pin', 'data-note': note.id });
      pin.textContent = note.text;
      pin.anchor = note.anchor.point;
      return pin;
    }));
    for (const id of residueMarks.keys()) if (!content().notes.has(id)) residueMarks.delete(id);
    for (const note of notes) if (note.anchor && !note.anchor.point) pinResidue(note);
    placeLabels();
    queueRender();
  }

  // A residue note's label and ball, once the residue is found in the molecule's file (and the
  // molecule is shown: the ball goes where the model is). Not found, the note stays in the list.
  async function pinResidue(note) {
    const frame = moleculeFrame();
    if (!frame || !sync()) return;
    const { chain, residue: number } = note.anchor;
    let point;
    try {
      const atoms = await moleculeAtoms(frame.id);
      const residue = findResidue(atoms, { chain, number });
      if (!residue) return;
      point = residuePoint(atoms, residue, frame.bounds, frame.matrix, frame.style);
    } catch {
      return;  // the list still says "at A 45"
    }
    if (frame !== moleculeFrame() || !sync() || !content().notes.has(note.id)) return;
    residueMarks.set(note.id, point);
    const layer = $('room-notes-layer');
    layer.querySelector(`[data-note="${CSS.escape(note.id)}"]`)?.remove();
    const pin = el('div', { class: 'note-pin residue-pin', 'data-note': note.id, 'data-residue': `${chain}:${number}`, 'data-point': point.join(' ') });
    pin.textContent = `${chain}:${number} · ${note.text}`;
    pin.anchor = point;
    layer.append(pin);
    placeLabels();
    queueRender();
  }

  function placeLabels() {
    const view = viewer();
    if (!view) return;
    const width = canvas.clientWidth;
    for (const pin of $('room-notes-layer').children) {
      const at = view.project(pin.anchor);
      pin.hidden = !at.inFront;
      // In the right part of the view the label reads leftwards from its point, so it is not cut off.
      const flip = at.x > width * 0.55;
      pin.classList.toggle('flip', flip);
      pin.style.transform = `translate(${at.x.toFixed(1)}px, ${at.y.toFixed(1)}px)${flip ? ' translateX(-100%)' : ''}`;
    }
  }

  return { show, placeLabels, residueMarks };
}
