"""LearningMemory on a real store: what a run teaches, what recall returns, what reviews change."""

import dataclasses

from fixloop.core.model import Attempt, FileChange, Outcome, Patch, Status
from fixloop.core.ports import ProposalContext
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.replay import MemoryReplayProposer
from fixloop.core.model import Suspect

from .conftest import failing_report

SHOP = "LIMIT = 10\n\n\ndef price(q):\n    total = q * 2\n    if q > LIMIT:\n        total = total - 1\n    return total\n"
SHOP_FIXED = SHOP.replace("if q > LIMIT:", "if q >= LIMIT:")
CINEMA = "SENIOR = 65\n\n\ndef ticket(age):\n    cost = 10\n    if age > SENIOR:\n        cost = cost / 2\n    return cost\n"


def _learn_fix(memory: LearningMemory, run_id: str = "run-1", source: str = SHOP, fixed: str = SHOP_FIXED,
               path: str = "shop/price.py", operator: str = "comparison_swap") -> Outcome:
    report = failing_report("tests/test_price.py::test_ten", "assert 20 == 19", "tests/test_price.py", 5)
    ctx = ProposalContext(sources={path: source, "tests/test_price.py": "def test_ten():\n    assert price(10) == 19\n"},
                          baseline=report, target_tests=("tests/test_price.py::test_ten",))
    bad = Patch((FileChange(path, source, source.replace("q * 2", "q / 2")),), "mutation", "arithmetic_swap")
    good = Patch((FileChange(path, source, fixed),), "mutation", operator, "fix")
    memory.record_attempt(run_id, Attempt(1, bad, "failed"), ctx)
    memory.record_attempt(run_id, Attempt(2, good, "plausible"), ctx)
    outcome = Outcome(Status.FIXED, run_id, "fixed", good, baseline=report, candidates_evaluated=2)
    memory.record_outcome(outcome, ctx)
    return outcome


def _cinema_report():
    return failing_report("tests/test_ticket.py::test_senior", "assert 10 == 5.0", "tests/test_ticket.py", 5)


def test_a_fixed_run_becomes_a_lesson_for_a_similar_failure(memory: LearningMemory) -> None:
    _learn_fix(memory)
    lessons = memory.recall(_cinema_report(), {"cinema/t.py": CINEMA})
    assert lessons and lessons[0].outcome == "fixed"
    assert lessons[0].operator == "comparison_swap" and "if q >= LIMIT:" in lessons[0].summary
    assert "+    if q >= LIMIT:" in lessons[0].fix_diff and lessons[0].meta["fault_shape"] == "if ID > ID :"
    unrelated = failing_report("tests/test_x.py::test_k", "'sku-1'", "tests/test_x.py", 5, exc_type="KeyError")
    assert memory.recall(unrelated, {}) == ()


def test_replay_proposes_the_analogous_edit_first(memory: LearningMemory) -> None:
    _learn_fix(memory)
    report = _cinema_report()
    sources = {"cinema/t.py": CINEMA}
    ctx = ProposalContext(sources=sources, baseline=report, target_tests=(report.failed[0].nodeid,),
                          suspects=tuple(Suspect("cinema/t.py", line, 0.5) for line in range(4, 9)),
                          lessons=memory.recall(report, sources))
    first = next(iter(MemoryReplayProposer().propose(ctx)))
    assert first.proposer == "memory" and first.operator == "comparison_swap"
    assert first.changes[0].after == CINEMA.replace("if age > SENIOR:", "if age >= SENIOR:")


def test_priors_favour_the_operator_that_fixed_this_error_class(memory: LearningMemory) -> None:
    _learn_fix(memory, run_id="run-0")
    assert memory.priors(_cinema_report()) == {}  # one fixed bug is too little to reorder anything
    for i in range(1, 5):
        _learn_fix(memory, run_id=f"run-{i}")
    weights = [memory.priors(_cinema_report()) for _ in range(20)]
    # A posterior mean, not a sample: the same memory gives the same factors on every call.
    assert all(w["comparison_swap"] == weights[0]["comparison_swap"] for w in weights)
    assert weights[0]["comparison_swap"] == 1.25 and weights[0]["arithmetic_swap"] == 0.8
    other = failing_report("tests/test_x.py::test_k", "'k'", "tests/test_x.py", 5, exc_type="KeyError")
    assert memory.priors(other) == {}


def test_a_rejected_fix_is_no_longer_replayed_and_its_operator_loses_weight(memory: LearningMemory) -> None:
    _learn_fix(memory)
    before = memory.priors(_cinema_report()).get("comparison_swap", 1.0)
    for _ in range(3):  # each review weighs two test runs: enough evidence to move the operator
        memory.record_decision("run-1", "shop/price.py#0", accepted=False)
    assert memory.recall(_cinema_report(), {"cinema/t.py": CINEMA}) == ()
    after = memory.priors(_cinema_report())["comparison_swap"]
    assert after < before
    assert memory.store.rows("fixes", "run_id = 'run-1'")[0]["decision"] == "rejected"
    decisions = memory.store.rows("decisions")
    assert len(decisions) == 3 and decisions[0]["fault_shape"] == "if ID > ID :"


