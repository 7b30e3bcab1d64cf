#!/usr/bin/env python3
"""A late joiner into a big room: how long until it is live (its welcome received and the room's
state built from it) and how many bytes it took on the wire, for each way the server can send
the snapshot: plain JSON (what the server sent before issue 18), the compact form
(`?snapshot=compact`, docs/rooms-protocol.md), and the compact form with permessage-deflate (what
the web app gets in a browser, which always offers it).

    scripts/benchmarks/benchmark-late-joiner.py PROTEINAR_BIN [--strokes 10000] [--points 10,30] [--runs 5]

For each --points value, a new room gets --strokes strokes of that many points each, drawn as a
pen draws (each point a few millimetres from the one before, on the web app's 0.1 mm grid), sent
over 20 sockets. Then a new client joins --runs times each way; the time is from opening the
socket to the state built (Python's json, then the compact form expanded as room-sync.js does),
the bytes are what the server sent until the welcome was in, counted by a TCP relay in between
(the times are taken without the relay). Prints medians and a markdown table."""
import argparse, asyncio, json, os, random, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.venv import require  # noqa: E402

require(__file__, ["websockets"], "benchmark-late-joiner: websockets")
from websockets.asyncio.client import connect as ws_connect  # noqa: E402
from proteinar_testing.accounts import Account, make_room  # noqa: E402
from proteinar_testing.server import ServerProcess  # noqa: E402


def expand(snapshot):
    """The compact snapshot made plain, as room-sync.js's expandSnapshot does."""
    if snapshot.get("format") != "compact-1":
        return snapshot
    strokes = []
    for s in snapshot["strokes"]:
        points = s.get("points")
        if points is None:
            numbers, changes = s.get("q", s.get("r")), "q" not in s
            x = y = z = dx = dy = dz = 0
            points = []
            for i in range(0, len(numbers) - 2, 3):
                if changes and i >= 6:
                    dx += numbers[i]; dy += numbers[i + 1]; dz += numbers[i + 2]
                else:
                    dx, dy, dz = numbers[i], numbers[i + 1], numbers[i + 2]
                x += dx; y += dy; z += dz
                points.append([x / 1e4, y / 1e4, z / 1e4])
        strokes.append({"id": s["id"], "author": snapshot["authors"][s["a"]], "color": snapshot["colors"][s["c"]],
                        "width": s["w"], "points": points})
    return {"sequence": snapshot["sequence"], "strokes": strokes, "notes": snapshot["notes"], "molecule": snapshot.get("molecule")}


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
        state = expand(welcome["snapshot"])
        state.setdefault("molecule", None)
        seconds = time.perf_counter() - t0
    return seconds, state, len(text)


async def measure(server, room, token, runs):
    base = f"ws://127.0.0.1:{server.port}/api/rooms/{room}/live"
    relay = Relay(server.port)
    relay_port = await relay.start()
    out = {}
    reference = None
    for name, query, deflate in (("plain JSON", "", False), ("compact", "&snapshot=compact", False),
                                 ("compact + permessage-deflate", "&snapshot=compact", True)):
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


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary")
    p.add_argument("--strokes", type=int, default=10_000)
    p.add_argument("--points", default="10,30", help="points per stroke, one room for each value")
    p.add_argument("--runs", type=int, default=5)
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
            results, state = asyncio.run(measure(server, room, owner.token, args.runs))
            assert len(state["strokes"]) == args.strokes, len(state["strokes"])
            for name, (median, low, high, wire, text_bytes) in results.items():
                print(f"  {name}: live in {median * 1000:.0f} ms (median of {args.runs}; {low * 1000:.0f}–{high * 1000:.0f}), "
                      f"{wire / 1024:.0f} KiB on the wire ({text_bytes / 1024:.0f} KiB of text)", flush=True)
                rows.append((f"{args.strokes:,} × {points} points", name, median, wire, text_bytes))
    finally:
        server.stop()
    print(f"\n| room | snapshot | live in (median of {args.runs}) | bytes on the wire | text |\n| --- | --- | --- | --- | --- |")
    for room, name, median, wire, text_bytes in rows:
        print(f"| {room} | {name} | {median * 1000:.0f} ms | {wire / 1024:.0f} KiB | {text_bytes / 1024:.0f} KiB |")


if __name__ == "__main__":
    main()
