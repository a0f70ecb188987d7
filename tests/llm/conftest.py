from __future__ import annotations

from typing import Iterator

import pytest

from .fake_anthropic import FakeAnthropic


@pytest.fixture(autouse=True)
def no_anthropic_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK reads ANTHROPIC_* itself; the tests must never reach a real endpoint or use a real key."""
    import os

    for name in list(os.environ):
        if name.startswith("ANTHROPIC_"):
            monkeypatch.delenv(name)


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server
