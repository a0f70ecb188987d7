"""Which failing tests no change to the code can fix (core/environment.py)."""

from __future__ import annotations

from fixloop.core.environment import outside_the_code
from fixloop.core.model import Frame, TestReport, TestResult

CONFTEST = Frame("tests/conftest.py", 8, "german")
LOCALE = Frame("/usr/lib/python3.11/locale.py", 620, "setlocale", in_project=False)
SOURCE = Frame("shop/prices.py", 3, "total")


def error(nodeid: str, exc_type: str, *frames: Frame, outcome: str = "error") -> TestResult:
    return TestResult(nodeid, outcome, exc_type=exc_type, message=f"{exc_type}: it failed", frames=frames)


def test_a_set_up_that_fails_in_a_library_or_on_the_machine_is_set_apart() -> None:
    results = (error("t1", "Error", CONFTEST, LOCALE), error("t2", "FileNotFoundError", CONFTEST),
               error("t3", "AssertionError", Frame("tests/test_p.py", 5, "test_total"), outcome="failed"))
    kept, note = outside_the_code(TestReport(results), ("t1", "t2", "t3"))
    assert kept == ("t3",)
    assert note.startswith("2 failing test(s) error in their set-up before any of the project's code runs "
                           "(tests/conftest.py:german: Error: Error: it failed)")
    assert note.endswith("the search fixes the other 1")


def test_what_the_code_may_have_caused_stays_a_target() -> None:
    results = (error("code", "ValueError", CONFTEST, SOURCE),  # the fixture called the project's code
               error("renamed", "ImportError", CONFTEST),  # `from shop import totl` in the fixture itself
               error("asserted", "AssertionError", CONFTEST),  # a fixture's check of the project's values
               error("call", "Error", CONFTEST, LOCALE, outcome="failed"),  # in the test's call, not its set-up
               error("bare", "OSError"))  # no traceback to judge by
    kept, note = outside_the_code(TestReport(results), ("code", "renamed", "asserted", "call", "bare"))
    assert kept == ("code", "renamed", "asserted", "call", "bare") and note == ""


def test_when_only_set_ups_fail_nothing_is_left_to_fix() -> None:
    kept, note = outside_the_code(TestReport((error("t1", "Error", CONFTEST, LOCALE),)), ("t1",))
    assert kept == () and note.endswith("nothing the code can fix fails (fix the set-up, then run again)")
