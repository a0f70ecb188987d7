"""`fixloop tests PATH::function`: generate tests for one function and offer the new file like a fix."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from fixloop.kit.printable import printable, shown
from fixloop.kit.screen import console, print_diff
from fixloop.core.patch import unified_diff

EXIT_WRITTEN, EXIT_NOT_WRITTEN, EXIT_USAGE = 0, 1, 2
err = console(stderr=True, soft_wrap=True)


def tests(
    spec: str = typer.Argument(..., metavar="PATH::FUNCTION", help="e.g. pkg/mod.py::parse or pkg/mod.py::Cls.method"),
    root: Path = typer.Option(Path("."), "--root", help="The project's root folder (PATH is relative to it)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Write the test file without asking."),
    as_json: bool = typer.Option(False, "--json", help="Print a summary as one JSON object on stdout."),
    python: Optional[str] = typer.Option(None, help="The project's Python interpreter."),
    sandbox: Optional[str] = typer.Option(None, help="Sandbox backend (see `fixloop fix --help`)."),
) -> None:
    """Write characterization and property tests for one function, and offer the new test file."""
    from fixloop.application.config import load, project_settings
    from fixloop.adapters.runner.interpreter import InterpreterUnusable
    from fixloop.adapters.sandbox.api import SandboxUnavailable
    from fixloop.application.testgen.place import create
    from fixloop.application.testgen.service import generate
    from fixloop.application.testgen.target import TestgenError

    workspace = root.expanduser()
    if not workspace.is_dir():
        err.print(f"[red]error:[/] {shown(str(workspace))} is not a directory")
        raise typer.Exit(EXIT_USAGE)
    workspace = workspace.resolve()
    overrides: dict[str, Any] = {
        "python": os.path.abspath(os.path.expanduser(python)) if python and "/" in python else python}
    if sandbox is not None:
        overrides["sandbox"] = {"backend": sandbox}
    settings, problems = project_settings(workspace)  # the project's table may only tighten limits
    settings, more = load({k: v for k, v in overrides.items() if v is not None}, settings, "--")
    for p in problems + more:
        err.print(f"[yellow]config:[/] {shown(p)}")
    summary: dict[str, Any] = {"status": "error", "written": False}
    try:
        made = generate(workspace, spec, settings, note=lambda text: err.print(f"[dim]{shown(text)}[/]"))
    except (TestgenError, InterpreterUnusable, SandboxUnavailable) as e:
        summary["message"] = str(e)
        _finish(summary, as_json, f"[red]error:[/] {shown(str(e))}")
        raise typer.Exit(EXIT_USAGE if isinstance(e, TestgenError) else EXIT_NOT_WRITTEN)
    summary.update(made.summary(), status="generated", diff=unified_diff(made.patch()))
    if not as_json:
        print_diff(summary["diff"], err)
    for t in made.tests:
        line = f"{t['name']}: {t['status']}" + (f" - {t['reason']}" if t.get("reason") else "")
        err.print(f"[yellow]suspected bug:[/] {shown(line)}" if t["status"] == "suspected_bug" else shown(line))
    for n in made.notes:
        err.print(f"[dim]note: {shown(n)}[/]")
    asked = not yes and not as_json and sys.stdin.isatty()
    if yes or (asked and typer.confirm(printable(f"Write {made.path}?"), default=False)):
        try:
            create(workspace, made.path, made.text)
        except TestgenError as e:
            summary["message"] = str(e)
            _finish(summary, as_json, f"[red]error:[/] {shown(str(e))}")
            raise typer.Exit(EXIT_NOT_WRITTEN)
        summary["written"] = True
        err.print(f"wrote {made.path}")
    _finish(summary, as_json, "")
    raise typer.Exit(EXIT_WRITTEN if summary["written"] or not yes else EXIT_NOT_WRITTEN)


def _finish(summary: dict[str, Any], as_json: bool, message: str) -> None:
    if message:
        err.print(message)
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")


def register(app: typer.Typer) -> None:
    app.command()(tests)
