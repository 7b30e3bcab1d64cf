"""Rooms (docs/rooms-protocol.md), checked from outside against real `proteinar serve`
processes: accounts and sessions over HTTP, and the live WebSocket protocol with real clients
(the `websockets` package from PyPI, installed by scripts/tools/setup-python.sh). The checks
themselves are in rooms/, a module per group; a test here for each.

The PostgreSQL checks (8b, 9, 11, 12) use PROTEINAR_TEST_POSTGRES_URL (scripts/tools/start-postgres.sh)
and a fresh database made for the check and dropped after it; without the variable they are
skipped. Checks 2–7, 10, 13 and 14 share one server and its accounts (Ada, Ben, Cy), started by
whichever runs first. The servers' logs are kept (the folder printed) when a check failed."""
import shutil
import tempfile
import time

import pytest

from proteinar_testing import server as servers
from rooms import bad_input, collaboration, durability, history, permissions, servers as two_servers, sessions
from rooms.context import RUN


@pytest.fixture(scope="module", autouse=True)
def run(proteinar_bin, request):
    """The run's binary and its folder of server logs and data; the shared server stopped at the end."""
    RUN.binary = proteinar_bin
    RUN.tmp = tempfile.mkdtemp(prefix="proteinar-rooms-")
    RUN.shared = {}
    failed_before = request.session.testsfailed
    yield RUN
    servers.stop_all()
    if request.session.testsfailed > failed_before:
        print(f"\nrooms: server logs: {RUN.tmp}")
    else:
        shutil.rmtree(RUN.tmp, ignore_errors=True)


def show(check):
    """Runs one of rooms/'s checks and prints what it reports (a note, and its time)."""
    started = time.monotonic()
    note = check()
    print(f"{' (' + note + ')' if note else ''} [{time.monotonic() - started:.1f} s]", flush=True)


def test_accounts_sessions_csrf_and_sign_out():
    """1. register, sign in, the same 401 for a wrong password and an unknown e-mail, cookie sessions
    need X-CSRF-Token, signing out ends the session (cookie and bearer token)."""
    show(sessions.check_accounts)


def test_two_clients_see_the_same_operations_in_the_same_order():
    """2."""
    show(collaboration.check_order)


def test_undo_removes_the_senders_last_stroke_and_only_the_owner_clears():
    """3. undo removes the sender's own last stroke as a whole; clear by the owner, refused to a member."""
    show(collaboration.check_undo_clear)


def test_reconnecting_after_n_gets_exactly_the_missed_operations_and_resends_are_duplicates():
    """4. reconnecting with ?after=N gets exactly the missed operations; a resent clientOpID is
    acknowledged as a duplicate with its original sequence."""
    show(collaboration.check_resume)


def test_a_late_joiners_snapshot_equals_the_state_built_from_the_operations():
    """5. ... and GET /api/rooms/{id}."""
    show(collaboration.check_late_joiner)


def test_permissions_of_non_members_guests_and_guests_may_draw():
    """6. non-members and guests in private rooms, guests in public rooms (read-only until the owner
    allows drawing)."""
    show(permissions.check_permissions)


def test_bad_input_is_refused_with_a_clear_error_and_changes_nothing():
    """7. malformed, unknown types, NaN, 1e999, too many points, over 64 KiB, a flood, <script> in a note."""
    show(bad_input.check_bad_input)


def test_sigkill_at_random_moments_loses_no_acknowledged_operation_on_sqlite():
    """8a. every acknowledged operation is in the log with its sequence, nothing twice."""
    show(durability.check_durability_sqlite)


@pytest.mark.postgres
def test_sigkill_at_random_moments_loses_no_acknowledged_operation_on_postgresql():
    """8b."""
    show(durability.check_durability_postgres)


@pytest.mark.postgres
def test_two_servers_on_one_postgresql_database_relay_each_others_operations():
    """9."""
    show(durability.check_two_servers)


def test_presence_who_is_here_their_views_and_leaving():
    """10."""
    show(collaboration.check_presence)


@pytest.mark.postgres
def test_presence_and_settings_reach_the_other_servers_clients_within_100_ms():
    """11. two servers on one PostgreSQL database (median and max printed); a guest may draw once
    allowed, without reconnecting."""
    show(two_servers.check_across_servers)


@pytest.mark.postgres
def test_failover_a_killed_servers_clients_resume_on_the_other_exactly():
    """12. SIGKILL one of two servers; its clients resume on the other with ?after=N, no gap and no
    duplicate, the operation in flight stored once; its people leave the other's presence."""
    show(two_servers.check_failover)


def test_history_state_at_n_the_log_folded_and_resumes_across_the_fold():
    """13. GET /api/rooms/{id}/state?at=N equals the state a client built after N (random N), the log
    folded into the history base once long (410 before it), resumes exact on both sides of the
    fold, and after a restart."""
    show(history.check_history)


def test_a_deflated_snapshot_equals_the_state_is_kept_with_the_operations_since_and_written_again():
    """14. snapshot=deflated equals the plain state, is kept and sent with the operations since it,
    and written again once the room has moved on by more than 600."""
    show(collaboration.check_deflated_snapshot)
