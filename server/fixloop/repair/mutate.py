"""Mutation operators on tree-sitter nodes, and the offline proposer that applies them at suspects.

Each operator is a small named function: node -> candidate edits. Every candidate must still parse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from tree_sitter import Node

from ..core.model import FileChange, Patch
from ..core.patch import TextEdit, apply_edits
from ..core.ports import ProposalContext
from .syntax import Offsets, parse, parses, walk


@dataclass(frozen=True)
class Mutation:
    operator: str
    edit: TextEdit
    summary: str


Operator = Callable[[Node, Offsets], Iterable[Mutation]]

COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
ARITHMETIC = {"+": ("-",), "-": ("+",), "*": ("/", "//"), "/": ("*", "//"), "//": ("/", "%"), "%": ("//",)}
AUGMENTED = {"+=": ("-=",), "-=": ("+=",), "*=": ("/=", "//="), "/=": ("*=",), "//=": ("/=",)}
BOOLEAN = {"and": "or", "or": "and"}
MAX_SOURCE_CHARS = 400_000


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _replace(node: Node, off: Offsets, new: str) -> TextEdit:
    return TextEdit(off.char(node.start_byte), off.char(node.end_byte), new)


def comparison_swap(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "comparison_operator":
        return
    for child in node.children:
        if not child.is_named and _text(child) in COMPARISONS:
            old = _text(child)
            for new in COMPARISONS:
                if new != old:
                    yield Mutation("comparison_swap", _replace(child, off, new), f"{old} -> {new}")


def arithmetic_swap(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type == "binary_operator":
        op = node.child_by_field_name("operator")
        if op is not None and _text(op) in ARITHMETIC:
            for new in ARITHMETIC[_text(op)]:
                yield Mutation("arithmetic_swap", _replace(op, off, new), f"{_text(op)} -> {new}")
    elif node.type == "augmented_assignment":
        op = node.child_by_field_name("operator")
        if op is not None and _text(op) in AUGMENTED:
            for new in AUGMENTED[_text(op)]:
                yield Mutation("augmented_swap", _replace(op, off, new), f"{_text(op)} -> {new}")


def integer_nudge(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "integer":
        return
    try:
        value = int(_text(node).replace("_", ""), 0)
    except ValueError:
        return
    for delta in (1, -1):
        yield Mutation("integer_nudge", _replace(node, off, str(value + delta)), f"{value} -> {value + delta}")


def bound_nudge(node: Node, off: Offsets) -> Iterator[Mutation]:
    """+/-1 on non-literal range() arguments, slice bounds and subscripts."""
    targets: list[Node] = []
    if node.type == "call":
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is not None and _text(fn) == "range" and args is not None:
            targets = [a for a in args.named_children if a.type not in ("integer", "keyword_argument")]
    elif node.type == "slice":
        targets = [c for c in node.named_children if c.type != "integer"]
    elif node.type == "subscript":
        targets = [c for c in node.children_by_field_name("subscript") if c.type not in ("integer", "slice", "string")]
    for target in targets:
        for sign in ("+", "-"):
            text = _text(target)
            yield Mutation("bound_nudge", _replace(target, off, f"{text} {sign} 1"), f"{text} -> {text} {sign} 1")


def boolean_swap(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "boolean_operator":
        return
    op = node.child_by_field_name("operator")
    if op is not None and _text(op) in BOOLEAN:
        yield Mutation("boolean_swap", _replace(op, off, BOOLEAN[_text(op)]), f"{_text(op)} -> {BOOLEAN[_text(op)]}")


def negate_condition(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type not in ("if_statement", "while_statement", "elif_clause"):
        return
    cond = node.child_by_field_name("condition")
    if cond is None:
        return
    if cond.type == "not_operator":
        arg = cond.child_by_field_name("argument")
        if arg is not None:
            yield Mutation("negate_condition", _replace(cond, off, _text(arg)), f"drop 'not' in {_text(cond)}")
    else:
        yield Mutation("negate_condition", _replace(cond, off, f"not ({_text(cond)})"), f"negate {_text(cond)}")


OPERATORS: tuple[Operator, ...] = (
    comparison_swap, arithmetic_swap, integer_nudge, bound_nudge, boolean_swap, negate_condition,
)


def mutations_at(text: str, lines: set[int], operators: Iterable[Operator] = OPERATORS) -> Iterator[Mutation]:
    """Every mutation whose edit starts on one of `lines` (1-based)."""
    tree = parse(text)
    off = Offsets(text)
    ops = tuple(operators)
    for node in walk(tree.root_node):
        if node.start_point[0] + 1 not in lines and node.type not in ("if_statement", "while_statement", "elif_clause"):
            continue
        for op in ops:
            for m in op(node, off):
                line = text.count("\n", 0, m.edit.start) + 1
                if line in lines:
                    yield m


class MutationProposer:
    """The first offline proposer: single mutations at suspicious lines, best suspects first."""

    name = "mutation"
    adaptive = False

    def __init__(self, max_suspect_lines: int = 40) -> None:
        self.max_suspect_lines = max_suspect_lines

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        by_line = [s for s in ctx.suspects if not ctx.is_test_file(s.path) and s.path in ctx.sources]
        ranked: list[tuple[float, str, int, Mutation]] = []
        lines_by_path: dict[str, dict[int, float]] = {}
        for s in by_line[: self.max_suspect_lines]:
            lines_by_path.setdefault(s.path, {})[s.line] = max(s.score, lines_by_path.get(s.path, {}).get(s.line, 0.0))
        for path, lines in lines_by_path.items():
            text = ctx.sources[path]
            if len(text) > MAX_SOURCE_CHARS:
                continue
            for order, m in enumerate(mutations_at(text, set(lines))):
                line = text.count("\n", 0, m.edit.start) + 1
                score = lines[line] * ctx.priors.get(m.operator, 1.0)
                ranked.append((-score, path, order, m))
        ranked.sort(key=lambda r: (r[0], r[1], r[2]))
        for _, path, _, m in ranked:
            before = ctx.sources[path]
            after = apply_edits(before, [m.edit])
            if after == before or not parses(after):
                continue
            line = before.count("\n", 0, m.edit.start) + 1
            yield Patch((FileChange(path, before, after),), self.name, m.operator, f"{path}:{line}: {m.summary}")

