#!/usr/bin/env python3
"""A late joiner into a big room: how long until it is live (its welcome received and the room's
state built from it) and how many bytes it took on the wire, for each way the server can send
the snapshot: plain JSON (what the server sent before issue 18), the compact form
(`?snapshot=compact`, docs/rooms-protocol.md), the compact form with permessage-deflate, and the
compact form deflated once by the server and sent as a binary frame (`?snapshot=deflated`, what
the web app asks for in a browser that inflates raw DEFLATE itself).

    scripts/benchmarks/benchmark-late-joiner.py PROTEINAR_BIN [--strokes 10000] [--points 10,30] [--runs 5] [--no-browser]

For each --points value, a new room gets --strokes strokes of that many points each, drawn as a
pen draws (each point a few millimetres from the one before, on the web app's 0.1 mm grid), sent
over 20 sockets. Then a new Python client joins --runs times each way; the time is from opening
the socket to the state built (Python's json, then the compact form expanded as room-sync.js
does), the bytes are what the server sent until the snapshot was in, counted by a TCP relay in
between (the times are taken without the relay). Then the web app's own client (room-sync.js)
joins in headless Chromium, timed in the page: the figure a person sees. Prints medians and a
markdown table."""
import argparse, asyncio, json, os, random, statistics, sys, time

import scripts_path  # noqa: E402,F401  (scripts/ on sys.path, for proteinar_testing)
from proteinar_testing.venv import require  # noqa: E402

require(__file__, ["websockets"], "benchmark-late-joiner: websockets")
from websockets.asyncio.client import connect as ws_connect  # noqa: E402
from proteinar_testing.accounts import Account, make_room  # noqa: E402
from proteinar_testing.compact_snapshot import expand, inflate  # noqa: E402
from proteinar_testing.server import ServerProcess  # noqa: E402


async def fill(url, strokes, points, seed):
    """`strokes` strokes of `points` points over 20 sockets, each under the server's 60 messages a second."""
    rng = random.Random(seed)
    per = [list(range(i, strokes, 20)) for i in range(20)]

    async def one(indices):
        async with ws_connect(url, max_size=2 ** 26) as ws:
            welcome = json.loads(await ws.recv())
            if welcome.get("type") != "welcome":
                raise SystemExit(f"filling the room: {welcome}")
            for n, k in enumerate(indices):
                x, y, z = rng.uniform(-0.5, 0.5), rng.uniform(0, 1), rng.uniform(-0.5, 0.5)
                dx, dy, dz = (rng.uniform(-0.004, 0.004) for _ in range(3))
                pts = []
                for _ in range(points):
                    x, y, z = x + dx, y + dy, z + dz
                    dx += rng.uniform(-0.001, 0.001); dy += rng.uniform(-0.001, 0.001); dz += rng.uniform(-0.001, 0.001)
                    pts.append([round(x, 4), round(y, 4), round(z, 4)])
                op = {"type": "add-stroke", "id": f"s{k}", "points": pts, "color": rng.choice(["#3366ff", "#ff6633", "#22aa55"]), "width": 0.004}
                await ws.send(json.dumps({"type": "op", "clientOpID": f"f{k}", "operation": op}))
                if n % 10 == 9 or n == len(indices) - 1:
                    while True:  # wait for the acks, so the rate limit is never met
                        m = json.loads(await ws.recv())
                        if m.get("type") == "ack" and m["clientOpID"] == f"f{k}":
                            break
                        if m.get("type") == "error":
                            raise SystemExit(f"filling the room: {m}")
                    await asyncio.sleep(0.15)
            await ws.send(json.dumps({"type": "presence", "view": {"position": [0, 0, 1], "target": [0, 0, 0]}}))
    await asyncio.gather(*(one(p) for p in per))


class Relay:
    """A TCP relay that counts the bytes the server sends."""
    def __init__(self, port):
        self.port, self.down = port, 0

    async def start(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def handle(self, reader, writer):
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.port)

        async def pipe(src, dst, count):
            try:
                while data := await src.read(65536):
                    if count:
                        self.down += len(data)
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                dst.close()
        await asyncio.gather(pipe(reader, up_w, False), pipe(up_r, writer, True))


