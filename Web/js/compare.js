// Compare with…, in Explore under the 3D view: another structure superposed on the molecule shown.
// A small form picks the other (a molecule of the library, or a PDB ID typed, opened from the archive
// as Get opens one, with progress in words); the server pairs their residues, superposes the other
// onto this one and says how alike they are (GET /api/molecules/{id}/compare?with=OTHER: the chains
// paired, RMSD over all and over the pairs that fit best, TM-score, the two colours and the words of
// a summary). The view then asks for the model with `compare=OTHER` (both structures in one scene,
// each in its colour, this one where it was), and a legend names the colours. Morph asks instead for
// `morph=OTHER`: this molecule's chain moving into the other's shape, frame by frame (`model=N`),
// played by models-player.js there and back. Stop comparing, or another molecule, ends it.
//
// setupCompare(...) returns what explore.js needs:
//   show(id)       another molecule (or the same one again): a comparison of another one ends
//   options()      the model options of the comparison ({compare} or {morph, model}), or null
//   frames()       Morph's frames for models-player.js ({count, noun, pingPong}), or null
//   modelShown()   a model is in the view: the status says what it shows
import * as api from './api.js';

/**
 * @param {{$: Function, el: Function, say: Function, molecule: () => ({id: string}|null),
 *   show: () => Promise<boolean|undefined>, progress: (fraction: number|null|undefined, label?: string) => void,
 *   endSite: () => void}} app  show: asks for the model again (explore.js's showModel: true once shown, false when it failed, undefined when another load took over); progress:
 *   explore's bar; endSite: the binding-site view ends (it cannot be combined with a comparison)
 */
