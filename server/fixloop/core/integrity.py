"""Which files are tests: candidates may not touch them (the test-integrity guard)."""

from __future__ import annotations

import posixpath


def is_test_file(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    return (
        "tests" in parts[:-1]
        or "test" in parts[:-1]
        or name == "conftest.py"
        or (name.startswith("test_") and name.endswith(".py"))
        or name.endswith("_test.py")
        or posixpath.splitext(name)[0] == "tests"
    )
