"""Where the generated test file goes: the project's tests folder (pytest `testpaths`, else an existing
`tests/` or `test/`, else beside the module), under a name no file has yet; and writing it there without
following a link or replacing anything."""

from __future__ import annotations

import configparser
import os
import tomllib
from pathlib import Path, PurePosixPath

from fixloop.kit.fdwalk import DIR_FLAGS, descend, write_all
from fixloop.application.testgen.target import Target, TestgenError

MAX_CONFIG_BYTES = 1_000_000


def _read(path: Path) -> str:
    """A project config file as data; nothing through a link, nothing huge."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    try:
        return os.read(fd, MAX_CONFIG_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def testpaths(workspace: Path) -> list[str]:
    """pytest's `testpaths` from pyproject.toml or pytest.ini (read as data)."""
    try:
        table = tomllib.loads(_read(workspace / "pyproject.toml"))
        value = table.get("tool", {}).get("pytest", {}).get("ini_options", {}).get("testpaths", [])
        if isinstance(value, str):
            value = value.split()
        if isinstance(value, list) and value:
            return [v for v in value if isinstance(v, str)]
    except (tomllib.TOMLDecodeError, AttributeError):
        pass
    ini = configparser.ConfigParser(interpolation=None)
    try:
        ini.read_string(_read(workspace / "pytest.ini"))
        return ini.get("pytest", "testpaths", fallback="").split()
    except configparser.Error:
        return []


def _plain_dir(workspace: Path, rel: str) -> bool:
    """A real folder inside the workspace, reached without links."""
    parts = PurePosixPath(rel).parts
    if not parts or PurePosixPath(rel).is_absolute() or any(p in ("", ".", "..") for p in parts):
        return False
    here = workspace
    for part in parts:
        here = here / part
        if here.is_symlink() or not here.is_dir():
            return False
    return True


def folder_for_tests(workspace: Path, target: Target) -> str:
    for candidate in testpaths(workspace) + ["tests", "test"]:
        candidate = candidate.strip().strip("/")
        if _plain_dir(workspace, candidate):
            return candidate
    parent = str(PurePosixPath(target.path).parent)
    return "" if parent == "." else parent


def fresh_test_path(workspace: Path, target: Target) -> str:
    """A fresh name: `<folder>/test_<module>_<function>_generated[_N].py`."""
    folder = folder_for_tests(workspace, target)
    stem = f"test_{target.module.rsplit('.', 1)[-1]}_{target.function}_generated"
    for n in range(1, 100):
        name = f"{stem}.py" if n == 1 else f"{stem}_{n}.py"
        rel = f"{folder}/{name}" if folder else name
        if not os.path.lexists(workspace / rel):
            return rel
    raise TestgenError(f"too many generated test files named {stem}*.py in {folder or 'the project'}")


def create(workspace: Path, rel: str, text: str) -> None:
    """Write a new file; refuses to replace one that appeared meanwhile or to follow a link on the way."""
    parts = PurePosixPath(rel).parts
    try:
        fd = descend(os.open(workspace, DIR_FLAGS), parts[:-1])
    except OSError as e:
        raise TestgenError(f"cannot write {rel}: {e.strerror or e}; nothing was written") from None
    try:
        out = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                      dir_fd=fd)
    except FileExistsError:
        raise TestgenError(f"{rel} exists now; nothing was written (run again for a fresh name)") from None
    except OSError as e:
        raise TestgenError(f"cannot write {rel}: {e.strerror or e}; nothing was written") from None
    finally:
        os.close(fd)
    try:
        write_all(out, text.encode("utf-8"))
    finally:
        os.close(out)
