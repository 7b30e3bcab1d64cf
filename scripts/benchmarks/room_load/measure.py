"""What the benchmark reads from the machine (/proc: memory, CPU time) and from the server (each
room's sequence), and the latency histogram's percentiles."""
import os

from proteinar_testing.http_client import http

BUCKET_MS = 0.1          # latency histogram resolution
BUCKETS = 20_000         # 0 … 2 s in 0.1 ms steps; slower ones are kept exactly
TICK = os.sysconf("SC_CLK_TCK")


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def machine_busy_seconds():
    """CPU time all processes on the machine used (all cores), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / TICK  # all but idle and iowait


def postgres_cpu_seconds():
    """CPU time of the machine's PostgreSQL processes (part of the system under test with --postgres)."""
    total = 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                text = f.read()
        except OSError:
            continue
        if text[text.index("(") + 1:text.rindex(")")] in ("postgres", "postmaster"):
            fields = text.rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def room_sequences(server, owners):
    out = {}
    for rid_, token in owners.items():
        r = http(server, "GET", f"/api/rooms/{rid_}", token=token, timeout=30)
        out[rid_] = r.json["room"].get("sequence") if r.status == 200 else None
    return out


def percentile(hist, slow, q):
    total = sum(hist) + len(slow)
    if total == 0:
        return None
    rank = q * (total - 1)
    acc = 0
    for b, n in enumerate(hist):
        acc += n
        if acc > rank:
            return (b + 0.5) * BUCKET_MS
    slow = sorted(slow)
    return slow[min(len(slow) - 1, int(rank - sum(hist)))]


def fmt_ms(v):
    return "–" if v is None else (f"{v:.1f} ms" if v < 100 else f"{v:.0f} ms")
