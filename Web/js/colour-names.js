// Colours as words, for the drawing room's colour tools: a screen reader says "Colour: orange"
// where a sighted person sees the swatch, and the hue slider turns a position into a colour.

// Where each hue name starts, in degrees round the colour wheel; the names are the ones people use
// for paint, not a standard's, so "teal" and "pink" rather than "cyan 180°".
const HUES = [[0, 'red'], [15, 'orange'], [45, 'yellow'], [70, 'lime green'], [95, 'green'], [160, 'teal'],
  [188, 'sky blue'], [205, 'blue'], [255, 'purple'], [290, 'magenta'], [330, 'pink'], [350, 'red']];

/** The hue slider's colour: full enough to read against the white view, dark enough for the tubes. */
export function hueColor(degrees) {
  return hslToHex(((degrees % 360) + 360) % 360, 0.8, 0.45);
}

/** A name a person would give the colour `hex` (#rrggbb): "dark blue", "light orange", "grey". */
export function colourName(hex) {
  const { h, s, l } = hexToHsl(hex);
  if (l < 0.12) return 'black';
  if (l > 0.92) return 'white';
  if (s < 0.15) return l < 0.35 ? 'dark grey' : l > 0.7 ? 'light grey' : 'grey';
  let name = HUES[0][1];
  for (const [start, hue] of HUES) if (h >= start) name = hue;
  // Dark orange is what people call brown.
  if (name === 'orange' && l < 0.35) return 'brown';
  if (l < 0.3) return `dark ${name}`;
  if (l > 0.72) return `light ${name}`;
  return name;
}

export function hexToHsl(hex) {
  const n = parseInt(hex.replace('#', ''), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => v / 255);
  const max = Math.max(r, g, b), min = Math.min(r, g, b);
  const l = (max + min) / 2;
  const d = max - min;
  if (d === 0) return { h: 0, s: 0, l };
  const s = d / (1 - Math.abs(2 * l - 1));
  let h;
  if (max === r) h = ((g - b) / d) % 6;
  else if (max === g) h = (b - r) / d + 2;
  else h = (r - g) / d + 4;
  return { h: (h * 60 + 360) % 360, s, l };
}

function hslToHex(h, s, l) {
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((h / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] = h < 60 ? [c, x, 0] : h < 120 ? [x, c, 0] : h < 180 ? [0, c, x] : h < 240 ? [0, x, c] : h < 300 ? [x, 0, c] : [c, 0, x];
  return `#${[r, g, b].map((v) => Math.round((v + m) * 255).toString(16).padStart(2, '0')).join('')}`;
}
