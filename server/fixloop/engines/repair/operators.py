"""The mutation operator catalog: each operator is one small function, tree-sitter node -> edits.

An operator only proposes; the search drops edits whose result does not parse or repeats a source
already tried. Operators look at one node (and, for names, the scope around it), never at tests.
"""

from __future__ import annotations

import difflib
from typing import Iterator

from tree_sitter import Node

from fixloop.core.patch import TextEdit
from fixloop.engines.repair.arguments import exchange_weight
from fixloop.engines.repair.candidate import Mutation, Operator
from fixloop.engines.repair.context import facts, unused_look_alikes
from fixloop.engines.repair.kinds import NOT_VALUES, expression_type, is_value, kind_of
from fixloop.engines.repair.offsets import without_one
from fixloop.engines.repair.places import may_stand_for
from fixloop.engines.repair.reorder import REORDER_OPERATORS, REORDER_PRIORS, augmented_swap, swap_operands
from fixloop.kit.syntax import Offsets, attributes_on, enclosing, is_name_use, names_in_scope, text_of, unbound_at

__all__ = ["Mutation", "Operator", "OPERATORS", "DEFAULT_PRIORS"]
# Nearest neighbours first: a wrong `<` is usually meant to be `<=`, rarely `!=`.
COMPARISON_ORDER = {
    "<": ("<=", ">", "!=", ">=", "=="), "<=": ("<", ">=", "==", ">", "!="), ">": (">=", "<", "!=", "<=", "=="),
    ">=": (">", "<=", "==", "<", "!="), "==": ("!=", "<=", ">=", "<", ">"), "!=": ("==", "<", ">", "<=", ">="),
    "in": ("not in",), "not in": ("in",), "is": ("is not",), "is not": ("is",),
}
ARITHMETIC = {"+": ("-", "*"), "-": ("+",), "*": ("/", "//", "+", "**"), "/": ("*", "//"), "//": ("/", "%", "*"),
              "%": ("//",), "**": ("*",)}
BOOLEAN = {"and": "or", "or": "and"}
# Functions and methods that are easy to confuse with each other.
SIBLINGS = {
    "min": ("max",), "max": ("min",), "any": ("all",), "all": ("any",), "append": ("extend",),
    "extend": ("append",), "floor": ("ceil",), "ceil": ("floor",), "lower": ("upper",), "upper": ("lower",),
    "startswith": ("endswith",), "endswith": ("startswith",), "keys": ("values", "items"),
    "values": ("keys", "items"), "items": ("keys", "values"), "lstrip": ("rstrip", "strip"),
    "rstrip": ("lstrip", "strip"), "strip": ("rstrip", "lstrip"), "ljust": ("rjust",), "rjust": ("ljust",),
    "remove": ("discard",), "index": ("find",), "find": ("index", "rfind"),
    "sorted": ("reversed",), "int": ("round", "float"), "round": ("int",), "add": ("update",),
}
RETURN_VALUES = ("None", "0", "[]", "True", "False", '""', "1", "[[]]")
BLOCKS = ("block",)
LOOPS = ("for_statement", "while_statement")


def _replace(node: Node, off: Offsets, new: str) -> TextEdit:
    return TextEdit(off.char(node.start_byte), off.char(node.end_byte), new)


IDENTITY = {"==": "is", "!=": "is not"}  # against None, True, False or a type(): identity is what is meant


