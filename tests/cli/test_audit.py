"""End to end: `fixloop fix --audit` on the shipped example: the security pass beside the diff, and a high
finding that stops `--yes` (a model scripted by the Anthropic-compatible server on 127.0.0.1)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PYTHON, REPO, fixloop_env
from tests.llm.fake_anthropic import FakeAnthropic, message, tool_use

pytestmark = pytest.mark.e2e  # whole fix runs through the CLI


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "inventory"
    shutil.copytree(REPO / "examples" / "inventory", project, ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
    return project


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".fixloop" not in p.parts}


def _fixloop(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--audit", *args, "--python", PYTHON,
                           "--sandbox", "none", "--no-memory"], capture_output=True, text=True,
                          env=fixloop_env(**env), timeout=300)


def test_offline_the_audit_is_shown_beside_the_diff_and_a_clean_fix_is_applied_with_yes(tmp_path: Path) -> None:
    project = _project(tmp_path)
    proc = _fixloop(project, "--offline", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "audit (offline): nothing found" in proc.stderr and "applied to" in proc.stderr
    run_dir = Path(proc.stderr.rsplit("run log: ", 1)[1].split()[0])
    (audited,) = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()
                  if json.loads(line)["kind"] == "audited"]
    assert {k: audited[k] for k in ("by", "blocking", "note", "findings")} == {
        "by": "offline", "blocking": False, "note": "", "findings": []}


def test_a_high_finding_by_the_auditors_model_stops_yes_and_says_what_to_do(tmp_path: Path) -> None:
    project = _project(tmp_path)
    before = _digest(project)
    config = tmp_path / "config.toml"

    def model(body: dict[str, Any]) -> dict[str, Any]:
        tool = (body.get("tool_choice") or {}).get("name")
        if tool == "record_review":
            reply = message(tool_use("record_review", {"verdict": "accept", "reason": "fixes the threshold"}))
        else:
            assert tool == "record_audit", body  # the offline engine finds this fix: review and audit only
            reply = message(tool_use("record_audit", {"findings": [
                {"severity": "high", "file": "inventory/pricing.py", "line": 12, "issue": "scripted: exploitable"}]}))
        return {**reply, "model": body["model"]}  # the model that answered, as the API says

    with FakeAnthropic() as fake:
        fake.fallback = model
        config.write_text(f'[llm]\nbase_url = "{fake.url}"\nmodel = "main-model"\nmax_retries = 0\nstream = false\n'
                          '[llm.roles.auditor]\nmodel = "auditor-model"\n')
        proc = _fixloop(project, "--yes", "--json", FIXLOOP_CONFIG=str(config), ANTHROPIC_API_KEY="test-key")
        models = [r.body["model"] for r in fake.messages_requests()]
    assert proc.returncode == 1, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["status"] == "fixed" and summary["applied"] is False and summary["blocked"] == "audit"
    assert summary["audit"]["by"] == "auditor-model" and summary["audit"]["blocking"] is True
    assert {"severity": "high", "path": "inventory/pricing.py", "line": 12, "message": "scripted: exploitable",
            "source": "auditor-model"} in summary["audit"]["findings"]
    assert models[-1] == "auditor-model" and summary["llm_calls"] == len(models)  # its calls count in the run
    assert "not applied:" in proc.stderr and "the audit found a high-severity issue" in proc.stderr
    assert _digest(project) == before  # nothing written
    events = [json.loads(line) for line in (Path(summary["run_dir"]) / "events.jsonl").read_text().splitlines()]
    calls = [(e["purpose"], e["model"]) for e in events if e["kind"] == "model_call"]
    assert calls == [("review", "main-model"), ("audit", "auditor-model")]  # every role's call in the run log
