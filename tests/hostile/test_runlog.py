"""A project that commits `.fixloop` (or a piece of it) as a symlink must not steer the run log.

The run log is written on the host, by fixloop itself, before any sandbox exists: a symlink there
would make root create files at a chosen path or truncate the user's shell rc file. The run still
happens, its log goes to a private folder, and stderr says what to remove.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import pytest

from .harness import Host, run_fix

BUGGY = "def inc(x):\n    return x - 1\n"
TEST = "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n"


def _fixloop_is_outside(host: Host) -> str:
    os.symlink(host.outside, host.project / ".fixloop")
    return ".fixloop"


def _gitignore_is_bashrc(host: Host) -> str:
    (host.project / ".fixloop").mkdir()
    os.symlink(host.bashrc, host.project / ".fixloop" / ".gitignore")
    return ".fixloop/.gitignore"


def _dangling_gitignore(host: Host) -> str:
    (host.project / ".fixloop").mkdir()
    os.symlink(host.home / ".profile", host.project / ".fixloop" / ".gitignore")
    return ".fixloop/.gitignore"


def _runs_is_outside(host: Host) -> str:
    (host.project / ".fixloop").mkdir()
    (host.project / ".fixloop" / ".gitignore").write_text("*\n")
    os.symlink(host.outside, host.project / ".fixloop" / "runs")
    return ".fixloop/runs"


PLANTS: dict[str, Callable[[Host], str]] = {
    "fixloop-link": _fixloop_is_outside, "gitignore-link": _gitignore_is_bashrc,
    "gitignore-dangling": _dangling_gitignore, "runs-link": _runs_is_outside,
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_linked_run_log_is_refused_and_the_run_still_happens(host: Host, backend: str, plant: str) -> None:
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    culprit = PLANTS[plant](host)
    host.snapshot()
    done = run_fix(host, backend, ["--dry-run"])
    assert host.evidence() == []
    assert done.summary is not None, done.stderr
    assert done.summary["status"] == "fixed", done.stderr
    assert culprit in done.stderr and "symlink" in done.stderr, done.stderr
    # The log went to a private folder outside the project, and stderr says where.
    run_dir = Path(done.summary["run_dir"])
    assert not run_dir.is_relative_to(host.project) and not run_dir.is_relative_to(host.outside)
    assert str(run_dir) in done.stderr
    assert (run_dir / "summary.json").is_file() and (run_dir / "events.jsonl").is_file()
