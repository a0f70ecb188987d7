"""Teaching a real memory store the fixes that templates are mined from (through the memory's own
`record_outcome`, the path every run takes)."""

from __future__ import annotations

import numpy as np

from fixloop.core.model import Attempt, FileChange, Frame, Outcome, Patch, Status, TestReport, TestResult
from fixloop.core.ports import ProposalContext
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.store import MemoryStore

NODE = "tests/test_it.py::test_it"

SHOP = "BULK = 10\n\n\ndef line_total(unit, qty):\n    if qty > BULK:\n        return unit * qty * 0.9\n    return unit * qty\n"
CINEMA = "SENIOR_AGE = 65\n\n\ndef ticket(base, age):\n    if age > SENIOR_AGE:\n        return base / 2\n    return base\n"
LIBRARY = "MAX_LOANS = 3\n\n\ndef may_borrow(loans):\n    if loans > MAX_LOANS:\n        return False\n    return True\n"


def teach(store: MemoryStore, project: str, path: str, before: str, after: str, run_id: str,
          operator: str = "comparison_swap", proposer: str = "mutation") -> None:
    """A run in `project` whose fix turned `before` into `after` in `path` and passed the suite."""
    memory = LearningMemory(store, project, rng=np.random.default_rng(1))
    report = TestReport(results=(TestResult(NODE, "failed", 0.0, "AssertionError", "assert 1 == 2",
                                            (Frame("tests/test_it.py", 5, "test_it"), Frame(path, 5, "f"))),))
    fix = Patch((FileChange(path, before, after),), proposer, operator, f"{path}: {operator}")
    ctx = ProposalContext(sources={path: before}, baseline=report, target_tests=(NODE,))
    memory.record_attempt(run_id, Attempt(1, fix, "plausible"), ctx)
    memory.record_outcome(Outcome(Status.FIXED, run_id, "fixed", fix, baseline=report, candidates_evaluated=1), ctx)


def teach_strict_limit(store: MemoryStore) -> None:
    """The same slip (`>` for `>=` against a named limit) fixed in two projects."""
    teach(store, "/p/shop", "shop/price.py", SHOP, SHOP.replace("qty > BULK", "qty >= BULK"), "run-shop")
    teach(store, "/p/cinema", "cinema/fees.py", CINEMA, CINEMA.replace("age > SENIOR_AGE", "age >= SENIOR_AGE"),
          "run-cinema")
