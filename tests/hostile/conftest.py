"""Fixtures of the hostile-project suite: `host` (root and an unprivileged user) and `backend`.

Every test here runs the real `fixloop fix` CLI on an attacker's project (several seconds each, a
minute or more as uid 65534 on a loaded machine): the whole folder is end-to-end (`-m e2e`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .harness import backend, host, nobody_python  # noqa: F401  (pytest finds fixtures by name)

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects anything
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    # The unprivileged user's virtualenv (a pip install, minutes on a loaded machine) is built before the
    # first test, outside any test's timeout; each pytest -n worker gets here, the lock builds it once.
    if session.config.option.collectonly or os.geteuid() != 0:
        return
    if any(HERE in Path(i.path).resolve().parents and "nobody" in i.nodeid for i in session.items):
        try:
            nobody_python()
        except pytest.skip.Exception:
            pass  # the tests skip with the reason themselves
