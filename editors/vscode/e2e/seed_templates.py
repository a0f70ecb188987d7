"""Teach a memory store two fixes of one kind (`>` for `>=` against a named limit, in two projects), through
fixloop's own memory, so the e2e test has a mined template to review. usage: python seed_templates.py STORE"""

from __future__ import annotations

import sys

from fixloop.core.model import Attempt, FileChange, Frame, Outcome, Patch, Status, TestReport, TestResult
from fixloop.core.ports import ProposalContext
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.store import MemoryStore

SOURCES = {
    "shop/price.py": ("BULK = 10\n\n\ndef total(unit, qty):\n    if qty > BULK:\n        return unit * qty * 0.9\n"
                      "    return unit * qty\n", "qty > BULK", "qty >= BULK"),
    "cinema/fees.py": ("SENIOR = 65\n\n\ndef ticket(base, age):\n    if age > SENIOR:\n        return base / 2\n"
                       "    return base\n", "age > SENIOR", "age >= SENIOR"),
}


def main(uri: str) -> None:
    store = MemoryStore(uri, HashingEmbedder()).open()
    for number, (path, (before, old, new)) in enumerate(SOURCES.items()):
        memory = LearningMemory(store, f"/projects/{path.split('/')[0]}")
        node = "tests/test_it.py::test_it"
        report = TestReport(results=(TestResult(node, "failed", 0.0, "AssertionError", "assert 1 == 2",
                                                (Frame("tests/test_it.py", 5, "test_it"),)),))
        fix = Patch((FileChange(path, before, before.replace(old, new)),), "mutation", "comparison_swap", "seed")
        ctx = ProposalContext(sources={path: before}, baseline=report, target_tests=(node,))
        run = f"seed-{number}"
        memory.record_attempt(run, Attempt(1, fix, "plausible"), ctx)
        memory.record_outcome(Outcome(Status.FIXED, run, "fixed", fix, baseline=report, candidates_evaluated=1), ctx)


if __name__ == "__main__":
    main(sys.argv[1])
