#!/usr/bin/env python3
"""Draws ProteinAR's app icon, a white "P" on a pink-to-mauve square (the original app's colours),
and writes the PNGs the web app's manifest names into Web/icons/:

  icon-192.png, icon-512.png   a rounded square, transparent corners (browsers show it as is)
  maskable-512.png             the same colours to every edge, the "P" inside the middle 80 %
                               circle that Android may cut out (a circle, a squircle, ...)
  apple-touch-icon.png         180 px, square and opaque: iOS rounds the corners itself

Pure Python (zlib for the PNG), no image library: every shape is a signed distance, and a pixel's
coverage is how far its centre lies inside, so the edges come out smooth without supersampling.
Run it again after changing a colour or a shape; the committed PNGs are what the server serves.
"""
import math, os, struct, sys, zlib

PINK = (0xe0, 0x55, 0x9a)
MAUVE = (0x91, 0x5f, 0x9e)
WHITE = (255, 255, 255)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Web", "icons")


def png(path, width, height, rows):
    """rows: a list of bytes objects, RGBA, width * 4 long each."""
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 on every row
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def rounded_square(x, y, half, radius):
    """Signed distance (negative inside) to a square of half-side `half` centred at 0 with round corners."""
    qx, qy = abs(x) - half + radius, abs(y) - half + radius
    outside = math.hypot(max(qx, 0), max(qy, 0))
    return outside + min(max(qx, qy), 0) - radius


def segment(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def letter_p(x, y):
    """Signed distance to a bold "P" in a 1 × 1 box centred at 0 (y down), drawn as strokes: the
    stem, and the bowl as a straight top and bottom joined by a half circle."""
    w = 0.17                        # stroke width
    left, top, bottom = -0.24, -0.38, 0.40
    bowl_bottom, bowl_right = 0.08, 0.06
    r = (bowl_bottom - top) / 2     # the half circle's radius, through the centre of the strokes
    stem = max(abs(x - (left + w / 2)) - w / 2, abs(y - (top + bottom) / 2) - (bottom - top) / 2)
    cy = top + r
    if x <= bowl_right:
        # From the stem's middle, so the strokes' round ends hide inside the stem.
        d = min(segment(x, y, left + w / 2, top + w / 2, bowl_right, top + w / 2),
                segment(x, y, left + w / 2, bowl_bottom - w / 2, bowl_right, bowl_bottom - w / 2))
    else:
        d = abs(math.hypot(x - bowl_right, y - cy) - (r - w / 2))
    bowl = d - w / 2
    return min(stem, bowl)


def draw(size, *, corner, letter_scale, opaque):
    rows = []
    for j in range(size):
        row = bytearray()
        for i in range(size):
            # Centred coordinates in units of the icon's side.
            x, y = (i + 0.5) / size - 0.5, (j + 0.5) / size - 0.5
            t = max(0.0, min(1.0, (x + y) / 2 + 0.5))  # pink at the top left, mauve at the bottom right
            colour = [PINK[k] + (MAUVE[k] - PINK[k]) * t for k in range(3)]
            inside = 1.0 if opaque else max(0.0, min(1.0, 0.5 - rounded_square(x, y, 0.5, corner) * size))
            ink = max(0.0, min(1.0, 0.5 - letter_p(x / letter_scale, y / letter_scale) * letter_scale * size))
            rgb = [round(c + (WHITE[k] - c) * ink) for k, c in enumerate(colour)]
            row += bytes(rgb + [round(255 * inside)])
        rows.append(bytes(row))
    return rows


def main():
    os.makedirs(OUT, exist_ok=True)
    icons = [("icon-192.png", 192, dict(corner=0.22, letter_scale=0.8, opaque=False)),
             ("icon-512.png", 512, dict(corner=0.22, letter_scale=0.8, opaque=False)),
             # The safe zone of a maskable icon is the circle of 40 % radius: the letter fits in it.
             ("maskable-512.png", 512, dict(corner=0.0, letter_scale=0.6, opaque=True)),
             ("apple-touch-icon.png", 180, dict(corner=0.0, letter_scale=0.75, opaque=True))]
    for name, size, style in icons:
        png(os.path.join(OUT, name), size, size, draw(size, **style))
        print(f"wrote Web/icons/{name} ({size} px)", file=sys.stderr)


if __name__ == "__main__":
    main()
