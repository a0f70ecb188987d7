"""The end of a run that did not end fixed: what was tried and the next steps, chosen from the situation.
Outcomes come from the real loop over the scripted fakes (or are built for setup errors)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, Sequence

from fixloop.application.advice import Situation, advise
from fixloop.application.config import Settings
from fixloop.core.integrity import is_test_file
from fixloop.core.limits import (SEARCH_CANDIDATES, SEARCH_CEILING, SEARCH_FLOOR, factor_for_twice, search_budget,
                                  search_time_up)
from fixloop.core.loop import drive, run
from fixloop.core.model import Frame, Limits, Outcome, Scope, Status, Task, TestReport, TestResult
from fixloop.core.ports import Ports
from tests.fakes import Call, Candidate, ScriptedProposer, ScriptedRunner

SOURCE = "def double(x):\n    return x + x + 1\n"


def _two_failing(sources: Mapping[str, str], calls: Sequence[Call]) -> list[TestResult]:
    return [TestResult("tests/test_m.py::test_one", "failed", exc_type="AssertionError"),
            TestResult("tests/test_m.py::test_two[\x1b[2J]", "failed", exc_type="AssertionError"),
            TestResult("tests/test_m.py::test_ok", "passed")]


def _outcome(limits: Limits, scope: Scope = Scope(), n: int = 12) -> Outcome:
    clock = iter(float(i) for i in range(10_000))
    proposer = ScriptedProposer([Candidate(f"def double(x):\n    return {i}\n", "literal" if i % 3 else "swap")
                                 for i in range(n)])
    ports = Ports(runner=ScriptedRunner({"m.py": SOURCE}, _two_failing), proposers=[proposer],
                  is_test_file=is_test_file, now=lambda: next(clock))  # type: ignore[arg-type]
    return drive(run(Task(Path("/ws"), scope, limits), ports, "r"))


def test_a_candidate_limit_stop_names_the_flag_and_a_larger_value() -> None:
    settings = Settings(max_candidates=6, search_factor=0)
    outcome = _outcome(settings.limits())
    assert outcome.stopped_by == "max_candidates"
    got = advise(Situation(outcome, settings, suspects=("m.py:2", "m.py:1"), python="/venv/bin/python",
                           no_model="no key"))
    assert got["tried"] == {"candidates": 6, "suspects": ["m.py:2", "m.py:1"], "proposers": {"scripted": 6},
                            "operators": {"literal": 4, "swap": 2}, "stopped_by": "max_candidates", "limit": 6}
    steps = got["next_steps"]
    assert steps[0].startswith("raise the candidate limit (6 now): `--max-candidates 12")
    assert "max_candidates = 12" in steps[0]
    # Several tests fail: one at a time (its node id quoted for the shell, and escaped for the screen).
    assert steps[1] == ("narrow the run to one of the 2 failing tests: `--test tests/test_m.py::test_one` "
                        "(in the editor: Fix this test)")
    # No key, so no model proposed: say which variable to set.
    assert "set ANTHROPIC_API_KEY" in steps[2]


def test_a_larger_candidate_limit_comes_with_the_wall_time_it_needs() -> None:
    settings = Settings(max_candidates=6, wall_seconds=60, search_factor=0)
    outcome = _outcome(settings.limits())
    steps = advise(Situation(outcome, settings))["next_steps"]
    # Each candidate took about 4 s of the fake clock: 6 more need more than the 60 s wall limit.
    assert "`--max-candidates 12 --wall-seconds " in steps[0] and "wall_seconds = " in steps[0], steps[0]


def test_an_offline_run_names_the_model_key_and_a_narrowed_run_does_not_narrow_again() -> None:
    settings = Settings(offline=True, search_factor=0)
    outcome = _outcome(settings.limits(), Scope("node", "tests/test_m.py::test_one"), n=3)
    assert (outcome.status, outcome.stopped_by) == (Status.GAVE_UP, "")
    steps = advise(Situation(outcome, settings, Scope("node", "tests/test_m.py::test_one"), ("m.py:2",),
                             no_model="offline"))["next_steps"]
    assert steps == ["let a model propose fixes too: run without --offline (or offline = false), with "
                     "ANTHROPIC_API_KEY set"]
    assert advise(Situation(outcome, settings, no_model=""))["next_steps"][0].startswith("narrow the run")


def test_an_offline_search_ends_after_its_share_of_time_and_says_how_to_give_it_more() -> None:
    """The fake clock ticks a second at each reading: the baseline takes one, so six baselines are less than the
    floor, and with a second a candidate the search's share of candidates does not fit in the ceiling; it ends
    there with the setting that gives it more, not at the candidate limit: a factor that doubles the run's time
    (twice six would still be under the floor)."""
    settings = Settings()
    outcome = _outcome(settings.limits(), n=SEARCH_CANDIDATES)
    assert (outcome.status, outcome.stopped_by) == (Status.LIMITS, "search_factor")
    assert 0 < outcome.candidates_evaluated < SEARCH_CANDIDATES
    assert outcome.message.endswith(
        f"stopped after {outcome.candidates_evaluated} candidates, when the run had taken {SEARCH_CEILING + 1:.0f} s "
        f"(search_factor = 6 times the baseline's 1.0 s; any run may search {SEARCH_FLOOR:.0f} s, and up to "
        f"{SEARCH_CEILING:.0f} s for its first {SEARCH_CANDIDATES} candidates)")
    steps = advise(Situation(outcome, settings))["next_steps"]
    took = outcome.durations["total"]
    twice = math.ceil(2 * took)
    assert steps[0].startswith(f"raise the offline search's time, in baselines (6 now): `--set search_factor={twice}`")
    assert search_budget(float(twice), 1.0) >= 2 * took


def test_the_search_has_its_floor_its_share_of_candidates_and_a_ceiling() -> None:
    assert search_budget(6.0, 1.0, tried=0) == SEARCH_CEILING  # its share of candidates not tried yet
    assert search_budget(6.0, 1.0, tried=SEARCH_CANDIDATES) == SEARCH_FLOOR  # tried: the floor is what is left
    assert search_budget(6.0, 3.0, tried=SEARCH_CANDIDATES) == 18.0
    assert search_budget(6.0, 10.0, tried=0) == 60.0  # a long suite's own share is past the ceiling
    assert search_budget(0.0, 1.0, tried=0) is None
    fast = search_time_up(Limits(search_factor=6.0), 1.0, 25.0, SEARCH_CANDIDATES)  # its hundred took 25 s
    assert fast is not None and fast[1].startswith(f"the offline search stopped after {SEARCH_CANDIDATES} "
                                                   "candidates, when the run had taken 25 s (")
    assert search_time_up(Limits(search_factor=6.0), 1.0, SEARCH_FLOOR + 1, SEARCH_CANDIDATES - 1) is None
    assert search_time_up(Limits(search_factor=6.0), 5.0, 29.0, 3) is None
    assert search_time_up(Limits(search_factor=6.0), 5.0, 31.0, 3) is not None  # its own share, past the ceiling
    # A fix of some targets 20 s in: the others get the search's time again, counted from it.
    assert search_time_up(Limits(search_factor=6.0), 5.0, 45.0, 30, since=20.0) is None
    again = search_time_up(Limits(search_factor=6.0), 5.0, 51.0, 30, since=20.0)
    assert again is not None and "when the run had taken 51 s, 31 s after its last fix of some targets (" in again[1]
    assert factor_for_twice(6.0, 1.0, took=31.0) == 62  # what the run took, doubled, in baselines
    assert factor_for_twice(6.0, 10.0, took=61.0) == 13
    assert factor_for_twice(6.0, 0.0, took=31.0) == 12


def test_the_offline_proposers_share_one_search_time() -> None:
    """A strategy that puts the offline engine's head before its rest (or another offline proposer after
    it) gives them one time limit between them, and the run still ends naming it."""
    clock = iter(float(i) for i in range(10_000))
    first, rest = (ScriptedProposer([Candidate(f"def double(x):\n    return {i}{tag}\n", "literal") for i in range(40)],
                                    name=name) for tag, name in (("", "head"), (" + 0", "rest")))
    ports = Ports(runner=ScriptedRunner({"m.py": SOURCE}, _two_failing), proposers=[first, rest],
                  is_test_file=is_test_file, now=lambda: next(clock))  # type: ignore[arg-type]
    outcome = drive(run(Task(Path("/ws"), Scope(), Settings().limits()), ports, "r"))
    assert (outcome.status, outcome.stopped_by) == (Status.LIMITS, "search_factor")
    assert {a.patch.proposer for a in outcome.attempts} == {"head"}  # the rest found the time spent


def test_other_limits_name_their_own_setting() -> None:
    settings = Settings(wall_seconds=300)
    for key, start in (("wall_seconds", "raise the wall-time limit (300 now): `--wall-seconds 600`"),
                       ("max_iterations", "raise the limit on model rounds (60 now): `--max-iterations 120`"),
                       ("max_cost_usd", "raise the cost budget (2 now): `--set max_cost_usd=4.00`"),
                       ("breaker_repeats", "raise how often the same failure may come back"),
                       ("search_factor", "raise the offline search's time, in baselines (6 now): "
                                         "`--set search_factor=12`")):
        outcome = Outcome(Status.LIMITS, "r", baseline=TestReport((TestResult("t.py::a", "failed"),)),
                          stopped_by=key, candidates_evaluated=3, durations={"candidates": 30.0, "total": 300.0})
        assert advise(Situation(outcome, settings, suspects=("m.py:1",)))["next_steps"][0].startswith(start), key


def test_setup_errors_get_their_specific_fix() -> None:
    python = "/home/u/.venv/bin/python"
    missing = TestReport(collection_errors=("tests/test_m.py: E   ModuleNotFoundError: No module named 'calc'",))
    steps = advise(Situation(Outcome(Status.GAVE_UP, "r", baseline=missing), Settings(), python=python))["next_steps"]
    assert steps[0].startswith(f"the tests cannot import 'calc' with {python}: point --python at the interpreter")
    assert f"`{python} -m pip install -e .`" in steps[0]

    syntax = TestReport(collection_errors=("tests/test_m.py: E   SyntaxError: invalid syntax (m.py, line 3)",))
    steps = advise(Situation(Outcome(Status.GAVE_UP, "r", baseline=syntax), Settings(), python=python))["next_steps"]
    assert steps[0].startswith("fix what stops pytest from collecting the tests (tests/test_m.py: SyntaxError")
    assert f"`{python} -m pytest --collect-only -q`" in steps[0]

    slow = TestReport((TestResult("t.py::slow", "failed", exc_type="Timeout"),), timed_out=True)
    steps = advise(Situation(Outcome(Status.GAVE_UP, "r", baseline=slow), Settings(test_timeout=120)))["next_steps"]
    assert "per-run limit of 120 s" in steps[0] and "`--test-timeout 240`" in steps[0]
    assert steps[1].startswith("1 test(s) hit the per-test time limit (t.py::slow)") and "--per-test-timeout 60" in steps[1]

    no_pytest = TestReport(problem="pytest is not installed in the project's interpreter")
    steps = advise(Situation(Outcome(Status.ERROR, "r", baseline=no_pytest), Settings(), python=python))["next_steps"]
    assert steps == [f"install pytest for the interpreter that runs the tests: `{python} -m pip install pytest`, "
                     "or point --python at the project's virtualenv"]

    sandbox = Outcome(Status.ERROR, "r", "bwrap cannot create a namespace here")
    assert "fixloop doctor" in advise(Situation(sandbox, Settings(), setup_error="sandbox"))["next_steps"][0]


def test_fixed_cancelled_and_passing_runs_need_no_next_step() -> None:
    passing = TestReport((TestResult("t.py::a", "passed"),))
    for status in (Status.FIXED, Status.CANCELLED, Status.NOTHING_TO_FIX):
        assert advise(Situation(Outcome(status, "r", baseline=passing), Settings()))["next_steps"] == []
    empty = Outcome(Status.NOTHING_TO_FIX, "r", "no tests were collected", baseline=TestReport())
    assert "--collect-only" in advise(Situation(empty, Settings()))["next_steps"][0]


def _three_failing_two_ways(sources: Mapping[str, str], calls: Sequence[Call]) -> list[TestResult]:
    """An old failure of the test itself, and two tests that fail where the bug is."""
    raised = (Frame("tests/test_m.py", 3, "test_len"), Frame("m.py", 2, "check"))
    return [TestResult("tests/test_a.py::test_warns", "failed", exc_type="Failed",
                       frames=(Frame("tests/test_a.py", 9, "test_warns"),)),
            TestResult("tests/test_m.py::test_len[spam]", "failed", exc_type="ValueError", frames=raised),
            TestResult("tests/test_m.py::test_len[eggs]", "failed", exc_type="ValueError", frames=raised),
            TestResult("tests/test_m.py::test_ok", "passed")]


def test_tests_that_fail_in_different_ways_are_narrowed_to_the_commonest_way() -> None:
    clock = iter(float(i) for i in range(10_000))
    proposer = ScriptedProposer([Candidate(f"def double(x):\n    return {i}\n", "literal") for i in range(3)])
    ports = Ports(runner=ScriptedRunner({"m.py": SOURCE}, _three_failing_two_ways), proposers=[proposer],
                  is_test_file=is_test_file, now=lambda: next(clock))  # type: ignore[arg-type]
    settings = Settings(offline=True, search_factor=0)
    outcome = drive(run(Task(Path("/ws"), Scope(), settings.limits()), ports, "r"))
    steps = advise(Situation(outcome, settings))["next_steps"]
    assert ("narrow the run to one of the 3 failing tests: they fail in 2 ways, the commonest (2 of them) "
            "ValueError in m.py (check): `--test 'tests/test_m.py::test_len[spam]'` (in the editor: Fix this "
            "test)") in steps, steps
