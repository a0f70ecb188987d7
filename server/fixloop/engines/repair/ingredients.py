"""A missing statement, made of the program's own code (GenProg, CapGen, ssFix, TBar: the redundancy
assumption). At a suspicious statement the operator inserts, before it, after it, or right after a loop
ends, one of:

- a copy of a one-line statement of the same function (or, with every name it reads in scope, of another
  function of the file), or a copy with one name changed for another local;
- a collection growing by a local (`seen.add(node)`, `out.append(rest)`), with the methods the function
  already calls on that collection or its initial value implies (`[]`, `set()`, `deque()`);
- a variable recording another (`previous = node`), or updated from another (`best = max(best, run)`).

At most INSERT_CAP statements per insertion point, best first: copies, then what reads names used by the
statement at the site, then shorter ones. The search ranks them after the one-token operators (priors).
"""

from __future__ import annotations

import re
from typing import Iterator

from tree_sitter import Node

from fixloop.engines.repair.context import Facts, compatible, enclosing_facts, facts, file_statements, function_of, in_scope, inserting, near_names, prefer
from fixloop.engines.repair.operators import Mutation
from fixloop.kit.syntax import Offsets, enclosing, text_of, walk

INSERT_CAP = 12  # statements tried at one insertion point
MAX_COPY = 48  # characters: a longer statement is too specific to be missing elsewhere
ARGUMENTS_PER_COLLECTION = 4
JUMPS = ("return_statement", "break_statement", "continue_statement", "raise_statement")
SIMPLE = ("expression_statement", "return_statement", "break_statement", "continue_statement", "pass_statement",
          "assert_statement", "delete_statement", "raise_statement")
LOOPS = ("for_statement", "while_statement")


