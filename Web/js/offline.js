// Offline use: registers the service worker (/sw.js), shows the banner that says what works while
// the network is away, and keeps molecules on this device for good ("Keep offline"). The service
// worker keeps the last 20 molecules opened on its own; a kept molecule's files go into a cache of
// their own, which it answers from offline and never empties.
import * as api from './api.js';
import { formatSize } from './progress-text.js';

const KEPT = 'proteinar-kept-v1';  // sw.js reads this cache; the name must match
// The model Explore shows first (explore.js's defaults): what Keep offline fetches when the
// molecule has not been seen in any style on this device yet.
const DEFAULT_MODEL = { style: 'auto', hide: 'water', compression: 'meshopt' };

/** Whether this browser can keep files offline: service workers and the Cache API live only on
 * secure pages (HTTPS, or localhost). */
export const offlineSupported = () => 'serviceWorker' in navigator && 'caches' in window;

const path = (id) => `/api/molecules/${encodeURIComponent(id)}`;
const belongsTo = (request, id) => {
  const p = new URL(request.url).pathname;
  return p === path(id) || p.startsWith(`${path(id)}/`);
};

/** Whether `id` is kept offline on this device. */
export async function isKept(id) {
  if (!offlineSupported()) return false;
  return Boolean(await (await caches.open(KEPT)).match(path(id)));
}

/** Keeps `id`'s details, pictures and models (every style opened on this device, and the first
 * one Explore shows) in the kept cache. */
export async function keep(id) {
  // Without persistent storage a browser may clear what was kept (Safari after seven days without a
  // visit, others when the disk fills): ask, and say so when it is refused.
  const lasting = await navigator.storage?.persist?.().catch(() => false);
  // The models this page loaded (the view shown now), and those any cache holds (other styles).
  const models = new Set(performance.getEntriesByType('resource').map((e) => new URL(e.name))
    .filter((url) => url.origin === location.origin && url.pathname === `${path(id)}/model.glb`).map((url) => url.href));
  for (const name of await caches.keys()) {
    if (!name.startsWith('proteinar-')) continue;
    for (const request of await (await caches.open(name)).keys()) {
      if (belongsTo(request, id) && new URL(request.url).pathname.endsWith('/model.glb')) models.add(request.url);
    }
  }
  if (models.size === 0) models.add(new URL(await api.prepareModel(id, 'glb', DEFAULT_MODEL), location.href).href);
  const files = [path(id), `${path(id)}/thumbnail.png?size=64`, `${path(id)}/thumbnail.png?size=256`, `${path(id)}/identify.json`,
    `${path(id)}/interactions`, ...models];
  // Fetched first, written after: a failure halfway leaves nothing half kept.
  const answers = await Promise.all(files.map(async (url) => {
    let response;
    try {
      response = await api.whenFree(() => fetch(url));  // a busy server (429, 503) is asked again after its wait
    } catch (error) {
      if (error instanceof api.ApiError) throw error;
      throw new api.ApiError('The server cannot be reached. Check the connection and try again.', 0);
    }
    if (!response.ok) {
      const why = await response.json().then((body) => body.error, () => null);
      throw new api.ApiError(why ?? `Could not keep ${id}: ${response.status} ${response.statusText}`, response.status);
    }
    const body = await response.blob();  // read here, to know its size
    return [url, new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers }), body.size];
  }));
  await changeKept(async (cache, sizes) => {
    // The details go in last: they are what marks the molecule kept.
    for (const [url, response] of answers.reverse()) await cache.put(url, response);
    sizes[id] = answers.reduce((sum, [, , bytes]) => sum + bytes, 0);
  });
  return { lasting: lasting !== false };
}

/** Lets `id` go: its files leave the kept cache (the recent cache may still hold them a while). */
export async function unkeep(id) {
  await changeKept(async (cache, sizes) => {
    await cache.delete(path(id));  // first: a half-removed molecule is no longer counted kept
    for (const request of await cache.keys()) if (belongsTo(request, id)) await cache.delete(request);
    delete sizes[id];
  });
}

// The kept molecules' sizes in bytes ({id: bytes}), written beside their files when they are kept,
// so that saying how much is kept does not read every model back. Changes go one at a time: two
// toggles pressed together must not lose each other's entry.
const SIZES = '/__proteinar/kept-sizes.json';
let changes = Promise.resolve();
function changeKept(change) {
  const next = changes.then(async () => {
    const cache = await caches.open(KEPT);
    const sizes = (await (await cache.match(SIZES))?.json().catch(() => null)) ?? {};
    await change(cache, sizes);
    await cache.put(SIZES, new Response(JSON.stringify(sizes), { headers: { 'Content-Type': 'application/json' } }));
  });
  changes = next.catch(() => {});
  return next;
}

