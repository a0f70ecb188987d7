"""Both client capability profiles for every end-to-end scenario."""

from __future__ import annotations

import pytest
from tests.lsp.lsp_harness import PROFILES


@pytest.fixture(params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    return request.param