async def join(url, deflate):
    t0 = time.perf_counter()
    async with ws_connect(url, max_size=2 ** 26, compression="deflate" if deflate else None) as ws:
        text = await ws.recv()
        welcome = json.loads(text)
        if welcome.get("snapshotFrame"):
            # snapshot=deflated: the compact snapshot as a binary frame of raw DEFLATE, then the
            # operations after it (none here: nobody draws while the joiners come).
            snapshot = inflate(await ws.recv())
            text_bytes = welcome["snapshotFrame"]["textBytes"]
            if snapshot["sequence"] != welcome["sequence"]:
                raise SystemExit(f"the snapshot frame is at {snapshot['sequence']}, the room at {welcome['sequence']}")
        else:
            snapshot, text_bytes = welcome["snapshot"], len(text)
        state = expand(snapshot)
        state.setdefault("molecule", None)
        seconds = time.perf_counter() - t0
    return seconds, state, text_bytes


async def measure(server, room, token, runs):
    base = f"ws://127.0.0.1:{server.port}/api/rooms/{room}/live"
    relay = Relay(server.port)
    relay_port = await relay.start()
    out = {}
    reference = None
    for name, query, deflate in (("plain JSON", "", False), ("compact", "&snapshot=compact", False),
                                 ("compact + permessage-deflate", "&snapshot=compact", True),
                                 ("deflated once + permessage-deflate", "&snapshot=deflated", True)):
        times = []
        for _ in range(runs):
            seconds, state, text_bytes = await join(f"{base}?guest=late-joiner-{random.getrandbits(48):012x}{query}", deflate)
            times.append(seconds)
            if reference is None:
                reference = state
            elif state != reference:
                raise SystemExit(f"{name}: the state differs from the plain snapshot's")
        relay.down = 0
        await join(f"ws://127.0.0.1:{relay_port}/api/rooms/{room}/live?guest=late-joiner-{random.getrandbits(48):012x}{query}", deflate)
        out[name] = (statistics.median(times), min(times), max(times), relay.down, text_bytes)
    relay.server.close()
    return out, reference


# The web app's own client as the room screen opens a room (the room's summary over HTTP, then
# room-sync.js's RoomSync), timed in the page until it is live with the state at the welcome's
# sequence, whichever form the snapshot came in. Each run joins as a new guest; the first run is reported apart (it may write
# and compress the snapshot, later ones find it kept).
BROWSER_JOIN = r"""
const [roomID, guestBase, runs, done] = arguments;
(async () => {
  const { RoomSync } = await import('/js/room-sync.js');
  const times = [];
  let strokes = 0, points = 0, form = '';
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    // As the room screen opens a room: its summary over HTTP, then the live socket.
    const summary = await fetch(`/api/rooms/${roomID}?state=none`);
    if (!summary.ok) throw new Error(`GET the room: HTTP ${summary.status}`);
    await summary.json();
    const sync = new RoomSync(roomID, { guest: guestBase + i });
    await new Promise((resolve, reject) => {
      // Live: welcomed, and the state at the welcome's sequence (a kept snapshot's operations since applied).
      const caughtUp = () => { if (sync.status === 'live' && sync.state.sequence >= sync.room.sequence) resolve(); };
      sync.addEventListener('change', caughtUp);
      sync.addEventListener('status', (e) => { if (e.detail.state === 'failed') reject(new Error(sync.failure)); else caughtUp(); });
      sync.connect();
    });
    times.push(performance.now() - t0);
    form = sync._socket.url.includes('snapshot=deflated') ? 'deflated' : 'compact';
    strokes = sync.state.strokes.size;
    points = [...sync.state.strokes.values()].reduce((n, s) => n + s.points.length, 0);
    sync.close();
  }
  return { times, strokes, points, form };
})().then(done, (e) => done({ error: String(e) }));
"""


