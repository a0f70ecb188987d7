"""Installing a package the tests could not import, only when you say so (`--allow-install`, a yes).

Two steps, so that nothing of the project runs on your machine and no package's build code runs at all:
your machine fetches the distribution's wheels and their dependencies from your package index with
fixloop's own pip (wheels only: `--only-binary=:all:`); then the project's interpreter installs them from
that folder inside the sandbox, with no network, where your virtualenv is the one place outside its
copy that it may write. A backend that runs the tests as another user (bwrap as root, docker) cannot
write your files: then the install is refused with the command to run yourself. Nothing installs into an
interpreter that is not a virtualenv.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fixloop.adapters.sandbox.api import Policy, RunTree, Sandbox, SandboxLimits
from fixloop.adapters.runner.declared import Offer
from fixloop.adapters.runner.interpreter import Interpreter, sandbox_env

OUTPUT_CHARS = 2_000  # of pip's output kept for the log and the message


@dataclass(frozen=True)
class InstallSettings:
    index_url: str = ""  # where wheels come from; "" is pip's own configuration (PIP_INDEX_URL, pip.conf)
    timeout_seconds: float = 300.0  # for each step: the download, then the install


@dataclass(frozen=True)
class Installed:
    ok: bool
    said: str  # for people: what was installed where, or why not and the command to run yourself
    record: dict[str, Any]  # for the run log: what ran, how it ended, the tail of pip's output


def venv_of(interpreter: Interpreter) -> Path | None:
    """The virtualenv the interpreter belongs to, among the folders it was shown (resolved when it was
    found, never through a link); None for an installation of its own."""
    return next((p for p in interpreter.read_only
                 if (p / "pyvenv.cfg").is_file() and not (p / "pyvenv.cfg").is_symlink()), None)


def _minor(version: str) -> str:
    found = re.fullmatch(r"(\d+)\.(\d+)\.\d+", version)
    return f"{found[1]}.{found[2]}" if found else ""


def download_argv(offer: Offer, dest: Path, python_version: str, settings: InstallSettings) -> list[str]:
    argv = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-input",
            "--only-binary=:all:", "--dest", str(dest)]
    argv += ["--python-version", python_version] if python_version else []
    argv += ["--index-url", settings.index_url] if settings.index_url else []
    return argv + [offer.requirement]  # sanitized (declared.sanitized): a name, never an option


def install_argv(interpreter: Interpreter, offer: Offer, wheels: Path) -> list[str]:
    return [interpreter.path, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--no-cache-dir",
            "--no-index", "--find-links", str(wheels), offer.requirement]


def install(offer: Offer, interpreter: Interpreter, sandbox: Sandbox, settings: InstallSettings) -> Installed:
    """Fetch, then install inside the sandbox. Never raises for an install that fails: that is an answer."""
    record: dict[str, Any] = {"requirement": offer.requirement, "python": interpreter.path, "backend": sandbox.name,
                              "index_url": settings.index_url or "(pip's configuration)", "time": time.time()}
    venv = venv_of(interpreter)
    refusal = ("it is not a virtualenv" if venv is None else
               "" if getattr(sandbox, "writes_as_you", False) else
               f"the {sandbox.name} sandbox runs it as another user, who cannot write your virtualenv")
    if refusal:
        return _refused(offer, refusal, record)
    assert venv is not None
    record["venv"] = str(venv)
    wheels = Path(tempfile.mkdtemp(prefix="fixloop-wheels-"))
    try:
        argv = download_argv(offer, wheels, _minor(interpreter.version), settings)
        record["download"] = argv[1:]
        try:
            fetched = subprocess.run(argv, cwd=wheels, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                     errors="replace", timeout=settings.timeout_seconds)
        except subprocess.TimeoutExpired:
            return _refused(offer, f"fetching it took more than {settings.timeout_seconds:g} s", record)
        record["download_exit"] = fetched.returncode
        if fetched.returncode != 0:
            record["output"] = _tail(fetched.stdout + fetched.stderr)
            return _refused(offer, f"pip could not fetch it as wheels: {_last_line(fetched.stdout + fetched.stderr)}",
                            record)
        record["wheels"] = sorted(n for n in os.listdir(wheels) if n.endswith(".whl"))
        return _install_fetched(offer, interpreter, sandbox, settings, venv, wheels, record)
    finally:
        shutil.rmtree(wheels, ignore_errors=True)


def _install_fetched(offer: Offer, interpreter: Interpreter, sandbox: Sandbox, settings: InstallSettings,
                     venv: Path, wheels: Path, record: dict[str, Any]) -> Installed:
    empty = Path(tempfile.mkdtemp(prefix="fixloop-install-"))
    try:
        policy = Policy(read_only=(*interpreter.read_only, wheels), env=sandbox_env(interpreter.path),
                        writable=(venv,))
        limits = SandboxLimits(wall_seconds=settings.timeout_seconds, cpu_seconds=int(settings.timeout_seconds))
        result = sandbox.run(install_argv(interpreter, offer, wheels), RunTree(empty), limits, policy)
    finally:
        shutil.rmtree(empty, ignore_errors=True)
    output = result.stdout_head + result.stdout_tail + result.stderr_head + result.stderr_tail
    record.update(install_exit=result.returncode, limit_hit=result.limit_hit, output=_tail(output))
    if result.returncode != 0:
        why = result.limit_hit or _last_line(output) or f"exit status {result.returncode}"
        return _refused(offer, f"the install in the sandbox failed: {why}", record)
    record["ok"] = True
    return Installed(True, f"installed {offer.requirement} into {venv} (in the {sandbox.name} sandbox, no network)",
                     record)


def _refused(offer: Offer, why: str, record: dict[str, Any]) -> Installed:
    record.update(ok=False, reason=why)
    return Installed(False, f"not installed ({why}); to install it yourself: `{offer.command}`", record)


def _tail(text: str) -> str:
    return text[-OUTPUT_CHARS:]


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def log_line(record: dict[str, Any]) -> str:
    return json.dumps(record, default=str)
