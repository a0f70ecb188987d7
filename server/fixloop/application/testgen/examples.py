"""Examples of a function's behaviour, read statically, and the pytest source that checks them.

Two offline sources: the `>>>` examples of a docstring (`doctest.DocTestParser` over the text, nothing
imported or run) and examples in the user's words ("`f(3)` should be 4", "discount(10) returns 9.0",
"f(3) == 4", "f(-1) should raise ValueError", "f(3) returns 5 instead of 4").
"""

from __future__ import annotations

import ast
import builtins
import doctest
import re
from dataclasses import dataclass
from typing import Iterable, Sequence


@dataclass(frozen=True)
class Example:
    """`call` should give `expected` (a Python expression), or raise `raises`, after `setup` ran."""

    call: str
    expected: str = ""
    raises: str = ""
    setup: tuple[str, ...] = ()
    by_repr: bool = False  # doctest output that is no literal: compare `repr(call)` with the text
    by_str: bool = False  # a doctest `print(...)`: compare `str(...)` with the text
    origin: str = "goal-text"  # docstring | goal-text

    def claim(self) -> str:
        """The example in one line, as the spec states it."""
        if self.raises:
            return f"{self.call} raises {self.raises}"
        return f"{self.call} == {self.expected}"


def _is_expression(src: str) -> bool:
    try:
        ast.parse(src.strip(), mode="eval")
        return True
    except SyntaxError:
        return False


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
        return True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _code(src: str, mode: str = "eval") -> str:
    """The code re-printed by `ast` (one line for an expression): text from a docstring never decides the
    generated file's layout or indentation."""
    return ast.unparse(ast.parse(src.strip(), mode=mode))


def docstring_examples(docstring: str) -> list[Example]:
    """The `>>>` examples that show a result (or an exception); statements before them are setup."""
    try:
        parsed = doctest.DocTestParser().get_examples(docstring)
    except ValueError:  # inconsistent indentation and the like: no usable examples
        return []
    out: list[Example] = []
    setup: list[str] = []
    for ex in parsed:
        src = ex.source.strip()
        want = ex.want.rstrip("\n")
        if ex.exc_msg is not None:
            name = ex.exc_msg.split(":", 1)[0].strip().rsplit(".", 1)[-1]
            try:
                if name.isidentifier():
                    out.append(Example(_code(src, "exec"), raises=name, setup=tuple(setup), origin="docstring"))
            except SyntaxError:
                pass
            continue
        if not want:
            try:
                setup.append(_code(src, "exec"))
            except SyntaxError:
                pass
            continue
        if not _is_expression(src):
            continue
        node = ast.parse(src, mode="eval").body
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print" \
                and len(node.args) == 1 and not node.keywords:
            out.append(Example(ast.unparse(node.args[0]), repr(want), setup=tuple(setup), by_str=True,
                               origin="docstring"))
        elif _literal(want):
            out.append(Example(_code(src), _code(want), setup=tuple(setup), origin="docstring"))
        else:
            out.append(Example(_code(src), repr(want), setup=tuple(setup), by_repr=True, origin="docstring"))
    return out


# A call: a dotted name and balanced parentheses (one level of nesting is plenty for examples in words).
_CALL = r"(?P<call>[A-Za-z_][\w.]*\((?:[^()]|\([^()]*\))*\))"
_SHOULD = r"(?:should|must|ought\s+to|is\s+supposed\s+to|needs?\s+to)\s+(?:be|return|give|equal|produce|yield)"
_GIVES = r"(?:==|->|=>|→|returns?|gives?|equals?|is|produces?|yields?)"
_ACTUAL_THEN_EXPECTED = [
    re.compile(_CALL + r"`?\s*" + _GIVES + r"\s+(?P<actual>.+?)\s+(?:instead\s+of|not)\s+(?P<value>.+)", re.I),
    re.compile(_CALL + r"`?\s*" + _GIVES + r"\s+(?P<actual>.+?),?\s+but\s+(?:it\s+)?" + _SHOULD + r"\s+(?P<value>.+)", re.I),
]
_EXPECTED = [
    re.compile(_CALL + r"`?\s*" + _SHOULD + r"\s+(?P<value>.+)", re.I),
    re.compile(r"(?:expected?|want(?:ed)?)\s+`?" + _CALL + r"`?\s+(?:to\s+(?:be|return|give|equal)\s+)?(?P<value>.+)", re.I),
    re.compile(_CALL + r"`?\s*" + _GIVES + r"\s+(?P<value>.+)", re.I),
]
_RAISES = re.compile(_CALL + r"`?\s*(?:should|must|is\s+supposed\s+to|needs?\s+to)?\s*raises?\s+`?(?P<exc>[A-Za-z_]\w*)", re.I)
_QUOTED_WORDS = re.compile(r"(?<![\w`])`([^`]+)`")


