"""Whole fix sessions on small generated projects whose timings matter: a slow but correct test, and a suite
long enough that candidates are screened on the tests that run the changed code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixloop.application.config import Settings, load
from fixloop.application.run import RunRequest
from fixloop.core.model import Status
from fixloop.application.session import FixSession
from tests.conftest import PYTHON

CALC = "def inc(x):\n    return x - 1\n\n\ndef dec(x):\n    return x - 1\n"
TEST_CALC = ("from calc import dec, inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n\n\n"
             "def test_inc_type():\n    assert isinstance(inc(1), int)\n\n\ndef test_dec():\n    assert dec(1) == 0\n")
# A correct computation that burns CPU for a set time: to a CPU probe it looks like a loop that never ends.
HEAVY = ("import time\n\n\ndef crunch(seconds):\n    t0 = time.process_time()\n    n = 0\n"
         "    while time.process_time() - t0 < seconds:\n        n += 1\n    return n\n")


def _settings(**extra: object) -> Settings:
    settings, problems = load({"python": PYTHON, "sandbox": {"backend": "none"}, "memory": {"enabled": False},
                               "offline": True, **extra})
    assert not problems
    return settings


def _events(session: FixSession) -> list[dict[str, Any]]:
    path = Path(session.summary["run_dir"]) / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.e2e
def test_a_slow_but_correct_test_is_not_called_hung_and_localization_stays_away_from_it(make_project) -> None:
    """The test computes for 3.5 s, past the CPU probe (1 s here, three times that under coverage: before, that
    made it "probably looping forever", a failure, and a suspect); judged again alone it passes."""
    root = make_project({"calc.py": CALC, "heavy.py": HEAVY, "tests/test_calc.py": TEST_CALC,
                         "tests/test_heavy.py": "from heavy import crunch\n\n\ndef test_crunch():\n"
                                                "    assert crunch(3.5) > 0\n"})
    session = FixSession(RunRequest(root, _settings(hang_probe_seconds=1.0)))
    outcome = session.run()
    assert outcome.status is Status.FIXED, outcome.message
    assert session.summary["failing_before"] == ["tests/test_calc.py::test_inc"]
    events = _events(session)
    suspects = next(e for e in events if e["kind"] == "localized")["suspects"]
    assert suspects and not any(s.startswith("heavy.py") for s in suspects), suspects
    notes = [e["message"] for e in events if e["kind"] == "note"]
    assert any("slow, not stuck" in n and "tests/test_heavy.py::test_crunch" in n for n in notes), notes


@pytest.mark.e2e
def test_a_long_suite_screens_on_the_covering_tests_and_confirms_on_the_whole_suite(make_project) -> None:
    """Three sleeping tests make the suite cross the threshold (2 s here); a candidate on `inc`
    is screened on the failing test, then on the one passing test that runs `inc`, never on the sleeping ones;
    the fix is confirmed by all five tests."""
    slow = "".join(f"\n\ndef test_slow_{i}():\n    time.sleep(0.8)\n" for i in range(3))
    root = make_project({"calc.py": CALC, "tests/test_calc.py": TEST_CALC, "tests/test_slow.py": "import time" + slow})
    session = FixSession(RunRequest(root, _settings(select_covering_after=2.0)))
    outcome = session.run()
    assert outcome.status is Status.FIXED, outcome.message
    events = _events(session)
    assert not any(e.get("selection") == "covering" for e in events if e["kind"] == "note")  # not 10 s long
    runs = [e["runs"] for e in events if e["kind"] == "tested"]
    covering = [r for candidate in runs for r in candidate if r["selection"] == "covering"]
    assert covering and all(r["tests"] == ["tests/test_calc.py::test_inc_type"] and r["ran"] == 1 for r in covering)
    fixed = next(e["runs"] for e in events if e["kind"] == "tested" and e["status"] == "plausible")
    assert [r["selection"] for r in fixed] == ["targets", "covering", "full"]
    assert fixed[0]["tests"] == ["tests/test_calc.py::test_inc"] and fixed[2]["ran"] == 6
