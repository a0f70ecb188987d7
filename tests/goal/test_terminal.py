"""The terminal's clarifying question: numbered choices, Enter takes the default, bad answers asked again."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from fixloop.core.goal import Question
from fixloop.application.goal.terminal import prompt

Q = Question("target", "Which function is the goal about?", ("a.py::f", "b.py::f"), "a.py::f")


@pytest.mark.parametrize("typed, chosen", [("2\n", "b.py::f"), ("\n", "a.py::f"), ("9\nb.py::f\n", "b.py::f")])
def test_prompt(monkeypatch: pytest.MonkeyPatch, typed: str, chosen: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    out = io.StringIO()
    assert prompt(Console(file=out, width=100))(Q) == chosen
    assert "1. a.py::f" in out.getvalue() and "2. b.py::f" in out.getvalue()
