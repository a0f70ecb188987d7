"""Failures, fixes and decisions stored by a real memory carry the entity they belong to; the history per
entity drives the editor's warning and hover, and a bounded prior on suspects."""

from __future__ import annotations

import time
from pathlib import Path

from fixloop.core.model import Attempt, FileChange, Outcome, Patch, Status, Suspect
from fixloop.core.ports import ProposalContext
from fixloop.adapters.graph.memory import MAX_PRIOR, prior_factor

from ..memory.conftest import failing_report
from .conftest import PRICING, TESTS, open_memory

FIXED = PRICING.replace("if q > LIMIT:", "if q >= LIMIT:")
NODE = "tests/test_pricing.py::test_bulk"
DAY = 86400.0


def _run(memory, run_id: str, fixed: bool) -> None:
    report = failing_report(NODE, "assert 10 == 9", "shop/pricing.py", 5)
    ctx = ProposalContext(sources={"shop/pricing.py": PRICING, "tests/test_pricing.py": TESTS}, baseline=report,
                          target_tests=(NODE,), suspects=(Suspect("shop/pricing.py", 5, 0.9),))
    patch = Patch((FileChange("shop/pricing.py", PRICING, FIXED),), "mutation", "comparison_swap", "fix")
    memory.record_attempt(run_id, Attempt(1, patch, "plausible"), ctx)
    status = Status.FIXED if fixed else Status.GAVE_UP
    memory.record_outcome(Outcome(status, run_id, "", patch if fixed else None, baseline=report,
                                  candidates_evaluated=1), ctx)


def test_rows_link_to_the_suspect_or_fixed_function(workspace: Path, store_uri: str) -> None:
    memory = open_memory(store_uri, workspace)
    _run(memory, "run-1", fixed=False)
    _run(memory, "run-2", fixed=True)
    memory.record_decision("run-2", "shop/pricing.py#0", accepted=False)
    entity = "shop.pricing::apply_discount"
    assert [r["entity"] for r in memory.store.rows("failures")] == [entity, entity]
    assert {r["entity"] for r in memory.store.rows("fixes")} == {entity}
    assert [r["entity"] for r in memory.store.rows("decisions")] == [entity]
    record = memory.history.get(entity)
    assert record is not None and (record.failures, record.recent, record.fixed, record.rejected) == (2, 2, 1, 1)
    assert record.tests == {NODE}


def test_the_warning_and_the_hover_tell_the_history(workspace: Path, store_uri: str) -> None:
    memory = open_memory(store_uri, workspace)
    for i in range(3):
        _run(memory, f"run-{i}", fixed=i > 0)
    for run in ("run-1", "run-2"):
        memory.record_decision(run, "shop/pricing.py#0", accepted=False)
    [warning] = memory.entity_warnings("shop/pricing.py", PRICING)
    assert warning.entity == "shop.pricing::apply_discount" and (warning.line, warning.column, warning.end_column) == (4, 4, 18)
    assert warning.message == ("the tests of `apply_discount` failed 3 times in the last 30 days; "
                               "2 fixes here were rejected")
    hover = memory.entity_hover("shop/pricing.py", PRICING, 4)
    assert "`shop.pricing::apply_discount`" in hover and "Failed 3 times (3 in the last 30 days)" in hover
    assert "fixed twice" in hover and "rejected 2" in hover and f"AssertionError in {NODE}" in hover
    assert "Tests: `tests.test_pricing::test_bulk`" in hover and "Called by: `shop.pricing::checkout`" in hover
    assert "No failures of `checkout` remembered" in memory.entity_hover("shop/pricing.py", PRICING, 10)
    assert memory.entity_hover("shop/pricing.py", PRICING, 5) == ""  # not on a name line
    assert memory.entity_warnings("shop/other.py", "def apply_discount():\n    pass\n") == []
    # while the file does not parse, the last good index places the warning
    broken = PRICING.replace("def checkout(items):", "def checkout(items:")
    assert [w.line for w in memory.entity_warnings("shop/pricing.py", broken)] == [4]


def test_old_failures_and_one_off_failures_do_not_warn(workspace: Path, store_uri: str) -> None:
    memory = open_memory(store_uri, workspace, now=time.time() - 40 * DAY)
    for i in range(3):
        _run(memory, f"run-{i}", fixed=False)
    later = open_memory(store_uri, workspace)
    assert later.entity_warnings("shop/pricing.py", PRICING) == []  # 40 days ago
    _run(later, "run-new", fixed=False)
    assert later.entity_warnings("shop/pricing.py", PRICING) == []  # once this month: below min_pattern_count
    _run(later, "run-new-2", fixed=False)
    [warning] = later.entity_warnings("shop/pricing.py", PRICING)
    assert warning.message == "the tests of `apply_discount` failed twice in the last 30 days"


def test_the_localization_prior_is_bounded_and_only_for_functions_with_history(workspace: Path,
                                                                                store_uri: str) -> None:
    memory = open_memory(store_uri, workspace)
    sources = {"shop/pricing.py": PRICING}
    suspects = (Suspect("shop/pricing.py", 11, 0.50), Suspect("shop/pricing.py", 5, 0.48))
    assert memory.rerank(suspects, sources) == suspects  # an empty memory changes nothing
    for i in range(6):
        _run(memory, f"run-{i}", fixed=True)
    assert 1.0 < prior_factor(memory.history.get("shop.pricing::apply_discount")) < MAX_PRIOR
    ranked = memory.rerank(suspects, sources)
    assert [s.line for s in ranked] == [5, 11]  # a near-tie goes to the function with history
    assert ranked[0].score < 0.48 * MAX_PRIOR and "history x1.0" in ranked[0].reason
    far = (Suspect("shop/pricing.py", 11, 0.60), Suspect("shop/pricing.py", 5, 0.48))
    assert [s.line for s in memory.rerank(far, sources)] == [11, 5]  # never more than x1.1