def browser_joins(server, room, runs):
    """Times in headless Chromium (None when it is not here): first run, median of the next `runs`."""
    from proteinar_testing.browser import Browser
    import shutil
    if not shutil.which("chromedriver"):
        print("  (no chromedriver: the browser's times are left out)")
        return None
    browser = Browser()
    try:
        browser.go(f"http://127.0.0.1:{server.port}/")
        browser.wd("POST", browser.s + "/timeouts", {"script": 120_000})
        out = browser.js_async(BROWSER_JOIN, room, f"late-joiner-browser-{random.getrandbits(32):08x}-", runs + 1)
    finally:
        browser.close()
    if "error" in out:
        raise SystemExit(f"the browser's join failed: {out['error']}")
    times = [t / 1000 for t in out["times"]]
    return times[0], statistics.median(times[1:]), min(times[1:]), max(times[1:]), out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary")
    p.add_argument("--strokes", type=int, default=10_000)
    p.add_argument("--points", default="10,30", help="points per stroke, one room for each value")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--no-browser", action="store_true", help="leave out the web app's client in headless Chromium")
    args = p.parse_args()
    server = ServerProcess(args.binary, starter=False, name="late-joiner",
                           extra=["--connections-per-address", "500", "--sockets-per-address", "500"])
    rows = []
    try:
        for points in [int(x) for x in args.points.split(",")]:
            owner = Account(server, "Owner")
            room = make_room(server, owner, f"late joiner {points}", public=True, guests_may_draw=True)
            t = time.monotonic()
            asyncio.run(fill(f"ws://127.0.0.1:{server.port}/api/rooms/{room}/live?guest=filling-the-room-{points:04d}", args.strokes, points, points))
            print(f"{args.strokes} strokes of {points} points in {time.monotonic() - t:.0f} s", flush=True)
            # The browser first, so that its first join finds no snapshot kept: it waits for the
            # server to write and compress one (what the first of a class pays).
            joined = None if args.no_browser else browser_joins(server, room, args.runs)
            results, state = asyncio.run(measure(server, room, owner.token, args.runs))
            assert len(state["strokes"]) == args.strokes, len(state["strokes"])
            for name, (median, low, high, wire, text_bytes) in results.items():
                print(f"  Python, {name}: live in {median * 1000:.0f} ms (median of {args.runs}; {low * 1000:.0f}–{high * 1000:.0f}), "
                      f"{wire / 1024:.0f} KiB on the wire ({text_bytes / 1024:.0f} KiB of text)", flush=True)
                rows.append((f"{args.strokes:,} × {points} points", f"Python, {name}", median, wire, text_bytes))
            if joined:
                first, median, low, high, out = joined
                want = sum(len(s["points"]) for s in state["strokes"])
                if out["strokes"] != args.strokes or out["points"] != want:
                    raise SystemExit(f"the browser built {out['strokes']} strokes, {out['points']} points; the room has {args.strokes}, {want}")
                wire, text_bytes = results["deflated once + permessage-deflate" if out["form"] == "deflated" else "compact + permessage-deflate"][3:]
                print(f"  browser (room-sync.js, {out['form']}): live in {median * 1000:.0f} ms (median of {args.runs}; "
                      f"{low * 1000:.0f}–{high * 1000:.0f}); the first join, the snapshot written and compressed for it, {first * 1000:.0f} ms", flush=True)
                rows.append((f"{args.strokes:,} × {points} points", f"browser, {out['form']}", median, wire, text_bytes))
                rows.append((f"{args.strokes:,} × {points} points", f"browser, {out['form']}, the first join (nothing kept)", first, wire, text_bytes))
    finally:
        server.stop()
    print(f"\n| room | snapshot | live in (median of {args.runs}) | bytes on the wire | text |\n| --- | --- | --- | --- | --- |")
    for room, name, median, wire, text_bytes in rows:
        print(f"| {room} | {name} | {median * 1000:.0f} ms | {wire / 1024:.0f} KiB | {text_bytes / 1024:.0f} KiB |")


if __name__ == "__main__":
    main()
