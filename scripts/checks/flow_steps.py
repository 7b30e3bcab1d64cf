"""The steps of one flow: a browser session (or two) carried from test to test, in file order
(test_web.py, test_rooms_page.py and the modules that carry them on, test_tour.py). A step runs only when every step before it ran in this
session: it carries on from the page, the account and the room they left. Otherwise it is skipped,
saying which step it needs; so is every step after one that stopped on an error. A step whose checks
failed (its test FAILs listing them) still counts as run: the flow goes on, as the scripts did."""
import sys

import pytest


class FlowSteps:
    def __init__(self, names):
        self.names = list(names)
        self.ran = set()
        self.broken = None   # where the flow stopped on an error

    def step(self, name=None):
        """`with flow.step():` in a step's test (named after the test calling it)."""
        return _Step(self, name or sys._getframe(1).f_code.co_name)


class _Step:
    def __init__(self, flow, name):
        self.flow, self.name = flow, name

    def __enter__(self):
        flow = self.flow
        if flow.broken:
            pytest.skip(f"the flow stopped earlier: {flow.broken}")
        earlier = flow.names[:flow.names.index(self.name)]
        missing = [n for n in earlier if n not in flow.ran]
        if missing:
            pytest.skip(f"it carries on from {missing[-1]}, which did not run in this session "
                        f"(select the flow from its first step, {flow.names[0]})")

    def __exit__(self, kind, error, tb):
        if error is None:
            self.flow.ran.add(self.name)
        elif not isinstance(error, pytest.skip.Exception):
            self.flow.broken = f"{self.name}: {error!r}"[:300]
        return False
