"""How the memory store talks to LanceDB's engine: commits retried on a conflict, and queries run in one
round trip through the asynchronous API when this lancedb has it."""

from __future__ import annotations

import time
from typing import Any, Callable, TypeVar

T = TypeVar("T")


def retry(action: Callable[[], T], attempts: int = 5) -> T:
    """Commit conflicts between processes are retried with a short back-off."""
    for attempt in range(attempts):
        try:
            return action()
        except (OSError, RuntimeError, ValueError) as e:
            if attempt == attempts - 1 or "onflict" not in str(e) and "retry" not in str(e).lower():
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


def direct_runner(tables: dict[str, Any]) -> Callable[[Any], Any] | None:
    """The runner of the asynchronous API when every table has one behind it (lancedb 0.40); else None,
    and queries go through the synchronous builder."""
    try:
        from lancedb.background_loop import LOOP
        from lancedb.table import AsyncTable
    except ImportError:
        return None
    if all(isinstance(getattr(t, "_table", None), AsyncTable) for t in tables.values()):
        return LOOP.run
    return None