def comparison_swap(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "comparison_operator":
        return
    singleton = any(c.type in ("none", "true", "false") or _type_call(c) for c in node.named_children)
    for child in node.children:
        old = text_of(child)
        if not child.is_named and old in COMPARISON_ORDER:
            nearest = (IDENTITY[old],) if singleton and old in IDENTITY else ()
            for new in (*nearest, *COMPARISON_ORDER[old]):
                yield Mutation("comparison_swap", _replace(child, off, new), f"{old} -> {new}")


def _type_call(node: Node) -> bool:
    fn = node.child_by_field_name("function") if node.type == "call" else None
    return fn is not None and text_of(fn) == "type"


def arithmetic_swap(node: Node, off: Offsets) -> Iterator[Mutation]:
    op = node.child_by_field_name("operator") if node.type == "binary_operator" else None
    if op is not None and text_of(op) in ARITHMETIC:
        for new in ARITHMETIC[text_of(op)]:
            yield Mutation("arithmetic_swap", _replace(op, off, new), f"{text_of(op)} -> {new}")


def boolean_swap(node: Node, off: Offsets) -> Iterator[Mutation]:
    op = node.child_by_field_name("operator") if node.type == "boolean_operator" else None
    if op is not None and text_of(op) in BOOLEAN:
        yield Mutation("boolean_swap", _replace(op, off, BOOLEAN[text_of(op)]), f"{text_of(op)} -> {BOOLEAN[text_of(op)]}")


def integer_nudge(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "integer":
        return
    try:
        value = int(text_of(node).replace("_", ""), 0)
    except ValueError:
        return
    negated = node.parent is not None and node.parent.type == "unary_operator"
    # A one added or taken away is likelier one too many than one too few: dropping it goes first.
    kept = without_one(node.parent) if value == 1 and not negated and node.parent is not None else None
    for delta in ((-1, 1) if kept is not None else (1, -1)):
        new = value + delta
        if negated:  # `-1` is unary minus on 1: nudging to -0 or -2 is covered by the sign
            yield Mutation("integer_nudge", _replace(node, off, str(new)), f"-{value} -> -{new}")
        elif new == 0 and kept is not None and node.parent is not None:  # `n + 1` -> `n`, never `n + 0`
            yield Mutation("integer_nudge", _replace(node.parent, off, kept), f"{text_of(node.parent)} -> {kept}")
        else:
            yield Mutation("integer_nudge", _replace(node, off, str(new)), f"{value} -> {new}")


def bound_nudge(node: Node, off: Offsets) -> Iterator[Mutation]:
    """+/-1 on non-literal range() arguments, slice bounds and subscripts."""
    targets: list[Node] = []
    if node.type == "call":
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is not None and text_of(fn) == "range" and args is not None:
            targets = [a for a in args.named_children if a.type not in ("integer", "keyword_argument")]
    elif node.type == "slice":
        targets = [c for c in node.named_children if c.type != "integer"]
    elif node.type == "subscript":
        targets = [c for c in node.children_by_field_name("subscript") if c.type not in ("integer", "slice", "string")]
    for target in targets:
        text = text_of(target)
        for sign in ("-", "+"):
            yield Mutation("bound_nudge", _replace(target, off, f"{text} {sign} 1"), f"{text} -> {text} {sign} 1")


def drop_operand(node: Node, off: Offsets) -> Iterator[Mutation]:
    """`a - b` -> `a` (or `b`): a stray term in an expression."""
    if node.type != "binary_operator":
        return
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is not None and right is not None:
        yield Mutation("drop_operand", _replace(node, off, text_of(left)), f"{text_of(node)} -> {text_of(left)}")
        yield Mutation("drop_operand", _replace(node, off, text_of(right)), f"{text_of(node)} -> {text_of(right)}")


def swap_arguments(node: Node, off: Offsets) -> Iterator[Mutation]:
    args = node.child_by_field_name("arguments") if node.type == "call" else None
    if args is None:
        return
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "list_splat", "dictionary_splat", "comment")]
    for i, (a, b) in enumerate(zip(positional, positional[1:])):
        edit = TextEdit(off.char(a.start_byte), off.char(b.end_byte),
                        text_of(b) + off.text[off.char(a.end_byte):off.char(b.start_byte)] + text_of(a))
        yield Mutation("swap_arguments", edit, f"swap {text_of(a)} and {text_of(b)}", exchange_weight(node, positional, i, i + 1))


