"""Inputs for characterization tests, found statically: the docstring's `>>>` examples, literal arguments at
the project's call sites and in its tests (tree-sitter), and a few simple values per type hint.

Only literals are taken (`ast.literal_eval` on each argument's text), so an input is data, never code, and
its `repr` is what the generated test spells.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from tree_sitter import Node

from fixloop.kit.treesitter import parser
from fixloop.application.testgen.target import Param, Target

MAX_CASES = 12
MAX_LITERAL = 200  # characters of one argument's repr

# Simple values per hint, spelled as the generated test spells them; the first value of each is the plainest.
HINT_VALUES: dict[str, tuple[str, ...]] = {
    "int": ("0", "1", "-3", "10"),
    "float": ("0.0", "1.5", "-2.25"),
    "str": ("''", "'abc'", "'Hello World'"),
    "bool": ("True", "False"),
    "bytes": ("b''", "b'abc'"),
    "list[int]": ("[]", "[1, 2, 3]", "[3, -1, 2]"),
    "list[float]": ("[]", "[1.5, 2.0]"),
    "list[str]": ("[]", "['a', 'b']"),
    "tuple[int, ...]": ("()", "(1, 2, 3)"),
    "dict[str, int]": ("{}", "{'a': 1}"),
    "dict[str, str]": ("{}", "{'a': 'b'}"),
    "set[int]": ("set()", "{1, 2}"),
}


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]  # reprs of literal values
    kwargs: tuple[tuple[str, str], ...] = ()
    origin: str = ""  # "docstring", "call site path:line", "hints"

    def call(self, callee: str) -> str:
        parts = list(self.args) + [f"{k}={v}" for k, v in self.kwargs]
        return f"{callee}({', '.join(parts)})"


def normalise_hint(text: str) -> str:
    text = re.sub(r"\s+", " ", text.strip())
    text = re.sub(r"\b(?:typing\.)?(List|Dict|Tuple|Set)\[", lambda m: m.group(1).lower() + "[", text)
    return text.replace("[ ", "[").replace(" ]", "]")


def literal(text: str) -> str | None:
    """The canonical repr of a literal's source text, or None when it is not a (small) literal."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    try:
        spelled = repr(value)
    except Exception:
        return None
    return spelled if len(spelled) <= MAX_LITERAL else None


def _call_name(fn: Node) -> tuple[str, bool]:
    """(the called name, called through an attribute)."""
    if fn.type == "identifier":
        return (fn.text or b"").decode("utf-8"), False
    if fn.type == "attribute":
        attr = fn.child_by_field_name("attribute")
        return (attr.text or b"").decode("utf-8") if attr is not None else "", True
    return "", False


def _case(args_node: Node, origin: str) -> Case | None:
    args: list[str] = []
    kwargs: list[tuple[str, str]] = []
    for arg in args_node.named_children:
        if arg.type == "comment":
            continue
        if arg.type == "keyword_argument":
            name, value = arg.child_by_field_name("name"), arg.child_by_field_name("value")
            spelled = literal((value.text or b"").decode("utf-8")) if value is not None else None
            if name is None or spelled is None:
                return None
            kwargs.append(((name.text or b"").decode("utf-8"), spelled))
        elif arg.type in ("list_splat", "dictionary_splat"):
            return None
        else:
            if kwargs:
                return None
            spelled = literal((arg.text or b"").decode("utf-8"))
            if spelled is None:
                return None
            args.append(spelled)
    return Case(tuple(args), tuple(kwargs), origin)


def calls_in(source: str, name: str, method: bool, origin: str) -> list[Case]:
    """Calls of `name` with literal arguments only; a method is matched only through an attribute (`x.name(...)`)."""
    tree = parser().parse(source.encode("utf-8"))
    out: list[Case] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.named_children))
        if node.type != "call":
            continue
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or args is None or args.type != "argument_list":
            continue
        called, through_attribute = _call_name(fn)
        if called != name or (method and not through_attribute):
            continue
        case = _case(args, f"{origin}:{node.start_point[0] + 1}" if origin != "docstring" else origin)
        if case is not None:
            out.append(case)
    return out


def docstring_calls(target: Target) -> list[Case]:
    lines = [m.group(1) for m in re.finditer(r"^\s*>>>\s?(.*)$", target.docstring, re.M)]
    return calls_in("\n".join(lines), target.function, False, "docstring") if lines else []


def hint_cases(params: Iterable[Param]) -> list[Case]:
    """A few calls from the hints of the required parameters (those with defaults keep them)."""
    columns: list[tuple[str, ...]] = []
    for p in params:
        if p.kind in ("star", "double_star") or p.default:
            continue
        hint = normalise_hint(p.annotation)
        optional = re.fullmatch(r"(?:Optional\[(.+)\]|(.+?) \| None|None \| (.+))", hint)
        if optional:
            hint = next(g for g in optional.groups() if g)
        values = HINT_VALUES.get(hint)
        if values is None or p.kind == "keyword":
            return []  # a required parameter with no usable hint: no call can be made up
        columns.append(values + (("None",) if optional else ()))
    if not columns:
        return [Case((), (), "hints")]
    width = max(len(c) for c in columns)
    return [Case(tuple(c[min(i, len(c) - 1)] for c in columns), (), "hints") for i in range(width)]


def harvest(target: Target, sources: Mapping[str, str]) -> list[Case]:
    """Docstring examples first, then call sites (the tests' first), then hint values; deduplicated, capped."""
    method = bool(target.cls) and target.kind != "staticmethod"
    found: list[Case] = docstring_calls(target)
    ordered = sorted(sources, key=lambda rel: (not _is_test(rel), rel))
    for rel in ordered:
        if target.function in sources[rel]:
            found.extend(calls_in(sources[rel], target.function, method or bool(target.cls), rel))
    found.extend(hint_cases(target.params))
    seen: set[tuple[object, ...]] = set()
    out: list[Case] = []
    for case in found:
        key = (case.args, case.kwargs)
        if key not in seen and _fits(case, target.params):
            seen.add(key)
            out.append(case)
    return out[:MAX_CASES]


def _fits(case: Case, params: tuple[Param, ...]) -> bool:
    """The call binds to the signature (a call site of another function of the same name would not)."""
    positional = [p for p in params if p.kind == "plain"]
    if len(case.args) > len(positional) and not any(p.kind == "star" for p in params):
        return False
    names = {p.name for p in params if p.kind in ("plain", "keyword")}
    bound = {p.name for p in positional[:len(case.args)]}
    for key, _ in case.kwargs:
        if (key not in names or key in bound) and not any(p.kind == "double_star" for p in params):
            return False
        bound.add(key)
    required = {p.name for p in params if p.kind in ("plain", "keyword") and not p.default}
    return required <= bound


def _is_test(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or "/tests/" in f"/{rel}"
