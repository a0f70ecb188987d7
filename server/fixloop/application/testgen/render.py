"""The generated test file, as text: characterization tests that assert the recorded values, and property
tests; a property test the current code fails carries a `# fixloop: suspected bug` comment with the reason."""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from fixloop.application.testgen.invariant_tests import HYPOTHESIS_IMPORT
from fixloop.application.testgen.properties import Property
from fixloop.application.testgen.record import Recorded
from fixloop.application.testgen.target import Target


@dataclass(frozen=True)
class TestSource:
    __test__ = False

    name: str
    kind: str  # characterization | roundtrip | idempotent | invariant
    source: str
    origin: str = ""  # where the input came from, or what the property claims


def _callee(target: Target) -> tuple[str, str]:
    """(how a test calls it, the name it imports)."""
    if target.kind == "method":
        return f"{target.cls}().{target.function}", target.cls
    if target.cls:
        return f"{target.cls}.{target.function}", target.cls
    return target.function, target.function


def _exception(r: Recorded, target: Target) -> tuple[str, str] | None:
    """(the name the test spells, an import line or "")."""
    if r.module == "builtins" and r.type in dir(builtins):
        return r.type, ""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", r.type) or not re.fullmatch(r"[\w.]+", r.module):
        return None
    if r.module == "__main__":
        return None
    return r.type, f"from {r.module} import {r.type}"


def characterization(target: Target, recorded: Sequence[Recorded]) -> tuple[list[TestSource], set[str]]:
    """One test per recorded case, and the import lines they need."""
    callee, _ = _callee(target)
    tests: list[TestSource] = []
    imports: set[str] = set()
    used: dict[str, int] = {}
    for r in recorded:
        if not r.testable:
            continue
        call = r.case.call(callee)
        if target.is_async:
            call = f"asyncio.run({call})"
            imports.add("import asyncio")
        comment = f"    # input from {r.case.origin}\n" if r.case.origin else ""
        if r.kind == "raises":
            exc = _exception(r, target)
            if exc is None:
                continue
            name, line = exc
            if line:
                imports.add(line)
            stem = f"test_{target.function}_raises_{name}"
            body = f"    with pytest.raises({name}):\n        {call}\n"
        elif r.kind == "eq":
            stem = f"test_{target.function}"
            body = f"    assert {call} == {r.repr}\n"
        else:
            stem = f"test_{target.function}_repr"
            body = f"    assert repr({call}) == {r.repr!r}\n"
        used[stem] = used.get(stem, 0) + 1
        test_name = f"{stem}_{used[stem]}"
        tests.append(TestSource(test_name, "characterization", f"def {test_name}():\n{comment}{body}", r.case.origin))
    return tests, imports


def property_tests(props: Sequence[Property]) -> list[TestSource]:
    return [TestSource(p.name, p.kind, p.source, p.claim) for p in props]


def render(target: Target, tests: Sequence[TestSource], extra_imports: set[str], props: Sequence[Property],
           suspects: Mapping[str, str] | None = None) -> str:
    """The whole file. `suspects`: test name -> why the current code fails it (a suspected bug)."""
    suspects = suspects or {}
    _, imported = _callee(target)
    names = {imported} | {n for p in props for n in p.imports if any(t.name == p.name for t in tests)}
    lines = [f'"""Tests for {target.label}, written by fixloop.\n\n'
             "Characterization tests assert what the code returned when they were written (recorded in the\n"
             "sandbox); property tests (Hypothesis) state what should hold for every input.\n\"\"\"\n",
             "import pytest"]
    lines.extend(sorted(i for i in extra_imports if i.startswith("import ")))
    if any(t.kind == "invariant" for t in tests):
        lines.append(HYPOTHESIS_IMPORT)
    elif any(t.kind != "characterization" for t in tests):
        lines.append("from hypothesis import given, settings, strategies as st")
    lines.append(f"from {target.module} import {', '.join(sorted(names))}")
    lines.extend(sorted(i for i in extra_imports if i.startswith("from ")))
    out = "\n".join(lines) + "\n"
    for t in tests:
        out += "\n\n"
        if t.name in suspects:
            reason = " ".join(suspects[t.name].split())[:300]
            out += f"# fixloop: suspected bug: the current code fails this property: {reason}\n"
        out += t.source
    return out
