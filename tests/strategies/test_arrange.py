"""A strategy applied to the loop's proposers (real loop, scripted proposers and runner): the lead's first
few candidates go first, every proposer keeps its turn, and no fix within budget is lost."""

from __future__ import annotations

from typing import Iterator

from fixloop.core.model import Limits, Patch, Status, Usage
from fixloop.core.ports import ProposalContext
from fixloop.engines.strategies.arrange import Part, arrange, available, default_of
from fixloop.core.bandit import LEAD_MAX
from fixloop.core.strategies import DEFAULT
from tests.core.test_loop import GOOD, _run
from tests.fakes import ScriptedProposer

WRONG = [f"def double(x):\n    return x * {i}\n" for i in range(3, 40)]


def proposers() -> list[ScriptedProposer]:
    """Today's order: a replay that fixes it at once, then an engine with many misses before its fix."""
    return [ScriptedProposer([GOOD], name="memory"), ScriptedProposer(WRONG + [GOOD], name="mutation")]


def evaluated(events: list) -> list[str]:
    return [e.data["proposer"] for e in events if e.kind == "candidate"]


def test_todays_order_is_left_as_it_is() -> None:
    given = proposers()
    assert arrange(given, DEFAULT) == given
    assert arrange(given, "template-first") == given  # no template proposer here: nothing to lead
    assert arrange(given[1:], "mutation-first") == given[1:]  # already first


def test_the_lead_puts_at_most_lead_max_candidates_first_then_todays_order() -> None:
    outcome, events, _ = _run(arrange(proposers(), "mutation-first"))
    assert outcome.status is Status.FIXED and outcome.patch is not None and outcome.patch.proposer == "memory"
    assert evaluated(events) == ["mutation"] * LEAD_MAX + ["memory"]


def test_no_fix_within_budget_is_lost_where_a_whole_reorder_would_lose_it() -> None:
    budget = Limits(max_candidates=LEAD_MAX + 2)
    outcome, _, _ = _run(arrange(proposers(), "mutation-first"), limits=budget)
    assert outcome.status is Status.FIXED
    outcome, _, _ = _run(list(reversed(proposers())), limits=budget)  # the engine wholly first: out of budget
    assert outcome.status is Status.LIMITS


def test_the_lead_s_stream_goes_on_where_its_head_stopped() -> None:
    mutation = ScriptedProposer(WRONG[:5] + [GOOD], name="mutation")
    outcome, events, _ = _run(arrange([ScriptedProposer(WRONG[10:12], name="memory"), mutation], "mutation-first"))
    assert evaluated(events) == ["mutation"] * 3 + ["memory"] * 2 + ["mutation"] * 3
    assert outcome.status is Status.FIXED and outcome.candidates_evaluated == 8
    assert len(mutation.seen_attempts) == 6  # asked once: each candidate came exactly once


class Metered(ScriptedProposer):
    def __init__(self) -> None:
        super().__init__(WRONG[:6], name="llm", adaptive=True)
        self.notes: list[str] = ["no API key"]
        self.spent = Usage(llm_calls=2, input_tokens=100, output_tokens=20, cost_usd=0.01)

    def usage(self) -> Usage:
        return self.spent

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        yield from super().propose(ctx)


def test_a_split_proposer_s_spending_counts_once_and_its_notes_pass_through() -> None:
    model = Metered()
    parts = arrange([ScriptedProposer([], name="memory"), model], "model-first")
    assert [type(p) for p in parts] == [Part, ScriptedProposer, Part]
    assert sum(p.usage().tokens for p in parts if isinstance(p, Part)) == 120
    assert parts[0].notes is model.notes and parts[0].adaptive and parts[0].name == "llm"


def test_available_strategies_follow_the_proposers_present() -> None:
    assert available(proposers()) == ["memory-first", "mutation-first"]
    # Without a memory, today's order starts with the engine: that is the default, and memory-first is not there.
    assert available([ScriptedProposer([], name="mutation")]) == ["mutation-first"]
    assert default_of([ScriptedProposer([], name="template")] + proposers()) == "template-first"
    assert "template-first" in available(proposers() + [ScriptedProposer([], name="template")])


def test_an_adaptive_lead_never_trips_the_breaker_that_would_end_the_run() -> None:
    # A model that keeps failing the same way: three in a row would stop the run with "gave up".
    same = [f"def double(x):\n    return x + x + {i}\n" for i in range(2, 12)]
    model = ScriptedProposer(same, name="llm", adaptive=True)
    outcome, events, _ = _run(arrange([ScriptedProposer([GOOD], name="memory"), model], "model-first",
                                      breaker_repeats=3))
    assert evaluated(events) == ["llm", "llm", "memory"]
    assert outcome.status is Status.FIXED and not [e for e in events if e.kind == "breaker"]
    # The whole model first would lose the fix the replay has.
    outcome, events, _ = _run([ScriptedProposer(same, name="llm", adaptive=True), ScriptedProposer([GOOD], name="memory")])
    assert outcome.status is Status.GAVE_UP and [e for e in events if e.kind == "breaker"]


class Templates(ScriptedProposer):
    """A proposer of approved templates (none approved: it has nothing to lead with)."""

    def __init__(self, approved: list[str]) -> None:
        super().__init__([GOOD] if approved else [], name="template")
        self.approved = approved

    def templates(self) -> list[str]:
        return self.approved


def test_a_template_proposer_leads_only_with_approved_templates() -> None:
    idle = [Templates([])] + proposers()
    assert default_of(idle) == "memory-first" and "template-first" not in available(idle)
    assert arrange(idle, "memory-first") == idle and arrange(idle, "template-first") == idle
    ready = [Templates(["t1"])] + proposers()
    assert default_of(ready) == "template-first" and "memory-first" in available(ready)
    arranged = arrange(ready, "memory-first")
    assert [p.name for p in arranged] == ["memory", "template", "memory", "mutation"]
