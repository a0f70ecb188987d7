"""Bad input on the command line (`fixloop fix`): a missing or wrong workspace, a bad config, a folder too
wide or too big to copy. Each gets a clear message and exit status, and no user file changes."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PYTHON, fixloop_env

LIB = "def add(a, b):\n    return a - b\n"
TESTS = "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n"


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".fixloop" not in p.parts}


@pytest.mark.parametrize("target,code,text", [("missing", 2, "does not exist"), ("file.txt", 2, "not a directory")])
def test_cli_bad_workspace(tmp_path: Path, target: str, code: int, text: str) -> None:
    (tmp_path / "file.txt").write_text("x")
    proc = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(tmp_path / target)], capture_output=True,
                          text=True, env=fixloop_env(), timeout=120)
    assert proc.returncode == code
    assert text in proc.stderr


def test_cli_reports_bad_config_and_goes_on(make_project) -> None:
    root = make_project({"lib.py": LIB.replace("-", "+"), "tests/test_lib.py": TESTS,
                         "pyproject.toml": "[tool.fixloop]\nmax_iterations = 'many'\nbogus = 1\n"})
    proc = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(root), "--python", PYTHON, "--sandbox", "none",
                           "--no-memory", "--offline"], capture_output=True, text=True, env=fixloop_env(), timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "max_iterations: expected a whole number" in proc.stderr
    assert "bogus: unknown setting" in proc.stderr


def _cli_fix(target: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fixloop", "fix", str(target), "--python", PYTHON, "--sandbox", "none",
                           "--no-memory", "--offline", *args], capture_output=True, text=True,
                          env=fixloop_env(**env), timeout=120)


def test_cli_refuses_the_filesystem_root_before_copying_anything(tmp_path: Path) -> None:
    proc = _cli_fix(Path("/"), XDG_DATA_HOME=str(tmp_path), FIXLOOP_CONFIG=str(tmp_path / "none.toml"))
    assert proc.returncode == 2, proc.stderr
    assert "it is the filesystem root" in proc.stderr and "workspace.allow_home" in proc.stderr
    assert not Path("/.fixloop").exists()  # no run log: nothing started


@pytest.mark.e2e  # allowed, it then runs a whole fix through the CLI
def test_cli_refuses_a_home_folder(make_project) -> None:
    home = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    before = _digest(home)
    proc = _cli_fix(home, HOME=str(home))
    assert proc.returncode == 2, proc.stderr
    assert "is a home folder" in proc.stderr and "--set workspace.allow_home=true" in proc.stderr
    assert _digest(home) == before and not (home / ".fixloop").exists()
    # The user may allow it (the size limits still hold): then it runs.
    proc = _cli_fix(home, "--set", "workspace.allow_home=true", "--dry-run", HOME=str(home))
    assert proc.returncode == 0 and "is a home folder" not in proc.stderr, proc.stderr


def test_cli_refuses_a_tree_over_the_limits_and_names_the_setting(make_project) -> None:
    files = {f"data/{i}.txt": "x\n" for i in range(30)}
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS, **files,
                         "pyproject.toml": "[tool.fixloop.workspace]\nmax_files = 100000\n"})
    proc = _cli_fix(root, "--set", "workspace.max_files=10")
    assert proc.returncode == 2, proc.stderr
    assert "more than 10 files" in proc.stderr and "workspace.max_files" in proc.stderr
    assert not (root / ".fixloop").exists()
    (root / "data" / "big.bin").write_bytes(b"\0" * (2 * 1024 * 1024))
    proc = _cli_fix(root, "--set", "workspace.max_mb=1")
    assert proc.returncode == 2 and "more than 1 MB" in proc.stderr, proc.stderr
    # A project may not raise the limit above the default: its 100000 is refused and named.
    assert "[tool.fixloop] workspace.max_files = 100000: refused" in proc.stderr
