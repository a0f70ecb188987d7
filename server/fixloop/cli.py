"""`fixloop`: fix / serve / doctor / memory / history / show / stats / report.

Exit codes of `fixloop fix`: 0 fixed (and applied, or shown with --dry-run), 1 not fixed,
2 usage error, 3 nothing to fix (all tests pass, none collected, or only flaky ones), 4 internal error.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tomllib
from pathlib import Path
from typing import Any, Optional

import typer

from fixloop import __version__
from fixloop.application.config import Settings, load, project_settings, sandbox_choices as backend_choices
from fixloop.core.model import Scope, Status
from fixloop.kit.printable import log_to, printable, shown
from fixloop.kit.screen import console
from fixloop.cli_offer import Offered, install, offer
from fixloop.run_display import RunDisplay, fixed_by, show_end

EXIT_FIXED, EXIT_NOT_FIXED, EXIT_USAGE, EXIT_NOTHING, EXIT_INTERNAL = 0, 1, 2, 3, 4

# No rich tracebacks: they print local variables (project text) raw; `main` reports an error in one line.
app = typer.Typer(add_completion=False, no_args_is_help=True, help="Fix until tests pass.",
                  pretty_exceptions_enable=False)
err = console(stderr=True, soft_wrap=True)


def _settings_for(workspace: Path, overrides: dict[str, Any]) -> tuple[Settings, list[str]]:
    """The user's file, the project's table (tighten-only), then the command line; problems printed."""
    settings, problems = project_settings(workspace)
    settings, more = load({k: v for k, v in overrides.items() if v is not None}, settings, "--")
    for p in problems + more:
        err.print(f"[yellow]config:[/] {shown(p)}")  # "[tool.fixloop]" is text, not markup
    return settings, problems + more


def _parse_set(items: list[str]) -> dict[str, Any]:
    """`--set llm.model=claude-x --set workspace.max_files=50000`: TOML values, bare words as strings."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            err.print(f"[red]error:[/] --set takes KEY=VALUE (e.g. workspace.max_files=50000), got {item!r}")
            raise typer.Exit(EXIT_USAGE)
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        table = out
        *parents, leaf = key.strip().split(".")
        for part in parents:
            table = table.setdefault(part, {})
            if not isinstance(table, dict):
                err.print(f"[red]error:[/] --set {item!r} conflicts with another --set")
                raise typer.Exit(EXIT_USAGE)
        table[leaf] = value
    return out


def _scope(test: Optional[str], file: Optional[str]) -> Scope:
    if test:
        return Scope("node", test)
    if file:
        return Scope("file", file)
    return Scope()


