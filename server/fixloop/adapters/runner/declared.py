"""Which distribution provides a module the tests could not import, and the command that installs it.

The project's own declarations come first (`[project.dependencies]` and its optional groups,
`[dependency-groups]`, Poetry's tables, `requirements*.txt` at the root), read as data with no link
followed; then the import names that differ from their distribution's (`yaml` is PyYAML). fixloop installs
nothing on its own: with your yes, install.py does (wheels only, inside the sandbox).
"""

from __future__ import annotations

import os
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from fixloop.core.model import TestReport
from fixloop.adapters.sandbox.hostio import UnsafeFile, read_beneath
from fixloop.adapters.runner.missing import NO_MODULE, ROOTS, missing_modules

MAX_BYTES = 1_000_000  # a declaration file larger than this is not read
REQUIREMENTS = ("requirements.txt", "requirements-dev.txt", "requirements-test.txt", "requirements_dev.txt",
                "requirements_test.txt", "dev-requirements.txt", "test-requirements.txt")
# Import names whose distribution is called otherwise (the common ones; the project's own declarations win).
IMPORT_NAMES = {
    "yaml": "PyYAML", "PIL": "Pillow", "cv2": "opencv-python", "sklearn": "scikit-learn", "skimage": "scikit-image",
    "bs4": "beautifulsoup4", "dateutil": "python-dateutil", "attr": "attrs", "jwt": "PyJWT", "Crypto": "pycryptodome",
    "dotenv": "python-dotenv", "serial": "pyserial", "usb": "pyusb", "OpenSSL": "pyOpenSSL", "git": "GitPython",
    "zmq": "pyzmq", "fitz": "PyMuPDF", "docx": "python-docx", "pptx": "python-pptx", "magic": "python-magic",
    "google.protobuf": "protobuf", "mpl_toolkits": "matplotlib", "jose": "python-jose", "slugify": "python-slugify",
    "multipart": "python-multipart", "Levenshtein": "python-Levenshtein", "websocket": "websocket-client",
    "pkg_resources": "setuptools", "typing_extensions": "typing-extensions", "MySQLdb": "mysqlclient",
    "psycopg2": "psycopg2-binary", "ruamel": "ruamel.yaml", "markdown_it": "markdown-it-py",
}


@dataclass(frozen=True)
class Declared:
    requirement: str  # as the project wrote it (`PyYAML>=6`)
    where: str  # `pyproject.toml [project.optional-dependencies] test`, `requirements-dev.txt`


def declared(workspace: Path) -> list[Declared]:
    """Every requirement the project declares, where it says so. Unreadable files count as none."""
    out: list[Declared] = []
    raw = _read(workspace, "pyproject.toml")
    if raw is not None:
        try:
            out += list(_from_pyproject(tomllib.loads(raw)))
        except tomllib.TOMLDecodeError:
            pass
    for name in REQUIREMENTS:
        text = _read(workspace, name)
        for line in (text or "").splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-"):
                out.append(Declared(line, name))
    return out


def _read(workspace: Path, name: str) -> str | None:
    try:
        return read_beneath(workspace, name, MAX_BYTES).decode("utf-8", "replace")
    except (OSError, UnsafeFile):
        return None


def _from_pyproject(data: dict[str, Any]) -> Iterator[Declared]:
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    yield from _strings(project.get("dependencies"), "pyproject.toml [project.dependencies]")
    for group, reqs in _tables(project.get("optional-dependencies")):
        yield from _strings(reqs, f"pyproject.toml [project.optional-dependencies] {group}")
    for group, reqs in _tables(data.get("dependency-groups")):
        yield from _strings(reqs, f"pyproject.toml [dependency-groups] {group}")
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    if isinstance(poetry, dict):
        tables = [("", poetry.get("dependencies")), ("", poetry.get("dev-dependencies"))]
        tables += [(g, t.get("dependencies")) for g, t in _tables(poetry.get("group")) if isinstance(t, dict)]
        for group, table in tables:
            for name, _ in _tables(table):
                if name.lower() != "python":
                    yield Declared(name, f"pyproject.toml [tool.poetry] {group}".rstrip())


