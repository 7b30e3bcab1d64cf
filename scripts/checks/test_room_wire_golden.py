"""The rooms wire codec's golden files (Tests/Fixtures/rooms-wire), written and checked by the Swift
tests (RoomWireGoldenTests), read here by the checks' reader (proteinar_testing/compact_snapshot.py)
and by the web app's (Web/js/compact-snapshot.js, through node)."""
import json
import os
import subprocess

from proteinar_testing.compact_snapshot import expand

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "Tests", "Fixtures", "rooms-wire")


def golden(name):
    with open(os.path.join(GOLDEN, name), encoding="utf-8") as f:
        return f.read()


def test_compact_snapshot_expands_to_the_client_snapshot():
    assert expand(json.loads(golden("compact-snapshot.json"))) == json.loads(golden("client-snapshot.json"))


def test_stored_snapshot_holds_the_same_room():
    stored, client = json.loads(golden("stored-snapshot.json")), json.loads(golden("client-snapshot.json"))
    assert {k: stored[k] for k in ("sequence", "strokes", "notes", "molecule", "presentation")} == client
    assert stored["recentOrder"] == list(stored["recent"])


def test_stored_operations_replay_to_the_room():
    operations = [json.loads(line) for line in golden("stored-operations.jsonl").splitlines() if line]
    assert [op["sequence"] for op in operations] == list(range(1, len(operations) + 1))
    client = json.loads(golden("client-snapshot.json"))
    strokes = {}
    for op in operations:
        o = op["operation"]
        if o["type"] == "add-stroke":
            strokes[o["id"]] = {"id": o["id"], "author": op["author"], "color": o["color"], "width": o["width"], "points": o["points"]}
        elif o["type"] == "extend-stroke":
            strokes[o["id"]]["points"] += o["points"]
    assert list(strokes.values()) == client["strokes"]


def test_live_messages_carry_the_codec_forms():
    def message(name):
        return json.loads(golden(f"message-{name}.json"))
    client = json.loads(golden("client-snapshot.json"))
    welcome = message("welcome")
    assert welcome["type"] == "welcome" and welcome["snapshot"] == client and welcome["sequence"] == client["sequence"]
    deflated = message("welcome-deflated")
    assert deflated["snapshot"] is None and deflated["snapshotFrame"]["format"] == "compact-1"
    first = json.loads(golden("stored-operations.jsonl").splitlines()[0])
    op = message("op")
    assert op.pop("type") == "op" and op == first
    assert message("ack") == {"type": "ack", "clientOpID": first["clientOpID"], "sequence": first["sequence"], "duplicate": False}
    assert message("error")["code"] == "forbidden" and message("room-settings")["you"]["role"] == "guest"


def test_web_app_reader_agrees():
    result = subprocess.run(["node", os.path.join(ROOT, "scripts", "checks", "rooms", "wire-golden.mjs")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