def test_an_accepted_fix_stays_and_is_marked(memory: LearningMemory) -> None:
    _learn_fix(memory)
    memory.record_decision("run-1", "shop/price.py#0", accepted=True)
    assert memory.recall(_cinema_report(), {"cinema/t.py": CINEMA})
    assert memory.store.rows("fixes", "run_id = 'run-1'")[0]["decision"] == "accepted"


def test_patterns_need_a_shape_seen_twice(memory: LearningMemory) -> None:
    editing = "def g(n, cap):\n    if n > cap:\n        return 1\n    return 0\n"
    _learn_fix(memory, run_id="run-1")
    assert memory.patterns_in("lib/g.py", editing) == []  # seen once: no warning
    _learn_fix(memory, run_id="run-2")
    (hit,) = memory.patterns_in("lib/g.py", editing)
    assert (hit.line, hit.column, hit.end_line, hit.end_column) == (2, 4, 2, 15)
    assert hit.count == 2 and hit.shape == "if ID > ID :" and "if q >= LIMIT:" in hit.fix_summary
    memory.min_pattern_count = 3
    assert memory.patterns_in("lib/g.py", editing) == []


def test_forget_removes_a_failure_and_its_fix(memory: LearningMemory) -> None:
    _learn_fix(memory)
    (failure,) = memory.store.rows("failures")
    assert memory.forget(failure["id"]) == 2
    assert memory.recall(_cinema_report(), {"cinema/t.py": CINEMA}) == ()
    assert memory.forget("no-such-id") == 0


def test_nothing_secret_is_stored(memory: LearningMemory, monkeypatch) -> None:
    monkeypatch.setenv("SHOP_API_TOKEN", "tok-9f8e7d6c5b4a")
    source = SHOP.replace("LIMIT = 10", "LIMIT = 10\nKEY = 'tok-9f8e7d6c5b4a'")
    _learn_fix(memory, source=source, fixed=source.replace("if q > LIMIT:", "if q >= LIMIT:"))
    for table in ("failures", "fixes", "operator_stats"):
        assert "tok-9f8e7d6c5b4a" not in str(memory.store.rows(table))


def test_a_broken_store_never_raises(tmp_path) -> None:
    from fixloop.adapters.memory.embed import HashingEmbedder
    from fixloop.adapters.memory.store import MemoryStore

    (tmp_path / "newer").mkdir()
    store = MemoryStore(str(tmp_path / "newer"), HashingEmbedder())
    store.open()._set_meta({"schema_version": "999"})
    memory = LearningMemory(MemoryStore(str(tmp_path / "newer"), HashingEmbedder()), "p")
    assert memory.recall(_cinema_report(), {}) == ()
    assert memory.priors(_cinema_report()) == {}
    _learn_fix(memory)  # logged, not raised
    assert "newer than this fixloop" in memory.problem


def test_a_lesson_is_found_by_its_faulty_shape_when_the_message_differs(memory: LearningMemory) -> None:
    _learn_fix(memory)
    report = failing_report("tests/test_t.py::test_senior", "assert False == True", "tests/test_t.py", 5)
    memory.min_similarity = 0.99  # no signature is that close: only the shape channel can answer
    assert memory.recall(report, {"other/unrelated.py": "def f(x):\n    return x\n"}) == ()
    (lesson,) = memory.recall(report, {"cinema/t.py": CINEMA})
    assert lesson.meta["fault_shape"] == "if ID > ID :" and lesson.similarity == 0.5
    other_class = failing_report("tests/test_t.py::test_senior", "'k'", "tests/test_t.py", 5, exc_type="KeyError")
    # Another error class: not the shape channel's (its lessons rank 0.5), but the fault key's, for the analogy.
    (lesson,) = memory.recall(other_class, {"cinema/t.py": CINEMA})
    assert lesson.meta["channel"] == "key" and lesson.similarity == 0.4


def test_runs_compact_the_store_every_so_often(memory: LearningMemory, monkeypatch) -> None:
    import fixloop.adapters.memory.learning as learning

    monkeypatch.setattr(learning, "AUTO_COMPACT_EVERY", 3)
    for i in range(4):
        _learn_fix(memory, run_id=f"run-{i}")
    stats = memory.store.table("failures").stats()
    assert stats["fragment_stats"]["num_fragments"] < 4 and memory.store.count("failures") == 4