/** {molecules, bytes}: how much is kept offline on this device. */
export async function keptSize() {
  if (!offlineSupported()) return { molecules: 0, bytes: 0 };
  await changes;
  const sizes = (await (await (await caches.open(KEPT)).match(SIZES))?.json().catch(() => null)) ?? {};
  const all = Object.values(sizes);
  return { molecules: all.length, bytes: all.reduce((sum, bytes) => sum + bytes, 0) };
}

/** A sentence for the person: how much this device keeps for them. */
export async function keptSummary() {
  const { molecules, bytes } = await keptSize();
  if (!molecules) return 'Nothing is kept offline on this device yet.';
  return `Kept offline on this device: ${molecules} molecule${molecules === 1 ? '' : 's'}, ${formatSize(bytes)}.`;
}

/**
 * A "Keep offline" toggle for `id` (aria-pressed), and a line beside it saying how much is kept.
 * Its accessible name starts with the words it shows (what a person using voice control says).
 * @param {{el: Function, say: Function}} app
 */
export function keepOfflineToggle(app, id, { label = `Keep offline: ${id}, on this device`, text = 'Keep offline', note = null } = {}) {
  const { el, say } = app;
  const button = el('button', { type: 'button', class: 'keep keep-offline', 'aria-pressed': 'false', 'aria-label': label }, text);
  const showNote = async () => { if (note) note.textContent = await keptSummary(); };
  let tapped = false;
  isKept(id).then((kept) => { if (!tapped) button.setAttribute('aria-pressed', String(kept)); })
    .catch(() => { button.disabled = true; button.title = 'This browser does not let the page keep files (a private window, say).'; });
  button.addEventListener('click', async () => {
    tapped = true;
    const keeping = button.getAttribute('aria-pressed') !== 'true';
    button.disabled = true;
    try {
      let lasting = true;
      if (keeping) {
        say(`Keeping ${id} on this device…`);
        ({ lasting } = await keep(id));
      } else {
        await unkeep(id);
      }
      button.setAttribute('aria-pressed', String(keeping));
      const caveat = lasting ? '' : ' This browser may still clear it when space runs low or after weeks unused; installing the app keeps it longer.';
      say(keeping ? `${id} is kept on this device: it opens without a network. ${await keptSummary()}${caveat}`
        : `${id} is no longer kept offline. ${await keptSummary()}`);
      await showNote();
    } catch (error) {
      say(error.message, { error: true });
    } finally {
      button.disabled = false;
    }
  });
  showNote();
  return button;
}

// On the first visit the page loads before the worker runs, so the molecule shown then went past
// it. Once it takes control, what the page fetched before (the browser's own record of its loads,
// including those still under way, reported as they end) is asked for again, through it: the
// details first, since they mark the molecule opened, then its pictures and models.
function refetchShown() {
  const since = performance.now();
  const moleculeFile = /^\/api\/molecules\/[^/]+(\/(thumbnail\.png|model\.glb))?$/;
  const seen = new Set();
  let details = Promise.resolve();
  const again = (entries) => {
    for (const entry of entries) {
      const url = new URL(entry.name);
      if (entry.startTime >= since || seen.has(url.href) || url.origin !== location.origin || !moleculeFile.test(url.pathname)) continue;
      seen.add(url.href);
      const fetchAgain = () => fetch(url.href, { headers: { Accept: url.pathname.split('/').length === 4 ? 'application/json' : '*/*' } }).catch(() => {});
      if (url.pathname.split('/').length === 4) details = details.then(fetchAgain);
      else details.then(fetchAgain);
    }
  };
  const observer = new PerformanceObserver((list) => again(list.getEntries()));
  observer.observe({ type: 'resource' });
  again(performance.getEntriesByType('resource'));
  setTimeout(() => observer.disconnect(), 120_000);  // loads begun before `since` end well before this
}

/**
 * Registers the service worker and runs the offline banner.
 * @param {{$: Function}} app
 */
export function setupOffline({ $ }) {
  const banner = $('offline-banner');
  let failed = false;  // a request just failed for want of network, though the browser says online
  const update = () => { banner.hidden = navigator.onLine && !failed; };
  window.addEventListener('offline', update);
  window.addEventListener('online', () => { failed = false; update(); });
  // api.js and the service worker say when the server cannot be reached, and when it answers again.
  window.addEventListener(api.NETWORK_EVENT, (e) => { failed = !e.detail.up; update(); });
  if (offlineSupported()) {
    navigator.serviceWorker.addEventListener('message', (e) => {
      if (e.data?.type === 'network') { failed = !e.data.up; update(); }
    });
    // On the very first visit the page loads before the worker runs: once it takes control, the
    // molecule already shown is asked for again, through it, so that one too opens offline later.
    if (!navigator.serviceWorker.controller) {
      navigator.serviceWorker.addEventListener('controllerchange', refetchShown, { once: true });
    }
    // After the page has loaded: installing copies the app's files, which should not slow the first view.
    const register = () => navigator.serviceWorker.register('/sw.js').catch(() => { /* the app works without it, online */ });
    if (document.readyState === 'complete') register();
    else window.addEventListener('load', register, { once: true });
  }
  update();
}
