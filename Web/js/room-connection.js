// The room screen's connection to its room (a RoomSync, room-sync.js): opened as a guest or with
// the account signed in, its events handed to the screen, closed when the screen leaves. A socket
// refused before its welcome is asked about over HTTP after a few tries, so a room that is gone or
// closed to us says so and stops retrying. Our own view goes to the others through it.
import * as api from './api.js';
import { RoomSync } from './room-sync.js';

/**
 * @param {{status: () => void, welcome: (detail: object) => void, room: (detail: object) => void,
 *          change: (detail: object) => void, presence: () => void, refused: (detail: object) => void,
 *          ack: () => void}} on  what the screen does on each of the connection's events
 */
export function setupRoomConnection(on) {
  let sync = null;
  let checking = false;  // a check over HTTP is on its way
  let lastView = '';     // the view last shared, as sent

  /** Makes the connection to room `id` and listens to it; `connect()` on it starts it. */
  function open(id) {
    const account = api.currentAccount();
    sync = new RoomSync(id, { guest: account ? null : api.guestKey() });  // the content comes from the socket
    sync.addEventListener('status', () => { on.status(); checkStillThere(); });
    sync.addEventListener('welcome', (e) => on.welcome(e.detail));
    // Settings changed while connected (by the owner, maybe on another server): name, pen, owner's panels.
    sync.addEventListener('room', (e) => on.room(e.detail));
    sync.addEventListener('change', (e) => on.change(e.detail));
    sync.addEventListener('presence', () => on.presence());
    sync.addEventListener('refused', (e) => on.refused(e.detail));
    sync.addEventListener('ack', () => on.ack());  // "N changes not yet sent" counts down
    return sync;
  }

  // A socket refused before its welcome says nothing about why. After a few such refusals, ask over
  // HTTP: a room that is gone, or closed to us, is said so, and the retries stop.
  async function checkStillThere() {
    const s = sync;
    if (!s || s.status !== 'reconnecting' || s.lastClose?.welcomed !== false || s.attempts < 3 || checking) return;
    checking = true;
    try {
      await api.roomSummary(s.roomID);
    } catch (error) {
      if (s === sync && [401, 403, 404].includes(error.status)) {
        s.fail(error.status === 404 ? 'This room no longer exists.' : `You can no longer enter this room: ${error.message}`);
      }
    } finally {
      checking = false;
    }
  }

  // Our own view for the others, when it changed (the sync layer paces it to 5 a second).
  function shareView(viewer) {
    if (!sync || sync.status !== 'live') return;
    const { position, target } = viewer.camera;
    const view = { position: position.map((v) => Math.round(v * 1e3) / 1e3), target: target.map((v) => Math.round(v * 1e3) / 1e3) };
    const key = JSON.stringify(view);
    if (key === lastView) return;
    lastView = key;
    sync.setView(view);
  }

  return {
    /** The open connection (RoomSync), or null. */
    get sync() { return sync; },
    open,
    /** Shares `viewer`'s camera with the others while live, when it changed. */
    shareView,
    /** Closes the connection; the screen shows no room. */
    close() {
      sync?.close();
      sync = null;
    },
  };
}
