// The room screen's tool bar, at the bottom within thumb reach: Draw and Move, the colours (six
// swatches, a picker and a hue slider), the brushes, Undo (also Ctrl+Z), Clear (the owner's, after
// asking), and Fewer/More tools. Someone who may only watch gets none of the drawing tools; while
// drawing is not allowed (looking back at the history, a setting) they wait, greyed out.
import { colourName, hexToHsl, hueColor } from './colour-names.js';

export const SWATCHES = [['#1d2433', 'Black'], ['#d62828', 'Red'], ['#f77f00', 'Orange'], ['#2b9348', 'Green'], ['#1e6fd9', 'Blue'], ['#8e44ad', 'Purple']];
export const BRUSHES = [['fine', 'Fine', 0.002], ['medium', 'Medium', 0.005], ['bold', 'Bold', 0.012]];

/**
 * @param {{$: Function, el: Function, say: Function}} app
 * @param {{canvas: HTMLCanvasElement, stage: HTMLElement, sync: object|null, local: Map,
 *          role: () => string|null, mayDraw: () => boolean, mayEverDraw: () => boolean,
 *          isMine: (author: string) => boolean, drawing: () => boolean}} room
 *   `sync` is read when needed (a getter); `local`: our strokes on their way; `drawing()`: whether
 *   a stroke is being drawn now
 */
