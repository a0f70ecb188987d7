"""`fixloop fix` on a baseline cut by the user's cap: said loudly, with the flag and a value, and no search."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PYTHON, fixloop_env

SLEEPS = "import time\n" + "".join(f"\n\ndef test_sleep_{i}():\n    time.sleep(1)\n" for i in range(4))


@pytest.mark.e2e
def test_a_cut_baseline_ends_the_run_with_the_value_to_set(make_project, tmp_path: Path) -> None:
    root = make_project({"lib.py": "def add(a, b):\n    return a - b\n",
                         "tests/test_lib.py": "from lib import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
                         "tests/test_slow.py": SLEEPS})
    proc = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(root), "--python", PYTHON, "--sandbox", "none",
                           "--no-memory", "--offline", "--dry-run", "--baseline-timeout", "2"],
                          capture_output=True, text=True, timeout=120,
                          env=fixloop_env(XDG_DATA_HOME=str(tmp_path / "data"),
                                          FIXLOOP_CONFIG=str(tmp_path / "none.toml")))
    assert proc.returncode == 1, proc.stderr
    said = " ".join(proc.stderr.split())  # the console wraps long lines
    assert "the baseline was stopped at baseline_timeout = 2 s" in said, proc.stderr
    value = re.search(r"set --baseline-timeout (\d+)", said)
    assert value is not None and int(value.group(1)) >= 4, proc.stderr  # four 1 s sleeps: one try is enough
    assert "0 candidates" in said  # nothing was searched on it
