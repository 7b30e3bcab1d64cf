"""The benchmark's summary: what was sent, accepted, delivered and lost, latencies, memory, CPU and
which side was the bottleneck, then the figures as a markdown table."""
import sys

from .measure import BUCKET_MS, BUCKETS, fmt_ms, percentile


def report(args, store, total, processes, cores, agg, hist, slow, ack_hist, ack_slow, errors, closed, parts,
           server_cpu, window_marks, memory, log_problems, stored_late, never_stored):
    """Prints the summary and the table; True when nothing was lost, doubled, misfiled or dropped."""
    window = args.seconds
    p50, p99, p999 = (percentile(hist, slow, q) for q in (0.5, 0.99, 0.999))
    a50, a99 = (percentile(ack_hist, ack_slow, q) for q in (0.5, 0.99))
    worst = max(slow) if slow else next(((b + 1) * BUCKET_MS for b in range(BUCKETS - 1, -1, -1) if hist[b]), None)
    target = total * 1000 / args.interval_ms
    lost_ops = agg["unanswered"]
    client_cpu = [p_["cpu"] / p_["wall"] for p_ in parts]
    server_share = server_cpu / window
    machine_busy = window_marks.get("machine_busy", 0.0) / window
    pg_share = window_marks.get("postgres", 0.0) / window
    others = max(0.0, machine_busy - server_share - sum(client_cpu) - pg_share)
    accepted_in_window = window_marks.get("accepted", agg["acked"])
    drained = all(p_["drained"] for p_ in parts)
    rss = [(label, kb / 1024 if kb else None) for label, _, kb in memory]
    print(f"\nsent {agg['sent']} ops ({agg['sent'] / window:.0f}/s; target {target:.0f}/s); the server accepted "
          f"{accepted_in_window / window:.0f}/s while they were sent and {agg['acked']} in all; refused {agg['refused']} {errors or ''}")
    print(f"broadcast latency (send → op received, {sum(hist) + len(slow)} deliveries): p50 {fmt_ms(p50)}, p99 {fmt_ms(p99)}, "
          f"p99.9 {fmt_ms(p999)}, max {fmt_ms(worst)}")
    print(f"ack latency (send → ack): p50 {fmt_ms(a50)}, p99 {fmt_ms(a99)}")
    if not drained:
        print(f"the clients stopped waiting {args.drain:g} s after sending ended with answers or broadcasts still due: "
              f"the server was that far behind")
    print(f"lost: {lost_ops} ops never acked ({stored_late} of them stored after all, {never_stored} never stored), "
          f"{agg['lost_deliveries']} deliveries missing before a later one (gaps, of {agg['deliveries_expected']}); "
          f"{agg['undelivered_tail']} still on their way when clients stopped; duplicated deliveries: {agg['duplicates']}")
    for problem in log_problems[:5]:
        print(f"log: {problem}")
    if closed:
        drops = sorted(t for p_ in parts for t in p_["drop_times"])
        when = f"; the first {drops[0]:.0f} s after the start, half by {drops[len(drops) // 2]:.0f} s" if drops else ""
        print(f"connections closed by the server while clients were sending: {closed}{when}")
    if agg["behind"]:
        print(f"clients fell behind their schedule {agg['behind']} times (slots skipped, no bursts); "
              f"{agg['send_blocked']} sends waited longer than one interval for the socket (the server not reading)")
    print("server RSS: " + ", ".join(f"{label} {mb:.1f} MiB" for label, mb in rss if mb))
    print(f"CPU: server {server_share * 100:.0f}% of one core over the run; client processes "
          + ", ".join(f"{c * 100:.0f}%" for c in client_cpu) + " of one core each; "
          + (f"PostgreSQL {pg_share * 100:.0f}%; " if args.postgres else "")
          + f"other processes {others * 100:.0f}% ({cores} cores in all)")
    busiest = max(client_cpu)
    total_cpu = max(machine_busy, server_share + sum(client_cpu))
    if others > 0.3:
        verdict = (f"other processes used {others * 100:.0f}% of a core meanwhile (load average {window_marks.get('load')}): "
                   f"the figures are disturbed; run again on a quiet machine")
    elif total_cpu > 0.85 * cores:
        verdict = (f"the machine was saturated ({total_cpu * 100:.0f}% of {cores * 100}%): the server had "
                   f"{(server_share + pg_share) / total_cpu * 100:.0f}% of the CPU{' with PostgreSQL' if args.postgres else ''}, "
                   f"the clients the rest; figures are a lower bound on what the server alone could do")
    elif busiest > 0.9:
        verdict = "client-bound: a client process used a whole core; latency includes time queued in the client"
    elif server_share > 0.9:
        verdict = "the server used about a core or more; it may be the bottleneck"
    else:
        verdict = "neither side was CPU-bound"
    print(f"bottleneck: {verdict}")
    mid = rss[len(rss) // 2][1] if rss else None
    print("\n| figure | value |\n| --- | --- |")
    rows = [
        ("rooms × clients", f"{args.rooms} × {args.clients} = {total} connections ({'members' if args.members else 'guests'})"),
        ("load", f"1 point / {args.interval_ms:g} ms / client for {args.seconds:g} s (target {target:.0f} ops/s)"),
        ("store", store),
        ("client processes", f"{processes} on {cores} cores"),
        ("ops sent / accepted per second", f"{agg['sent'] / window:.0f} / {accepted_in_window / window:.0f}"),
        ("broadcast latency p50 / p99", f"{fmt_ms(p50)} / {fmt_ms(p99)}"),
        ("broadcast latency p99.9 / max", f"{fmt_ms(p999)} / {fmt_ms(worst)}"),
        ("ack latency p50 / p99", f"{fmt_ms(a50)} / {fmt_ms(a99)}"),
        ("never acked (stored later / never stored)", f"{lost_ops} ({stored_late} / {never_stored})"),
        ("deliveries lost (gaps) / still due at the end", f"{agg['lost_deliveries']} / {agg['undelivered_tail']}"),
        ("duplicated deliveries", str(agg["duplicates"])),
        ("refused", f"{agg['refused']} {errors if errors else ''}".strip()),
        ("server RSS start / middle / end", " / ".join(f"{x:.1f} MiB" if x else "–" for x in (rss[0][1], mid, rss[-1][1]))),
        ("server CPU", f"{server_share * 100:.0f}% of a core" + (f" (+ PostgreSQL {pg_share * 100:.0f}%)" if args.postgres else "")),
        ("client CPU", ", ".join(f"{c * 100:.0f}%" for c in client_cpu) + " of a core per process"),
        ("other processes' CPU", f"{others * 100:.0f}% of a core (load average {window_marks.get('load', '?')})"),
    ]
    for k, v in rows:
        print(f"| {k} | {v} |")
    sys.stdout.flush()
    return not (lost_ops or agg["lost_deliveries"] or agg["duplicates"] or log_problems or closed)
