"""A workspace root that is a home folder, `/`, or too large to copy: a warning at start-up, and a fix is
refused with a message naming the setting, before any copy is made."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from tests.lsp.lsp_harness import Session, lsp


def small_project(root: Path, files: int = 3) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "lib.py").write_text("def f():\n    return 1\n")
    (root / "tests" / "test_lib.py").write_text("from lib import f\n\n\ndef test_f():\n    assert f() == 2\n")
    for i in range(files):
        (root / f"data_{i}.txt").write_text("x\n")
    return root


async def refused_fix(s: Session, match: str) -> None:
    with pytest.raises(JsonRpcException, match=match):
        await s.command("fixloop.fix", {"scope": "workspace"})
    await s.until(lambda: any(m.type == t.MessageType.Error and match in m.message for m in s.client.messages),
                  what="an error message to the user")
    assert s.scratch_dirs() == []  # nothing was copied


async def test_a_home_folder_is_refused(profile: str, tmp_path: Path) -> None:
    home = small_project(tmp_path / "home" / "someone")
    async with lsp(profile, home, tmp_path, env={"HOME": str(home)}) as s:
        await s.until(lambda: any("is a home folder" in m.message for m in s.client.messages),
                      what="the start-up warning")
        warning = next(m for m in s.client.messages if "is a home folder" in m.message)
        assert warning.type == t.MessageType.Warning and "workspace.allow_home" in warning.message
        await refused_fix(s, "is a home folder")


async def test_a_tree_over_the_file_limit_is_refused(profile: str, tmp_path: Path) -> None:
    ws = small_project(tmp_path / "big", files=30)
    options = {"settings": {"sandbox": {"backend": "auto"}, "workspace": {"max_files": 10}}}
    async with lsp(profile, ws, tmp_path, options=options) as s:
        await s.until(lambda: any("more than 10 files" in m.message for m in s.client.messages),
                      what="the start-up warning")
        await refused_fix(s, "workspace.max_files")


async def test_a_project_cannot_raise_the_users_file_limit(profile: str, tmp_path: Path) -> None:
    ws = small_project(tmp_path / "big", files=30)
    (ws / "pyproject.toml").write_text("[tool.fixloop.workspace]\nmax_files = 1000000\nallow_home = true\n")
    options = {"settings": {"sandbox": {"backend": "auto"}}}
    user = tmp_path / "user.toml"
    user.write_text("[workspace]\nmax_files = 10\n")
    async with lsp(profile, ws, tmp_path, options=options, env={"FIXLOOP_CONFIG": str(user)}) as s:
        for refusal in ("workspace.max_files = 1000000: refused", "workspace.allow_home = true: refused"):
            await s.until(lambda: any(refusal in m.message for m in s.client.messages), what=refusal)
        await refused_fix(s, "more than 10 files")
