"""Checkers (linters, type checkers) whose findings a run fixes like failing tests (`--check`)."""

TOOLS = ("ruff", "mypy", "pyright")  # what `checks` may name
