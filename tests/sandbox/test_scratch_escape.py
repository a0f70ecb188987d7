"""Code run in the sandbox controls its own copy only; the host never writes where it could have planted."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from fixloop.application.config import SandboxSettings
from fixloop.core.model import FileChange, Limits, Patch
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.select import choose, probe
from tests.backends import unavailable
from tests.conftest import PYTHON


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_restoring_after_a_run_never_writes_through_a_planted_symlink(tmp_path: Path, backend: str) -> None:
    if probe(backend)[0] is None:
        unavailable(backend)
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
    runner = PytestRunner.open(project, choose(SandboxSettings(backend=backend)), Limits(test_timeout=60), PYTHON)
    try:
        patch = Patch((FileChange("pkg/mod.py", "def f():\n    return 1\n", "def f():\n    return 2\n"),))
        runner.run(patch)
        runner.run(patch)  # the second run's copy is fresh again: the swap of the first is gone
        assert list(outside.iterdir()) == [], "the host wrote through a symlink the sandbox planted"
        # The pristine tree was never the run's to change.
        assert (runner.root / "pkg").is_dir() and not (runner.root / "pkg").is_symlink()
        assert (runner.root / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n"
    finally:
        runner.close()
    assert (project / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n"
