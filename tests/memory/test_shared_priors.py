"""With the default settings, machine B learns which operators fix a class of bug from what machine A tried,
through a team's memory on a real S3-compatible server (moto on 127.0.0.1): B's operator priors become A's,
and the offline search on B reaches the fix of a bug of that class in fewer candidates. Under the old
default (`fixes-only`) nothing of this reached B (docs/sharing.md)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from fixloop.core.model import Attempt, FileChange, Outcome, Patch, Status, Suspect
from fixloop.core.ports import ProposalContext
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.shared import RemoteStore
from fixloop.adapters.memory.store import READ_CONSISTENCY
from fixloop.engines.repair.mutate import MutationProposer
from fixloop.core.ports import EXPLORE_PREFIX

from .conftest import failing_report
from .shared_helpers import learner, machine

pytestmark = pytest.mark.e2e  # each test talks to a server process

SHOP = "LIMIT = 10\n\n\ndef price(q):\n    total = q * 2\n    if q > LIMIT:\n        total = total - 1\n    return total\n"
# B's bug is of the class A kept fixing (an AssertionError) in other code: an off-by-one constant.
CINEMA = "SENIOR = 65\n\n\ndef ticket(age):\n    cost = 10\n    if age > SENIOR:\n        cost = cost - 4\n    return cost\n"
CINEMA_FIXED = CINEMA.replace("cost - 4", "cost - 5")


def _a_run(memory: LearningMemory, run_id: str) -> None:
    """One of A's runs, through the learning memory's real path: two operators missed, `integer_nudge` fixed it."""
    report = failing_report("tests/test_price.py::test_ten", "assert 19 == 18", "tests/test_price.py", 5)
    ctx = ProposalContext(sources={"shop/price.py": SHOP}, baseline=report, target_tests=(report.failed[0].nodeid,))
    tried = [("comparison_swap", SHOP.replace("q > LIMIT", "q >= LIMIT"), "failed"),
             ("arithmetic_swap", SHOP.replace("q * 2", "q / 2"), "failed"),
             ("integer_nudge", SHOP.replace("total - 1", "total - 2"), "plausible")]
    for n, (operator, after, status) in enumerate(tried, 1):
        memory.record_attempt(run_id, Attempt(n, Patch((FileChange("shop/price.py", SHOP, after),), "mutation",
                                                       operator), status), ctx)
    patch = Patch((FileChange("shop/price.py", SHOP, tried[-1][1]),), "mutation", "integer_nudge", "fix")
    memory.record_outcome(Outcome(Status.FIXED, run_id, "fixed", patch, baseline=report, candidates_evaluated=3), ctx)


def _cinema_report():
    # No values in the message: one away from the expected one would steer the nudges first on its own
    # (steer.py), and this test is about what B learned from A.
    return failing_report("tests/test_ticket.py::test_senior", "assert ticket(70) == 5", "tests/test_ticket.py", 5)


def _learned(priors: dict[str, float]) -> dict[str, float]:
    return {k: v for k, v in priors.items() if not k.startswith(EXPLORE_PREFIX)}


def candidates_to_fix(priors: dict[str, float]) -> int:
    """How many candidates the offline search makes on B's bug before the fix (lines equally suspected)."""
    report = _cinema_report()
    ctx = ProposalContext(sources={"cinema/t.py": CINEMA}, baseline=report, target_tests=(report.failed[0].nodeid,),
                          suspects=tuple(Suspect("cinema/t.py", line, 0.5) for line in range(4, 9)),
                          priors=_learned(priors))
    for n, patch in enumerate(MutationProposer().propose(ctx), 1):
        if patch.changes[0].after == CINEMA_FIXED:
            return n
    raise AssertionError("the search never made the fix")


def test_machine_b_orders_its_search_by_what_machine_a_learned_with_the_default_settings(shared_uri: str,
                                                                                       tmp_path: Path) -> None:
    b = machine(shared_uri, tmp_path / "b").open()
    assert learner(b, "cinema").priors(_cinema_report()) == {}  # B alone: the built-in order
    before = candidates_to_fix({})
    a = machine(shared_uri, tmp_path / "a").open()  # the default memory.share, like B
    memory_a = learner(a)
    for i in range(5):  # five runs: the evidence an operator needs before it moves (priors.MIN_EVIDENCE)
        _a_run(memory_a, f"run-{i}")
    assert a.outbox.pending() == 0  # each run pushed its rows at its end
    learned_on_a = _learned(memory_a.priors(_cinema_report()))
    assert learned_on_a == {"integer_nudge": 1.25, "comparison_swap": 0.8, "arithmetic_swap": 0.8}

    # B read the shared store when it opened, moments ago: another machine's commits show within the stores'
    # read-consistency interval (store.py), so B's next run is one that starts after it.
    time.sleep(READ_CONSISTENCY.total_seconds())
    b.sync()  # what B's next run does when it first uses the memory
    learned_on_b = _learned(learner(b, "cinema").priors(_cinema_report()))
    assert learned_on_b == learned_on_a
    after = candidates_to_fix(learned_on_b)
    assert (before, after) == (5, 2)  # `4 -> 5` comes before the comparison swaps A saw fail

    # What reached the bucket is counts: no project's name, the runs as digests.
    stats = RemoteStore(shared_uri, HashingEmbedder(64)).open().rows("operator_stats")
    assert len(stats) == 15 and {r["project"] for r in stats} == {""}
    assert not {r["run_id"] for r in stats} & {f"run-{i}" for i in range(5)}
    assert {r["error_class"] for r in stats} == {"AssertionError"}
