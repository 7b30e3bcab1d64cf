"""The run (its binary, temporary folder, tally and table) and one attack's context: the fresh
servers it starts, each watched by a health probe, its checks and figures."""
import os
import time

from proteinar_testing import attack_tools as tools
from proteinar_testing.accounts import Account
from proteinar_testing.report import Fail, short
from proteinar_testing.server import ServerProcess

RSS_LIMIT_MB = 1024      # peak RSS of the server in every attack
HEALTHZ_P99_MS = 200     # /healthz while an attack runs
IDLE_AFTER_S = 5         # after the attacker leaves, the server is idle by then:
IDLE_CPU_S = 0.2         # at most this much CPU over the next 2 s (a tenth of a core; the probe's own is about 0.08)


class Run:
    binary = None
    tmp = None
    passed = failed = 0
    rows = []            # the table at the end


RUN = Run()


class Attack:
    """One attack: its servers (each fresh, with a health probe), its checks and its figures."""

    def __init__(self, number, name):
        self.number, self.name = number, name
        self.servers, self.probes = [], {}
        self.latencies, self.unanswered = [], 0
        self.peaks = []
        self.passed = self.failed = 0
        self.failures = []      # the FAIL lines, for the test's report
        self.outcome = []       # short figures for the table

    # servers

    def missing_options(self, options):
        have = tools.serve_options(RUN.binary)
        return [o for o in options if o not in have]

    def serve(self, extra=(), starter=True, nofile=None, probe=True, rcsb_url=None, name=None):
        """A fresh `proteinar serve` for this attack (options it does not know: a FAIL, and Fail).
        `nofile`: the open-file limit it starts with (the system's usual 1,024 for the HTTP edge)."""
        missing = self.missing_options([o for o in extra if o.startswith("--")])
        if missing:
            self.check(f"the server accepts {' '.join(missing)}", False, "not in `proteinar serve --help`; this part was not tried")
            raise Fail(f"the server has no {' '.join(missing)} option")
        label = name or f"attack{self.number}"
        if nofile:
            with tools.open_file_limit(nofile):
                server = ServerProcess(RUN.binary, work=RUN.tmp, starter=starter, extra=list(extra), name=label, rcsb_url=rcsb_url)
        else:
            server = ServerProcess(RUN.binary, work=RUN.tmp, starter=starter, extra=list(extra), name=label, rcsb_url=rcsb_url)
        self.servers.append(server)
        if probe:
            self.probes[server] = tools.HealthProbe(server)
        return server

    def stop_probe(self, server):
        """Ends the health probe of `server` (before it is stopped on purpose) and keeps its figures."""
        probe = self.probes.pop(server, None)
        if probe:
            probe.stop()
            self.latencies += probe.latencies
            self.unanswered += probe.unanswered
            if probe.peak_kb:
                self.peaks.append(probe.peak_kb / 1024)

    def peak_now(self, server):
        mb = tools.peak_rss_mb(server.pid)
        if mb is not None:
            self.peaks.append(mb)
        return mb

    def admin_then(self, server, *names):
        """A throwaway administrator (the first account on a server), then accounts `names`."""
        Account(server, "Admin")
        return [Account(server, n) for n in names]

    # reporting

    def check(self, what, ok, detail=""):
        print(("ok   " if ok else "FAIL ") + f"{self.number}. {what}" + (f" ({detail})" if detail and not ok else ""), flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(f"{self.number}. {what}" + (f" ({detail})" if detail else ""))
        return ok

    def figure(self, text, table=None):
        """A figure worth printing; `table`: a short form of it for the summary table."""
        print(f"     {self.number}. {text}", flush=True)
        if table:
            self.outcome.append(table)

    def check_idle(self):
        """Every server still running, IDLE_AFTER_S after the attack ended: its CPU over 2 s."""
        running = [srv for srv in self.servers if srv.running()]
        if not running:
            return
        time.sleep(IDLE_AFTER_S)
        for srv in running:
            cpu = sum(tools.cpu_profile(srv.pid, 2.0))
            self.figure(f"{IDLE_AFTER_S} s after the attacker left: server CPU {cpu:.2f} s over the next 2 s")
            self.check(f"the server is idle {IDLE_AFTER_S} s after the attacker left (under {IDLE_CPU_S} CPU s over 2 s)",
                       cpu < IDLE_CPU_S, f"{cpu:.2f} s")

    def finish(self, error=None):
        if error is None:
            self.check_idle()
        for server in list(self.probes):
            if server.running():
                self.peak_now(server)
            self.stop_probe(server)
        for server in self.servers:
            if server.running():
                self.peak_now(server)
            server.close()
        if error is not None:
            self.check("the attack ran to its end", False, error)
        peak = max(self.peaks) if self.peaks else None
        p50 = tools.percentile(self.latencies, 50)
        p99 = tools.percentile(self.latencies, 99)
        if peak is None:
            self.check(f"peak RSS under {RSS_LIMIT_MB} MB", False, "no server figure was read")
        else:
            self.check(f"peak RSS under {RSS_LIMIT_MB} MB", peak < RSS_LIMIT_MB, f"{peak:.0f} MB")
        if not self.latencies:
            self.check(f"/healthz p99 under {HEALTHZ_P99_MS} ms", False, "no probe ran")
        else:
            self.check(f"/healthz p99 under {HEALTHZ_P99_MS} ms during the attack", p99 < HEALTHZ_P99_MS,
                       f"p99 {p99:.0f} ms, max {max(self.latencies):.0f} ms, {self.unanswered} of {len(self.latencies)} probes unanswered")
        print(f"     {self.number}. peak RSS {peak:.0f} MB; /healthz p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(self.latencies):.0f} ms "
              f"over {len(self.latencies)} probes ({self.unanswered} unanswered)" if peak is not None and self.latencies else
              f"     {self.number}. no figures", flush=True)
        RUN.passed += self.passed
        RUN.failed += self.failed
        RUN.rows.append((self.number, self.name, peak, p50, p99, self.passed, self.failed, "; ".join(self.outcome)))


def run(number, name, fn):
    """Runs attack `fn` on fresh servers, then its common checks (idle after it, peak RSS, /healthz
    p99); the Attack, with every check's outcome."""
    print(f"\n--- {number}. {name}", flush=True)
    attack = Attack(number, name)
    started = time.monotonic()
    error = None
    try:
        fn(attack)
    except Fail as e:
        error = str(e)
    except Exception as e:  # noqa: BLE001 — a crash of the attack is a failure with its reason
        error = f"{type(e).__name__}: {short(str(e), 400)}"
    attack.finish(error)
    print(f"     {number}. {time.monotonic() - started:.0f} s", flush=True)
    return attack


def table():
    """The summary: one row per attack."""
    lines = [f"{'#':<2} {'attack':<34} {'peak RSS':>9} {'hz p50':>7} {'hz p99':>8}  {'checks':<10} outcome"]
    for number, name, peak, p50, p99, ok, bad, outcome in RUN.rows:
        peak_s = f"{peak:.0f} MB" if peak is not None else "-"
        p50_s = f"{p50:.0f} ms" if p50 is not None else "-"
        p99_s = f"{p99:.0f} ms" if p99 is not None else "-"
        verdict = f"{ok} ok" + (f", {bad} FAIL" if bad else "")
        lines.append(f"{number:<2} {name[:34]:<34} {peak_s:>9} {p50_s:>7} {p99_s:>8}  {verdict:<10} {outcome}")
    return "\n".join(lines)


def tmp_path(name):
    return os.path.join(RUN.tmp, name)
