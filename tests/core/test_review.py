"""The reviewer's word before a fix is offered: accept, prefer another plausible fix, or reject and search on."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from fixloop.core.model import Patch, Status
from fixloop.core.ports import Calls, ProposalContext
from fixloop.application.config import Settings, project_table
from fixloop.core.model import ACCEPT, PREFER, REJECT, Numbered, Review
from fixloop.core.review import OfflineReviewer
from tests.core.test_loop import GOOD, _run
from tests.fakes import ScriptedProposer

# Both make the scripted test pass; the second is the larger change.
ALSO_GOOD = "def double(x):\n    x = int(x)\n    return x + x\n"


class Verdicts:
    """A reviewer that answers from a script (the model reviewer is tested against the scripted server)."""

    def __init__(self, *answers: Review) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[int, list[int]]] = []

    def review(self, winner: Numbered, plausible: Sequence[Numbered], ctx: ProposalContext) -> Review:
        self.asked.append((winner[0], [n for n, _ in plausible]))
        return self.answers.pop(0)


def after(patch: Patch | None) -> str:
    assert patch is not None
    return patch.changes[0].after


def test_an_accepted_fix_is_offered_and_the_review_is_an_event() -> None:
    reviewer = Verdicts(Review(ACCEPT, "fixes the root cause", "scripted"))
    outcome, events, _ = _run([ScriptedProposer([GOOD])], reviewer=reviewer)
    assert outcome.status is Status.FIXED and after(outcome.patch) == GOOD
    reviewed = [e for e in events if e.kind == "reviewed"]
    assert [(e.candidate, e.data["verdict"], e.data["reason"]) for e in reviewed] == [(1, "accept", "fixes the root cause")]
    assert outcome.patch is not None and outcome.patch.meta["review"] == "accept (scripted)"  # for the memory's fix row


def test_a_rejected_fix_makes_the_search_go_on_to_the_next_one() -> None:
    reviewer = Verdicts(Review(REJECT, "only fits the tests", "scripted"), Review(ACCEPT, "good", "scripted"))
    proposer = ScriptedProposer([GOOD, ALSO_GOOD])  # after a fix the search looks only for smaller ones
    outcome, events, _ = _run([proposer], reviewer=reviewer)
    assert outcome.status is Status.FIXED and after(outcome.patch) == ALSO_GOOD
    assert reviewer.asked == [(1, [1]), (2, [2])]  # the rejected fix is out of the running, the search went on
    assert [e.data["verdict"] for e in events if e.kind == "reviewed"] == ["reject", "accept"]


def test_the_reviewer_may_prefer_another_plausible_fix() -> None:
    reviewer = Verdicts(Review(PREFER, "the larger one also handles y", "scripted", prefer=1))
    proposer = ScriptedProposer([ALSO_GOOD, GOOD])
    outcome, _, _ = _run([proposer], reviewer=reviewer)
    assert reviewer.asked == [(2, [1, 2])]  # the smaller one leads, both are shown
    assert outcome.status is Status.FIXED and after(outcome.patch) == ALSO_GOOD


def test_a_run_whose_every_fix_is_rejected_gives_up_saying_why() -> None:
    reviewer = Verdicts(*[Review(REJECT, "special-cases the test input", "scripted")] * 3)
    outcome, _, _ = _run([ScriptedProposer([GOOD])], reviewer=reviewer)
    assert outcome.status is Status.GAVE_UP and outcome.patch is None
    assert "the reviewer rejected every fix found (candidate 1: special-cases the test input)" in outcome.message


def test_the_offline_review_keeps_the_smallest_and_says_why() -> None:
    outcome, events, _ = _run([ScriptedProposer([ALSO_GOOD, GOOD])], reviewer=OfflineReviewer())
    assert after(outcome.patch) == GOOD
    (reviewed,) = [e for e in events if e.kind == "reviewed"]
    assert reviewed.data["verdict"] == "accept" and reviewed.data["by"] == "offline"
    assert reviewed.data["reason"].startswith("the smallest of 2 plausible fixes (2 changed line(s)")


class Values:
    """What the functions each fix changes return in the passing tests, with the fix and without (the runner
    measures it for real: tests/runner/test_values.py)."""

    def __init__(self, table: dict[str, tuple[Calls, Calls] | None]) -> None:
        self.table = table  # a fix's new text -> (the values without it, with it); None: cannot be known

    def values(self, patch: Patch | None, of: Patch) -> Calls | None:
        pair = self.table[after(of)]
        return None if pair is None else pair[patch is not None]


CALLS = {("tests/test_m.py::test_a", "double", 0): "1", ("tests/test_m.py::test_b", "double", 0): "2",
         ("tests/test_m.py::test_b", "double", 1): "3", ("tests/test_m.py::test_c", "double", 0): "4"}


def test_the_offline_review_prefers_the_fix_that_keeps_the_values_the_passing_tests_see() -> None:
    # The smaller fix changes what `double` returns in three calls no test checks; the larger changes none.
    changed = {**CALLS, ("tests/test_m.py::test_b", "double", 0): "x", ("tests/test_m.py::test_b", "double", 1): "y",
               ("tests/test_m.py::test_c", "double", 0): "z"}
    probe = Values({GOOD: (CALLS, changed), ALSO_GOOD: (CALLS, dict(CALLS))})
    outcome, events, _ = _run([ScriptedProposer([ALSO_GOOD, GOOD])], reviewer=OfflineReviewer(probe))
    assert after(outcome.patch) == ALSO_GOOD
    (reviewed,) = [e for e in events if e.kind == "reviewed"]
    assert (reviewed.candidate, reviewed.data["verdict"], reviewed.data["prefer"]) == (2, "prefer", 1)
    assert reviewed.data["reason"] == ("candidate 1 changes 0 of 4 value(s) the passing tests see of the code it "
                                       "changes, this fix 3 of 4 value(s)")


def test_the_offline_review_keeps_the_smallest_when_the_values_do_not_tell_them_apart() -> None:
    one_changed = {**CALLS, ("tests/test_m.py::test_a", "double", 0): "x"}
    tables: list[dict[str, tuple[Calls, Calls] | None]] = [
        {GOOD: (CALLS, one_changed), ALSO_GOOD: (CALLS, one_changed)}, {GOOD: (CALLS, CALLS), ALSO_GOOD: None}]
    for table in tables:
        outcome, events, _ = _run([ScriptedProposer([ALSO_GOOD, GOOD])], reviewer=OfflineReviewer(Values(table)))
        assert after(outcome.patch) == GOOD
        (reviewed,) = [e for e in events if e.kind == "reviewed"]
        assert reviewed.data["verdict"] == "accept", reviewed.data
        assert reviewed.data["reason"].startswith("the smallest of 2 plausible fixes")
        compared = "it changes 1 of 4 value(s) the passing tests see" in reviewed.data["reason"]
        assert compared == (table[ALSO_GOOD] is not None)


def test_a_project_may_switch_the_review_on_but_never_off_nor_choose_its_model(tmp_path: Path) -> None:
    table = {"review": {"enabled": False}, "llm": {"roles": {"reviewer": {"model": "cheap-model"}}}}
    allowed, refused = project_table(table, Settings(), tmp_path)
    assert allowed.get("review", {}) == {} and allowed.get("llm", {}).get("roles", {}).get("reviewer", {}) == {}
    assert any("review.enabled" in r for r in refused) and any("llm.roles.reviewer.model" in r for r in refused)
