"""Write tests for one function: find it, harvest inputs, record outputs in the sandbox, add property tests,
run the file in the sandbox, and return it for review. Nothing is written to the project here."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from fixloop.application.config import Settings
from fixloop.core.model import FileChange, Patch, TestReport
from fixloop.adapters.runner.cold import ColdRunner
from fixloop.adapters.runner.prepare import Prepared, prepare
from fixloop.kit.source_text import MAX_SOURCE_BYTES, decode_source
from fixloop.adapters.sandbox.api import Sandbox
from fixloop.adapters.sandbox.hostio import read_beneath
from fixloop.adapters.sandbox.select import choose as choose_sandbox
from fixloop.application.testgen.harvest import harvest
from fixloop.application.testgen.invariant_tests import stated_invariants
from fixloop.application.testgen.place import fresh_test_path
from fixloop.application.testgen.ghostwritten import ghostwritten
from fixloop.application.testgen.properties import Property, properties
from fixloop.application.testgen.record import Recorded, Recorder, Recording
from fixloop.application.testgen.render import TestSource, characterization, property_tests, render
from fixloop.application.testgen.target import Target, TestgenError, find, module_functions, module_name, parse_spec

Note = Callable[[str], None]


@dataclass
class Generated:
    target: Target
    path: str  # workspace-relative path of the new test file
    text: str
    tests: list[dict[str, str]] = field(default_factory=list)  # name, kind, status, reason, origin
    notes: list[str] = field(default_factory=list)
    python: str = ""

    @property
    def suspected(self) -> list[dict[str, str]]:
        return [t for t in self.tests if t["status"] == "suspected_bug"]

    def summary(self) -> dict[str, Any]:
        return {"function": self.target.label, "file": self.path, "tests": self.tests, "notes": self.notes,
                "suspected_bugs": len(self.suspected), "python": self.python}

    def patch(self) -> Patch:
        return Patch((FileChange(self.path, "", self.text),), "testgen", "write_tests", f"tests for {self.target.label}")


def relative_target(workspace: Path, path: str) -> str:
    """The file's workspace-relative path, or a clear refusal (outside the workspace, missing, not Python)."""
    absolute = Path(os.path.normpath(workspace / os.path.expanduser(path)))
    root = Path(os.path.normpath(workspace))
    if root not in absolute.parents:
        raise TestgenError(f"{path} is outside the workspace {root}; nothing was written")
    real = Path(os.path.realpath(absolute))
    if Path(os.path.realpath(root)) not in real.parents:
        raise TestgenError(f"{path} leads outside the workspace through a link; nothing was written")
    if not absolute.name.endswith(".py"):
        raise TestgenError(f"{path} is not a Python file")
    if not absolute.is_file():
        raise TestgenError(f"{path} does not exist")
    return absolute.relative_to(root).as_posix()


def generate(workspace: Path, spec: str, settings: Settings, overlays: Mapping[str, str] | None = None,
             cancelled: Callable[[], bool] = lambda: False, note: Note = lambda text: None) -> Generated:
    path, qualname = parse_spec(spec)
    rel = relative_target(workspace, path)
    _precheck(workspace, rel, qualname, overlays or {})
    sandbox = choose_sandbox(settings.sandbox)
    note("probing the interpreter in the sandbox")
    prepared = prepare(workspace, sandbox, settings.python, overlays, settings.workspace.copy_rule())
    try:
        return _generate(workspace, rel, qualname, settings, prepared, sandbox, cancelled, note)
    finally:
        prepared.scratch.close()


def _precheck(workspace: Path, rel: str, qualname: str, overlays: Mapping[str, str]) -> None:
    """A function that is not there is refused before any copy is made or anything runs."""
    text = overlays.get(rel)
    if text is None:
        try:
            decoded = decode_source(read_beneath(workspace, rel, MAX_SOURCE_BYTES))
        except OSError as e:
            raise TestgenError(f"cannot read {rel}: {e.strerror or e}") from None
        if decoded is None:
            raise TestgenError(f"{rel} is not valid Python source text")
        text = decoded.text
    find(text, rel, qualname, "", "")


