"""Code run in the sandbox controls the scratch copy; the host must not write through what it planted."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from fixloop.config import SandboxSettings
from fixloop.core.model import FileChange, Limits, Patch
from fixloop.runner.pytest_runner import PytestRunner
from fixloop.sandbox.select import choose, probe


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_restoring_after_a_run_never_writes_through_a_planted_symlink(tmp_path: Path, backend: str) -> None:
    if probe(backend)[0] is None:
        pytest.skip(f"{backend} unavailable")
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    # The "test" swaps the package directory for a symlink to a host directory while it runs.
    (project / "test_swap.py").write_text(textwrap.dedent(f"""
        import os, shutil
        def test_swap():
            shutil.rmtree("pkg")
            os.symlink({str(outside)!r}, "pkg")
    """))
    runner = PytestRunner(project, choose(SandboxSettings(backend=backend)), Limits(test_timeout=60), sys.executable)
    try:
        patch = Patch((FileChange("pkg/mod.py", "def f():\n    return 1\n", "def f():\n    return 2\n"),))
        runner.run(patch)
        assert list(outside.iterdir()) == [], "the host wrote through a symlink the sandbox planted"
        # The copy was reset to its pristine tree: the planted symlink is gone, writes stay inside.
        assert (runner.root / "pkg").is_dir() and not (runner.root / "pkg").is_symlink()
        runner.scratch.write("pkg/mod.py", "x = 1\n")
        assert list(outside.iterdir()) == []
    finally:
        runner.close()
    assert (project / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n"
