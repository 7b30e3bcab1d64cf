// The Design screen, the original app's mini-game made real: four piece buttons add helix, strand
// and coil pieces (each shown at a random orientation, as the game did), the list puts them in
// order and sets their lengths, and Try asks the server to join them into a real chain and judge
// whether it holds together; then the built protein replaces the pieces in the 3D view. Before Try,
// the pieces themselves can go to AR (the server lays them out side by side: pieces.usdz, pieces.glb);
// after a Try that holds together, Try again builds the same pieces with the next seed.
import { buildDesign, fetchWhenFree, needsAccount } from './api.js';
import { combineModels, parseGLB } from './glb.js';
import { mat4, quat } from './math.js';

// The colours are app.css's too ([data-kind] sets --piece for the buttons and the list).
// One name for each piece everywhere (its button, the list, the verdict: the engine's
// `PieceKind.displayName`).
export const PIECES = {
  'flexible-coil': { name: 'Flex coil', color: '#949494', length: 4 },
  'rigid-coil': { name: 'Rigid coil', color: '#6080ff', length: 4 },
  helix: { name: 'Helix', color: '#ff0080', length: 14 },
  strand: { name: 'Sheet', color: '#ffc800', length: 6 },
};

/**
 * @param {{ $: (id: string) => HTMLElement, el: Function, say: Function, account: object, viewer: () => object|null,
 *           onBuilt: (design: object|null) => void, onPiecesShown: () => void }} app  account: account.js's
 */
