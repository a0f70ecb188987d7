"""`fixloop memory templates list | show | approve | reject | export | import`: the mined templates of the
memory, for a person to approve or reject."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from fixloop.kit.printable import printable
from fixloop.kit.screen import console

if TYPE_CHECKING:
    from fixloop.adapters.memory.store import MemoryStore
    from fixloop.adapters.mined.model import MinedTemplate

templates_app = typer.Typer(add_completion=False, no_args_is_help=True,
                            help="Mined templates: recurring fixes, generalised, for you to approve or reject.")
err = console(stderr=True, soft_wrap=True)  # a message is one line, whatever the width
MemoryOption = typer.Option(None, "--memory", envvar="FIXLOOP_MEMORY", help="Memory store path or URI.")
SupportOption = typer.Option(2, "--min-support", min=1, help="Distinct places a fix must have made an edit.")


def _open(uri: Optional[str]) -> MemoryStore:
    from dataclasses import replace

    from fixloop.application.config import project_settings
    from fixloop.adapters.memory.factory import make_store
    from fixloop.adapters.memory.store import StoreUnavailable

    settings, problems = project_settings(Path.cwd())
    for p in problems:
        err.print(f"[yellow]config:[/] {p}")
    store = make_store(replace(settings.memory, uri=uri) if uri else settings.memory)
    try:
        store.open()
    except StoreUnavailable as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(1)
    if store.problem:
        err.print(f"[yellow]warning:[/] {store.problem}")
    return store


def _tried(template: MinedTemplate) -> str:
    rec = template.record
    return f"{rec.successes}/{rec.tries}" if rec.tries else "-"


@templates_app.command("list")
def list_(memory: Optional[str] = MemoryOption, min_support: int = SupportOption,
          as_json: bool = typer.Option(False, "--json", help="JSON instead of a table.")) -> None:
    """Every mined template: approved (first, or demoted behind the generic operators), proposed, rejected."""
    from fixloop.adapters.mined.desk import summary
    from fixloop.adapters.mined.registry import all_templates

    templates = all_templates(_open(memory), min_support)
    if as_json:
        sys.stdout.write(json.dumps([summary(t) for t in templates], indent=2) + "\n")
        return
    if not templates:
        err.print("no mined templates yet: a template needs verified fixes that made the same edit at "
                  f"{min_support} different places")
        return
    from fixloop.adapters.mined.desk import status_label

    lines = [f"{'ID':<12}  {'STATUS':<17}  {'SUPPORT':>7}  {'FIXED':>5}  NAME"]
    for t in templates:
        lines.append(f"{t.id:<12}  {status_label(t):<17}  {t.support:>7}  {_tried(t):>5}  {t.name}")
        lines.append(f"{'':<12}  {t.before_shape}  ->  {t.after_shape}")
    sys.stdout.write(printable("\n".join(lines), multiline=True) + "\n")  # a teammate's bucket's rows


def _one(store: MemoryStore, template_id: str, min_support: int) -> MinedTemplate:
    from fixloop.adapters.mined.registry import all_templates, find

    template = find(all_templates(store, min_support), template_id)
    if template is None:
        err.print(f"[red]error:[/] no mined template {template_id!r} (or the prefix names several); "
                  "`fixloop memory templates list` shows them")
        raise typer.Exit(1)
    return template


@templates_app.command()
def show(template_id: str = typer.Argument(..., metavar="ID"), memory: Optional[str] = MemoryOption,
         min_support: int = SupportOption) -> None:
    """One template: its shapes, where it was mined from (before/after), and how it did when tried."""
    from fixloop.adapters.mined.desk import status_label

    template = _one(_open(memory), template_id, min_support)
    out = [f"mined template {template.id}: {template.name}",
           f"  status   {status_label(template)} ({template.origin}; the engine tries it {template.place})",
           f"  before   {template.before_shape}", f"  after    {template.after_shape}",
           "  applies  " + (f"where a statement holds it (a {template.within}; `_1` is any expression)"
                            if template.form == "edit" else "to whole statements of this shape (an older template)"),
           f"  support  {template.support} place(s) in {template.projects} project(s), "
           f"{template.accepted} accepted in review",
           f"  tried    {_tried(template)} runs fixed"
           + (f" (last runs: {', '.join('fixed' if w else 'missed' for w in template.record.recent)})"
              if template.record.recent else "")]
    for e in template.examples:
        out += [f"  example  {e.path} ({e.project})", f"    - {e.before}", f"    + {e.after}"]
    sys.stdout.write(printable("\n".join(out), multiline=True) + "\n")  # examples may come from a teammate


def _decide(template_id: str, verdict: str, memory: Optional[str], min_support: int) -> None:
    from fixloop.adapters.mined.registry import decide

    try:
        template = decide(_open(memory), template_id, verdict, "cli", min_support)
    except ValueError as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(1)
    then = ("the engine tries it before the generic operators" if verdict == "approved"
            else "it will not be proposed again")
    err.print(f"{verdict} mined template {template.id} ({template.name}): {then}")


@templates_app.command()
def approve(template_id: str = typer.Argument(..., metavar="ID"), memory: Optional[str] = MemoryOption,
            min_support: int = SupportOption) -> None:
    """Approve a template (an id or a unique prefix): runs try it first, in every project."""
    _decide(template_id, "approved", memory, min_support)


@templates_app.command()
def reject(template_id: str = typer.Argument(..., metavar="ID"), memory: Optional[str] = MemoryOption,
           min_support: int = SupportOption) -> None:
    """Reject a template: it is never used, and never mined again."""
    _decide(template_id, "rejected", memory, min_support)


@templates_app.command("export")
def export_(file: Path = typer.Argument(..., help="JSON file to write."), memory: Optional[str] = MemoryOption,
            approved_only: bool = typer.Option(False, "--approved", help="Only the approved templates.")) -> None:
    """Write the templates (with their status) to a versioned JSON file."""
    from fixloop.adapters.mined.portable import export_templates

    statuses = ("approved",) if approved_only else ("approved", "proposed", "rejected")
    count = export_templates(_open(memory), file, statuses)
    err.print(f"exported {count} mined template(s) to {file}")


@templates_app.command("import")
def import_(file: Path = typer.Argument(..., help="A file written by `fixloop memory templates export`."),
            memory: Optional[str] = MemoryOption) -> None:
    """Add the file's templates with their status; a decision already made here is kept."""
    from fixloop.adapters.mined.portable import import_templates

    if not file.is_file():
        err.print(f"[red]error:[/] {file} is not a file")
        raise typer.Exit(2)
    try:
        report = import_templates(_open(memory), file)
    except ValueError as e:
        err.print(f"[red]error:[/] {e}; nothing was imported")
        raise typer.Exit(1)
    for line in report.refused:
        err.print(f"[yellow]refused[/] {line}")
    err.print(f"imported {len(report.imported)} mined template(s), kept {len(report.kept)} already decided here, "
              f"refused {len(report.refused)}")
    if report.refused and not report.imported and not report.kept:
        raise typer.Exit(1)
