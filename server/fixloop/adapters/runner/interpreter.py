"""Which Python runs the project's tests, found without running anything the project controls on the host.

A project's own interpreter (its `.venv`, `venv`, `env`, or `[tool.fixloop] python` inside the project) is
read as data: `pyvenv.cfg` and the symlink chain of `bin/python` say which directories the sandbox must
show read-only, and a directory is shown only if it looks like a Python installation or virtualenv and
holds nothing else of the user's. Only the user's own interpreters (`--python`, the editor setting,
`VIRTUAL_ENV`, `PATH`, fixloop's own), when they lie outside the project, run on the host, to see
through launcher shims (pyenv, asdf) whose manager no sandbox shows. Either way the version and
"is pytest importable" probe runs inside the sandbox, with the same secret-free environment as the tests.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Mapping
from pathlib import Path

from fixloop.adapters.sandbox.api import Policy, RunTree, Sandbox, SandboxLimits

# The user's own interpreters run on the host only to find their real executable and prefixes: give
# them nothing worth stealing.
PROBE_ENV = {"LANG": "C.UTF-8", **{k: v for k, v in os.environ.items()
                                  if k in ("PATH", "HOME", "PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV")}}
VENV_NAMES = (".venv", "venv", "env")
MAX_LINKS = 40
MAX_CFG_BYTES = 64 * 1024
PROBE = ("import importlib.util, json, sys; print(json.dumps({'version': '%d.%d.%d' % sys.version_info[:3], "
         "'pytest': importlib.util.find_spec('pytest') is not None}))")
# Never shown to a sandbox, whatever a project's files name: the system's top folders, temporary and
# runtime folders, and anything holding credentials.
WIDE = frozenset(Path(p) for p in ("/", "/home", "/root", "/tmp", "/var", "/var/tmp", "/var/run", "/run", "/dev",
                                    "/proc", "/sys", "/etc", "/boot", "/mnt", "/media", "/srv", "/opt"))
NEVER_UNDER = (Path("/proc"), Path("/sys"), Path("/dev"), Path("/run"), Path("/tmp"), Path("/var/tmp"), Path("/etc"))
SECRET_PARTS = frozenset({".ssh", ".gnupg", ".aws", ".kube", ".docker", ".password-store", ".netrc", "keyrings"})


class InterpreterUnusable(RuntimeError):
    """No interpreter can run the tests; the message says which one and what the user can do."""


@dataclass(frozen=True)
class Interpreter:
    path: str  # what the sandbox executes
    source: str  # where it came from, for the user: "--python / settings", "project .venv", "PATH", ...
    read_only: tuple[Path, ...]  # what the sandbox shows read-only so that it starts
    from_project: bool  # controlled by the project: never executed on the host
    version: str = ""  # reported by the sandboxed probe

    def describe(self) -> str:
        version = f"Python {self.version}, " if self.version else ""
        return f"{self.path} ({version}{self.source}{', sandboxed probe only' if self.from_project else ''})"


# ---- which candidate ----------------------------------------------------------------------------------

def find_python(workspace: Path, configured: str = "") -> tuple[str, str]:
    """(path, source): configured, the workspace's virtualenv, the active one, PATH, then fixloop's own."""
    if configured:
        return configured, "--python / settings"
    for venv in VENV_NAMES:
        candidate = workspace / venv / "bin" / "python"
        if os.path.lexists(candidate):
            return str(candidate), f"project {venv}"
    active = os.environ.get("VIRTUAL_ENV")
    if active and (Path(active) / "bin" / "python").exists():
        return str(Path(active) / "bin" / "python"), "VIRTUAL_ENV"
    for name in ("python3", "python"):
        found = shutil.which(name)
        # A relative PATH entry could find a file of the project (the current folder): never run that here.
        if found and os.path.isabs(found) and not in_project(Path(found), workspace) and _has_pytest(found):
            return found, "PATH"
    return sys.executable, "fixloop's own interpreter"


def in_project(path: Path, workspace: Path) -> bool:
    """Inside the project by name or after following links: the project controls it."""
    absolute = Path(os.path.normpath(workspace / path))
    root = Path(os.path.normpath(workspace))
    if absolute == root or root in absolute.parents:
        return True
    real, real_root = Path(os.path.realpath(absolute)), Path(os.path.realpath(root))
    return real == real_root or real_root in real.parents


def _has_pytest(python: str) -> bool:
    """For the user's own interpreters only (PATH): the project's are probed inside the sandbox."""
    try:
        return subprocess.run([python, "-c", "import pytest"], capture_output=True, env=PROBE_ENV, cwd="/",
                              timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


# ---- the user's own interpreters: run on the host ---------------------------------------------------

def real_executable(python: str) -> str:
    """The interpreter behind a launcher shim (pyenv, asdf): shims need their manager, which no sandbox shows.
    Only ever called on the user's own interpreters."""
    try:
        out = subprocess.run([python, "-c", "import sys; print(sys.executable)"], capture_output=True, env=PROBE_ENV,
                             cwd="/", text=True, timeout=20, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return python
    return out if out and Path(out).is_file() else python


def interpreter_paths(python: str) -> tuple[Path, ...]:
    """Directories the sandbox must expose read-only for one of the user's own interpreters to start."""
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(sys.prefix); print(sys.base_prefix); print(sys.executable)"],
            capture_output=True, env=PROBE_ENV, cwd="/", text=True, timeout=20, check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return ()
    paths = {Path(p).resolve() for p in out[:2] if p}
    exe = Path(python)
    paths.add(exe.parent.parent.resolve() if exe.parent.name == "bin" else exe.parent.resolve())
    return tuple(sorted(p for p in paths if not too_wide(p)))


# ---- the project's interpreters: data only -----------------------------------------------------------

def too_wide(path: Path) -> bool:
    """A folder no sandbox may see, whoever names it: a system top folder, a home or a parent of one,
    anything holding credentials."""
    path = Path(os.path.normpath(path))
    if not path.is_absolute() or path in WIDE or SECRET_PARTS & set(path.parts):
        return True
    homes = {Path.home(), Path("/root")} | {Path("/home") / n for n in _listdir("/home")}
    return any(path == h or path in h.parents for h in homes)


def untrusted_location(path: Path) -> bool:
    """Where a folder the project's data names may never be: too wide, or inside a temporary, runtime or
    system-state folder (a project could have planted a look-alike installation there)."""
    path = Path(os.path.normpath(path))
    return too_wide(path) or any(path == p or p in path.parents for p in NEVER_UNDER)


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def looks_like_installation(prefix: Path) -> bool:
    """`bin/python3*` and `lib/python3.X/os.py`: a Python installation, not a folder a project merely named."""
    if untrusted_location(prefix) or not (prefix / "bin").is_dir() or not (prefix / "lib").is_dir():
        return False
    has_python = any(n.startswith("python3") for n in _listdir(str(prefix / "bin")))
    return has_python and any(re.fullmatch(r"python3\.\d+", n) and (prefix / "lib" / n / "os.py").is_file()
                              for n in _listdir(str(prefix / "lib")))


def looks_like_venv(venv: Path) -> bool:
    return not untrusted_location(venv) and (venv / "bin").is_dir() and _regular(venv / "pyvenv.cfg")


def _regular(path: Path) -> bool:
    try:
        return path.is_file() and not path.is_symlink()
    except OSError:
        return False


def read_pyvenv_cfg(venv: Path) -> dict[str, str]:
    """`key = value` lines of a virtualenv's pyvenv.cfg, read as data and never through a link."""
    try:
        fd = os.open(venv / "pyvenv.cfg", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return {}
    try:
        import stat
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {}
        raw = os.read(fd, MAX_CFG_BYTES)
    finally:
        os.close(fd)
    out: dict[str, str] = {}
    for line in raw.decode("utf-8", "replace").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip().lower()] = value.strip()
    return out


def _prefix_of(executable: Path) -> Path:
    return executable.parent.parent if executable.parent.name == "bin" else executable.parent


def link_chain(path: Path) -> list[Path]:
    """`path` and every link target after it, read with readlink (never opened), at most MAX_LINKS hops."""
    chain = [Path(os.path.normpath(path))]
    while len(chain) <= MAX_LINKS and chain[-1].is_symlink():
        try:
            target = Path(os.readlink(chain[-1]))
        except OSError:
            break
        # Directories on the way may be links too: resolve those, keep the last component as named.
        here = Path(os.path.realpath(chain[-1].parent))
        chain.append(Path(os.path.normpath(here / target)))
    return chain


def project_read_only(python: Path, workspace: Path) -> tuple[Path, tuple[Path, ...]]:
    """(what to execute, what to show read-only) for an interpreter the project controls, from data only."""
    # The folder holding it, links resolved, so that a `.venv` link cannot name another place than it shows.
    executable = Path(os.path.realpath(python.parent)) / python.name
    shown: set[Path] = set()
    venv = executable.parent.parent if executable.parent.name == "bin" else None
    if venv is not None and _regular(venv / "pyvenv.cfg"):
        if in_project(venv, workspace) or looks_like_venv(venv):
            shown.add(venv)
        home = read_pyvenv_cfg(venv).get("home", "")
        if home and os.path.isabs(home):
            base = Path(os.path.realpath(_prefix_of(Path(home) / "python")))
            if looks_like_installation(base):
                shown.add(base)
    elif in_project(executable.parent, workspace):  # project data, like the copy; never the root (below)
        shown.add(executable.parent)
    for hop in link_chain(executable)[1:]:
        prefix = Path(os.path.realpath(_prefix_of(hop)))
        if any(prefix == s or s in prefix.parents for s in shown):
            continue
        if looks_like_installation(prefix):
            shown.add(prefix)
    # Never the project folder itself (the sandbox sees a filtered copy of it) nor anything above it.
    root = Path(os.path.realpath(workspace))
    return executable, tuple(sorted(p for p in shown if p != root and p not in root.parents))


# ---- both: resolve, then probe inside the sandbox -----------------------------------------------------

def resolve(workspace: Path, configured: str = "") -> Interpreter:
    """The interpreter and what it needs, without executing anything the project controls."""
    path, source = find_python(workspace, configured)
    if "/" not in path:  # a bare name from the user's settings: their PATH decides
        path = shutil.which(path) or path
    candidate = Path(os.path.abspath(os.path.expanduser(path)))
    if in_project(candidate, workspace) or any(in_project(h, workspace) for h in link_chain(candidate)):
        executable, shown = project_read_only(candidate, workspace)
        return Interpreter(str(executable), source, shown, True)
    real = real_executable(str(candidate))
    if in_project(Path(real), workspace):  # a user's shim that leads into the project: data from here on
        executable, shown = project_read_only(Path(real), workspace)
        return Interpreter(str(executable), source, shown, True)
    return Interpreter(real, source, interpreter_paths(real), False)


def probe(interpreter: Interpreter, sandbox: Sandbox, env: dict[str, str]) -> Interpreter:
    """Start the interpreter inside the sandbox once: its version, and whether it can import pytest."""
    tmp = Path(tempfile.mkdtemp(prefix="fixloop-interp-"))
    try:
        result = sandbox.run([interpreter.path, "-c", PROBE], RunTree(tmp), SandboxLimits(wall_seconds=60, cpu_seconds=60),
                             Policy(interpreter.read_only, env))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    facts: dict[str, object] = {}
    for line in reversed((result.stdout_head + result.stdout_tail).splitlines()):
        try:
            loaded = json.loads(line)
        except ValueError:
            continue
        if isinstance(loaded, dict):
            facts = loaded
            break
    where = f"{interpreter.path} ({interpreter.source})"
    if result.returncode != 0 or not facts:
        output = (result.stderr_head + result.stderr_tail) or (result.stdout_head + result.stdout_tail)
        tail = (output.strip() or result.limit_hit or f"exit status {result.returncode}")[-300:]
        raise InterpreterUnusable(
            f"the interpreter {where} does not start inside the sandbox: {tail}. Choose another with --python "
            "or the `python` setting (a project's own virtualenv is used only as data: its base Python must be "
            "a real installation, not a home or temporary folder)")
    if facts.get("pytest") is not True:
        raise InterpreterUnusable(f"pytest is not installed for {where}: install it there (pip install pytest), "
                                  "or choose another interpreter with --python or the `python` setting")
    version = str(facts.get("version", ""))
    version = version if re.fullmatch(r"\d+\.\d+\.\d+", version) else ""
    return Interpreter(interpreter.path, interpreter.source, interpreter.read_only, interpreter.from_project,
                       version)


def sandbox_env(python: str, runtime: Path | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """An allow-list, never the parent's environment: secrets stay out. `runtime` holds fixloop's own
    modules (read-only to the run)."""
    env = {
        "PATH": f"{Path(python).parent}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTEST_ADDOPTS": "",
    }
    if runtime is not None:
        env["PYTHONPATH"] = str(runtime)
    env.update(extra or {})
    return env


def interpreter_for(workspace: Path, configured: str, sandbox: Sandbox) -> Interpreter:
    """The project's interpreter, resolved as data and probed inside the sandbox with the tests' own
    environment (the probe sees nothing more)."""
    interpreter = resolve(workspace, configured)
    return probe(interpreter, sandbox, sandbox_env(interpreter.path))
