"""What a user asks of goal mode (light: the language server imports it at start-up)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Goal:
    """The words, whether to ask questions, and where the cursor is."""

    text: str
    yes: bool = False
    cursor_path: str = ""  # relative to the workspace; "" when none
    cursor_line: int = 0  # 1-based; 0: no position
