"""Cancelling a running session stops it within about a second and kills the test processes."""

from __future__ import annotations

import threading

import pytest

from fixloop.application.config import load
from fixloop.application.run import RunRequest
from fixloop.core.model import Event, Status
from fixloop.application.session import FixSession
from tests.conftest import PYTHON

SLOW_TESTS = (
    "import time\nfrom lib import add\n\n"
    "def test_add():\n    time.sleep(0.5)\n    assert add(2, 3) == 5\n\n"
    "def test_slow():\n    time.sleep(0.5)\n"
)


@pytest.mark.e2e  # a whole fix session whose tests sleep
def test_cancel_during_candidates(make_project) -> None:
    root = make_project({"lib.py": "def add(a, b):\n    return a * b * 1 - 0 + (a - b) * 0\n",
                         "tests/test_lib.py": SLOW_TESTS})
    settings, _ = load({"python": PYTHON, "sandbox": {"backend": "none"}, "memory": {"enabled": False},
                        "offline": True})
    session = FixSession(RunRequest(root, settings))
    seen = threading.Event()

    def on_event(event: Event) -> None:
        if event.kind == "candidate":
            seen.set()

    worker = threading.Thread(target=session.run, args=(on_event,))
    worker.start()
    assert seen.wait(60), "no candidate was proposed"
    session.cancel()
    worker.join(60)
    assert not worker.is_alive()
    assert session.outcome is not None and session.outcome.status is Status.CANCELLED
    assert session.summary["status"] == "cancelled"
    assert session.outcome.candidates_evaluated <= 2  # stopped at the next check, not at the end
    assert not session.runner.root.exists()  # the scratch copy is gone
