#!/usr/bin/env python3
"""Issue 14's attacks against a real `proteinar serve`, as an outsider would try them, each against a
fresh server (so its peak RSS, VmHWM, is that attack's), with GET /healthz probed every 50 ms from
another process meanwhile. docs/security.md says how the server must answer.

    scripts/checks/check-attacks.py PROTEINAR_BIN [--only 3,7]

 1. roles: anonymous DELETE/upload/fetch → 401, a non-owner's DELETE → 403, cross-site text/plain
    → 415/401 and nothing stored; owners delete their uploads, the administrator anything;
 2. 30 uploads of 7.6 MB by one account: refused at the quota (413) or hourly limit (429);
 3. gzip in gzip (a few KB of gigabytes), alone and three at once → 413; a damaged gzip → 422;
 4. a 50 MB title: listings stay small, titles at most 300 characters, eight listings at once fast;
 5. 30 heavy conversions abandoned after 2 s → refused or bounded; another visitor's model still
    quick; the server not kept busy after they leave; 2048 px thumbnails and huge selections → 400;
 6. a full public room's model: bounded size and triangles, cached by sequence;
 7. 2,000 anonymous watchers of one room, with default caps and with caps of 2,000: under 100 MB
    sent while they join, RSS back within 100 MB after they leave;
 8. HTTP edge: slow, silent, idle and malformed (a NUL byte in a header) connections closed within
    30 s, 100 KB of headers → 431, 1,050 silent connections do not stop /healthz, SIGTERM ends it
    within 10 s;
 9. security headers, /metrics and /healthz details behind a token, no tokens from URLs, bcrypt
    throttled per address, designs cached, rooms per account capped, the room list paged;
10. one address minting client ids: 2,000 cookie-less requests for distinct models, 120 at once →
    held by the per-address ceiling (429), the queue bounded, at most 600 ids minted; edited and
    forged proteinar_client cookies get no fresh share;
11. 1,000 archive entries opened by one client (a stand-in that answers every ID) → 20 a minute,
    then 429; fresh clients of one address → its 120 a minute, at most 4 downloads at once, then
    503; with the limits lifted, a 2 MB archive cache stays within its bound and so does the disk;
12. the search as an open proxy: 1,000 cookie-less searches of distinct words from one address in
    about 2 s → only the address's 120 a minute reach the archive, the rest 429; the same words
    again are answered from the kept answer;
13. a stranger keeps a wrong sign-in for the victim's e-mail in flight for 20 s → the victim's
    sign-ins from another address all succeed; the stranger's own are slowed;
14. behind a trusted proxy (--trusted-proxy): one forwarded client's registrations run out at its
    own budget while another's go through; X-Forwarded-For from anyone else is ignored; the
    proxy's connections are not held to the per-address cap;
15. a PDB padded with 99 MB of REMARK lines, 48 slow anonymous downloads → the stored gzip is
    sent as it is; without Accept-Encoding: gzip, 406 instead of inflating it;
16. 39 POST bodies promising 60,000 bytes, a byte every 25 s → each connection closed within 15 s;
17. Content-Length with Transfer-Encoding, two Content-Lengths → 400 and closed (after a good
    request on the same connection: that one answered, then closed); 20 of them leave room;
18. two anonymous sockets send 1 MB text messages and 1 KB frames inflating to 1 MB for 10 s →
    charged by size, counted toward closing: both closed, the server's CPU under half a core;
19. an owner invites 2,002 e-mails, some registered → every answer the same for either (202 and
    a body that follows from the owner's requests, the same headers and time), members only after
    accepting, the owner's hourly budget then 429.
20. XYZ lattices of 512,000 and 1,000,000 francium atoms 1.15 Å apart → at most 12 bonds an atom;
    16 ball-and-stick models of distinct sizes abandoned after 3 s; another visitor's 1AKE < 2 s;
21. 9,000,000 and 2,000,000 one-atom XYZ frames → 413 naming the 1,000-model limit; a 1,000-frame
    file's 16 thumbnails; another visitor's 1AKE < 2 s; the server idle 5 s after the attacker;
22. a public room of 10,000 operations (500-point strokes added, then removed): 16 anonymous log
    readers and 8 readers of state?at=N for 10 s each → pages ≤ 1 MiB, the address's budget, 429;
23. 40 watchers that stop reading while 21,000 operations arrive, then read again → told
    `behind`, each welcomed at the room's sequence on reconnecting; under 10 CPU s in all.
In every attack: the server's peak RSS under 1 GB, /healthz p99 under 200 ms, and its CPU idle 5 s
after the attacker leaves (under a tenth of a core over the next 2 s).

Prints `ok`/`FAIL` lines, each attack's figures, a table, and `N passed, M failed`; exits 1 on a
failure. Nothing is skipped: what could not be tried is a FAIL. Server logs are kept (folder named
at the end, without the servers' data) when something failed."""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from attacks.context import RUN, run, table  # noqa: E402
from attacks.archive_opens import check_archive_opens  # noqa: E402
from attacks.client_ids import check_client_ids  # noqa: E402
from attacks.conversions import check_conversions  # noqa: E402
from attacks.dense_files import check_dense_coordinates, check_many_frames  # noqa: E402
from attacks.edge import check_edge  # noqa: E402
from attacks.file_downloads import check_file_downloads  # noqa: E402
from attacks.framing import check_framing  # noqa: E402
from attacks.invitations import check_invitations  # noqa: E402
from attacks.lockout import check_lockout  # noqa: E402
from attacks.proxy import check_proxy  # noqa: E402
from attacks.roles import check_roles  # noqa: E402
from attacks.room_history import check_room_log, check_slow_readers  # noqa: E402
from attacks.search_proxy import check_search_proxy  # noqa: E402
from attacks.rooms import check_room_model, check_watchers  # noqa: E402
from attacks.slow_bodies import check_slow_bodies  # noqa: E402
from attacks.small import check_small  # noqa: E402
from attacks.socket_messages import check_socket_messages  # noqa: E402
from attacks.uploads import check_disk_fill, check_long_title, check_nested_gzip  # noqa: E402
from proteinar_testing import server as servers  # noqa: E402


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    RUN.binary = os.path.abspath(sys.argv[1])
    if not os.access(RUN.binary, os.X_OK):
        sys.exit(f"{RUN.binary}: not an executable")
    if "--only" in sys.argv:
        RUN.only = {x.strip() for x in sys.argv[sys.argv.index("--only") + 1].split(",")}
    RUN.tmp = tempfile.mkdtemp(prefix="proteinar-attacks-")
    started = time.monotonic()
    print(f"attacks on {RUN.binary} ({os.cpu_count()} cores), {time.strftime('%Y-%m-%d %H:%M:%S')}", flush=True)
    run("1", "roles: who may write and delete", check_roles)
    run("2", "disk fill: 30 uploads of 7.6 MB", check_disk_fill)
    run("3", "gzip in gzip; damaged gzip", check_nested_gzip)
    run("4", "a 50 MB title; 8 listings at once", check_long_title)
    run("5", "conversions abandoned by their clients", check_conversions)
    run("6", "a full public room's model", check_room_model)
    run("7", "2,000 watchers in one room", check_watchers)
    run("8", "HTTP edge: slow, silent, big, SIGTERM", check_edge)
    run("9", "headers, metrics, tokens, bcrypt, caches, caps", check_small)
    run("10", "one address minting client ids", check_client_ids)
    run("11", "1,000 archive entries; the cache bound", check_archive_opens)
    run("12", "the search as an open proxy: 1,000 searches", check_search_proxy)
    run("13", "locking someone out by failing on purpose", check_lockout)
    run("14", "behind a trusted proxy, many clients", check_proxy)
    run("15", "48 slow downloads of a padded file", check_file_downloads)
    run("16", "39 request bodies a byte every 25 s", check_slow_bodies)
    run("17", "conflicting length headers", check_framing)
    run("18", "socket messages of 1 MB and deflate bombs", check_socket_messages)
    run("19", "who has an account: 2,002 invitations", check_invitations)
    run("20", "a lattice denser than matter: 1M atoms", check_dense_coordinates)
    run("21", "nine million one-atom frames", check_many_frames)
    run("22", "a public room's 10,000-operation log", check_room_log)
    run("23", "40 watchers that stop reading, then read", check_slow_readers)
    servers.stop_all()
    print("\n" + table())
    print(f"\nattacks: {RUN.passed} passed, {RUN.failed} failed in {time.monotonic() - started:.0f} s")
    if RUN.failed:
        for name in os.listdir(RUN.tmp):  # the logs stay; the libraries (hundreds of MB) go
            if name.startswith("data-"):
                shutil.rmtree(os.path.join(RUN.tmp, name), ignore_errors=True)
        print(f"server logs: {RUN.tmp}")
        sys.exit(1)
    shutil.rmtree(RUN.tmp, ignore_errors=True)


if __name__ == "__main__":
    main()  # servers still running at exit are killed (proteinar_testing.server)
