// The server's JSON API, with errors turned into readable messages for the page.
import { describeProgress, readableSizes } from './progress-text.js';

export class ApiError extends Error {
  constructor(message, status) {
    super(readableSizes(message));  // the server's limits name bytes ("more than 2147483648 bytes")
    this.status = status;
  }
}

/** The window event api.js sends when the server cannot be reached ({up: false}) and when it
 * answers again ({up: true}): offline.js shows its banner by it. */
export const NETWORK_EVENT = 'proteinar-network';
let reached = true;
// The header sw.js puts on what it answers from its caches because the network failed.
const SERVED_OFFLINE = 'X-Served-Offline';
function reachable(up) {
  if (up === reached) return;
  reached = up;
  window.dispatchEvent(new CustomEvent(NETWORK_EVENT, { detail: { up } }));
}

async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.error) message = body.error;
  } catch { /* not JSON: keep the status line */ }
  const error = new ApiError(message, response.status);
  error.retryAfter = retryAfterSeconds(response.headers.get('Retry-After'));
  error.offline = response.headers.has(SERVED_OFFLINE);  // sw.js's 503 for what it never had: not busy
  return error;
}

// ---- A busy server: 429 and 503 are tried again after Retry-After, a few times ----
// The server answers 429 when this browser (or its address) asked for too much at once and 503 when
// it has too much to do; both say when to come back (Retry-After). Every request for molecules,
// models, thumbnails, the archive and designs goes through whenFree, which waits that long (3 s
// when unsaid, 30 s at most) and tries again, up to BUSY_RETRIES times, telling the page how long
// it waits (BUSY_EVENT: app.js says it in the status line), then gives up with BUSY_GIVE_UP.

/** The window event whenFree sends: {request, seconds, retry, retries} when a request waits
 * `seconds` before trying again, {request, seconds: 0} when that wait is over (it tries again now) or cancelled. */
export const BUSY_EVENT = 'proteinar-busy';
export const BUSY_STATUSES = [429, 503];
export const BUSY_RETRIES = 5;
const BUSY_DEFAULT_S = 3;
const BUSY_MAX_S = 30;
export const BUSY_GIVE_UP = 'The server is still busy. Try again in a minute.';
let busyRequests = 0;

/** Seconds from a Retry-After header (a number of seconds, or an HTTP date), or null when absent or unreadable. */
function retryAfterSeconds(header) {
  if (header === null || header === undefined || header.trim() === '') return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Number(header);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

// How long to wait before trying `outcome` (a Response, or an error thrown) again; null: not busy.
function busyWait(outcome) {
  let seconds;
  if (outcome instanceof Response) {
    if (!BUSY_STATUSES.includes(outcome.status) || outcome.headers.has(SERVED_OFFLINE)) return null;
    seconds = retryAfterSeconds(outcome.headers.get('Retry-After'));
  } else if (outcome instanceof ApiError) {
    if (!BUSY_STATUSES.includes(outcome.status) || outcome.offline) return null;
    seconds = outcome.retryAfter;
  } else {
    return null;
  }
  return Math.min(BUSY_MAX_S, Math.max(1, seconds ?? BUSY_DEFAULT_S));
}

function pause(seconds, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason ?? new DOMException('Cancelled.', 'AbortError')); return; }
    const timer = setTimeout(() => { signal?.removeEventListener('abort', stop); resolve(); }, seconds * 1000);
    const stop = () => { clearTimeout(timer); reject(signal.reason ?? new DOMException('Cancelled.', 'AbortError')); };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Runs `attempt` (a request: it returns a Response, or what it read from one, or throws an ApiError)
 * and, while the server answers 429 or 503, waits as it says and runs it again, at most BUSY_RETRIES
 * more times; then throws an ApiError with BUSY_GIVE_UP. Anything else is returned or thrown as it came.
 * @template T
 * @param {() => Promise<T>} attempt
 * @param {{signal?: AbortSignal}} options  aborting it ends a wait at once
 * @returns {Promise<T>}
 */
