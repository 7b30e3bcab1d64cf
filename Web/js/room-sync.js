// A drawing room kept in step with the server over its live WebSocket (docs/rooms-protocol.md).
// The room's content changes only through the server's numbered operations, applied in sequence
// order exactly once, so every page shows the same picture. Our own operations wait in a queue
// until the server acknowledges them; after a dropped connection the page reconnects with
// exponential backoff, asks for what it missed (`?after=`) and sends the unacknowledged operations
// again under their original ids, which the server recognises instead of applying twice.
import { roomSocketURL } from './api.js';
import { expandSnapshot, inflateSnapshot, INFLATES } from './compact-snapshot.js';

const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 30000;
// Presence (where we look from) at most this often: five times a second.
const PRESENCE_INTERVAL_MS = 200;
// Our own pace, well inside the server's 60 a second with bursts of 120, so it never has to refuse.
const SEND_PER_SECOND = 40;
const SEND_BURST = 80;
const RATE_LIMITED_RETRY_MS = 1000;

/** The room's content as the operations leave it: what the server's `state` holds. */
export class RoomState {
  constructor(snapshot = null) {
    this.reset(snapshot);
  }

  reset(snapshot) {
    this.sequence = snapshot?.sequence ?? 0;
    this.strokes = new Map((snapshot?.strokes ?? []).map((s) => [s.id, { ...s, points: s.points.slice() }]));
    this.notes = new Map((snapshot?.notes ?? []).map((n) => [n.id, { ...n }]));
    this.molecule = snapshot?.molecule ?? null;
    this.presentation = snapshot?.presentation ?? null;  // the lesson step the owner presents (lesson-live.js)
  }

  /** Applies one logged operation; returns what it touched ('strokes', 'notes', 'molecule', 'presentation') or null. */
  apply(op) {
    if (op.sequence <= this.sequence) return null;  // seen already
    this.sequence = op.sequence;
    const o = op.operation ?? {};
    switch (o.type) {
      case 'add-stroke':
        this.strokes.set(o.id, { id: o.id, author: op.author, color: o.color, width: o.width, points: o.points.slice() });
        return 'strokes';
      case 'extend-stroke': {
        const stroke = this.strokes.get(o.id);
        if (stroke) stroke.points.push(...o.points);
        return 'strokes';
      }
      case 'remove-stroke':
        this.strokes.delete(o.id);
        return 'strokes';
      case 'clear':
        this.strokes.clear();
        this.notes.clear();
        return 'all';
      case 'add-note':
        this.notes.set(o.id, { id: o.id, author: op.author, text: o.text, anchor: o.anchor });
        return 'notes';
      case 'remove-note':
        this.notes.delete(o.id);
        return 'notes';
      case 'set-molecule':
        this.molecule = o.molecule ?? null;
        return 'molecule';
      case 'present':
        this.presentation = o.presentation ?? null;
        return 'presentation';
      default:
        return null;  // 'undo' is logged as the removal it means; anything newer is not ours to draw
    }
  }
}

const validPeer = (p) => p && typeof p === 'object' && (p.connection != null || p.id != null);
// A peer is known by its connection (one person may be here twice, in two pages).
const peerKey = (p) => String(p.connection ?? p.id);

/** An id the server accepts (1 to 64 letters, digits, - or _), unique enough for a stroke, a note or a send. */
export function newID(prefix = '') {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return prefix + Array.from(bytes, (b) => b.toString(36).padStart(2, '0')).join('').slice(0, 20);
}

/**
 * Events (CustomEvent, detail as named): 'status' {state, retryAt?}, 'welcome' {room, you},
 * 'change' {what, op?}, 'ack' {clientOpID, sequence, duplicate}, 'refused' {code, message, operation?},
 * 'presence' {peers, watchers, hidden}, 'room' {room, you} (the room's settings changed: its name,
 * who may draw, its members, its place; `you` says your role and whether you may draw now).
 * Presence: the server sends a joiner the whole list once ({type: 'presence', peers, watchers}),
 * then what changed, gathered every 100 ms ({type: 'presence-changes', joined, left, moved,
 * watchers}); an older server sends the whole list each time. Both are applied to one map by
 * connection. Anonymous watchers are counted (watchers) and get the count only (hidden: no list).
 * state: 'connecting' | 'live' | 'reconnecting' | 'offline' | 'closed' | 'failed'
 */
