// Tap to identify in WebXR AR, from Explore: a tap on the standing molecule (xr.js picks the atom
// its ray meets first) shows a card on the AR overlay, "Arg 88 · chain A · α-helix", said to screen
// readers, with Label; the tapped point and every label of the view (labels.js) are pinned over the
// camera image where their residues stand, placed again at each frame.
import { ATOMIC_STYLES, describe, identifyTable } from './identify.js';

/**
 * @param {{$: Function, el: Function, molecule: () => ({id: string}|null), style: () => string,
 *   labels: {add: Function}, pins: () => Array<{text: string, point: number[], measurement?: boolean}>}} app
 *   pins: what to write over the camera image (the view's labels and measurements' values)
 * @returns {{identify: (hit: {feature: number, point: number[]}) => Promise<void>,
 *   place: (project: Function) => void, clear: () => void}} for ARPlacement's onIdentify and onFrame
 */
export function setupARIdentify({ $, el, molecule, style, labels, pins: viewPins }) {
  const card = $('ar-identify');
  const layer = $('ar-labels');
  let shown = null;  // { table, residue, text, point } of the card's atom

  async function identify(hit) {
    const m = molecule();
    if (!m) return;
    let table;
    try {
      table = await identifyTable(m.id);
    } catch (error) {
      $('ar-identify-text').textContent = `Cannot name what you tapped: ${error.message}.`;
      card.hidden = false;
      return;
    }
    if (hit.feature >= table.atoms.name.length) return;
    const words = describe(table, hit.feature, { atomic: ATOMIC_STYLES.has(style()) });
    shown = { table, residue: table.atoms.residue[hit.feature], text: words.residue, point: hit.point };
    $('ar-identify-text').textContent = words.text.replace('; atom ', ' · ');
    card.dataset.atom = String(hit.feature);
    card.hidden = false;
  }

  // The card's atom and the view's labels, each where its point shows on the overlay.
  function place(project) {
    const pins = [...viewPins(), ...(shown ? [{ text: shown.text, point: shown.point, tapped: true }] : [])];
    while (layer.children.length < pins.length) layer.append(el('div', { class: 'note-pin residue-pin' }));
    while (layer.children.length > pins.length) layer.lastChild.remove();
    pins.forEach((pin, i) => {
      const node = layer.children[i];
      const at = pin.point ? project(pin.point) : null;
      node.textContent = pin.text;
      node.classList.toggle('tapped', Boolean(pin.tapped));
      node.classList.toggle('measure-pin', Boolean(pin.measurement));
      node.hidden = !at?.inFront;
      if (at) node.style.transform = `translate(${at.x.toFixed(1)}px, ${at.y.toFixed(1)}px)`;
    });
  }

  function clear() {
    shown = null;
    card.hidden = true;
    layer.replaceChildren();
  }

  $('ar-identify-label').addEventListener('click', () => {
    if (shown) labels.add(shown.table, shown.residue, shown.text);
  });
  $('ar-identify-close').addEventListener('click', () => { shown = null; card.hidden = true; });
  return { identify, place, clear };
}
