"""The typed run result: the summary's stable keys, written in one place, for each kind of run."""

from __future__ import annotations

from fixloop.application.result import SUMMARY_SCHEMA, CheckPart, GoalPart, RunResult
from fixloop.cli import Offered
from fixloop.core.model import FileChange, Outcome, Patch, Status, Usage

FIX = Patch((FileChange("pkg/mod.py", "x = 1\n", "x = 2\n"),), "mutation", "integer_nudge", "1 -> 2")
KEYS = {"schema", "status", "message", "run_id", "files_changed", "diff", "proposer", "operator", "source",
        "iterations", "candidates_evaluated", "plausible_fixes", "test_runs", "llm_calls", "tokens", "input_tokens",
        "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd", "wall_seconds", "durations",
        "flaky", "still_failing", "failing_before", "run_dir", "run_log_notice", "python", "limits"}


def test_a_fix_runs_result_has_the_stable_keys_and_its_diff_is_made_once() -> None:
    outcome = Outcome(Status.FIXED, "r1", "fixed", FIX, usage=Usage(1, 10, 5, cost_usd=0.0012345678),
                      durations={"total": 1.23456})
    result = RunResult(outcome, run_dir="/ws/.fixloop/runs/r1", strategy={"strategy": "mutation-first"},
                       advice={"tried": {}, "next_steps": []}, hooks=("post_fix hook ran",))
    summary = result.as_json()
    assert KEYS <= set(summary) and summary["schema"] == SUMMARY_SCHEMA
    assert summary["files_changed"] == ["pkg/mod.py"] and "-x = 1\n+x = 2\n" in summary["diff"]
    assert summary["tokens"] == 15 and summary["cost_usd"] == 0.001235 and summary["wall_seconds"] == 1.235
    assert summary["strategy"] == "mutation-first" and summary["hooks"] == ["post_fix hook ran"]
    assert "review" not in summary and "audit" not in summary and "install" not in summary and "goal" not in summary
    assert result.diff is result.diff  # made once, however often it is read


def test_a_goal_runs_fix_starts_with_its_new_test_from_dev_null() -> None:
    with_test = Patch((FileChange("tests/test_goal.py", "", "def test_x():\n    pass\n"),) + FIX.changes,
                      FIX.proposer, FIX.operator, FIX.summary, {"new_files": ("tests/test_goal.py",)})
    result = RunResult(Outcome(Status.FIXED, "r2", "fixed", with_test),
                       goal=GoalPart("x should be 2", test_file="tests/test_goal.py", assumptions=("a",)))
    summary = result.as_json()
    assert summary["files_changed"] == ["tests/test_goal.py", "pkg/mod.py"]
    assert summary["diff"].startswith("--- /dev/null\n+++ b/tests/test_goal.py\n@@ -0,0 +1,2 @@\n")
    assert "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n" in summary["diff"]
    assert summary["goal"] == "x should be 2" and summary["goal_problem"] == "" and summary["assumptions"] == ["a"]


def test_a_refused_past_fix_still_shows_what_was_checked() -> None:
    result = RunResult(Outcome(Status.GAVE_UP, "memory-m1-3", "the past fix makes 1 test fail: t"),
                       check=CheckPart("m1", FIX, tests=4, failing=("t",), broken=("t",)))
    summary = result.as_json()
    assert summary["status"] == "gave_up" and summary["memory_id"] == "m1"
    assert summary["files_changed"] == ["pkg/mod.py"] and "+x = 2" in summary["diff"] and summary["proposer"] == ""
    assert summary["check"] == {"tests": 4, "failing": ["t"], "broken": ["t"]}


def test_what_became_of_the_fix_is_added_without_changing_the_result() -> None:
    result = RunResult(Outcome(Status.FIXED, "r3", "fixed", FIX), hooks=("post_fix hook ran",))
    summary = result.as_json()
    applied = Offered(applied=True, said=("on_apply hook ran",), fixed=True).summary(summary)
    assert applied["applied"] and applied["hooks"] == ["post_fix hook ran", "on_apply hook ran"]
    assert applied["saved"] is None and "conflicts" not in applied and "blocked" not in applied
    refused = Offered(conflicts=("pkg/mod.py changed",), fixed=True).summary(summary)
    assert not refused["applied"] and refused["conflicts"] == ["pkg/mod.py changed"]
    assert Offered(blocked="audit").summary(summary)["blocked"] == "audit"
    assert "saved" not in Offered().summary(summary) and summary == result.as_json()
