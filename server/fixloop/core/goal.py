"""The goal author's port: what turns words plus code context into questions, a spec and a test.

A goal run (`fixloop fix PATH --goal TEXT`, or the server's `fixloop.fix` with `goal`) calls a
`GoalAuthor` in this order::

    questions(ctx)            -> at most 3 Questions; the run asks the user (or assumes the defaults)
    spec(ctx with answers)    -> a Spec: expected vs actual behaviour, where, an example
    reproduction_test(...)    -> a ReproTest: pytest source for `ctx.test_path`, which must FAIL on the
                                 current code on an assertion about the behaviour

The run verifies the test in the sandbox (the project is untrusted) and, when verification refuses
it, may call `reproduction_test` again with `feedback` saying why (a model author can use it; the
offline author gives up). An author never runs project code and never writes files: it returns
values, the run decides what happens with them.

Problems a user must fix (no such function, nothing to build a test from) are `GoalRefused`
with a message that says what to add or change; anything else raised is a program failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Protocol, Sequence, runtime_checkable

from fixloop.core.model import Usage


class GoalRefused(Exception):
    """The goal cannot go on, for a reason the user can act on (the message says what to do).

    `usage` is True when the input itself is the problem (empty or meaningless goal, a file or
    function that does not exist): the CLI exits 2 for those."""

    def __init__(self, message: str, usage: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage


@dataclass(frozen=True)
class Target:
    """A function (or method) the goal may be about, found statically (tree-sitter, never imported)."""

    path: str  # relative to the workspace, forward slashes: "shop/cart.py"
    function: str  # qualified name inside the module: "discount" or "Cart.total"
    line: int  # 1-based line of the `def`
    end_line: int  # 1-based last line of the function
    module: str  # the dotted import name a test uses: "shop.cart"
    source: str  # the function's text (decorators and docstring included)
    docstring: str = ""  # the cleaned docstring, "" when none
    signature: str = ""  # "discount(price, qty=1)"

    @property
    def where(self) -> str:
        return f"{self.path}::{self.function}"


@dataclass(frozen=True)
class Question:
    """A clarifying question. `choices` are what the user picks from (the editor's actions, the
    CLI's numbered prompt); `default` is what `--yes` assumes, stated in the output."""

    id: str  # stable within one goal run, e.g. "target"
    text: str
    choices: tuple[str, ...]
    default: str


@dataclass(frozen=True)
class GoalContext:
    """Everything an author may look at. Read-only; sources are the project's text as the run starts."""

    goal: str  # the user's words, stripped
    workspace: Path  # the user's project root (for naming only: authors never read or run files there)
    sources: Mapping[str, str]  # relative path -> text of the project's Python files
    candidates: tuple[Target, ...] = ()  # functions the words (or the cursor) point at, best first
    cursor_path: str = ""  # the editor's file, relative; "" when none
    cursor_line: int = 0  # 1-based; 0 when the editor gave no position
    test_path: str = ""  # where the reproduction test will be written (relative; a new file)
    answers: Mapping[str, str] = field(default_factory=dict)  # Question.id -> chosen choice
    assumptions: tuple[str, ...] = ()  # defaults taken without asking (`--yes`), in words


@dataclass(frozen=True)
class Spec:
    """The goal pinned down: what should happen, what happens, where, and an example."""

    goal: str
    expected: str  # "discount(10) returns 9.0"
    actual: str  # "the current code returns something else" (the run fills in the observed value)
    where: str  # "shop/cart.py::discount"
    example: str  # "discount(10) == 9.0"
    target: Target | None = None
    assumptions: tuple[str, ...] = ()  # what was assumed instead of asked

    def as_dict(self) -> dict[str, object]:
        return {"goal": self.goal, "expected": self.expected, "actual": self.actual, "where": self.where,
                "example": self.example, "assumptions": list(self.assumptions)}


@dataclass(frozen=True)
class ReproTest:
    """A reproduction test: pytest source for a new file at `path` (== GoalContext.test_path)."""

    path: str  # relative, forward slashes; never an existing file
    source: str  # the whole file's text
    tests: tuple[str, ...]  # the test functions' names in it, e.g. ("test_discount_goal_1",)
    origin: str  # "docstring" | "goal-text" | "goal-text-invariant" | "docstring-invariant" | "model": what it came from

    @property
    def node_ids(self) -> tuple[str, ...]:
        return tuple(f"{self.path}::{name}" for name in self.tests)


@runtime_checkable
class GoalAuthor(Protocol):
    """Writes the questions, the spec and the reproduction test of a goal. One implementation per
    file: `application/testgen/goal_offline.py` (docstring and goal-text examples, no model)."""

    name: str  # "offline", "claude", ...: logged with the run

    def questions(self, ctx: GoalContext) -> Sequence[Question]:
        """At most 3 questions, only when the words are ambiguous (e.g. several functions match);
        () when the author can go on. Questions already in `ctx.answers` are not asked again."""
        ...

    def spec(self, ctx: GoalContext) -> Spec:
        """The spec of the goal, given the answers (and assumptions) in `ctx`. Raises GoalRefused."""
        ...

    def reproduction_test(self, spec: Spec, ctx: GoalContext, feedback: str = "") -> ReproTest:
        """A test for `ctx.test_path` that should fail on the current code on an assertion about the
        spec's behaviour. `feedback` is the verification's refusal of the previous try ("" on the
        first). Raises GoalRefused when there is nothing to build a test from."""
        ...

    def usage(self) -> Usage:
        """Model calls, tokens and cost spent so far (Usage() for an offline author)."""
        ...