def insert_statement(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.parent is None or node.parent.type != "block" or node.type not in SIMPLE + LOOPS + ("if_statement",):
        return
    fn = function_of(node)
    if fn is None:
        return
    start = off.char(node.start_byte)
    line_start = off.text.rfind("\n", 0, start) + 1
    indent = off.text[line_start:start]
    if indent.strip():
        return  # shares its line with something else
    line = node.start_point[0] + 1
    points = [(line_start, f"before line {line}", 1.0 if node.type == "return_statement" else 0.7)]
    if node.type not in JUMPS:
        end = off.text.find("\n", off.char(node.end_byte))
        where = {"for_statement": "after the loop", "while_statement": "after the loop", "if_statement": "after the if"}
        points.append((len(off.text) if end < 0 else end + 1, where.get(node.type, f"after line {line}"),
                       1.0 if node.type in LOOPS else 0.8))
    statements = ingredients(node, facts(fn))
    written = _written(node)
    for index, (at, where, weight) in enumerate(points):
        lead = "\n" if at == len(off.text) and not off.text.endswith("\n") else ""
        for text, w in statements:
            # Reaching definitions: a statement reading what `node` writes belongs after it, not before.
            order = 1.0 if not written & _reads_of(text) else 0.3 if index == 0 else 1.2
            yield inserting("insert_statement", at, f"{lead}{indent}{text}\n", f"insert `{text}` {where}",
                            weight * w * order)


def ingredients(node: Node, f: Facts) -> list[tuple[str, float]]:
    """The statements worth inserting next to `node`, best first, at most INSERT_CAP."""
    scope = in_scope(node)
    near = near_names(node) | f.loop_vars
    found: dict[str, float] = {}

    def add(text: str, weight: float) -> None:
        if weight > 0:
            found[text] = max(weight, found.get(text, 0.0))

    # A loop's variable is bound inside that loop only (after it, it holds a stale last value).
    unbound = (f.loop_vars | f.comprehended) - _loop_vars_around(node)
    for text, names in f.statements.items():
        if names <= scope and not names & unbound and len(text) <= MAX_COPY:
            add(text, _copy_weight(text))
            for adapted, new in _adaptations(text, names, f, near):
                if new not in unbound:
                    add(adapted, 0.5 if new in near else 0.35)
    for text, names in file_statements(node).items():
        if text not in f.statements and names <= scope and not names & unbound and len(text) <= MAX_COPY:
            add(text, 0.7 * _copy_weight(text))
    for text, weight in _synthesized(f, near, enclosing_facts(node)[1:]):
        if not _words(text) & unbound:
            add(text, weight)
    for text in [t for t in found if _grows(t) in _iterated_around(node)]:
        del found[text]  # growing the collection a loop walks never ends
    for neighbour in (node, node.prev_named_sibling, node.next_named_sibling):
        if neighbour is not None:
            found.pop(text_of(neighbour), None)  # a twin of the statement beside it is never the missing one
    return sorted(found.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[:INSERT_CAP]


def _copy_weight(text: str) -> float:
    """A call or an update is worth repeating elsewhere; re-running a plain assignment rarely is, and an
    initializer (`x = 0`, `seen = set()`) never."""
    if re.match(r"^[\w.]+ = (\d+|None|True|False|\[\]|\{\}|set\(\)|\w+\(\))$", text):
        return 0.0
    if re.match(r"^[\w.\[\], ]+ = ", text):
        return 0.5
    return 1.0


def _adaptations(text: str, names: frozenset[str], f: Facts, near: set[str]) -> Iterator[tuple[str, str]]:
    """The statement with one local name replaced by another local of the same kind (`out.append(x)` ->
    `out.append(rest)`); never by a name the statement already uses (`total += total`)."""
    words = _words(text)
    for old in sorted(names & set(f.locals)):
        for new in [n for n in prefer(f.locals, near) if n not in words and compatible(old, n, f)][:4]:
            adapted = re.sub(rf"(?<![\w.]){re.escape(old)}\b", new, text)
            if adapted != text:
                yield adapted, new


def _written(node: Node) -> set[str]:
    """Names a simple statement assigns (nothing for compound statements: they are judged as a whole)."""
    first = node.named_children[0] if node.type == "expression_statement" and node.named_child_count else None
    left = first.child_by_field_name("left") if first is not None and first.type in (
        "assignment", "augmented_assignment") else None
    return {text_of(n) for n in walk(left) if n.type == "identifier"} if left is not None else set()


def _reads_of(text: str) -> set[str]:
    """Names a one-line statement reads: everything right of its `=`, and the target of an update."""
    m = re.match(r"^\s*([\w.]+)\s*=(?!=)(.*)$", text)
    return _words(m.group(2)) if m else _words(text)


def _grows(text: str) -> str:
    m = re.match(r"^(\w+)\.(append|add|extend|insert|appendleft|push|put)\(", text)
    return m.group(1) if m else ""


def _iterated_around(node: Node) -> set[str]:
    out: set[str] = set()
    loop = node if node.type == "for_statement" else enclosing(node, "for_statement")
    while loop is not None:
        right = loop.child_by_field_name("right")
        if right is not None and right.type == "identifier":
            out.add(text_of(right))
        loop = enclosing(loop, "for_statement")
    return out


def _words(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", text))


def _loop_vars_around(node: Node) -> set[str]:
    out: set[str] = set()
    loop = enclosing(node, "for_statement")
    while loop is not None:
        left = loop.child_by_field_name("left")
        if left is not None:
            out.update(text_of(n) for n in walk(left) if n.type == "identifier")
        loop = enclosing(loop, "for_statement")
    return out


def _synthesized(f: Facts, near: set[str], outer: list[Facts]) -> Iterator[tuple[str, float]]:
    """Statements built from the function's names and the methods already called on them (a closure may
    grow a collection of the function around it)."""
    adders = {c: m for o in reversed(outer) for c, m in o.adders.items() if c not in f.locals}
    adders.update({c: m for c, m in f.adders.items() if c in f.locals})
    names = [n for n in f.locals if n not in f.comprehended]
    for collection, methods in adders.items():
        for value in prefer([n for n in names if n != collection], near)[:ARGUMENTS_PER_COLLECTION]:
            for method in methods[:2]:
                yield f"{collection}.{method}({value})", 0.9 if value in near else 0.6
    assigned = [n for n in names if n in f.assigned and n not in f.loop_vars]
    for target in (n for n in assigned if n not in f.sequences):  # a collection grows; it is not recorded
        once = _forgotten(target, f)
        # Overwriting a counter forgets what it counted: it is updated from another, not recorded.
        overwrite = 0.5 if target in f.counters else 1.0
        for source in [n for n in prefer(names, near) if compatible(target, n, f)][:4]:
            if source != target:
                yield f"{target} = {source}", overwrite * once * (0.6 if source in near or target in near else 0.4)
    updates = [(e, 1.0) for e in f.expressions.get("binary_operator", []) if len(e) <= 24] + \
        [(n, 0.8) for n in names if n in f.numbers]
    for target in (n for n in assigned if n in f.numbers):
        once = _forgotten(target, f)
        for value, w in [u for u in updates if not re.search(rf"(?<![\w.]){re.escape(target)}\b", u[0])][:6]:
            yield f"{target} = max({target}, {value})", once * w * 0.5
            yield f"{target} = min({target}, {value})", once * w * 0.45
            yield f"{target} += {value}", once * w * 0.35


def _forgotten(name: str, f: Facts) -> float:
    """State set once before a loop and never updated is the usual victim of a forgotten update."""
    return 1.5 if f.has_loop and f.writes.get(name, 0) == 1 and name not in f.loop_written else 0.7
