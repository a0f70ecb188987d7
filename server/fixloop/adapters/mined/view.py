"""A statement as tokens plus the tree-sitter nodes over them, by token index.

Mining and matching both reason about "the smallest node that covers the change" and "a hole that binds
a whole sub-expression", so both need, for a statement header, its tokens (exactly as `memory.shapes`
cuts them) and every node's span in token positions. Pure; nothing here reads the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from tree_sitter import Node

from fixloop.kit.shapes import LITERALS, NOT_HEADER, Token, abstract_token, is_statement
from fixloop.kit.syntax import Offsets, parse, walk


@dataclass(frozen=True)
class Span:
    type: str
    start: int  # first token index
    end: int  # one past the last token index
    parent: int  # index of the parent span in View.spans, -1 for the statement
    named: bool
    leaf: bool  # one token: an identifier, a literal, a keyword or an operator


@dataclass(frozen=True)
class View:
    tokens: tuple[Token, ...]
    spans: tuple[Span, ...]  # spans[0] is the statement itself; parents come before their children

    def children(self, index: int) -> list[int]:
        return [k for k, s in enumerate(self.spans) if s.parent == index]

    def smallest(self, start: int, end: int) -> int:
        """The innermost named span covering tokens [start, end) (end > start), else the statement (0)."""
        best = 0
        for k, s in enumerate(self.spans):
            if s.named and s.start <= start and end <= s.end and (s.end - s.start) <= (
                    self.spans[best].end - self.spans[best].start):
                best = k
        return best

    def named_ends(self) -> dict[int, set[int]]:
        """token index -> the ends of the named spans that start there (what a hole may bind)."""
        out: dict[int, set[int]] = {}
        for s in self.spans:
            if s.named:
                out.setdefault(s.start, set()).add(s.end)
        return out

    def text(self, start: int, end: int, source: str) -> str:
        return source[self.tokens[start].start:self.tokens[end - 1].end]


def view_of(node: Node, source: str, off: Offsets) -> View:
    """The header of statement `node` (its body and clauses are statements of their own)."""
    tokens: list[Token] = []
    spans: list[Span] = []
    previous_end: list[int | None] = [None]

    def visit(n: Node, parent: int) -> None:
        if n.type in LITERALS or n.child_count == 0:
            if n.type == "comment":
                return
            start, end = off.char(n.start_byte), off.char(n.end_byte)
            text = source[start:end]
            gap = source[previous_end[0]:start] if previous_end[0] is not None else ""
            tokens.append(Token(abstract_token(n, text), text, gap if gap.strip() == "" else " ", start, end))
            previous_end[0] = end
            spans.append(Span(n.type, len(tokens) - 1, len(tokens), parent, n.is_named, True))
            return
        index = len(spans)
        spans.append(Span(n.type, len(tokens), len(tokens), parent, n.is_named, False))
        for child in n.children:
            if child.type in NOT_HEADER:
                continue
            visit(child, index)
        s = spans[index]
        spans[index] = Span(s.type, s.start, len(tokens), s.parent, s.named, False)

    visit(node, -1)
    kept = tuple(s for s in spans if s.end > s.start)
    if len(kept) != len(spans):  # drop empty spans, re-pointing parents
        renumber = {}
        for k, s in enumerate(spans):
            if s.end > s.start:
                renumber[k] = len(renumber)
        kept = tuple(Span(s.type, s.start, s.end, renumber.get(s.parent, -1), s.named, s.leaf)
                     for k, s in enumerate(spans) if k in renumber)
    return View(tuple(tokens), kept)


def statement_nodes(source: str) -> dict[int, Node]:
    """line (1-based) -> the outermost statement starting on it."""
    out: dict[int, Node] = {}
    for node in walk(parse(source).root_node):
        if is_statement(node):
            out.setdefault(node.start_point[0] + 1, node)
    return out


_PREFIX = {"elif": "if x:\n    pass\n", "else": "if x:\n    pass\n", "except": "try:\n    pass\n",
           "finally": "try:\n    pass\n", "case": "match x:\n"}


def view_of_code(code: str) -> View | None:
    """One statement's code (as stored: a header without its body) read back as a view, or None when it
    does not parse as one statement."""
    code = code.strip()
    first = code.split(" ", 1)[0].rstrip(":")
    prefix = _PREFIX.get(first, "")
    indent = "    " if first == "case" else ""
    body = ("\n" + indent + "    pass") if code.endswith(":") else ""
    source = prefix + indent + code + body + "\n"
    tree = parse(source)
    if tree.root_node.has_error:
        return None
    line = prefix.count("\n") + 1
    node = _innermost_statement(tree.root_node, line)
    return view_of(node, source, Offsets(source)) if node is not None else None


def _innermost_statement(root: Node, line: int) -> Node | None:
    found = None
    for node in walk(root):
        if is_statement(node) and node.start_point[0] + 1 == line:
            found = node  # walk is pre-order: the last one starting on the line is the innermost
    return found


def ancestors(view: View, index: int) -> Iterator[int]:
    while index >= 0:
        yield index
        index = view.spans[index].parent
