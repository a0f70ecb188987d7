"""One past fix carried over to a differently written statement: the one-shot analogy.

The past fix's changed node (`low` -> `high` in `max(low, min(value, low))`) is anti-unified with a
statement here (`min(max(requested, self.low), self.low)`): names and attribute chains are roles bound
to whatever plays them here (`low` ~ `self.low`), literals are holes, operators keep their family (a
`>`->`>=` fix carries to a `<`), and the changed node is found by its neighbourhood (an argument of
`min`, the last argument of `range`, ...). A name the fix brought in with no counterpart in the
statement (`high`) becomes the sibling of its role's counterpart that the scope has (`self.high`).

Pure functions over source text and tree-sitter trees. Any input may be hostile (a teammate's memory
row): what cannot be read yields no analogy, never an exception the caller did not ask for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator

from tree_sitter import Node, Tree

from fixloop.kit.syntax import Offsets, enclosing, names_in_scope, parse, text_of, walk
from fixloop.adapters.memory.roles import carry_over, counterparts, family_of
from fixloop.kit.shapes import KEEP_NAMES, NOT_HEADER, is_statement, node_shapes, reads_as_fixed, statement_node

LITERAL_KINDS = {"integer": "num", "float": "num", "string": "str", "concatenated_string": "str",
                 "true": "bool", "false": "bool", "none": "none"}
MAX_CODE = 2_000  # a stored statement longer than this is no statement a fix changed
MAX_NEW = 400  # nor is a replacement longer than this


@dataclass(frozen=True)
class Analogy:
    """The past fix made here: replace characters [start, end) of the target source with `text`."""

    start: int
    end: int
    text: str
    score: float  # how alike the neighbourhoods are, times how sure the carried-over exchange is
    was: str  # the target code replaced
    roles: tuple[tuple[str, str], ...] = field(default=())  # past name -> its counterpart here


# ---- trees ------------------------------------------------------------------------------------------

def is_atom(node: Node) -> bool:
    """A role or a hole: a name, a dotted attribute chain, a literal (`min`, `len`, ... are operators)."""
    if node.type in LITERAL_KINDS:
        return True
    if node.type == "identifier":
        return text_of(node) not in KEEP_NAMES and node.is_named
    if node.type == "attribute":
        obj = node.child_by_field_name("object")
        return obj is not None and obj.type in ("identifier", "attribute") and (obj.type != "attribute" or is_atom(obj))
    return False


def is_literal(node: Node) -> bool:
    return node.type in LITERAL_KINDS


def _header_children(node: Node) -> list[Node]:
    return [c for c in node.children if not (is_statement(node) and c.type in NOT_HEADER)]


def header_nodes(statement: Node) -> Iterator[Node]:
    """Every node of a statement's header (a compound statement's body is other statements)."""
    stack = [statement]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(_header_children(node)))


@lru_cache(maxsize=256)
def past_statement(code: str) -> tuple[Tree, Node] | None:
    """The statement `code` (a header alone, as stored: `if q > LIMIT:`) parsed, or None."""
    if not code.strip() or len(code) > MAX_CODE or "\x00" in code:
        return None
    for prefix, suffix in (("", ""), ("", " pass"), ("if 1:\n    pass\n", " pass"), ("try:\n    pass\n", " pass")):
        tree = parse(prefix + code.strip() + suffix)
        if tree.root_node.has_error:
            continue
        node = statement_node(tree.root_node, prefix.count("\n") + 1)
        if node is not None:
            return tree, node
    return None


def changed(a: Node, b: Node) -> tuple[Node, Node] | None:
    """The smallest pair of nodes where statement `a` became `b`: one child that differs is descended
    into; a name, a literal, or a node whose several children differ is the change."""
    if text_of(a) == text_of(b):
        return None
    ca, cb = _header_children(a), _header_children(b)
    if is_atom(a) or is_atom(b) or a.type != b.type or len(ca) != len(cb):
        return a, b
    diffs = [(x, y) for x, y in zip(ca, cb) if text_of(x) != text_of(y)]
    return changed(*diffs[0]) if len(diffs) == 1 else (a, b)


# ---- neighbourhoods -----------------------------------------------------------------------------------

def _label(node: Node) -> str:
    """What kind of operation a node is: an operator by family (`<` and `>=` alike, the direction may be the
    fix), a call by its builtin (`min` is not `max`: which of the two holds a name tells the names apart)."""
    if node.type == "call":
        fn = node.child_by_field_name("function")
        name = text_of(fn) if fn is not None else ""
        return "call:" + (name if name in KEEP_NAMES else "role")
    ops = [text_of(c) for c in node.children if not c.is_named]
    fams = [family_of(o) for o in ops]
    return " ".join(",".join(sorted(f)) if f else o for o, f in zip(ops, fams) if o not in "(),[]:")


def _steps(node: Node, limit: int = 2) -> tuple[list[tuple[str, str, int, int]], str]:
    """The first `limit` enclosing nodes up to the statement as (type, label, place, place from the end),
    an argument's place being its call's; and the statement's type."""
    out: list[tuple[str, str, int, int]] = []
    cur = node
    while cur.parent is not None and not is_statement(cur) and len(out) < limit:
        parent = cur.parent
        named = [c for c in parent.children if c.is_named]
        place = next((i for i, c in enumerate(named) if c.start_byte == cur.start_byte and c.end_byte == cur.end_byte), -1)
        if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call":
            out.append(("argument", _label(parent.parent), place, len(named) - 1 - place))
            cur = parent.parent
            continue
        kind = "callee" if parent.type == "call" and place == 0 else parent.type  # `f` in `f(x)` is no argument
        out.append((kind, _label(parent), place, len(named) - 1 - place if place >= 0 else -1))
        cur = parent
    while cur.parent is not None and not is_statement(cur):
        cur = cur.parent
    return out, cur.type


