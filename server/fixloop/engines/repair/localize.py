"""Fault localization: traceback frames, and spectrum-based (Ochiai over per-test line coverage).

The spectrum comes from coverage contexts recorded by the report plugin in one extra run of the failing
tests and the passing tests beside them (`core.selection.focus`).
Only project code is ranked: test files and files outside the workspace never become suspects.
"""

from __future__ import annotations

import math
import re
from typing import Callable, Mapping, Protocol, Sequence

from fixloop.core.model import Suspect, TestReport
from fixloop.core.selection import focus
from fixloop.engines.repair.bindings import with_bindings
from fixloop.engines.repair.smells import with_smells
from fixloop.kit.syntax import Function, code_lines, functions_in, parse

_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _body(text: str, fn: Function) -> list[int]:
    """The lines of `fn` that run when it is called: not its signature, decorators or docstring (those
    ran at import), nor the signatures of the methods and functions nested in it at class level."""
    code = code_lines(text)
    return [line for line in range(fn.start_line, fn.end_line + 1) if line in code]


class TracebackLocalizer:
    runs_tests = False
    note = ""  # a traceback alone has nothing more to say (the `Localizer` port reads it)

    def __init__(self, is_test_file: Callable[[str], bool]) -> None:
        self.is_test_file = is_test_file

    def localize(
        self, report: TestReport, sources: Mapping[str, str], target_tests: Sequence[str]
    ) -> tuple[Suspect, ...]:
        scores: dict[tuple[str, int], Suspect] = {}

        def add(path: str, line: int, score: float, reason: str) -> None:
            old = scores.get((path, line))
            if old is None or old.score < score:
                scores[(path, line)] = Suspect(path, line, score, reason)

        failing = [r for r in report.failed if not target_tests or r.nodeid in target_tests]
        for result in failing:
            frames = [f for f in result.frames if f.in_project and f.path in sources and not self.is_test_file(f.path)]
            for depth, frame in enumerate(reversed(frames)):
                add(frame.path, frame.line, 1.0 / (1 + depth), f"traceback of {result.nodeid}")
                for fn in functions_in(sources[frame.path]):
                    if fn.start_line <= frame.line <= fn.end_line:
                        for line in _body(sources[frame.path], fn):
                            add(frame.path, line, 0.5 / (1 + depth), f"in {fn.name}, on the traceback")
            called = self._called_names(result.nodeid, sources)
            # Only files that define a called name are parsed: on a large project, parsing every file for the
            # few names a test calls cost seconds before the first candidate.
            names = "|".join(map(re.escape, sorted(called)))
            defines = re.compile(rf"\bdef\s+(?:{names})\s*\(") if called else None
            for path, text in sources.items():
                if defines is None or self.is_test_file(path) or not defines.search(text):
                    continue
                for fn in functions_in(text):
                    if fn.name in called:
                        for line in _body(text, fn):
                            add(path, line, 0.3, f"{fn.name} is called by {result.nodeid}")
        return tuple(sorted(scores.values(), key=lambda s: (-s.score, s.path, s.line)))

    def _called_names(self, nodeid: str, sources: Mapping[str, str]) -> set[str]:
        """Names called in the failing test's body (and the helpers it defines)."""
        path, _, rest = nodeid.partition("::")
        test_name = rest.split("::")[-1].split("[")[0]
        text = sources.get(path)
        if text is None:
            return set()
        names: set[str] = set()
        for fn in functions_in(text):
            if fn.name == test_name:
                body = "\n".join(text.splitlines()[fn.start_line - 1 : fn.end_line])
                names.update(_CALL.findall(body))
        # One level deeper: helpers defined in the test module (fixtures, builders).
        for fn in functions_in(text):
            if fn.name in names:
                body = "\n".join(text.splitlines()[fn.start_line - 1 : fn.end_line])
                names.update(_CALL.findall(body))
        return names - {test_name}


class CoverageRunner(Protocol):
    """Returns the baseline report object itself when no test had to run again."""

    def coverage(self, select: Sequence[str] = ()) -> tuple[TestReport, dict[str, dict[str, frozenset[int]]]]: ...


def ochiai(
    spectra: Mapping[str, Mapping[str, frozenset[int]]], failing: set[str], keep: Callable[[str], bool]
) -> dict[tuple[str, int], float]:
    """Ochiai suspiciousness ef / sqrt(F * (ef + ep)) of every executed line in a kept file."""
    ef: dict[tuple[str, int], int] = {}
    ep: dict[tuple[str, int], int] = {}
    total_failed = sum(1 for t in spectra if t in failing)
    for test, files in spectra.items():
        bucket = ef if test in failing else ep
        for path, lines in files.items():
            if keep(path):
                for line in lines:
                    bucket[(path, line)] = bucket.get((path, line), 0) + 1
    if not total_failed:
        return {}
    return {key: f / math.sqrt(total_failed * (f + ep.get(key, 0))) for key, f in ef.items()}


