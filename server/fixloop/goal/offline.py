"""The offline goal author: no model. Examples in the words or in the target's docstring become the test."""

from __future__ import annotations

from typing import Sequence

from ..core.model import Usage
from ..testgen.examples import Example, docstring_examples, render_test, text_examples
from .ports import GoalContext, GoalRefused, Question, ReproTest, Spec, Target

TARGET = "target"
MAX_CHOICES = 6  # a showMessageRequest with more buttons than this is unreadable


def _target(ctx: GoalContext) -> Target:
    if not ctx.candidates:
        raise GoalRefused("the goal names no function of this project", usage=True)
    chosen = ctx.answers.get(TARGET)
    for t in ctx.candidates:
        if t.where == chosen:
            return t
    return ctx.candidates[0]


def examples_for(goal: str, target: Target) -> list[Example]:
    """Examples in the words about the target first; its docstring's when the words give none, or ask for it."""
    short = target.function.rsplit(".", 1)[-1]
    said = text_examples(goal, {short})
    wants_doc = "doc" in goal.lower() or "example" in goal.lower()
    documented = docstring_examples(target.docstring) if (wants_doc or not said) else []
    return said + [d for d in documented if d.claim() not in {s.claim() for s in said}]


class OfflineAuthor:
    """`GoalAuthor` without a model: it asks only which function is meant, when the words leave it open."""

    name = "offline"

    def questions(self, ctx: GoalContext) -> Sequence[Question]:
        if TARGET in ctx.answers or len(ctx.candidates) < 2:
            return ()
        # Prefer the candidates that have something to build a test from: offered first, the default.
        ranked = sorted(ctx.candidates, key=lambda t: not examples_for(ctx.goal, t))[:MAX_CHOICES]
        return (Question(TARGET, "Which function is the goal about?", tuple(t.where for t in ranked), ranked[0].where),)

    def spec(self, ctx: GoalContext) -> Spec:
        target = _target(ctx)
        examples = examples_for(ctx.goal, target)
        if not examples:
            raise GoalRefused(
                f"nothing to build a reproduction test from for {target.where} (line {target.line}): add an example "
                f"to the goal, e.g. \"{target.signature.split('(')[0]}(...) should be ...\", or a `>>>` example "
                "showing the right answer to its docstring", usage=False)
        claims = [e.claim() for e in examples]
        origin = "the docstring" if all(e.origin == "docstring" for e in examples) else "the goal"
        return Spec(goal=ctx.goal, expected="; ".join(claims), actual="not yet observed (the test run shows it)",
                    where=target.where, example=claims[0], target=target,
                    assumptions=tuple(ctx.assumptions) + (f"the expected behaviour is taken from {origin}",))

    def reproduction_test(self, spec: Spec, ctx: GoalContext, feedback: str = "") -> ReproTest:
        if feedback:  # the examples are what they are: a second try would write the same test
            raise GoalRefused(feedback)
        target = spec.target or _target(ctx)
        examples = examples_for(ctx.goal, target)
        if not examples:
            raise GoalRefused(f"nothing to build a reproduction test from for {target.where}")
        module_text = ctx.sources.get(target.path, "")
        base = target.function.rsplit(".", 1)[-1].lower().strip("_") or "behaviour"
        header = (f"Reproduction test written by fixloop for the goal: {ctx.goal}\n\n"
                  f"Where: {spec.where}\nExpected: {spec.expected}\n")
        source, names = render_test(target.module, module_text, examples, base, header)
        origin = "docstring" if all(e.origin == "docstring" for e in examples) else "goal-text"
        return ReproTest(ctx.test_path, source, names, origin)

    def usage(self) -> Usage:
        return Usage()
