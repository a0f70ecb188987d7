"""Code under test cannot carry tampering from one run into the next."""

from __future__ import annotations

import pytest

from fixloop.core.model import FileChange, Limits, Patch
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.select import probe
from tests.backends import unavailable
from tests.conftest import PYTHON

LIB = "def add(a, b):\n    return a - b\n"
TESTS = "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"
TAMPER = (
    "import pathlib\n"
    "pathlib.Path('tests/test_lib.py').write_text('def test_add():\\n    pass\\n')\n"
    "import os, sys\n"
    "_plugin = sys.modules.get('fixloop_report')\n"
    "if _plugin is not None:\n"
    "    try:\n"
    "        pathlib.Path(_plugin.__file__).write_text('raise SystemExit(0)\\n')\n"
    "    except OSError:\n"
    "        pass\n"
    "def add(a, b):\n    return a * b\n"
)


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_a_tampering_candidate_does_not_change_the_next_run(make_project, backend: str) -> None:
    # Not "none": with no sandbox at all fixloop's runtime folder is the user's to write, like all their files.
    sandbox = probe(backend)[0]
    if sandbox is None:
        unavailable(backend)
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    runner = PytestRunner.open(root, sandbox, Limits(), python=PYTHON)
    try:
        assert runner.run(None).failed  # run 1: the real failure
        runner.run(Patch((FileChange("lib.py", LIB, TAMPER),)))  # run 2: rewrites tests, plugin, plants a report
        after = runner.run(None)  # run 3: must see the original tests and the real plugin
        assert [r.nodeid for r in after.failed] == ["tests/test_lib.py::test_add"]
        assert (runner.root / "tests" / "test_lib.py").read_text() == TESTS
        assert (runner.scratch.runtime / "fixloop_report.py").read_bytes().startswith(b'"""pytest plugin')
    finally:
        runner.close()
