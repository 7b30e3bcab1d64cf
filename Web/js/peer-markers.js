// The other people in a room, drawn where they are: for each one whose view the server relays
// (presence: {position, target}, in the room's metres like the strokes), a small camera (a pyramid:
// four sides and its face, six triangles) at their eye pointing where they look, in a colour tied
// to them, with their name on a label that follows it on screen. Ourselves are not drawn; someone who leaves goes.
import { linearColor } from './strokes.js';

// A marker's length from eye to opening (metres): a thumb's length beside a 30 cm molecule.
const MARKER_M = 0.04;
// The opening's half-width and half-height, as parts of the length (a 4:3 picture).
const HALF_WIDE = 0.4;
const HALF_HIGH = 0.3;
// A marker whose eye is nearer ours than this (metres) is not drawn: two people who look from the
// same place (everyone starts at the same default view) would otherwise see the other's camera
// fill the screen. It shows again as soon as one of them moves away.
const NEAR_M = 0.12;
const IDENTITY = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);

/** A person's colour ('#rrggbb'), the same in every page: a hue from their id, dark enough for white text. */
export function peerColor(id) {
  let hash = 2166136261;
  for (const ch of String(id)) hash = Math.imul(hash ^ ch.codePointAt(0), 16777619) >>> 0;
  return hslHex((hash % 360), 0.7, 0.4);
}

