"""A failing test as memory sees it: the normalised signature, the faulty statement and its shape,
and the text the embedder turns into a vector."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from fixloop.core.model import Frame, TestResult
from fixloop.core.signature import abstract_message, failure_signature
from fixloop.kit.shapes import code_of, shape_of, statement_tokens


@dataclass(frozen=True)
class FailureInfo:
    test_id: str
    exc_type: str
    message: str  # first line, as reported (redacted when stored)
    signature: str
    shape: str  # abstract shape of the statement in the innermost project frame
    statement: str  # that statement's code
    frame: str  # path:line

    @property
    def error_class(self) -> str:
        return self.exc_type

    @property
    def text(self) -> str:
        """What gets embedded: the signature, then the code (its names make near-duplicates closer)."""
        return f"{self.signature} {self.statement}"


def innermost_project_frame(result: TestResult, sources: Mapping[str, str]) -> Frame | None:
    inside = [f for f in result.frames if f.in_project and f.path in sources]
    return inside[-1] if inside else None


def describe(result: TestResult, sources: Mapping[str, str]) -> FailureInfo:
    frame = innermost_project_frame(result, sources)
    shape = statement = ""
    if frame is not None:
        try:
            tokens = statement_tokens(sources[frame.path], frame.line)
        except (ValueError, UnicodeError):
            tokens = ()
        shape, statement = shape_of(tokens), code_of(tokens).strip()
    message = result.message.strip().splitlines()[0][:500] if result.message.strip() else ""
    exc_type = result.exc_type or result.outcome
    return FailureInfo(
        test_id=result.nodeid,
        exc_type=exc_type,
        message=message,
        signature=failure_signature(exc_type, message, shape),
        shape=shape,
        statement=statement[:500],
        frame=f"{frame.path}:{frame.line}" if frame else "",
    )


def query_text(text: str) -> str:
    """A user's search words in the signature's vocabulary (literals and names abstracted too)."""
    return f"{text} {abstract_message(text)}"
