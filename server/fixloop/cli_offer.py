"""What `fixloop fix` does with a run's outcome on the terminal: the fix shown, asked about, recorded and
applied; a missing package offered for install."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from fixloop.kit.printable import printable, shown
from fixloop.kit.screen import print_diff
from fixloop.run_display import show_audit


@dataclass(frozen=True)
class Offered:
    """What became of a run's fix on the terminal, added to its summary for `--json`."""

    applied: bool = False
    blocked: str = ""  # "audit": a high finding stopped --yes (not a decision of the user's)
    conflicts: tuple[str, ...] = ()  # why it could not be applied
    said: tuple[str, ...] = ()  # what the user's on_apply hook said
    saved: dict[str, Any] | None = None  # what the fix saved against the generic search (history/sources.py)
    fixed: bool = False  # a fix was offered (only then is `saved` told)
    installed: dict[str, Any] | None = None  # the package installed (or declined) before the run

    def summary(self, result: dict[str, Any]) -> dict[str, Any]:
        hooks = [*result.get("hooks", []), *self.said]
        return {**result, "applied": self.applied, **({"installed": self.installed} if self.installed else {}),
                **({"hooks": hooks} if hooks else {}), **({"conflicts": list(self.conflicts)} if self.conflicts else {}),
                **({"blocked": self.blocked} if self.blocked else {}), **({"saved": self.saved} if self.fixed else {})}


def saved(workspace: Path, run_id: str) -> dict[str, Any] | None:
    """What this fix saved against the generic search's medians for its error class in this project's history
    (history/sources.py); None when the search fixed it, or never fixed a bug of that class here."""
    from fixloop.application.history.sources import baselines, saving
    from fixloop.application.history.store import load

    records = load([workspace]).records  # cached: only this run's folder is read afresh
    rec = next((r for r in records if r["run_id"] == run_id), None)
    if rec is None or rec["status"] != "fixed":
        return None
    return saving(rec, baselines(r for r in records if r["run_id"] != run_id))


def install(err: Console, session: Any, allow: bool, yes: bool, as_json: bool) -> dict[str, Any] | None:
    """When all that fails is a missing package: install it if the user allows it (--allow-install, or a yes
    at the prompt; --yes alone never does). None when nothing was offered or asked."""
    from fixloop.application.runlog import record_decision

    offer = session.summary.get("install")
    if not offer:
        return None
    asked = not allow and not yes and not as_json and sys.stdin.isatty()
    if not allow and not asked:
        if yes and not as_json:
            err.print("--yes never installs a package: add --allow-install to let fixloop install it")
        return None
    if asked and not typer.confirm(f"Install {printable(offer['requirement'])} into {printable(offer['python'])} "
                                   "(wheels from your index, installed in the sandbox)?", default=False):
        record_decision(session.workspace, session.run_id, {"decision": "install", "ok": False, "reason": "declined",
                                                            "requirement": offer["requirement"]})
        err.print(f"not installed; to install it yourself: {shown(offer['command'])}")
        return {"ok": False, "said": "declined"}
    done = session.install()
    if not as_json:
        err.print(f"[{'green' if done.ok else 'red'}]{shown(done.said)}[/]")
    return {"ok": done.ok, "said": done.said}


def offer(err: Console, session: Any, workspace: Path, outcome: Any, summary: dict[str, Any], yes: bool, dry_run: bool,
           as_json: bool, installed: dict[str, Any] | None) -> Offered:
    """Show the fix, ask (or not, as the flags say), record the decision and apply it: what became of it."""
    from fixloop.application.runlog import record_decision

    offered = Offered(fixed=True, saved=saved(workspace, outcome.run_id), installed=installed)
    if not as_json:
        err.print(f"[green]{shown(outcome.message)}[/]")
        print_diff(summary["diff"], err)
        review = summary.get("review")
        if review:
            err.print(f"review ({shown(review['by'])}): {shown(review['verdict'])}, {shown(review['reason'], multiline=True)}")
        for said in summary.get("hooks", []):
            err.print(shown(said))
        show_audit(err, summary.get("audit"))
    asked = not yes and not dry_run and not as_json and sys.stdin.isatty()
    if yes and (summary.get("audit") or {}).get("blocking"):  # a high finding is for a person to weigh
        err.print("[red]not applied:[/] the audit found a high-severity issue; read the diff in "
                  f"{shown(summary['run_dir'])}/fix.diff and apply it yourself, or run again without --yes")
        return replace(offered, blocked="audit")  # not a decision of yours: nothing is recorded as one
    apply = yes or (asked and typer.confirm("Apply?", default=False))
    if yes or asked:  # the user's decision, for `fixloop history` and the KPIs
        record_decision(workspace, outcome.run_id, {"run_id": outcome.run_id, "hunk": "all", "accepted": apply,
                                                    "source": "cli"})
    if not apply:
        if not as_json:
            err.print(f"not applied; the diff is in {shown(summary['run_dir'])}/fix.diff")
        return offered
    result = session.apply()
    if not result.ok:
        err.print("[red]not applied:[/] " + "; ".join(shown(c) for c in result.conflicts))
        err.print(f"the fix is kept in {shown(summary['run_dir'])}/fix.diff")
        return replace(offered, conflicts=tuple(result.conflicts))
    err.print(f"applied to {', '.join(shown(p) for p in result.written)}")
    for said in result.said:
        err.print(shown(said))
    return replace(offered, applied=True, said=tuple(result.said))
