"""The check of a fix no run produced (memory's past fix): refused like any candidate before anything runs,
then judged by the tests it breaks, in the real sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from fixloop.application.config import Settings
from fixloop.core.model import Event, FileChange, Patch, Status
from fixloop.application.fixcheck import FixCheck
from fixloop.application.run import RunRequest
from tests.conftest import PYTHON

CODE = "LIMIT = 3\n\n\ndef over(n):\n    return n > LIMIT\n"
FIXED = CODE.replace("n > LIMIT", "n >= LIMIT")
TESTS = "from pkg.mod import over\n\n\ndef test_at_the_limit():\n    assert over(3)\n"


def check(root: Path, patch: Patch, overlays: dict[str, str] | None = None) -> tuple[FixCheck, list[Event]]:
    events: list[Event] = []
    session = FixCheck(RunRequest(root, Settings(python=PYTHON), overlays=overlays or {}), patch, "m1")
    session.run(events.append)
    return session, events


def fix(path: str = "pkg/mod.py", before: str = CODE, after: str = FIXED) -> Patch:
    return Patch((FileChange(path, before, after),), "memory", "replay")


def test_a_fix_that_edits_a_test_is_refused_before_anything_runs(make_project: Callable[..., Path]) -> None:
    root = make_project({"pkg/__init__.py": "", "pkg/mod.py": CODE, "tests/test_mod.py": TESTS})
    session, _ = check(root, fix("tests/test_mod.py", TESTS, TESTS.replace("over(3)", "over(4)")))
    assert session.outcome is not None and session.outcome.status is Status.GAVE_UP
    assert session.summary["message"] == "the past fix is refused: it edits a test file (tests/test_mod.py)"
    assert session.summary["test_runs"] == 0 and session.summary["memory_id"] == "m1"
    assert (root / "tests" / "test_mod.py").read_text() == TESTS


def test_an_unsafe_fix_is_refused_before_anything_runs(make_project: Callable[..., Path]) -> None:
    root = make_project({"pkg/__init__.py": "", "pkg/mod.py": CODE})
    session, _ = check(root, fix(after=CODE.replace("return n > LIMIT", "return __import__('os').system('id')")))
    assert session.summary["status"] == "gave_up" and session.summary["test_runs"] == 0
    assert session.summary["message"].startswith("the past fix is refused by the safety check")


def test_a_fix_made_on_text_the_editor_no_longer_has_is_not_checked(make_project: Callable[..., Path]) -> None:
    root = make_project({"pkg/__init__.py": "", "pkg/mod.py": CODE})
    session, _ = check(root, fix(), overlays={"pkg/mod.py": CODE + "\n# typed since\n"})
    assert session.summary["status"] == "gave_up" and session.summary["test_runs"] == 0
    assert "pkg/mod.py changed since the past fix was asked for" in session.summary["message"]


@pytest.mark.e2e  # three sandboxed pytest runs on two scratch copies
def test_only_the_tests_a_fix_breaks_count_against_it(make_project: Callable[..., Path]) -> None:
    broken_elsewhere = "def test_unrelated_and_already_failing():\n    assert 1 == 2\n"
    root = make_project({"pkg/__init__.py": "", "pkg/mod.py": CODE, "tests/test_mod.py": TESTS,
                         "tests/test_other.py": broken_elsewhere})
    session, events = check(root, fix())
    assert session.summary["status"] == "fixed", session.summary
    assert session.summary["message"] == "the past fix breaks none of the project's 2 tests (1 fail with or without it)"
    assert session.summary["check"] == {"tests": 2, "failing": ["tests/test_other.py::test_unrelated_and_already_failing"],
                                        "broken": []}
    assert session.summary["test_runs"] == 2 and [e.kind for e in events][-1] == "finished"
    assert (root / "pkg" / "mod.py").read_text() == CODE  # checked on a copy: nothing written

    no_tests = make_project({"pkg/__init__.py": "", "pkg/mod.py": CODE}, name="bare")
    session, _ = check(no_tests, fix())
    assert session.summary["status"] == "fixed" and "has no tests" in session.summary["message"]
