"""The load: WebSocket clients that each add a stroke point every interval and record every
broadcast and answer they receive. One process runs the clients of whole rooms in one asyncio loop."""
import asyncio
import json
import os
import random
import signal
import time

from websockets.asyncio.client import connect as ws_connect

from .measure import BUCKET_MS, BUCKETS


class RoomLoad:
    def __init__(self, room_id, clients):
        self.id = room_id
        self.sent = {}         # clientOpID → send time
        self.acked = {}        # clientOpID → sequence
        self.refused = {}      # clientOpID → error code
        self.clients = clients  # [(index, auth)]
        self.seen = []         # per client: bytearray, 1 at each sequence received
        self.counts = []       # per client: how many distinct sequences it received
        self.duplicates = 0


class Stats:
    def __init__(self):
        self.hist = [0] * BUCKETS
        self.slow = []
        self.ack_hist = [0] * BUCKETS
        self.ack_slow = []
        self.errors = {}
        self.closed = {}
        self.behind = 0
        self.send_blocked = 0
        self.drop_times = []   # seconds after the start at which sending met a closed connection
        self.other_messages = 0

    def add(self, hist, slow, ms):
        b = int(ms / BUCKET_MS)
        if b < BUCKETS:
            hist[b] += 1
        else:
            slow.append(ms)


async def run_client(room, index, url, headers, stats, start_at, end_at, interval, per_stroke, deflate, ready):
    seen = bytearray(4096)
    room.seen.append(seen)
    slot = len(room.counts)
    room.counts.append(0)
    counts = room.counts
    ws = await ws_connect(url, additional_headers=headers, compression="deflate" if deflate else None,
                          ping_interval=None, max_size=2 ** 24, open_timeout=60, close_timeout=2)
    welcome = json.loads(await ws.recv())
    if welcome.get("type") != "welcome":
        raise RuntimeError(f"expected welcome, got {str(welcome)[:200]}")
    ready()
    monotonic = time.monotonic
    sent, acked, refused = room.sent, room.acked, room.refused
    hist, slow, ack_hist, ack_slow = stats.hist, stats.slow, stats.ack_hist, stats.ack_slow
    loads = json.loads

    def seen_op(m, now):
        seq = m["sequence"]
        if seq >= len(seen):
            seen.extend(bytes(max(seq + 1 - len(seen), len(seen))))
        if seen[seq]:
            room.duplicates += 1
        else:
            seen[seq] = 1
            counts[slot] += 1
        t0 = sent.get(m["clientOpID"])
        if t0 is not None:
            ms = (now - t0) * 1000
            b = int(ms / BUCKET_MS)
            if b < BUCKETS:
                hist[b] += 1
            else:
                slow.append(ms)

    async def receive():
        try:
            async for raw in ws:
                now = monotonic()
                m = loads(raw)
                t = m.get("type")
                if t == "ops":  # several ops that waited together, in order
                    for m in m["ops"]:
                        seen_op(m, now)
                    continue
                if t == "op":
                    seen_op(m, now)
                elif t == "ack":
                    cid = m["clientOpID"]
                    acked[cid] = m["sequence"]
                    t0 = sent.get(cid)
                    if t0 is not None:
                        stats.add(ack_hist, ack_slow, (now - t0) * 1000)
                elif t == "error":
                    code = m.get("code", "?")
                    stats.errors[code] = stats.errors.get(code, 0) + 1
                    if m.get("clientOpID"):
                        refused[m["clientOpID"]] = code
                else:
                    stats.other_messages += 1
        except Exception as e:  # noqa: BLE001 — a dropped connection is counted, not fatal
            rcvd = getattr(e, "rcvd", None)
            key = f"{type(e).__name__} " + (f"{rcvd.code} {rcvd.reason}" if rcvd else "(no close frame)")
            stats.closed[key] = stats.closed.get(key, 0) + 1

    receiver = asyncio.create_task(receive())
    await start_at
    rng = random.Random(index)
    x, y, z = rng.uniform(-1, 1), rng.uniform(0, 2), rng.uniform(-1, 1)
    k, stroke = 0, None
    next_t = start_at.result() + rng.uniform(0, interval)  # clients out of step, as people are
    try:
        while True:
            now = monotonic()
            if now >= end_at.result():
                break
            if now < next_t:
                await asyncio.sleep(next_t - now)
            x += rng.uniform(-0.005, 0.005); y += rng.uniform(-0.005, 0.005); z += rng.uniform(-0.005, 0.005)
            point = f"[[{x:.4f},{y:.4f},{z:.4f}]]"
            cid = f"{index}-{k}"
            if k % per_stroke == 0:
                stroke = f"c{index}s{k}"
                op = f'{{"type":"add-stroke","id":"{stroke}","points":{point},"color":"#3366ff","width":0.004}}'
            else:
                op = f'{{"type":"extend-stroke","id":"{stroke}","points":{point}}}'
            t_send = sent[cid] = monotonic()
            await ws.send(f'{{"type":"op","clientOpID":"{cid}","operation":{op}}}')
            if monotonic() - t_send > interval:  # the socket's buffer was full: the server reads slower than we send
                stats.send_blocked += 1
            k += 1
            next_t += interval
            if monotonic() - next_t > interval:  # fell behind: no catch-up burst (it would meet the rate limit)
                stats.behind += 1
                next_t = monotonic()
    except Exception as e:  # noqa: BLE001
        rcvd = getattr(e, "rcvd", None)
        key = f"send: {type(e).__name__} " + (f"{rcvd.code} {rcvd.reason}".strip() if rcvd else "(no close frame)")
        stats.closed[key] = stats.closed.get(key, 0) + 1
        stats.drop_times.append(monotonic() - start_at.result())
    return ws, receiver


