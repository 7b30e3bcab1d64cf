// The Library screen (#/library, and #/library/mine for My molecules): the molecules the server
// keeps, filtered as you type, each with its picture and Open; for someone signed in also Keep (in
// My molecules) and Delete, and a switch to show only their own molecules; and uploading a
// structure file of your own. Adding to the library needs an account unless the server runs an
// open library: a refusal (401) says so, with a link to sign in that comes back here.
// The list's order is remembered for Explore's Previous and Next, and the last molecule seen for
// the next launch.
import * as api from './api.js';
import { keepOfflineToggle, offlineSupported } from './offline.js';

const ORDER_KEY = 'proteinar-library-order';        // the IDs listed, in order (this tab)
const BROWSING_KEY = 'proteinar-library-browsing';  // the molecule opened from that list
const LAST_KEY = 'proteinar-last-molecule';         // the last molecule shown (kept across launches)

// Storage can be refused (private modes, policies): these helpers then remember nothing.
function read(storage, key) {
  try { return storage.getItem(key); } catch { return null; }
}
function write(storage, key, value) {
  try { storage.setItem(key, value); } catch { /* nothing remembered */ }
}

/** Marks `id` as opened from the library list: Explore offers Previous and Next beside it. */
export function browseLibraryFrom(id) {
  if (id) write(sessionStorage, BROWSING_KEY, id);
}

/** {previous, next, index, count} of `id` in the library list it was opened from, or null. */
export function libraryNeighbours(id) {
  if (read(sessionStorage, BROWSING_KEY) !== id) return null;
  let order = [];
  try { order = JSON.parse(read(sessionStorage, ORDER_KEY) ?? '[]'); } catch { order = []; }
  const index = Array.isArray(order) ? order.indexOf(id) : -1;
  if (index < 0) return null;
  return { previous: order[index - 1] ?? null, next: order[index + 1] ?? null, index, count: order.length };
}

export function rememberLastMolecule(id) { write(localStorage, LAST_KEY, id); }
export function lastMolecule() { return read(localStorage, LAST_KEY); }
/** Forgets `id` as the last molecule (it is gone from the server): the next launch opens no error. */
export function forgetLastMolecule(id) {
  if (lastMolecule() !== id) return;
  try { localStorage.removeItem(LAST_KEY); } catch { /* nothing remembered anyway */ }
}

// A picture the server was too busy to draw (429, 503; an <img> cannot read Retry-After) is asked
// for again after a wait, twice at most. A failed answer is not cached, so the same address loads anew.
const THUMBNAIL_WAITS_MS = [3000, 8000];
function thumbnailAgain(e) {
  const img = e.currentTarget;
  const tries = Number(img.dataset.tries ?? 0);
  if (tries >= THUMBNAIL_WAITS_MS.length || !navigator.onLine) return;
  img.dataset.tries = String(tries + 1);
  setTimeout(() => {
    if (!img.isConnected) return;
    const src = img.getAttribute('src');
    img.removeAttribute('src');
    img.setAttribute('src', src);
  }, THUMBNAIL_WAITS_MS[tries]);
}

/**
 * @param {{$: Function, el: Function, say: Function, account: object}} app  account: account.js's
 */
