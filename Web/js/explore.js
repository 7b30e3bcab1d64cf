// The Explore screen (#/explore/ID): opening any entry of the archive by ID or by searching it
// (More results pages on), with no account (the server keeps what it fetched a while: looking is
// not adding); its 3D model in the style and colours the controls pick (built on the server, with
// progress; a double tap on the view opens the style sheet), its details with "Add to the library"
// for someone signed in, Previous and Next through the library for a molecule opened from it, and
// the last molecule seen, remembered for the next launch.
import * as api from './api.js';
import { MoleculeViewer } from './viewer.js';
import { browseLibraryFrom, forgetLastMolecule, libraryNeighbours, rememberLastMolecule } from './library.js';
import { setupDetails } from './explore-details.js';
import { setupIdentifyCard } from './identify-card.js';
import { setupLabels } from './labels.js';
import { setupARIdentify } from './ar-identify.js';
import { ARPlacement } from './xr.js';
import { setupModelsPlayer } from './models-player.js';
import { setupSequenceStrip } from './sequence-strip.js';
import { setupViewLink } from './view-link.js';
import { setupMeasure } from './measure.js';
import { setupInteractions } from './interactions.js';
import { setupCompare } from './compare.js';

// A big model also gets a coarse version for the viewer to draw while it moves, if full frames
// turn out too slow on this device. It is a background nicety: failures are ignored.
const COARSE_ABOVE_TRIANGLES = 40000;
const COARSE_TRIANGLES = 20000;
const SEARCH_PAGE = 10;        // results per page of the search (the server allows 1 to 100)

/**
 * @param {{$: Function, el: Function, say: Function, account: object, route: () => void, onModelShown: () => void}} app
 *   account: account.js's; route: shows the screen the address names; onModelShown: a new model is in the view
 */
