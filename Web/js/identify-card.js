// Tap to identify, in Explore: a tap (or click) on the model shows a card naming what it touched,
// "Arg 88 · chain A · α-helix" (and the atom, "NH1 · N · B 23.4", in atomic styles), said to
// screen readers, with Label (its name pinned in the view: labels.js), Highlight (the residue lit,
// the rest greyed: the model's own highlight), Neighbours (the residues within 5 Å drawn as sticks
// and lit: neighbours.js) and Centre (the view turns about it). Picking is pick.js's, the words
// identify.js's: no round trip but the table, read once per molecule.
import { pickFeature } from './pick.js';
import { ATOMIC_STYLES, describe, identifyTable } from './identify.js';
import { NEIGHBOUR_DISTANCE, neighbourResidues, selectionOf } from './neighbours.js';


/**
 * @param {{$: Function, say: Function, viewer: () => object|null, molecule: () => ({id: string}|null),
 *   style: () => string, highlight: (selection: string, sticks?: string) => void,
 *   label: (table: object, residue: number, text: string) => void}} app
 */
export function setupIdentifyCard({ $, say, viewer, molecule, style, highlight, label }) {
  const card = $('identify-card');
  let shown = null;  // { selection, point, table, residue } of the card's atom

  function close() {
    card.hidden = true;
    shown = null;
  }

  async function identify({ x, y }) {
    const v = viewer();
    const m = molecule();
    if (!v?.model || !m) return;
    const hit = pickFeature(v, x, y);
    if (!hit) { close(); return; }
    let table;
    try {
      table = await identifyTable(m.id);
    } catch (error) {
      say(`Cannot name what you tapped: ${error.message}.`, { error: true });
      return;
    }
    if (molecule()?.id !== m.id || hit.feature >= table.atoms.name.length) return;
    const words = describe(table, hit.feature, { atomic: ATOMIC_STYLES.has(style()) });
    $('identify-residue').textContent = words.residue;
    $('identify-where').textContent = words.where.join(' · ');
    $('identify-atom').textContent = words.atom;
    $('identify-atom').hidden = !words.atom;
    $('identify-said').textContent = words.text;
    card.dataset.atom = String(hit.feature);
    card.hidden = false;
    shown = { selection: words.selection, point: hit.point, table, residue: table.atoms.residue[hit.feature] };
  }

  $('viewer').addEventListener('viewer-tap', (e) => identify(e.detail));
  $('identify-close').addEventListener('click', close);
  $('identify-highlight').addEventListener('click', () => { if (shown) highlight(shown.selection); });
  $('identify-neighbours').addEventListener('click', () => {
    if (!shown) return;
    const residues = neighbourResidues(shown.table, shown.residue);
    const selection = selectionOf(shown.table, residues);
    say(`${$('identify-residue').textContent} and ${residues.length - 1} residue${residues.length === 2 ? '' : 's'} within ${NEIGHBOUR_DISTANCE} Å, as sticks.`);
    highlight(selection, selection);
  });
  $('identify-label').addEventListener('click', () => {
    if (shown) label(shown.table, shown.residue, $('identify-residue').textContent);
  });
  $('identify-centre').addEventListener('click', () => {
    const v = viewer();
    if (shown && v) { v.centreOn(shown.point); say(`Centred on ${$('identify-residue').textContent}.`); }
  });
  return { close };
}
