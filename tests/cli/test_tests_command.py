"""`fixloop tests PATH::function` end to end: the real CLI, the real sandbox, the file written only with --yes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from tests.conftest import fixloop_env
from tests.project_python import project_python

PYTHON_H = project_python(("pytest", "hypothesis"))
FILES = {
    "shop/__init__.py": "",
    "shop/text.py": ('def slugify(title: str) -> str:\n    """>>> slugify("Hello World")\n    \'hello-world\'\n    """\n'
                     '    return "-".join(title.lower().split())\n'),
    "tests/test_text.py": "from shop.text import slugify\n\ndef test_slug():\n    assert slugify('A b') == 'a-b'\n",
}


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fixloop", "tests", *args, "--root", str(root), "--python", PYTHON_H],
                          capture_output=True, text=True, env=fixloop_env(), timeout=300, stdin=subprocess.DEVNULL)


@pytest.mark.e2e  # three sandboxed runs and a Hypothesis run
def test_cli_writes_the_generated_tests_with_yes_and_they_pass(make_project: Callable[..., Path]) -> None:
    root = make_project(FILES)
    (root / "tests" / "test_text_slugify_generated.py").write_text("# the user's own file\n")
    proc = _run(root, "shop/text.py::slugify", "--yes", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["written"] is True and summary["file"] == "tests/test_text_slugify_generated_2.py"
    assert (root / "tests" / "test_text_slugify_generated.py").read_text() == "# the user's own file\n"
    kinds = {t["name"]: (t["kind"], t["status"]) for t in summary["tests"]}
    assert kinds["test_slugify_1"] == ("characterization", "passed")
    assert kinds["test_slugify_is_idempotent"] == ("idempotent", "passed")
    text = (root / summary["file"]).read_text()
    assert "assert slugify('Hello World') == 'hello-world'" in text and "assert slugify('A b') == 'a-b'" in text
    # The file is a real pytest module that passes on the code it describes.
    run = subprocess.run([PYTHON_H, "-m", "pytest", "-q", "-p", "no:cacheprovider", summary["file"]], cwd=root,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout


@pytest.mark.parametrize("spec,message", [("shop/text.py::nope", "no function 'nope'"),
                                          ("../outside.py::f", "outside the workspace"),
                                          ("shop/text.py", "PATH::function")])
def test_cli_bad_input_is_a_message_and_nothing_is_written(make_project: Callable[..., Path], spec: str,
                                                            message: str) -> None:
    root = make_project(FILES)
    proc = _run(root, spec, "--yes", "--json")
    assert proc.returncode == 2
    assert message in proc.stderr and json.loads(proc.stdout)["written"] is False
    assert sorted(p.name for p in (root / "tests").iterdir()) == ["test_text.py"]


@pytest.mark.e2e
def test_cli_without_yes_only_shows_the_diff(make_project: Callable[..., Path]) -> None:
    root = make_project(FILES)
    proc = _run(root, "shop/text.py::slugify")
    assert proc.returncode == 0, proc.stderr
    assert "+++ b/tests/test_text_slugify_generated.py" in proc.stdout
    assert sorted(p.name for p in (root / "tests").iterdir()) == ["test_text.py"]