def passing_runs(spectra: Mapping[str, Mapping[str, frozenset[int]]], failing: set[str],
                 keep: Callable[[str], bool]) -> dict[tuple[str, int], int]:
    """How many passing tests executed each line of a kept file."""
    out: dict[tuple[str, int], int] = {}
    for test, files in spectra.items():
        if test not in failing:
            for path, lines in files.items():
                if keep(path):
                    for line in lines:
                        out[(path, line)] = out.get((path, line), 0) + 1
    return out


# Raised by a test's own check, wherever the checking code lives (unittest's `assertEqual`, `pytest.fail`
# and `pytest.raises`, numpy.testing): the test's verdict, not a fault of the code that raised it.
ASSERTIONS = ("AssertionError", "Failed")


def dependency_note(report: TestReport, target_tests: Sequence[str]) -> str:
    """When every failure is raised outside the project, say where: the bug may not be ours to fix."""
    places: set[str] = set()
    for result in report.failed:
        if target_tests and result.nodeid not in target_tests:
            continue
        if not result.frames or result.frames[-1].in_project or result.exc_type.rpartition(".")[2] in ASSERTIONS:
            return ""
        places.add(result.frames[-1].path)
    if not places:
        return ""
    return ("the failure is raised outside the project, in " + ", ".join(sorted(places)[:3]) +
            ": if the project calls it correctly, the bug is in that dependency")


class SpectrumLocalizer:
    """Ochiai over per-test coverage, blended with the traceback ranking; traceback alone if coverage fails."""

    runs_tests = True

    def __init__(self, runner: CoverageRunner, is_test_file: Callable[[str], bool], weight: float = 0.7) -> None:
        self.runner = runner
        self.is_test_file = is_test_file
        self.weight = weight
        self.traceback = TracebackLocalizer(is_test_file)
        self.note = ""
        self.tool = ""
        # The last run's per-test executed lines (test -> path -> lines), for the code graph's test edges.
        self.spectra: Mapping[str, Mapping[str, frozenset[int]]] = {}

    def localize(
        self, report: TestReport, sources: Mapping[str, str], target_tests: Sequence[str]
    ) -> tuple[Suspect, ...]:
        self.note = dependency_note(report, target_tests)
        ranked = self.traceback.localize(report, sources, target_tests)
        self.runs_tests = False
        failing = set(target_tests) or {r.nodeid for r in report.failed}
        if not failing:  # nothing failed (a collection error): the spectrum would have nothing to rank
            return with_bindings(ranked, sources, self.is_test_file)
        try:
            run, spectra = self.runner.coverage(focus(report, frozenset(failing)))
        except OSError:
            return with_bindings(ranked, sources, self.is_test_file)
        self.runs_tests = run is not report  # a runner may hand back the report it was given
        # Other tests that fail (outside the scope, or broken for another reason) are not evidence of health.
        other_failures = {r.nodeid for r in run.failed} - failing
        spectra = {t: lines for t, lines in spectra.items() if t not in other_failures}
        self.spectra = spectra
        scores = ochiai(spectra, failing, lambda p: p in sources and not self.is_test_file(p))
        # Lines that run at import were recorded for whichever test imported their module first: they
        # are ranked by what reads them (bindings.py), never as if that test had run them.
        scores = {k: v for k, v in scores.items() if k[1] in code_lines(sources[k[0]])}
        if not scores:
            self.tool = "traceback"
            return with_bindings(ranked, sources, self.is_test_file)
        self.tool = "spectrum"
        # Relative to the strongest line: in a large suite every Ochiai score is small, and the traceback's
        # flat share must not outweigh the spectrum's differences there.
        top = max(scores.values())
        ran = passing_runs(spectra, failing, lambda p: p in sources)
        frames = {(f.path, f.line) for r in report.failed if r.nodeid in failing for f in r.frames}
        tb = {(s.path, s.line): s for s in ranked}
        out: list[Suspect] = []
        for key in set(scores) | set(tb):
            if key not in scores and key not in frames:
                continue  # the traceback's spread to a line no failing test ran
            spectrum = scores.get(key, 0.0)
            frame = tb[key].score if key in tb else 0.0
            score = self.weight * spectrum / top + (1 - self.weight) * frame
            reason = f"ochiai {spectrum:.2f}" + (f"; {tb[key].reason}" if key in tb else "")
            out.append(Suspect(key[0], key[1], round(score, 6), reason, ran.get(key, 0)))
        ranked = with_bindings(sorted(out, key=lambda s: (-s.score, s.path, s.line)), sources, self.is_test_file)
        return with_smells(ranked, {p: t for p, t in sources.items() if not self.is_test_file(p)})


__all__ = ["SpectrumLocalizer", "TracebackLocalizer", "ochiai", "parse"]