def replace_identifier(node: Node, off: Offsets) -> Iterator[Mutation]:
    """A name read in an expression -> another name bound in the same scope."""
    if not is_name_use(node) or (node.parent is not None and node.parent.type == "call"
                                  and node.parent.child_by_field_name("function") == node):
        return
    old = text_of(node)
    if _named_for_its_place(node):
        return
    # A wrong variable is usually a look-alike (i/j, dx/dy, low/high): those first and weighted up.
    fn = enclosing(node, "function_definition")
    params = fn.child_by_field_name("parameters") if fn is not None else None
    param_names = {text_of(p).split(":")[0].split("=")[0].strip() for p in params.named_children} if params else set()
    # Same role (parameter or local) counts too: a wrong index `i` is meant to be `j`, not a parameter.
    # A parameter the function never reads, one character from the name read here, was almost surely meant.
    meant = unused_look_alikes(facts(fn)).get(old) if fn is not None else None
    names = sorted((n for n in names_in_scope(node)[:12] if n != old and may_stand_for(node, n)
                    and not unbound_at(node, n)),
                   key=lambda n: -(_likeness(old, n) + (0.3 if (n in param_names) == (old in param_names) else 0.0)
                                   + (2.0 if n == meant else 0.0)))
    for rank, name in enumerate(names):
        weight = UNUSED_PARAMETER if name == meant else 1.0 if rank < 2 else 0.6
        yield Mutation("replace_identifier", _replace(node, off, name), f"{old} -> {name}", weight)


UNUSED_PARAMETER = 2.0  # the weight of the name a never-read parameter suggests


