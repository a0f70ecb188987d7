"""The rule catalogue (`fixloop.adapters.safety.catalog.RULES`) is the one list of safety rules; the README cannot
import it, so its table is held to it here: every code once, in order, and "blocks a candidate" exactly for
the rules whose severity is "error"."""

from __future__ import annotations

import re
from pathlib import Path

from fixloop.adapters.safety.catalog import RULES

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_rule_table_is_the_catalogue() -> None:
    table = README.read_text(encoding="utf-8").split("| code | flags | blocks a candidate |", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| (FL-S\d{3}) \|.*\| ([^|]+) \|$", table, re.M)
    assert [code for code, _ in rows] == sorted(RULES)
    for code, blocks in rows:
        assert blocks.strip().startswith("yes") == (RULES[code].severity == "error"), (code, blocks)
