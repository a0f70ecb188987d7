"""`$/progress` during a run the engine cannot finish quickly: candidate n/N and the suspect being tried, at a
bounded rate, and an end that names the next step (also in the run summary)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types as t

from tests.lsp.lsp_harness import lsp
from tests.lsp.test_runs import write

HARD = {
    "calc/__init__.py": "",
    "calc/ops.py": ("def checksum(values):\n    total = 0\n    for i, v in enumerate(values):\n"
                    "        total = total * 31 + v * (i + 7)\n        total = total % 1000003\n    return total\n"),
    # Each candidate waits a little, as on a real suite: the reports come at their bounded rate, not per event.
    "tests/test_ops.py": ("import time\n\nfrom calc.ops import checksum\n\n\n"
                          "def test_checksum():\n    time.sleep(0.2)\n    assert checksum([1, 2, 3]) == 7329\n\n\n"
                          "def test_one():\n    time.sleep(0.2)\n    assert checksum([5]) == 20\n"),
}


@pytest.mark.e2e  # a whole run of 12 candidates on real pytest in the sandbox
async def test_progress_names_the_candidate_and_the_suspect_and_the_end_names_the_next_step(
        profile: str, tmp_path: Path) -> None:
    ws = write(tmp_path, HARD, "hard_ws")
    options = {"settings": {"max_candidates": 12, "offline": True, "memory": {"enabled": False},
                            "sandbox": {"backend": "auto"}, "diagnostics": {"debounce_ms": 0}}}
    async with lsp(profile, ws, tmp_path, options=options) as s:
        started = await s.command("fixloop.fix", {"scope": "workspace"})
        summary = await s.run_finished(started["run_id"], timeout=120)
        assert summary["status"] == "limits", summary
        reports = s.client.progress_reports[f"fixloop-{started['run_id']}"]
        messages = [r.message for r in reports if isinstance(r, t.WorkDoneProgressReport)]
        trying = [m for m in messages if re.match(r"(search|confirm): candidate \d+/12, calc/ops\.py:\d+ \w+", m)]
        assert trying, messages
        assert any("left" in m for m in trying), trying
        # Bounded: fewer reports than the loop's events (at least 4 per candidate), however fast the run was.
        assert len(messages) < 4 * 12, messages
        end = reports[-1]
        assert isinstance(end, t.WorkDoneProgressEnd)
        assert end.message.startswith("limits: candidate limit of 12 reached; next: raise the candidate limit (12 now): "
                                      "`--max-candidates 24"), end.message
        assert summary["tried"]["candidates"] == 12 and summary["tried"]["stopped_by"] == "max_candidates"
        assert summary["tried"]["suspects"] and summary["tried"]["suspects"][0].startswith("calc/ops.py:")
        steps = summary["next_steps"]
        assert any(step.startswith("narrow the run to one of the 2 failing tests: `--test tests/test_ops.py::")
                   for step in steps), steps
        assert any("without --offline" in step for step in steps), steps
