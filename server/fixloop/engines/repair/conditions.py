"""Conditions and returned checks built from the function's own state.

- `loop_condition`: `while True` (or any constant) -> `while <what the loop consumes>`: a collection
  the body pops from, a name the body walks forward (`node = node.next`), then the other sequences.
- `widen_condition`: a guard clause added to an `if`/`elif`/`while` condition: `n is None or c` for an
  object the condition reads an attribute of, `not xs or c` for a sequence it never looks at; narrowed
  with `c and n`.
- `return_check`: `return True`/`False`/`0`/`1` -> a comparison on a local (`return depth == 0`);
  `return []` -> a list of a parameter (`return [n]`, a base case that holds the input itself).
- `none_check`: a truth test where None was meant and back (`if x:` -> `if x is not None:`, `not x` ->
  `x is None`, `x is not None` -> `x`): `if ndigits:` takes 0 for "not given".
"""

from __future__ import annotations

from typing import Iterator

from tree_sitter import Node

from fixloop.engines.repair.context import Facts, facts, function_of, prefer, reads, replacing
from fixloop.engines.repair.operators import Mutation
from fixloop.kit.syntax import Offsets, text_of, walk

CONSUMERS = ("pop", "popleft", "popitem", "get", "get_nowait", "remove", "dequeue")
CLAUSE_CAP = 10
CHECK_CAP = 12
CONSTANTS = ("true", "false", "integer", "none")


def loop_condition(node: Node, off: Offsets) -> Iterator[Mutation]:
    cond = node.child_by_field_name("condition") if node.type == "while_statement" else None
    fn = function_of(node)
    if cond is None or fn is None or cond.type not in CONSTANTS:
        return
    f = facts(fn)
    body = node.child_by_field_name("body")
    consumed, walked = _consumed(body) if body is not None else ([], [])
    options: list[tuple[str, float]] = [(n, 1.0) for n in consumed if n in f.locals]
    options += [(n, 0.9) for n in walked if n in f.locals]
    options += [(f"{n} is not None", 0.7) for n in walked if n in f.locals]
    options += [(n, 0.5) for n in f.locals if n in f.sequences]
    seen: set[str] = set()
    for new, weight in options:
        if new not in seen and len(seen) < CLAUSE_CAP:
            seen.add(new)
            yield replacing("loop_condition", cond, off, new, f"while {text_of(cond)} -> while {new}", weight)


def _consumed(body: Node) -> tuple[list[str], list[str]]:
    """Collections the loop body takes items from, and names it moves forward from themselves."""
    consumed: list[str] = []
    walked: list[str] = []
    for node in walk(body):
        if node.type == "call":
            fn = node.child_by_field_name("function")
            obj = fn.child_by_field_name("object") if fn is not None and fn.type == "attribute" else None
            attr = fn.child_by_field_name("attribute") if fn is not None and fn.type == "attribute" else None
            if obj is not None and attr is not None and obj.type == "identifier" and text_of(attr) in CONSUMERS:
                consumed.append(text_of(obj))
        elif node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and left.type == "identifier" and text_of(left) in reads(right):
                walked.append(text_of(left))
    return consumed, walked


