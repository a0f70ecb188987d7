"""`fixloop trust list | revoke`: the grants to apply fixes of a kind without asking (core/trust.py), per
project. The ledger is the user's own file; a project folder is only the key its grants are kept under."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

import typer
from rich.markup import escape

from fixloop.application.trust_ledger import LedgerFile
from fixloop.core import trust
from fixloop.kit.screen import console

trust_app = typer.Typer(add_completion=False, no_args_is_help=True,
                        help="Grants to apply fixes of a kind without asking (`trust.after` in your settings).")
out = console(soft_wrap=True)
err = console(stderr=True, soft_wrap=True)
ProjectOption = typer.Option(None, "--project", "-p", help="Only this project's grants (its folder).")


def _project(path: Path | None) -> str | None:
    return str(path.expanduser().resolve()) if path is not None else None


def _warn(ledger: LedgerFile) -> None:
    if ledger.problem:
        err.print(f"[yellow]warning:[/] {escape(ledger.problem)}")


@trust_app.command("list")
def list_(project: Path = ProjectOption,
          as_json: bool = typer.Option(False, "--json", help="JSON instead of a table.")) -> None:
    """Every grant in force: the project, the kind of fix, since when, how many accepted before it."""
    ledger = LedgerFile()
    grants = ledger.read().grants(_project(project))
    _warn(ledger)
    if as_json:
        sys.stdout.write(json.dumps([{"project": p, "id": k, "since": e.granted, "accepted": len(e.streak)}
                                     for p, k, e in grants]) + "\n")
        return
    if not grants:
        out.print("no grants: every fix is offered for review (a grant is asked for in the editor once "
                  "`trust.after` fixes of a kind were accepted in a row)")
        return
    for p, k, e in grants:
        since = datetime.datetime.fromtimestamp(e.granted).isoformat(sep=" ", timespec="minutes")
        out.print(f"{escape(k)}  in {escape(p)}  since {since}  ({len(e.streak)} accepted before)")


@trust_app.command("revoke")
def revoke(kind: str = typer.Argument(..., help="The kind as listed, or `all`."),
           project: Path = ProjectOption) -> None:
    """End a grant (or every grant, `all`): fixes of that kind are offered for review again."""
    where = _project(project)
    ledger = LedgerFile()

    def step(state: trust.Ledger) -> list[tuple[str, str]]:
        ended = [(p, k) for p, k, _ in state.grants(where) if kind in (k, "all")]
        for p, k in ended:
            state.put(p, k, trust.revoked(state.get(p, k), "you revoked it"))
        return ended

    ended = ledger.change(step)
    _warn(ledger)
    if not ended and kind != "all":
        err.print(f"[red]error:[/] no grant {escape(kind)!r}" + (f" in {escape(where)}" if where else "")
                  + " (`fixloop trust list` shows them)")
        raise typer.Exit(1)
    for p, k in ended:
        out.print(f"revoked {escape(k)} in {escape(p)}")
    if not ended:
        out.print("no grants to revoke")