export function setupDesign(app) {
  const { $, el, say } = app;
  const pieces = [];          // {kind, length, orientation}
  const previews = new Map(); // "kind:length" -> parsed GLB
  let design = null;          // the server's answer to the last Try
  let serial = 0;

  const list = $('design-pieces');
  for (const button of document.querySelectorAll('#view-design .piece')) {
    button.addEventListener('click', () => add(button.dataset.kind));
  }
  $('design-clear').addEventListener('click', () => {
    pieces.length = 0;
    changed();
    say('Cleared the pieces.');
  });
  $('design-try').addEventListener('click', () => attempt());
  $('design-again').addEventListener('click', () => tryAgain());

  function add(kind) {
    pieces.push({ kind, length: PIECES[kind].length, orientation: randomRotation() });
    changed();
    say(`Added a ${PIECES[kind].name.toLowerCase()} (piece ${pieces.length}).`);
  }

  function changed() {
    design = null;
    app.onBuilt(null);
    $('design-verdict').hidden = true;
    $('design-again').hidden = true;
    renderList();
    showPieces();
  }

  function renderList() {
    $('design-empty').hidden = pieces.length > 0;
    $('design-try').disabled = pieces.length === 0;
    list.replaceChildren(...pieces.map((piece, i) => {
      const info = PIECES[piece.kind];
      const label = `piece ${i + 1} (${info.name})`;
      const length = el('input', { type: 'number', min: 1, max: 500, value: piece.length, 'aria-label': `Length of ${label} in residues` });
      length.addEventListener('change', () => {
        const n = Number(length.value);
        if (!Number.isInteger(n) || n < 1 || n > 500) {
          say(`The length of ${label} must be a whole number from 1 to 500.`, { error: true });
          length.value = piece.length;
          return;
        }
        piece.length = n;
        changed();
      });
      const move = (delta, text) => el('button', {
        type: 'button', 'aria-label': `Move ${label} ${text}`, disabled: (delta < 0 ? i === 0 : i === pieces.length - 1) ? '' : null,
        onclick: () => { pieces.splice(i + delta, 0, ...pieces.splice(i, 1)); changed(); list.children[i + delta]?.querySelector(`[aria-label^="Move"]`)?.focus(); },
      }, delta < 0 ? '↑' : '↓');
      return el('li', { 'data-kind': piece.kind },
        el('span', { class: 'swatch', 'aria-hidden': 'true' }), el('strong', {}, `${i + 1}. ${info.name}`), length, ' residues ',
        move(-1, 'up'), move(1, 'down'),
        el('button', { type: 'button', 'aria-label': `Remove ${label}`, onclick: () => { pieces.splice(i, 1); changed(); } }, '✕'));
    }));
  }

  // Each piece's own model, at its random orientation, side by side.
  async function showPieces() {
    const viewer = app.viewer();
    const mine = ++serial;
    if (!viewer) return;
    $('design-viewer-empty').hidden = pieces.length > 0;
    if (pieces.length === 0) { viewer.setModel(null); return; }
    try {
      const parts = [];
      for (const [i, piece] of pieces.entries()) {
        const key = `${piece.kind}:${piece.length}`;
        if (!previews.has(key)) {
          const response = await fetchWhenFree(`/api/designs/model.glb?${new URLSearchParams({ pieces: key, style: 'cartoon' })}`);
          if (!response.ok) throw new Error(`Could not draw ${PIECES[piece.kind].name.toLowerCase()} pieces (HTTP ${response.status}).`);
          previews.set(key, parseGLB(await response.arrayBuffer()));
        }
        const model = previews.get(key);
        const spacing = 1.2 * Math.max(...[...previews.values()].map((m) => m.bounds.radius || 1)) * 2;
        const offset = [(i - (pieces.length - 1) / 2) * spacing, (i % 2 ? 0.3 : -0.3) * spacing, 0];
        // Rotate about the piece's own centre, then move it to its place in the row.
        const c = model.bounds.center;
        const m = mat4.fromTRS(mat4.create(), null, piece.orientation, null);
        for (let k = 0; k < 3; k++) m[12 + k] = offset[k] - (m[k] * c[0] + m[4 + k] * c[1] + m[8 + k] * c[2]);
        parts.push({ model, matrix: m });
      }
      if (mine !== serial || design) return;
      viewer.setModel(combineModels(parts));
      app.onPiecesShown();
    } catch (error) {
      say(error.message, { error: true });
    }
  }

  // Another valid shape of the same design: the verdict does not depend on the seed, so only a valid
  // design is offered this; the new seed goes in the Seed box, so the shape can be had again.
  function tryAgain() {
    if (!design?.valid) return;
    const seed = Number(design.seed) >= Number.MAX_SAFE_INTEGER ? 1 : Number(design.seed) + 1;
    $('design-seed').value = seed;
    attempt({ saying: `Trying again with seed ${seed}: another shape of the same ${pieces.length} pieces…`, again: true });
  }

  async function attempt({ saying = `Joining ${pieces.length} pieces into one chain…`, again = false } = {}) {
    if (pieces.length === 0) return;
    const seed = Number($('design-seed').value) || 1;
    const body = { pieces: pieces.map(({ kind, length }) => ({ kind, length })), seed, hydrogens: $('design-hydrogens').checked };
    say(saying);
    $('design-try').disabled = true;
    $('design-again').disabled = true;
    try {
      const answer = await buildDesign(body);
      design = answer;
      showVerdict(answer);
      $('design-again').hidden = !answer.valid;
      const verdict = answer.valid ? `${answer.message}.` : `${answer.message}: ${answer.reasons.join('; ')}.`;
      say(again ? `Seed ${answer.seed}, another shape: ${verdict}` : verdict, { error: !answer.valid });
      const viewer = app.viewer();
      if (viewer) {
        serial++;
        await viewer.load(answer.links.glb);
        $('design-viewer-empty').hidden = true;
      }
      app.onBuilt(answer);
    } catch (error) {
      say(error.message, { error: true });
    } finally {
      $('design-try').disabled = pieces.length === 0;
      $('design-again').disabled = false;
    }
  }

  function showVerdict(answer) {
    const box = $('design-verdict');
    box.hidden = false;
    box.className = `verdict ${answer.valid ? 'ok' : 'bad'}`;
    const items = [el('p', { class: 'headline' }, `${answer.valid ? '✔' : '✘'} ${answer.message}${answer.valid ? '.' : ':'}`)];
    if (answer.reasons.length) items.push(el('ul', {}, ...answer.reasons.map((r) => el('li', {}, r))));
    // Another seed only picks another shape among those that hold together: say so rather than offer it.
    if (!answer.valid) items.push(el('p', { class: 'meta' }, 'Another seed gives the same verdict: change the pieces or their lengths instead.'));
    // The attempt is shown only to explain the refusal: what it is about is lit, the rest dimmed.
    if (!answer.valid && answer.marked?.length) {
      const where = answer.marked.map(({ first, last }) => (first === last ? `${first}` : `${first}–${last}`)).join(', ');
      items.push(el('p', { id: 'design-marked' }, `In the view, the failed attempt: residues ${where} (what the refusal is about) are lit, the rest is greyed.`));
    }
    for (const motif of answer.motifs) {
      items.push(el('p', {}, `It contains a ${motif.name} (pieces ${motif.pieces.join(', ')})${motif.note ? `: ${motif.note}` : ''}.`,
        motif.example ? el('span', {}, ' A real one: ', el('a', { href: `#/explore/${motif.example.id}` }, motif.example.id), `, where ${motif.example.note}.`) : null));
    }
    // DSSP's letters, one per residue, explained in one line: what shape each residue took.
    items.push(el('p', { class: 'meta' }, `${answer.residues} residues; the shape each one took (H helix, E sheet, T or S turn, - coil): `,
      el('code', { 'aria-label': 'shape of each residue, from DSSP' }, answer.secondaryStructure)));
    if (answer.valid) {
      items.push(el('button', { type: 'button', id: 'design-save', onclick: () => save(answer) }, 'Keep in the library'));
    }
    box.replaceChildren(...items);
  }

  async function save(answer) {
    try {
      const body = { pieces: answer.pieces.map(({ kind, length }) => ({ kind, length })), seed: answer.seed, hydrogens: answer.hydrogens, save: true };
      const saved = await buildDesign(body);
      say(`Kept in the library as ${saved.molecule.id}.`);
    } catch (error) {
      // Keeping adds to the library: that needs an account (unless the server's library is open).
      if (needsAccount(error)) app.account.needsAccount('Keeping a design in the library needs an account.', 'press “Keep in the library” again');
      else say(`Could not keep the design: ${error.message}`, { error: true });
    }
  }

  // A design named by the address (#/design/helix:14,coil:4,helix:14/1), as the QR code on a
  // desktop passes it to a phone: its pieces, then Try.
  let opened = null;
  function open(text, seed) {
    if (opened === `${text}/${seed}`) return;
    opened = `${text}/${seed}`;
    const parsed = text.split(',').map((item) => item.split(':')).filter(([kind]) => PIECES[kind]);
    if (parsed.length === 0) return;
    pieces.splice(0, pieces.length, ...parsed.map(([kind, length]) => ({ kind, length: Number(length) || PIECES[kind].length, orientation: randomRotation() })));
    $('design-seed').value = seed;
    changed();
    attempt();
  }

  // The pieces as they are, not yet joined, laid out by the server (the same URL, the same model):
  // what "See pieces in AR" opens. Offered while the pieces, not a built design, are in the view.
  function piecesAR() {
    if (pieces.length === 0 || design) return null;
    const text = pieces.map(({ kind, length }) => `${kind}:${length}`).join(',');
    const query = new URLSearchParams({ pieces: text });
    return {
      title: pieces.map(({ kind }) => PIECES[kind].name).join(', '),
      usdz: `/api/designs/pieces.usdz?${query}`, glb: `/api/designs/pieces.glb?${query}`,
      page: `#/design/${text}/${Number($('design-seed').value) || 1}`,
    };
  }

  renderList();
  return { show: showPieces, open, piecesAR, get design() { return design; } };
}

function randomRotation() {
  // A uniformly random orientation (Shoemake's method), so a repeated piece looks different.
  const [u1, u2, u3] = [Math.random(), Math.random(), Math.random()];
  const a = Math.sqrt(1 - u1), b = Math.sqrt(u1);
  return quat.normalize(quat.create(), [a * Math.sin(2 * Math.PI * u2), a * Math.cos(2 * Math.PI * u2), b * Math.sin(2 * Math.PI * u3), b * Math.cos(2 * Math.PI * u3)]);
}