def widen_condition(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type not in ("if_statement", "elif_clause", "while_statement"):
        return
    cond = node.child_by_field_name("condition")
    fn = function_of(node)
    if cond is None or fn is None or cond.type in CONSTANTS:
        return
    f = facts(fn)
    grouped = f"({text_of(cond)})" if cond.type in ("boolean_operator", "conditional_expression", "not_operator") else text_of(cond)
    count = 0
    for new, weight, summary in _clauses(cond, f, grouped, node.type == "while_statement"):
        if count >= CLAUSE_CAP:
            return
        count += 1
        yield replacing("widen_condition", cond, off, new, summary, weight)


def _clauses(cond: Node, f: Facts, grouped: str, loop: bool) -> Iterator[tuple[str, float, str]]:
    """Guards first: a loop goes on only while the object exists, a branch is taken when it is missing."""
    objects = [text_of(n.child_by_field_name("object")) for n in walk(cond)  # type: ignore[arg-type]
               if n.type == "attribute" and n.child_by_field_name("object") is not None
               and n.child_by_field_name("object").type == "identifier"]  # type: ignore[union-attr]
    used = reads(cond)
    for name in dict.fromkeys(o for o in objects if o in f.locals):
        yield f"{name} is not None and {grouped}", 1.0 if loop else 0.5, f"guard: {name} is not None and ..."
        yield f"{name} is None or {grouped}", 0.5 if loop else 1.0, f"guard: {name} is None or ..."
    unseen = [n for n in f.params + f.locals if n not in used and (n in f.sequences or n in f.params)]
    for name in dict.fromkeys(unseen):
        yield f"not {name} or {grouped}", 0.8 if name in f.sequences else 0.5, f"guard: not {name} or ..."
    for name in dict.fromkeys(n for n in f.locals if n not in used and n in f.sequences):
        yield f"{grouped} and {name}", 0.5, f"narrow: ... and {name}"


def return_check(node: Node, off: Offsets) -> Iterator[Mutation]:
    value = node.named_children[0] if node.type == "return_statement" and node.named_child_count == 1 else None
    fn = function_of(node)
    if value is None or fn is None:
        return
    f = facts(fn)
    if value.type == "list" and value.named_child_count == 0:
        # An empty result where the base case holds the input itself (`return []` -> `return [n]`).
        for name in [n for n in f.params + f.locals if n not in f.loop_vars][:4]:
            yield replacing("return_check", value, off, f"[{name}]", f"return [] -> return [{name}]", 0.6)
        return
    if value.type not in ("true", "false", "integer") or value.type == "integer" and text_of(value) not in ("0", "1"):
        return
    truthy = value.type == "true" or text_of(value) == "1"
    # Built state first, then the inputs; a loop's variable means nothing after its loop.
    state = [n for n in f.locals if n in f.assigned and n not in f.loop_vars] + \
        [n for n in f.locals if n not in f.assigned and n not in f.loop_vars | f.comprehended]
    count = 0
    for name in dict.fromkeys(state):
        forms = _checks(name, f, truthy)
        for new, weight in forms:
            if count >= CHECK_CAP:
                return
            count += 1
            yield replacing("return_check", value, off, new, f"return {text_of(value)} -> return {new}", weight)


def _checks(name: str, f: Facts, truthy: bool) -> list[tuple[str, float]]:
    if name in f.numbers:
        return [(f"{name} == 0", 1.0), (f"{name} >= 0", 0.5)] if truthy else [(f"{name} != 0", 1.0), (f"{name} < 0", 0.5)]
    if name in f.sequences:
        return [(f"not {name}", 0.9)] if truthy else [(f"bool({name})", 0.9)]
    return [(f"{name} is None", 0.4)] if truthy else [(f"{name} is not None", 0.4)]


def none_check(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type not in ("if_statement", "elif_clause", "while_statement", "conditional_expression"):
        return
    cond = node.child_by_field_name("condition") if node.type != "conditional_expression" else (
        node.named_children[1] if node.named_child_count == 3 else None)
    for part in _tests(cond):
        arg = part.child_by_field_name("argument") if part.type == "not_operator" else None
        if part.type in ("identifier", "attribute"):
            yield replacing("none_check", part, off, f"{text_of(part)} is not None",
                            f"{text_of(part)} -> {text_of(part)} is not None", 1.0)
        elif arg is not None and arg.type in ("identifier", "attribute"):
            yield replacing("none_check", part, off, f"{text_of(arg)} is None", f"{text_of(part)} -> {text_of(arg)} is None", 1.0)
        elif part.type == "comparison_operator" and part.named_child_count == 2 and part.named_children[1].type == "none":
            op = " ".join(text_of(c) for c in part.children[1:-1])
            subject = text_of(part.named_children[0])
            if op in ("is", "is not", "==", "!="):
                truth = subject if op in ("is not", "!=") else f"not {subject}"
                yield replacing("none_check", part, off, truth, f"{text_of(part)} -> {truth}", 0.6)


def _tests(cond: Node | None) -> Iterator[Node]:
    """The condition and, through `and`/`or`, each of its operands."""
    if cond is None:
        return
    yield cond
    if cond.type == "boolean_operator":
        for side in ("left", "right"):
            yield from _tests(cond.child_by_field_name(side))
