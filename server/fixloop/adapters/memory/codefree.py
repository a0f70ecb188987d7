"""Operator statistics as they leave the machine under `memory.share = "fixes-and-stats"` (the default):
counts per operator and error class, with nothing in them that could carry code, a path, a name or a message.

An `operator_stats` row says that a candidate of one operator, for a failure of one error class, passed or
failed (`success`, `weight`: 1 for a test run, 2 for a review, a run's reward for a strategy). That is what a
teammate's operator priors and strategy record read, and all they read. So a row leaves with its random id,
its error class, operator, success, weight, source and time; its run as a digest (the mined templates count
per run, never by name: an editor may name its runs); its project stays (a name). A row whose error class is
not one of Python's built-in exceptions or pytest's words (a class the project defines is a name from its
code), whose operator is not a fixloop operator name, or whose source fixloop does not write, stays on the
machine whole: such a row is never partly shared.
"""

from __future__ import annotations

import builtins
import hashlib
import re
from typing import Any, Mapping

# What `describe` calls an error class: the exception's class name, or the test's outcome without one.
PYTEST_CLASSES = frozenset({"Failed", "Skipped", "XFailed", "Exit", "Timeout", "failed", "error"})
STRATEGY_CLASS = "(strategy)"  # memory/outcomes.py: a run's strategy outcome, no exception's class
BUILTIN_CLASSES = frozenset(name for name, value in vars(builtins).items()
                            if isinstance(value, type) and issubclass(value, BaseException))
CLASSES = BUILTIN_CLASSES | PYTEST_CLASSES | {STRATEGY_CLASS}
# fixloop's own operator names (`arithmetic_swap`, `text_edit`, `memory-first`) and mined templates by digest.
OPERATOR = re.compile(r"[a-z][a-z0-9_-]{0,39}|mined:[0-9a-f]{12}")
SOURCES = frozenset({"test", "review", "strategy"})
COLUMNS = ("id", "error_class", "operator", "success", "weight", "source", "run_id", "time")


def code_free(row: Mapping[str, Any]) -> bool:
    """Whether the row's error class, operator and source are fixloop's or Python's words, nothing of the project."""
    return (row.get("error_class") in CLASSES and isinstance(row.get("operator"), str)
            and OPERATOR.fullmatch(row["operator"]) is not None and row.get("source") in SOURCES)


def run_digest(run_id: str) -> str:
    return hashlib.sha256(run_id.encode("utf-8", "surrogateescape")).hexdigest()[:16] if run_id else ""


def reduced(row: Mapping[str, Any]) -> dict[str, Any]:
    """The columns that leave, the run as its digest; call only on a `code_free` row."""
    out = {k: row[k] for k in COLUMNS if k in row}
    out["run_id"] = run_digest(str(row.get("run_id") or ""))
    return out
