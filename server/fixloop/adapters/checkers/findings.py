"""A checker's findings as the loop sees them: failing "tests" it must make pass (pure).

Each (file, rule) with findings at the baseline becomes one target, `ruff::pkg/mod.py::F401`, which passes
once that file has no finding of that rule. One more id, `ruff::no-new-findings`, passes at the baseline and
fails when a candidate's files have a finding their baseline did not have (compared by rule and message, not
by line: an edit above a finding moves it). The loop then judges a candidate on them as on tests: the targets
must pass, a passing id must keep passing.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from fixloop.core.model import Frame, Patch, TestResult

SEPARATOR = "::"
GUARD = "no-new-findings"


PROPOSER = "checker"  # the proposer of a checker's own fixes (proposer.py), told apart by the runner


@dataclass(frozen=True)
class Edit:
    """Replace the text from (row, column) up to (end_row, end_column) by `content`; 1-based, columns in
    characters, as the checkers count them."""

    row: int
    column: int
    end_row: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    """The checker's own fix of one finding. `safe`: the checker says it keeps the code's meaning."""

    message: str
    edits: tuple[Edit, ...]
    safe: bool


@dataclass(frozen=True)
class Finding:
    tool: str  # "ruff"
    code: str  # the rule: "F401"
    message: str
    path: str  # relative to the project, forward slashes
    line: int
    column: int = 1
    fix: Fix | None = None
    end_line: int = 0  # the last line of what it is about (0: `line` alone)

    @property
    def lines(self) -> range:
        return range(self.line, max(self.line, self.end_line) + 1)

    @property
    def target(self) -> str:
        return target_id(self.tool, self.path, self.code)


def target_id(tool: str, path: str, code: str) -> str:
    return f"{tool}{SEPARATOR}{path}{SEPARATOR}{code}"


def guard_id(tool: str) -> str:
    return f"{tool}{SEPARATOR}{GUARD}"


def parse_id(nodeid: str, tools: Iterable[str]) -> tuple[str, str, str] | None:
    """(tool, path, code) of a target id, (tool, "", "") of a guard id, None for a test's id."""
    tool, sep, rest = nodeid.partition(SEPARATOR)
    if not sep or tool not in tools:
        return None
    if rest == GUARD:
        return tool, "", ""
    path, sep, code = rest.rpartition(SEPARATOR)
    return (tool, path, code) if sep and path and code else None


def outcomes(tool: str, baseline: Sequence[Finding], now: Sequence[Finding], checked: Iterable[str],
             targeted: Callable[[str], bool] = lambda path: True) -> list[TestResult]:
    """The results of `tool`'s ids: every target of `baseline` (in the files `targeted` takes) and the guard
    (over every file), judged on `now` (the findings after a change; files not in `checked` kept their baseline
    findings)."""
    rechecked = set(checked)
    current = [f for f in baseline if f.path not in rechecked] + [f for f in now if f.path in rechecked]
    by_target: dict[str, list[Finding]] = {}
    for f in current:
        by_target.setdefault(f.target, []).append(f)
    results = []
    for target in dict.fromkeys(f.target for f in baseline if targeted(f.path)):
        left = by_target.get(target, [])
        results.append(_failed(target, left) if left else TestResult(target, "passed"))
    new = _new(baseline, now, rechecked)
    guard = guard_id(tool)
    results.append(_failed(guard, new, f"{len(new)} new finding(s)") if new else TestResult(guard, "passed"))
    return results


def deleted(result: TestResult, baseline: Sequence[Finding], patch: Patch | None) -> TestResult:
    """`result` failed when `patch` clears its target by deleting a finding's line that the checker has no fix
    for: an undefined name in a `raise` is not fixed by removing the `raise`."""
    if patch is None or result.outcome != "passed":
        return result
    for f in baseline:
        change = next((c for c in patch.changes if c.path == f.path), None)
        if f.target == result.nodeid and f.fix is None and change is not None and _gone(change.before, change.after, f.line):
            return TestResult(result.nodeid, "failed", exc_type=f"{f.tool} {f.code}", message=(
                f"the line of {f.code} ({f.message}) was deleted, not fixed"), frames=(Frame(f.path, f.line, f.code),))
    return result


def _gone(before: str, after: str, line: int) -> bool:
    old, new = before.splitlines(), after.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if i1 < line <= i2:
            return tag == "delete" or (tag == "replace" and j2 - j1 < i2 - i1 and not any(
                _same_start(old[line - 1], n) for n in new[j1:j2]))
    return False


def _same_start(old: str, new: str) -> bool:
    """`new` is `old` edited, not another line: it starts the same way (its indentation and first word)."""
    a, b = old.split(), new.split()
    return bool(a and b and a[0] == b[0] and len(old) - len(old.lstrip()) == len(new) - len(new.lstrip()))


def _new(baseline: Sequence[Finding], now: Sequence[Finding], rechecked: set[str]) -> list[Finding]:
    """The findings of the rechecked files beyond what their baseline had (as a multiset of rule and message)."""
    had = Counter((f.path, f.code, f.message) for f in baseline if f.path in rechecked)
    new = []
    for f in now:
        key = (f.path, f.code, f.message)
        if had[key] > 0:
            had[key] -= 1
        else:
            new.append(f)
    return new


def _failed(nodeid: str, findings: Sequence[Finding], headline: str = "") -> TestResult:
    first = findings[0]
    lines = [f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}" for f in findings[:20]]
    message = headline or f"{first.code} {first.message}"
    frames = tuple(Frame(f.path, f.line, f.code) for f in findings[:20])
    return TestResult(nodeid, "failed", exc_type=f"{first.tool} {first.code}", message=message, frames=frames,
                      longrepr="\n".join(lines))


def apply_edits(text: str, edits: Sequence[Edit]) -> str | None:
    """`text` with `edits` made, or None when one falls outside it or two overlap."""
    starts = _line_starts(text)

    def offset(row: int, column: int) -> int | None:
        if row == len(starts) + 1 and column == 1:
            return len(text)  # the position after the last line
        if not 1 <= row <= len(starts):
            return None
        at = starts[row - 1] + column - 1
        end = starts[row] if row < len(starts) else len(text)
        return at if column >= 1 and at <= end else None

    spans = []
    for e in edits:
        a, b = offset(e.row, e.column), offset(e.end_row, e.end_column)
        if a is None or b is None or b < a:
            return None
        spans.append((a, b, e.content))
    spans.sort()
    if any(spans[i][1] > spans[i + 1][0] for i in range(len(spans) - 1)):
        return None
    for a, b, content in reversed(spans):
        text = text[:a] + content + text[b:]
    return text


def _line_starts(text: str) -> list[int]:
    starts, at = [], 0
    for line in text.splitlines(keepends=True):
        starts.append(at)
        at += len(line)
    return starts or [0]


def fixed(sources: Mapping[str, str], findings: Sequence[Finding], safe_only: bool) -> dict[str, str]:
    """Each file's text with the checker's own fixes of `findings` made (unsafe ones too unless `safe_only`);
    a file where two fixes overlap keeps only those that came first."""
    out: dict[str, str] = {}
    by_path: dict[str, list[Edit]] = {}
    for f in findings:
        if f.fix is None or (safe_only and not f.fix.safe) or f.path not in sources:
            continue
        edits = by_path.setdefault(f.path, [])
        if apply_edits(sources[f.path], [*edits, *f.fix.edits]) is not None:
            edits.extend(f.fix.edits)
    for path, edits in by_path.items():
        after = apply_edits(sources[path], edits) if edits else None
        if after is not None and after != sources[path]:
            out[path] = after
    return out
