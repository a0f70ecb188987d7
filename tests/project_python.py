"""The interpreter the tests' small projects run on: a virtualenv holding pytest and nothing else.

A user's project rarely has the dev environment's pytest plugins (pytest-lsp, pytest-asyncio,
pytest-xdist, ...); loading them costs about 1.5 CPU seconds in every pytest process, and a single
fix run starts several. This virtualenv is real (made by `venv`, pytest copied file by file from the
dev environment's installation), built once per checkout and pytest version under `.cache/` in the
repository (not under /tmp: fixloop never shows the sandbox an installation there), under a file lock
so parallel test workers share it.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata as metadata
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache"
ROOTS = ("pytest",)


def _closure(roots: tuple[str, ...]) -> list[metadata.Distribution]:
    """The distributions `roots` need at run time here (markers evaluated, extras left out)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(roots)
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        dist = metadata.distribution(name)
        seen[name] = dist
        for spec in dist.requires or ():
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return [seen[n] for n in sorted(seen)]


def _build(venv: Path, dists: list[metadata.Distribution]) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    source = Path(sysconfig.get_path("purelib")).resolve()
    scripts = Path(sysconfig.get_path("scripts")).resolve()
    for dist in dists:
        for rel in dist.files or ():
            path = Path(dist.locate_file(rel)).resolve()
            if path.parent == scripts and path.is_file() and path.read_bytes()[:4] == b"\x7fELF":
                shutil.copy2(path, venv / "bin" / path.name)  # a tool's own binary (ruff's, which `python -m ruff` runs)
                continue
            if source not in path.parents or not path.is_file():
                continue  # console scripts and the like: `python -m pytest` needs none of them
            target = site / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)  # keeps mtimes, so the copied bytecode stays valid


def project_python(roots: tuple[str, ...] = ROOTS) -> str:
    """Path of the lean interpreter (built on first use; later calls only check it is complete). `roots`
    adds packages (e.g. hypothesis, for the generated property tests); each set gets its own virtualenv."""
    dists = _closure(roots)
    tag = hashlib.sha256("\n".join([sys.executable, sys.version] + [f"{d.metadata['Name']}=={d.version}" for d in dists])
                         .encode()).hexdigest()[:12]
    venv = CACHE / f"project-python-{tag}"
    python = venv / "bin" / "python"
    if (venv / ".complete").exists():
        return str(python)
    CACHE.mkdir(exist_ok=True)
    with open(CACHE / ".project-python.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test worker may be building it right now
        if not (venv / ".complete").exists():
            shutil.rmtree(venv, ignore_errors=True)
            _build(venv, dists)
            (venv / ".complete").write_text("")
    return str(python)


if __name__ == "__main__":
    # python -m tests.project_python VENV ROOT...: such a virtualenv at VENV (a real-editor test's project .venv).
    _build(Path(sys.argv[1]), _closure(tuple(sys.argv[2:]) or ROOTS))
