"""One version: pyproject.toml's, which the package, both scripts and the VS Code extension agree with."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import fixloop
from fixloop import _version

REPO = Path(__file__).resolve().parents[1]


def _pyproject_version() -> str:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def test_package_and_extension_agree_with_pyproject() -> None:
    version = _pyproject_version()
    assert fixloop.__version__ == version
    extension = json.loads((REPO / "editors/vscode/package.json").read_text())
    assert extension["version"] == version, "editors/vscode/package.json's version differs from pyproject.toml's"


@pytest.mark.e2e  # imports the whole server (~1-4 s)
def test_server_version_flag_prints_it() -> None:
    out = subprocess.run([sys.executable, "-m", "fixloop.lsp.server", "--version"], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == f"fixloop-server {_pyproject_version()}"


def test_checkout_version_ignores_another_projects_pyproject(tmp_path: Path, monkeypatch) -> None:
    # Installed under some project's tree, the package must not take that project's version.
    fake = tmp_path / "a" / "b" / "fixloop" / "_version.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("")
    (tmp_path / "a" / "pyproject.toml").write_text('[project]\nname = "other"\nversion = "9.9"\n')
    monkeypatch.setattr(_version, "__file__", str(fake))
    assert _version._from_checkout() is None
    (tmp_path / "a" / "pyproject.toml").write_text('[project]\nname = "fixloop"\nversion = "7.1"\n')
    assert _version._from_checkout() == "7.1"
