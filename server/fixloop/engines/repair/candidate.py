"""The offline engine's two edit types: what an operator proposes, and what the search ranks.

A `Mutation` is an operator's proposal at one syntax node, before anyone knows where it sits in the
ranking. A `Candidate` is the one scored, placed edit (or edits) that templates, single mutations and
pairs all produce; the proposer ranks candidates and turns each into a `Patch`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

from tree_sitter import Node

from fixloop.core.patch import TextEdit
from fixloop.kit.syntax import Offsets


@dataclass(frozen=True)
class Mutation:
    operator: str
    edit: TextEdit
    summary: str
    weight: float = 1.0  # within one operator: how likely this variant is, relative to the others

    @staticmethod
    def replacing(operator: str, node: Node, off: Offsets, new: str, summary: str, weight: float = 1.0) -> Mutation:
        """`node`'s text replaced by `new`."""
        return Mutation(operator, TextEdit(off.char(node.start_byte), off.char(node.end_byte), new), summary, weight)


Operator = Callable[[Node, Offsets], Iterable[Mutation]]


@dataclass(frozen=True)
class Candidate:
    """Edits to one file, where they are, and how good a bet they are.

    `summary` says what changed without the place; `label` adds the place for people (events,
    the CLI, memory). `line` is the first edit's 1-based line: pairs are grouped and the overfitting
    guard looks up test exposure by it.
    """

    path: str
    line: int
    edits: tuple[TextEdit, ...]
    operator: str
    summary: str
    score: float

    @property
    def label(self) -> str:
        return f"{self.path}:{self.line}: {self.summary}"

    def rescored(self, score: float) -> Candidate:
        return replace(self, score=score)

    @staticmethod
    def placed(path: str, text: str, edits: tuple[TextEdit, ...], operator: str, summary: str,
               score: float) -> Candidate:
        """A candidate whose line is read off its first edit (templates know offsets, not lines)."""
        return Candidate(path, text.count("\n", 0, edits[0].start) + 1, edits, operator, summary, score)

    @staticmethod
    def of(path: str, line: int, mutation: Mutation, score: float) -> Candidate:
        return Candidate(path, line, (mutation.edit,), mutation.operator, mutation.summary, score)