export async function whenFree(attempt, { signal } = {}) {
  const request = ++busyRequests;
  const tell = (detail) => window.dispatchEvent(new CustomEvent(BUSY_EVENT, { detail: { request, ...detail } }));
  for (let retry = 1; ; retry++) {
    let outcome;
    try {
      outcome = await attempt();
    } catch (error) {
      if (busyWait(error) === null) throw error;
      outcome = error;
    }
    const seconds = busyWait(outcome);
    if (seconds === null) return outcome;
    if (outcome instanceof Response) outcome.body?.cancel().catch(() => {});
    if (retry > BUSY_RETRIES) throw new ApiError(BUSY_GIVE_UP, outcome.status);
    tell({ seconds, retry, retries: BUSY_RETRIES });
    try {
      await pause(seconds, signal);
    } finally {
      tell({ seconds: 0 });
    }
  }
}

// One request to our server: a failure to reach it becomes a readable ApiError (aborts stay aborts),
// and whether it answered goes to the offline banner.
async function reach(url, init) {
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    reachable(false);
    throw new ApiError('The server cannot be reached. Check the connection and try again.', 0);
  }
  reachable(!response.headers.has(SERVED_OFFLINE));
  return response;
}

/** fetch(url, init) for files of our server (models, thumbnails, structure files), tried again while it is busy (whenFree). */
export const fetchWhenFree = (url, init = {}) => whenFree(() => reach(url, init), { signal: init.signal });

export async function getJSON(url, { signal } = {}) {
  const response = await fetchWhenFree(url, { signal, headers: { Accept: 'application/json' } });
  if (!response.ok) throw await failure(response);
  return response.json();
}

export const listMolecules = (params = {}) => getJSON(`/api/molecules?${new URLSearchParams(params)}`);
export const molecule = (id) => getJSON(`/api/molecules/${encodeURIComponent(id)}`);
export const search = (q, start = 0, rows = 10) => getJSON(`/api/search?${new URLSearchParams({ q, start, rows })}`);

/** Removes a molecule: 401 without an account, 403 for someone neither the administrator nor its owner. */
export async function removeMolecule(id) {
  const response = await sendWhenFree(`/api/molecules/${encodeURIComponent(id)}`, { method: 'DELETE', headers: { Accept: 'application/json' } });
  if (!response.ok && response.status !== 404) throw await failure(response);
}

/** Whether an error means "sign in first": adding to the library needs an account unless the server runs an open library. */
export const needsAccount = (error) => error?.status === 401;

/// Reads a server-sent-events response, calling onProgress for `progress` events (their message
/// put in words for the status line: `about` says what is worked on, see describeProgress); resolves
/// with the `done` event's JSON, rejects with the `error` event's message.
async function eventStream(response, onProgress, about = {}) {
  if (!response.ok) throw await failure(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event || data === undefined) continue;
      const payload = JSON.parse(data);
      if (event === 'progress') onProgress?.({ ...payload, message: describeProgress(payload, about) });
      else if (event === 'done') return payload;
      else if (event === 'error') {
        const error = new ApiError(payload.error, payload.status);
        if (typeof payload.retryAfter === 'number') error.retryAfter = payload.retryAfter;
        throw error;
      }
    }
  }
  throw new ApiError('The server closed the connection before finishing.', 0);
}

/// Adds an entry by PDB ID or UniProt accession to the library and to the person's My molecules,
/// with progress (an account needed: see needsAccount). An entry the server already holds from the
/// archive (opened by anyone, see openEntry) moves into the library without a new download.
export function fetchEntry(id, { onProgress, signal } = {}) {
  return whenFree(async () => eventStream(await send('/api/molecules', {
    method: 'POST', signal,
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ id }),
  }), onProgress, { name: libraryID(id) ?? id.trim() }), { signal });
}

