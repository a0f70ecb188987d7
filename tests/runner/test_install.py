"""Installing a missing package only with the user's yes: wheels fetched from the user's index on the host,
installed by the project's interpreter inside the sandbox, the run going on to fix the bug."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from fixloop.application.config import Settings, project_table
from fixloop.adapters.runner.declared import Offer
from fixloop.adapters.runner.install import InstallSettings, download_argv, install, venv_of
from fixloop.adapters.runner.interpreter import Interpreter
from fixloop.adapters.sandbox.select import probe
from tests.backends import unavailable
from tests.conftest import fixloop_env
from tests.package_index import needs_tinydep, serving

OFFER = Offer("tinydep", "tinydep>=1", "pyproject.toml [project.dependencies]: tinydep>=1", "/venv/bin/python")


def test_the_download_takes_wheels_only_from_your_index_and_the_requirement_as_a_name() -> None:
    argv = download_argv(OFFER, Path("/tmp/w"), "3.11", InstallSettings(index_url="http://127.0.0.1:1/simple"))
    assert argv[:4] == [sys.executable, "-m", "pip", "download"]
    assert "--only-binary=:all:" in argv and argv[argv.index("--python-version") + 1] == "3.11"
    assert argv[argv.index("--index-url") + 1] == "http://127.0.0.1:1/simple" and argv[-1] == "tinydep>=1"
    assert "--index-url" not in download_argv(OFFER, Path("/tmp/w"), "", InstallSettings())  # pip's own config


class OtherUser:
    """A backend whose runs are another user's (as docker's are): it is never asked to run anything."""

    name = "docker"
    writes_as_you = False

    def run(self, *args: object, **kwargs: object) -> object:
        raise AssertionError("an install this backend cannot do must not start")


def test_an_install_nothing_can_do_is_refused_with_the_command(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    in_venv = Interpreter(str(venv / "bin" / "python"), "project .venv", (venv,), True, "3.11.7")
    assert venv_of(in_venv) == venv
    done = install(OFFER, in_venv, OtherUser(), InstallSettings())  # type: ignore[arg-type]
    assert not done.ok and "another user" in done.said and "`/venv/bin/python -m pip install 'tinydep>=1'`" in done.said
    system = Interpreter("/usr/bin/python3", "PATH", (Path("/usr"),), False, "3.11.7")
    refused = install(OFFER, system, OtherUser(), InstallSettings())  # type: ignore[arg-type]
    assert not refused.ok and "not a virtualenv" in refused.said and refused.record["ok"] is False


def test_a_project_cannot_choose_where_packages_come_from_only_shorten_the_wait(tmp_path: Path) -> None:
    table = {"install": {"index_url": "http://evil.example/simple", "timeout_seconds": 5}}
    allowed, refused = project_table(table, Settings(), tmp_path)
    assert allowed == {"install": {"timeout_seconds": 5}}
    assert any("install.index_url" in r for r in refused)
    assert project_table({"install": {"timeout_seconds": 9999}}, Settings(), tmp_path)[0] == {"install": {}}


@pytest.fixture()
def index(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """A package index on 127.0.0.1 holding tinydep, and the paths it was asked for."""
    with serving(tmp_path / "index") as served:
        yield served


def _writer_backend() -> str:
    """A backend that runs as this user (landlock; bwrap when not root); else the test cannot install."""
    for name in ("landlock", "bwrap"):
        sandbox, _ = probe(name)
        if sandbox is not None and getattr(sandbox, "writes_as_you", False):
            return name
    unavailable("landlock", "no backend here runs as this user")


@pytest.mark.e2e  # a venv with pytest and pip, two fix runs and an install
def test_only_an_approved_install_happens_and_then_the_run_fixes_the_bug(tmp_path: Path,
                                                                        index: tuple[str, list[str]]) -> None:
    backend = _writer_backend()
    url, asked = index
    project = needs_tinydep(tmp_path)
    site = next((project / ".venv" / "lib").glob("python3.*/site-packages"))
    argv = [sys.executable, "-m", "fixloop", "fix", str(project), "--offline", "--no-memory", "--json",
            "--sandbox", backend, "--set", f"install.index_url={url}"]

    yes_only = subprocess.run([*argv, "--yes"], capture_output=True, text=True, env=fixloop_env(), timeout=300)
    summary = json.loads(yes_only.stdout)
    assert summary["status"] == "error" and "installed" not in summary
    assert summary["install"]["command"].endswith("-m pip install 'tinydep>=1'") and not asked
    assert not (site / "tinydep").exists()

    approved = subprocess.run([*argv, "--dry-run", "--allow-install"], capture_output=True, text=True,
                              env=fixloop_env(), timeout=600)
    summary = json.loads(approved.stdout)
    assert summary["installed"]["ok"], summary["installed"]
    assert (site / "tinydep" / "__init__.py").is_file() and any("tinydep" in path for path in asked)
    assert summary["status"] == "fixed" and "+    return a + b" in summary["diff"], summary["message"]
    runs = sorted((project / ".fixloop" / "runs").iterdir(), key=lambda p: p.stat().st_mtime)
    logged = [json.loads(line) for run in runs if (run / "decisions.jsonl").exists()
              for line in (run / "decisions.jsonl").read_text().splitlines()]
    assert [(r["decision"], r["ok"], r["backend"]) for r in logged] == [("install", True, backend)]
    assert logged[0]["wheels"] == ["tinydep-1.0-py3-none-any.whl"]
