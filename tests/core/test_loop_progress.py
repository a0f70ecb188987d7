"""What the loop tells a waiting user: where each candidate changes the code, the candidate limit, the
confirmation run of a candidate that passes the failing tests, and which limit ended a run."""

from __future__ import annotations

from fixloop.core.model import FileChange, Limits, Patch, Status
from fixloop.core.patch import changed_at
from tests.core.test_loop import GOOD, _run
from tests.fakes import ScriptedProposer


def test_candidate_events_say_where_they_change_the_code_and_the_limit() -> None:
    proposer = ScriptedProposer(["def double(x):\n    return x * x + 1\n", GOOD])
    outcome, events, _ = _run([proposer], limits=Limits(max_candidates=40))
    assert outcome.status is Status.FIXED
    candidates = [e for e in events if e.kind == "candidate"]
    assert [(e.data["where"], e.data["limit"]) for e in candidates] == [("m.py:2", 40), ("m.py:2", 40)]
    # Only the candidate that passed the failing tests gets the whole-suite run, announced before it starts.
    kinds = [(e.kind, e.candidate) for e in events if e.kind in ("confirming", "tested")]
    assert kinds == [("tested", 1), ("confirming", 2), ("tested", 2)]
    assert next(e for e in events if e.kind == "confirming").phase == "confirm"
    assert outcome.stopped_by == ""


def test_the_limit_that_ended_a_run_is_named_by_its_setting() -> None:
    bad = [f"def double(x):\n    return {i}\n" for i in range(10)]
    outcome, _, _ = _run([ScriptedProposer(bad)], limits=Limits(max_candidates=3))
    assert (outcome.status, outcome.stopped_by) == (Status.LIMITS, "max_candidates")
    repeats = [f"def double(x):\n    return x + x + {i}\n" for i in range(2, 10)]
    outcome, _, _ = _run([ScriptedProposer(repeats, adaptive=True)], limits=Limits(breaker_repeats=3))
    assert (outcome.status, outcome.stopped_by) == (Status.GAVE_UP, "breaker_repeats")
    outcome, _, _ = _run([ScriptedProposer(bad, adaptive=True)], limits=Limits(max_iterations=2, breaker_repeats=9))
    assert (outcome.status, outcome.stopped_by) == (Status.LIMITS, "max_iterations")
    outcome, _, _ = _run([ScriptedProposer(bad[:2])])
    assert (outcome.status, outcome.stopped_by) == (Status.GAVE_UP, "")  # out of candidates: no limit ended it


def test_changed_at_prefers_the_line_the_proposer_names() -> None:
    change = FileChange("pkg/m.py", "a\nb\nc\n", "a\nB\nc\n")
    assert changed_at(Patch((change,))) == "pkg/m.py:2"
    assert changed_at(Patch((change,), meta={"line": 7})) == "pkg/m.py:7"
    assert changed_at(Patch((FileChange("new.py", "", "x = 1\n"),))) == "new.py:1"
    assert changed_at(Patch((FileChange("m.py", "a\n", "a\nb\n"),))) == "m.py:2"  # an appended line
    assert changed_at(Patch(())) == ""
