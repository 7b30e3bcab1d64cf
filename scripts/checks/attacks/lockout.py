"""13. Locking someone out (issue 29, finding 8): a stranger keeps one wrong sign-in for the
victim's e-mail always in flight from one address while the victim signs in with the right
password from another, every half second for 20 s. Before, every one of the victim's sign-ins got
429 (the failures were counted per e-mail); now they count per e-mail and address, so the
stranger slows only their own attempts and the victim gets in every time."""
import threading
import time

from proteinar_testing import attack_tools as tools

ATTACKER = "127.0.0.50"
VICTIM = "127.0.0.51"
EMAIL = "victim@example.org"
PASSWORD = "correct horse battery"
DURATION = 20.0
EVERY = 0.5


def sign_in(server, password, source):
    return tools.try_request(server, "POST", "/api/sessions", body={"email": EMAIL, "password": password, "kind": "token"},
                             source=source, timeout=60)


def check_lockout(a):
    s = a.serve(name="attack13")
    made = tools.try_request(s, "POST", "/api/accounts", body={"email": EMAIL, "password": PASSWORD, "kind": "token"}, source="127.0.0.52")
    a.check("the victim's account is made", made.status == 201, f"HTTP {made.status} {tools.message(made)}")
    stop = time.monotonic() + DURATION
    attacker = []

    def keep_failing():
        while time.monotonic() < stop:
            attacker.append(sign_in(s, "wrong password!", ATTACKER).status)
    thread = threading.Thread(target=keep_failing)
    thread.start()
    time.sleep(2.0)   # the stranger's failures pile up first
    victim = []
    while time.monotonic() < stop:
        started = time.monotonic()
        r = sign_in(s, PASSWORD, VICTIM)
        victim.append((r.status, r.elapsed))
        time.sleep(max(0.0, EVERY - (time.monotonic() - started)))
    thread.join()
    statuses = [st for st, _ in victim]
    slowest = max((e for _, e in victim), default=0.0)
    a.figure(f"a stranger failing on purpose for {DURATION:.0f} s from {ATTACKER}: {tools.status_counts(attacker)}; "
             f"the victim's sign-ins from {VICTIM}, every {EVERY} s: {tools.status_counts(statuses)}, the slowest {slowest:.2f} s",
             table=f"victim {statuses.count(200)} of {len(statuses)} signed in; stranger {tools.status_counts(attacker)}")
    a.check("every one of the victim's sign-ins succeeds (200)", statuses and all(st == 200 for st in statuses), tools.status_counts(statuses))
    a.check("the stranger's own attempts are slowed (at most 5 free, then one at a time with a growing wait)",
            len(attacker) <= 5 + DURATION and all(st in (401, 429) for st in attacker), f"{len(attacker)} attempts: {tools.status_counts(attacker)}")