export function setupLibrary(app) {
  const { $, el, say, account } = app;
  let mine = false;        // showing My molecules only
  let serial = 0;

  async function showLibrary(arg) {
    if (arg !== undefined) mine = arg === 'mine';
    const shown = ++serial;
    await account.ready();
    if (shown !== serial) return;
    const signedIn = Boolean(api.currentAccount());
    account.accountBar($('library-account'), 'Anyone may look at the library; to add to it, sign in.');
    $('library-mine-field').hidden = !signedIn;
    $('library-mine').checked = mine && signedIn;
    $('library-title').textContent = mine && signedIn ? 'My molecules' : 'Library';
    // #/library/mine signed out: the whole library, and a word on how to see one's own.
    if (mine && !signedIn) account.needsAccount('My molecules are kept for your account.', 'come back here');
    const list = $('library-list');
    list.setAttribute('aria-busy', 'true');
    try {
      const filter = $('library-filter').value.trim();
      const params = { limit: 200, sort: 'id', ...(filter ? { q: filter } : {}) };
      const own = mine && signedIn;
      const [page, kept] = await Promise.all([
        own ? api.myMolecules(params) : api.listMolecules(params),
        signedIn && !own ? api.keptIDs().catch(() => new Set()) : Promise.resolve(null),
      ]);
      if (shown !== serial) return;
      const keptIDs = own ? new Set(page.molecules.map((m) => m.id)) : kept;
      list.replaceChildren(...page.molecules.map((m) => item(m, signedIn, keptIDs)));
      write(sessionStorage, ORDER_KEY, JSON.stringify(page.molecules.map((m) => m.id)));
      if (page.molecules.length === 0) {
        list.append(el('li', { class: 'empty-note' }, filter ? `Nothing${own ? ' of yours' : ''} matches “${filter}”.`
          : own ? 'You have no molecules yet: what you add (Explore an entry, upload a file, keep a design) is kept here, and Keep adds any molecule of the library.'
            : 'The library is empty: Explore an entry or upload a file.'));
      }
    } catch (error) {
      if (shown !== serial) return;
      if (api.needsAccount(error)) {
        list.replaceChildren();
        account.needsAccount('My molecules are kept for your account.', 'come back here');
      } else {
        say(error.message, { error: true });
      }
    } finally {
      // A superseded render must not mark the list ready while the newer one is still loading.
      if (shown === serial) list.removeAttribute('aria-busy');
    }
  }

  function item(m, signedIn, keptIDs) {
    const actions = [el('a', {
      class: 'button primary', href: `#/explore/${encodeURIComponent(m.id)}`, 'aria-label': `Open ${m.id}`, onclick: () => browseLibraryFrom(m.id),
    }, 'Open')];
    // Keep offline needs no account: the files stay in this browser.
    if (offlineSupported()) actions.push(keepOfflineToggle({ el, say }, m.id, { text: 'Keep offline' }));
    if (signedIn) {
      actions.push(account.keepButton(m.id, keptIDs?.has(m.id) ?? false, { label: `Keep ${m.id} in My molecules`, text: 'Add to My molecules', onChange: () => { if (mine) showLibrary(); } }));
      actions.push(el('button', { type: 'button', 'aria-label': `Delete ${m.id}`, onclick: () => remove(m.id) }, 'Delete'));
    }
    return el('li', { 'data-molecule': m.id },
      el('img', { src: `${m.links.thumbnail}?size=256`, alt: `${m.id}: picture of the structure`, loading: 'lazy', onerror: thumbnailAgain }),
      el('strong', {}, m.id), el('span', { class: 'title' }, m.title),
      el('div', { class: 'row' }, ...actions));
  }

  async function remove(id) {
    if (!confirm(`Delete ${id} from the library, for everyone?`)) return;
    try {
      await api.removeMolecule(id);
      say(`Deleted ${id}.`);
      showLibrary();
    } catch (error) {
      if (api.needsAccount(error)) account.needsAccount(`Deleting ${id} needs an account.`, 'try again');
      else if (error.status === 403) say(`${id} stays: only the administrator or the person who added it may delete it.`, { error: true });
      else say(error.message, { error: true });
    }
  }

  $('library-filter').addEventListener('input', () => showLibrary());
  $('library-mine').addEventListener('change', (e) => {
    const target = e.target.checked ? '#/library/mine' : '#/library';
    if (location.hash !== target) location.hash = target;
    else showLibrary(e.target.checked ? 'mine' : '');
  });
  $('upload-file').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    say(`Uploading ${file.name}…`);
    try {
      const m = await api.upload(file, { onProgress: (p) => say(p.message) });
      say(`Added ${m.id}: ${m.title}.`);
      showLibrary();
    } catch (error) {
      if (api.needsAccount(error)) account.needsAccount(`${file.name}: adding to the library needs an account.`, 'choose the file again');
      else say(`${file.name}: ${error.message}`, { error: true });
    }
    e.target.value = '';
  });

  // From the address: #/library is everything, #/library/mine My molecules.
  return { show: (arg) => showLibrary(arg ?? '') };
}
