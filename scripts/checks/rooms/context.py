"""The run: its settings (set by check-rooms.py), the servers it starts, the shared main server and
users, and the tally of numbered checks."""
import time

from proteinar_testing.accounts import Account
from proteinar_testing.report import Fail, Skip, short
from proteinar_testing.server import ServerProcess


class Run:
    binary = None   # the proteinar binary
    only = None     # check numbers to run ({"2", "8"}), or None for all
    verbose = False
    tmp = None      # server logs and data; kept when a check fails
    results = {"passed": 0, "failed": 0, "skipped": 0}
    shared = {}


RUN = Run()


def new_server(name="server", database_url=None, extra=()):
    """One `proteinar serve` with no starter library; SQLite in a new folder under RUN.tmp, or
    PostgreSQL at `database_url`; `extra`: more options. Its log is RUN.tmp/NAME-N.log."""
    return ServerProcess(RUN.binary, work=RUN.tmp, database_url=database_url, starter=False, name=name, extra=extra)


def run(number, name, fn):
    if RUN.only and number.rstrip("abcdefgh") not in RUN.only and number not in RUN.only:
        return
    results = RUN.results
    started = time.monotonic()
    try:
        note = fn()
    except Fail as e:
        results["failed"] += 1
        print(f"FAIL {number} {name}: {e}", flush=True)
        return
    except Skip as e:
        results["skipped"] += 1
        print(f"skip {number} {name}: {e}", flush=True)
        return
    except Exception as e:  # noqa: BLE001 — a crash of the check is a failure with its reason
        results["failed"] += 1
        print(f"FAIL {number} {name}: {type(e).__name__}: {short(str(e), 400)}", flush=True)
        return
    results["passed"] += 1
    print(f"ok   {number} {name}{' (' + note + ')' if note else ''} [{time.monotonic() - started:.1f} s]", flush=True)


def main_server():
    if "main" not in RUN.shared:
        RUN.shared["main"] = new_server("main")
    return RUN.shared["main"]


def users():
    """Ada (owns rooms), Ben (a member), Cy (signed in, a member of nothing): bearer tokens."""
    if "users" not in RUN.shared:
        s = main_server()
        RUN.shared["users"] = (Account(s, "Ada"), Account(s, "Ben"), Account(s, "Cy"))
    return RUN.shared["users"]