def _tables(value: Any) -> list[tuple[str, Any]]:
    return [(str(k), v) for k, v in value.items()] if isinstance(value, dict) else []


def _strings(value: Any, where: str) -> Iterator[Declared]:
    if isinstance(value, list):
        yield from (Declared(v, where) for v in value if isinstance(v, str))


def _name(requirement: str) -> str:
    try:
        return canonicalize_name(Requirement(requirement).name)
    except InvalidRequirement:
        return ""


def providing(module: str, project: Sequence[Declared]) -> tuple[str, Declared | None]:
    """(the distribution that provides `module`, the project's declaration of it or None); ('', None) when
    nothing says."""
    top = module.split(".")[0]
    guesses = [IMPORT_NAMES.get(module, ""), IMPORT_NAMES.get(top, ""), top]
    for guess in (g for g in guesses if g):
        for d in project:
            if _name(d.requirement) == canonicalize_name(guess):
                return Requirement(d.requirement).name, d
    known = IMPORT_NAMES.get(module) or IMPORT_NAMES.get(top)
    return (known, None) if known else ("", None)


def sanitized(requirement: str) -> str:
    """The requirement as a command may repeat it: name, extras and versions made again from the parsed
    requirement. A direct URL the project names is left out (the package comes from your index, by name),
    and so are markers: a repository cannot have fixloop suggest fetching its link, or slip an option in."""
    parsed = Requirement(requirement)
    extras = f"[{','.join(sorted(parsed.extras))}]" if parsed.extras else ""
    return f"{parsed.name}{extras}{parsed.specifier}"


@dataclass(frozen=True)
class Offer:
    """A package to install into the project's interpreter, and where the project asks for it."""

    module: str  # what the tests could not import
    requirement: str  # sanitized: `PyYAML>=6`, never a URL or an option
    where: str  # the project's declaration of it (`pyproject.toml [project.dependencies]`), or ""
    python: str  # the interpreter it goes into

    @property
    def command(self) -> str:
        return f"{shlex.quote(self.python or 'python')} -m pip install {shlex.quote(self.requirement)}"

    def advice(self) -> str:
        python = self.python or "the interpreter"
        dist = Requirement(self.requirement).name
        if self.where:
            said = (f"the tests import {self.module!r}, from {dist}, which the project declares ({self.where}) but "
                    f"{python} does not have: install it there, `{self.command}`")
        else:
            said = (f"the tests import {self.module!r}, usually from the distribution {dist}, which {python} does "
                    f"not have and the project does not declare: `{self.command}` if that is the one")
        return said + " (or `fixloop fix --allow-install`: fixloop installs nothing without your yes)"


def install_offer(workspace: Path, python: str, report: TestReport) -> Offer | None:
    """For the first module the tests could not import that the project does not itself contain: the
    distribution to install, or None when nothing says which."""
    modules = missing_modules(report)
    if not modules:
        return None
    project = declared(workspace)
    for module in modules:
        if _provided_by_the_project(workspace, module):
            continue
        dist, where = providing(module, project)
        if where is not None:
            return Offer(module, sanitized(where.requirement), f"{where.where}: {where.requirement}", python)
        if dist:
            return Offer(module, sanitized(dist), "", python)
    return None


def install_advice(workspace: Path, python: str, report: TestReport) -> str:
    """What to install, and how ('' when nothing is missing or nothing says which distribution)."""
    offer = install_offer(workspace, python, report)
    return offer.advice() if offer is not None else ""


def _provided_by_the_project(workspace: Path, module: str) -> bool:
    top = module.split(".")[0]
    return any(os.path.lexists(workspace / f"{root}{top}") or os.path.lexists(workspace / f"{root}{top}.py")
               for root in ROOTS)


def only_imports_fail(report: TestReport) -> bool:
    """Every failure the run saw is a module it could not import."""
    texts = [*report.collection_errors, *(r.message + "\n" + r.longrepr for r in report.failed)]
    return bool(texts) and all(NO_MODULE.search(t) for t in texts)
