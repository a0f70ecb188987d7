"""Which sandbox backends a test run must have. A backend this machine lacks skips its tests on a developer's
machine, but fails them where the run names it in FIXLOOP_TESTS_REQUIRE (CI: `bwrap,landlock,docker`), so a
suite cannot pass green by skipping every test that proves isolation."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

REQUIRED = frozenset(b for b in os.environ.get("FIXLOOP_TESTS_REQUIRE", "").split(",") if b)


def unavailable(backend: str, reason: str = "") -> NoReturn:
    """Skip the test, or fail it when this run requires `backend`."""
    message = f"{backend} unavailable here" + (f": {reason}" if reason else "")
    if backend in REQUIRED:
        pytest.fail(f"{message} (FIXLOOP_TESTS_REQUIRE={','.join(sorted(REQUIRED))} requires it)", pytrace=False)
    pytest.skip(message)
