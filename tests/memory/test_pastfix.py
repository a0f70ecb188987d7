"""Memory warnings carry the past fix re-made at the warned statement, from a real LanceDB store."""

from __future__ import annotations

from pathlib import Path

from fixloop.core.model import FileChange, Outcome, Patch, Status, TestReport, TestResult
from fixloop.core.ports import ProposalContext
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.kit.shapes import StatementEdit, edits_to_json, statement_tokens
from fixloop.adapters.memory.store import MemoryStore

from .conftest import failing_report

SHOP = "LIMIT = 10\n\n\ndef price(q):\n    total = q * 2\n    if q > LIMIT:\n        total = total - 1\n    return total\n"
SHOP_FIXED = SHOP.replace("if q > LIMIT:", "if q >= LIMIT:")
EDITING = ("def g(n, cap):\n    if n > cap:\n        return 1\n    return 0\n\n\n"
           "def h(size, most):\n    if size > most:\n        return most\n    return size\n")


def learn(memory: LearningMemory, run_id: str = "run-1", report: TestReport | None = None) -> None:
    report = report or failing_report("tests/test_price.py::test_ten", "assert 20 == 19", "tests/test_price.py", 5)
    ctx = ProposalContext(sources={"shop/price.py": SHOP}, baseline=report,
                          target_tests=tuple(r.nodeid for r in report.failed))
    fix = Patch((FileChange("shop/price.py", SHOP, SHOP_FIXED),), "mutation", "comparison_swap", "fix")
    memory.record_outcome(Outcome(Status.FIXED, run_id, "fixed", fix, baseline=report, candidates_evaluated=1), ctx)


def test_each_hit_carries_the_fix_transferred_to_its_statement(memory: LearningMemory) -> None:
    memory.min_pattern_count = 1
    learn(memory)
    first, second = memory.patterns_in("lib/g.py", EDITING)
    assert (first.line, first.before, first.after) == (2, "    if n > cap:\n", "    if n >= cap:\n")
    assert (second.line, second.before, second.after) == (8, "    if size > most:\n", "    if size >= most:\n")
    assert first.problem == "" and first.diff.startswith("--- a/lib/g.py\n+++ b/lib/g.py\n")
    assert "-    if n > cap:\n+    if n >= cap:\n" in first.diff and "size" not in first.diff
    assert "-    if size > most:\n+    if size >= most:\n" in second.diff


def test_the_latest_fix_of_a_shape_is_the_one_offered(memory: LearningMemory) -> None:
    memory.min_pattern_count = 1
    learn(memory, "run-1")
    later = SHOP.replace("if q > LIMIT:", "if q < LIMIT:")
    report = failing_report("tests/test_price.py::test_ten", "assert 20 == 19", "tests/test_price.py", 5)
    ctx = ProposalContext(sources={"shop/price.py": SHOP}, baseline=report, target_tests=(report.failed[0].nodeid,))
    memory.now = lambda: 4_000_000_000.0
    memory.record_outcome(Outcome(Status.FIXED, "run-2", "fixed", Patch((FileChange("shop/price.py", SHOP, later),),
                                                                          "mutation", "x"), baseline=report), ctx)
    (hit, _) = memory.patterns_in("lib/g.py", EDITING)
    assert hit.count == 2 and hit.after == "    if n < cap:\n"


def test_a_fix_stored_for_several_failing_tests_keeps_its_diff(memory: LearningMemory) -> None:
    """A run whose fix made two tests pass stores one fix row per failure; only the first has the diff."""
    memory.min_pattern_count = 1
    two = TestReport(results=tuple(
        TestResult(f"tests/test_price.py::test_{n}", "failed", 0.01, "AssertionError", "assert 20 == 19",
                   failing_report("tests/test_price.py::t", "m", "shop/price.py", 6).results[0].frames)
        for n in ("ten", "eleven")))
    learn(memory, report=two)
    assert len(memory.store.rows("fixes")) == 2
    memory.store.update("fixes", "true", {"edit": "{no longer json"})
    fresh = LearningMemory(memory.store, memory.project, min_pattern_count=1)
    hits = fresh.patterns_in("lib/g.py", EDITING)
    assert [h.after for h in hits] == [None, None]
    assert all("+    if q >= LIMIT:" in h.diff for h in hits)  # the past fix as it was made, to read
    assert "stored edit cannot be read (it is not valid JSON)" in hits[0].problem


def test_a_stored_fix_whose_transfer_would_not_parse_offers_nothing(memory: LearningMemory) -> None:
    memory.min_pattern_count = 1
    learn(memory)
    before = statement_tokens("if q > LIMIT:\n    pass\n", 1)
    assert before[-1].text == ":"  # the stored edit drops the colon: what it makes does not parse
    memory.store.update("fixes", "true", {"edit": edits_to_json([StatementEdit(before, before[:-1])])})
    (hit, _) = LearningMemory(memory.store, memory.project, min_pattern_count=1).patterns_in("lib/g.py", EDITING)
    assert hit.after is None and hit.problem == "the past fix cannot be applied here: the result would not parse"


def test_a_stored_edit_of_another_shape_offers_nothing(memory: LearningMemory) -> None:
    memory.min_pattern_count = 1
    learn(memory)
    other = statement_tokens("return total\n", 1)
    memory.store.update("fixes", "true", {"edit": edits_to_json([StatementEdit(other, other)])})
    (hit, _) = LearningMemory(memory.store, memory.project, min_pattern_count=1).patterns_in("lib/g.py", EDITING)
    assert hit.after is None and "no edit of this statement's shape" in hit.problem


def test_a_store_that_cannot_be_read_warns_nothing_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "newer").mkdir()
    MemoryStore(str(tmp_path / "newer"), HashingEmbedder()).open()._set_meta({"schema_version": "999"})
    memory = LearningMemory(MemoryStore(str(tmp_path / "newer"), HashingEmbedder()), "p", min_pattern_count=1)
    assert memory.patterns_in("lib/g.py", EDITING) == []
    assert "newer than this fixloop" in memory.problem
