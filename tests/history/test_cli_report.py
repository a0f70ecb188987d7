"""`fixloop history / show / stats / report` on synthetic runs: what they print, and a report that stays
inert whatever the run logs say."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from fixloop.cli import app
from fixloop.application.history.store import remember_project

from .synth import Cand, Spec, write

runner = CliRunner()
HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'$x^2$ [red]markup[/]'


def _project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    write(p, Spec("20261101-090000-000001", cands=[Cand(status="plausible")], decision=True))
    write(p, Spec("20261102-090000-000002", cands=[Cand(operator=HOSTILE, status="plausible")], target=HOSTILE,
                  exc=HOSTILE, cost=0.5, tokens=100, calls=1, decision=False))
    write(p, Spec("20261103-090000-000003", status="gave_up", cands=[Cand(status="unsafe", rules=("FL-S013",))]))
    d = p / ".fixloop" / "runs" / "20261101-090000-000001"
    (d / "fix.diff").write_text("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n")
    return p


def test_history_lists_runs_with_decisions(tmp_path: Path) -> None:
    p = _project(tmp_path)
    result = runner.invoke(app, ["history", str(p), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["runs"]
    assert [(r["status"], r["decision"]) for r in rows] == [("fixed", "accepted"), ("fixed", "rejected"), ("gave_up", "")]
    result = runner.invoke(app, ["history", str(p)], env={"COLUMNS": "250"})
    assert result.exit_code == 0 and "20261103-090000-000003" in result.stdout and "rejected" in result.stdout


def test_show_prints_summary_timeline_and_diff(tmp_path: Path) -> None:
    p = _project(tmp_path)
    result = runner.invoke(app, ["show", "20261101-090000-000001", str(p)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "status: fixed" in out and "timeline" in out and "baseline" in out and "+x = 2" in out
    assert "your decision: accepted" in out


def test_all_projects_uses_the_index_in_the_data_dir(tmp_path: Path) -> None:
    p = _project(tmp_path)
    q = tmp_path / "other"
    write(q, Spec("20261104-090000-000004", cands=[Cand(status="plausible")]))
    remember_project(p)
    remember_project(q)
    result = runner.invoke(app, ["stats", str(tmp_path), "--all-projects", "--json"])
    k = json.loads(result.stdout)
    assert k["runs"] == 4 and k["projects"] == 2
    assert k["safety"]["refusals_by_rule"] == {"FL-S013": 1}
    result = runner.invoke(app, ["stats", str(p)], env={"COLUMNS": "200"})
    assert "fix rate" in result.stdout and "67%" in result.stdout


def test_report_is_self_contained_and_escapes_the_run_logs(tmp_path: Path) -> None:
    p = _project(tmp_path)
    out = tmp_path / "r" / "report.html"
    result = runner.invoke(app, ["report", str(p), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(out)
    page = out.read_text()
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "<script" not in page.lower() and "onerror=" not in page.replace("onerror=alert(2)&gt;", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown, as text
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:|//)", page)  # nothing loaded from anywhere
    assert page.count("<svg") == 4  # learning curve, fix rate by class, cost per day, operators
    assert "Learning curve" in page and "Operator success" in page


def test_report_without_matplotlib_keeps_its_tables(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed: import raises ImportError
    p = _project(tmp_path)
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["report", str(p), "--out", str(out)])
    assert result.exit_code == 0 and "matplotlib" in result.stderr
    page = out.read_text()
    assert "<svg" not in page and "fixloop[report]" in page and "Error classes" in page


def test_stats_of_an_unchanged_history_come_from_the_cache_until_a_run_changes(tmp_path: Path) -> None:
    p = _project(tmp_path)
    first = json.loads(runner.invoke(app, ["stats", str(p), "--json"]).stdout)
    assert first["review"]["rejected_hunks"] == 1
    again = json.loads(runner.invoke(app, ["stats", str(p), "--json"]).stdout)
    assert again == first
    d = p / ".fixloop" / "runs" / "20261102-090000-000002"
    with open(d / "decisions.jsonl", "a") as fh:  # the user changed their mind on that hunk
        fh.write(json.dumps({"run_id": d.name, "hunk": "a.py#0", "accepted": True}) + "\n")
    later = json.loads(runner.invoke(app, ["stats", str(p), "--json"]).stdout)
    assert later["review"]["rejected_hunks"] == 0 and later["review"]["accepted_hunks"] == 2
