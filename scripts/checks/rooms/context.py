"""The run: its settings (set by test_rooms.py's fixture), the servers it starts, the shared main
server and users."""
from proteinar_testing.accounts import Account
from proteinar_testing.server import ServerProcess


class Run:
    binary = None   # the proteinar binary
    verbose = False  # more detail from bad_input and permissions
    tmp = None      # server logs and data; kept when a check fails
    shared = {}


RUN = Run()


def new_server(name="server", database_url=None, extra=()):
    """One `proteinar serve` with no starter library; SQLite in a new folder under RUN.tmp, or
    PostgreSQL at `database_url`; `extra`: more options. Its log is RUN.tmp/NAME-N.log."""
    return ServerProcess(RUN.binary, work=RUN.tmp, database_url=database_url, starter=False, name=name, extra=extra)


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
