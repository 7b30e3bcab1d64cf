// Downloads a model file for the 3D viewer (viewer.js), reporting progress while it arrives and
// turning failures into messages people can act on. A busy server (429, 503) is asked again after
// the wait it names (api.js whenFree).
import { ApiError, whenFree } from './api.js';

/** The error fetch throws when its signal aborts, for loads that are cancelled another way. */
export function abortError(message) {
  return new DOMException(message, 'AbortError');
}

/**
 * The whole body of `url`.
 * @param {string|URL} url
 * @param {{signal?: AbortSignal, onProgress?: (received: number, total: number) => void}} options
 * @returns {Promise<ArrayBuffer>}
 */
export async function downloadModel(url, { signal, onProgress } = {}) {
  let response;
  try {
    response = await whenFree(() => fetch(url, { signal }), { signal });
  } catch (error) {
    if (error?.name === 'AbortError' || error instanceof ApiError) throw error;
    throw new Error(`Could not reach the server to load the model (${error?.message ?? error}).`, { cause: error });
  }
  if (!response.ok) throw await httpError(response);

  let buffer;
  try {
    buffer = await readBody(response, onProgress);
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new Error(`The model download was interrupted (${error?.message ?? error}).`, { cause: error });
  }
  if (signal?.aborted) throw signal.reason ?? abortError('The model load was cancelled.');
  return buffer;
}

// An Error for a failed HTTP response, using the server's {"error": "..."} text when present.
async function httpError(response) {
  let detail = '';
  try {
    const body = JSON.parse(await response.text());
    if (body && typeof body.error === 'string') detail = body.error;
  } catch {
    // Not JSON (or unreadable): fall back to the status line.
  }
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const error = new Error(detail
    ? `Could not load the model: ${detail} (${status}).`
    : `Could not load the model (${status}).`);
  error.status = response.status;
  return error;
}

// Reads the response, streaming it for progress reports when its size is known.
async function readBody(response, onProgress) {
  const total = Number(response.headers.get('Content-Length')) || 0;
  if (!onProgress || !response.body || total <= 0) {
    const buffer = await response.arrayBuffer();
    onProgress?.(buffer.byteLength, buffer.byteLength);
    return buffer;
  }
  const reader = response.body.getReader();
  const chunks = [];
  let received = 0;
  onProgress(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.byteLength;
    // A compressed transfer can deliver more bytes than Content-Length says.
    onProgress(received, Math.max(total, received));
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes.buffer;
}
