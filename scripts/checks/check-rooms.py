#!/usr/bin/env python3
"""Draw together (docs/rooms-protocol.md), checked from outside against real `proteinar serve`
processes: accounts and sessions over HTTP, and the live WebSocket protocol with real clients
(the `websockets` package from PyPI, installed by scripts/tools/setup-python.sh).

    scripts/checks/check-rooms.py PROTEINAR_BIN [--only 2,4,8] [--verbose]

 1. accounts: register, sign in, the same 401 for a wrong password and an unknown e-mail, cookie
    sessions need X-CSRF-Token, signing out ends the session (cookie and bearer token);
 2. two clients in one room receive the same operations in the same order;
 3. undo removes the sender's own last stroke as a whole; clear by the owner, refused to a member;
 4. reconnecting with ?after=N gets exactly the missed operations; a resent clientOpID is
    acknowledged as a duplicate with its original sequence;
 5. a late joiner's snapshot equals the state built from the operations, and GET /api/rooms/{id};
 6. permissions: non-members and guests in private rooms, guests in public rooms (read-only until
    the owner allows drawing);
 7. bad input (malformed, unknown types, NaN, 1e999, too many points, over 64 KiB, a flood,
    <script> in a note): an error with a clear message, and the room unchanged;
 8. durability: SIGKILL at random moments while a client sends, on SQLite and on PostgreSQL;
    every acknowledged operation is in the log with its sequence, nothing twice;
 9. two servers on one PostgreSQL database relay each other's operations;
10. presence: who is in the room, their views, and leaving;
11. two servers on one PostgreSQL database: presence and the owner's settings changes reach the other
    server's clients within 100 ms (median and max printed); a guest may draw once allowed, without
    reconnecting;
12. failover: SIGKILL one of two servers; its clients resume on the other with ?after=N, no gap and
    no duplicate, the operation in flight stored once; its people leave the other's presence;
13. history: GET /api/rooms/{id}/state?at=N equals the state a client built after N (random N),
    the log folded into the history base once long (410 before it), resumes exact on both sides
    of the fold, and after a restart;
14. a deflated snapshot (snapshot=deflated) equals the plain state, is kept and sent with the
    operations since it, and written again once the room has moved on by more than 600.

PostgreSQL checks (8b, 9, 11, 12) use PROTEINAR_TEST_POSTGRES_URL (scripts/tools/start-postgres.sh) and a
fresh database made for the run and dropped after it; without the variable they are skipped.

Prints one line per check (`ok   …`, `FAIL …`, `skip …`) and `N passed, M failed, K skipped`;
exits 1 on a failure. Server logs are kept in the temporary folder named at the end on failure.

The checks live in scripts/checks/rooms/, a module per group; servers, HTTP and accounts come
from scripts/proteinar_testing."""
import os, shutil, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.venv import require  # noqa: E402

require(__file__, ["websockets"], "check-rooms: websockets")
from proteinar_testing import server as servers  # noqa: E402
from rooms.bad_input import check_bad_input  # noqa: E402
from rooms.collaboration import (check_deflated_snapshot, check_late_joiner, check_order, check_presence, check_resume,  # noqa: E402
                                 check_undo_clear)
from rooms.context import RUN, run  # noqa: E402
from rooms.history import check_history  # noqa: E402
from rooms.durability import check_durability_postgres, check_durability_sqlite, check_two_servers  # noqa: E402
from rooms.permissions import check_permissions  # noqa: E402
from rooms.servers import check_across_servers, check_failover  # noqa: E402
from rooms.sessions import check_accounts  # noqa: E402


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    RUN.binary = os.path.abspath(sys.argv[1])
    if "--only" in sys.argv:
        RUN.only = {s.strip() for s in sys.argv[sys.argv.index("--only") + 1].split(",")}
    RUN.verbose = "--verbose" in sys.argv or "-v" in sys.argv
    if not os.access(RUN.binary, os.X_OK):
        sys.exit(f"{RUN.binary}: not an executable")
    RUN.tmp = tempfile.mkdtemp(prefix="proteinar-rooms-")
    started = time.monotonic()
    run("1", "accounts, sessions, CSRF, sign-out", check_accounts)
    run("2", "two clients see the same operations in the same order", check_order)
    run("3", "undo removes the sender's last stroke; clear by the owner only", check_undo_clear)
    run("4", "reconnect with ?after gets exactly the missed ops; resends are duplicates", check_resume)
    run("5", "a late joiner's snapshot equals the state built from the ops", check_late_joiner)
    run("6", "permissions: non-members, guests, guestsMayDraw", check_permissions)
    run("7", "bad input is refused with a clear error and changes nothing", check_bad_input)
    run("8a", "SIGKILL at random moments loses no acknowledged op (SQLite)", check_durability_sqlite)
    run("8b", "SIGKILL at random moments loses no acknowledged op (PostgreSQL)", check_durability_postgres)
    run("9", "two servers on one PostgreSQL database relay each other's ops", check_two_servers)
    run("10", "presence: who is here, their views, leaving", check_presence)
    run("11", "two servers: presence and settings changes reach the other's clients in 100 ms", check_across_servers)
    run("12", "failover: a killed server's clients resume on the other exactly", check_failover)
    run("13", "history: state at N, the log folded, resumes across the fold", check_history)
    run("14", "a deflated snapshot equals the state; kept with the ops since; written again", check_deflated_snapshot)
    servers.stop_all()
    results = RUN.results
    print(f"rooms: {results['passed']} passed, {results['failed']} failed, {results['skipped']} skipped "
          f"in {time.monotonic() - started:.0f} s")
    if results["failed"]:
        print(f"server logs: {RUN.tmp}")
        sys.exit(1)
    shutil.rmtree(RUN.tmp, ignore_errors=True)


if __name__ == "__main__":
    main()  # servers still running at exit are killed (proteinar_testing.server)
