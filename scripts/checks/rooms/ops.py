"""The room's state as a client builds it from operations, and the operations the checks send."""
from proteinar_testing.report import Fail, short


def empty_state():
    return {"sequence": 0, "strokes": [], "notes": [], "molecule": None}


def canonical(state):
    """The parts of a state the protocol defines, in a form that compares exactly."""
    return {"sequence": state.get("sequence"),
            "strokes": [{k: s.get(k) for k in ("id", "author", "color", "width", "points")} for s in state.get("strokes", [])],
            "notes": [{k: n.get(k) for k in ("id", "author", "text", "anchor")} for n in state.get("notes", [])],
            "molecule": state.get("molecule")}


def apply(state, op):
    """Applies one logged operation as a client does; raises on a gap or a repeat."""
    if op["sequence"] != state["sequence"] + 1:
        raise Fail(f"operation {op['sequence']} after {state['sequence']}: expected {state['sequence'] + 1} (a gap or a repeat)")
    o, author = op["operation"], op["author"]
    t = o["type"]
    if t == "add-stroke":
        state["strokes"].append({"id": o["id"], "author": author, "color": o["color"], "width": o["width"], "points": list(o["points"])})
    elif t == "extend-stroke":
        for s in reversed(state["strokes"]):
            if s["id"] == o["id"]:
                s["points"] = s["points"] + list(o["points"])
                break
    elif t == "remove-stroke":
        state["strokes"] = [s for s in state["strokes"] if s["id"] != o["id"]]
    elif t == "clear":
        state["strokes"], state["notes"] = [], []
    elif t == "add-note":
        state["notes"].append({"id": o["id"], "author": author, "text": o["text"], "anchor": o["anchor"]})
    elif t == "remove-note":
        state["notes"] = [n for n in state["notes"] if n["id"] != o["id"]]
    elif t == "set-molecule":
        state["molecule"] = o.get("molecule")
    else:
        raise Fail(f"a logged operation of type {t!r}: {short(op)}")
    state["sequence"] = op["sequence"]


def state_diff(before, after):
    """The first difference between two states, in words."""
    for key in sorted(set(before) | set(after)):
        x, y = before.get(key), after.get(key)
        if x == y:
            continue
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return f"{key}: {len(x)} → {len(y)} items"
            i = next(i for i, (p, q) in enumerate(zip(x, y)) if p != q)
            return f"{key}[{i}]: {short(x[i], 150)} → {short(y[i], 150)}"
        return f"{key}: {short(x, 150)} → {short(y, 150)}"
    return "no difference"


def pt(i, z=0.0):
    return [round(0.01 * i, 4), round(0.5 + 0.001 * i, 4), z]


def stroke(sid, n=2, start=0, color="#3366ff", width=0.005):
    return {"type": "add-stroke", "id": sid, "points": [pt(start + i) for i in range(n)], "color": color, "width": width}


def extend(sid, n=2, start=10):
    return {"type": "extend-stroke", "id": sid, "points": [pt(start + i) for i in range(n)]}


def same_ops(a, b):
    return [(o["sequence"], o["author"], o["clientOpID"], o["operation"]) for o in a] == \
           [(o["sequence"], o["author"], o["clientOpID"], o["operation"]) for o in b]


def contiguous(ops, after):
    seqs = [o["sequence"] for o in ops]
    return seqs == list(range(after + 1, after + 1 + len(seqs)))
