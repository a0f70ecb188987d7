"""The server's settings: `initializationOptions` and the `fixloop` configuration section,
parsed into the same typed `Settings` the CLI uses. Bad input yields messages and defaults."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..config import Settings, load, project_settings

REVIEW_MODES = ("workspaceEdit", "client")


@dataclass(frozen=True)
class ServerConfig:
    settings: Settings = field(default_factory=Settings)
    review: str = "workspaceEdit"
    # Kept in memory only: never logged, written, or passed to the sandbox.
    api_key: str = field(default="", repr=False)


def parse_options(raw: Any, workspace: Path | None, previous: ServerConfig | None = None,
                  where: str = "initializationOptions") -> tuple[ServerConfig, list[str]]:
    """`{"settings": {...}, "review": str, "apiKey": str}` over the project's [tool.fixloop] (which may only
    tighten, over the user's config file).

    `None` (a client with nothing to say) keeps what we have. An empty array counts as no settings: Lua
    clients (Neovim) encode an empty table as `[]`."""
    problems: list[str] = []
    if _empty_array(raw):
        raw = None
    base = previous or ServerConfig()
    settings = Settings()
    if workspace is not None:
        settings, more = project_settings(workspace)
        problems.extend(more)
    if raw is None:
        if previous is None:
            return ServerConfig(settings), problems
        return base, problems
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: expected an object, got {type(raw).__name__}; using defaults")
        return ServerConfig(settings, base.review, base.api_key), problems
    for key in raw:
        if key not in ("settings", "review", "apiKey"):
            problems.append(f"{where}.{key}: unknown option (ignored)")
    user = raw.get("settings")
    if user is not None and not _empty_array(user):
        settings, more = load(user, settings, f"{where}.settings.") if isinstance(user, Mapping) else (
            settings, [f"{where}.settings: expected an object; using defaults"])
        problems.extend(more)
    review = raw.get("review", base.review)
    if review not in REVIEW_MODES:
        problems.append(f"{where}.review: {review!r} is not one of {', '.join(REVIEW_MODES)}; using 'workspaceEdit'")
        review = "workspaceEdit"
    api_key = raw.get("apiKey", base.api_key)
    if not isinstance(api_key, str):
        problems.append(f"{where}.apiKey: expected a string (the value is not shown); ignored")
        api_key = base.api_key
    return ServerConfig(settings, review, api_key), problems


def _empty_array(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and not value


def overlay(base: Any, top: Any) -> Any:
    """`top` deep-merged over `base` (objects merge key by key; anything else replaces)."""
    if isinstance(base, Mapping) and isinstance(top, Mapping):
        out = dict(base)
        for key, value in top.items():
            out[key] = overlay(base.get(key), value) if key in base else value
        return out
    return base if top is None else top
