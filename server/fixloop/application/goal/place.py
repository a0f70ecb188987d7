"""The project's Python text (read as data, never run) and where a new reproduction test goes."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Mapping

from fixloop.core.integrity import is_test_file
from fixloop.adapters.runner.listing import list_files
from fixloop.kit.source_text import MAX_SOURCE_BYTES, decode_source


def _read_plain(root: Path, name: str, limit: int) -> bytes | None:
    """A regular file beneath `root`, opened without following a link at its last component (a link in
    the project is data, never a way out); None when it is a link, too big, or unreadable."""
    path = root / name
    try:
        if path.is_symlink() or not path.resolve().is_relative_to(root.resolve()):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not (st.st_mode & 0o170000 == 0o100000) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def project_files(workspace: Path) -> list[str]:
    return list_files(workspace)


def read_sources(workspace: Path, names: list[str], overlays: Mapping[str, str] | None = None) -> dict[str, str]:
    """Text of the project's Python files (the editor's unsaved text first)."""
    out: dict[str, str] = {}
    for name in names:
        if not name.endswith(".py"):
            continue
        raw = _read_plain(workspace, name, MAX_SOURCE_BYTES)
        decoded = decode_source(raw) if raw is not None and len(raw) <= MAX_SOURCE_BYTES else None
        if decoded is not None:
            out[name] = decoded.text
    for name, text in (overlays or {}).items():
        if name.endswith(".py"):
            out[name] = text
    return out


def _testpaths(workspace: Path) -> list[str]:
    """pytest's `testpaths` from pyproject.toml or pytest.ini / setup.cfg / tox.ini (read as text)."""
    raw = _read_plain(workspace, "pyproject.toml", 1_000_000)
    if raw is not None:
        try:
            table = tomllib.loads(raw.decode("utf-8", "replace"))
            value = table.get("tool", {}).get("pytest", {}).get("ini_options", {}).get("testpaths")
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return value
            if isinstance(value, str):
                return value.split()
        except tomllib.TOMLDecodeError:
            pass
    for ini in ("pytest.ini", "setup.cfg", "tox.ini"):
        data = _read_plain(workspace, ini, 1_000_000)
        if data is None:
            continue
        m = re.search(r"^\s*testpaths\s*=\s*(.+)$", data.decode("utf-8", "replace"), re.M)
        if m:
            return m.group(1).split()
    return []


def _plain_dir(value: str) -> str:
    parts = [p for p in value.replace("\\", "/").strip("/").split("/") if p not in ("", ".")]
    return "" if any(p == ".." for p in parts) or value.startswith("/") else "/".join(parts)


def folder_for_tests(workspace: Path, names: list[str], module_path: str) -> str:
    """The folder the project keeps its tests in: pytest's `testpaths`, an existing `tests/` or `test/`
    (the one holding the most test files), else the folder of the module under test."""
    dirs = {n.rsplit("/", 1)[0] for n in names if "/" in n}
    for value in _testpaths(workspace):
        folder = _plain_dir(value)
        if folder and folder in dirs | {d.split("/")[0] for d in dirs}:
            return folder
    counts: dict[str, int] = {}
    for n in names:
        parts = n.split("/")
        if len(parts) > 1 and parts[0] in ("tests", "test") and is_test_file(n) and n.endswith(".py"):
            counts[parts[0]] = counts.get(parts[0], 0) + 1
    if counts:
        return max(sorted(counts), key=lambda d: counts[d])
    return module_path.rsplit("/", 1)[0] if "/" in module_path else ""


def new_test_path(workspace: Path, names: list[str], module_path: str, function: str) -> str:
    """A new file `<folder>/test_<function>_goal.py` (`_2`, `_3`, ... when taken): never an existing file."""
    folder = folder_for_tests(workspace, names, module_path)
    leaf = re.sub(r"\W", "_", function.rsplit(".", 1)[-1]).strip("_").lower() or "behaviour"
    taken = set(names)
    for n in range(1, 100):
        name = f"test_{leaf}_goal.py" if n == 1 else f"test_{leaf}_goal_{n}.py"
        rel = f"{folder}/{name}" if folder else name
        if rel not in taken and not os.path.lexists(workspace / rel):
            return rel
    raise RuntimeError("no free name for the reproduction test")
