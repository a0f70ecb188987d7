"""Projects as users have them: an editable install (setuptools or hatchling, src or flat layout) whose
virtualenv names the project's own path, inside or outside the project, and a version file written at
install time that git ignores. The copy must be where those paths point (or be pointed at), and hold
the generated file; otherwise every test fails to import the package while plain pytest passes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.docker_backend import DockerSandbox
from fixloop.adapters.sandbox.select import probe
from fixloop.core.model import FileChange, Limits, Patch
from tests.backends import unavailable
from tests.conftest import REPO, fixloop_env
from tests.project_python import ROOTS, _build, _closure

pytestmark = pytest.mark.e2e

CORE = "def add(a, b):\n    return a - b\n\n\ndef twice(x):\n    return 2 * x\n"
TESTS = ("from calc import __version__\nfrom calc.core import add, twice\n\n\ndef test_version():\n"
         "    assert __version__ == '1.2.3'\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
         "def test_twice():\n    assert twice(4) == 8\n")
PYPROJECT = {
    "setuptools": ('[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n'
                   '[project]\nname = "calc"\nversion = "1.2.3"\n'),
    "hatchling": ('[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
                  '[project]\nname = "calc"\nversion = "1.2.3"\n\n[tool.hatch.build.targets.wheel]\n'
                  'packages = ["src/calc"]\n'),
}


@pytest.fixture
def place() -> Iterator[Path]:
    """A folder outside /tmp (the sandbox never shows an installation from there), removed afterwards."""
    folder = REPO / ".cache" / f"editable-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def make_project(place: Path, backend: str, layout: str, venv_inside: bool) -> tuple[Path, Path]:
    """(project, its interpreter): a git-like project with `.gitignore` and an editable install of it."""
    project = place / "calc-project"
    package = project / ("src/calc" if layout == "src" else "calc")
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from ._version import __version__\n")
    (package / "_version.py").write_text("__version__ = '1.2.3'\n")  # as setuptools-scm / hatch-vcs write it
    (package / "core.py").write_text(CORE)
    (project / "tests").mkdir()
    (project / "tests" / "test_calc.py").write_text(TESTS)
    rel = package.relative_to(project).as_posix()
    (project / ".gitignore").write_text(f".venv/\n{rel}/_version.py\n*.egg-info/\n")
    (project / "pyproject.toml").write_text(PYPROJECT[backend])
    venv = project / ".venv" if venv_inside else place / "venvs" / "calc"
    _build(venv, _closure(ROOTS))
    # A real editable install by the real backend, written into that virtualenv.
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index",
                    "--prefix", str(venv), "-e", str(project)], check=True, capture_output=True, timeout=300)
    python = venv / "bin" / "python"
    plain = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=place,
                           capture_output=True, text=True, timeout=120)
    assert "1 failed, 2 passed" in plain.stdout, plain.stdout  # the install works from anywhere, as for the user
    return project, python


def fix(project: Path, python: Path, backend: str, venv_inside: bool) -> dict[str, object]:
    # An outside virtualenv is the active one, as for a user who ran `source venv/bin/activate`.
    env = fixloop_env() if venv_inside else fixloop_env(VIRTUAL_ENV=str(python.parent.parent),
                                                        PATH=f"{python.parent}:{fixloop_env()['PATH']}")
    run = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--offline", "--no-memory",
                          "--dry-run", "--json", "--sandbox", backend], capture_output=True, text=True, env=env,
                         timeout=600)
    assert run.stdout, run.stderr
    return json.loads(run.stdout)


@pytest.mark.parametrize("backend,layout,venv_inside", [
    ("setuptools", "src", True), ("hatchling", "src", False), ("setuptools", "flat", False)])
def test_an_editable_install_is_fixed_under_bwrap(place: Path, backend: str, layout: str, venv_inside: bool) -> None:
    project, python = make_project(place, backend, layout, venv_inside)
    summary = fix(project, python, "bwrap", venv_inside)
    assert summary["status"] == "fixed", summary
    assert summary["files_changed"] == [f"{'src/' if layout == 'src' else ''}calc/core.py"]
    assert "+    return a + b" in str(summary["diff"])


@pytest.mark.parametrize("backend,layout", [("setuptools", "src"), ("setuptools", "flat")])
def test_a_backend_that_cannot_mount_points_the_interpreter_at_the_copy(place: Path, backend: str,
                                                                        layout: str) -> None:
    project, python = make_project(place, backend, layout, venv_inside=False)
    summary = fix(project, python, "landlock", venv_inside=False)
    assert summary["status"] == "fixed", summary
    assert "+    return a + b" in str(summary["diff"])


@pytest.mark.docker
@pytest.mark.parametrize("backend,venv_inside", [("setuptools", True), ("hatchling", False)])
def test_a_src_layout_editable_install_is_fixed_in_containers(place: Path, backend: str, venv_inside: bool,
                                                             docker_engine: object) -> None:
    # The copy sits at the project's path in the container too, so the install's paths lead to it.
    project, python = make_project(place, backend, "src", venv_inside)
    summary = fix(project, python, "docker", venv_inside)
    assert summary["status"] == "fixed", summary
    assert summary["files_changed"] == ["src/calc/core.py"] and summary["limits"]["backend"] == "docker"
    assert "+    return a + b" in str(summary["diff"])


def test_a_backend_that_cannot_mount_keeps_a_virtualenv_inside_the_project_where_it_is(place: Path) -> None:
    """The copy leaves `.venv` out: pointing the interpreter at the copy must not move its own site-packages
    there, or every dependency pytest had not imported yet (here `helper_dep`) fails to import."""
    project, python = make_project(place, "setuptools", "src", venv_inside=True)
    site = next((project / ".venv" / "lib").glob("python3.*/site-packages"))
    (site / "helper_dep.py").write_text("ONE = 1\n")
    test = project / "tests" / "test_calc.py"
    test.write_text("import helper_dep\n" + test.read_text() + "\n\ndef test_dep():\n    assert helper_dep.ONE == 1\n")
    summary = fix(project, python, "landlock", venv_inside=True)
    assert summary["status"] == "fixed", summary
    assert "+    return a + b" in str(summary["diff"])


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_a_warm_worker_keeps_the_libraries_of_a_virtualenv_inside_the_project(place: Path, backend: str) -> None:
    """Each candidate imports the project's modules afresh, not those of a `.venv` inside the project: a library
    re-imported per candidate cost a second or more each (pytest rewrites a plugin's whole distribution). An
    owner-only file in the project (hypothesis's cache) must not stop the warm worker's copy either."""
    sandbox, reason = probe(backend)
    if sandbox is None:
        unavailable(backend, reason)
    _screened_warm_with_the_libraries_loaded(place, sandbox)


@pytest.mark.docker
def test_a_warm_worker_in_a_container_keeps_the_libraries_of_a_virtualenv_inside_the_project(
        place: Path, docker_engine: object) -> None:
    _screened_warm_with_the_libraries_loaded(place, DockerSandbox(docker_engine.image))  # type: ignore[attr-defined]


def _screened_warm_with_the_libraries_loaded(place: Path, sandbox: object) -> None:
    project, python = make_project(place, "setuptools", "src", venv_inside=True)
    site = next((project / ".venv" / "lib").glob("python3.*/site-packages"))
    (site / "loaded_once.py").write_text("import os\n\nPID = os.getpid()\n")
    (project / "tests" / "test_library.py").write_text(
        "import os\n\nimport loaded_once\n\n\ndef test_the_library_was_loaded_before_this_process():\n"
        "    assert loaded_once.PID != os.getpid()\n")
    private = project / ".hypothesis" / "unicode_data" / "charmap.json.gz"
    private.parent.mkdir(parents=True)
    private.write_bytes(b"\x1f\x8b cache")
    private.chmod(0o600)
    runner = PytestRunner.open(project, sandbox, Limits(test_timeout=120), python=str(python),  # type: ignore[arg-type]
                               warm_workers=1)
    try:
        assert not runner.run(None).ok  # the baseline, cold: the warm worker starts beside it
        cold_runs = runner.cold.runs
        # The spectrum is recorded warm too, with fixloop's own coverage.py (the project's virtualenv has none).
        spectrum, spectra = runner.coverage(("tests/test_calc.py::test_twice", "tests/test_calc.py::test_add"))
        assert runner.cold.runs == cold_runs, runner.warm_problem
        assert [r.nodeid for r in spectrum.failed] == ["tests/test_calc.py::test_add"]
        assert spectra["tests/test_calc.py::test_add"]["src/calc/core.py"] == {2}
        assert spectra["tests/test_calc.py::test_twice"]["src/calc/core.py"] == {6}
        patch = Patch((FileChange("src/calc/core.py", CORE, CORE.replace("a - b", "a + b")),))
        report = runner.run(patch, ["tests/test_library.py", "tests/test_calc.py"], fail_fast=True)
        assert runner.cold.runs == cold_runs, runner.warm_problem  # screened warm
        assert report.ok and len(report.passed) == 4, report
    finally:
        runner.close()