export function setupRoomTools(app, room) {
  const { $, el, say } = app;
  const { canvas, stage, local, role, mayDraw, isMine } = room;
  let mode = 'draw';           // 'draw' | 'move'
  let color = SWATCHES[4][0];
  let width = BRUSHES[1][2];
  let drawWhenAllowed = false; // Draw was on when drawing stopped being allowed (history, a setting): back on with it

  // ---- What the tools allow ----
  // Fewer tools: the colours and brushes fold away, leaving the view more room; More tools brings them back.
  $('room-tools-toggle').addEventListener('click', () => {
    const collapse = $('room-tools').dataset.collapsed !== 'true';
    $('room-tools').dataset.collapsed = String(collapse);
    $('room-tools-toggle').setAttribute('aria-expanded', String(!collapse));
    $('room-tools-toggle').textContent = collapse ? 'More tools' : 'Fewer tools';
  });

  function updateTools() {
    const { sync } = room;
    const draws = mayDraw();
    // Someone who may only watch gets no drawing tools at all (not a toolbar greyed out): Move and
    // the view remain. Looking back at the history only pauses them.
    const watchOnly = !room.mayEverDraw();
    $('room-tools').dataset.watchOnly = String(watchOnly);
    for (const id of ['room-mode-draw', 'room-tools-toggle', 'room-swatches', 'room-color-custom', 'room-brushes', 'room-undo', 'room-note']) $(id).hidden = watchOnly;
    $('room-hue').closest('label').hidden = watchOnly;
    for (const control of $('room-tools').querySelectorAll('[data-needs-draw]')) control.disabled = !draws;
    $('room-clear').hidden = role() !== 'owner';
    if (!draws && mode === 'draw') {
      setMode('move');
      drawWhenAllowed = true;
    } else if (draws && drawWhenAllowed) {
      drawWhenAllowed = false;
      setMode('draw');
    }
    $('room-mode-draw').disabled = !draws;
    const mine = sync ? [...sync.state.strokes.values()].some((s) => isMine(s.author)) : false;
    $('room-undo').disabled = !draws || !mine || room.drawing();
    const empty = !sync || (sync.state.strokes.size === 0 && sync.state.notes.size === 0);
    $('room-clear').disabled = empty || !draws;  // not while looking back at the room's history
    $('room-hint').hidden = !empty || !draws || !sync || local.size > 0;
  }

  function setMode(next) {
    mode = next;
    $('room-mode-draw').setAttribute('aria-pressed', String(mode === 'draw'));
    $('room-mode-move').setAttribute('aria-pressed', String(mode === 'move'));
    stage.dataset.mode = mode;
    canvas.setAttribute('aria-label', mode === 'draw'
      ? 'The room in 3D. Drawing: drag to draw, tap for a dot; two fingers pinch and move the view, Alt-drag turns it, arrow keys rotate.'
      : 'The room in 3D. Moving: drag to rotate, pinch or scroll to zoom, arrow keys rotate.');
  }

  // ---- Colours and brushes ----
  const swatches = $('room-swatches');
  swatches.replaceChildren(...SWATCHES.map(([value, name]) => el('button', {
    type: 'button', class: 'swatch', style: { '--swatch': value }, 'aria-label': name, 'aria-pressed': String(value === color),
    'data-color': value, 'data-needs-draw': '', onclick: () => pickColor(value),
  })));
  $('room-color-custom').addEventListener('input', (e) => pickColor(e.target.value));
  // The hue slider picks any colour of the wheel with one thumb, where the picker needs a dialog.
  $('room-hue').addEventListener('input', (e) => pickColor(hueColor(Number(e.target.value)), { fromSlider: true }));
  let announced = '';
  function pickColor(value, { fromSlider = false, quiet = false } = {}) {
    color = value.toLowerCase();
    for (const b of swatches.querySelectorAll('.swatch')) b.setAttribute('aria-pressed', String(b.dataset.color === color));
    $('room-color-custom').value = color;
    if (!fromSlider) $('room-hue').value = String(Math.round(hexToHsl(color).h));
    $('room-tools').style.setProperty('--brush', color);
    // Said once per name (a slider sends many inputs per name), by the swatch's own name if it has one.
    const name = SWATCHES.find(([v]) => v === color)?.[1].toLowerCase() ?? colourName(color);
    $('room-hue').setAttribute('aria-valuetext', name);
    if (!quiet && name !== announced) $('room-colour-said').textContent = `Colour: ${name}`;
    announced = name;
  }
  pickColor(color, { quiet: true });

  $('room-brushes').replaceChildren(...BRUSHES.map(([key, name, size]) => el('button', {
    type: 'button', class: `brush brush-${key}`, 'aria-label': `${name} brush (${size * 1000} mm)`, 'aria-pressed': String(size === width),
    'data-size': String(size), 'data-needs-draw': '', onclick: () => pickBrush(size),
  }, el('span', { 'aria-hidden': 'true' }))));
  function pickBrush(size) {
    width = size;
    for (const b of $('room-brushes').children) b.setAttribute('aria-pressed', String(Number(b.dataset.size) === size));
  }

  // ---- Draw and Move ----
  // A mode picked by hand is kept: drawing coming back allowed does not switch Move back to Draw.
  $('room-mode-draw').addEventListener('click', () => { drawWhenAllowed = false; setMode('draw'); });
  $('room-mode-move').addEventListener('click', () => { drawWhenAllowed = false; setMode('move'); });
  setMode('draw');

  // ---- Undo and Clear ----
  function undo() {
    if (!room.sync || !mayDraw() || room.drawing()) return;
    room.sync.send({ type: 'undo' });
  }
  $('room-undo').addEventListener('click', undo);
  $('view-room').addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z' && !e.target.closest('input, textarea')) {
      e.preventDefault();
      undo();
    }
  });

  // Clear empties the room for everyone: it asks first, with Cancel first in line.
  $('room-clear').addEventListener('click', () => {
    if (role() !== 'owner' || !mayDraw()) return;
    $('room-dialog-clear').showModal();
    $('room-clear-cancel').focus();
  });
  $('room-clear-cancel').addEventListener('click', () => $('room-dialog-clear').close());
  $('room-clear-confirm').addEventListener('click', () => {
    $('room-dialog-clear').close();
    room.sync?.send({ type: 'clear' });
    say('Cleared the room for everyone.');
  });

  return {
    /** Shows, hides, enables and disables the tools for what this person may do now. */
    updateTools,
    /** 'draw' or 'move': what a finger on the view does. */
    get mode() { return mode; },
    /** The colour picked, as #rrggbb. */
    get color() { return color; },
    /** The brush picked: a stroke's width in metres. */
    get width() { return width; },
  };
}
