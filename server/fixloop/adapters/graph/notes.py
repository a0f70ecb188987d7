"""What the code graph tells the editor about an entity (no heavy imports: the language server reads it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EntityWarning:
    """A function whose history is worth a warning, placed on its name."""

    entity: str  # module::Class.func
    line: int  # 1-based line of the name
    column: int  # 0-based characters
    end_column: int
    message: str  # e.g. "the tests of `apply_discount` failed 3 times in the last 30 days; 2 fixes here were rejected"
