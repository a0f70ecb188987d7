"""End to end: `fixloop fix --set strategy=...` on the example project, with a real memory: the strategy
leads the run, is in the run log and the summary, and its outcome is in the memory for the next choice."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fixloop.application.config import MemorySettings
from fixloop.adapters.graph.factory import make_memory
from fixloop.adapters.memory.outcomes import record_of
from tests.conftest import PYTHON, REPO, fixloop_env

pytestmark = pytest.mark.e2e  # whole fix runs through the CLI


def _env(tmp: Path) -> dict[str, str]:
    return fixloop_env(XDG_DATA_HOME=str(tmp / "data"))  # the history's cache and project list stay in tmp


def _fix(project: Path, memory: Path, *args: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--dry-run", "--json", "--python",
                           PYTHON, "--sandbox", "none", "--offline", "--memory", str(memory), *args],
                          capture_output=True, text=True, env=_env(memory.parent), timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_pinned_strategy_leads_and_is_logged_and_learned(tmp_path: Path) -> None:
    project = tmp_path / "inventory"
    shutil.copytree(REPO / "examples" / "inventory", project, ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
    memory = tmp_path / "memory"
    summary = _fix(project, memory, "--set", "strategy=mutation-first")
    assert summary["status"] == "fixed"
    run_dir = Path(summary["run_dir"])
    events = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    kinds = [e["kind"] for e in events]
    # Chosen after the baseline (the memory opened meanwhile), before the first candidate.
    assert kinds.index("baseline") < kinds.index("strategy") < kinds.index("candidate")
    chosen = events[kinds.index("strategy")]
    assert (chosen["strategy"], chosen["strategy_reason"]) == ("mutation-first", "pinned")
    assert json.loads((run_dir / "summary.json").read_text())["strategy"] == "mutation-first"
    assert [e["proposer"] for e in events if e["kind"] == "candidate"][0] == "mutation"

    second = _fix(project, memory)  # auto: a thin record keeps today's order
    events = [json.loads(x) for x in (Path(second["run_dir"]) / "events.jsonl").read_text().splitlines()]
    (chosen,) = [e for e in events if e["kind"] == "strategy"]
    assert (chosen["strategy"], chosen["strategy_reason"]) == ("memory-first", "default")
    got = record_of(make_memory(MemorySettings(uri=str(memory)), project))
    assert sum(t.runs for t in got.values()) == 2 and got["mutation-first"].runs >= 1

    listed = subprocess.run([sys.executable, "-m", "fixloop", "stats", str(project), "--strategies", "--json"],
                            capture_output=True, text=True, env=_env(tmp_path), timeout=120)
    rows = json.loads(listed.stdout)["strategies"]
    assert sum(r["runs"] for r in rows.values()) == 2 and rows["mutation-first"]["fixed"] >= 1
