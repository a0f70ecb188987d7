"""What a function says about its own names, read once per function: the raw material of the ingredient
operators (the redundancy assumption behind GenProg, CapGen, ssFix and TBar: the fix is usually made of
code the program already has).

A name's role is inferred from how the function uses it, never from tests: subscripted, sliced, iterated
or measured with len() makes it a sequence; arithmetic, numeric comparison or range() makes it a number;
`.append`/`.add` (or a `[]`/`set()`/`deque()` initial value) makes it a collection that can grow.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field

from tree_sitter import Node

from fixloop.core.patch import TextEdit
from fixloop.engines.repair.candidate import Mutation
from fixloop.kit.syntax import ByText, Offsets, enclosing, is_name_use, local_names, names_in_scope, text_of, walk

BUILTINS = frozenset(dir(builtins))
ADDERS = ("append", "add", "appendleft", "push", "put")
CONSTRUCTED = {"list": "append", "set": "add", "deque": "append", "list_literal": "append", "set_literal": "add"}
ARITH = ("+", "-", "*", "/", "//", "%", "**")
MAX_EXPRESSION = 48  # characters: a longer expression is too specific to be an ingredient elsewhere
SKIP_NAMES = frozenset({"self", "cls", "_"})
TARGETS = ("assignment", "augmented_assignment", "pattern_list", "tuple_pattern", "list_pattern")


@dataclass
class Facts:
    name: str
    params: list[str] = field(default_factory=list)
    locals: list[str] = field(default_factory=list)  # parameters and assigned names, first seen first
    assigned: set[str] = field(default_factory=set)  # names assigned (or augmented) in the body
    writes: dict[str, int] = field(default_factory=dict)  # name -> how many statements write it
    loop_written: set[str] = field(default_factory=set)  # names written inside a loop
    has_loop: bool = False
    loop_vars: set[str] = field(default_factory=set)
    comprehended: set[str] = field(default_factory=set)  # bound only inside a comprehension
    sequences: set[str] = field(default_factory=set)
    numbers: set[str] = field(default_factory=set)
    counters: set[str] = field(default_factory=set)  # numbers that start from a literal (`best = 0`)
    adders: dict[str, list[str]] = field(default_factory=dict)  # collection -> methods that grow it
    statements: dict[str, frozenset[str]] = field(default_factory=dict)  # one-line statements -> names read
    expressions: dict[str, list[str]] = field(default_factory=dict)  # node type -> distinct short texts
    callees: list[str] = field(default_factory=list)  # functions called here with one positional argument
    read: set[str] = field(default_factory=set)  # every name read anywhere in it, nested functions included


def facts(fn: Node) -> Facts:
    """The facts of one function definition, cached by its text (operators ask at every node)."""
    return _facts(fn)


def _read(fn: Node) -> Facts:
    name = fn.child_by_field_name("name")
    out = Facts(text_of(name) if name is not None else "")
    params = fn.child_by_field_name("parameters")
    names = local_names(fn)
    out.params = [n for n in names[: params.named_child_count if params is not None else 0] if n not in SKIP_NAMES]
    out.locals = [n for n in names if n not in SKIP_NAMES]
    body = fn.child_by_field_name("body")
    for node in walk(fn):
        _note(node, out)
        if node.type == "identifier" and is_name_use(node) and body is not None and \
                body.start_byte <= node.start_byte < body.end_byte:
            out.read.add(text_of(node))
    out.comprehended -= out.assigned | out.loop_vars | set(out.params)
    return out


_facts = ByText(_read, 4_096)  # a large module has hundreds of functions


def unused_look_alikes(f: Facts) -> dict[str, str]:
    """Names the function reads -> a parameter of it that it never reads and that differs from the name by
    one character (`type1` read twice, `type2` never): the commonest trace of a wrong variable."""
    unused = [p for p in f.params if p not in f.read and not p.startswith("_") and len(p) > 1]
    return {name: p for p in unused for name in sorted(f.read & set(f.locals)) if one_apart(name, p)}


def one_apart(a: str, b: str) -> bool:
    """One character replaced, or one appended: `x1`/`x2`, `dx`/`dy`, `value`/`value2`."""
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long = sorted((a, b), key=len)
    return len(long) == len(short) + 1 and long.startswith(short)


def _counted(loop: Node) -> list[str]:
    """The loop's names that count: `for i in range(..)`, `for i, x in enumerate(..)`."""
    left, right = loop.child_by_field_name("left"), loop.child_by_field_name("right")
    fn = right.child_by_field_name("function") if right is not None and right.type == "call" else None
    if left is None or fn is None:
        return []
    if text_of(fn) == "range" and left.type == "identifier":
        return [text_of(left)]
    first = left.named_children[0] if left.type in ("pattern_list", "tuple_pattern") and left.named_children else None
    return [text_of(first)] if text_of(fn) == "enumerate" and first is not None and first.type == "identifier" else []


