"""Checkers (linters, type checkers) whose findings a run fixes like failing tests (`--check`)."""

TOOLS = ("ruff", "mypy")  # what `checks` may name
