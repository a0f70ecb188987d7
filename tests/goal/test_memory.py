"""A goal's words, spec, test and fix in the real memory store (LanceDB), found again by similar words."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixloop.application.config import MemorySettings
from fixloop.core.model import FileChange, Patch
from fixloop.application.goal import memory
from fixloop.core.goal import Spec


@pytest.mark.e2e  # LanceDB and the embedder load (about 15 s)
def test_a_goal_is_remembered_and_recalled_by_similar_words(tmp_path: Path) -> None:
    settings = MemorySettings(uri=str(tmp_path / "mem"))
    spec = Spec("the bulk discount starts one item too late", "discount(10) == 0.1", "not yet", "shop/cart.py::discount",
                "discount(10) == 0.1")
    fix = Patch((FileChange("shop/cart.py", "if qty > 10:\n", "if qty >= 10:\n"),), "mutation", "comparison_swap",
                "> -> >=")
    assert memory.remember(settings, tmp_path, "run-1", spec.goal, spec, "tests/test_discount_goal.py", fix)
    other = Spec("names are shown in upper case", "name('a') == 'a'", "", "shop/names.py::name", "")
    assert memory.remember(settings, tmp_path, "run-2", other.goal, other, "tests/test_name_goal.py", None)

    found = memory.recall(settings, tmp_path, "the bulk discount is applied one item too late")
    assert found and found[0]["where"] == "shop/cart.py::discount"
    assert found[0]["fix"].startswith("the bulk discount starts one item too late -> discount(10) == 0.1 -> "
                                      "tests/test_discount_goal.py -> mutation/comparison_swap")
    assert "+if qty >= 10:" in found[0]["diff"]
    assert memory.recall(MemorySettings(enabled=False), tmp_path, "the bulk discount") == []
