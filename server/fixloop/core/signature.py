"""Failure signatures: the same bug failing the same way gives the same string."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

from fixloop.core.model import Attempt, Reflection, TestReport, TestResult
from fixloop.core.ports import ProposalContext, Reflector

_QUOTED = re.compile(r"(\"[^\"]*\"|'[^']*')")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(\.\d+)?(e[-+]?\d+)?")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_SPACE = re.compile(r"\s+")
_FILE_LINE = re.compile(r'File "(?:.*/ws/)?([^"]+)", line (\d+)')


def normalize_message(message: str) -> str:
    first = message.strip().splitlines()[0] if message.strip() else ""
    text = _HEX.sub("<addr>", first)
    text = _QUOTED.sub("<str>", text)
    text = _NUMBER.sub("<num>", text)
    return _SPACE.sub(" ", text)[:200]


def result_signature(result: TestResult) -> str:
    frame = next((f for f in reversed(result.frames) if f.in_project), None)
    where = f"{frame.path}:{frame.function}" if frame else "?"
    return f"{result.exc_type or result.outcome}: {normalize_message(result.message)} @ {where}"


def report_signature(report: TestReport, targets: tuple[str, ...] = ()) -> str:
    """Signature of a whole run: the sorted signatures of its failing tests (targets first)."""
    if report.problem:
        return f"problem: {normalize_message(report.problem)}"
    if report.timed_out:
        return "timeout"
    if report.collection_errors:
        return "collection: " + normalize_message(report.collection_errors[0])
    failing = [r for r in report.failed if not targets or r.nodeid in targets] or list(report.failed)
    return " | ".join(sorted({f"{r.nodeid} {result_signature(r)}" for r in failing})) or "ok"


def describe_collection_error(text: str) -> str:
    """A one-line account of a collection error: the failing module, the error, and where it points."""
    where, _, body = text.partition(": ")
    lines = [ln[1:].strip() for ln in body.splitlines() if ln.startswith("E ")]
    error = next((ln for ln in reversed(lines) if ln and not ln.startswith(("File ", "^"))), "")
    error = error or (body.strip().splitlines() or [""])[0]
    spots = _FILE_LINE.findall(body)
    location = f" at {spots[-1][0]}:{spots[-1][1]}" if spots else ""
    return f"{where or 'collection'}: {error[:200]}{location}"


_IDENTIFIER = re.compile(r"(?<![<\w])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CODE_WORDS = frozenset({"and", "or", "not", "in", "is", "None", "True", "False", "assert", "where", "lambda", "if", "else"})


def _looks_like_code(word: str) -> bool:
    return "_" in word or "." in word or any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])


def abstract_message(message: str) -> str:
    """`normalize_message` with identifiers abstracted too: `assert total == 9` and
    `assert price == 4` become one string. Plain words of a prose message stay."""
    text = normalize_message(message)
    code = text.startswith("assert ")

    def name(m: re.Match[str]) -> str:
        word = m.group(0)
        if word in _CODE_WORDS or word in ("str", "num", "addr"):
            return word
        return "<id>" if code or _looks_like_code(word) else word

    return _IDENTIFIER.sub(name, text)


def failure_signature(exc_type: str, message: str, statement_shape: str) -> str:
    """The normalised signature memory keys on: exception type, abstract message, and the
    abstract shape of the statement in the innermost project frame."""
    return f"{exc_type or 'failure'}: {abstract_message(message)} @ {statement_shape or '?'}"


def reflect(proposer: object, attempt: Attempt, ctx: ProposalContext, targets: tuple[str, ...]) -> Reflection:
    """The failure's signature, with what a reflecting proposer makes of it."""
    signature = report_signature(attempt.report, targets) if attempt.report else "unknown"
    if isinstance(proposer, Reflector):
        richer = proposer.reflect(attempt, ctx)
        if richer is not None:
            return replace(richer, signature=signature)
    return Reflection(signature=signature)


def failure_ways(failing: Sequence[TestResult]) -> dict[str, list[str]]:
    """Failing tests grouped by how they fail: the exception and the innermost frame of project code outside
    the test's own file (where the error surfaced), or the test's file when none."""
    ways: dict[str, list[str]] = {}
    for result in failing:
        own = result.nodeid.split("::", 1)[0]
        inner = next((f for f in reversed(result.frames) if f.in_project and f.path != own), None)
        where = f"{inner.path} ({inner.function})" if inner is not None else own
        ways.setdefault(f"{result.exc_type or 'a failure'} in {where}", []).append(result.nodeid)
    return ways
