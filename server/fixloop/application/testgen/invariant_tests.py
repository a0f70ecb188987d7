"""Hypothesis property tests of stated invariants: `@given(<strategies from the type hints>)`, call the
function, assert the invariant. Deterministic (`derandomize=True`, no example database), bounded
(`max_examples`), one failure reported (`report_multiple_bugs=False`), so the repair loop's flakiness
check sees the same verdict on every rerun.

An input the function refuses with an exception it raises itself (a `raise ValueError(...)` in its body)
is outside what the words promise (`reject()`), except for "should not raise", where the exception is the
point; any other exception fails the test, so a candidate fix cannot pass it by making the call crash. A precondition on a number ("for any
non-negative price") bounds its strategy; others become `assume(...)`.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass
from typing import Sequence

from fixloop.application.testgen.invariants import Invariant, Precondition, Reading, read_invariants
from fixloop.application.testgen.properties import Property, strategy
from fixloop.application.testgen.target import Target

MAX_EXAMPLES = 200
HYPOTHESIS_IMPORT = "from hypothesis import HealthCheck, assume, given, reject, settings, strategies as st"
SETTINGS = (f"@settings(max_examples={MAX_EXAMPLES}, deadline=None, derandomize=True, database=None,\n"
            "          report_multiple_bugs=False, suppress_health_check=list(HealthCheck))")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class NoProperty(ValueError):
    """No property test can be written; the message says what to add."""


@dataclass(frozen=True)
class Varied:
    name: str
    strategy: str
    keyword: bool


def varied_params(target: Target, preconditions: Sequence[Precondition] = ()) -> tuple[list[Varied], list[str]]:
    """The parameters a property varies (the required ones; defaults stay) with their strategies, and the
    `assume(...)` conditions left over. Raises NoProperty naming a parameter without a usable hint."""
    if target.cls or target.is_async:
        raise NoProperty(f"{target.label} is a method or a coroutine: property tests are written for "
                         "module-level functions only")
    out: list[Varied] = []
    bounded: set[Precondition] = set()
    for p in target.params:
        if p.default or p.kind in ("star", "double_star"):
            continue
        if not p.annotation:
            raise NoProperty(f"parameter `{p.name}` of {target.function} has no type hint, so no values can be "
                             f"generated for it: add one (e.g. `{p.name}: int`)")
        low = high = ""
        for c in preconditions:
            if c.param == p.name and _NUMBER.fullmatch(c.bound) and c.op in (">=", ">", "<=", "<"):
                whole = "int" in p.annotation and "." not in c.bound
                value: float = int(c.bound) if whole else float(c.bound)
                if "=" not in c.op:  # strict: the next value inside
                    value += (1 if whole else 0.001) * (1 if c.op == ">" else -1)
                edge = repr(value)
                low, high = (edge, high) if c.op.startswith(">") else (low, edge)
                bounded.add(c)
        strat = strategy(p.annotation, low, high)
        if strat is None:
            raise NoProperty(f"the hint of `{p.name}` ({p.annotation}) is not one values can be generated for "
                             "(int, float, str, bytes, bool, Optional, list/set/tuple/dict of those)")
        out.append(Varied(p.name, strat, p.kind == "keyword"))
    names = {v.name for v in out}
    assumes = [c.check() for c in preconditions if c not in bounded and c.param in names
               and (c.bound in names or _NUMBER.fullmatch(c.bound))]
    return out, assumes


def _call(target: Target, varied: Sequence[Varied]) -> str:
    return f"{target.function}({', '.join(f'{v.name}={v.name}' if v.keyword else v.name for v in varied)})"


def refusals(module_source: str, function: str) -> list[str]:
    """The exception classes the function raises itself (`raise ValueError(...)`), by name, builtins only."""
    try:
        tree = ast.parse(module_source)
    except SyntaxError:
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            for inner in ast.walk(node):
                exc = inner.exc.func if isinstance(inner, ast.Raise) and isinstance(inner.exc, ast.Call) else \
                    inner.exc if isinstance(inner, ast.Raise) else None
                name = exc.id if isinstance(exc, ast.Name) else ""
                if isinstance(getattr(builtins, name, None), type) and issubclass(getattr(builtins, name), Exception) \
                        and name not in found:
                    found.append(name)
    return sorted(found)


def invariant_properties(target: Target, reading: Reading, base: str, start: int = 1,
                         refused: Sequence[str] = ()) -> list[Property]:
    """One property test per invariant, named `test_<base>_<n>` from `start`; `refused`: the exceptions
    that mean "not an input of this function" (see `refusals`). Raises NoProperty."""
    varied, assumes = varied_params(target, reading.preconditions)
    names = {v.name for v in varied}
    missing = sorted({n for inv in reading.invariants for n in inv.names()} - names)
    if missing:
        raise NoProperty(f"the invariant names {', '.join(missing)}, which {target.function} does not take "
                         "as a required parameter")
    call = _call(target, varied)
    result = "result" if "result" not in names else "result_"
    shown = ", ".join(f"{{{v.name}!r}}" for v in varied)
    out: list[Property] = []
    for n, inv in enumerate(reading.invariants, start):
        name = f"test_{base}_{n}"
        given = ", ".join(f"{v.name}={v.strategy}" for v in varied)
        lines = [SETTINGS, f"@given({given})" if varied else "", f"def {name}({', '.join(v.name for v in varied)}) -> None:"]
        lines += [f"    assume({a})" for a in assumes]
        if inv.kind == "no_raise":
            lines.append(f"    {call}")
        elif refused:
            lines += ["    try:", f"        {result} = {call}",
                      f"    except {_exceptions(refused)}:  # an input it refuses: outside what the words promise",
                      "        reject()",
                      f"    assert {inv.check(result)}, f\"{target.function}({shown}) returned {{{result}!r}}\""]
        else:
            lines += [f"    {result} = {call}",
                      f"    assert {inv.check(result)}, f\"{target.function}({shown}) returned {{{result}!r}}\""]
        out.append(Property(name, "invariant", "\n".join(line for line in lines if line) + "\n",
                            (target.function,), claim(inv, call)))
    return out


def _exceptions(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"({', '.join(names)})"


def claim(inv: Invariant, call: str) -> str:
    return f"for every input: {inv.claim(call)}"


def property_file(module: str, header: str, props: Sequence[Property], examples_source: str = "") -> str:
    """A test file with the property tests (after the example tests of `examples_source`, a file made by
    `examples.render_test`, when given): its imports go with the others."""
    imports = [HYPOTHESIS_IMPORT, f"from {module} import {', '.join(sorted({n for p in props for n in p.imports}))}"]
    if examples_source:
        head, sep, body = examples_source.partition("\n\n\ndef ")
        text = head.rstrip("\n") + "\n" + "\n".join(imports) + "\n" + (sep + body if sep else "\n")
    else:
        text = f'"""{header.replace(chr(92), "/").replace(chr(34) * 3, chr(39) * 3)}"""\n\n' + "\n".join(imports) + "\n"
    for p in props:
        text = text.rstrip("\n") + "\n\n\n" + p.source
    return text


def stated_invariants(target: Target, module_source: str, notes: list[str]) -> list[Property]:
    """Property tests of what the target's docstring says always holds ("Returns a non-negative ..."); why
    there are none, when it states some, goes to `notes`."""
    names = [p.name for p in target.params if p.kind not in ("star", "double_star")]
    reading = read_invariants(target.docstring, target.function, names, docstring=True)
    if not reading.invariants:
        return []
    try:
        return invariant_properties(target, reading, f"{target.function}_invariant",
                                    refused=refusals(module_source, target.function))
    except NoProperty as e:
        notes.append(f"no property test for what the docstring states: {e}")
        return []
