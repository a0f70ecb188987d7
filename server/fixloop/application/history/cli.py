"""`fixloop history`, `fixloop show`, `fixloop stats`, `fixloop report`: the run history in the terminal.

Reading is for the user to see: a run folder that cannot be read is skipped and counted (stderr), never a
traceback; text from the project's run folders goes to the terminal escaped (no rich markup from a project).
"""

from __future__ import annotations

import datetime
import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from fixloop.kit.printable import diff_shown, printable, shown
from fixloop.kit.screen import console
from fixloop.application.history import files, kpis, record
from fixloop.application.history.text import headline, num, pct, source_rows
from fixloop.application.history.store import History, cached_kpis, known_projects, load, store_kpis

err = console(stderr=True, soft_wrap=True)
EXIT_USAGE = 2

PathArg = typer.Argument(Path("."), help="The project (its root folder).")
AllOption = typer.Option(False, "--all-projects", help="Every project fixloop ran in (the list in your data dir).")
JsonOption = typer.Option(False, "--json", help="Print JSON on stdout.")
SinceOption = typer.Option(None, "--since", help="Only runs started on or after DATE (YYYY-MM-DD or ISO time).")


def parse_since(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return datetime.datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        err.print(f"[red]error:[/] --since takes a date like 2026-11-01 or 2026-11-01T09:30, got {shown(text)!r}")
        raise typer.Exit(EXIT_USAGE)


def projects_for(path: Path, all_projects: bool) -> list[Path]:
    if all_projects:
        return [Path(p) for p in known_projects()] + ([path.resolve()] if path != Path(".") else [])
    workspace = path.expanduser()
    if not workspace.is_dir():
        err.print(f"[red]error:[/] {shown(str(workspace))} is not a directory")
        raise typer.Exit(EXIT_USAGE)
    return [workspace.resolve()]


def gather(path: Path, all_projects: bool, since: str | None = None) -> History:
    history = load(projects_for(path, all_projects), parse_since(since))
    tell(history)
    return history


def tell(history: History) -> None:
    """What was skipped and why, on stderr: a count per reason and the first few details."""
    for why, n in history.skipped.items():
        err.print(f"[yellow]skipped {n} run folder(s):[/] {shown(why)}")
    for note in history.notes[:10]:
        err.print(f"[yellow]note:[/] {shown(note)}")
    if len(history.notes) > 10:
        err.print(f"[yellow]note:[/] {len(history.notes) - 10} more problem(s) not shown")


def when(ts: float) -> str:
    return datetime.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "?"


def history_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = ("run_id", "project", "started", "target", "status", "proposer", "operator", "candidates", "test_runs",
            "llm_calls", "tokens", "cost_usd", "seconds", "decision", "error_class", "schema")
    return [{k: r.get(k) for k in keys} for r in records]


def history(path: Path = PathArg, all_projects: bool = AllOption, as_json: bool = JsonOption,
            since: Optional[str] = SinceOption,
            limit: int = typer.Option(50, "--limit", "-n", min=0, help="Show the last N runs (0: all).")) -> None:
    """List past runs: date, project, target, status, what fixed it, cost, and your decision."""
    h = gather(path, all_projects, since)
    rows = history_rows(h.records[-limit:] if limit else h.records)
    if as_json:
        sys.stdout.write(json.dumps({"runs": rows, "skipped": h.skipped, "total": len(h.records)}) + "\n")
        return
    if not rows:
        err.print("no runs yet: `fixloop fix` (or the editor's Fix until tests pass) leaves one in .fixloop/runs"
                  + ("" if all_projects else f" of {shown(h.projects[0] if h.projects else str(path))}"))
        return
    table = Table(title=f"fixloop runs ({len(rows)} of {len(h.records)})", show_lines=False)
    for col in ("date", "project", "target", "status", "fixed by", "cand.", "tests", "calls", "tokens", "$",
                "s", "decision", "run id"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(when(r["started"]), shown(Path(r["project"]).name), shown(r["target"] or "all"),
                      shown(r["status"]), shown(f"{r['proposer']}/{r['operator']}" if r["proposer"] else ""),
                      str(r["candidates"]), str(r["test_runs"]), str(r["llm_calls"]), str(r["tokens"]),
                      f"{r['cost_usd']:.4f}", f"{r['seconds']:.1f}", shown(r["decision"] or ""), shown(r["run_id"]))
    console().print(table)


def find_run(run_id: str, path: Path) -> tuple[Path, dict[str, Any], bytes] | None:
    """The run's project, record and fix.diff: in PATH first, then in every known project."""
    if not record_id_ok(run_id):
        return None
    for project in [path.resolve(), *map(Path, known_projects())]:
        runs_fd = files.open_runs_dir(project)
        if runs_fd is None:
            continue
        try:
            if not files.is_run_dir(runs_fd, run_id):
                continue
            sig = files.signature(runs_fd, run_id)
            raw = files.read_run(runs_fd, run_id, (*files.RUN_FILES, "fix.diff"))
        finally:
            os.close(runs_fd)
        rec = record.build(run_id, str(project), raw.data, raw.problems, sig[4] / 1e9 if sig[4] > 0 else 0.0)
        return project, rec, raw.data.get("fix.diff", b"")
    return None


def record_id_ok(run_id: str) -> bool:
    from fixloop.kit.rundir import valid_run_id

    return valid_run_id(run_id) and not run_id.startswith(".")


def show(run_id: str = typer.Argument(..., help="A run id (see `fixloop history`)."),
         path: Path = typer.Argument(Path("."), help="The project to look in first."),
         as_json: bool = JsonOption) -> None:
    """One run: its summary, its diff and the timeline of its phases."""
    found = find_run(run_id, path)
    if found is None:
        err.print(f"[red]error:[/] no run {shown(run_id)!r} in {shown(str(path.resolve()))} or any project "
                  "fixloop ran in (`fixloop history --all-projects` lists them)")
        raise typer.Exit(1)
    project, rec, diff = found
    diff_text = diff.decode("utf-8", "replace")
    if as_json:
        sys.stdout.write(json.dumps({**rec, "diff": diff_text}) + "\n")
        return
    out = console(soft_wrap=True)
    out.print(f"[bold]run {shown(run_id)}[/] in {shown(str(project))}, {when(rec['started'])}")
    out.print(f"status: {shown(rec['status'])}: {shown(rec['message'])}")
    if rec["proposer"]:
        out.print(f"fixed by: {shown(rec['proposer'])}/{shown(rec['operator'])}"
                  + (" (replayed from memory)" if rec.get("replayed") else ""))
    out.print(f"target: {shown(rec['target'] or 'all tests')}; error class: {shown(rec['error_class'])}")
    out.print(f"{rec['candidates']} candidates, {rec['iterations']} iterations, {rec['test_runs']} test runs, "
              f"{rec['llm_calls']} model calls, {rec['tokens']} tokens, ${rec['cost_usd']:.4f}, {rec['seconds']:.1f} s, "
              f"CPU {rec.get('cpu_seconds', 0.0):.1f} s, peak {rec.get('peak_mb', 0.0):.0f} MB")
    if rec.get("unsafe_rules"):
        out.print("refused by the safety check: " + shown(", ".join(f"{k} x{v}" for k, v in rec["unsafe_rules"].items())))
    if rec["decision"]:
        out.print(f"your decision: {shown(rec['decision'])} ({rec['accepted_hunks']} hunk(s) accepted, "
                  f"{rec['rejected_hunks']} rejected)")
    if rec["phases"]:
        out.print("[bold]timeline[/]")
        for offset, kind, text in rec["phases"]:
            out.print(f"  {offset:8.2f} s  {shown(kind):<10} {shown(text)}")
    for problem in rec["problems"]:
        err.print(f"[yellow]note:[/] {shown(problem)}")
    if diff_text:
        out.print("[bold]diff[/]")
        text, note = diff_shown(diff_text)
        out.print(escape(text))
        if note:
            err.print(f"[yellow]note:[/] {escape(note)}")


StrategiesOption = typer.Option(False, "--strategies", help="Compare the run strategies (runs, fix rate, candidates, "
                                "time and $ per fix, with 95% intervals); with --json, only that comparison.")


def stats(path: Path = PathArg, all_projects: bool = AllOption, since: Optional[str] = SinceOption,
          as_json: bool = JsonOption, strategies: bool = StrategiesOption) -> None:
    """KPIs: fix rate, first-try rate, candidates and time per fix, cost, safety refusals, your reviews."""
    projects, when_from = projects_for(path, all_projects), parse_since(since)
    digest, k = cached_kpis(projects, when_from)  # an unchanged history: its runs are only stat'ed
    if k is None:
        h = load(projects, when_from)
        tell(h)
        k = kpis.compute(h.records)
        k["skipped"], k["notes"] = h.skipped, h.notes[:50]
        store_kpis(projects, when_from, digest, k)
    else:
        tell(History(skipped=k.get("skipped", {}), notes=k.get("notes", [])))
    k["memory"]["store_bytes"] = memory_bytes()
    if as_json:
        sys.stdout.write(json.dumps({"strategies": k["strategies"]} if strategies else k) + "\n")
        return
    if not k["runs"]:
        err.print("no runs yet: the KPIs need at least one `fixloop fix` run")
        return
    console().print(render_strategies(k["strategies"]) if strategies else render_stats(k))


def render_stats(k: dict[str, Any]) -> Table:
    table = Table(title="fixloop KPIs", show_header=False)
    table.add_column("kpi")
    table.add_column("value", overflow="fold")
    for name, value in headline(k):
        table.add_row(name, value)
    s, rv, m = k["safety"], k["review"], k["memory"]
    table.add_row("refused by the safety check", shown(", ".join(f"{c} x{n}" for c, n in s["refusals_by_rule"].items())
                                                     or "none") + f"; {s['guard_refusals']} by the integrity guard")
    table.add_row("your review", f"{rv['accepted_hunks']} hunks accepted, {rv['rejected_hunks']} rejected")
    table.add_row("memory", f"{m['replayed_fixes']} fixes replayed (median {num(m['median_seconds_replayed'])} s vs "
                  f"{num(m['median_seconds_first_time'])} s first time); lookup p50 "
                  f"{num(_ms(m['lookup_p50_seconds']), '.1f')} ms, p95 {num(_ms(m['lookup_p95_seconds']), '.1f')} ms; "
                  f"store {num(_mb(m['store_bytes']), '.1f')} MB")
    table.add_row("model calls", f"{k['model']['calls']} (mean latency {num(k['model']['mean_latency_seconds'], '.2f')} s)")
    for name, value in source_rows(k["sources"]):
        table.add_row(name, value)
    for cls, row in list(k["error_classes"].items())[:8]:
        fixers = ", ".join(f"{f} x{n}" for f, n in sorted(row["fixers"].items(), key=lambda kv: -kv[1])[:3])
        table.add_row(f"  {shown(cls)}", f"{row['fixed']}/{row['runs']} fixed" + (f" by {shown(fixers)}" if fixers else ""))
    table.add_row("runs with unreadable parts", str(k["runs_with_problems"]))
    return table


def render_strategies(rows: dict[str, dict[str, Any]]) -> Table:
    table = Table(title="fixloop strategies compared (95% intervals)")
    for col in ("strategy", "runs", "fix rate", "candidates / fix", "s / fix", "$ / fix"):
        table.add_column(col, overflow="fold")

    def span(value: float | None, interval: list[float] | None, fmt: str, scale: float = 1.0) -> str:
        if value is None:
            return "-"
        text = format(value * scale, fmt)
        return text + (f" [{interval[0] * scale:{fmt}}, {interval[1] * scale:{fmt}}]" if interval else "")

    for name, r in rows.items():
        rate = span(r["fix_rate"], r["fix_rate_interval"], ".0f", 100.0)
        table.add_row(shown(name), f"{r['runs']} ({r['attempted']} tried)",
                      f"{rate}%" if r["fix_rate"] is not None else "-",
                      span(r["candidates_per_fix"], r["candidates_per_fix_interval"], ".1f"),
                      span(r["seconds_per_fix"], r["seconds_per_fix_interval"], ".1f"),
                      span(r["cost_per_fix_usd"], r["cost_per_fix_usd_interval"], ".4f"))
    return table


def _ms(x: float | None) -> float | None:
    return None if x is None else x * 1000


def _mb(x: int | None) -> float | None:
    return None if x is None else x / 1e6


def memory_bytes() -> int | None:
    """The local memory store's size on disk (a user path, trusted), without opening LanceDB (slow to import)."""
    from fixloop.application.config import load as load_settings

    settings, _ = load_settings({})
    uri = settings.memory.uri or str(Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
                                     / "fixloop" / "memory")
    if "://" in uri and not uri.startswith("file://"):
        return None
    root = Path(uri.removeprefix("file://")).expanduser()
    if not root.is_dir():
        return None
    total = 0
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            try:
                total += os.stat(os.path.join(dirpath, name), follow_symlinks=False).st_size
            except OSError:
                pass
    return total


def report(path: Path = PathArg, all_projects: bool = AllOption, since: Optional[str] = SinceOption,
           out: Path = typer.Option(Path("report.html"), "--out", "-o", help="The HTML file to write.")) -> None:
    """Write one self-contained HTML report (KPIs and plots, no network) and print its path."""
    if (path / "summary.json").is_file() and path.parent.name == "runs":
        # `fixloop report RUN_DIR` printed a run's summary before the report existed: still does.
        err.print("note: `fixloop show RUN_ID` shows one run; `fixloop report` writes the HTML report")
        sys.stdout.write(printable((path / "summary.json").read_text(encoding="utf-8", errors="replace"), True))
        return
    from fixloop.application.history.html import write_report

    h = gather(path, all_projects, since)
    k = kpis.compute(h.records, memory_bytes())
    k["skipped"] = h.skipped
    target, note = write_report(out, h, k)
    if note:
        err.print(f"[yellow]note:[/] {shown(note)}")
    sys.stdout.write(f"{target}\n")


def register(app: typer.Typer) -> None:
    app.command()(history)
    app.command()(show)
    app.command()(stats)
    app.command()(report)
