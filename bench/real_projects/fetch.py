"""Fetch and build the real projects of bench/real_projects/projects.toml, as a user has them.

For each project: download its pinned sdist from the package index (`pip download --no-deps --no-binary
:all:`), check its sha256, unpack it, take away what a git checkout does not have (PKG-INFO, *.egg-info,
the files the install generates), make sure the generated files are git-ignored (appending to the
project's .gitignore only what it lacks), `git init` + commit + tag the release, then create the
virtualenv (inside the project as `.venv`, or outside it, as the manifest says), install the pinned
test dependencies and the project itself editable (`pip install -e .` through its own build backend,
which writes the generated files again). Everything lives under `.cache/real_projects/` (git-ignored).

A built project is reused while its manifest entry is unchanged; `--rebuild` forces a fresh build.

    python bench/real_projects/fetch.py [--project NAME ...] [--rebuild]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CACHE = REPO / ".cache" / "real_projects"
MANIFEST = HERE / "projects.toml"
# What a checkout never has but an sdist carries: build metadata written by `setup.py sdist` / the backend.
NOT_IN_CHECKOUT = ("PKG-INFO", "*.egg-info", "src/*.egg-info")
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@localhost", "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}


@dataclass
class Project:
    name: str
    dist: str  # the name on the package index
    version: str
    sha256: str
    layout: str  # src | flat
    backend: str  # setuptools | hatchling | poetry-core | flit
    venv: str  # inside | outside
    editable: str  # how the install points at the project (for the README and the report)
    generated: list[str]  # files the install writes that git ignores
    test_deps: list[str]
    build_deps: list[str]  # pins of the build backend (applied to pip's isolated build as constraints)
    pytest_args: list[str]  # the project's own test command, after `python -m pytest`
    why: str = ""
    deselect: list[dict[str, str]] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return CACHE / "projects" / self.name

    @property
    def venv_dir(self) -> Path:
        return self.root / ".venv" if self.venv == "inside" else CACHE / "venvs" / self.name

    @property
    def python(self) -> Path:
        return self.venv_dir / "bin" / "python"

    def test_argv(self) -> list[str]:
        """The project's own test command: its interpreter, pytest, its args and the recorded deselects."""
        argv = [str(self.python), "-m", "pytest", *self.pytest_args]
        for item in self.deselect:
            argv += ["--deselect", item["id"]]
        return argv

    def fixloop_pytest_args(self) -> list[str]:
        return [*self.pytest_args, *[a for d in self.deselect for a in ("--deselect", d["id"])]]

    def env(self) -> dict[str, str]:
        """The environment a user's shell has: an activated virtualenv for an outside one, nothing for `.venv`."""
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
        if self.venv == "outside":
            env["VIRTUAL_ENV"] = str(self.venv_dir)
            env["PATH"] = f"{self.venv_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return env

    def stamp(self) -> str:
        raw = json.dumps(self.__dict__, sort_keys=True, default=str)
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


def load_projects() -> dict[str, Project]:
    data = tomllib.loads(MANIFEST.read_text())
    return {name: Project(name=name, **entry) for name, entry in data["projects"].items()}


def run(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 1800) -> str:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download(p: Project) -> Path:
    """The verified sdist in the cache (downloaded once)."""
    folder = CACHE / "sdists"
    folder.mkdir(parents=True, exist_ok=True)
    found = [f for f in folder.glob("*.tar.gz") if sha256_of(f) == p.sha256]
    if found:
        return found[0]
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", tmp,
             f"{p.dist}=={p.version}"])
        got = [Path(f) for f in glob.glob(os.path.join(tmp, "*.tar.gz"))]
        if len(got) != 1:
            raise RuntimeError(f"{p.name}: expected one sdist, got {got}")
        digest = sha256_of(got[0])
        if digest != p.sha256:
            raise RuntimeError(f"{p.name}: sha256 {digest} != pinned {p.sha256}")
        target = folder / got[0].name
        shutil.move(str(got[0]), target)
        return target


def unpack(sdist: Path, dest: Path) -> None:
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp, tarfile.open(sdist) as tar:
        tar.extractall(tmp, filter="data")
        (top,) = Path(tmp).iterdir()
        top.rename(dest)


