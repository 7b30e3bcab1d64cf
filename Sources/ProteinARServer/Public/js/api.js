// The server's JSON API, with errors turned into readable messages for the page.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.error) message = body.error;
  } catch { /* not JSON: keep the status line */ }
  return new ApiError(message, response.status);
}

export async function getJSON(url, { signal } = {}) {
  let response;
  try {
    response = await fetch(url, { signal, headers: { Accept: 'application/json' } });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError('The server cannot be reached. Check the connection and try again.', 0);
  }
  if (!response.ok) throw await failure(response);
  return response.json();
}

export const listMolecules = (params = {}) => getJSON(`/api/molecules?${new URLSearchParams(params)}`);
export const molecule = (id) => getJSON(`/api/molecules/${encodeURIComponent(id)}`);
export const search = (q, start = 0, rows = 10) => getJSON(`/api/search?${new URLSearchParams({ q, start, rows })}`);

export async function removeMolecule(id) {
  const response = await fetch(`/api/molecules/${encodeURIComponent(id)}`, { method: 'DELETE' });
  if (!response.ok && response.status !== 404) throw await failure(response);
}

/// Reads a server-sent-events response, calling onProgress for `progress` events; resolves with
/// the `done` event's JSON, rejects with the `error` event's message.
async function eventStream(response, onProgress) {
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
      if (event === 'progress') onProgress?.(payload);
      else if (event === 'done') return payload;
      else if (event === 'error') throw new ApiError(payload.error, payload.status);
    }
  }
  throw new ApiError('The server closed the connection before finishing.', 0);
}

/// Adds an entry by PDB ID or UniProt accession, with progress.
export async function fetchEntry(id, { onProgress, signal } = {}) {
  const response = await fetch('/api/molecules', {
    method: 'POST', signal,
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ id }),
  });
  return eventStream(response, onProgress);
}

/// Builds a design from pieces (and keeps it in the library with `save: true`): the verdict.
export async function buildDesign(body) {
  let response;
  try {
    response = await fetch('/api/designs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  } catch {
    throw new ApiError('The server cannot be reached. Check the connection and try again.', 0);
  }
  if (!response.ok) throw await failure(response);
  return response.json();
}

/// Uploads a structure file, with progress.
export async function upload(file, { onProgress, signal } = {}) {
  const response = await fetch(`/api/molecules?${new URLSearchParams({ name: file.name })}`, {
    method: 'POST', signal, headers: { 'Content-Type': 'application/octet-stream', Accept: 'text/event-stream' }, body: file,
  });
  return eventStream(response, onProgress);
}

/// Makes sure the model exists (progress while it is built) and returns its URL.
export async function prepareModel(id, format, options, { onProgress, signal } = {}) {
  const query = new URLSearchParams(options).toString();
  const url = `/api/molecules/${encodeURIComponent(id)}/model.${format}${query ? `?${query}` : ''}`;
  // Progress is never cached: the same URL, asked without this Accept, is the model itself.
  const response = await fetch(url, { signal, cache: 'no-store', headers: { Accept: 'text/event-stream' } });
  const done = await eventStream(response, onProgress);
  return done.url;
}

/// A PDB ID, an extended PDB ID or a UniProt accession, as the server accepts them.
export function looksLikeEntryID(text) {
  const t = text.trim();
  return /^[1-9][A-Za-z0-9]{3}$/.test(t) || /^pdb_[0-9a-z]{8}$/i.test(t)
    || /^(AF-)?([OPQ][0-9][A-Z0-9]{3}[0-9]|[A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2})(-F1)?$/i.test(t);
}
