"""Goal mode writes a NEW test file into the project on `--yes`: a project that plants a dangling link
where that file would go (or links its tests folder out) must not make fixloop create a file outside.

The link is followed by any write by name (`Path.write_text`, `open(..., "w")`); fixloop picks a name no
entry has (`lexists`, links included) and creates it folder by folder with O_NOFOLLOW | O_EXCL."""

from __future__ import annotations

import os
import subprocess

import pytest

from .harness import Host, run_fix

pytestmark = pytest.mark.e2e  # whole goal runs as root and as uid 65534 on each backend

OPS = '''def f(x):
    """Twice x, plus one.

    >>> f(3)
    7
    """
    return x * 2 - 1
'''


def test_a_planted_link_at_the_new_test_files_name_is_never_followed(host: Host, backend: str) -> None:
    host.write("calc/__init__.py", "")
    host.write("calc/ops.py", OPS)
    host.write("tests/test_other.py", "def test_other():\n    assert True\n")
    planted = host.outside / "planted_by_goal.py"
    os.symlink(planted, host.project / "tests" / "test_f_goal.py")  # dangling: a naive exists() says "free"
    # Ignored by git, so the project's file list does not name it either: only the folder itself tells.
    host.write(".gitignore", "tests/test_f_goal.py\n")
    subprocess.run(["git", "init", "-q", str(host.project)], check=True, capture_output=True)
    host.snapshot()
    done = run_fix(host, backend, ["--goal", "make f match its docstring", "--yes"])
    outside = [e for e in host.evidence() if str(host.project) not in e]
    assert outside == [] and not planted.exists()
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.summary is not None and done.summary["test_file"] == "tests/test_f_goal_2.py"
    assert os.readlink(host.project / "tests" / "test_f_goal.py") == str(planted)
    assert "assert f(3) == 7" in (host.project / "tests" / "test_f_goal_2.py").read_text()
