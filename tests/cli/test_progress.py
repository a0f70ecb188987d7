"""`fixloop fix` while it works and when it ends unfixed: a live status line on a terminal, occasional plain
lines elsewhere, `--json` as one object on stdout, an end message with what was tried and the next steps,
and every project string escaped on the way to the terminal.

The project cannot be fixed within the small candidate limits used here: its bug needs a new constant. Its
source file's name and its test ids (the project turns pytest's own id escaping off) carry an ESC sequence
and a bidi override, as a hostile project may."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PYTHON, fixloop_env

pytestmark = pytest.mark.e2e  # whole fix runs through the CLI

MODULE = "ops\x1b[2J\u202e"
FILES = {
    f"{MODULE}.py": ("def checksum(values):\n    total = 0\n    for i, v in enumerate(values):\n"
                     "        total = total * 31 + v * (i + 7)\n        total = total % 1000003\n    return total\n"),
    "pytest.ini": "[pytest]\ndisable_test_id_escaping_and_forfeit_all_rights_to_community_support = true\n",
    "tests/test_ops.py": ("import importlib\n\nimport pytest\n\n"
                          f"ops = importlib.import_module({MODULE!r})\n\n\n"
                          "@pytest.mark.parametrize('values, expected', [([1, 2, 3], 7329), ([5], 20)],\n"
                          "                         ids=['\\x1b]0;pwned\\x07', 'x\\u202ey'])\n"
                          "def test_checksum(values, expected):\n    assert ops.checksum(values) == expected\n\n\n"
                          "def test_empty():\n    assert ops.checksum([]) == 0\n"),
}
RAW = ("\x1b[2J", "\x1b]0;", "\u202e", "\x07")  # what the project would make a terminal do
ARGS = ("--python", PYTHON, "--sandbox", "none", "--no-memory", "--offline", "--dry-run")


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _fix(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fixloop", "fix", str(root), *ARGS, *args], capture_output=True,
                          text=True, env=fixloop_env(), timeout=300)


def test_plain_lines_now_and_then_and_json_with_the_next_steps(tmp_path: Path) -> None:
    proc = _fix(_project(tmp_path), "--json", "--max-candidates", "25")
    assert proc.returncode == 1, proc.stderr
    # stdout is one JSON object and nothing else.
    assert proc.stdout.count("\n") == 1
    summary = json.loads(proc.stdout)
    assert summary["status"] == "limits"
    tried = summary["tried"]
    assert tried["candidates"] == 25 and tried["stopped_by"] == "max_candidates" and tried["limit"] == 25
    assert tried["proposers"] == {"mutation": 25} and sum(tried["operators"].values()) == 25
    assert tried["suspects"][0].startswith("ops\\x1b[2J\\u202e.py:")
    steps = summary["next_steps"]
    assert steps[0].startswith("raise the candidate limit (25 now): `--max-candidates 50"), steps
    assert steps[1].startswith("narrow the run to one of the 2 failing tests: `--test 'tests/test_ops.py::"
                               "test_checksum[\\x1b]0;pwned\\x07]'`"), steps
    assert "ANTHROPIC_API_KEY" in steps[2], steps
    # stderr is not a terminal: a progress line every 10 candidates, each with n/N and the suspect.
    lines = proc.stderr.splitlines()
    progress = [ln for ln in lines if re.match(r"search: candidate (10|20)/25, ops\\x1b\[2J\\u202e\.py:\d+ \w+", ln)]
    assert len(progress) == 2, proc.stderr
    assert all("left" in ln for ln in progress), progress
    assert not any(raw in proc.stderr for raw in RAW), proc.stderr
    assert "suspects: ops\\x1b[2J\\u202e.py:" in proc.stderr


def test_project_strings_reach_the_terminal_escaped(tmp_path: Path) -> None:
    proc = _fix(_project(tmp_path), "--max-candidates", "3")
    assert proc.returncode == 1, proc.stderr
    assert not any(raw in proc.stderr for raw in RAW), proc.stderr
    # The suspects (a path), the next step's test id, each shown with visible escapes.
    assert "suspects: ops\\x1b[2J\\u202e.py:" in proc.stderr
    assert "--test 'tests/test_ops.py::test_checksum[\\x1b]0;pwned\\x07]'" in proc.stderr


def test_quiet_keeps_only_the_end(tmp_path: Path) -> None:
    proc = _fix(_project(tmp_path), "--quiet", "--max-candidates", "12")
    assert proc.returncode == 1, proc.stderr
    assert "candidate 10/12" not in proc.stderr and "baseline:" not in proc.stderr and "python:" not in proc.stderr
    assert "limits: candidate limit of 12 reached" in proc.stderr and "next steps:" in proc.stderr


def _on_a_terminal(root: Path, *args: str) -> tuple[int, str, str]:
    """The CLI with stderr on a pseudo-terminal (stdout a pipe): what the user's terminal receives."""
    master, slave = pty.openpty()
    env = {**fixloop_env(), "COLUMNS": "200", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "fixloop", "fix", str(root), *ARGS, *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    received = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            received += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    stdout = proc.stdout.read().decode() if proc.stdout else ""
    return proc.wait(timeout=60), received.decode("utf-8", "replace"), stdout


def test_a_live_status_line_on_a_terminal_and_the_end_message(tmp_path: Path) -> None:
    code, terminal, stdout = _on_a_terminal(_project(tmp_path), "--max-candidates", "12")
    assert code == 1, terminal
    assert stdout == ""
    # The status line is redrawn in place (carriage return, erase line) as candidates go by.
    redrawn = re.findall(r"\r\x1b\[2K.{0,40}?search: candidate (\d+)/12, ops\\x1b\[2J\\u202e\.py:\d+", terminal)
    assert len(set(redrawn)) >= 2, terminal[-3000:]
    assert not any(raw in terminal for raw in RAW)  # rich's own escapes, never the project's
    assert "limits:" in terminal and "candidate limit of 12 reached" in terminal
    assert "next steps:" in terminal and "`--max-candidates 24" in terminal
    assert "tried: 12 candidates (mutation 12)" in terminal