def _note(node: Node, out: Facts) -> None:
    kind = node.type
    if kind in ("assignment", "augmented_assignment"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        for target in walk(left) if left is not None else ():
            if target.type == "identifier" and target.parent is not None and target.parent.type in TARGETS:
                out.writes[text_of(target)] = out.writes.get(text_of(target), 0) + 1
                if _in_loop(node):
                    out.loop_written.add(text_of(target))
        if left is not None and left.type == "identifier":
            out.assigned.add(text_of(left))
            if right is not None:
                _initial_value(text_of(left), right, out)
                if kind == "augmented_assignment" and text_of(left) in out.numbers and right.type == "identifier":
                    out.numbers.add(text_of(right))  # a number grows by a number
    elif kind in ("for_statement", "while_statement"):
        out.has_loop = True
    elif kind == "for_in_clause":
        left = node.child_by_field_name("left")
        if left is not None:
            out.comprehended.update(text_of(n) for n in walk(left) if n.type == "identifier")
    if kind in ("for_statement", "for_in_clause"):
        out.numbers.update(_counted(node))
    if kind == "for_statement":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None:
            out.loop_vars.update(text_of(n) for n in walk(left) if n.type == "identifier")
        if right is not None and right.type == "identifier":
            out.sequences.add(text_of(right))
    elif kind == "subscript":
        value = node.child_by_field_name("value")
        if value is not None and value.type == "identifier":
            out.sequences.add(text_of(value))
        for index in node.children_by_field_name("subscript"):
            bounds = index.named_children if index.type == "slice" else [index]
            out.numbers.update(text_of(b) for b in bounds if b.type == "identifier")
    elif kind == "call":
        _note_call(node, out)
    elif kind in ("binary_operator", "comparison_operator"):
        ops = [text_of(c) for c in node.children if not c.is_named]
        if kind == "binary_operator" and ops and ops[0] in ARITH or kind == "comparison_operator" and any(
                c.type in ("integer", "float") for c in node.named_children) or ops and ops[0] in ("<", ">", "<=", ">="):
            out.numbers.update(text_of(c) for c in node.named_children if c.type == "identifier")
    elif kind == "expression_statement" and node.parent is not None and node.parent.type == "block":
        body = node.named_children[0] if node.named_child_count else None
        text = text_of(node)
        if body is not None and body.type in ("call", "assignment", "augmented_assignment") and "\n" not in text:
            out.statements.setdefault(text, frozenset(reads(node)))
    if kind in ("subscript", "attribute", "call", "binary_operator") and "\n" not in text_of(node) and \
            len(text_of(node)) <= MAX_EXPRESSION:
        texts = out.expressions.setdefault(kind, [])
        if text_of(node) not in texts:
            texts.append(text_of(node))


def _in_loop(node: Node) -> bool:
    around = enclosing(node, "for_statement", "while_statement", "function_definition")
    return around is not None and around.type != "function_definition"


def _initial_value(name: str, right: Node, out: Facts) -> None:
    kind = right.type
    if kind in ("integer", "float"):
        out.numbers.add(name)
        out.counters.add(name)
    elif kind in ("list", "set"):
        out.adders.setdefault(name, []).append(CONSTRUCTED[kind + "_literal"])
        out.sequences.add(name)
    elif kind == "call":
        fn = right.child_by_field_name("function")
        called = text_of(fn).split(".")[-1] if fn is not None else ""
        if called in CONSTRUCTED:
            out.adders.setdefault(name, []).append(CONSTRUCTED[called])
            out.sequences.add(name)
        elif called in ("len", "int", "abs", "sum", "float", "round"):
            out.numbers.add(name)


def _note_call(node: Node, out: Facts) -> None:
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if fn is None or args is None:
        return
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
    if fn.type == "attribute":
        obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
        if obj is not None and attr is not None and obj.type == "identifier" and text_of(attr) in ADDERS:
            methods = out.adders.setdefault(text_of(obj), [])
            if text_of(attr) not in methods:
                methods.append(text_of(attr))
            out.sequences.add(text_of(obj))
        return
    called = text_of(fn)
    if called == "range":
        out.numbers.update(text_of(a) for a in positional if a.type == "identifier")
    elif called == "len" and len(positional) == 1 and positional[0].type == "identifier":
        out.sequences.add(text_of(positional[0]))
    if fn.type == "identifier" and len(positional) == 1 and called not in out.callees and called not in ("print", "range"):
        out.callees.append(called)


def file_statements(node: Node) -> dict[str, frozenset[str]]:
    """Every function's one-line statements in the file holding `node` (the ingredients found elsewhere)."""
    root = node
    while root.parent is not None:
        root = root.parent
    return _file_statements(root)


def _read_file_statements(root: Node) -> dict[str, frozenset[str]]:
    got: dict[str, frozenset[str]] = {}
    for fn in walk(root):
        if fn.type == "function_definition":
            for text, names in facts(fn).statements.items():
                got.setdefault(text, names)
    return got


_file_statements = ByText(_read_file_statements, 32)


def enclosing_facts(node: Node) -> list[Facts]:
    """Facts of the function holding `node`, then of each function around it (closures read their names)."""
    out: list[Facts] = []
    fn = function_of(node)
    while fn is not None:
        out.append(facts(fn))
        fn = enclosing(fn, "function_definition")
    return out


def role(name: str, f: Facts) -> str:
    """'number', 'sequence' or '' (unknown or both): a recorded value must not change kind."""
    if (name in f.numbers) != (name in f.sequences):
        return "number" if name in f.numbers else "sequence"
    return ""


def compatible(a: str, b: str, f: Facts) -> bool:
    return not role(a, f) or not role(b, f) or role(a, f) == role(b, f)


def function_of(node: Node) -> Node | None:
    return node if node.type == "function_definition" else enclosing(node, "function_definition")


_FUNCTIONS: dict[bytes, frozenset[str]] = {}


def module_functions(node: Node) -> frozenset[str]:
    """Names of the functions defined in the file holding `node` (cached by the file's text)."""
    root = node
    while root.parent is not None:
        root = root.parent
    key = root.text or b""
    if key not in _FUNCTIONS:
        if len(_FUNCTIONS) > 32:
            _FUNCTIONS.clear()
        _FUNCTIONS[key] = frozenset(text_of(n.child_by_field_name("name")) for n in walk(root)  # type: ignore[arg-type]
                                    if n.type == "function_definition" and n.child_by_field_name("name") is not None)
    return _FUNCTIONS[key]


def is_read(node: Node) -> bool:
    """An identifier read as a value (not a target of an unpacking assignment either)."""
    return is_name_use(node) and node.parent is not None and node.parent.type not in TARGETS[2:]


def reads(node: Node) -> set[str]:
    """Names read by an expression or statement (what must be in scope where it is copied)."""
    return {text_of(n) for n in walk(node) if is_read(n)}


def in_scope(node: Node) -> set[str]:
    return set(names_in_scope(node)) | BUILTINS


def near_names(node: Node) -> set[str]:
    """Names read by the statement holding `node` and its neighbours: the most likely ingredients."""
    stmt = node
    while stmt.parent is not None and stmt.parent.type not in ("block", "module"):
        stmt = stmt.parent
    out = reads(stmt)
    for other in (stmt.prev_named_sibling, stmt.next_named_sibling):
        if other is not None and other.type != "comment" and "\n" not in text_of(other):
            out |= reads(other)
    return out


def prefer(names: list[str], near: set[str]) -> list[str]:
    """Names used nearby first, the rest in their first-seen order."""
    return sorted(names, key=lambda n: (n not in near, names.index(n)))


def parenthesized(node: Node) -> str:
    """The node's text, safe as an operand of `+`/`-`/a method call."""
    simple = ("identifier", "integer", "float", "subscript", "attribute", "call", "parenthesized_expression",
              "string", "list", "tuple")
    return text_of(node) if node.type in simple else f"({text_of(node)})"


def replacing(operator: str, node: Node, off: Offsets, new: str, summary: str, weight: float) -> Mutation:
    """The one place this engine builds a replacement Mutation."""
    return Mutation(operator, TextEdit(off.char(node.start_byte), off.char(node.end_byte), new), summary, weight)


def inserting(operator: str, at: int, text: str, summary: str, weight: float) -> Mutation:
    """The one place this engine builds an insertion Mutation (`at` is a character offset)."""
    return Mutation(operator, TextEdit(at, at, text), summary, weight)