@app.command()
def fix(
    path: Path = typer.Argument(Path("."), help="The project to fix (its root folder)."),
    test: Optional[str] = typer.Option(None, "--test", "-t", help="Only this test node id."),
    file: Optional[str] = typer.Option(None, "--file", "-f", help="Only the tests in this file."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Apply the fix without asking."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the fix, never apply it."),
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as one JSON object on stdout."),
    max_iterations: Optional[int] = typer.Option(None, help="Model rounds at most."),
    max_candidates: Optional[int] = typer.Option(None, help="Candidates evaluated at most."),
    wall_seconds: Optional[float] = typer.Option(None, help="Wall-time limit of the run."),
    baseline_timeout: Optional[float] = typer.Option(
        None, help="Seconds the first run of the tests may take (default: no cap but --wall-seconds)."),
    test_timeout: Optional[float] = typer.Option(
        None, help="Seconds each later pytest run may take (default: 3x the first run, plus a minute)."),
    per_test_timeout: Optional[float] = typer.Option(None, help="Seconds one test may take."),
    python: Optional[str] = typer.Option(None, help="The project's Python interpreter."),
    sandbox: Optional[str] = typer.Option(None, help=" | ".join(backend_choices())),
    offline: bool = typer.Option(False, "--offline", help="Never call a model."),
    memory: Optional[str] = typer.Option(None, "--memory", envvar="FIXLOOP_MEMORY", help="Memory store path or URI."),
    no_memory: bool = typer.Option(False, "--no-memory", help="Run without the learning memory."),
    allow_test_edits: bool = typer.Option(False, "--allow-test-edits", help="Let candidates edit test files."),
    set_: list[str] = typer.Option([], "--set", metavar="KEY=VALUE",
                                   help="Any setting, e.g. --set workspace.max_files=50000 (repeatable)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, help="Seed of the run's random choices (default: from the run id)."),
    goal: Optional[str] = typer.Option(None, "--goal", "-g", help="What is wrong, in words: fixloop writes a failing test first."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr: only warnings and the end."),
    allow_install: bool = typer.Option(False, "--allow-install",
                                       help="Install a missing package the tests need, then run again (--yes never does)."),
    check: list[str] = typer.Option([], "--check", metavar="CHECKER",
                                    help="Fix this checker's findings too (ruff, mypy or pyright; repeatable): from the project's own "
                                         "environment, in the sandbox; tests keep passing."),
    audit: bool = typer.Option(False, "--audit", help="A security pass on the fix before it is offered (rules, bandit "
                                                      "and the model's audit); a high finding stops --yes."),
) -> None:
    """Run the repair loop on PATH and offer the fix."""
    workspace = _checked_workspace(path, yes, dry_run, goal is not None and bool(test or file))
    overrides: dict[str, Any] = {
        **_parse_set(set_),
        "max_iterations": max_iterations, "max_candidates": max_candidates, "wall_seconds": wall_seconds,
        "test_timeout": test_timeout, "per_test_timeout": per_test_timeout, "baseline_timeout": baseline_timeout,
        "python": os.path.abspath(os.path.expanduser(python)) if python and "/" in python else python,
        "offline": offline or None, "allow_test_edits": allow_test_edits or None,
        "audit": {"enabled": True} if audit else None, "checks": list(check) or None,
    }
    settings, problems = _run_settings(workspace, _with_places(overrides, sandbox, memory, no_memory))
    from fixloop.application.run import RunRequest

    request = RunRequest(workspace, settings, _scope(test, file), notes=tuple(problems), seed=seed)
    session = _session(request, goal, yes, as_json)
    outcome = _run(session, quiet)
    installed = install(err, session, allow_install, yes, as_json) if goal is None else None
    if installed is not None and installed["ok"]:  # the package is there now: the same run again
        session = _session(request, None, yes, as_json)
        outcome = _run(session, quiet)
    result = session.summary
    if goal is not None and not as_json:
        from fixloop.application.goal.terminal import show_goal

        show_goal(result, err)
    if goal is not None and result.get("goal_problem") == "usage":
        if not as_json:
            err.print(f"[red]error:[/] {shown(outcome.message, multiline=True)}")
        else:
            sys.stdout.write(json.dumps(result) + "\n")
        raise typer.Exit(EXIT_USAGE)
    offered = Offered(installed=installed)
    if outcome.status is Status.FIXED and outcome.patch is not None:
        offered = offer(err, session, workspace, outcome, result, yes, dry_run, as_json, installed)
        if not as_json:
            err.print(fixed_by(result.get("source") or "", offered.saved))
    elif not as_json:
        colour = "yellow" if outcome.status in (Status.NOTHING_TO_FIX, Status.FLAKY) else "red"
        err.print(f"[{colour}]{outcome.status.value}:[/] {shown(outcome.message, multiline=True)}")
        show_end(err, result)
    if not as_json:
        err.print(f"{result['candidates_evaluated']} candidates, {result['test_runs']} test runs, "
                  f"{result['wall_seconds']} s; run log: {shown(result['run_dir'])}")
    else:
        sys.stdout.write(json.dumps(offered.summary(result)) + "\n")
    raise typer.Exit(exit_code(outcome.status, bool(offered.conflicts or offered.blocked), session.setup_error))


def _session(request: Any, goal: str | None, yes: bool, as_json: bool) -> Any:
    """A goal run with `--goal` (words -> a verified failing test -> the same fix run), else a fix run."""
    if goal is not None:
        from fixloop.application.goal.terminal import goal_session

        return goal_session(request, goal, yes, as_json, err)
    from fixloop.application.session import FixSession

    return FixSession(request)


def _with_places(overrides: dict[str, Any], sandbox: str | None, memory: str | None, no_memory: bool) -> dict[str, Any]:
    """The flags that name a sandbox backend or a memory, merged into the `--set` tables of the same name."""
    if sandbox is not None:
        overrides["sandbox"] = {**overrides.get("sandbox", {}), "backend": sandbox}
    if memory is not None or no_memory:
        overrides["memory"] = {**overrides.get("memory", {}), **({"uri": memory} if memory else {}),
                               **({"enabled": False} if no_memory else {})}
    return overrides


def _checked_workspace(path: Path, yes: bool, dry_run: bool, goal_with_tests: bool) -> Path:
    """The project folder, resolved, once the flags agree with each other (else a usage error)."""
    workspace = path.expanduser()
    problem = (f"{shown(workspace)} does not exist" if not workspace.exists() else
               f"{shown(workspace)} is not a directory" if not workspace.is_dir() else
               "--yes and --dry-run contradict each other" if yes and dry_run else
               "--goal writes its own test: leave out --test and --file" if goal_with_tests else "")
    if problem:
        err.print(f"[red]error:[/] {problem}")
        raise typer.Exit(EXIT_USAGE)
    return workspace.resolve()


def _run_settings(workspace: Path, overrides: dict[str, Any]) -> tuple[Settings, list[str]]:
    """The run's settings, after refusing a workspace fixloop must not copy; warns when nothing isolates."""
    from fixloop.application.workspace_guard import refusal

    settings, problems = _settings_for(workspace, overrides)
    refused = refusal(workspace, settings.workspace)
    if refused:
        err.print(f"[red]error:[/] {shown(refused)}")
        raise typer.Exit(EXIT_USAGE)
    if settings.sandbox.backend == "none":
        err.print("[yellow]warning:[/] sandbox.backend = \"none\": tests and candidates run UNSANDBOXED")
    return settings, problems


def _run(session: Any, quiet: bool) -> Any:
    try:
        with RunDisplay(err, quiet=quiet) as display:
            return session.run(display)
    except KeyboardInterrupt:
        session.cancel()
        err.print("cancelled")
        raise typer.Exit(EXIT_NOT_FIXED)


def exit_code(status: Status, conflicts: bool, setup_error: str) -> int:
    """The exit status of `fixloop fix`: from the outcome's status and why a run could not start, never from
    the wording of a message."""
    if status is Status.FIXED:
        return EXIT_NOT_FIXED if conflicts else EXIT_FIXED
    if status in (Status.NOTHING_TO_FIX, Status.FLAKY):
        return EXIT_NOTHING
    return EXIT_INTERNAL if status is Status.ERROR and setup_error == "internal" else EXIT_NOT_FIXED


@app.command()
def serve(
    stdio: bool = typer.Option(True, "--stdio", help="Speak LSP on stdin/stdout (the default)."),
    tcp: Optional[str] = typer.Option(None, "--tcp", help="HOST:PORT, for debugging."),
) -> None:
    """Start the language server."""
    from fixloop.lsp.server import main as server_main

    server_main(["--tcp", tcp] if tcp else ["--stdio"])


@app.command()
def doctor(
    path: Path = typer.Argument(Path("."), help="The project whose settings to check."),
    sandbox: Optional[str] = typer.Option(None, help=" | ".join(backend_choices())),
    memory: Optional[str] = typer.Option(None, "--memory", envvar="FIXLOOP_MEMORY", help="Memory store path or URI."),
) -> None:
    """Show which sandbox backends work here, which one a run would use, and what each guarantees."""
    from fixloop.application.wiring import doctor as report

    overrides: dict[str, Any] = {"sandbox": {"backend": sandbox}} if sandbox else {}
    if memory:
        overrides["memory"] = {"uri": memory}
    settings, _ = _settings_for(path.expanduser(), overrides)
    text, ok = report(settings)
    sys.stdout.write(printable(text, multiline=True) + "\n")
    raise typer.Exit(0 if ok else 1)


@app.command()
def version() -> None:
    """Print the version."""
    sys.stdout.write(f"fixloop {__version__}\n")


def _memory_app() -> typer.Typer:
    from fixloop.application.memory_commands import memory_app
    from fixloop.application.template_commands import templates_app  # `fixloop memory templates`: the front end composes the two

    memory_app.add_typer(templates_app, name="templates")
    return memory_app


app.add_typer(_memory_app(), name="memory")


def _history_commands() -> None:
    from fixloop.application.history.cli import register  # history, show, stats, report

    register(app)


_history_commands()


def _trust_app() -> typer.Typer:
    from fixloop.application.trust_commands import trust_app

    return trust_app


app.add_typer(_trust_app(), name="trust")


def _tests_command() -> None:
    from fixloop.application.testgen.cli import register  # tests PATH::function

    register(app)


_tests_command()


def main() -> None:
    log_to(sys.stderr, logging.WARNING, "%(message)s")  # as Python's last-resort handler, escaped
    try:
        app()
    except SystemExit:
        raise
    except Exception as e:  # the last line of defence: a clear message and the documented code
        err.print(f"[red]internal error:[/] {type(e).__name__}: {shown(e)}")
        sys.exit(EXIT_INTERNAL)


if __name__ == "__main__":
    main()


