"""Operators for operand order and for augmented assignment, the whole operator table of each.

`a - b` meant `b - a`, `s + ch` meant `ch + s`, `x //= 2` meant `x >>= 1`, `total = n` meant
`total += n`, `out += [x]` meant `out = [x] + out`. Comparisons are not here: `a < b` -> `b < a` is
`a > b`, which `comparison_swap` already proposes.
"""

from __future__ import annotations

from typing import Iterator

from tree_sitter import Node

from fixloop.engines.repair.candidate import Mutation, Operator
from fixloop.kit.syntax import Offsets, enclosing, text_of, walk

# Binding strength, loosest first: an operand that binds no tighter than the operator it moves
# across needs parentheses (`a - b - c` -> `c - (a - b)`).
PRECEDENCE = {"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "/": 6, "//": 6, "%": 6, "@": 6, "**": 8}
ORDERED = ("-", "/", "//", "%", "**", "<<", ">>", "@")  # order always matters
LOOSE = ("boolean_operator", "not_operator", "conditional_expression", "comparison_operator", "lambda",
         "named_expression", "await")
SEQUENCES = ("string", "concatenated_string", "list", "list_comprehension", "tuple", "generator_expression")
SEQUENCE_CALLS = ("str", "list", "tuple", "sorted", "reversed", "repr", "join", "format", "upper", "lower",
                  "strip", "split", "replace", "chr", "bin", "hex", "oct")
NUMBER_CALLS = ("len", "int", "float", "abs", "sum", "ord", "round", "min", "max", "pow", "divmod", "hash")
BITWISE = {"&": ("|", "^"), "|": ("&", "^"), "^": ("|", "&", "**"), "<<": (">>",), ">>": ("<<", "//")}
# Augmented operators, nearest neighbours first; "=" is the plain assignment.
AUGMENTED_ALL = {
    "+=": ("-=", "=", "*=", "|="), "-=": ("+=", "=", "//="), "*=": ("/=", "//=", "+=", "**=", "="),
    "/=": ("*=", "//=", "="), "//=": ("/=", "%=", ">>=", "*=", "="), "%=": ("//=", "="), "**=": ("*=", "="),
    "&=": ("|=", "^=", "="), "|=": ("&=", "^=", "+=", "="), "^=": ("|=", "&=", "="), "<<=": (">>=", "*=", "="),
    ">>=": ("<<=", "//=", "="), "@=": ("*=", "="),
    # Plain to augmented: the common accumulations only (each variant is one more candidate at every
    # assignment of a suspicious line, and all of them come before any pair of edits).
    "=": ("+=", "-=", "*=", "|=", "^=", "//="),
}
TARGETS = ("identifier", "attribute", "subscript")


def _operator_token(node: Node) -> Node | None:
    if node.type == "binary_operator":
        return node.child_by_field_name("operator")
    if node.type in ("augmented_assignment", "assignment"):
        found = node.child_by_field_name("operator")
        return found if found is not None else next((c for c in node.children if not c.is_named and text_of(c) == "="), None)
    return None


def _wrapped(operand: Node, op: str) -> str:
    """The operand's text, in parentheses when moving it across `op` would regroup the expression."""
    text = text_of(operand)
    if operand.type in LOOSE:
        return f"({text})"
    if operand.type == "binary_operator":
        inner = _operator_token(operand)
        if inner is not None and PRECEDENCE.get(text_of(inner), 9) <= PRECEDENCE.get(op.rstrip("="), 9):
            return f"({text})"
    if operand.type == "unary_operator" and op.rstrip("=") == "**":
        return f"({text})"
    return text


def _is_number(node: Node) -> bool:
    if node.type in ("integer", "float"):
        return True
    if node.type == "unary_operator":
        arg = node.child_by_field_name("argument")
        return arg is not None and _is_number(arg)
    fn = node.child_by_field_name("function") if node.type == "call" else None
    return fn is not None and text_of(fn) in NUMBER_CALLS


def _sequence_names(node: Node) -> set[str]:
    """Names the enclosing function binds to a string or list (literal, conversion, annotation)."""
    scope = enclosing(node, "function_definition") or node
    while scope.parent is not None and scope.type != "function_definition":
        scope = scope.parent
    names: set[str] = set()
    for sub in walk(scope):
        if sub.type in ("assignment", "augmented_assignment"):
            left, right = sub.child_by_field_name("left"), sub.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None and _is_sequence(right, set()):
                names.add(text_of(left))
        elif sub.type in ("typed_parameter", "typed_default_parameter"):
            kind = sub.child_by_field_name("type")
            ident = next((c for c in sub.named_children if c.type == "identifier"), None)
            if kind is not None and ident is not None and text_of(kind).split("[")[0] in ("str", "list", "List", "tuple"):
                names.add(text_of(ident))
    return names


def _is_sequence(node: Node, names: set[str]) -> bool:
    if node.type in SEQUENCES:
        return True
    if node.type == "identifier":
        return text_of(node) in names
    if node.type == "subscript":
        return any(c.type == "slice" for c in node.children_by_field_name("subscript"))
    if node.type == "call":
        fn = node.child_by_field_name("function")
        name = fn.child_by_field_name("attribute") if fn is not None and fn.type == "attribute" else fn
        return name is not None and text_of(name) in SEQUENCE_CALLS
    if node.type == "binary_operator":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return any(x is not None and _is_sequence(x, names) for x in (left, right))
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _is_sequence(node.named_children[0], names)
    return False


def _concat_weight(left: Node, right: Node) -> float:
    """How likely `+` joins sequences here: 1.0 with evidence, low when unknown, 0 for numbers."""
    if _is_number(left) or _is_number(right):
        return 0.0
    names = _sequence_names(left)
    return 1.0 if _is_sequence(left, names) or _is_sequence(right, names) else 0.3


def _swapped(node: Node, off: Offsets, name: str, symbols: tuple[str, ...]) -> Iterator[Mutation]:
    op = _operator_token(node) if node.type == "binary_operator" else None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op is None or left is None or right is None or text_of(op) not in symbols:
        return
    weight = _concat_weight(left, right) if text_of(op) == "+" else 1.0
    if weight > 0:
        new = f"{_wrapped(right, text_of(op))} {text_of(op)} {_wrapped(left, text_of(op))}"
        yield Mutation.replacing(name, node, off, new, f"{text_of(node)} -> {new}", weight)


def swap_operands(node: Node, off: Offsets) -> Iterator[Mutation]:
    """`a - b` -> `b - a`, `a % b` -> `b % a`, ...: every operator whose operand order always matters."""
    yield from _swapped(node, off, "swap_operands", ORDERED)


def concat_order(node: Node, off: Offsets) -> Iterator[Mutation]:
    """`s + ch` -> `ch + s`, `path + [x]` -> `[x] + path`: `+` on strings and lists (never on numbers)."""
    yield from _swapped(node, off, "concat_order", ("+",))


def augmented_order(node: Node, off: Offsets) -> Iterator[Mutation]:
    """`s += ch` -> `s = ch + s`: the target belongs on the right of a non-commutative operator."""
    op = _operator_token(node) if node.type == "augmented_assignment" else None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op is None or left is None or right is None or left.type not in TARGETS:
        return
    symbol = text_of(op)[:-1]
    weight = 1.0 if symbol in ORDERED else _concat_weight(left, right) if symbol == "+" else 0.0
    if weight > 0:
        new = f"{text_of(left)} = {_wrapped(right, symbol)} {symbol} {text_of(left)}"
        yield Mutation.replacing("augmented_order", node, off, new, f"{text_of(node)} -> {new}", weight)


def augmented_swap(node: Node, off: Offsets) -> Iterator[Mutation]:
    """Every augmented operator to its neighbours, augmented to plain, and plain to augmented."""
    op = _operator_token(node) if node.type in ("augmented_assignment", "assignment") else None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op is None or left is None or right is None or text_of(op) not in AUGMENTED_ALL or left.type not in TARGETS:
        return
    chained = right.type == "assignment" or (node.parent is not None and node.parent.type == "assignment")
    if node.type == "assignment" and (node.child_by_field_name("type") is not None or chained):
        return  # `x: int = 0` and `a = b = 0` have no augmented form
    old = text_of(op)
    for rank, new in enumerate(AUGMENTED_ALL[old]):
        weight = 1.0 if rank == 0 else 0.7 if rank == 1 else 0.5 if rank < 4 else 0.3
        yield Mutation.replacing("augmented_swap", op, off, new, f"{old} -> {new}", weight)


def bitwise_swap(node: Node, off: Offsets) -> Iterator[Mutation]:
    """`&` / `|` / `^` / shifts to their neighbours (and `^` -> `**`, the classic power typo)."""
    op = _operator_token(node) if node.type == "binary_operator" else None
    if op is not None and text_of(op) in BITWISE:
        for new in BITWISE[text_of(op)]:
            yield Mutation.replacing("bitwise_swap", op, off, new, f"{text_of(op)} -> {new}")


# Operators that are new in the catalog (swap_operands and augmented_swap keep their place in it).
REORDER_OPERATORS: tuple[Operator, ...] = (concat_order, augmented_order, bitwise_swap)
REORDER_PRIORS: dict[str, float] = {"concat_order": 0.6, "augmented_order": 0.55, "bitwise_swap": 0.6}