def _generate(workspace: Path, rel: str, qualname: str, settings: Settings, prepared: Prepared, sandbox: Sandbox,
              cancelled: Callable[[], bool], note: Note) -> Generated:
    scratch = prepared.scratch
    if rel not in scratch.files:
        raise TestgenError(f"{rel} is not one of the project's Python sources (ignored by git, too big or undecodable)")
    names = set(scratch.names)
    module, root = module_name(rel, lambda p: p in names)
    source = scratch.files[rel].text
    target = find(source, rel, qualname, module, root)
    cases = harvest(target, scratch.sources())
    if not cases:
        raise TestgenError(f"no inputs for {target.label}: add a docstring example (>>> {target.function}(...)), "
                           "type hints on its parameters, or a call with literal arguments; nothing was written")
    note(f"recording {len(cases)} call(s) in the sandbox")
    recording = Recorder(prepared, sandbox, cancelled=cancelled).record(target, cases, ghostwriter=True)
    notes = [_dropped(r, target.function) for r in recording.results if not r.testable]
    if not any(r.testable for r in recording.results):
        raise TestgenError(f"no call of {target.label} could be recorded: " + "; ".join(notes[:4])
                           + "; nothing was written")
    tests, imports = characterization(target, recording.results)
    props = []
    if recording.has_hypothesis:
        props = _properties(target, source, recording, imports, notes) + stated_invariants(target, source, notes)
    else:
        notes.append(f"no property tests: hypothesis is not installed for {prepared.interpreter.path} "
                     "(install it there to get them)")
    tests += property_tests(props)
    path = fresh_test_path(workspace, target)
    text = render(target, tests, imports, props)
    note("running the generated tests in the sandbox")
    report = ColdRunner(scratch, sandbox, prepared.interpreter.path, settings.limits()).run(
        Patch((FileChange(path, "", text),)), [path], False, (settings.per_test_timeout, settings.per_test_timeout),
        prepared.policy)
    kept, statuses, suspects, more = _verdicts(tests, report, path)
    notes += more
    if not kept:
        raise TestgenError(f"none of the tests written for {target.label} ran: " + "; ".join(notes[-3:]))
    text = render(target, kept, imports, [p for p in props if p.name in {t.name for t in kept}], suspects)
    return Generated(target, path, text, statuses, notes, prepared.interpreter.describe())


def _properties(target: Target, source: str, recording: Recording, imports: set[str], notes: list[str]) -> list[Property]:
    """Hypothesis's ghostwriter's tests when it wrote some worth keeping (it ran in the sandbox), else the
    static round trip and idempotence."""
    functions = module_functions(source)
    ghost, why = ghostwritten(recording.ghostwriter, target.module, target.function, functions) \
        if recording.ghostwriter else ([], recording.ghostwriter_problem)
    if ghost:
        imports.add(f"import {target.module}")
        return ghost
    notes.append(f"Hypothesis's ghostwriter was not used: {why or 'it gave nothing'}")
    return properties(target, source, functions)


def _dropped(r: Recorded, name: str) -> str:
    call = r.case.call(name)
    what = {"timeout": "timed out", "crash": "crashed the interpreter", "unstable": "gave different results",
            "opaque": "returned a value that has no stable repr", "raises": "raised a nested exception class"}
    return f"{call}: {what.get(r.kind, r.kind)}" + (f" ({r.message[:160]})" if r.message else "")


def _reason(longrepr: str, message: str, exc_type: str) -> str:
    """The falsifying example Hypothesis reports (pytest prefixes its lines with `E`) and the assertion."""
    lines = [re.sub(r"^E\s{1,3}", "", line) for line in longrepr.splitlines()]
    falsifying = ""
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("Falsifying example:", "Failing test case:")):
            end = next((j for j in range(i, min(i + 20, len(lines))) if lines[j].strip() == ")"), i)
            falsifying = " ".join(" ".join(lines[i:end + 1]).split()).replace("( ", "(").replace(", )", ")")
    parts = [falsifying, f"{exc_type}: {message}" if exc_type and message else message]
    return "; ".join(p for p in parts if p)[:400] or "it failed on the current code"


def _verdicts(tests: list[TestSource], report: TestReport, path: str
              ) -> tuple[list[TestSource], list[dict[str, str]], dict[str, str], list[str]]:
    by_name = {r.nodeid.split("::", 1)[-1]: r for r in report.results if r.nodeid.startswith(path + "::")}
    kept, statuses, suspects, notes = [], [], {}, []
    if report.problem or not by_name:
        notes.append(f"the generated tests did not run: {report.problem or report.output_tail[-300:]}")
        return [], [], {}, notes
    for t in tests:
        result = by_name.get(t.name)
        if result is None:
            notes.append(f"{t.name}: not collected")
        elif not result.failed:
            kept.append(t)
            statuses.append({"name": t.name, "kind": t.kind, "status": "passed", "origin": t.origin})
        elif t.kind == "characterization":
            notes.append(f"{t.name}: dropped, it does not pass again on the same code ({result.message[:120]})")
        else:
            reason = _reason(result.longrepr, result.message, result.exc_type)
            kept.append(t)
            suspects[t.name] = reason
            statuses.append({"name": t.name, "kind": t.kind, "status": "suspected_bug", "reason": reason,
                             "origin": t.origin})
    return kept, statuses, suspects, notes
