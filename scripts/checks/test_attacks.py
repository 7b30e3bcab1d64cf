"""Issue 14's attacks against a real `proteinar serve`, as an outsider would try them, each against a
fresh server (so its peak RSS, VmHWM, is that attack's), with GET /healthz probed every 50 ms from
another process meanwhile. docs/security.md says how the server must answer.

    .venv/bin/python -m pytest -m attacks --proteinar-bin=PROTEINAR_BIN [-k 'conflicting_length']

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

Each attack is a test (marked `attacks`: scripts/test runs them first, alone on the machine); its
checks print `ok`/`FAIL` lines and its figures, and the test fails listing every FAIL. The table of
all attacks is printed at the end. Server logs are kept (folder named at the end, without the
servers' data) when something failed."""
import os
import shutil
import tempfile
import time

import pytest

from attacks import (archive_opens, client_ids, conversions, dense_files, edge, file_downloads, framing, invitations, lockout,
                     proxy, roles, room_history, rooms, search_proxy, slow_bodies, small, socket_messages, uploads)
from attacks.context import RUN, run, table
from proteinar_testing import server as servers

pytestmark = [pytest.mark.attacks, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def attacks_run(proteinar_bin):
    RUN.binary = proteinar_bin
    RUN.tmp = tempfile.mkdtemp(prefix="proteinar-attacks-")
    RUN.rows, RUN.passed, RUN.failed = [], 0, 0
    started = time.monotonic()
    print(f"\nattacks on {RUN.binary} ({os.cpu_count()} cores), {time.strftime('%Y-%m-%d %H:%M:%S')}", flush=True)
    yield RUN
    servers.stop_all()
    print("\n" + table())
    print(f"\nattacks: {RUN.passed} checks passed, {RUN.failed} failed in {time.monotonic() - started:.0f} s")
    if RUN.failed:
        for name in os.listdir(RUN.tmp):  # the logs stay; the libraries (hundreds of MB) go
            if name.startswith("data-"):
                shutil.rmtree(os.path.join(RUN.tmp, name), ignore_errors=True)
        print(f"server logs: {RUN.tmp}")
    else:
        shutil.rmtree(RUN.tmp, ignore_errors=True)


def attack(number, name, fn):
    """Attack `fn` on fresh servers with its common checks (idle after it, peak RSS under 1 GB,
    /healthz p99 under 200 ms); fails listing every FAIL."""
    result = run(number, name, fn)
    if result.failures:
        pytest.fail(f"{number}. {name}: {len(result.failures)} of {result.passed + result.failed} checks failed:\n"
                    + "\n".join(f"FAIL {f}" for f in result.failures), pytrace=False)


def test_roles_decide_who_may_write_and_delete():
    attack("1", "roles: who may write and delete", roles.check_roles)


def test_disk_fill_by_30_uploads_is_refused_at_the_quota_or_hourly_limit():
    attack("2", "disk fill: 30 uploads of 7.6 MB", uploads.check_disk_fill)


def test_gzip_in_gzip_is_413_and_a_damaged_gzip_422():
    attack("3", "gzip in gzip; damaged gzip", uploads.check_nested_gzip)


def test_a_50_mb_title_leaves_listings_small_and_fast():
    attack("4", "a 50 MB title; 8 listings at once", uploads.check_long_title)


def test_conversions_abandoned_by_their_clients_are_refused_or_bounded():
    attack("5", "conversions abandoned by their clients", conversions.check_conversions)


def test_a_full_public_rooms_model_is_bounded_and_cached():
    attack("6", "a full public room's model", rooms.check_room_model)


def test_2000_watchers_in_one_room_stay_within_memory_and_traffic():
    attack("7", "2,000 watchers in one room", rooms.check_watchers)


def test_slow_silent_big_and_malformed_connections_are_closed_and_sigterm_ends_it():
    attack("8", "HTTP edge: slow, silent, big, SIGTERM", edge.check_edge)


def test_headers_metrics_tokens_bcrypt_caches_and_caps():
    attack("9", "headers, metrics, tokens, bcrypt, caches, caps", small.check_small)


def test_one_address_minting_client_ids_is_held_by_its_ceiling():
    attack("10", "one address minting client ids", client_ids.check_client_ids)


def test_1000_archive_entries_are_rate_limited_and_the_cache_bounded():
    attack("11", "1,000 archive entries; the cache bound", archive_opens.check_archive_opens)


def test_the_search_is_no_open_proxy():
    attack("12", "the search as an open proxy: 1,000 searches", search_proxy.check_search_proxy)


def test_failing_on_purpose_does_not_lock_the_victim_out():
    attack("13", "locking someone out by failing on purpose", lockout.check_lockout)


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget():
    attack("14", "behind a trusted proxy, many clients", proxy.check_proxy)


def test_slow_downloads_of_a_padded_file_get_the_stored_gzip():
    attack("15", "48 slow downloads of a padded file", file_downloads.check_file_downloads)


def test_request_bodies_a_byte_every_25_s_are_closed_within_15_s():
    attack("16", "39 request bodies a byte every 25 s", slow_bodies.check_slow_bodies)


def test_conflicting_length_headers_are_400_and_closed():
    attack("17", "conflicting length headers", framing.check_framing)


def test_socket_messages_of_1_mb_and_deflate_bombs_are_charged_and_closed():
    attack("18", "socket messages of 1 MB and deflate bombs", socket_messages.check_socket_messages)


def test_invitations_do_not_tell_who_has_an_account():
    attack("19", "who has an account: 2,002 invitations", invitations.check_invitations)


def test_a_lattice_denser_than_matter_is_bounded():
    attack("20", "a lattice denser than matter: 1M atoms", dense_files.check_dense_coordinates)


def test_nine_million_one_atom_frames_are_413():
    attack("21", "nine million one-atom frames", dense_files.check_many_frames)


def test_a_public_rooms_10000_operation_log_is_paged_and_budgeted():
    attack("22", "a public room's 10,000-operation log", room_history.check_room_log)


def test_watchers_that_stop_reading_are_told_behind_and_welcomed_back():
    attack("23", "40 watchers that stop reading, then read", room_history.check_slow_readers)