export class RoomSync extends EventTarget {
  /**
   * @param {string} roomID
   * @param {{guest?: string|null, snapshot?: object|null, WebSocketClass?: typeof WebSocket}} options
   *   guest: the guest key for people without an account; snapshot: a state already fetched over HTTP
   */
  constructor(roomID, { guest = null, snapshot = null, WebSocketClass = WebSocket } = {}) {
    super();
    this.roomID = roomID;
    this.guest = guest;
    this.state = new RoomState(snapshot);
    this.synced = false;         // whether `state` came from this socket's log (else from HTTP, and may lag)
    this.status = 'connecting';
    this.room = null;
    this.you = null;
    this._peers = new Map();     // connection -> {connection, id, name, role, view?}
    this.watchers = 0;           // people watching without an account or a guest key: counted, not listed
    this.peersHidden = false;    // the server sends us the count only (we are such a watcher)
    this.retryAt = null;
    this._WebSocket = WebSocketClass;
    this._socket = null;
    this._attempt = 0;
    this._retryTimer = 0;
    this._pending = new Map();   // clientOpID -> {message, sent}, in the order they were made
    this._outbox = [];           // messages waiting for our own send budget
    this._tokens = SEND_BURST;
    this._tokensAt = performance.now();
    this._drainTimer = 0;
    this._view = null;
    this._viewSent = 0;
    this._viewTimer = 0;
    this._closed = false;
    this._online = () => { if (this.status === 'offline' || this.status === 'reconnecting') this._connectNow(); };
    this._offline = () => { if (this._socket) this._socket.close(); };
    window.addEventListener('online', this._online);
    window.addEventListener('offline', this._offline);
  }

  /** Who is here (as the server last said), in the order they came. */
  get peers() {
    return [...this._peers.values()];
  }

  /** The sequence of the last operation applied: where a reconnect resumes. */
  get sequence() {
    return this.state.sequence;
  }

  /** Connection attempts since the last welcome. */
  get attempts() {
    return this._attempt;
  }

  /** Operations sent and not yet acknowledged (kept for resending). */
  get unacknowledged() {
    return this._pending.size;
  }

  connect() {
    this._closed = false;
    this._open();
  }

  /** Closes for good (leaving the room); unacknowledged operations are dropped. */
  close() {
    this._closed = true;
    clearTimeout(this._retryTimer);
    clearTimeout(this._drainTimer);
    clearTimeout(this._viewTimer);
    window.removeEventListener('online', this._online);
    window.removeEventListener('offline', this._offline);
    const socket = this._socket;
    this._socket = null;
    socket?.close(1000, 'left the room');
    this._setStatus('closed');
  }

  /**
   * Sends an operation; returns its clientOpID. It is queued while the connection is down and
   * sent again after a reconnect until acknowledged. Its effect shows when the server's `op` comes.
   */
  send(operation, clientOpID = newID('c')) {
    const message = JSON.stringify({ type: 'op', clientOpID, operation });
    this._pending.set(clientOpID, { message, operation, sent: false });
    if (this.status === 'live') this._enqueue(message, clientOpID);
    return clientOpID;
  }

  /** Tells the others where we look from and at; sent at most five times a second, the latest only. */
  setView(view) {
    this._view = view;
    if (this.status !== 'live' || this._viewTimer) return;
    const wait = Math.max(0, this._viewSent + PRESENCE_INTERVAL_MS - performance.now());
    this._viewTimer = setTimeout(() => {
      this._viewTimer = 0;
      if (this.status !== 'live' || !this._view) return;
      this._viewSent = performance.now();
      this._enqueue(JSON.stringify({ type: 'presence', view: this._view }));
    }, wait);
  }

  // ---- Connection ----

  _open() {
    if (this._closed) return;
    clearTimeout(this._retryTimer);
    if (navigator.onLine === false) {
      this._setStatus('offline');
      return;
    }
    this._setStatus(this._attempt === 0 && !this.synced ? 'connecting' : 'reconnecting');
    // Resume after what we have, so the missing operations come and nothing twice; a first
    // connection asks for the whole state instead.
    const after = this.synced ? this.state.sequence : null;
    let socket;
    try {
      const snapshot = INFLATES && !this._inflateFailed ? 'deflated' : 'compact';
      socket = new this._WebSocket(roomSocketURL(this.roomID, { after, guest: this.guest, snapshot }));
      socket.binaryType = 'arraybuffer';
    } catch {
      this._retry();
      return;
    }
    this._socket = socket;
    this._welcomed = false;
    this._frameAwaited = null;
    this._held = null;
    socket.addEventListener('message', (e) => { if (this._socket === socket) this._arrive(socket, e.data); });
    socket.addEventListener('close', (e) => {
      if (this._socket !== socket) return;
      this._socket = null;
      for (const item of this._pending.values()) item.sent = false;
      this._outbox = [];
      this._peers.clear();
      this.watchers = 0;
      this._presenceChanged();
      if (this._closed) return;
      this.lastClose = { code: e.code, reason: e.reason, welcomed: this._welcomed };
      this._retry();
    });
    socket.addEventListener('error', () => { /* a close follows, which retries */ });
  }

