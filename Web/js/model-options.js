// What the server's model routes accept (GET /api/model-options, written from the engine's own
// lists): the style and colour menus are built from it, and what the page must know per style
// (how far its surface reaches past the atoms, whether it follows the chain's trace) comes from it.
// Loaded once, before the first screen shows (app.js); offline, the service worker's copy.

import * as api from './api.js';

let loaded = null;

export async function loadModelOptions() {
  // Offline with no copy kept: the menus offer Automatic alone.
  loaded = await api.modelOptions().catch(() => null);
  return loaded;
}

/** The styles, as [{id, name, reachAngstroms, followsTrace}]; `auto` first. */
export function styles() {
  return loaded?.styles ?? [{ id: 'auto', name: 'Automatic', reachAngstroms: 1.5, followsTrace: false }];
}

/** The colour schemes, as [{id, name}]. */
export function colours() { return loaded?.colors ?? []; }

/** One style by its id (`auto` for one unknown). */
export function style(id) {
  const all = styles();
  return all.find((s) => s.id === id) ?? all.find((s) => s.id === 'auto') ?? all[0];
}

/** Fills a <select> with `items` ([{id, name}]) after the options it has in the page already. */
export function fillMenu(select, items) {
  const kept = [...select.options].filter((o) => o.dataset.page !== undefined);
  select.replaceChildren(...kept, ...items.map(({ id, name }) => {
    const option = document.createElement('option');
    option.value = id;
    option.textContent = name;
    return option;
  }));
}
