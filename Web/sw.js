// ProteinAR's service worker: the app opens without a network, with every molecule the person
// opened lately (its details, pictures and the models the viewer fetched) and every molecule they
// chose to keep offline (js/offline.js fills that cache).
//
// - /v/<version>/… (the stylesheet and the modules, named by a hash of the web app): cache first;
//   a new version has new addresses, so a cached file is never stale.
// - The page, the manifest and the icons: network first, the cached copy when the network fails.
// - A molecule's details, thumbnails and models (GET /api/molecules/ID…): network first, kept in
//   the "recent" cache (the last RECENT_LIMIT molecules opened) and answered from any cache offline.
//   Entries anyone opened from the archive (GET /api/archive/ID, network only: a download with its
//   progress) are molecules like those of the library from then on, at the same addresses, and are
//   kept the same way, library or not; explore.js opens them by that address when offline.
// - A lesson (GET /api/lessons/ID): network first, the last LESSON_LIMIT opened kept in a cache of
//   their own, without the asker's `mine` (the copy is the same for anyone on this device), so that
//   a lesson opened once opens again offline; its steps' molecules are kept as molecules opened are
//   (js/lesson-offline.js fetches each step's details and models). Lists of lessons and answers are not.
// - Everything else (search, sessions, rooms, the profile, My molecules, designs) and every change
//   (POST, PUT, PATCH, DELETE) goes to the network only: what depends on who is signed in is never
//   kept where another person on this device could be answered with it.
//
// It sits at the site's root (/sw.js) so its scope is the whole app. Lives only in secure contexts.

const SHELL = 'proteinar-shell-v1';
const RECENT = 'proteinar-recent-v1';
const KEPT = 'proteinar-kept-v1';           // js/offline.js writes this one; the name must match
const LESSONS = 'proteinar-lessons-v1';
const CACHES = [SHELL, RECENT, KEPT, LESSONS];
const LESSON_LIMIT = 30;
const LESSON = /^\/api\/lessons\/[A-Za-z0-9_-]+$/;
const RECENT_LIMIT = 20;
const MODEL_VARIANTS = 6;                     // models kept per recent molecule (styles, colours)
const RECENT_ORDER = '/__proteinar/recent.json'; // the ids in RECENT, most recently opened first
const STATIC = ['/manifest.webmanifest', '/api/model-options', '/icons/icon-192.png', '/icons/icon-512.png', '/icons/maskable-512.png', '/icons/apple-touch-icon.png'];
// /api/molecules/ID, /api/molecules/ID/thumbnail.png, /api/molecules/ID/model.glb (the viewer's format),
// /api/molecules/ID/identify.json (what a tap names), /api/molecules/ID/interactions (what holds its ligands).
const MOLECULE_FILE = /^\/api\/molecules\/([^/]+)(?:\/(?:thumbnail\.png|model\.glb|identify\.json|interactions))?$/;

