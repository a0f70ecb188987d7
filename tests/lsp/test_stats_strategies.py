"""`fixloop.stats` over a real server on stdio carries the strategies compared (an added key)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.history.synth import Cand, Spec, write
from tests.lsp.lsp_harness import lsp

pytestmark = pytest.mark.e2e


async def test_stats_compares_the_strategies(profile: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "__init__.py").write_text("")
    write(ws, Spec("20261101-090000-00000a", cands=[Cand(status="plausible")], strategy="memory-first"))
    write(ws, Spec("20261101-100000-00000b", cands=[Cand(status="failed"), Cand(status="plausible")],
                   strategy="mutation-first"))
    write(ws, Spec("20261101-110000-00000c", status="gave_up", cands=[Cand(status="failed")], strategy="mutation-first"))
    async with lsp(profile, ws, tmp_path, env={"XDG_DATA_HOME": str(tmp_path / "data")}) as s:
        k = await s.command("fixloop.stats", {})
    rows = k["strategies"]
    assert list(rows) == ["mutation-first", "memory-first"]
    assert (rows["mutation-first"]["attempted"], rows["mutation-first"]["fixed"]) == (2, 1)
    assert rows["mutation-first"]["candidates_per_fix"] == 2.0 and rows["memory-first"]["fix_rate"] == 1.0
    assert rows["mutation-first"]["fix_rate_interval"][0] < 0.5 < rows["mutation-first"]["fix_rate_interval"][1]