def as_checkout(p: Project) -> list[str]:
    """Remove what only an sdist has; make the generated files ignored. Returns the lines added to .gitignore."""
    for pattern in NOT_IN_CHECKOUT:
        for path in p.root.glob(pattern):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    for rel in p.generated:
        for path in p.root.glob(rel):
            path.unlink()
    ignore = p.root / ".gitignore"
    text = ignore.read_text() if ignore.exists() else ""
    run(["git", "init", "-q", "-b", "main"], cwd=p.root)
    # Every real repository ignores its caches and build metadata; an inside virtualenv is ignored too.
    wanted = [*p.generated, *([".venv/"] if p.venv == "inside" else []), "__pycache__/", "*.egg-info/",
              ".pytest_cache/"]
    added = []
    for rel in wanted:
        probe = rel.rstrip("/") + ("/x" if rel.endswith("/") else "")
        if subprocess.run(["git", "check-ignore", "-q", "--no-index", probe], cwd=p.root).returncode != 0:
            added.append(rel if "*" in rel or rel.endswith("/") else "/" + rel)
    if added:
        ignore.write_text(text + ("" if not text or text.endswith("\n") else "\n")
                          + "# added by bench/real_projects (what the project's checkout ignores)\n"
                          + "".join(f"{line}\n" for line in added))
    return added


def commit(p: Project) -> None:
    env = {**os.environ, **GIT_ENV}
    run(["git", "add", "-A"], cwd=p.root, env=env)
    run(["git", "commit", "-q", "-m", f"{p.dist} {p.version} (from the sdist)"], cwd=p.root, env=env)
    run(["git", "tag", p.version], cwd=p.root, env=env)


def base_python() -> str:
    """A real interpreter (not a pyenv shim, not a virtualenv) to make the project's virtualenv from."""
    out = run(["python3", "-c", "import sys; print(getattr(sys, '_base_executable', sys.executable))"])
    return os.path.realpath(out.strip())


def make_venv(p: Project) -> None:
    if p.venv_dir.exists():
        shutil.rmtree(p.venv_dir)
    p.venv_dir.parent.mkdir(parents=True, exist_ok=True)
    run([base_python(), "-m", "venv", str(p.venv_dir)])
    pip = [str(p.python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    constraints = CACHE / f"build-constraints-{p.name}.txt"
    constraints.write_text("".join(f"{line}\n" for line in p.build_deps))
    # The build backend's pins reach pip's isolated build environment only through PIP_CONSTRAINT.
    env = {**p.env(), "PIP_CONSTRAINT": str(constraints)}
    run(pip + p.test_deps, env=env)
    run(pip + ["-e", "."], cwd=p.root, env=env)


def check_built(p: Project) -> list[str]:
    """Problems with the build: generated files missing, tracked or not ignored; a dirty tree."""
    problems = []
    for rel in p.generated:
        paths = list(p.root.glob(rel))
        if not paths:
            problems.append(f"{rel} was not generated by the install")
        for path in paths:
            r = path.relative_to(p.root).as_posix()
            if run(["git", "ls-files", r], cwd=p.root).strip():
                problems.append(f"{r} is tracked")
            if subprocess.run(["git", "check-ignore", "-q", r], cwd=p.root).returncode != 0:
                problems.append(f"{r} is not ignored")
    status = run(["git", "status", "--porcelain"], cwd=p.root).strip()
    if status:
        problems.append(f"tree not clean after install: {status[:300]}")
    return problems


@contextlib.contextmanager
def exclusive():
    """One bench at a time on the built projects: each resets, bugs and judges them in place (two smoke runs
    under pytest -n would otherwise build and bug one project at once)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".bench.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def build(p: Project, rebuild: bool = False, log=print) -> Project:
    stamp_file = CACHE / "stamps" / f"{p.name}.json"
    if not rebuild and stamp_file.exists() and p.python.exists():
        if json.loads(stamp_file.read_text()).get("stamp") == p.stamp():
            return p
    started = time.monotonic()
    sdist = download(p)
    if p.root.exists():
        shutil.rmtree(p.root)
    p.root.parent.mkdir(parents=True, exist_ok=True)
    unpack(sdist, p.root)
    added = as_checkout(p)
    commit(p)
    make_venv(p)
    problems = check_built(p)
    if problems:
        raise RuntimeError(f"{p.name}: " + "; ".join(problems))
    stamp_file.parent.mkdir(parents=True, exist_ok=True)
    stamp_file.write_text(json.dumps({"stamp": p.stamp(), "gitignore_added": added}))
    log(f"built {p.name} {p.version} in {time.monotonic() - started:.0f}s"
        + (f" (.gitignore += {', '.join(added)})" if added else ""))
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--project", nargs="*", default=None)
    ap.add_argument("--rebuild", action="store_true")
    args = ap.parse_args()
    projects = load_projects()
    for name in args.project or list(projects):
        build(projects[name], args.rebuild)
        print(f"{name}: {projects[name].root} (python {projects[name].python})", flush=True)


if __name__ == "__main__":
    main()
