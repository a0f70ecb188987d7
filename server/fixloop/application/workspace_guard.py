"""Is this folder a project fixloop may copy? Not the filesystem root, not a home folder, not a tree larger
than the user's limits (`workspace.max_files`, `workspace.max_mb`): each would be copied whole."""

from __future__ import annotations

import os
from pathlib import Path

from fixloop.application.config import WorkspaceSettings
from fixloop.adapters.runner.listing import CopyRule, listing

SETTING_HINT = ("--set workspace.{key}={value}, `[workspace] {key} = {value}` in ~/.config/fixloop/config.toml, "
                "or settings.workspace.{key} in the editor's initializationOptions")


def homes() -> set[Path]:
    found = {Path("/root"), Path.home()}
    try:
        found |= {Path("/home") / name for name in os.listdir("/home")}
    except OSError:
        pass
    return {Path(os.path.realpath(h)) for h in found}


def refusal(root: Path, settings: WorkspaceSettings, count: bool = True) -> str:
    """'' when `root` may be fixed, else a message saying why and which setting the user can change.
    `count=False` skips the size count (only the cheap checks)."""
    root = Path(os.path.realpath(root))
    hint = SETTING_HINT.format(key="allow_home", value="true")
    if root == Path("/") and not settings.allow_home:
        return (f"refusing to fix {root}: it is the filesystem root and would be copied whole. Open the project's "
                f"own folder instead (to allow it anyway: {hint})")
    if root in homes() and not settings.allow_home:
        return (f"refusing to fix {root}: it is a home folder and would be copied whole (with your keys and "
                f"settings). Open the project's own folder instead (to allow it anyway: {hint})")
    if not count:
        return ""
    files, size = measure(root, settings.max_files, settings.max_mb * 1024 * 1024, settings.copy_rule())
    if files > settings.max_files:
        return (f"refusing to fix {root}: it holds more than {settings.max_files} files to copy. Open the project's "
                f"own folder, or raise the limit ({SETTING_HINT.format(key='max_files', value=settings.max_files * 5)})")
    if size > settings.max_mb * 1024 * 1024:
        return (f"refusing to fix {root}: it holds more than {settings.max_mb} MB to copy. Open the project's own "
                f"folder, or raise the limit ({SETTING_HINT.format(key='max_mb', value=settings.max_mb * 5)})")
    return ""


def measure(root: Path, max_files: int, max_bytes: int, rule: CopyRule = CopyRule()) -> tuple[int, int]:
    """(files, bytes) of what a copy would take, counted until either limit is passed (then it stops)."""
    found = listing(root, rule, stop_files=max_files, stop_bytes=max_bytes)
    return found.files, found.bytes