export function setupExplore(app) {
  const { $, el, say, account } = app;
  let viewer = null;
  let current = null;          // the molecule shown
  let loadController = null;   // aborts a load when another starts
  let search = null;           // the words searched for, the results shown and how many match
  let neighbourSticks = '';    // residues drawn as sticks over the style (Identify's Neighbours)
  const details = setupDetails({ $, el, say, account, current: () => current, replaceCurrent: (m) => { current = m; } });
  const labels = setupLabels({ $, el, say, viewer: () => viewer }, $('explore-labels'), $('explore-label-list'));
  const sequence = setupSequenceStrip({ $, el, viewer: () => viewer });
  const arCard = setupARIdentify({
    $, el, molecule: () => current, style: () => $('style').value, labels, pins: () => [...labels.pins(), ...measure.pins()],
  });
  const card = setupIdentifyCard({
    $, say, viewer: () => viewer, molecule: () => current, style: () => $('style').value,
    highlight: (selection, sticks = '') => { $('highlight').value = selection; neighbourSticks = sticks; showModel(); },
    label: (table, residue, text) => labels.add(table, residue, text),
  });
  // An ensemble's models in turn (models-player.js); labels and measurements follow each model.
  const player = setupModelsPlayer({
    $, say, viewer: () => viewer, molecule: () => current, options: modelOptions, frames: () => compare.frames(),
    onFrame: () => { labels.modelChanged(); measure.modelChanged(); sequence.modelChanged(); },
  });
  const measure = setupMeasure({ $, el, say, viewer: () => viewer, molecule: () => current, style: () => $('style').value });
  // What holds each ligand, and the binding-site view (the model's `site`): interactions.js.
  const interactions = setupInteractions({ $, el, say, viewer: () => viewer, molecule: () => current, show: () => showModel() });
  // Another structure superposed, and Morph into its shape (compare.js): the model's compare= or morph=.
  const compare = setupCompare({ $, el, say, molecule: () => current, show: () => showModel(), progress, endSite: () => interactions.setSite('', current?.id) });
  // The view as a link: the address follows it, and an address with a view shows it (view-link.js).
  const link = setupViewLink({
    $, say, viewer: () => viewer, molecule: () => current, options: modelOptions, setSticks: (s) => { neighbourSticks = s; }, setSite: interactions.setSite, labels, measure,
  });

  function ensureViewer() {
    if (viewer) return viewer;
    try {
      // ?frame-timing makes each measured frame wait for the GPU (benchmarks only).
      const syncFrameTiming = new URLSearchParams(location.search).has('frame-timing');
      viewer = new MoleculeViewer($('viewer'), { background: '#ffffff', syncFrameTiming });
    } catch (error) {
      $('viewer-empty').textContent = error.message;
      say(error.message, { error: true });
      return null;
    }
    $('viewer').addEventListener('viewer-doubletap', openStyleSheet);
    labels.follow($('viewer'));
    // The checks aim taps with the viewer's own camera (scripts/checks/test_web_identify.py).
    window.__proteinarExplore = { viewer };
    return viewer;
  }

  function progress(fraction, label) {
    const box = $('progress');
    const bar = box.querySelector('.bar');
    box.hidden = fraction === null;
    if (fraction === null) return;
    bar.classList.toggle('indeterminate', fraction === undefined);
    if (fraction === undefined) bar.removeAttribute('aria-valuenow');
    else bar.setAttribute('aria-valuenow', String(Math.round(fraction * 100)));
    bar.querySelector('span').style.width = fraction === undefined ? '' : `${Math.round(fraction * 100)}%`;
    if (label) bar.setAttribute('aria-valuetext', label);
  }

  function modelOptions() {
    const hide = [];
    if ($('hide-water').checked) hide.push('water');
    if ($('hide-ligands').checked) hide.push('ligands');
    if ($('hide-hydrogens').checked) hide.push('hydrogens');
    const options = { style: $('style').value, hide: hide.join(',') || 'none' };
    if ($('color').value) options.color = $('color').value;
    const highlight = $('highlight').value.trim();
    if (highlight) options.highlight = highlight;
    if (neighbourSticks) options.sticks = neighbourSticks;
    const compared = compare.options();  // site= cannot be combined with compare= or morph=
    if (interactions.site() && !compared) options.site = interactions.site();
    return { ...options, ...compared };
  }

  async function showModel() {
    if (!current || !ensureViewer()) return;
    loadController?.abort();
    const controller = (loadController = new AbortController());
    card.close();
    try {
      progress(undefined, 'Building the model');
      say(`Building the ${$('style').selectedOptions[0].text.toLowerCase()} model of ${current.id}…`);
      // The viewer decodes meshopt-compressed GLBs (js/meshopt-decode.js): a quarter of the bytes.
      const url = await api.prepareModel(current.id, 'glb', { ...modelOptions(), compression: 'meshopt' }, {
        signal: controller.signal,
        onProgress: (p) => say(p.message),
      });
      await viewer.load(url, {
        signal: controller.signal,
        onProgress: (received, total) => total && progress(received / total, 'Downloading the model'),
      });
      $('viewer-empty').hidden = true;
      labels.modelChanged();
      player.modelShown();
      sequence.modelChanged();
      link.modelShown();
      measure.modelChanged();
      progress(null);
      say(`${current.id}: ${current.title}`);
      compare.modelShown();  // a comparison says what it shows instead
      interactions.modelChanged();  // after the title: it says what it framed
      rememberLastMolecule(current.id);
      app.onModelShown();
      loadCoarse(current.id, controller.signal);
      return true;
    } catch (error) {
      if (error.name === 'AbortError') return undefined;  // another load took over
      progress(null);
      say(error.message, { error: true });
      return false;
    }
  }

  async function loadCoarse(id, signal) {
    if (viewer.triangleCount <= COARSE_ABOVE_TRIANGLES) return;
    await viewer.frameCostKnown();
    if (!viewer.slowFrames || signal.aborted) return;
    try {
      const url = await api.prepareModel(id, 'glb', { ...modelOptions(), 'max-triangles': COARSE_TRIANGLES, compression: 'meshopt' }, { signal });
      await viewer.loadCoarse(url, { signal });
      sequence.modelChanged();  // the coarse model is highlighted too
      interactions.modelChanged();
    } catch {
      // The full model stays; motion is just slower.
    }
  }

  // Shows molecule `id`. One the server no longer holds (an entry opened from the archive leaves its
  // cache after a while) is opened from the archive again when `id` is an entry's ID: a link, a
  // reload, Previous and Next and the last molecule seen all keep working.
  async function openMolecule(id) {
    try {
      let m;
      try {
        m = await api.molecule(id);
      } catch (error) {
        if (error.status !== 404 || !api.looksLikeEntryID(id)) throw error;
        const opened = await fromArchive(id);
        if (addressed() !== id) return;  // the person went to another molecule or screen meanwhile
        if (opened.id !== id) history.replaceState(null, '', `#/explore/${encodeURIComponent(opened.id)}`);
        // Asked again by its address, through the service worker, which then keeps it as opened.
        m = await api.molecule(opened.id).catch(() => opened);
      }
      if (current?.id !== m.id) { labels.clear(); measure.clear(); player.clear(); neighbourSticks = ''; }
      current = m;
      sequence.show(m.id);
      interactions.show(m.id);
      compare.show(m.id);
      $('entry-id').value = m.id;
      $('view-controls').hidden = false;
      details.show(m);
      showLibrarySteps(m.id);
      app.route();
      await showModel();
    } catch (error) {
      if (error.name === 'AbortError') return;
      progress(null);
      if (error.status === 404 || error.status === 400) forgetLastMolecule(id);
      if (error.status === 413 && api.looksLikeEntryID(id)) tooBigToKeep(id, error);
      else say(error.message, { error: true });
    }
  }

  // The molecule the address names (#/explore/ID), or ''.
  const addressed = () => (location.hash.startsWith('#/explore/') ? decodeURIComponent(location.hash.split('/')[2]?.split('?')[0] ?? '') : '');

  // Opens entry `id` from the archive (GET /api/archive/ID): anyone may, no account needed. The
  // progress of the server's download and reading is said in words and shown in the bar.
  async function fromArchive(id) {
    loadController?.abort();
    const controller = (loadController = new AbortController());
    progress(undefined, 'Opening the entry');
    say(`Opening ${api.libraryID(id) ?? id}…`);
    try {
      return await api.openEntry(id, {
        signal: controller.signal,
        onProgress: (p) => { say(p.message); if (p.fraction != null) progress(p.fraction, p.message); },
      });
    } finally {
      if (loadController === controller) progress(null);
    }
  }

  // What went wrong with the archive, for a person: a sentence and what to do next; the server's
  // own words go behind Details.
  function sayTrouble(error, what) {
    const details = error.message;
    if (error.status === 404) {
      say(`There is no ${what} in the PDB or AlphaFold DB. Check the ID, or search for it by name.`, { error: true, details });
    } else if (error.status === 502 || error.status === 504) {
      say('The PDB archive is not answering just now. Try again in a minute, or open a molecule from the Library.', { error: true, details });
    } else {
      say(error.message, { error: true });
    }
  }

  // One box for an ID, an accession or words: an ID opens the entry, anything else is searched for.
  async function getEntry(text) {
    const id = text.trim();
    if (!id) return;
    if (!api.looksLikeEntryID(id)) {
      search = { words: id, shown: 0, total: 0 };
      $('search-results').replaceChildren();
      $('search-more-row').hidden = true;
      searchPage(search);
      return;
    }
    $('entry-id').blur();  // closes the phone's keyboard
    // An ID opens its entry: results of an earlier search are not what is shown now.
    $('search-results').hidden = true;
    $('search-more-row').hidden = true;
    // Looking is not adding: the library's copy when it has one, else the archive's, for anyone.
    try {
      const m = await fromArchive(id);
      if (location.hash !== `#/explore/${m.id}`) history.replaceState(null, '', `#/explore/${m.id}`);
      await openMolecule(m.id);
    } catch (error) {
      if (error.name === 'AbortError') return;
      const key = api.libraryID(id);
      // Offline (or the server out of reach), an entry this device opened or kept before still
      // opens: its details and models are in the service worker's caches (sw.js), by its address.
      if (error.status === 0 && key) {
        history.replaceState(null, '', `#/explore/${encodeURIComponent(key)}`);
        await openMolecule(key);
        return;
      }
      if (error.status === 413) { tooBigToKeep(key ?? id, error); return; }
      sayTrouble(error, `entry “${id}”`);
    }
  }

  // An entry larger than the server's whole archive cache (413) can only be added to the library:
  // someone signed in gets a button for that beside the server's words, anyone else a link to sign in.
  function tooBigToKeep(id, error) {
    if (!api.currentAccount()) { account.needsAccount(error.message, 'press Get again'); return; }
    const add = el('button', { type: 'button', id: 'add-big-to-library', onclick: async () => {
      add.disabled = true;
      try {
        progress(undefined, 'Adding the entry');
        const m = await api.fetchEntry(id, { onProgress: (p) => { say(p.message); if (p.fraction != null) progress(p.fraction, p.message); } });
        progress(null);
        say(`Added ${m.id} to the library and to My molecules.`);
        if (location.hash !== `#/explore/${m.id}`) history.replaceState(null, '', `#/explore/${m.id}`);
        await openMolecule(m.id);
      } catch (failure) {
        progress(null);
        say(failure.message, { error: true });
      }
    } }, 'Add it to the library');
    say(error.message, { error: true, action: add });
  }

  $('get-form').addEventListener('submit', (e) => { e.preventDefault(); getEntry($('entry-id').value); });

  $('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const words = $('search-words').value.trim();
    search = { words, shown: 0, total: 0 };
    $('search-results').replaceChildren();
    $('search-more-row').hidden = true;  // until this search's first page says whether there are more
    searchPage(search);
  });
  $('search-more').addEventListener('click', () => { if (search) searchPage(search); });

  // The next page of `query`'s results, added below those shown; More results stays while more match.
  async function searchPage(query) {
    const { words } = query;
    const before = query.shown;
    const list = $('search-results');
    const more = $('search-more');
    list.hidden = false;
    more.disabled = true;
    say(query.shown ? `More results for “${words}”…` : `Searching for “${words}”…`);
    try {
      const results = await api.search(words, query.shown, SEARCH_PAGE);
      if (query !== search) return;  // a newer search started meanwhile
      if (results.hits.length === 0 && query.shown === 0) {
        list.append(el('li', {}, `No entries match “${words}”.`));
        say(`No entries match “${words}”.`);
        $('search-more-row').hidden = true;
        return;
      }
      for (const hit of results.hits) {
        const facts = [hit.method, hit.resolution ? `${hit.resolution.toFixed(2)} Å` : null, hit.releaseDate].filter(Boolean).join(' · ');
        list.append(el('li', {}, el('button', {
          type: 'button', onclick: () => { list.hidden = true; $('search-more-row').hidden = true; getEntry(hit.id); },
          'aria-label': `Open ${hit.id}: ${hit.title ?? ''}`,
        }, el('strong', {}, hit.id), el('span', {}, hit.title ?? ''), el('span', { class: 'meta' }, facts))));
      }
      query.shown += results.hits.length;
      query.total = results.total;
      say(`${results.total} entries match “${words}”; showing ${query.shown}.`);
      // The server may answer fewer than asked for at the end: no page left then either.
      $('search-more-row').hidden = query.shown >= query.total || results.hits.length === 0;
      // Keyboard and screen reader users land on the first new result, not back at the top.
      if (before > 0) list.children[before]?.querySelector('button')?.focus();
    } catch (error) {
      if (query !== search) return;
      if (query.shown === 0) list.hidden = true;
      if (error.status === 502 || error.status === 504) {
        say('The search is not answering just now. Try again in a minute, or open a molecule from the Library.', { error: true, details: error.message });
      } else {
        say(error.message, { error: true });
      }
    } finally {
      more.disabled = false;
    }
  }

  // ---- The style sheet: a double tap (or double-click) on the view lists the styles to pick from ----
  function openStyleSheet() {
    if (!current) return;  // nothing shown yet: no style to change
    const select = $('style');
    $('style-sheet-list').replaceChildren(...[...select.options].map((option) => el('li', {}, el('button', {
      type: 'button', 'data-style': option.value, 'aria-current': option.value === select.value ? 'true' : 'false',
      onclick: () => {
        $('style-sheet').close();
        if (select.value === option.value) return;
        select.value = option.value;
        select.dispatchEvent(new Event('change'));
      },
    }, option.text))));
    $('style-sheet').showModal();
    $('style-sheet-list').querySelector('[aria-current="true"]')?.focus();
  }

  // ---- Previous and Next through the library, for a molecule opened from it ----
  function showLibrarySteps(id) {
    const steps = libraryNeighbours(id);
    $('library-steps').hidden = !steps;
    if (!steps) return;
    const link = (anchor, to, word) => {
      anchor.hidden = !to;
      if (!to) return;
      anchor.href = `#/explore/${encodeURIComponent(to)}`;
      anchor.setAttribute('aria-label', `${word} in the library: ${to}`);
      anchor.dataset.molecule = to;
    };
    link($('library-previous'), steps.previous, 'Previous');
    link($('library-next'), steps.next, 'Next');
    $('library-position').textContent = `${steps.index + 1} of ${steps.count} in the library`;
  }
  // The molecule stepped to is one from the library too: its own Previous and Next follow.
  for (const id of ['library-previous', 'library-next']) $(id).addEventListener('click', (e) => browseLibraryFrom(e.currentTarget.dataset.molecule));

  for (const id of ['style', 'color', 'hide-water', 'hide-ligands', 'hide-hydrogens']) $(id).addEventListener('change', showModel);
  // A highlight typed by hand replaces the one Neighbours made, sticks and all.
  $('highlight').addEventListener('change', () => { neighbourSticks = ''; showModel(); });

  return {
    /** Shows the screen, and the entry the address names when it is not the one shown, in the view it names. */
    show() {
      ensureViewer();
      const { id, rebuild } = link.arrive(location.hash);
      if (id && id !== current?.id) openMolecule(id);
      else if (current) {
        if (rebuild) showModel();
        // Back from signing in (or out): Keep and Add to the library follow.
        details.refresh(current);
        // Back on the molecule already shown: the status names it again, not an earlier error.
        if (viewer?.model) say(`${current.id}: ${current.title}`);
      }
    },
    /** The view shown as its link (view-link.js), or null before a model is shown: a lesson's step (lesson-add-step.js). */
    viewLink: () => link.link(),
    /** What the top bar's camera, recorder and "View in AR" act on, once a model is shown. */
    subject() {
      if (!current || !viewer?.model) return null;
      // AR models (AR Quick Look, Scene Viewer) are made for a phone: 100,000 triangles at most.
      const query = new URLSearchParams({ ...modelOptions(), target: 'ar' }).toString();
      // An ensemble's GLB plays its models (Scene Viewer runs the animation); the USDZ is the first model.
      const glbQuery = (current.details?.models ?? 1) > 1 ? `${query}&model=all` : query;
      const path = `/api/molecules/${encodeURIComponent(current.id)}`;
      return {
        name: current.id, title: current.title, viewer, slot: 'ar-slot', button: 'ar-button',
        usdz: `${path}/model.usdz?${query}`, glb: new URL(`${path}/model.glb?${glbQuery}`, location.href).href,
        // In WebXR a tap on the standing molecule names what it touched (ar-identify.js).
        createAR: (overlay, callbacks) => new ARPlacement(viewer, overlay, {
          ...callbacks, onIdentify: arCard.identify, onFrame: arCard.place,
          onEnd: () => { arCard.clear(); callbacks.onEnd(); },
        }),
        thumbnail: `${path}/thumbnail.png?size=64`, page: new URL(`#/explore/${encodeURIComponent(current.id)}`, location.href).href,
      };
    },
  };
}
