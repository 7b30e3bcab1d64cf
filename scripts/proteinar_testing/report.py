"""How checks say what they found: `ok   NAME`, `FAIL NAME (detail)`, `skip NAME (why)` lines and a
final `N passed, M failed[, K skipped]`; and the exceptions a check raises for a broken expectation
(Fail) or for something it cannot run here (Skip)."""
import json
import sys


class Fail(Exception):
    """A check's expectation not met: the message says what was expected and what arrived."""


class Skip(Exception):
    """A check that cannot run here (say, no PostgreSQL): the message says why."""


def short(value, limit=300):
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


def expect(condition, message):
    if not condition:
        raise Fail(message)


def finish_comparison(passed, failed, files):
    """Ends a comparison with independent tools: a run that compared nothing fails (every file
    skipped is no evidence), then the `N passed, M failed` line and the exit code."""
    if passed + failed == 0:
        print(f"FAIL nothing compared: all {len(files)} files were skipped")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


class Tally:
    """Counts checks as they are printed."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def check(self, name, ok, detail=""):
        print(("ok   " if ok else "FAIL ") + name + (f" ({detail})" if detail and not ok else ""), flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok

    def skip(self, name, why):
        print(f"skip {name} ({why})", flush=True)
        self.skipped += 1

    def summary(self):
        """The last line: `N passed, M failed` (and `, K skipped` when some were)."""
        return f"{self.passed} passed, {self.failed} failed" + (f", {self.skipped} skipped" if self.skipped else "")

    def exit_code(self):
        return 1 if self.failed else 0


class SoftChecks(Tally):
    """A test's checks (the conftest's `checks` fixture): each printed as it is made, as Tally does,
    and the failures kept, so that the test fails at its end listing every one."""

    def __init__(self):
        super().__init__()
        self.failures = []

    def check(self, name, ok, detail=""):
        if not ok:
            self.failures.append(name + (f" ({detail})" if detail else ""))
        return super().check(name, ok, detail)

    __call__ = check
