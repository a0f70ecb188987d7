"""Where the engine puts mined templates: approved ones before every other proposer, demoted ones after the
generic operators, proposed and rejected ones nowhere."""

from __future__ import annotations

import time

import numpy as np

from fixloop.application.config import Settings
from fixloop.core.model import Frame, Suspect, TestReport, TestResult
from fixloop.core.ports import ProposalContext
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.replay import MemoryReplayProposer
from fixloop.adapters.memory.store import MemoryStore, new_id
from fixloop.adapters.mined.mine import mine
from fixloop.adapters.mined.proposer import MinedTemplateProposer
from fixloop.adapters.mined.registry import decide
from fixloop.engines.repair.mutate import MutationProposer
from fixloop.application.wiring import make_proposers

from .helpers import LIBRARY, teach_strict_limit

PATH = "library/loans.py"


def _ctx() -> ProposalContext:
    report = TestReport(results=(TestResult("tests/test_loans.py::test_limit", "failed", 0.0, "AssertionError",
                                            "assert True is False", (Frame("tests/test_loans.py", 4, "test_limit"),)),))
    # The template's statement (line 5) is the second suspect: the template still comes first.
    return ProposalContext(sources={PATH: LIBRARY}, baseline=report, target_tests=("tests/test_loans.py::test_limit",),
                           suspects=(Suspect(PATH, 6, 0.9), Suspect(PATH, 5, 0.8), Suspect(PATH, 7, 0.5)))


def _proposers(store: MemoryStore) -> list[object]:
    memory = LearningMemory(store, "/p/library", rng=np.random.default_rng(1))
    return list(make_proposers(Settings(), memory=memory))


def _first_patch(proposer: object) -> list[str]:
    assert isinstance(proposer, (MinedTemplateProposer, MemoryReplayProposer, MutationProposer))
    return [p.changes[0].after for p in proposer.propose(_ctx())]


def test_only_an_approved_template_is_tried_and_it_is_tried_first(store: MemoryStore) -> None:
    teach_strict_limit(store)
    proposers = _proposers(store)
    assert [type(p).__name__ for p in proposers][:4] == ["MinedTemplateProposer", "MemoryReplayProposer",
                                                       "AnalogyProposer", "MutationProposer"]
    assert _first_patch(proposers[0]) == []  # proposed, not approved: not used
    [template] = mine(store)
    decide(store, template.id, "approved")
    proposers = _proposers(store)
    patches = list(proposers[0].propose(_ctx()))  # type: ignore[attr-defined]
    assert len(patches) == 1 and patches[0].operator == template.operator and patches[0].proposer == "template"
    assert patches[0].changes[0].after == LIBRARY.replace("loans > MAX_LOANS", "loans >= MAX_LOANS")
    assert "mined template" in patches[0].summary and template.name in patches[0].summary
    demoted = next(p for p in proposers if isinstance(p, MinedTemplateProposer) and p.demoted)
    assert proposers.index(demoted) == [type(p) for p in proposers].index(MutationProposer) + 1
    assert _first_patch(demoted) == []

    decide(store, template.id, "rejected")
    assert all(_first_patch(p) == [] for p in _proposers(store) if isinstance(p, MinedTemplateProposer))


def test_a_template_that_keeps_failing_moves_behind_the_generic_operators(store: MemoryStore) -> None:
    teach_strict_limit(store)
    [template] = mine(store)
    decide(store, template.id, "approved")
    store.add("operator_stats", [{"id": new_id(), "project": "/p/x", "error_class": "AssertionError",
                                  "operator": template.operator, "success": False, "weight": 1.0, "source": "test",
                                  "run_id": f"miss-{k}", "time": time.time() + k} for k in range(3)])
    proposers = _proposers(store)
    first = proposers[0]
    assert isinstance(first, MinedTemplateProposer) and not first.demoted and _first_patch(first) == []
    demoted = next(p for p in proposers if isinstance(p, MinedTemplateProposer) and p.demoted)
    assert [type(p) for p in proposers].index(MutationProposer) < proposers.index(demoted)
    assert _first_patch(demoted) == [LIBRARY.replace("loans > MAX_LOANS", "loans >= MAX_LOANS")]


def test_a_broken_store_means_no_templates_not_a_failed_run() -> None:
    def broken() -> list:
        raise OSError("the disk went away")

    assert list(MinedTemplateProposer(broken).propose(_ctx())) == []
