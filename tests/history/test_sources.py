"""The learning curve by source: `fixloop stats` counts fixes by where they came from (a past fix replayed, a
one-shot analogy, a mined template, the generic search, the model) and what each saved against the generic
search's medians for the same error class."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fixloop.cli import app
from fixloop.application.history.sources import by_source

from .synth import Cand, Spec, write

runner = CliRunner()


def _fixed(run: str, proposer: str, candidates: int, seconds: float, exc: str = "AssertionError") -> Spec:
    cands = [Cand(proposer=proposer, operator="op")] * (candidates - 1) + [
        Cand(proposer=proposer, operator="op", status="plausible")]
    return Spec(run, cands=cands, seconds=seconds, exc=exc)


def _project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    for spec in (
        _fixed("20261101-090000-000001", "mutation", 10, 30.0),  # the search on AssertionError: medians 20, 40 s
        _fixed("20261101-090000-000002", "mutation", 20, 40.0),
        _fixed("20261101-090000-000003", "mutation", 30, 50.0),
        _fixed("20261102-090000-000004", "memory", 1, 4.0),  # a past fix replayed: saves 19 candidates, 36 s
        _fixed("20261102-090000-000005", "memory", 3, 8.0),  # ... and 17, 32 s
        _fixed("20261103-090000-000006", "analogy", 2, 10.0),  # a one-shot analogy (counted by its name)
        _fixed("20261104-090000-000007", "template", 4, 12.0, exc="KeyError"),  # no search fix of KeyError here
        _fixed("20261105-090000-000008", "llm", 25, 60.0),  # the model: cost more than the search's median
        Spec("20261106-090000-000009", status="gave_up", cands=[Cand(proposer="mutation")]),
    ):
        write(p, spec)
    return p


def test_stats_count_fixes_by_source_and_what_each_saved(tmp_path: Path) -> None:
    result = runner.invoke(app, ["stats", str(_project(tmp_path)), "--json"])
    assert result.exit_code == 0, result.output
    s = json.loads(result.stdout)["sources"]
    assert {k: v["fixes"] for k, v in s.items()} == {"replay": 2, "analogy": 1, "template": 1, "search": 3, "checker": 0,
                                                     "model": 1, "other": 0}
    assert s["search"]["median_candidates"] == 20 and s["search"]["median_seconds"] == 40 and s["search"]["compared"] == 0
    replay = s["replay"]
    assert replay["compared"] == 2 and replay["candidates_saved"] == 36 and replay["seconds_saved"] == 68
    assert replay["median_candidates_saved"] == 18 and replay["median_seconds_saved"] == 34
    assert s["analogy"]["candidates_saved"] == 18 and s["analogy"]["seconds_saved"] == 30
    assert s["template"]["compared"] == 0 and s["template"]["candidates_saved"] is None  # nothing to compare with
    assert s["model"]["candidates_saved"] == -5 and s["model"]["seconds_saved"] == -20  # a loss is shown as one


def test_stats_show_the_sources_in_the_terminal(tmp_path: Path) -> None:
    result = runner.invoke(app, ["stats", str(_project(tmp_path))], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "fixes by source" in out and "replay 2, analogy 1, template 1, search 3, model 1" in out
    assert "saved 18.0 candidates and 34.0 s per fix (median) vs the search on the same error class, 2 of 2" in out
    assert "no search fix of the same error class to compare with" in out


def test_a_history_without_fixes_counts_none_and_a_fix_without_a_proposer_counts_as_other() -> None:
    assert all(row["fixes"] == 0 and row["median_candidates"] is None for row in by_source([]).values())
    rebuilt = {"status": "fixed", "proposer": "", "candidates": 2, "seconds": 1.0, "error_class": "unknown"}
    assert by_source([rebuilt])["other"]["fixes"] == 1


def test_the_html_report_has_the_sources(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["report", str(_project(tmp_path)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert "Fixes by source" in html and "<td>replay</td><td class=\"n\">2</td>" in html
