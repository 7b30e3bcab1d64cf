"""The compact snapshot (`snapshot=compact` or `deflated` on the live socket, docs/rooms-protocol.md)
made plain, as compact-snapshot.js's expandSnapshot does: for checks and benchmarks to compare with the
plain state."""
import json
import zlib
from itertools import accumulate


def inflate(frame):
    """The compact snapshot in a `snapshot=deflated` binary frame (raw DEFLATE of its JSON)."""
    return json.loads(zlib.decompressobj(-15).decompress(frame))


def expand(snapshot):
    """A state ({sequence, strokes, notes, molecule, presentation}) from a compact snapshot; a plain one as it is."""
    if snapshot.get("format") != "compact-1":
        return snapshot
    strokes = []
    for s in snapshot["strokes"]:
        points = s.get("points")
        if points is None:
            numbers = s.get("q", s.get("r"))
            n = len(numbers) // 3
            axes = []
            for axis in range(3):
                values = numbers[axis::3][:n]
                if "q" not in s and n > 2:
                    # r: the first point, the first step, then each step's change: steps first.
                    values = values[:1] + list(accumulate(values[1:]))
                axes.append([v / 1e4 for v in accumulate(values)])
            points = [list(p) for p in zip(*axes)]
        strokes.append({"id": s["id"], "author": snapshot["authors"][s["a"]], "color": snapshot["colors"][s["c"]],
                        "width": s["w"], "points": points})
    return {"sequence": snapshot["sequence"], "strokes": strokes, "notes": snapshot["notes"], "molecule": snapshot.get("molecule"),
            "presentation": snapshot.get("presentation")}
