"""The project's interpreter is resolved from data only; what the sandbox is shown is checked; the
version and pytest probe runs inside the sandbox (the `none` backend here, so that it runs anywhere)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixloop.application.config import SandboxSettings
from fixloop.adapters.runner.interpreter import (InterpreterUnusable, interpreter_for, link_chain, looks_like_installation,
                                        resolve, too_wide, untrusted_location)
from fixloop.adapters.sandbox.select import choose

BASE = Path(sys.base_prefix)
SHORT = f"python{sys.version_info[0]}.{sys.version_info[1]}"


def _venv(project: Path, home: str, script: str | None = None) -> Path:
    venv = project / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {home}\nversion = 3.11.0\n")
    python = venv / "bin" / "python"
    if script is None:
        python.symlink_to(BASE / "bin" / "python3")
    else:
        python.write_text(script)
        python.chmod(0o755)
    return python


def test_a_project_venv_is_read_never_run(tmp_path: Path) -> None:
    project = tmp_path / "p"
    sentinel = tmp_path / "ran"
    _venv(project, str(BASE / "bin"), f"#!/bin/sh\ntouch '{sentinel}'\nexec '{BASE / 'bin' / 'python3'}' \"$@\"\n")
    found = resolve(project)
    assert not sentinel.exists()
    assert found.from_project and found.path == str(project / ".venv" / "bin" / "python")
    assert found.source == "project .venv"
    assert project / ".venv" in found.read_only and BASE in found.read_only


@pytest.mark.parametrize("home", ["/", "/root", "/tmp", "~", "~/.ssh", "/etc", "/proc/self"])
def test_a_venv_cannot_name_a_wide_or_secret_folder_as_its_base(tmp_path: Path, home: str) -> None:
    project = tmp_path / "p"
    _venv(project, os.path.expanduser(home) + "/bin")
    shown = resolve(project).read_only
    assert shown and all(not too_wide(p) for p in shown)
    assert Path(os.path.expanduser(home)) not in shown and Path("/") not in shown


def test_a_look_alike_installation_in_tmp_is_not_shown(tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    (fake / "bin").mkdir(parents=True)
    (fake / "bin" / "python3").write_text("")
    (fake / "lib" / "python3.11").mkdir(parents=True)
    (fake / "lib" / "python3.11" / "os.py").write_text("")
    assert untrusted_location(fake) and not looks_like_installation(fake)
    assert looks_like_installation(BASE) or untrusted_location(BASE)


def test_a_venv_that_is_a_link_out_of_the_project_shows_only_installations(tmp_path: Path) -> None:
    """`.venv` links to a folder elsewhere (here under /tmp, where a look-alike could be planted)."""
    project, outside = tmp_path / "p", tmp_path / "outside"
    project.mkdir()
    _venv(outside, "/bin")
    (project / ".venv").symlink_to(outside / ".venv")
    found = resolve(project)
    assert found.from_project and found.path == str(outside / ".venv" / "bin" / "python")
    assert outside / ".venv" not in found.read_only and Path("/") not in found.read_only
    assert all(not too_wide(p) for p in found.read_only)


def test_link_chains_are_read_as_data(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to(tmp_path / "c")
    assert link_chain(tmp_path / "a") == [tmp_path / "a", tmp_path / "b", tmp_path / "c"]
    (tmp_path / "loop").symlink_to("loop")
    assert len(link_chain(tmp_path / "loop")) == 41


def test_the_probe_runs_inside_the_sandbox_and_reports_clearly(tmp_path: Path) -> None:
    sandbox = choose(SandboxSettings(backend="none"))
    project = tmp_path / "p"
    _venv(project, str(BASE / "bin"), "#!/bin/sh\necho 'no python here' >&2\nexit 3\n")
    with pytest.raises(InterpreterUnusable, match=r"does not start inside the sandbox: no python here"):
        interpreter_for(project, "", sandbox)
    ok = interpreter_for(tmp_path / "other", sys.executable, sandbox)
    assert ok.version == "%d.%d.%d" % sys.version_info[:3] and not ok.from_project
