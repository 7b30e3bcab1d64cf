"""6. A full public room's model, asked for anonymously: bounded, and cached by sequence.
7. 2,000 anonymous watchers in one public room: with the default caps, and with the caps raised to
   2,000: bytes the server sends while they join, and its memory after they leave."""
import concurrent.futures
import http.client
import json
import threading
import time

from proteinar_testing import attack_sockets as sockets
from proteinar_testing import attack_files as files
from proteinar_testing import attack_tools as tools
from proteinar_testing.accounts import Account, make_room, rid

MB = 1_000_000
FILL_SECONDS = 25          # how long one account may add strokes
POINTS_PER_MESSAGE = 500
ROOM_TRIANGLES = 300_000
WATCHERS = 2_000


def fill_room(server, owner, room):
    """Adds strokes of 500 points over HTTP (kept-alive connections, four threads) for up to
    FILL_SECONDS or until the room or the server refuses: the thinnest strokes allowed, their points
    scattered over a 10 m box, so that no point can be merged into its neighbour. Returns
    ({ops, points, refusals}, seconds)."""
    stop = threading.Event()
    lock = threading.Lock()
    totals = {"ops": 0, "points": 0, "refusals": {}}
    deadline = time.monotonic() + FILL_SECONDS

    def worker(_):
        rng = tools.rng()
        conn = None
        while not stop.is_set() and time.monotonic() < deadline:
            pts = [[round(rng.uniform(-5, 5), 3), round(rng.uniform(0, 5), 3), round(rng.uniform(-5, 5), 3)]
                   for _ in range(POINTS_PER_MESSAGE)]
            body = json.dumps({"clientOpID": rid("c"), "operation": {"type": "add-stroke", "id": rid("s"), "points": pts,
                                                                      "color": "#%06x" % rng.getrandbits(24), "width": 0.0005}})
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60, source_address=("127.0.0.2", 0))
                conn.request("POST", f"/api/rooms/{room}/operations", body=body,
                             headers={"Authorization": f"Bearer {owner.token}", "Content-Type": "application/json"})
                resp = conn.getresponse()
                raw = resp.read()
                status, retry = resp.status, resp.headers.get("Retry-After")
            except (OSError, http.client.HTTPException) as e:
                conn, status, raw, retry = None, 0, f"{type(e).__name__}: {e}".encode(), None
            if status == 200:
                with lock:
                    totals["ops"] += 1
                    totals["points"] += len(pts)
                continue
            with lock:
                key = f"{status} {' '.join(raw.decode(errors='replace').split())[:80]}"
                totals["refusals"][key] = totals["refusals"].get(key, 0) + 1
                repeated = totals["refusals"][key]
            if status in (429, 503) and repeated <= 20:
                time.sleep(min(5.0, float(retry or 1)))
            else:
                stop.set()
        if conn is not None:
            conn.close()

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(worker, range(4)))
    return totals, time.monotonic() - started


def check_room_model(a):
    s = a.serve()
    (owner,) = a.admin_then(s, "Drawer")
    made = tools.request(s, "POST", "/api/rooms", {"name": "full room", "isPublic": True, "moleculeID": "4JSV", "style": "spacefill"},
                         token=owner.token)
    a.check("a public room with a molecule (201)", made.status == 201, f"got {made.status} {tools.message(made)}")
    room = made.json["id"]
    totals, took = fill_room(s, owner, room)
    refusals = "; ".join(f"{n}× {k}" for k, n in totals["refusals"].items()) or "none"
    a.figure(f"one account added {totals['ops']} operations ({totals['points']:,} points) in {took:.1f} s "
             f"(0.5 mm wide, points scattered; molecule 4JSV, spacefill); refusals: {refusals}")
    a.check("the room was filled (at least 100,000 points)", totals["points"] >= 100_000, f"{totals['points']} points")
    first = tools.try_request(s, "GET", f"/api/rooms/{room}/model.usdz", source="127.0.0.3", timeout=300)
    peak = a.peak_now(s)
    a.figure(f"anonymous GET model.usdz: HTTP {first.status}, {len(first.raw) / MB:.1f} MB in {first.elapsed:.1f} s; "
             f"peak RSS so far {peak:.0f} MB", table=f"USDZ {len(first.raw) / MB:.1f} MB in {first.elapsed:.1f} s")
    a.check("the room's model answers (200) with a bounded size (under 64 MB)",
            first.status == 200 and len(first.raw) < 64 * MB, f"HTTP {first.status}, {len(first.raw) / MB:.1f} MB")
    second = tools.try_request(s, "GET", f"/api/rooms/{room}/model.usdz", source="127.0.0.3", timeout=300)
    a.figure(f"the same model again: {second.elapsed:.2f} s", table=f"again {second.elapsed:.2f} s")
    a.check("a second request is fast (cached by sequence: under 1 s)",
            second.status == 200 and second.elapsed < 1.0 and second.raw == first.raw, f"HTTP {second.status} in {second.elapsed:.2f} s")
    if first.status == 200 and len(first.raw) < 64 * MB:
        glb = tools.try_request(s, "GET", f"/api/rooms/{room}/model.glb", source="127.0.0.3", timeout=300)
        triangles = files.glb_triangles(glb.raw) if glb.status == 200 else None
        a.figure(f"GET model.glb: HTTP {glb.status}, {len(glb.raw) / MB:.1f} MB, {triangles} triangles in {glb.elapsed:.1f} s")
        a.check(f"the room's GLB holds at most {ROOM_TRIANGLES:,} triangles", triangles is not None and triangles <= ROOM_TRIANGLES,
                f"HTTP {glb.status}, {triangles} triangles")
    else:
        a.check(f"the room's GLB holds at most {ROOM_TRIANGLES:,} triangles", False, "not tried: the USDZ was not bounded")


