// The compact form of a whole room (docs/rooms-protocol.md, `snapshot=compact` and `=deflated`),
// read: the wire codec of room snapshots, apart from the connection that receives them
// (room-sync.js). scripts/proteinar_testing/compact_snapshot.py reads it the same way for the checks.

// Whether this browser inflates raw DEFLATE itself (DecompressionStream 'deflate-raw': Chrome 103,
// Safari 16.4, Firefox 113): then a whole room comes compressed once by the server for every
// joiner (permessage-deflate only passes over it), which makes a late joiner live sooner.
export const INFLATES = (() => {
  try { return typeof DecompressionStream === 'function' && !!new DecompressionStream('deflate-raw'); } catch { return false; }
})();

/** The compact snapshot in a binary frame (`snapshot=deflated`): raw DEFLATE of its JSON text. */
export async function inflateSnapshot(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return JSON.parse(await new Response(stream).text());
}

/**
 * A snapshot as the server sends it on request (`snapshot=compact`, docs/rooms-protocol.md) made
 * plain: authors and colours from their lists, and each `q` (whole numbers of 0.1 mm, the first
 * point as it is, then steps) back to points in metres. k / 10000 is the same number the server
 * holds, so the room is exactly the server's. A plain snapshot is returned as it is.
 */
export function expandSnapshot(snapshot) {
  if (snapshot?.format !== 'compact-1') return snapshot;
  const strokes = snapshot.strokes.map((s) => {
    let points = s.points;
    if (!points) {
      // q: each point is the step from the one before; r: after the first step, each number is
      // the change of step (the first point counts as a step from 0 in both).
      const numbers = s.q ?? s.r, changes = !s.q;
      points = [];
      let x = 0, y = 0, z = 0, dx = 0, dy = 0, dz = 0;
      for (let i = 0; i + 2 < numbers.length; i += 3) {
        if (changes && i >= 6) { dx += numbers[i]; dy += numbers[i + 1]; dz += numbers[i + 2]; }
        else { dx = numbers[i]; dy = numbers[i + 1]; dz = numbers[i + 2]; }
        x += dx; y += dy; z += dz;
        points.push([x / 1e4, y / 1e4, z / 1e4]);
      }
    }
    return { id: s.id, author: snapshot.authors[s.a], color: snapshot.colors[s.c], width: s.w, points };
  });
  return { sequence: snapshot.sequence, strokes, notes: snapshot.notes, molecule: snapshot.molecule ?? null,
    presentation: snapshot.presentation ?? null };
}
