"""What the words (or the target's docstring) state about the target, offline: examples ("f(3) should be
4") and invariants ("total() must never be negative"). Examples come first; an invariant becomes a
Hypothesis property test, written from the target's type hints, alongside them or alone."""

from __future__ import annotations

from dataclasses import dataclass, field

from fixloop.application.testgen.examples import Example, docstring_examples, render_test, text_examples
from fixloop.application.testgen.invariant_tests import NoProperty, claim, invariant_properties, property_file, refusals
from fixloop.application.testgen.invariants import read_invariants
from fixloop.application.testgen.properties import Property
from fixloop.application.testgen.target import Target as Function
from fixloop.application.testgen.target import TestgenError, find
from fixloop.core.goal import Target

HYPOTHESIS_MISSING = "No module named 'hypothesis'"


@dataclass
class Stated:
    examples: list[Example] = field(default_factory=list)
    props: list[Property] = field(default_factory=list)
    invariant_claims: list[str] = field(default_factory=list)  # stated, whether a test could be written or not
    invariant_origin: str = ""  # goal-text | docstring
    problem: str = ""  # why the stated invariants got no property test

    @property
    def claims(self) -> list[str]:
        return [e.claim() for e in self.examples] + [p.claim for p in self.props]

    @property
    def origin(self) -> str:
        if not self.examples:
            return f"{self.invariant_origin}-invariant"
        return "docstring" if all(e.origin == "docstring" for e in self.examples) else "goal-text"


def examples_for(goal: str, target: Target) -> list[Example]:
    """Examples in the words about the target first; its docstring's when the words give none, or ask for it."""
    short = target.function.rsplit(".", 1)[-1]
    said = text_examples(goal, {short})
    documented = docstring_examples(target.docstring) if (_wants_doc(goal) or not said) else []
    return said + [d for d in documented if d.claim() not in {s.claim() for s in said}]


def _wants_doc(goal: str) -> bool:
    return "doc" in goal.lower() or "example" in goal.lower()


def _function(target: Target, module_source: str) -> Function | None:
    try:
        return find(module_source, target.path, target.function, target.module, "")
    except (TestgenError, ValueError):
        return None


def stated(goal: str, target: Target, module_source: str, with_properties: bool = True) -> Stated:
    """The examples and invariants about `target`; `with_properties=False` leaves the invariants out (the
    project's interpreter has no Hypothesis)."""
    out = Stated(examples_for(goal, target))
    function = _function(target, module_source)
    if function is None or not with_properties:
        return out
    short = target.function.rsplit(".", 1)[-1]
    names = [p.name for p in function.params if p.kind not in ("star", "double_star")]
    reading, origin = read_invariants(goal, short, names), "goal-text"
    said_examples = any(e.origin != "docstring" for e in out.examples)
    if not reading.invariants and (_wants_doc(goal) or not said_examples):
        reading, origin = read_invariants(target.docstring, short, names, docstring=True), "docstring"
    if not reading.invariants:
        return out
    if origin == "goal-text":  # what the docstring asks of the inputs ("price must be positive") still holds
        documented = read_invariants(target.docstring, short, names, docstring=True).preconditions
        reading.preconditions.extend(c for c in documented if c not in reading.preconditions)
    out.invariant_origin = origin
    call = f"{short}({', '.join(names)})"
    out.invariant_claims = [claim(i, call) for i in reading.invariants]
    try:
        out.props = invariant_properties(function, reading, f"{short.lower().strip('_') or 'behaviour'}_goal",
                                         len(out.examples) + 1, refusals(module_source, short))
    except NoProperty as e:
        out.problem = str(e)
    return out


def refusal(s: Stated, target: Target) -> str:
    """Why nothing can be built, and what to add."""
    name = target.signature.split("(")[0] or target.function
    example = (f"add an example to the goal, e.g. \"{name}(...) should be ...\", or a `>>>` example showing the "
               "right answer to its docstring")
    if s.invariant_claims and s.problem:
        return (f"the goal states {'; '.join(s.invariant_claims)}, but no property test can be written for "
                f"{target.where}: {s.problem}; or {example}")
    return (f"nothing to build a reproduction test from for {target.where} (line {target.line}): {example}, "
            f"or say what always holds for its result (\"{name}(...) is never negative\")")


def test_source(s: Stated, module: str, module_source: str, base: str, header: str) -> tuple[str, tuple[str, ...]]:
    """The reproduction test file: the examples' tests, then the invariants' property tests."""
    names: tuple[str, ...] = ()
    source = ""
    if s.examples:
        source, names = render_test(module, module_source, s.examples, base, header)
        if len(s.examples) == 1 and s.props:  # keep the numbering of a file with several tests
            source = source.replace(f"def {names[0]}()", f"def {names[0]}_1()", 1)
            names = (f"{names[0]}_1",)
    if s.props:
        source = property_file(module, header, s.props, source)
        names += tuple(p.name for p in s.props)
    return source, names

