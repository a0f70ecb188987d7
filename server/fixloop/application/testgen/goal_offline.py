"""The offline goal author: no model. Examples in the words or in the target's docstring become the test;
invariants they state ("total() must never be negative") become Hypothesis property tests."""

from __future__ import annotations

from typing import Sequence

from fixloop.core.model import Usage
from fixloop.core.goal import GoalContext, GoalRefused, Question, ReproTest, Spec, Target
from fixloop.application.testgen.stated import HYPOTHESIS_MISSING, examples_for, refusal, stated, test_source

TARGET = "target"
MAX_CHOICES = 6  # a showMessageRequest with more buttons than this is unreadable

__all__ = ["OfflineAuthor", "examples_for"]


def _target(ctx: GoalContext) -> Target:
    if not ctx.candidates:
        raise GoalRefused("the goal names no function of this project", usage=True)
    chosen = ctx.answers.get(TARGET)
    for t in ctx.candidates:
        if t.where == chosen:
            return t
    return ctx.candidates[0]


class OfflineAuthor:
    """`GoalAuthor` without a model: it asks only which function is meant, when the words leave it open."""

    name = "offline"

    def __init__(self) -> None:
        self.notes: list[str] = []  # shown by the goal run (e.g. why the property tests were left out)
        self._hypothesis = True  # until a run of the test says the project's interpreter has none

    def questions(self, ctx: GoalContext) -> Sequence[Question]:
        if TARGET in ctx.answers or len(ctx.candidates) < 2:
            return ()
        # Prefer the candidates that have something to build a test from: offered first, the default.
        ranked = sorted(ctx.candidates, key=lambda t: not stated(ctx.goal, t, ctx.sources.get(t.path, "")).claims)
        ranked = ranked[:MAX_CHOICES]
        return (Question(TARGET, "Which function is the goal about?", tuple(t.where for t in ranked), ranked[0].where),)

    def spec(self, ctx: GoalContext) -> Spec:
        target = _target(ctx)
        s = stated(ctx.goal, target, ctx.sources.get(target.path, ""))
        if not s.claims:
            raise GoalRefused(refusal(s, target), usage=False)
        if s.problem:
            self.notes.append(f"no property test for the stated invariant: {s.problem}")
        origin = {"docstring": "the docstring", "goal-text": "the goal"}.get(s.origin, f"the invariant stated in "
                                                                          f"{s.invariant_origin.replace('-', ' ')}")
        return Spec(goal=ctx.goal, expected="; ".join(s.claims), actual="not yet observed (the test run shows it)",
                    where=target.where, example=s.claims[0], target=target,
                    assumptions=tuple(ctx.assumptions) + (f"the expected behaviour is taken from {origin}",))

    def reproduction_test(self, spec: Spec, ctx: GoalContext, feedback: str = "") -> ReproTest:
        target = spec.target or _target(ctx)
        if feedback:
            if HYPOTHESIS_MISSING not in feedback or not self._hypothesis:
                raise GoalRefused(feedback)  # the examples are what they are: a second try would write the same test
            self._hypothesis = False
            if not stated(ctx.goal, target, ctx.sources.get(target.path, ""), with_properties=False).examples:
                name = target.function.rsplit(".", 1)[-1]
                raise GoalRefused(
                    "the property test of the stated invariant needs Hypothesis, which the project's interpreter "
                    f"does not have: install it there (pip install hypothesis), or add an example to the goal, "
                    f"e.g. \"{name}(...) should be ...\"")
            self.notes.append("the project's interpreter has no Hypothesis (install it there for property tests): "
                              "the reproduction test keeps the examples only")
        module_text = ctx.sources.get(target.path, "")
        s = stated(ctx.goal, target, module_text, with_properties=self._hypothesis)
        if not s.claims:
            raise GoalRefused(f"nothing to build a reproduction test from for {target.where}")
        base = target.function.rsplit(".", 1)[-1].lower().strip("_") or "behaviour"
        header = (f"Reproduction test written by fixloop for the goal: {ctx.goal}\n\n"
                  f"Where: {spec.where}\nExpected: {spec.expected}\n")
        source, names = test_source(s, target.module, module_text, base, header)
        return ReproTest(ctx.test_path, source, names, s.origin)

    def usage(self) -> Usage:
        return Usage()
