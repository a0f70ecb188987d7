"""A package the interpreter lacks: the distribution is named from the project's own declarations (or the
usual import-name map) with the command that installs it, and a run whose only failures are such imports
stops with it instead of searching; fixloop never installs anything itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixloop.core.model import TestReport, TestResult
from fixloop.adapters.runner.declared import declared, install_advice, install_offer, only_imports_fail, providing
from tests.conftest import PYTHON, fixloop_env

PYPROJECT = """[project]
name = "dep"
version = "0"
dependencies = ["requests>=2", "not a requirement !!"]
[project.optional-dependencies]
test = ["PyYAML>=6", "pytest"]
[dependency-groups]
lint = ["ruff"]
[tool.poetry.group.docs.dependencies]
python = "^3.11"
sphinx = "^7"
"""
MISSING_YAML = TestReport(collection_errors=("E   ModuleNotFoundError: No module named 'yaml'",))


def test_every_declaration_is_read_as_data_with_where_it_is(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "requirements-dev.txt").write_text("# tools\nhypothesis==6.0  # property tests\n-r other.txt\n")
    found = {(d.requirement, d.where) for d in declared(tmp_path)}
    assert ("PyYAML>=6", "pyproject.toml [project.optional-dependencies] test") in found
    assert ("ruff", "pyproject.toml [dependency-groups] lint") in found
    assert ("sphinx", "pyproject.toml [tool.poetry] docs") in found
    assert ("hypothesis==6.0", "requirements-dev.txt") in found
    assert not any(r == "python" or r.startswith("-r") for r, _ in found)


def test_a_planted_link_an_oversized_or_broken_file_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.toml"
    outside.write_text(PYPROJECT)
    project = tmp_path / "p"
    project.mkdir()
    os.symlink(outside, project / "pyproject.toml")
    (project / "requirements.txt").write_text("x" * 2_000_000)
    assert declared(project) == []
    (project / "pyproject.toml").unlink()
    (project / "pyproject.toml").write_text("[project\n")
    assert declared(project) == []


def test_the_distribution_of_an_import_name(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    project = declared(tmp_path)
    dist, where = providing("yaml", project)  # the map says PyYAML, and the project declares it
    assert dist == "PyYAML" and where is not None and where.requirement == "PyYAML>=6"
    assert providing("requests.adapters", project)[0] == "requests"
    assert providing("cv2", project) == ("opencv-python", None)  # known, not declared
    assert providing("nmupy", project) == ("", None)  # a typo is nobody's distribution


def test_the_advice_names_the_declaration_and_the_command_and_skips_the_projects_own_modules(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    advice = install_advice(tmp_path, "/venv/bin/python", MISSING_YAML)
    assert "from PyYAML, which the project declares (pyproject.toml [project.optional-dependencies] test" in advice
    assert "`/venv/bin/python -m pip install 'PyYAML>=6'`" in advice and "installs nothing without your yes" in advice
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n'
                                           'dependencies = ["pyyaml @ https://evil.example/pyyaml.whl"]\n')
    named = install_advice(linked, "python", MISSING_YAML)
    assert "`python -m pip install pyyaml`" in named  # by name from your index, never the project's link
    (linked / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n'
                                           'dependencies = ["PyYAML[c] >=6 ; python_version > \'3\'"]\n')
    offer = install_offer(linked, "python", MISSING_YAML)
    assert offer is not None and offer.requirement == "PyYAML[c]>=6"  # remade from its parts: no marker, no option
    (tmp_path / "yaml").mkdir()  # the project's own package of that name: a copy or code problem, not a package
    assert install_advice(tmp_path, "/venv/bin/python", MISSING_YAML) == ""
    assert only_imports_fail(MISSING_YAML)
    other = TestReport((TestResult("t.py::t", "failed", message="assert 1 == 2"),),
                       collection_errors=MISSING_YAML.collection_errors)
    assert not only_imports_fail(other) and not only_imports_fail(TestReport())


@pytest.mark.e2e
def test_a_run_whose_only_failure_is_a_missing_package_stops_with_the_command(tmp_path: Path) -> None:
    project = tmp_path / "dep"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "dep"\nversion = "0"\n'
                                            '[project.optional-dependencies]\ntest = ["tomli-w-not-here>=1.0"]\n')
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "tests" / "test_calc.py").write_text("import tomli_w_not_here\nfrom calc import add\n\n\n"
                                                    "def test_add():\n    assert add(1, 2) == 3\n")
    run = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--python", PYTHON, "--offline",
                          "--no-memory", "--dry-run", "--json"], capture_output=True, text=True, env=fixloop_env(),
                         timeout=300)
    summary = json.loads(run.stdout)
    assert summary["status"] == "error" and summary["candidates_evaluated"] == 0
    assert "pip install 'tomli-w-not-here>=1.0'" in str(summary["message"])
    assert not any("see why the tests cannot run" in step for step in summary["next_steps"])