_ARITHMETIC = frozenset("+-*/%@")


def _kind_of(label: str) -> str:
    """A label coarser still: every arithmetic operator one kind (`a * a` and `a + a` both combine values)."""
    return "arithmetic" if label and set(label.replace(",", "")) <= _ARITHMETIC else label


def context(past: Node, here: Node) -> tuple[float, bool]:
    """How alike two nodes' neighbourhoods are (0..1), and whether their parents are the same kind of
    operation (the same builtin called, the same operator family or arithmetic) with them in the same role."""
    (a, sa), (b, sb) = _steps(past), _steps(here)
    total, near = 0.15 if sa == sb else 0.0, True
    for k, weight in enumerate((0.6, 0.25)):
        if k >= len(a) and k >= len(b):
            score = 1.0
        elif k >= len(a) or k >= len(b) or a[k][0] != b[k][0]:
            score, near = 0.0, near and k > 0
        else:
            same_place = a[k][2] == b[k][2] or (a[k][3] == b[k][3] and a[k][3] >= 0)
            score = 0.3 + 0.5 * (a[k][1] == b[k][1]) + 0.2 * same_place
            near = near and (k > 0 or _kind_of(a[k][1]) == _kind_of(b[k][1]))
        total += weight * score
    return total, near


# ---- matching and rendering ---------------------------------------------------------------------------

def match(p: Node, t: Node, bind: dict[str, str]) -> float | None:
    """Anti-unify the past node `p` with `t`: roles bound consistently (one past name, one expression
    here), literals as holes of the same kind, everything else equal. The score, or None."""
    if is_atom(p):
        if not is_atom(t) or is_literal(p) != is_literal(t):
            return None
        if is_literal(p):
            if LITERAL_KINDS[p.type] != LITERAL_KINDS[t.type]:
                return None
            bind.setdefault(text_of(p), text_of(t))
            return 1.0 if text_of(p) == text_of(t) else 0.8
        name, here = text_of(p), text_of(t)
        if bind.get(name, here) != here or any(v == here and k != name for k, v in bind.items()):
            return None
        bind[name] = here
        return 1.0
    if p.child_count == 0 or t.child_count == 0:
        return 1.0 if p.type == t.type and text_of(p) == text_of(t) else None
    if p.type != t.type or p.child_count != t.child_count:
        return None
    score = 1.0
    for x, y in zip(p.children, t.children):
        s = match(x, y, bind)
        if s is None:
            return None
        score *= s
    return score


