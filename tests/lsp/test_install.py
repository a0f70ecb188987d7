"""The install question in the editor: a run whose only failure is a missing package asks Install / Not now
(window/showMessageRequest); "Not now" installs nothing, "Install" installs it in the sandbox and the fix
runs again by itself (the real server over stdio, a package index on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as t

from tests.lsp.lsp_harness import as_dict, lsp
from tests.package_index import needs_tinydep
from tests.runner.test_install import _writer_backend, index  # noqa: F401  (index is a fixture)

pytestmark = pytest.mark.e2e  # a virtualenv, an install and two fix runs


@pytest.mark.parametrize("click", ["Not now", "Install"])
async def test_the_editor_asks_before_installing_and_runs_the_fix_again_after(
        click: str, tmp_path: Path, index: tuple[str, list[str]]) -> None:  # noqa: F811
    backend = _writer_backend()
    url, asked_index = index
    project = needs_tinydep(tmp_path)
    site = next((project / ".venv" / "lib").glob("python3.*/site-packages"))
    options = {"settings": {"sandbox": {"backend": backend}, "diagnostics": {"debounce_ms": 0},
                            "memory": {"enabled": False}, "offline": True, "install": {"index_url": url},
                            "python": str(project / ".venv" / "bin" / "python")}}
    questions: list[t.ShowMessageRequestParams] = []
    async with lsp("visual-studio-code", project, tmp_path, options=options) as s:
        @s.client.feature(t.WINDOW_SHOW_MESSAGE_REQUEST)
        def answer(ls: Any, params: t.ShowMessageRequestParams) -> t.MessageActionItem:
            questions.append(params)
            return t.MessageActionItem(title=click)

        started = await s.command("fixloop.fix", {})
        first = await s.run_finished(started["run_id"], timeout=240)
        assert first["status"] == "error" and first["install"]["requirement"] == "tinydep>=1"
        assert len(questions) == 1 and "tinydep>=1" in questions[0].message
        assert [a.title for a in questions[0].actions or []] == ["Install", "Not now"]
        if click == "Not now":
            assert first["installed"] == {"ok": False, "said": "declined"}
            assert not asked_index and not (site / "tinydep").exists()
            return
        assert first["installed"]["ok"], first["installed"]
        assert (site / "tinydep" / "__init__.py").is_file()

        def fixed() -> list[dict[str, Any]]:
            return [d for d in map(as_dict, s.client.notifications) if d.get("status") == "fixed"]  # type: ignore[attr-defined]

        again = (await s.until(fixed, timeout=240, what="the fix run after the install"))[0]
        assert again["run_id"] != started["run_id"] and "+    return a + b" in again["diff"]