/// Opens any entry of the archive by PDB ID or UniProt accession, with progress; no account needed
/// (`GET /api/archive/{id}`). The library's own copy when it has one; otherwise the server fetches
/// the entry into its archive cache, where it stays a while (the answer's `inLibrary` is false).
export function openEntry(id, { onProgress, signal } = {}) {
  const url = `/api/archive/${encodeURIComponent(id.trim())}`;
  return whenFree(async () => eventStream(await reach(url, {
    signal, credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'text/event-stream' },
  }), onProgress, { name: libraryID(id) ?? id.trim(), opening: true }), { signal });
}

/// Builds a design from pieces (and keeps it in the library with `save: true`, which needs an account): the verdict.
export async function buildDesign(body) {
  const response = await sendWhenFree('/api/designs', {
    method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  return response.json();
}

/// Uploads a structure file, with progress (an account needed). The body goes as
/// application/octet-stream, one of the structure types the server accepts for uploads.
export function upload(file, { onProgress, signal } = {}) {
  return whenFree(async () => eventStream(await send(`/api/molecules?${new URLSearchParams({ name: file.name })}`, {
    method: 'POST', signal, headers: { 'Content-Type': 'application/octet-stream', Accept: 'text/event-stream' }, body: file,
  }), onProgress, { name: file.name }), { signal });
}

/// The id the library keeps an entry under, as the server derives it from what was typed
/// (4HHB, pdb_00004hhb, AF-P69905-F1 for the UniProt accession P69905), or null.
export function libraryID(text) {
  const t = text.trim();
  if (!looksLikeEntryID(t)) return null;
  if (/^[1-9][A-Za-z0-9]{3}$/.test(t)) return t.toUpperCase();
  if (/^pdb_/i.test(t)) return t.toLowerCase();
  const accession = t.toUpperCase().replace(/^AF-/, '').replace(/-F1$/, '');
  return `AF-${accession}-F1`;
}

/// Makes sure the model exists (progress while it is built) and returns its URL.
export async function prepareModel(id, format, options, { onProgress, signal } = {}) {
  const query = new URLSearchParams(options).toString();
  const url = `/api/molecules/${encodeURIComponent(id)}/model.${format}${query ? `?${query}` : ''}`;
  // Progress is never cached: the same URL, asked without this Accept, is the model itself. Someone
  // asking for a model another person's request is already making gets that conversion's progress.
  const done = await whenFree(async () => eventStream(await reach(url, {
    signal, cache: 'no-store', headers: { Accept: 'text/event-stream' },
  }), onProgress, { name: id, format }), { signal });
  return done.url;
}

/// A PDB ID, an extended PDB ID or a UniProt accession, as the server accepts them.
export function looksLikeEntryID(text) {
  const t = text.trim();
  return /^[1-9][A-Za-z0-9]{3}$/.test(t) || /^pdb_[0-9a-z]{8}$/i.test(t)
    || /^(AF-)?([OPQ][0-9][A-Z0-9]{3}[0-9]|[A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2})(-F1)?$/i.test(t);
}

// ---- Accounts and drawing rooms (docs/rooms-protocol.md) ----
// The session lives in an HttpOnly cookie the page cannot read; what the page keeps is the CSRF
// value that must go with every change (POST, PATCH, DELETE), and, for people without an account,
// a guest key of its own making that the server turns into a stable guest identity.

let csrf = null;
let account = null;
const GUEST_KEY_STORAGE = 'proteinar-guest-key';

/** The signed-in account ({id, email, name, role}) as last seen, or null. */
export const currentAccount = () => account;

/** This browser's guest key: 32 random letters and digits, made once and kept in localStorage. */
export function guestKey() {
  let key = null;
  try { key = localStorage.getItem(GUEST_KEY_STORAGE); } catch { /* storage refused: a key for this page only */ }
  if (!key || !/^[A-Za-z0-9_-]{16,64}$/.test(key)) {
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    key = btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    try { localStorage.setItem(GUEST_KEY_STORAGE, key); } catch { /* see above */ }
  }
  return key;
}

function remember(answer) {
  account = answer?.account ?? null;
  csrf = answer?.csrf ?? null;
  return account;
}

// Every request of the page that may change something goes through here, rooms and library alike:
// the session cookie goes with it, and on a change (anything but GET) the CSRF value the cookie
// session needs. A 401 or 403 on a change may mean the session changed behind this page (a sign-in
// or out in another tab, the CSRF value gone stale): the session is read again and, if it changed,
// the change is tried once more. Network failures become a readable ApiError; aborts stay aborts.
async function send(url, init = {}, { retry = true } = {}) {
  const method = init.method ?? 'GET';
  const headers = { ...(init.headers ?? {}) };
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  const response = await reach(url, { ...init, method, headers, credentials: 'same-origin' });
  if ((response.status === 401 || response.status === 403) && method !== 'GET' && retry) {
    const before = `${account?.id ?? ''} ${csrf ?? ''}`;
    try { await session(); } catch { return response; }
    if (account && `${account.id} ${csrf ?? ''}` !== before) return send(url, init, { retry: false });
  }
  return response;
}

// send, tried again while the server is busy (whenFree): for the library's molecules and designs.
// Changes to rooms and accounts are not (a sign-in refused for too many tries must not try again).
const sendWhenFree = (url, init = {}) => whenFree(() => send(url, init), { signal: init.signal });

// One JSON request with what the rooms API wants: the CSRF header on changes when signed in (see
// send), the guest key when not; `busy`: tried again while the server is busy (sendWhenFree).
async function request(method, url, body, { busy = false } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (!account) headers['X-Guest-Key'] = guestKey();
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const response = await (busy ? sendWhenFree(url, init) : send(url, init));
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return null;
  return response.json();
}

/** Asks the server who this browser is signed in as; resolves with the account or null. */
export async function session() {
  try {
    return remember(await getJSON('/api/session'));
  } catch (error) {
    if (error.status === 404) return remember(null);  // a server without accounts: everyone is a guest
    throw error;
  }
}

export async function register({ email, password, name }) {
  return remember(await request('POST', '/api/accounts', { email, password, name }));
}

export async function signIn({ email, password }) {
  return remember(await request('POST', '/api/sessions', { email, password }));
}

export async function signOut() {
  try {
    await request('DELETE', '/api/sessions/current');
  } finally {
    remember(null);
  }
}

/** {account, rooms}: the signed-in account and the rooms it owns or belongs to. */
export const profile = () => request('GET', '/api/profile');
export async function updateProfile(changes) {
  const updated = await request('PATCH', '/api/profile', changes);
  account = updated?.account ?? updated;
  return account;
}

// ---- My molecules: the signed-in person's own list (what they added, and what they keep) ----
const keepPath = (id) => `/api/profile/molecules/${encodeURIComponent(id)}`;
/** The signed-in person's molecules, a page like listMolecules gives (401 without an account). */
export const myMolecules = (params = {}) => listMolecules({ ...params, mine: 'true' });
/** The ids of the signed-in person's molecules (the first 500). */
export async function keptIDs() {
  const page = await myMolecules({ limit: 500, sort: 'id' });
  return new Set(page.molecules.map((m) => m.id));
}
/** Keeps `id` in My molecules; a molecule the server holds from the archive moves into the library. */
export const keepMolecule = (id) => request('PUT', keepPath(id), {}, { busy: true });
export const unkeepMolecule = (id) => request('DELETE', keepPath(id), undefined, { busy: true });

const roomPath = (id) => `/api/rooms/${encodeURIComponent(id)}`;
export const listRooms = () => request('GET', '/api/rooms');
export const createRoom = (settings) => request('POST', '/api/rooms', settings);
/** {room, state}: a room as this browser may see it, and its content now. */
export const room = (id) => request('GET', roomPath(id));
/** {room}: a room without its content (`state=none`): the room screen gets that from the live socket. */
export const roomSummary = (id) => request('GET', `${roomPath(id)}?state=none`);
export const updateRoom = (id, changes) => request('PATCH', roomPath(id), changes);
// ---- Invitations: the owner invites an e-mail; its account accepts or declines ----
/** {invited, invitations}: invites `email` to draw in the room (the same answer whether or not it has an account). */
export const inviteToRoom = (id, email) => request('POST', `${roomPath(id)}/invitations`, { email });
/** {invitations}: the e-mails the room's owner invited that have not answered yet. */
export const roomInvitations = (id) => request('GET', `${roomPath(id)}/invitations`);
export const withdrawInvitation = (id, email) => request('DELETE', `${roomPath(id)}/invitations/${encodeURIComponent(email)}`);
/** {invitations: [{room, roomName, invitedBy, invitedAt}]}: the signed-in person's invitations. */
export const myInvitations = () => request('GET', '/api/invitations');
/** {room}: the room, now with the signed-in person as a member. */
export const acceptInvitation = (id) => request('POST', `/api/invitations/${encodeURIComponent(id)}/accept`, {});
export const declineInvitation = (id) => request('DELETE', `/api/invitations/${encodeURIComponent(id)}`);
/// The address a phone can open this server at (for the desktop page's QR code): {address, source, reason?}.
export const phoneAddress = () => request('GET', '/api/phone-address');
/** Where the map's tiles come from through this server, and whose they are; or why there are none. */
export const mapTiles = () => getJSON('/api/map');
/** What the model routes accept (styles, colour schemes, …), from the engine: model-options.js. */
export const modelOptions = () => getJSON('/api/model-options');
export const roomOperations = (id, after = 0) => request('GET', `${roomPath(id)}/operations?${new URLSearchParams({ after })}`);
/** The room's content right after operation `at` (0: empty), as a state; 400 past its last operation. */
export const roomStateAt = (id, at) => request('GET', `${roomPath(id)}/state?${new URLSearchParams({ at })}`);

/**
 * Where a room's live socket is: ws: or wss: like the page, resuming after `after`, as a guest with
 * `guest`. A whole room comes in the compact form (compact-snapshot.js expandSnapshot, a third of the
 * bytes), `deflated` (compressed once by the server, a binary frame) or in the welcome (`compact`).
 */
export function roomSocketURL(id, { after = null, guest = null, snapshot = 'compact' } = {}) {
  const url = new URL(`${roomPath(id)}/live`, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  if (after !== null) url.searchParams.set('after', String(after));
  else url.searchParams.set('snapshot', snapshot);
  if (guest) url.searchParams.set('guest', guest);
  return url.href;
}

/** Addresses of a room's export with the molecule and the strokes as tubes. */
export const roomModelURL = (id, format) => `${roomPath(id)}/model.${format}`;

// ---- Lessons (issue 34): a teacher's steps through molecules' views, each with text and a question ----
const lessonPath = (id) => `/api/lessons/${encodeURIComponent(id)}`;
/** {lessons: [{id, title, steps, updatedAt}]}: the signed-in person's lessons, newest change first (401 signed out). */
export const listLessons = () => request('GET', '/api/lessons');
/** A lesson ({id, title, ownerID, ownerName, mine, steps, createdAt, updatedAt}); anyone with its id may read it. */
export const lesson = (id) => request('GET', lessonPath(id));
/** A new lesson: {title, steps?}; 201 with the lesson. */
export const createLesson = (body) => request('POST', '/api/lessons', body);
/** Replaces the lesson (title and every step, in order): the owner only. */
export const updateLesson = (id, body) => request('PUT', lessonPath(id), body);
export const deleteLesson = (id) => request('DELETE', lessonPath(id));
/** {step, choice, correct}: an answer to step `step`'s question (an account, else this browser's guest key). */
export const answerLesson = (id, step, choice) => request('POST', `${lessonPath(id)}/answers`, { step, choice });
/** {questions: [{step, index, prompt, choices, answer, counts, total, named}]}: the owner's tally. */
export const lessonAnswers = (id) => request('GET', `${lessonPath(id)}/answers`);