def _named_for_its_place(node: Node) -> bool:
    """`self.plugin = plugin`, `f(size=size)`: a name given to the place of the same name was meant there."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "keyword_argument" and parent.child_by_field_name("value") == node:
        return text_of(parent.child_by_field_name("name") or parent) == text_of(node)
    return parent.type == "assignment" and parent.child_by_field_name("right") == node and _given_its_own_name(parent)


def _given_its_own_name(assignment: Node) -> bool:
    """`self.plugin = plugin`: an attribute assigned the name it is named after."""
    left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    attribute = left.child_by_field_name("attribute") if left is not None and left.type == "attribute" else None
    return attribute is not None and right is not None and text_of(attribute) == text_of(right)


def _likeness(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio() + (0.5 if len(a) == len(b) else 0.0)


def replace_attribute(node: Node, off: Offsets) -> Iterator[Mutation]:
    """`self.width` -> `self.height`: another attribute used on the same object."""
    if node.type != "attribute":
        return
    obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
    if obj is None or attr is None or obj.type != "identifier":
        return
    if node.parent is not None and node.parent.type == "call" and node.parent.child_by_field_name("function") == node:
        return
    parent = node.parent
    if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node and \
            _given_its_own_name(parent):
        return  # the place is named for what it is given
    for other in attributes_on(node, text_of(obj))[:12]:
        if other != text_of(attr):
            yield Mutation("replace_attribute", _replace(attr, off, other), f"{text_of(node)} -> {text_of(obj)}.{other}")


def sibling_call(node: Node, off: Offsets) -> Iterator[Mutation]:
    """`min` <-> `max`, `append` <-> `extend`, ...: a confusable function or method."""
    fn = node.child_by_field_name("function") if node.type == "call" else None
    if fn is None:
        return
    name = fn.child_by_field_name("attribute") if fn.type == "attribute" else fn if fn.type == "identifier" else None
    if name is None:
        return
    for new in SIBLINGS.get(text_of(name), ()):
        yield Mutation("sibling_call", _replace(name, off, new), f"{text_of(name)}() -> {new}()")


def flip_boolean(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type in ("true", "false"):
        new = "False" if node.type == "true" else "True"
        yield Mutation("flip_boolean", _replace(node, off, new), f"{text_of(node)} -> {new}")


def negate_condition(node: Node, off: Offsets) -> Iterator[Mutation]:
    """A condition negated whole (an `if`, a loop, a comprehension's filter), or one side of `and`/`or`
    (`return ready and x` -> `return not ready and x`: the missing `not` is often on one operand)."""
    if node.type == "boolean_operator":
        for side in (node.child_by_field_name("left"), node.child_by_field_name("right")):
            # A comparison's negation is another comparison: comparison_swap's (`in` -> `not in`, `<` -> `>=`).
            if side is not None and side.type not in ("not_operator", "boolean_operator", "comparison_operator"):
                text = text_of(side) if side.type in SIMPLE_OPERANDS else f"({text_of(side)})"
                yield Mutation("negate_condition", _replace(side, off, f"not {text}"), f"negate {text_of(side)}", 0.8)
        return
    if node.type not in ("if_statement", "while_statement", "elif_clause", "conditional_expression", "if_clause"):
        return
    cond = node.named_children[0] if node.type == "if_clause" and node.named_child_count == 1 else (
        node.child_by_field_name("condition") if node.type != "conditional_expression" else (
            node.named_children[1] if node.named_child_count == 3 else None))
    if cond is None:
        return
    if cond.type == "not_operator":
        arg = cond.child_by_field_name("argument")
        if arg is not None:
            yield Mutation("negate_condition", _replace(cond, off, text_of(arg)), f"drop 'not' in {text_of(cond)}")
    else:
        yield Mutation("negate_condition", _replace(cond, off, f"not ({text_of(cond)})"), f"negate {text_of(cond)}")


SIMPLE_OPERANDS = ("identifier", "attribute", "call", "subscript", "parenthesized_expression")


def remove_not(node: Node, off: Offsets) -> Iterator[Mutation]:
    arg = node.child_by_field_name("argument") if node.type == "not_operator" else None
    if arg is not None and (node.parent is None or node.parent.type not in ("if_statement", "while_statement", "elif_clause")):
        yield Mutation("remove_not", _replace(node, off, text_of(arg)), f"{text_of(node)} -> {text_of(arg)}")


def drop_clause(node: Node, off: Offsets) -> Iterator[Mutation]:
    """Widen an `and` condition / narrow an `or` condition by dropping one side."""
    if node.type != "boolean_operator":
        return
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is not None and right is not None:
        yield Mutation("drop_clause", _replace(node, off, text_of(left)), f"keep only {text_of(left)}")
        yield Mutation("drop_clause", _replace(node, off, text_of(right)), f"keep only {text_of(right)}")


def replace_return(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "return_statement" or node.named_child_count != 1:
        return
    value = node.named_children[0]
    old = text_of(value)
    # A function, class or module returned where a value was is never the fix.
    returns_value = is_value(expression_type(value))
    options = [n for n in names_in_scope(node)[:8] if not returns_value or kind_of(n, node) not in NOT_VALUES] + list(RETURN_VALUES)
    for new in options:
        if new != old:
            yield Mutation("replace_return", _replace(value, off, new), f"return {old} -> return {new}")


def _statement_line(node: Node, off: Offsets) -> tuple[int, int, str]:
    """Start and end (characters, whole lines) of a statement, and its indentation."""
    start = off.char(node.start_byte)
    line_start = off.text.rfind("\n", 0, start) + 1
    end = off.text.find("\n", off.char(node.end_byte))
    end = len(off.text) if end < 0 else end + 1
    return line_start, end, off.text[line_start:start]


def _is_simple_statement(node: Node) -> bool:
    return node.type in ("expression_statement", "return_statement", "break_statement", "continue_statement",
                         "raise_statement", "pass_statement", "assert_statement", "delete_statement") and \
        node.parent is not None and node.parent.type in BLOCKS


def delete_statement(node: Node, off: Offsets) -> Iterator[Mutation]:
    if not _is_simple_statement(node) or node.type == "pass_statement":
        return
    start, end, indent = _statement_line(node, off)
    if off.text[start:end].strip() != text_of(node).strip():
        return  # shares its line with something else
    only = node.parent is not None and node.parent.named_child_count == 1
    yield Mutation("delete_statement", TextEdit(start, end, f"{indent}pass\n" if only else ""), f"delete `{text_of(node)}`")


def insert_control(node: Node, off: Offsets) -> Iterator[Mutation]:
    """After a statement: `break`/`continue` inside a loop, `return` inside a function."""
    if not _is_simple_statement(node) or node.type in ("return_statement", "break_statement", "continue_statement", "raise_statement"):
        return
    _, end, indent = _statement_line(node, off)
    loop = enclosing(node, *LOOPS, "function_definition")
    words = ["break", "continue"] if loop is not None and loop.type in LOOPS else []
    if enclosing(node, "function_definition") is not None:
        words.append("return")
    for word in words:
        yield Mutation("insert_control", TextEdit(end, end, f"{indent}{word}\n"), f"insert `{word}` after `{text_of(node)}`")


def insert_return(node: Node, off: Offsets) -> Iterator[Mutation]:
    """A function that falls off its end: `return <local>` as its last statement."""
    if node.type != "function_definition":
        return
    body = node.child_by_field_name("body")
    if body is None or body.named_child_count == 0 or body.named_children[-1].type == "return_statement":
        return
    last = body.named_children[-1]
    if _yields(body) or _always_leaves(last):
        return  # a generator's return value is not what it gives; a function that never falls off needs none
    _, end, indent = _statement_line(last, off)
    if last.type in ("if_statement", "for_statement", "while_statement", "with_statement", "try_statement"):
        indent = off.text[off.text.rfind("\n", 0, off.char(last.start_byte)) + 1 : off.char(last.start_byte)]
        end = off.char(node.end_byte)
        end = len(off.text) if off.text.find("\n", end) < 0 else off.text.find("\n", end) + 1
    params = node.child_by_field_name("parameters")
    param_names = {text_of(p) for p in params.named_children} if params is not None else set()
    values = [n for n in names_in_scope(last) if n not in param_names and kind_of(n, last) not in NOT_VALUES
              and not n.startswith("__")]
    for name in values[:6]:
        yield Mutation("insert_return", TextEdit(end, end, f"{indent}return {name}\n"), f"return {name} at the end")


def _yields(body: Node) -> bool:
    """Whether the function of `body` is a generator (a `yield` outside the functions nested in it)."""
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type == "yield":
            return True
        if node.type not in ("function_definition", "class_definition", "lambda"):
            stack.extend(node.named_children)
    return False


def _always_leaves(statement: Node) -> bool:
    """Whether every way through `statement` ends in `return` or `raise`."""
    if statement.type in ("return_statement", "raise_statement"):
        return True
    if statement.type != "if_statement":
        return False
    branches = [statement.child_by_field_name("consequence")]
    branches += [c.child_by_field_name("consequence") if c.type == "elif_clause" else c.child_by_field_name("body")
                 for c in statement.children_by_field_name("alternative")]
    has_else = any(c.type == "else_clause" for c in statement.children_by_field_name("alternative"))
    return has_else and all(b is not None and b.named_child_count > 0 and _always_leaves(b.named_children[-1])
                            for b in branches)


OPERATORS: tuple[Operator, ...] = (
    comparison_swap, arithmetic_swap, augmented_swap, boolean_swap, integer_nudge, bound_nudge, drop_operand,
    swap_operands, swap_arguments, replace_identifier, replace_attribute, sibling_call, flip_boolean,
    negate_condition, remove_not, drop_clause, replace_return, delete_statement, insert_control, insert_return,
)

# How often each operator is the right fix for a one-token bug, before memory has learned anything.
DEFAULT_PRIORS: dict[str, float] = {
    "comparison_swap": 1.0, "arithmetic_swap": 0.9, "augmented_swap": 0.6, "boolean_swap": 0.9,
    "integer_nudge": 0.9, "bound_nudge": 0.8, "drop_operand": 0.6, "swap_operands": 0.7, "swap_arguments": 0.7,
    "replace_identifier": 0.75, "replace_attribute": 0.6, "sibling_call": 0.7, "flip_boolean": 0.8,
    "negate_condition": 0.6, "remove_not": 0.7, "drop_clause": 0.4, "replace_return": 0.35,
    "delete_statement": 0.3, "insert_control": 0.5, "insert_return": 0.6,
}

# Operator families kept in modules of their own; each adds its operators and their priors here.
OPERATORS += REORDER_OPERATORS
DEFAULT_PRIORS.update(REORDER_PRIORS)
