// Labels in Explore's 3D view: "Arg 88" pinned to a residue, several at once, each removable, kept
// upright and facing the reader at any angle (HTML over the canvas, placed after every frame). A
// label stays on its residue whatever the style: its point is the middle of the vertices that name
// the residue in the model shown (the GLB's feature ids, identify.json's atoms), found again when
// the model changes. A view link (view-link.js) carries the labelled residues and puts them back.
import { describe } from './identify.js';

/**
 * @param {{$: Function, el: Function, say: Function, viewer: () => object|null}} app
 * @param {HTMLElement} layer the element over the canvas that holds the labels
 * @param {HTMLElement} list the list of labels beside the view, with a Remove button each
 */
export function setupLabels({ $, el, say, viewer }, layer, list) {
  let labels = [];  // { residue, text, point }
  let table = null;

  // The middle of the vertices that name `residue` in the model shown (model coordinates), or null.
  function residuePoint(residue) {
    const model = viewer()?.model;
    if (!model || !table) return null;
    const owner = table.atoms.residue;
    const sum = [0, 0, 0];
    let n = 0;
    for (const node of model.nodes) {
      const M = node.matrix;
      for (const p of model.meshes[node.mesh].primitives) {
        if (!p.features) continue;
        const P = p.positions, F = p.features;
        for (let i = 0; i < p.vertexCount; i++) {
          if (owner[F[i]] !== residue) continue;
          const x = P[3 * i], y = P[3 * i + 1], z = P[3 * i + 2];
          sum[0] += M[0] * x + M[4] * y + M[8] * z + M[12];
          sum[1] += M[1] * x + M[5] * y + M[9] * z + M[13];
          sum[2] += M[2] * x + M[6] * y + M[10] * z + M[14];
          n++;
        }
      }
    }
    return n ? sum.map((s) => s / n) : null;
  }

  function place() {
    const v = viewer();
    if (!v) return;
    const width = v.canvas?.clientWidth ?? layer.clientWidth;
    for (const pin of layer.children) {
      const label = labels.find((l) => String(l.residue) === pin.dataset.residue);
      const at = label?.point ? v.project(label.point) : null;
      pin.hidden = !at?.inFront;
      if (!at) continue;
      // In the right part of the view the label reads leftwards from its point, so it is not cut off.
      const flip = at.x > width * 0.55;
      pin.classList.toggle('flip', flip);
      pin.style.transform = `translate(${at.x.toFixed(1)}px, ${at.y.toFixed(1)}px)${flip ? ' translateX(-100%)' : ''}`;
    }
  }

  function render() {
    layer.replaceChildren(...labels.map((l) => el('div', { class: 'note-pin residue-pin', 'data-residue': String(l.residue) }, l.text)));
    list.replaceChildren(...labels.map((l) => el('li', {}, l.text, ' ',
      el('button', { type: 'button', class: 'small', 'aria-label': `Remove the label ${l.text}`,
        onclick: () => remove(l.residue) }, '×'))));
    list.hidden = labels.length === 0;
    place();
    viewer()?.requestRender();
  }

  function remove(residue) {
    const gone = labels.find((l) => l.residue === residue);
    labels = labels.filter((l) => l.residue !== residue);
    render();
    if (gone) say(`Label ${gone.text} removed.`);
  }

  return {
    /** Pins `text` to residue `residue` (an index into the identify table's residues) of `identify`. */
    add(identify, residue, text) {
      table = identify;
      if (labels.some((l) => l.residue === residue)) return;
      labels.push({ residue, text, point: residuePoint(residue) });
      render();
      say(`Labelled ${text}.`);
    },
    /** The model changed (a style, a colour): each label finds its residue again. */
    modelChanged() {
      for (const l of labels) l.point = residuePoint(l.residue);
      place();
    },
    /** Another molecule: no labels. */
    clear() {
      labels = [];
      table = null;
      render();
    },
    /** Each label's text and point (model coordinates), for AR's overlay (ar-identify.js). */
    pins() { return labels.map((l) => ({ text: l.text, point: l.point })); },
    /** The labelled residues (indices into the identify table's residues), in the order labelled. */
    serialize() { return labels.map((l) => l.residue); },
    /** Labels `residues` of `identify` (a view link's), named as the identify card names them, and no others. */
    restore(identify, residues) {
      table = identify;
      labels = [...new Set(residues)].map((residue) => {
        const atom = identify ? identify.atoms.residue.indexOf(residue) : -1;
        return atom < 0 ? null : { residue, text: describe(identify, atom, { atomic: false }).residue, point: residuePoint(residue) };
      }).filter(Boolean);
      render();
    },
    /** Listens to `canvas`'s frames (once the viewer exists). */
    follow(canvas) { canvas.addEventListener('viewer-frame', place); },
  };
}