def worker(wid, rooms, port, args, ready_queue, go, start_value, results):
    """Runs the clients of `rooms` (a list of (room id, [(index, auth)])) in one asyncio loop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stats = Stats()
    loads = [RoomLoad(rid_, clients) for rid_, clients in rooms]
    interval = args.interval_ms / 1000
    per_stroke = max(1, round(1000 / args.interval_ms))

    async def main():
        loop = asyncio.get_running_loop()
        start_at, end_at = loop.create_future(), loop.create_future()
        connected = [0]
        total = sum(len(r.clients) for r in loads)
        t_connect = time.monotonic()
        all_ready = loop.create_future()

        def ready():
            connected[0] += 1
            if connected[0] == total and not all_ready.done():
                all_ready.set_result(None)
        tasks = []
        for room in loads:
            for index, auth in room.clients:
                tasks.append(asyncio.ensure_future(run_client(room, index, *endpoint(room, auth), stats, start_at, end_at,
                                                              interval, per_stroke, args.deflate, ready)))
                if len(tasks) % 20 == 0:
                    await asyncio.sleep(0.05)
        while not all_ready.done():
            await asyncio.wait([all_ready, *tasks], return_when=asyncio.FIRST_COMPLETED, timeout=120)
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed or time.monotonic() - t_connect > 120:
                ready_queue.put(("error", wid, f"{connected[0]}/{total} connected; "
                                               f"{repr(failed[0].exception()) if failed else 'timeout'}"))
                return
        ready_queue.put(("ready", wid, time.monotonic() - t_connect))
        await loop.run_in_executor(None, go.wait)
        start_at.set_result(start_value.value)
        end_at.set_result(start_value.value + args.seconds)
        cpu0, wall0 = os.times(), time.monotonic()
        pairs = await asyncio.gather(*tasks)
        cpu1, wall1 = os.times(), time.monotonic()
        sending_cpu = (cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)
        sending_wall = wall1 - wall0
        # Drain: until every answer and every broadcast is in, or args.drain seconds.
        deadline = time.monotonic() + args.drain
        while time.monotonic() < deadline:
            if all(drained(r) for r in loads):
                break
            await asyncio.sleep(0.1)
        drain_s = time.monotonic() - wall1
        for ws, receiver in pairs:
            receiver.cancel()
        await asyncio.gather(*(ws.close() for ws, _ in pairs), return_exceptions=True)
        # A client that received sequence N but not some M < N lost M: broadcasts come in order, each
        # once. Sequences past the last one a client received were still on their way when it
        # stopped listening (or its connection dropped): not delivered, but not a gap.
        lost = tail = 0
        unanswered = {r.id: [c for c in r.sent if c not in r.acked and c not in r.refused] for r in loads}
        for r in loads:
            top = max(r.acked.values(), default=0)
            for seen in r.seen:
                last = max(seen.rfind(1, 0, top + 1), 0)
                lost += max(last - 1, 0) - seen.count(1, 1, last)
                tail += top - last
        results.put(("done", wid, {
            "rooms": {r.id: {"sent": len(r.sent), "acked": dict(r.acked), "refused": len(r.refused),
                             "unanswered": unanswered[r.id]} for r in loads},
            "drained": all(drained(r) for r in loads),
            "sent": sum(len(r.sent) for r in loads), "acked": sum(len(r.acked) for r in loads),
            "refused": sum(len(r.refused) for r in loads), "unanswered": sum(map(len, unanswered.values())),
            "lost_deliveries": lost, "undelivered_tail": tail,
            "duplicates": sum(r.duplicates for r in loads), "deliveries_expected": sum(len(r.acked) * len(r.seen) for r in loads),
            "hist": stats.hist, "slow": stats.slow, "ack_hist": stats.ack_hist, "ack_slow": stats.ack_slow,
            "errors": stats.errors, "closed": stats.closed, "behind": stats.behind, "send_blocked": stats.send_blocked, "drop_times": stats.drop_times,
            "cpu": sending_cpu, "wall": sending_wall, "drain_s": drain_s, "clients": sum(len(r.clients) for r in loads)}))

    def endpoint(room, auth):
        if auth.startswith("token:"):
            return f"ws://127.0.0.1:{port}/api/rooms/{room.id}/live", {"Authorization": f"Bearer {auth[6:]}"}
        return f"ws://127.0.0.1:{port}/api/rooms/{room.id}/live?guest={auth}", {}

    def drained(r):
        """Every operation answered, and every client has every sequence up to the last acked (the
        rooms are new, and only these clients write to them)."""
        if len(r.acked) + len(r.refused) < len(r.sent):
            return False
        top = max(r.acked.values(), default=0)
        return all(n >= top for n in r.counts)

    try:
        asyncio.run(main())
    except Exception as e:  # noqa: BLE001
        ready_queue.put(("error", wid, f"{type(e).__name__}: {e}"))
        results.put(("error", wid, f"{type(e).__name__}: {e}"))