self.addEventListener('install', (event) => {
  // Waiting for every tab of the old version to close would leave a fixed app unused for days;
  // the versioned addresses let old and new files sit side by side, so the new one takes over now.
  event.waitUntil(cacheShell().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith('proteinar-') && !CACHES.includes(name)) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

// The page, and everything it loads before it can run: the stylesheet and app.js with every module
// it imports, followed import by import (no list to keep up to date by hand).
async function cacheShell() {
  const cache = await caches.open(SHELL);
  const response = await fetch('/', { cache: 'no-cache' });
  if (!response.ok) throw new Error(`the page answered ${response.status}`);
  const page = await response.clone().text();
  await cache.put('/', response);
  const files = [...page.matchAll(/(?:href|src)="(\/v\/[0-9a-f]+\/[^"]+)"/g)].map((m) => m[1]);
  const seen = new Set();
  const visit = async (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    const file = await fetch(path);
    if (!file.ok) throw new Error(`${path} answered ${file.status}`);
    if (path.endsWith('.js')) {
      const source = await file.clone().text();
      const imports = [...source.matchAll(/(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)];
      await Promise.all(imports.map((m) => visit(new URL(m[1] ?? m[2], new URL(path, location.origin)).pathname)));
    }
    await cache.put(path, file);
  };
  await Promise.all(files.map(visit));
  await Promise.all(STATIC.map((path) => cache.add(path).catch(() => { /* an icon less offline, not a failed install */ })));
  await dropOtherVersions(page);
}

// Files of earlier versions of the app, once the page names another version.
async function dropOtherVersions(page) {
  const version = /\/v\/([0-9a-f]+)\//.exec(page)?.[1];
  if (!version) return;
  const cache = await caches.open(SHELL);
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    if (path.startsWith('/v/') && !path.startsWith(`/v/${version}/`)) await cache.delete(request);
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== location.origin) return;
  if (url.pathname.startsWith('/v/')) {
    event.respondWith(cacheFirst(event));
  } else if (url.pathname === '/' || url.pathname === '/index.html' || (request.mode === 'navigate' && !url.pathname.startsWith('/api/'))) {
    // The app's page. A link to a file (a USDZ or GLB download, the API's documents) navigates
    // too, but is not the page and must never stand in for it.
    event.respondWith(thePage(event));
  } else if (STATIC.includes(url.pathname)) {
    event.respondWith(networkFirst(event, async () => SHELL));
  } else if (LESSON.test(url.pathname)) {
    event.respondWith(lessonFirst(event));
  } else if (url.pathname === '/api/molecules' && !url.searchParams.has('mine') && !url.searchParams.has('q')) {
    // The library's list, the same for everyone (My molecules, ?mine=true, is not kept; nor is
    // each filter a person types, which would fill the cache one keystroke at a time).
    event.respondWith(networkFirst(event, async () => RECENT));
  } else {
    const match = MOLECULE_FILE.exec(url.pathname);
    if (!match) return;
    const id = decodeURIComponent(match[1]);
    if (/text\/event-stream/.test(request.headers.get('Accept') ?? '')) event.respondWith(modelProgress(request));
    else event.respondWith(networkFirst(event, () => moleculeCache(id, url.pathname === `/api/molecules/${match[1]}`)));
  }
});

// Where a molecule's file goes: its details mark it opened; its pictures and models are kept while
// it is among the recently opened (the library's thumbnails of molecules never opened are not).
async function moleculeCache(id, opened) {
  if (opened) {
    await touch(id);
    return RECENT;
  }
  return (await recentIDs()).includes(id) ? RECENT : null;
}

// Keeps a copy of a good answer under `key` in the cache `where()` names (null: none), while the
// page already reads the answer: a model is not held back until it is all written to disk. Which
// cache is settled before the page gets the answer: a molecule's details mark it opened before the
// page can ask for its models.
async function store(event, key, response, where) {
  if (!response.ok || isPrivate(response)) return;
  const copy = response.clone();
  const name = await where().catch(() => null);
  if (!name) return;
  event.waitUntil(caches.open(name).then((cache) => cache.put(key, copy))
    .catch(() => { /* a full disk or a download cut short: not kept, nothing broken */ }));
}

async function cacheFirst(event) {
  const cached = await caches.match(event.request, { ignoreVary: true });
  if (cached) return cached;
  const response = await fromNetwork(event.request);
  await store(event, event.request, response, async () => SHELL);
  return response;
}

// The page at /, whatever the query (?ios and the like are read by the page itself).
async function thePage(event) {
  try {
    const response = await fromNetwork(event.request);
    if (response.ok && !isPrivate(response) && /^text\/html/.test(response.headers.get('Content-Type') ?? '')) {
      const copy = response.clone();
      event.waitUntil((async () => {
        const page = await copy.clone().text();
        await (await caches.open(SHELL)).put('/', copy);
        await dropOtherVersions(page);
      })().catch(() => {}));
    }
    return response;
  } catch (error) {
    return offlineCopy(await caches.match('/', { ignoreVary: true })) ?? offlineAnswer(error);
  }
}

/** `where()`: the cache to keep a good answer in, or null for none. */
async function networkFirst(event, where) {
  const request = event.request;
  try {
    const response = await fromNetwork(request);
    await store(event, request.url, response, where);
    return response;
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    return offlineCopy(await caches.match(request.url, { ignoreVary: true })) ?? offlineAnswer(error);
  }
}

// A lesson: the network's answer, kept (without `mine`) for offline; offline, the copy kept.
async function lessonFirst(event) {
  const request = event.request;
  try {
    const response = await fromNetwork(request);
    if (response.ok) event.waitUntil(keepLesson(request.url, response.clone()).catch(() => { /* not kept: nothing broken */ }));
    // A lesson deleted (404) no longer opens offline either.
    else if (response.status === 404) event.waitUntil(caches.open(LESSONS).then((cache) => cache.delete(request.url)).catch(() => {}));
    return response;
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    return offlineCopy(await caches.match(request.url, { cacheName: LESSONS, ignoreVary: true })) ?? offlineAnswer(error);
  }
}

// Kept last in the cache's order (its oldest first), and the lessons past LESSON_LIMIT go.
async function keepLesson(url, response) {
  const lesson = await response.json();
  lesson.mine = false;
  const cache = await caches.open(LESSONS);
  await cache.delete(url);
  await cache.put(url, new Response(JSON.stringify(lesson), { headers: { 'Content-Type': 'application/json' } }));
  const keys = await cache.keys();
  for (const old of keys.slice(0, Math.max(0, keys.length - LESSON_LIMIT))) await cache.delete(old);
}

// explore.js asks for a model with Accept: text/event-stream to follow its building, then loads
// the address the last event names. Offline, a model already cached is "built": its address.
async function modelProgress(request) {
  try {
    return await fromNetwork(request);
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    if (!(await caches.match(request.url, { ignoreVary: true }))) return offlineAnswer(error);
    const url = new URL(request.url);
    const done = JSON.stringify({ url: url.pathname + url.search });
    return new Response(`event: done\ndata: ${done}\n\n`, { headers: { 'Content-Type': 'text/event-stream', 'X-Served-Offline': '1' } });
  }
}

// An answer for a person or a session alone: never kept.
const isPrivate = (response) => /private|no-store/i.test(response.headers.get('Cache-Control') ?? '');

// The network, telling the open pages when it stops or starts answering (they show a banner).
let networkUp = true;
async function fromNetwork(request) {
  try {
    const response = await fetch(request);
    if (!networkUp) announce(true);
    return response;
  } catch (error) {
    if (error.name !== 'AbortError') announce(false);
    throw error;
  }
}

async function announce(up) {
  networkUp = up;
  for (const client of await self.clients.matchAll({ type: 'window' })) client.postMessage({ type: 'network', up });
}

// A cached answer given because the network failed, marked so (X-Served-Offline) for api.js,
// which would otherwise take it for the server answering again.
function offlineCopy(cached) {
  if (!cached) return null;
  const headers = new Headers(cached.headers);
  headers.set('X-Served-Offline', '1');
  return new Response(cached.body, { status: cached.status, statusText: cached.statusText, headers });
}

// What the page gets for a file it never had, offline: a 503 with the JSON error the API gives,
// so api.js says something a person understands.
function offlineAnswer() {
  const body = JSON.stringify({ error: 'You are offline, and this was not opened on this device before. Connect to the network and try again.' });
  return new Response(body, { status: 503, statusText: 'Offline', headers: { 'Content-Type': 'application/json', 'X-Served-Offline': '1' } });
}

async function recentIDs() {
  const cache = await caches.open(RECENT);
  return (await (await cache.match(RECENT_ORDER))?.json().catch(() => null)) ?? [];
}

// Marks `id` as just opened; the files of molecules past the last RECENT_LIMIT leave the recent
// cache (kept ones stay in theirs). One at a time, so two openings do not lose each other.
let order = Promise.resolve();
function touch(id) {
  order = order.then(async () => {
    const cache = await caches.open(RECENT);
    const ids = await recentIDs();
    const next = [id, ...ids.filter((other) => other !== id)];
    next.splice(RECENT_LIMIT);
    await cache.put(RECENT_ORDER, new Response(JSON.stringify(next), { headers: { 'Content-Type': 'application/json' } }));
    // Every file of a molecule no longer among the recent ones goes, also one written after its
    // molecule left (a model still downloading then); of each recent molecule's models, the
    // newest MODEL_VARIANTS (style × colour × highlight would otherwise grow without bound).
    const recent = new Set(next);
    const models = new Map();
    for (const request of await cache.keys()) {
      const url = new URL(request.url);
      const match = MOLECULE_FILE.exec(url.pathname);
      if (!match) continue;
      const owner = decodeURIComponent(match[1]);
      if (!recent.has(owner)) { await cache.delete(request); continue; }
      if (url.pathname.endsWith('/model.glb')) models.set(owner, [...(models.get(owner) ?? []), request]);
    }
    for (const requests of models.values()) {
      for (const request of requests.slice(0, Math.max(0, requests.length - MODEL_VARIANTS))) await cache.delete(request);
    }
  }).catch(() => { /* the cache is a nicety: a failed tidy-up leaves files, not a broken page */ });
  return order;
}