export function setupCompare({ $, el, say, molecule, show, progress, endSite }) {
  const panel = $('compare'), open = $('compare-open'), form = $('compare-form'), chooser = $('compare-with'), typed = $('compare-entry');
  const morph = $('compare-morph'), stop = $('compare-stop'), said = $('compare-said');
  let id = null;        // the molecule shown
  let state = null;     // {other, result, morph}: the comparison shown
  let serial = 0;       // the latest comparison asked for; older answers are dropped

  const tell = (text, error = false) => { said.textContent = text; said.classList.toggle('error', error); };
  const swatch = (color) => el('span', { class: 'compare-swatch', 'aria-hidden': 'true', style: { '--swatch': color } });
  const angstroms = (x) => `${Number(x).toFixed(1)} Å`;

  // ---- The form: a molecule of the library, or a PDB ID ----

  async function fillChooser() {
    const forId = id;
    chooser.disabled = true;
    try {
      const page = await api.listMolecules({ limit: 200, sort: 'id' });
      if (forId !== id) return;
      const kept = chooser.value;
      chooser.replaceChildren(el('option', { value: '' }, 'Choose a molecule…'), ...page.molecules.filter((m) => m.id !== id)
        .map((m) => el('option', { value: m.id }, m.title ? `${m.id} · ${m.title.length > 48 ? `${m.title.slice(0, 47)}…` : m.title}` : m.id)));
      if ([...chooser.options].some((o) => o.value === kept)) chooser.value = kept;
    } catch (error) {
      if (forId === id) tell(`The library could not be listed: ${error.message}. Type a PDB ID instead.`, true);
    } finally {
      chooser.disabled = false;
    }
  }

  function openForm(on) {
    form.hidden = !on;
    open.setAttribute('aria-expanded', String(on));
    if (!on) return;
    fillChooser();
    chooser.focus();
  }

  open.addEventListener('click', () => openForm(form.hidden));
  $('compare-cancel').addEventListener('click', () => { openForm(false); open.focus(); });
  // One or the other: a molecule picked clears the ID typed, and an ID typed the molecule picked.
  chooser.addEventListener('change', () => { if (chooser.value) typed.value = ''; });
  typed.addEventListener('input', () => { if (typed.value.trim()) chooser.value = ''; });

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = typed.value.trim();
    if (text && !api.looksLikeEntryID(text)) { tell(`“${text}” is not a PDB ID (four characters, such as 4AKE).`, true); typed.focus(); return; }
    if (!text && !chooser.value) { tell('Pick a molecule of the library or type a PDB ID, then press Compare.', true); chooser.focus(); return; }
    compare(text || chooser.value, Boolean(text));
  });

  // ---- The comparison: the server's numbers, then the model with both ----

  async function compare(text, fromArchive) {
    const forId = id, mine = ++serial;
    let other = fromArchive ? api.libraryID(text) ?? text : text;
    try {
      if (fromArchive) {
        tell(`Opening ${other}…`);
        progress(undefined, `Opening ${other}`);
        const opened = await api.openEntry(text, { onProgress: (p) => { if (mine === serial) tell(p.message); } });
        other = opened.id;
        if (mine !== serial) return;
      }
      if (other === forId) throw new Error(`that is ${forId} itself: pick another molecule`);
      tell(`Superposing ${other} on ${forId}…`);
      progress(undefined, `Superposing ${other} on ${forId}`);
      // Its title too, for the legend (an upload's id says little: its title is the file's name).
      const [result, details] = await Promise.all([
        api.getJSON(`/api/molecules/${encodeURIComponent(forId)}/compare?${new URLSearchParams({ with: other })}`),
        api.molecule(other).catch(() => null),
      ]);
      if (mine !== serial || forId !== id) return;
      progress(null);
      state = { other: result.with ?? other, title: details?.title ?? '', result, morph: false };
      const focused = form.contains(document.activeElement);
      openForm(false);
      endSite();
      render();
      if (focused) morph.focus();  // the form is gone: the next step, not the page's top
      build(`Building the model of ${forId} with ${state.other} superposed…`);
    } catch (error) {
      if (mine !== serial || forId !== id) return;
      progress(null);
      const words = `${other} cannot be compared with ${forId}: ${error.message}`;
      tell(words, true);
      say(words, { error: true });
    }
  }

  function render() {
    const r = state?.result;
    for (const part of ['compare-legend', 'compare-words', 'compare-numbers']) $(part).hidden = !r;
    morph.hidden = stop.hidden = !r;
    morph.setAttribute('aria-pressed', String(Boolean(state?.morph)));
    open.textContent = r ? 'Compare with another…' : 'Compare with…';
    if (!r) { delete panel.dataset.shown; return; }
    const chain = (c) => (c ? ` chain ${c}` : '');
    const title = state.title && state.title !== state.other ? ` (${state.title.length > 60 ? `${state.title.slice(0, 59)}…` : state.title})` : '';
    const legend = state.morph
      ? [el('li', {}, `${id}${chain(r.chain)} moving into the shape of ${state.other}${chain(r.withChain)}: frame 1 is ${id}'s, frame ${r.morph?.frames ?? 1} ${state.other}'s, superposed`)]
      : [el('li', {}, swatch(r.colors.molecule), `${id}${r.chain ? `, its chain ${r.chain} paired` : ''}`), el('li', {}, swatch(r.colors.with), `${state.other}${chain(r.withChain)}${title}, superposed`)];
    $('compare-legend').replaceChildren(...legend);
    $('compare-words').textContent = r.words;
    const identical = Number.isFinite(r.sequenceIdentity) ? ` (${Math.round(r.sequenceIdentity * 100)}% identical)` : '';
    const numbers = [
      ['Aligned residues', `${r.alignedResidues}${identical}`],
      ['RMSD', `${angstroms(r.rmsdAll)} over all; ${angstroms(r.rmsd)} over the ${r.keptResidues} that fit best`],
      // What a TM-score means (Xu and Zhang 2010): above 0.5 most likely the same fold; under 0.3, as for unrelated proteins.
      ['TM-score', `${Number(r.tmScore).toFixed(2)}: ${r.tmScore > 0.5 ? 'most likely the same fold' : r.tmScore < 0.3 ? 'no more alike than unrelated proteins' : 'partly alike'}`],
    ];
    $('compare-numbers').replaceChildren(...numbers.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
  }

  // Asks for the model, saying so; a model that cannot be made is said here too (the reason is the server's).
  async function build(words) {
    const asked = state;
    tell(words);
    const shown = await show();
    if (shown === false && state === asked && said.textContent === words) tell(`The model could not be made: ${$('status').textContent}`, true);
  }

  morph.addEventListener('click', () => {
    if (!state) return;
    state.morph = !state.morph;
    render();
    build(state.morph ? `Making the morph of ${id} into ${state.other}'s shape…` : `Back to ${id} with ${state.other} superposed…`);
  });

  function end(words) {
    serial++;
    state = null;
    render();
    tell(words);
  }

  stop.addEventListener('click', () => { end(`Back to ${id} alone…`); show(); open.focus(); });
  // The binding-site view, asked for, ends the comparison first (before interactions.js asks for the model).
  $('interactions-site').addEventListener('click', () => { if (state) end(''); }, true);

  return {
    show(forId) {
      if (forId === id) return;
      id = forId;
      end('');
      openForm(false);
      typed.value = '';
      panel.hidden = false;
    },
    options() {
      if (!state) return null;
      return state.morph ? { morph: state.other, model: '1' } : { compare: state.other };
    },
    // Morph's frames; the comparison itself is one scene (an ensemble's other models are not offered with it).
    frames: () => (state ? { count: state.morph ? state.result.morph?.frames ?? 1 : 1, noun: 'Frame', pingPong: true } : null),
    modelShown() {
      if (!state || molecule()?.id !== id) { delete panel.dataset.shown; return; }
      const r = state.result;
      panel.dataset.shown = `${state.morph ? 'morph' : 'compare'}:${state.other}`;
      const words = state.morph
        ? `Morph: ${id} moving into the shape of ${state.other} in ${r.morph?.frames ?? 1} frames. Press Play, or drag the slider.`
        : `${id} with ${state.other} superposed: RMSD ${angstroms(r.rmsdAll)} over all, ${angstroms(r.rmsd)} over the ${r.keptResidues} that fit best; TM-score ${Number(r.tmScore).toFixed(2)}.`;
      // The summary under the legend says the rest; the status line says it all.
      tell(state.morph ? 'Press Play to see it move there and back, or drag the slider for one frame.' : '');
      say(words);
    },
  };
}