def test_a_hunk_decision_keys_on_that_hunks_statement(memory: LearningMemory) -> None:
    _learn_fix(memory)
    hunk = Patch((FileChange("shop/price.py", SHOP, SHOP.replace("total = total - 1", "total = total + 1")),),
                 "mutation", "arithmetic_swap")
    memory.record_decision("run-1", "shop/price.py#1", accepted=False, patch=hunk)
    (decision,) = memory.store.rows("decisions")
    assert decision["fault_shape"] == "ID = ID - NUM" and decision["hunk_id"] == "shop/price.py#1"
    assert "-        total = total - 1" in decision["diff"]
    assert memory.recall(_cinema_report(), {"cinema/t.py": CINEMA})  # the `if` fix was not the one rejected


def test_priors_learn_the_new_operator_families_by_name(memory: LearningMemory) -> None:
    from fixloop.engines.repair.catalog import DEFAULT_PRIORS
    from fixloop.engines.repair.reorder import REORDER_PRIORS
    from fixloop.engines.repair.search import prior

    for i in range(5):
        _learn_fix(memory, run_id=f"run-{i}", operator="augmented_order",
                   fixed=SHOP.replace("total = total - 1", "total = 1 - total"))
    learned = memory.priors(_cinema_report())
    assert learned["augmented_order"] == 1.25  # the name went in as the operator and came back as a factor
    assert set(REORDER_PRIORS) <= set(DEFAULT_PRIORS)
    assert prior("augmented_order", learned) == DEFAULT_PRIORS["augmented_order"] * 1.25
    assert prior("concat_order", learned) == DEFAULT_PRIORS["concat_order"]


def test_a_template_that_missed_where_the_run_was_not_fixed_is_not_blamed(memory: LearningMemory) -> None:
    from fixloop.adapters.mined.registry import records

    path = "shop/price.py"

    def run(run_id: str, miss_at: str, wrong: str, fixed: bool) -> None:
        report = failing_report("tests/test_price.py::test_ten", "assert 20 == 19", "tests/test_price.py", 5)
        ctx = ProposalContext(sources={path: SHOP}, baseline=report, target_tests=("tests/test_price.py::test_ten",))
        miss = Patch((FileChange(path, SHOP, SHOP.replace(miss_at, wrong)),), "mined", "mined:t1", "", {"template": "t1"})
        good = Patch((FileChange(path, SHOP, SHOP_FIXED),), "mutation", "comparison_swap", "fix")
        memory.record_attempt(run_id, Attempt(1, miss, "failed"), ctx)
        if fixed:
            memory.record_attempt(run_id, Attempt(2, good, "plausible"), ctx)
        memory.record_outcome(Outcome(Status.FIXED if fixed else Status.GAVE_UP, run_id, "", good if fixed else None,
                                      baseline=report, candidates_evaluated=2), ctx)

    run("elsewhere", "total = q * 2", "total = q * 3", fixed=True)  # another statement than the fix's
    assert records(memory.store, ["t1"]) == {}
    run("same-place", "if q > LIMIT:", "if q < LIMIT:", fixed=True)  # where the fix was: a real miss
    run("never-fixed", "total = q * 2", "total = q * 3", fixed=False)  # nobody knows where: a miss
    assert records(memory.store, ["t1"])["t1"].recent == (False, False)


def test_the_fix_row_keeps_the_reviewers_word_on_it(memory: LearningMemory) -> None:
    outcome = _learn_fix(memory)
    reviewed = Outcome(Status.FIXED, "run-2", "fixed", dataclasses.replace(outcome.patch, meta={"review": "prefer (m)"}),
                       baseline=outcome.baseline, candidates_evaluated=1)
    memory.record_outcome(reviewed, ProposalContext(sources={}, baseline=outcome.baseline,
                                                    target_tests=("tests/test_price.py::test_ten",)))
    rows = {r["run_id"]: r["review"] for r in memory.store.rows("fixes", "verified = true")}
    assert rows == {"run-1": "", "run-2": "prefer (m)"}  # a fix no reviewer saw says nothing



STOPS = "def between(stops, start, end):\n    return stops[start:end]\n"
ROUTE = "def leg(route, first, last):\n    total = len(route)\n    return route[first:last + 1]\n"


def test_replay_leaves_a_statement_that_has_the_fix_already(memory: LearningMemory) -> None:
    """A slice given its `+ 1`: the same edit at a slice that has one would make it `+ 1 + 1`."""
    _learn_fix(memory, source=STOPS, fixed=STOPS.replace("end]", "end + 1]"), path="trains/stops.py",
               operator="bound_nudge")
    report = _cinema_report()

    def replayed(source: str) -> list[str]:
        sources = {"routes/leg.py": source}
        ctx = ProposalContext(sources=sources, baseline=report, target_tests=(report.failed[0].nodeid,),
                              suspects=(Suspect("routes/leg.py", 3, 0.9),), lessons=memory.recall(report, sources))
        return [p.changes[0].after for p in MemoryReplayProposer().propose(ctx)]

    assert replayed(ROUTE.replace("last + 1]", "last]")) == [ROUTE]  # the bug the lesson fixed: replayed
    assert replayed(ROUTE) == []