def watchers(a, extra, label, source):
    """WATCHERS anonymous sockets join a public room of a fresh server; the figures and checks."""
    s = a.serve(extra=extra, nofile=WATCHERS * 2 + 1000, name=f"attack7-{label.split()[0]}")
    owner = Account(s, "Host")
    room = make_room(s, owner, "lecture", public=True)
    time.sleep(0.5)
    rss_before = tools.rss_mb(s.pid)
    sent_before = tools.bytes_written(s.pid)
    pool = sockets.Watchers(s.port, f"/api/rooms/{room}/live", WATCHERS, source=source).join(deadline=90)
    pool.drain(2.0)
    sent = tools.bytes_written(s.pid) - sent_before
    rss_joined = tools.rss_mb(s.pid)
    still_open = pool.open_count()
    pool.close()
    # Memory after they leave: give the server a moment to see every close and give memory back
    # (at least 3 s, then until two readings half a second apart agree within 1 MB; at most 10 s).
    rss_after = previous = None
    for step in range(20):
        time.sleep(0.5)
        rss_after = tools.rss_mb(s.pid)
        if step >= 5 and rss_after is not None and previous is not None and abs(previous - rss_after) < 1:
            break
        previous = rss_after
    refusals = "; ".join(f"{n}× {what}" for n, what in pool.refusals())
    a.figure(f"{label}: {pool.admitted} of {WATCHERS} admitted in {pool.join_seconds:.1f} s ({still_open} still open after 2 s); "
             f"refused: {refusals or 'none'}")
    a.figure(f"{label}: the server sent {sent / MB:.1f} MB while they joined (clients received {pool.received / MB:.1f} MB); "
             f"RSS {rss_before:.0f} MB before, {rss_joined:.0f} MB with them, {rss_after:.0f} MB after they left",
             table=f"{label}: {pool.admitted} in, sent {sent / MB:.1f} MB, RSS {rss_before:.0f}→{rss_after:.0f} MB")
    a.check(f"{label}: the server sends under 100 MB while they join", sent < 100 * MB, f"{sent / MB:.0f} MB")
    a.check(f"{label}: RSS back within 100 MB of its start after they leave",
            rss_after is not None and rss_after - rss_before <= 100, f"{rss_before:.0f} → {rss_after:.0f} MB")
    a.stop_probe(s)
    s.close()
    return pool


def check_watchers(a):
    tools.raise_open_file_limit(WATCHERS * 2 + 1000)
    pool = watchers(a, [], "defaults", "127.0.0.3")
    a.check("defaults: the caps refuse most of 2,000 (at most 100 admitted from one address)", pool.admitted <= 100,
            f"{pool.admitted} admitted")
    a.check("defaults: every refusal says why (an error message, or an HTTP status)",
            all(w.startswith("error ") or w.startswith("HTTP ") or w.startswith("closed without an answer: HTTP")
                for _, w in pool.refusals(top=100)), "; ".join(f"{n}× {w}" for n, w in pool.refusals()))
    raised = ["--sockets-per-room", str(WATCHERS), "--sockets-per-address", str(WATCHERS)]
    # Every socket is a connection too: the connection caps are raised with them.
    raised += ["--max-connections", str(WATCHERS + 100), "--connections-per-address", str(WATCHERS + 100)]
    pool = watchers(a, raised, "caps 2,000", "127.0.0.4")
    a.check("caps raised to 2,000: all 2,000 admitted", pool.admitted == WATCHERS, f"{pool.admitted} admitted")
