"""Record what the function returns for each case, by running it inside the sandbox (never on the host).

Each case is run twice, in two fresh sandboxed processes; a value that differs between them (time, random,
ids) is dropped. A call that kills its interpreter is recorded as a crash and the rest run again in a new
process; a call over its time limit is recorded as a timeout. Neither becomes a test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from fixloop.adapters.runner.prepare import Prepared
from fixloop.adapters.sandbox.api import Sandbox, SandboxLimits
from fixloop.application.testgen.harvest import Case
from fixloop.application.testgen.target import Target, TestgenError

RECORDER = Path(__file__).with_name("sandbox_record.py")
RUNTIME_NAME = "fixloop_testgen_record.py"
MAX_RESTARTS = 4


@dataclass(frozen=True)
class Recorded:
    case: Case
    kind: str  # eq | repr | raises | opaque | timeout | crash | unstable
    repr: str = ""  # eq / repr: the value's repr
    type: str = ""  # raises: the exception's qualname; repr / opaque: the value's type
    module: str = ""  # raises: the exception's module
    message: str = ""

    @property
    def testable(self) -> bool:
        return self.kind in ("eq", "repr", "raises") and (self.kind != "raises" or "." not in self.type)


@dataclass
class Recording:
    results: list[Recorded] = field(default_factory=list)
    has_hypothesis: bool = False
    runs: int = 0
    ghostwriter: str = ""  # Hypothesis's ghostwriter's test text (untrusted: parsed, filtered, reviewed)
    ghostwriter_problem: str = ""  # why there is none


def _spec(target: Target, cases: Sequence[Case], timeout: float, ghostwriter: bool = False) -> str:
    return json.dumps({"import_root": target.import_root, "module": target.module, "cls": target.cls,
                       "function": target.function, "kind": target.kind, "is_async": target.is_async,
                       "timeout": timeout, "ghostwriter": ghostwriter, "cases": [{"args": list(c.args), "kwargs": [list(kw) for kw in c.kwargs]}
                                                     for c in cases]})


def _lines(raw: bytes) -> list[dict[str, Any]]:
    out = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            loaded = json.loads(line)
        except ValueError:
            continue
        if isinstance(loaded, dict):
            out.append(loaded)
    return out


class Recorder:
    def __init__(self, prepared: Prepared, sandbox: Sandbox, timeout: float = 2.0,
                 cancelled: Callable[[], bool] = lambda: False) -> None:
        self.prepared = prepared
        self.sandbox = sandbox
        self.timeout = timeout
        self.cancelled = cancelled
        self.script = prepared.scratch.runtime / RUNTIME_NAME
        if not self.script.exists():
            prepared.scratch.add_runtime(RUNTIME_NAME, RECORDER.read_bytes())
        self.runs = 0
        self.ghost: dict[str, Any] = {}

    def record(self, target: Target, cases: Sequence[Case], ghostwriter: bool = False) -> Recording:
        """Two passes; keeps a value only when both agree. `ghostwriter`: the first pass also asks
        Hypothesis's ghostwriter (module-level functions only)."""
        self.ghost = {"ghostwriter_error": "not asked"}
        first, hypothesis = self._pass(target, list(cases), ghostwriter and not target.cls and not target.is_async)
        second, _ = self._pass(target, list(cases))
        results = []
        for case, a, b in zip(cases, first, second):
            if a.kind in ("timeout", "crash"):
                results.append(a)
            elif (a.kind, a.repr, a.type) != (b.kind, b.repr, b.type):
                results.append(Recorded(case, "unstable", message=f"{_shown(a)} then {_shown(b)}"))
            else:
                results.append(a)
        text = self.ghost.get("ghostwriter")
        return Recording(results, hypothesis, self.runs, text if isinstance(text, str) else "",
                         str(self.ghost.get("ghostwriter_error", ""))[:300])

    def _pass(self, target: Target, cases: list[Case], ghostwriter: bool = False) -> tuple[list[Recorded], bool]:
        out: list[Recorded] = []
        hypothesis = False
        restarts = 0
        while len(out) < len(cases):
            if self.cancelled():
                raise TestgenError("cancelled")
            rest = cases[len(out):]
            records, hypothesis, problem = self._run(target, rest, ghostwriter)
            out.extend(records)
            if len(out) < len(cases):  # the interpreter died or was killed inside the next case
                restarts += 1
                died = cases[len(out)]
                kind = "timeout" if "wall" in problem else "crash"
                out.append(Recorded(died, kind, message=problem))
                if restarts > MAX_RESTARTS:
                    out.extend(Recorded(c, "crash", message="not run: too many crashes before it")
                               for c in cases[len(out):])
        return out, hypothesis

    def _run(self, target: Target, cases: list[Case], ghostwriter: bool = False) -> tuple[list[Recorded], bool, str]:
        self.runs += 1
        wall = self.timeout * len(cases) + 20.0 + (30.0 if ghostwriter else 0.0)
        limits = SandboxLimits(wall_seconds=wall, cpu_seconds=int(wall) + 10)
        argv = [self.prepared.interpreter.path, str(self.script), _spec(target, cases, self.timeout, ghostwriter)]
        result = self.sandbox.run(argv, self.prepared.scratch.tree(), limits, self.prepared.policy)
        lines = _lines(result.report)
        head = lines[0] if lines else {}
        if head.get("import") == "error":
            raise TestgenError(f"{target.module} does not import in the sandbox: {head.get('error', '')}; "
                               "nothing was written")
        if head.get("import") != "ok":
            tail = (result.stderr_head + result.stderr_tail).strip()[-400:] or result.limit_hit \
                or f"exit status {result.returncode}"
            raise TestgenError(f"the recorder did not start in the sandbox: {tail}")
        records: list[Recorded] = []
        for line in lines[1:]:
            if "ghostwriter" in line or "ghostwriter_error" in line:
                self.ghost = line
                continue
            if "kind" not in line or not isinstance(line.get("i"), int) or line["i"] != len(records):
                continue
            case = cases[line["i"]]
            records.append(Recorded(case, str(line["kind"]), str(line.get("repr", "")), str(line.get("type", "")),
                                    str(line.get("module", "")), str(line.get("message", ""))))
        problem = ""
        if len(records) < len(cases):
            if result.timed_out or result.limit_hit == "wall":
                problem = "wall: the call did not return (killed at the time limit)"
            elif result.limit_hit:
                problem = f"the call hit the sandbox's {result.limit_hit} limit"
            else:
                tail = (result.stderr_head + result.stderr_tail).strip().splitlines()
                problem = (f"the interpreter died (exit status {result.returncode}"
                           f"{', signal ' + str(result.signal) if result.signal else ''})"
                           + (f": {tail[-1][:200]}" if tail else ""))
        return records, bool(head.get("hypothesis")), problem


def _shown(r: Recorded) -> str:
    return r.repr[:60] if r.repr else f"{r.kind} {r.type}".strip()
