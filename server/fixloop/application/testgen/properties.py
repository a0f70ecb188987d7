"""Property tests with Hypothesis, from the type hints and the module's names (static, nothing imported):

- round trip, when the module has the inverse (`encode`/`decode`, `dumps`/`loads`, `to_x`/`from_x`, ...):
  `decode(encode(value)) == value` for every value of the first parameter's hint;
- idempotence, for normalisers (`normalize`, `clean`, `strip`, `slugify`, `sort...`, ...) whose result has
  the argument's type: `f(f(value)) == f(value)`.

Strategies are written from the hints (`int` -> `st.integers()`, `list[str]` -> `st.lists(st.text())`, ...);
a hint this does not know gets no property test rather than a strategy that may not build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fixloop.application.testgen.harvest import normalise_hint
from fixloop.application.testgen.target import Target, TestgenError, find

SIMPLE = {
    "int": "st.integers()",
    "float": "st.floats(allow_nan=False, allow_infinity=False)",
    "str": "st.text()",
    "bytes": "st.binary()",
    "bool": "st.booleans()",
    "None": "st.none()",
}
INVERSES = (("encode", "decode"), ("dumps", "loads"), ("dump", "load"), ("serialize", "deserialize"),
            ("serialise", "deserialise"), ("compress", "decompress"), ("pack", "unpack"), ("escape", "unescape"),
            ("encrypt", "decrypt"), ("quote", "unquote"), ("to_", "from_"), ("format_", "parse_"))
NORMALISERS = re.compile(r"(normali[sz]e|canonical|clean|strip|trim|slug|dedup|sanitize|sanitise|simplify|"
                         r"squash|collapse|sort|lower|upper|title|tidy|unique)", re.I)


@dataclass(frozen=True)
class Property:
    name: str  # the test function's name
    kind: str  # roundtrip | idempotent
    source: str  # the test function, decorators included
    imports: tuple[str, ...]  # names the test needs from the module
    claim: str  # what it asserts, in words


def strategy(hint: str, low: str = "", high: str = "") -> str | None:
    """Hypothesis strategy source for a (normalised) hint, or None when unknown. `low` / `high` (number
    literals) bound every int and float in it (an invariant's stated domain, "for any non-negative price")."""
    hint = normalise_hint(hint)
    if not hint:
        return None
    if hint in ("int", "float") and (low or high):
        bounds = [f"min_value={low}" if low else "", f"max_value={high}" if high else ""]
        if hint == "int":
            return f"st.integers({', '.join(b for b in bounds if b)})"
        literal = [b.split("=")[0] + "=" + repr(float(b.split("=")[1])) for b in bounds if b]
        return f"st.floats({', '.join(literal)}, allow_nan=False, allow_infinity=False)"
    if hint in SIMPLE:
        return SIMPLE[hint]
    optional = re.fullmatch(r"Optional\[(.+)\]|(.+?) \| None", hint)
    if optional:
        inner = strategy(next(g for g in optional.groups() if g), low, high)
        return f"st.none() | {inner}" if inner else None
    generic = re.fullmatch(r"(list|set|frozenset|tuple|dict)\[(.+)\]", hint)
    if not generic:
        return None
    outer, inside = generic.groups()
    args = _split(inside)
    if outer in ("list", "set", "frozenset") and len(args) == 1:
        inner = strategy(args[0], low, high)
        fn = {"list": "st.lists", "set": "st.sets", "frozenset": "st.frozensets"}[outer]
        return f"{fn}({inner}, max_size=20)" if inner else None
    if outer == "tuple" and len(args) == 2 and args[1] == "...":
        inner = strategy(args[0], low, high)
        return f"st.lists({inner}, max_size=20).map(tuple)" if inner else None
    if outer == "tuple":
        inners = [strategy(a, low, high) for a in args]
        return f"st.tuples({', '.join(i for i in inners if i)})" if all(inners) else None
    if outer == "dict" and len(args) == 2:
        key, value = strategy(args[0]), strategy(args[1], low, high)
        return f"st.dictionaries({key}, {value}, max_size=10)" if key and value else None
    return None


def _split(text: str) -> list[str]:
    """Top-level comma-separated parts of a generic's arguments."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _single_input(target: Target) -> str | None:
    """The hint of the one parameter a property can vary (the rest must have defaults)."""
    required = [p for p in target.params if not p.default and p.kind not in ("star", "double_star")]
    if len(required) != 1 or not required[0].annotation:
        return None
    return required[0].annotation


def inverse_name(name: str, functions: set[str]) -> tuple[str, str] | None:
    """(forward, backward) when `name` is one side of a pair and the module defines the other."""
    for a, b in INVERSES:
        for this, other, forward in ((a, b, True), (b, a, False)):
            if this.endswith("_"):
                if not name.startswith(this):
                    continue
                partner = other + name[len(this):]
            elif name == this or name.endswith("_" + this) or name.startswith(this + "_"):
                partner = name.replace(this, other, 1)
            else:
                continue
            if partner in functions and partner != name:
                return (name, partner) if forward else (partner, name)
    return None


def properties(target: Target, module_source: str, functions: set[str]) -> list[Property]:
    """The property tests that apply to a module-level function."""
    if target.cls or target.is_async:
        return []
    out: list[Property] = []
    pair = inverse_name(target.function, functions)
    if pair is not None:
        forward_name, backward_name = pair
        try:
            forward = target if forward_name == target.function else \
                find(module_source, target.path, forward_name, target.module, target.import_root)
        except TestgenError:
            forward = None
        hint = _single_input(forward) if forward is not None else None
        strat = strategy(hint) if hint else None
        if strat:
            out.append(Property(
                f"test_{backward_name}_inverts_{forward_name}", "roundtrip",
                f"@settings(max_examples=100, deadline=None, database=None)\n@given(value={strat})\n"
                f"def test_{backward_name}_inverts_{forward_name}(value):\n"
                f"    assert {backward_name}({forward_name}(value)) == value\n",
                (forward_name, backward_name), f"{backward_name}({forward_name}(x)) == x"))
    hint = _single_input(target)
    strat = strategy(hint) if hint else None
    same_type = not target.returns or normalise_hint(target.returns) == normalise_hint(hint or "")
    if strat and same_type and NORMALISERS.search(target.function) and pair is None:
        f = target.function
        out.append(Property(
            f"test_{f}_is_idempotent", "idempotent",
            f"@settings(max_examples=100, deadline=None, database=None)\n@given(value={strat})\n"
            f"def test_{f}_is_idempotent(value):\n"
            f"    once = {f}(value)\n    assert {f}(once) == once\n",
            (f,), f"{f}({f}(x)) == {f}(x)"))
    return out
