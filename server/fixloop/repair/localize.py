"""Traceback localization: project frames of failing tests, then the functions those tests call."""

from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence

from ..core.model import Suspect, TestReport
from .syntax import functions_in, parse

_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


class TracebackLocalizer:
    runs_tests = False

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
                        for line in range(fn.start_line, fn.end_line + 1):
                            add(frame.path, line, 0.5 / (1 + depth), f"in {fn.name}, on the traceback")
            for name in self._called_names(result.nodeid, sources):
                for path, text in sources.items():
                    if self.is_test_file(path):
                        continue
                    for fn in functions_in(text):
                        if fn.name == name:
                            for line in range(fn.start_line, fn.end_line + 1):
                                add(path, line, 0.3, f"{name} is called by {result.nodeid}")
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


__all__ = ["TracebackLocalizer", "parse"]
