"""An entity warning as the language server publishes it: FL-M002 on the function's name, a warning,
with the entity in its data (and no memory id, so no past-fix action is offered for it)."""

from __future__ import annotations

from fixloop.core.model import EntityWarning
from fixloop.lsp.diagnostics import memory_diagnostic
from fixloop.lsp.providers import entity_pattern


def test_an_entity_warning_becomes_an_fl_m002_diagnostic_on_the_name() -> None:
    warning = EntityWarning("shop.pricing::apply_discount", 4, 4, 18, "the tests of `apply_discount` failed twice")
    pattern = entity_pattern(warning)
    d = memory_diagnostic(pattern, ["", "", "", "def apply_discount(price, q):"], len)
    assert d["range"] == {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 18}}
    assert d["code"] == "FL-M002" and d["source"] == "fixloop-memory" and d["severity"] == 2
    assert d["data"] == {"entity": "shop.pricing::apply_discount"} and d["message"] == warning.message
