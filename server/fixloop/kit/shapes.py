"""Statement shapes: a statement's tokens with identifiers and literals abstracted, and the
transfer of a past fix's token edit onto an analogous statement elsewhere.

`if quantity > LIMIT:` and `if age > MAX_AGE:` have one shape (`if ID > ID :`), so a fix that
turned `>` into `>=` in one can be replayed in the other. Pure functions over tree-sitter trees.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from tree_sitter import Node

from fixloop.kit.syntax import Offsets, parse, text_of, walk

# Clause children that are separate statements (or bodies), not part of a header's shape.
NOT_HEADER = frozenset({"block", "elif_clause", "else_clause", "except_clause", "finally_clause", "comment",
                         "except_group_clause", "case_clause"})
_STATEMENT_SUFFIXES = ("_statement", "_definition")
# Clauses that are statements of their own; `for_in_clause` and `if_clause` (comprehensions) are not.
_STATEMENT_CLAUSES = frozenset({"elif_clause", "else_clause", "except_clause", "except_group_clause",
                                "finally_clause", "case_clause"})
LITERALS = {"integer": "NUM", "float": "NUM", "string": "STR", "concatenated_string": "STR"}
# Names whose identity is part of the shape: calling `len` is not calling `price`.
KEEP_NAMES = frozenset({
    "len", "range", "min", "max", "sum", "abs", "round", "int", "float", "str", "bool", "list", "dict", "set",
    "tuple", "sorted", "reversed", "enumerate", "zip", "isinstance", "any", "all", "self", "cls", "print", "open",
    "super", "type", "map", "filter", "iter", "next", "getattr", "setattr", "hasattr",
})


@dataclass(frozen=True)
class Token:
    shape: str  # the abstract form: ID, NUM, STR, or the token itself
    text: str
    gap: str = ""  # the whitespace before this token inside the statement
    start: int = 0  # character offsets in the source it came from
    end: int = 0

    def to_json(self) -> list[str]:
        return [self.shape, self.text, self.gap]

    @staticmethod
    def from_json(data: Sequence[str]) -> "Token":
        return Token(str(data[0]), str(data[1]), str(data[2]) if len(data) > 2 else "")


def is_statement(node: Node) -> bool:
    return node.is_named and (node.type.endswith(_STATEMENT_SUFFIXES) or node.type in _STATEMENT_CLAUSES)


def _leaves(node: Node, header_only: bool) -> Iterable[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in LITERALS or n.child_count == 0:
            if n.type != "comment":
                yield n
            continue
        children = [c for c in n.children if not (header_only and c.type in NOT_HEADER)]
        stack.extend(reversed(children))


def abstract_token(node: Node, text: str) -> str:
    if node.type in LITERALS:
        return LITERALS[node.type]
    if node.type == "identifier":
        return text if text in KEEP_NAMES else "ID"
    return text


def statement_node(tree_root: Node, line: int) -> Node | None:
    """The innermost statement that starts a token on `line` (1-based)."""
    row = line - 1
    for node in walk(tree_root):
        if node.start_point[0] > row:
            return None
        if node.child_count == 0 and node.start_point[0] == row and node.type != "comment":
            current: Node | None = node
            while current is not None and not is_statement(current):
                current = current.parent
            return current
    return None


def statement_tokens(source: str, line: int, offsets: Offsets | None = None, tree_root: Node | None = None) -> tuple[Token, ...]:
    """Tokens of the statement (the header of a compound statement) on `line`; () if there is none."""
    root = tree_root if tree_root is not None else parse(source).root_node
    node = statement_node(root, line)
    if node is None:
        return ()
    return _tokens_of(node, source, offsets or Offsets(source))


def _tokens_of(node: Node, source: str, off: Offsets) -> tuple[Token, ...]:
    out: list[Token] = []
    previous_end: int | None = None
    for leaf in _leaves(node, header_only=True):
        start, end = off.char(leaf.start_byte), off.char(leaf.end_byte)
        text = source[start:end]
        gap = source[previous_end:start] if previous_end is not None else ""
        out.append(Token(abstract_token(leaf, text), text, gap if gap.strip() == "" else " ", start, end))
        previous_end = end
    return tuple(out)


def shape_of(tokens: Sequence[Token]) -> str:
    return " ".join(t.shape for t in tokens)


def statement_shape(source: str, line: int) -> str:
    return shape_of(statement_tokens(source, line))


def code_of(tokens: Sequence[Token]) -> str:
    return "".join(t.gap + t.text for t in tokens)


def shape_similarity(a: Sequence[Token] | Sequence[str], b: Sequence[Token] | Sequence[str]) -> float:
    sa = [t.shape if isinstance(t, Token) else t for t in a]
    sb = [t.shape if isinstance(t, Token) else t for t in b]
    if not sa or not sb:
        return 0.0
    return difflib.SequenceMatcher(None, sa, sb, autojunk=False).ratio()


def node_shapes(node: Node) -> tuple[str, ...]:
    """The abstract tokens of a statement node (its header for a compound one), as `Token.shape` has them."""
    return tuple(abstract_token(leaf, text_of(leaf)) for leaf in _leaves(node, header_only=True))


def reads_as_fixed(before: Sequence[Token] | Sequence[str], after: Sequence[Token] | Sequence[str],
                   target: Sequence[Token] | Sequence[str]) -> bool:
    """Whether `target` is nearer a past fix's result than the statement that fix changed: it has the fix
    already (`xs[a:b + 1]` for a fix that added `+ 1`, `a - b` for one that made `+` a `-`), and the same
    edit made again there would undo nothing and break what works."""
    return shape_similarity(after, target) > shape_similarity(before, target)


@dataclass(frozen=True)
class StatementEdit:
    """One fixed statement: its tokens before and after the fix."""

    before: tuple[Token, ...]
    after: tuple[Token, ...]

    @property
    def fault_shape(self) -> str:
        return shape_of(self.before)


def edits_to_json(edits: Sequence[StatementEdit]) -> str:
    return json.dumps([[[t.to_json() for t in e.before], [t.to_json() for t in e.after]] for e in edits])


def parse_edits(text: str) -> list[StatementEdit]:
    """The statement edits stored as JSON; ValueError when they cannot be read."""
    try:
        data = json.loads(text or "[]")
    except ValueError:
        raise ValueError("the stored edit cannot be read (it is not valid JSON)") from None
    try:
        return [StatementEdit(tuple(Token.from_json(t) for t in b), tuple(Token.from_json(t) for t in a)) for b, a in data]
    except (ValueError, TypeError, IndexError, KeyError):
        raise ValueError("the stored edit cannot be read (it is not a list of statement edits)") from None


def edits_from_json(text: str) -> list[StatementEdit]:
    try:
        return parse_edits(text)
    except ValueError:
        return []


def changed_statements(before: str, after: str, limit: int = 3) -> list[StatementEdit]:
    """The statements a fix changed, paired by the first changed line of each diff block."""
    a_lines, b_lines = before.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False)
    a_root, b_root = parse(before).root_node, parse(after).root_node
    a_off, b_off = Offsets(before), Offsets(after)
    edits: list[StatementEdit] = []
    for tag, i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":  # a new line: the statement it follows is the anchor
            i1 = max(i1 - 1, 0)
            j1 = max(j1 - 1, 0)
        old = statement_tokens(before, i1 + 1, a_off, a_root)
        new = statement_tokens(after, j1 + 1, b_off, b_root)
        if old and new and [t.text for t in old] != [t.text for t in new]:
            edits.append(StatementEdit(old, new))
        if len(edits) >= limit:
            break
    return edits


def transfer(edit: StatementEdit, target: Sequence[Token], min_similarity: float = 0.6) -> list[tuple[int, int, str]] | None:
    """The fix's token edit re-applied to an analogous `target` statement, as (start, end, text)
    character edits on the target's source; None when the edited part has no counterpart there."""
    if shape_similarity(edit.before, target) < min_similarity:
        return None
    before, after = list(edit.before), list(edit.after)
    # Where each token of the old statement sits in the target (by abstract shape).
    align = difflib.SequenceMatcher(None, [t.shape for t in before], [t.shape for t in target], autojunk=False)
    position: dict[int, int] = {}
    for a, b, size in align.get_matching_blocks():
        for k in range(size):
            position[a + k] = b + k
    # Old concrete names -> the target's names at the same place.
    rename: dict[str, str] = {}
    for i, j in position.items():
        if before[i].shape in ("ID", "NUM", "STR"):
            rename.setdefault(before[i].text, target[j].text)

    def render(tokens: Sequence[Token], leading: bool) -> str:
        parts = [(t.gap if (k or leading) else "") + rename.get(t.text, t.text) for k, t in enumerate(tokens)]
        return "".join(parts)

    change = difflib.SequenceMatcher(None, [t.text for t in before], [t.text for t in after], autojunk=False)
    opcodes = [op for op in change.get_opcodes() if op[0] != "equal"]
    if len(opcodes) > 1:
        # Several pieces (a move reads as an insertion here and a deletion there) become one span rendered
        # from the fixed statement, so each token keeps the spacing it has there, not its old neighbours'.
        opcodes = [("replace", opcodes[0][1], opcodes[-1][2], opcodes[0][3], opcodes[-1][4])]
    edits: list[tuple[int, int, str]] = []
    for tag, i1, i2, j1, j2 in opcodes:
        touched = list(range(i1, i2)) or [i1 - 1 if i1 > 0 else 0]
        if any(i not in position for i in touched):
            return None
        if tag == "insert":
            anchor = position[i1 - 1] if i1 > 0 else None
            if anchor is None:
                edits.append((target[0].start, target[0].start, render(after[j1:j2], False) + " "))
            else:
                pos = target[anchor].end
                edits.append((pos, pos, render(after[j1:j2], True)))
            continue
        first, last = position[i1], position[i2 - 1]
        if last - first != i2 - 1 - i1:  # the old span is not contiguous in the target
            return None
        start, end = target[first].start, target[last].end
        if tag == "delete":
            if last + 1 < len(target):
                end = target[last + 1].start
            elif first > 0:
                start = target[first - 1].end
            edits.append((start, end, ""))
        else:
            edits.append((start, end, render(after[j1:j2], False)))
    return edits or None


@lru_cache(maxsize=64)
def statements(source: str) -> tuple[tuple[int, tuple[Token, ...]], ...]:
    """(line, tokens) of every statement header in `source`, in order (cached: recall, replay and
    pattern diagnostics ask about the same files)."""
    root = parse(source).root_node
    off = Offsets(source)
    out: list[tuple[int, tuple[Token, ...]]] = []
    for node in walk(root):
        if is_statement(node):
            tokens = _tokens_of(node, source, off)
            if tokens:
                out.append((node.start_point[0] + 1, tokens))
    return tuple(out)
