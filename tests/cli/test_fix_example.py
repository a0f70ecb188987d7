"""End to end: `fixloop fix` on the shipped example project, as a user runs it."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PYTHON, REPO, fixloop_env

pytestmark = pytest.mark.e2e  # whole fix runs through the CLI

KEYS = {"status", "files_changed", "diff", "iterations", "candidates_evaluated", "test_runs", "llm_calls",
        "tokens", "cost_usd", "wall_seconds", "run_dir"}


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".fixloop" not in p.parts}


def _fixloop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fixloop", "fix", *args, "--python", PYTHON, "--sandbox", "none",
                           "--no-memory", "--offline"], capture_output=True, text=True, env=fixloop_env(), timeout=300)


def test_fix_example_project_untouched_until_applied(tmp_path: Path) -> None:
    project = tmp_path / "inventory"
    shutil.copytree(REPO / "examples" / "inventory", project, ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
    before = _digest(project)

    dry = _fixloop(str(project), "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    summary = json.loads(dry.stdout)
    assert KEYS <= summary.keys()
    assert summary["status"] == "fixed" and summary["applied"] is False
    assert summary["files_changed"] == ["inventory/pricing.py"]
    assert "+    if quantity >= BULK_THRESHOLD:" in summary["diff"]
    assert summary["llm_calls"] == 0 and summary["tokens"] == 0
    assert _digest(project) == before  # byte-identical until applied

    run_dir = Path(summary["run_dir"])
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    assert events[0]["kind"] == "started" and events[-1]["kind"] == "finished"
    assert {"baseline", "localized", "candidate", "tested"} <= {e["kind"] for e in events}
    assert (project / ".fixloop" / ".gitignore").read_text() == "*\n"
    assert json.loads((run_dir / "summary.json").read_text())["status"] == "fixed"

    applied = _fixloop(str(project), "--yes", "--json")
    assert applied.returncode == 0, applied.stderr
    assert json.loads(applied.stdout)["applied"] is True
    changed = {k for k, v in _digest(project).items() if before.get(k) != v}
    assert changed == {"inventory/pricing.py"}
    tests = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project, capture_output=True,
                           text=True, timeout=120)
    assert tests.returncode == 0, tests.stdout

    again = _fixloop(str(project), "--json")
    assert again.returncode == 3 and json.loads(again.stdout)["status"] == "nothing_to_fix"


def test_without_a_terminal_the_fix_is_not_applied(tmp_path: Path) -> None:
    project = tmp_path / "inventory"
    shutil.copytree(REPO / "examples" / "inventory", project, ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
    before = _digest(project)
    proc = _fixloop(str(project))
    assert proc.returncode == 0, proc.stderr
    assert "not applied" in proc.stderr
    assert "+    if quantity >= BULK_THRESHOLD:" in proc.stdout
    # beside the diff: the comparison, not the constant `BULK_THRESHOLD = 9` that passes too
    assert "review (offline): accept, the smallest of 2 plausible fixes (2 changed line(s)" in proc.stderr
    assert _digest(project) == before


def test_the_run_report_says_where_the_fix_came_from_and_what_it_saved(tmp_path: Path) -> None:
    project = tmp_path / "inventory"
    shutil.copytree(REPO / "examples" / "inventory", project, ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
    env = fixloop_env(XDG_DATA_HOME=str(tmp_path / "data"), FIXLOOP_CONFIG=str(tmp_path / "none.toml"))

    def fix(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--dry-run", "--python", PYTHON,
                               "--sandbox", "none", "--offline", "--memory", str(tmp_path / "memory"), *extra],
                              capture_output=True, text=True, env=env, timeout=300)

    first = json.loads(fix("--json").stdout)  # a fresh memory: the generic search finds it
    assert first["status"] == "fixed" and first["source"] == "search" and first["saved"] is None
    assert json.loads((Path(first["run_dir"]) / "summary.json").read_text())["source"] == "search"
    second = json.loads(fix("--json").stdout)  # the same bug again: the past fix is replayed
    assert second["proposer"] == "memory" and second["source"] == "replay"
    saved = second["saved"]
    assert saved["search_fixes"] == 1 and saved["search_median_candidates"] == first["candidates_evaluated"]
    assert saved["candidates"] == second["candidates_evaluated"] < first["candidates_evaluated"]
    assert saved["candidates_saved"] == first["candidates_evaluated"] - second["candidates_evaluated"]
    shown = fix()
    assert "source: a past fix replayed, 1 candidate(s) and " in shown.stderr
    assert "against the generic search's median of" in shown.stderr and "for AssertionError in this project" in shown.stderr
    stats = subprocess.run([sys.executable, "-m", "fixloop", "stats", str(project), "--json"], capture_output=True,
                           text=True, env=env, timeout=120)
    sources = json.loads(stats.stdout)["sources"]
    assert sources["replay"]["fixes"] == 2 and sources["search"]["fixes"] == 1 and sources["replay"]["compared"] == 2
