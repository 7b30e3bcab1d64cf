// The Library screen (#/library): the molecules the server keeps, filtered as you type, each with
// its picture, Open and Delete; and uploading a structure file of your own.
import * as api from './api.js';

/**
 * @param {{$: Function, el: Function, say: Function}} app
 */
export function setupLibrary(app) {
  const { $, el, say } = app;

  async function showLibrary() {
    const list = $('library-list');
    try {
      const filter = $('library-filter').value.trim();
      const page = await api.listMolecules({ limit: 200, sort: 'id', ...(filter ? { q: filter } : {}) });
      list.replaceChildren(...page.molecules.map((m) => el('li', {},
        el('img', { src: `${m.links.thumbnail}?size=192`, alt: `${m.id}: picture of the structure`, loading: 'lazy' }),
        el('strong', {}, m.id), el('span', { class: 'title' }, m.title),
        el('div', { class: 'row' },
          el('a', { class: 'button primary', href: `#/explore/${encodeURIComponent(m.id)}`, 'aria-label': `Open ${m.id}` }, 'Open'),
          el('button', { type: 'button', 'aria-label': `Delete ${m.id}`, onclick: async () => {
            if (!confirm(`Delete ${m.id} from the library?`)) return;
            try { await api.removeMolecule(m.id); say(`Deleted ${m.id}.`); showLibrary(); } catch (error) { say(error.message, { error: true }); }
          } }, 'Delete')))));
      if (page.molecules.length === 0) list.append(el('li', {}, filter ? `Nothing matches “${filter}”.` : 'The library is empty: Explore an entry or upload a file.'));
    } catch (error) {
      say(error.message, { error: true });
    }
  }
  $('library-filter').addEventListener('input', () => showLibrary());
  $('upload-file').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    say(`Uploading ${file.name}…`);
    try {
      const m = await api.upload(file, { onProgress: (p) => say(p.message) });
      say(`Added ${m.id}: ${m.title}.`);
      showLibrary();
    } catch (error) {
      say(`${file.name}: ${error.message}`, { error: true });
    }
    e.target.value = '';
  });

  return { show: showLibrary };
}