def _atoms(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        if is_atom(n):
            yield n
        else:
            stack.extend(reversed(n.children))


def render(new: Node, bind: dict[str, str], resolve: dict[str, str]) -> str | None:
    """The past replacement `new` in this code's names; None when a name of it has no counterpart here."""
    data = new.text or b""
    out, at = [], new.start_byte
    for atom in _atoms(new):
        name = text_of(atom)
        value = bind.get(name) if not is_literal(atom) else bind.get(name, name)
        if value is None:
            value = resolve.get(name)
        if value is None:
            return None
        out.append(data[at - new.start_byte: atom.start_byte - new.start_byte].decode("utf-8", "replace"))
        out.append(value)
        at = atom.end_byte
    out.append(data[at - new.start_byte:].decode("utf-8", "replace"))
    return "".join(out)


@lru_cache(maxsize=32)
def _dotted_names(source: str) -> tuple[str, ...]:
    """Every attribute chain the file uses (`self.high`, `size.height`): the scope of a counterpart."""
    return tuple(dict.fromkeys(text_of(n) for n in walk(_tree(source).root_node) if n.type == "attribute" and is_atom(n)))


def _scope(source: str, node: Node) -> list[str]:
    return names_in_scope(node) + list(_dotted_names(source))


def _role_map(past: Node, old: Node, target: Node) -> dict[str, str]:
    """Past name -> the expression here whose neighbourhood is most like one of its places (outside the change)."""
    here = [n for n in header_nodes(target) if is_atom(n) and not is_literal(n)]
    best: dict[str, tuple[float, str]] = {}
    for atom in (n for n in header_nodes(past) if is_atom(n) and not is_literal(n)):
        if old.start_byte <= atom.start_byte < old.end_byte:
            continue
        for t in here:
            score, near = context(atom, t)
            if near and score > best.get(text_of(atom), (0.0, ""))[0]:
                best[text_of(atom)] = (score, text_of(t))
    return {k: v for k, (_, v) in best.items()}


# ---- the analogy --------------------------------------------------------------------------------------

def analogies(before: str, after: str, source: str, line: int, limit: int = 3) -> list[Analogy]:
    """The past fix (statement `before` -> `after`, as stored) made at the statement on `line` of
    `source`, best first, at most `limit`; [] when the shapes have nothing in common."""
    past_a, past_b, tree = past_statement(before), past_statement(after), _tree(source)
    if past_a is None or past_b is None or tree.root_node.has_error:
        return []
    target = _statement_at(source, line)
    pair = changed(past_a[1], past_b[1])
    if target is None or pair is None or len(text_of(pair[1])) > MAX_NEW:
        return []
    if reads_as_fixed(node_shapes(past_a[1]), node_shapes(past_b[1]), node_shapes(target)):
        return []
    old, new = pair
    if _is_operator(old) and _is_operator(new):
        found = _operator(old, new, target)
    else:
        found = _rewrite(old, new, past_a[1], target, source)
    off = _offsets(source)
    out: dict[tuple[int, int, str], Analogy] = {}
    for node, text, score, roles in found:
        start, end = off.char(node.start_byte), off.char(node.end_byte)
        if text != source[start:end]:
            key = (start, end, text)
            if key not in out or out[key].score < score:
                out[key] = Analogy(start, end, text, round(score, 4), source[start:end], roles)
    return sorted(out.values(), key=lambda a: (-a.score, a.start, a.text))[:limit]


# Every past fix is tried at every suspect line of a file: the file is parsed once, not once per try.
@lru_cache(maxsize=8)
def _tree(source: str) -> Tree:
    return parse(source)


@lru_cache(maxsize=8)
def _offsets(source: str) -> Offsets:
    return Offsets(source)


@lru_cache(maxsize=512)
def _statement_at(source: str, line: int) -> Node | None:
    return statement_node(_tree(source).root_node, line)


Found = list[tuple[Node, str, float, tuple[tuple[str, str], ...]]]


def _is_operator(node: Node) -> bool:
    return not is_atom(node) and (not node.is_named or (node.type == "identifier" and text_of(node) in KEEP_NAMES))


def _operator(old: Node, new: Node, target: Node) -> Found:
    """An exchange within an operator family, carried to the operators of that family here."""
    out: Found = []
    if family_of(text_of(old)) is None or old.parent is None:
        return out
    for node in header_nodes(target):
        if not _is_operator(node) or node.parent is None or node.parent.type != old.parent.type:
            continue
        score, _ = context(old, node)
        for op, sure in carry_over(text_of(old), text_of(new), text_of(node)):
            out.append((node, op, score * sure, ()))
    return out


def _rewrite(old: Node, new: Node, past: Node, target: Node, source: str) -> Found:
    """The changed subtree matched here with its roles bound, the replacement rendered in this code's names."""
    out: Found = []
    resolve_base: dict[str, str] | None = None
    for node in header_nodes(target):
        if enclosing(node, "type") is not None:
            continue  # an annotation: nothing in it runs
        bind: dict[str, str] = {}
        fit = match(old, node, bind)
        if fit is None:
            continue
        score, near = context(old, node)
        if is_atom(old) and not near:
            continue  # a lone name or literal is everywhere: only one in the same place is the analogue
        if is_literal(old) and is_literal(new):
            for text, sure in _literal(text_of(old), text_of(new), text_of(node)):
                out.append((node, text, score * sure, ()))
            continue
        if resolve_base is None:
            resolve_base = _role_map(past, old, target)
        options = _resolutions(old, new, node, bind, resolve_base, source)
        for resolve, sure in options:
            text = render(new, bind, resolve)
            if text is not None:
                roles = tuple(sorted((k, v) for k, v in {**bind, **resolve}.items() if k != v))
                out.append((node, text, score * fit * sure, roles))
    return out


def _resolutions(old: Node, new: Node, here: Node, bind: dict[str, str], statement_roles: dict[str, str],
                 source: str) -> list[tuple[dict[str, str], float]]:
    """Ways to name what the fix brought in: the statement's own counterpart of that name, else a sibling of
    a bound role's counterpart that the scope has (`low` ~ `self.low`, so `high` ~ `self.high`)."""
    unbound = [text_of(a) for a in _atoms(new) if not is_literal(a) and text_of(a) not in bind]
    unbound = list(dict.fromkeys(unbound))
    if not unbound:
        return [({}, 1.0)]
    options: list[tuple[dict[str, str], float]] = [({}, 1.0)]
    scope: list[str] | None = None
    for name in unbound:
        if name in statement_roles:
            options = [({**o, name: statement_roles[name]}, s) for o, s in options]
            continue
        scope = scope if scope is not None else _scope(source, here)
        found = [(c, sure) for was, now in bind.items() if _is_name(was) and _is_name(now)
                 for c, sure in counterparts(was, name, now, scope)]
        if not found:
            return []
        options = [({**o, name: c}, s * sure) for o, s in options for c, sure in found[:2]]
    return options


def _is_name(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


def _literal(old: str, new: str, here: str) -> list[tuple[str, float]]:
    """A literal exchange carried to another literal of its kind: the same exchange, the same step, or back."""
    out: list[tuple[str, float]] = []
    if here == old:
        out.append((new, 1.0))
    try:
        step = int(new, 0) - int(old, 0)
        out.append((str(int(here, 0) + step), 0.5))
    except ValueError:
        pass
    if here == new:
        out.append((old, 0.6))
    return [(t, s) for t, s in out if t != here]