function hslHex(h, s, l) {
  const k = (n) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return `#${[f(0), f(8), f(4)].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

/** The camera marker of one view, in parseGLB's shape (flat faces: each triangle its own vertices). */
export function markerMesh(view, color) {
  const eye = view.position;
  const forward = normalize(sub(view.target, eye));
  const right = normalize(cross(forward, Math.abs(forward[1]) < 0.95 ? [0, 1, 0] : [1, 0, 0]));
  const up = cross(right, forward);
  const at = (x, y) => add(add(add(eye, scale(forward, MARKER_M)), scale(right, x * MARKER_M)), scale(up, y * MARKER_M));
  const corners = [at(-HALF_WIDE, -HALF_HIGH), at(HALF_WIDE, -HALF_HIGH), at(HALF_WIDE, HALF_HIGH), at(-HALF_WIDE, HALF_HIGH)];
  const triangles = [];
  for (let i = 0; i < 4; i++) triangles.push([eye, corners[i], corners[(i + 1) % 4]]);
  triangles.push([corners[0], corners[2], corners[1]], [corners[0], corners[3], corners[2]]);
  const positions = [], normals = [];
  for (const [a, b, c] of triangles) {
    const n = normalize(cross(sub(b, a), sub(c, a)));
    positions.push(...a, ...b, ...c);
    normals.push(...n, ...n, ...n);
  }
  const count = positions.length / 3;
  const colors = new Float32Array(count * 4);
  const linear = linearColor(color);
  for (let i = 0; i < count; i++) colors.set(linear, i * 4);
  const primitive = { positions: new Float32Array(positions), normals: new Float32Array(normals), colors,
    indices: Uint16Array.from({ length: count }, (_, i) => i), vertexCount: count };
  return { meshes: [{ primitives: [primitive] }], nodes: [{ mesh: 0, matrix: IDENTITY }] };
}

const validView = (v) => v && [v.position, v.target].every((p) => Array.isArray(p) && p.length === 3 && p.every(Number.isFinite))
  && Math.hypot(...sub(v.target, v.position)) > 1e-6;

/**
 * The markers of a room's other people. The room screen hands it who is here (update), draws its
 * uploads with the strokes, and it keeps the name labels on their markers as the view moves.
 */
export class PeerMarkers {
  /**
   * @param {HTMLCanvasElement} canvas the room's 3D view (its 'viewer-frame' events move the labels)
   * @param {HTMLElement} layer where the labels go, over the canvas
   * @param {Function} el the app's element maker
   * @param {() => void} changed called when a marker comes near our eye or leaves it (the uploads changed)
   */
  constructor(canvas, layer, el, changed) {
    this._layer = layer;
    this._el = el;
    this._changed = changed;
    this._viewer = null;
    this._markers = new Map();  // connection -> {key, color, view, upload, label}
    canvas.addEventListener('viewer-frame', () => this.placeLabels());
  }

  /**
   * Who is here now. Returns whether any marker changed (the caller then draws again).
   * @param {object|null} viewer
   * @param {{connection, id, name, view?}[]} peers
   * @param {string|null} selfID our own id: not drawn
   */
  update(viewer, peers, selfID) {
    this._viewer = viewer;
    if (!viewer) return false;
    let changed = false;
    const present = new Set();
    for (const peer of peers) {
      const key = String(peer.connection ?? peer.id);
      if (selfID != null && peer.id === selfID) continue;
      if (!validView(peer.view)) continue;
      present.add(key);
      const name = peer.name ?? 'Someone';
      const viewKey = JSON.stringify(peer.view);
      const marker = this._markers.get(key);
      if (marker && marker.viewKey === viewKey && marker.name === name) continue;
      const color = marker?.color ?? peerColor(peer.id ?? key);
      if (marker) viewer.releaseOverlay(marker.upload);
      const label = marker?.label ?? this._label(key, color);
      label.lastChild.textContent = name;  // a person's name is their own words: text only
      this._markers.set(key, { viewKey, name, color, view: peer.view, upload: viewer.uploadOverlay(markerMesh(peer.view, color)), label, near: marker?.near ?? false });
      changed = true;
    }
    for (const [key, marker] of this._markers) {
      if (present.has(key)) continue;
      viewer.releaseOverlay(marker.upload);
      marker.label.remove();
      this._markers.delete(key);
      changed = true;
    }
    if (changed) this.placeLabels();
    return changed;
  }

  /** The markers' uploads, drawn with the strokes (in the 3D view and in AR), but for those at our eye. */
  get uploads() {
    return [...this._markers.values()].filter((m) => !m.near).map((m) => m.upload);
  }

  /** Stroke-like {points, width} for the scene's bounds, so the clip planes keep the markers. */
  get extents() {
    return [...this._markers.values()].map((m) => ({ points: [m.view.position, m.view.target], width: MARKER_M }));
  }

  /** Forgets every marker (leaving the room). */
  clear() {
    for (const marker of this._markers.values()) {
      this._viewer?.releaseOverlay(marker.upload);
      marker.label.remove();
    }
    this._markers.clear();
  }

  _label(key, color) {
    const label = this._el('div', { class: 'peer-label', 'data-peer-marker': key, style: { '--peer': color } },
      this._el('span', { class: 'peer-dot', 'aria-hidden': 'true' }), this._el('span', {}));
    this._layer.append(label);
    return label;
  }

  /** Keeps each name just above its marker's eye; hidden when the marker is behind or at our camera. */
  placeLabels() {
    const viewer = this._viewer;
    if (!viewer) return;
    const eye = viewer.camera.position;
    let nearChanged = false;
    for (const marker of this._markers.values()) {
      const near = Math.hypot(...sub(marker.view.position, eye)) < NEAR_M;
      if (near !== marker.near) {
        marker.near = near;
        marker.label.dataset.near = String(near);
        nearChanged = true;
      }
      const at = viewer.project(marker.view.position);
      marker.label.hidden = near || !at.inFront;
      marker.label.dataset.x = at.x.toFixed(1);
      marker.label.dataset.y = at.y.toFixed(1);
      marker.label.style.transform = `translate(${at.x.toFixed(1)}px, ${at.y.toFixed(1)}px) translate(-50%, -130%)`;
    }
    if (nearChanged) this._changed();
  }
}

function add(a, b) { return [a[0] + b[0], a[1] + b[1], a[2] + b[2]]; }
function sub(a, b) { return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]; }
function scale(a, k) { return [a[0] * k, a[1] * k, a[2] * k]; }
function cross(a, b) { return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; }
function normalize(a) { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; }