def _value_prefix(text: str) -> str:
    """The longest leading run of `text` (whole words, backticks and a closing period dropped) that is a
    plain value: a literal, or a negative number. "9.0 for 10 items" -> "9.0"."""
    text = text.strip().replace("`", "")
    words = text.split()
    for n in range(len(words), 0, -1):
        candidate = " ".join(words[:n]).rstrip(".,;:!?")
        if candidate and _literal(candidate):
            return candidate
    return ""


def _words(goal: str) -> str:
    """The goal with inline code marks removed, one clause per line (`;` and sentence ends split)."""
    text = _QUOTED_WORDS.sub(lambda m: m.group(1), goal)
    return re.sub(r"\.\s+|;\s*|\n", "\n", text)


def text_examples(goal: str, callable_names: Iterable[str] = ()) -> list[Example]:
    """Examples in the user's words. With `callable_names`, only calls of those names (or `x.name`)."""
    names = set(callable_names)
    out: list[Example] = []
    seen: set[str] = set()
    for clause in _words(goal).splitlines():
        found = _one_clause(clause)
        if found is None:
            continue
        func = found.call.split("(", 1)[0].rsplit(".", 1)[-1]
        if names and func not in names:
            continue
        if found.claim() not in seen:
            seen.add(found.claim())
            out.append(found)
    return out


def _one_clause(clause: str) -> Example | None:
    raised = _RAISES.search(clause)
    if raised and _is_expression(raised.group("call")):
        return Example(_code(raised.group("call")), raises=raised.group("exc"))
    for pattern in _ACTUAL_THEN_EXPECTED + _EXPECTED:
        m = pattern.search(clause)
        if m is None or not _is_expression(m.group("call")):
            continue
        value = _value_prefix(m.group("value"))
        if value:
            return Example(_code(m.group("call")), _code(value))
    return None


def called_names(examples: Sequence[Example]) -> list[str]:
    """Names the examples read and do not define themselves (to import from the module under test)."""
    used: list[str] = []
    defined: set[str] = set()
    for ex in examples:
        for src in (*ex.setup, ex.call):
            try:
                tree = ast.parse(src)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Name):
                    if isinstance(node.ctx, ast.Store):
                        defined.add(node.id)
                    elif node.id not in defined and node.id not in used and not hasattr(builtins, node.id):
                        used.append(node.id)
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    defined.update((a.asname or a.name).split(".")[0] for a in node.names)
    return [n for n in used if n not in defined]


def module_names(module_source: str) -> set[str]:
    """Top-level names a module defines (functions, classes, assignments, imports), read with `ast`."""
    try:
        tree = ast.parse(module_source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
    return names


def _check(ex: Example) -> list[str]:
    if ex.raises:
        return ["with pytest.raises(" + ex.raises + "):"] + [f"    {line}" for line in ex.call.splitlines()]
    if ex.by_str:
        return [f"assert str({ex.call}) == {ex.expected}"]
    if ex.by_repr:
        return [f"assert repr({ex.call}) == {ex.expected}"]
    return [f"assert {ex.call} == {ex.expected}"]


def render_test(module: str, module_source: str, examples: Sequence[Example], base: str,
                header: str) -> tuple[str, tuple[str, ...]]:
    """A pytest file checking `examples` of `module`; returns (source, test function names).
    `base` names the tests (`test_<base>_goal_<n>`); `header` becomes the module docstring."""
    known = module_names(module_source)
    used = called_names(examples)
    leaf = module.rsplit(".", 1)[-1]
    imports = [n for n in used if n in known]
    lines = [f'"""{header.replace(chr(92), "/").replace(chr(34) * 3, chr(39) * 3)}"""', ""]
    if any(ex.raises for ex in examples):
        lines.append("import pytest")
    if leaf in used and leaf not in known:
        package, _, _ = module.rpartition(".")
        lines.append(f"from {package} import {leaf}" if package else f"import {leaf}")
    if imports:
        lines.append(f"from {module} import {', '.join(sorted(imports))}")
    names: list[str] = []
    for i, ex in enumerate(examples, 1):
        name = f"test_{base}_goal_{i}" if len(examples) > 1 else f"test_{base}_goal"
        names.append(name)
        lines += ["", "", f"def {name}() -> None:"]
        lines += [f"    {s}" for src in ex.setup for s in src.splitlines()]
        lines += [f"    {line}" for line in _check(ex)]
    return "\n".join(lines) + "\n", tuple(names)
