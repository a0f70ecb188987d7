"""The history commands over a real server on stdio: history, stats, report, and a past run's review."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException
from tests.history.synth import Cand, Spec, write
from tests.lsp.lsp_harness import lsp

pytestmark = pytest.mark.e2e

BUGGY = "def f(x):\n    return x - 1\n"
DIFF = "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x - 1\n+    return x + 1\n"


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "hist_ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "pkg" / "__init__.py").write_text("")
    (ws / "pkg" / "mod.py").write_text(BUGGY)
    (ws / "tests" / "test_mod.py").write_text("from pkg.mod import f\n\n\ndef test_f():\n    assert f(1) == 2\n")
    d = write(ws, Spec("20261101-090000-00000a", cands=[Cand(status="plausible")], decision=False))
    (d / "fix.diff").write_text(DIFF)
    write(ws, Spec("20261102-090000-00000b", status="gave_up", cands=[Cand(status="unsafe", rules=("FL-S002",))]))
    return ws


async def test_history_stats_report_and_a_past_review(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    async with lsp(profile, ws, tmp_path, env=env) as s:
        h = await s.command("fixloop.history", {})
        assert [r["run_id"] for r in h["runs"]] == ["20261102-090000-00000b", "20261101-090000-00000a"]
        assert h["total"] == 2 and h["runs"][1]["decision"] == "rejected"
        k = await s.command("fixloop.stats", {})
        assert k["runs"] == 2 and k["fix_rate"] == 0.5 and k["safety"]["refusals_by_rule"] == {"FL-S002": 1}
        assert ["fix rate", "50% (1 fixed)"] in k["headline"]
        r = await s.command("fixloop.report", {})
        assert Path(r["path"]).is_file() and str(tmp_path / "data") in r["path"]  # the user's dir, not the project
        assert "<svg" in r["html"] and "Content-Security-Policy" in r["html"] and r["runs"] == 2
        assert not (ws / "report.html").exists()

        shown = await s.command("fixloop.showRun", {"run_id": "20261101-090000-00000a"})
        assert shown["past"] is True and shown["status"] == "fixed"
        assert [(x["path"], x["state"]) for x in shown["hunks"]] == [("pkg/mod.py", "pending")]
        accepted = await s.command("fixloop.accept", {"run_id": "20261101-090000-00000a"})
        assert accepted["applied"] == ["pkg/mod.py#0"], accepted
        assert await s.command("fixloop.showRun", {"run_id": "20261101-090000-nothere"}) is None
        for bad in ({"all_projects": "yes"}, {"since": "soon"}, {"limit": -1}):
            with pytest.raises(JsonRpcException, match="must be"):
                await s.command("fixloop.history", bad)
