"""Goal mode in the terminal: the session for `fixloop fix --goal`, its questions and what it prints."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console

from fixloop.kit.printable import shown
from fixloop.application.run import RunRequest
from fixloop.core.goal import Question
from fixloop.application.goal.request import Goal
from fixloop.application.goal.session import GoalSession


def prompt(console: Console) -> Any:
    """Ask on the terminal: the choices numbered, Enter takes the first (the default)."""
    import typer

    def ask(question: Question) -> str | None:
        console.print(f"[bold]{shown(question.text)}[/]")
        for i, choice in enumerate(question.choices, 1):
            console.print(f"  {i}. {shown(choice)}")
        default = question.choices.index(question.default) + 1 if question.default in question.choices else 1
        while True:
            raw = typer.prompt("choice", default=str(default), err=True)
            if raw.isdigit() and 1 <= int(raw) <= len(question.choices):
                return question.choices[int(raw) - 1]
            if raw in question.choices:
                return raw
            console.print(f"[yellow]pick 1 to {len(question.choices)}[/]")

    return ask


def goal_session(request: RunRequest, text: str, yes: bool, quiet: bool, console: Console) -> GoalSession:
    """Questions are asked only on an interactive terminal without --yes; otherwise the defaults are taken
    and stated as assumptions."""
    interactive = not yes and not quiet and sys.stdin.isatty()
    return GoalSession(request, Goal(text, yes=yes), ask=prompt(console) if interactive else None)


def show_goal(summary: dict[str, Any], console: Console) -> None:
    spec = summary.get("spec")
    if spec:
        console.print(f"goal: {shown(str(summary.get('goal')))}")
        console.print(f"  where: {shown(str(spec.get('where')))}")
        console.print(f"  expected: {shown(str(spec.get('expected')))}")
        console.print(f"  actual: {shown(str(spec.get('actual')))}")
        console.print(f"  reproduction test: {shown(str(summary.get('test_file')))} (from {summary.get('test_origin')})")
    for assumption in summary.get("assumptions") or []:
        console.print(f"  [yellow]assumed:[/] {shown(str(assumption))}")
