"""The end-to-end stage proves isolation, or fails: never a green run that skipped every sandboxed test."""

from __future__ import annotations

import pytest

from fixloop.adapters.sandbox.select import probe
from tests.backends import REQUIRED


@pytest.mark.e2e
def test_an_isolating_backend_works_on_this_machine() -> None:
    found = {name: probe(name) for name in ("bwrap", "landlock")}
    assert any(sandbox is not None for sandbox, _ in found.values()), (
        "no isolating sandbox backend works here, so the end-to-end stage cannot prove isolation: "
        + "; ".join(f"{name}: {reason}" for name, (_, reason) in found.items()))


@pytest.mark.e2e
@pytest.mark.parametrize("name", sorted(REQUIRED - {"docker"}) or ["(none required)"])
def test_each_required_backend_works(name: str) -> None:
    if name == "(none required)":
        return  # FIXLOOP_TESTS_REQUIRE is empty: a developer's machine, where a missing backend skips
    sandbox, reason = probe(name)
    assert sandbox is not None, f"FIXLOOP_TESTS_REQUIRE names {name}, which does not work here: {reason}"