  _retry() {
    if (this._closed) return;
    if (navigator.onLine === false) {
      this._setStatus('offline');
      return;
    }
    // 0.5 s, 1 s, 2 s … 30 s, each with up to a quarter more at random, so a restarted server
    // is not met by every page at the same instant.
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this._attempt);
    const delay = base * (1 + Math.random() * 0.25);
    this._attempt += 1;
    this.retryAt = Date.now() + delay;
    this._setStatus('reconnecting');
    this._retryTimer = setTimeout(() => this._open(), delay);
  }

  _connectNow() {
    if (this._closed || this._socket) return;
    this._attempt = 0;
    this._open();
  }

  /** Stops retrying: the room is gone or closed to us (the caller found out over HTTP). */
  fail(message) {
    this.close();
    this.failure = message;
    this._setStatus('failed');
  }

  _setStatus(state) {
    if (state !== 'reconnecting') this.retryAt = null;
    this.status = state;
    this.dispatchEvent(new CustomEvent('status', { detail: { state, retryAt: this.retryAt } }));
  }

  // ---- Messages ----

  /** A frame in: text is a message; a binary frame is the deflated snapshot a welcome announced. */
  _arrive(socket, data) {
    // While that snapshot is inflated, what came after it waits, in order.
    if (this._held) { this._held.push(data); return; }
    if (typeof data === 'string') { this._receive(data); return; }
    const welcome = this._frameAwaited;
    if (!welcome) return;
    this._frameAwaited = null;
    this._held = [];
    inflateSnapshot(data).catch((error) => {
      // Not inflated (a browser that claims the stream and fails it): the compact text next time.
      this._inflateFailed = true;
      throw error;
    }).then((snapshot) => {
      if (this._socket !== socket) return;
      if (snapshot.sequence !== welcome.snapshotFrame.sequence) throw new Error('the snapshot is not the one announced');
      this._whole(snapshot);
      this._live();
      const held = this._held;
      this._held = null;
      for (const later of held) this._arrive(socket, later);
    }).catch(() => {
      if (this._socket !== socket) return;
      this._held = null;
      socket.close(4002, 'snapshot');
    });
  }

  _receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    switch (message.type) {
      case 'welcome': return this._welcome(message);
      case 'op': return this._op(message);
      case 'ops': // several ops that waited together, in order
        for (const op of Array.isArray(message.ops) ? message.ops : []) this._op(op);
        return undefined;
      case 'ack': return this._ack(message);
      case 'error': return this._error(message);
      case 'presence': return this._presence(message);
      case 'presence-changes': return this._presenceChanges(message);
      case 'room-settings': return this._roomSettings(message);
      default:
        return undefined;
    }
  }

  // ---- Presence ----

  /** The whole list (to a joiner; an older server sends it on every change). */
  _presence(message) {
    this.peersHidden = !Array.isArray(message.peers);
    this._peers = new Map((this.peersHidden ? [] : message.peers).filter(validPeer).map((p) => [peerKey(p), p]));
    this._watchers(message);
    this._presenceChanged();
  }

  /** What changed since the last presence message: who joined, who left (by connection), who looked elsewhere. */
  _presenceChanges(message) {
    for (const peer of Array.isArray(message.joined) ? message.joined : []) if (validPeer(peer)) this._peers.set(peerKey(peer), peer);
    for (const connection of Array.isArray(message.left) ? message.left : []) this._peers.delete(String(connection));
    for (const move of Array.isArray(message.moved) ? message.moved : []) {
      const key = move && String(move.connection);
      const peer = this._peers.get(key);
      if (peer) this._peers.set(key, { ...peer, view: move.view });
    }
    this._watchers(message);
    this._presenceChanged();
  }

  _watchers(message) {
    if (Number.isInteger(message.watchers) && message.watchers >= 0) this.watchers = message.watchers;
  }

  _presenceChanged() {
    this.dispatchEvent(new CustomEvent('presence', { detail: { peers: this.peers, watchers: this.watchers, hidden: this.peersHidden } }));
  }

  /** The room's settings changed, here or on another server: the room and your part in it as they are now. */
  _roomSettings(message) {
    if (!message.room || typeof message.room !== 'object') return;
    // Merged: the welcome's room also says the molecule and the sequence, which this message leaves out.
    this.room = { ...(this.room ?? {}), ...message.room };
    if (message.you && typeof message.you === 'object') this.you = { ...(this.you ?? {}), ...message.you };
    this.dispatchEvent(new CustomEvent('room', { detail: { room: this.room, you: this.you } }));
  }

  _welcome(message) {
    this._welcomed = true;
    this._attempt = 0;
    this.room = message.room ?? this.room;
    this.you = message.you ?? this.you;
    if (message.snapshotFrame) {
      // The whole state comes next as a binary frame, then the operations after it.
      this._frameAwaited = message;
      return;
    }
    if (message.snapshot) {
      this._whole({ ...message.snapshot, sequence: message.snapshot.sequence ?? message.sequence });
    } else if (!this.synced || message.sequence < this.state.sequence) {
      // We asked to resume but the server's log is behind us (it lost data, or this is a new
      // room under an old id): start over from its whole state.
      this.synced = false;
      this._socket?.close(4000, 'resync');
      return;
    }
    this._live();
  }

  /** The room's whole state, as a snapshot (any form) says. */
  _whole(snapshot) {
    this.state.reset(expandSnapshot(snapshot));
    this.state.sequence = snapshot.sequence;
    this.synced = true;
    this.dispatchEvent(new CustomEvent('change', { detail: { what: 'all' } }));
  }

  /** Welcomed and in step with the room: live. */
  _live() {
    this.dispatchEvent(new CustomEvent('welcome', { detail: { room: this.room, you: this.you } }));
    this._setStatus('live');
    // What was sent and not acknowledged goes again, in order, under the same ids.
    for (const [clientOpID, item] of this._pending) this._enqueue(item.message, clientOpID);
    if (this._view) {
      this._viewSent = 0;
      this.setView(this._view);
    }
  }

  _op(op) {
    const expected = this.state.sequence + 1;
    if (op.sequence < expected) return;  // a duplicate: applied already
    if (op.sequence > expected) {
      // A gap should never happen; if it does, reconnect and ask for it rather than skip it.
      this._socket?.close(4001, 'gap');
      return;
    }
    const what = this.state.apply(op);
    this.dispatchEvent(new CustomEvent('change', { detail: { what, op } }));
  }

  _ack(message) {
    this._pending.delete(message.clientOpID);
    this.dispatchEvent(new CustomEvent('ack', { detail: message }));
  }

  _error(message) {
    // This page fell far behind (paused, or a slow network): the server closes the socket, and the
    // reconnect that follows brings the room as it is now. Nothing was refused.
    if (message.code === 'behind') return;
    // A server from before `snapshot=deflated` refuses the socket as malformed: compact next time.
    if (!this._welcomed && message.code === 'malformed' && this._socket?.url.includes('snapshot=deflated')) this._inflateFailed = true;
    const item = message.clientOpID ? this._pending.get(message.clientOpID) : null;
    if (item && message.code === 'rate-limited') {
      // Refused for pace only: the same operation, same id, a moment later.
      item.sent = false;
      setTimeout(() => { if (this.status === 'live' && this._pending.has(message.clientOpID)) this._enqueue(item.message, message.clientOpID); }, RATE_LIMITED_RETRY_MS);
      return;
    }
    if (message.clientOpID) this._pending.delete(message.clientOpID);
    this.dispatchEvent(new CustomEvent('refused', { detail: { ...message, operation: item?.operation ?? null } }));
  }

  // ---- Sending, within our own budget ----

  _enqueue(message, clientOpID = null) {
    if (clientOpID) {
      const item = this._pending.get(clientOpID);
      if (!item || item.sent) return;
      item.sent = true;
    }
    this._outbox.push(message);
    this._drain();
  }

  _drain() {
    clearTimeout(this._drainTimer);
    this._drainTimer = 0;
    const now = performance.now();
    this._tokens = Math.min(SEND_BURST, this._tokens + ((now - this._tokensAt) / 1000) * SEND_PER_SECOND);
    this._tokensAt = now;
    const socket = this._socket;
    while (this._outbox.length && this._tokens >= 1 && socket?.readyState === 1) {
      socket.send(this._outbox.shift());
      this._tokens -= 1;
    }
    if (this._outbox.length && socket?.readyState === 1) {
      this._drainTimer = setTimeout(() => this._drain(), 1000 / SEND_PER_SECOND);
    }
  }
}
