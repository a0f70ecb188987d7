"""Checkers (linters, type checkers) whose findings a run fixes like failing tests (`--check`)."""

TOOLS = ("ruff",)  # what `checks` may name
