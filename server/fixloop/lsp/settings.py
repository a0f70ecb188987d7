"""The server's settings: `initializationOptions` and the `fixloop` configuration section, parsed into the
same typed `Settings` the CLI uses. Bad input yields messages and defaults.

Who may decide what (docs/protocol.md, "Where settings come from"):
- `initializationOptions.settings` is the user's own: the clients build it from the user's scope only
  (VS Code's user and machine settings, Neovim's `setup()` from the user's config, Emacs' init file). It
  is trusted, like CLI flags, over the user's config file and the project's tighten-only [tool.fixloop].
- `initializationOptions.workspaceSettings` and the whole answer to `workspace/configuration` are the
  repository's: a client may build them from files a repository ships (`.vscode/settings.json`,
  `.dir-locals.el`, `.helix/languages.toml`, `.zed/settings.json`, `.nvim.lua`). They pass the rules of
  [tool.fixloop] (`config.project_table`): they may tighten a limit, and never choose the sandbox, an
  interpreter outside the project, a location, an endpoint, the model, a price, a budget or a key. Each
  value not taken is named (a warning) and listed by `fixloop.settings`.
- `workspaceTrusted: false` (VS Code's Restricted Mode): the tests run in an isolating sandbox whatever
  the user's own settings say (`sandbox.backend = "none"` is refused).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from fixloop.application.config import Settings, load, project_settings, project_table

REVIEW_MODES = ("workspaceEdit", "client")
INIT = "initializationOptions"
ANSWER = "workspace/configuration fixloop"
INIT_KEYS = ("settings", "workspaceSettings", "review", "apiKey", "workspaceTrusted")
ANSWER_KEYS = ("settings", "workspaceSettings", "review", "apiKey")  # an answer may echo the init options
UNSANDBOXED, AUTO = "none", "auto"  # sandbox.backend values (sandbox/backends.py)


@dataclass(frozen=True)
class ServerConfig:
    settings: Settings = field(default_factory=Settings)
    review: str = "workspaceEdit"
    # Kept in memory only: never logged, written, or passed to the sandbox.
    api_key: str = field(default="", repr=False)
    workspace_trusted: bool = True  # the client's word; False in VS Code's Restricted Mode
    ignored: tuple[str, ...] = ()  # what the workspace asked for and did not get, one message each
    problems: tuple[str, ...] = ()  # every settings problem found (ignored ones too): named in each run's log


def parse_options(init: Any, workspace: Path | None, answer: Any = None) -> tuple[ServerConfig, list[str]]:
    """The user's `initializationOptions` over the project's [tool.fixloop] (which may only tighten, over the
    user's config file), then the workspace's values under the project's rules: the options'
    `workspaceSettings`, then the client's `workspace/configuration` answer (`answer`, when there is one).

    Lua clients (Neovim) encode an empty table as `[]`: an empty array counts as nothing set."""
    problems: list[str] = []
    settings = Settings()
    if workspace is not None:
        settings, more = project_settings(workspace)
        problems.extend(more)
    options = _object(init, INIT, INIT_KEYS, problems)
    user = options.get("settings")
    if user is not None and not _empty_array(user):
        settings, more = load(user, settings, f"{INIT}.settings.") if isinstance(user, Mapping) else (
            settings, [f"{INIT}.settings: expected an object; using defaults"])
        problems.extend(more)
    review = options.get("review", "workspaceEdit")
    if review not in REVIEW_MODES:
        problems.append(f"{INIT}.review: {review!r} is not one of {', '.join(REVIEW_MODES)}; using 'workspaceEdit'")
        review = "workspaceEdit"
    api_key = options.get("apiKey", "")
    if not isinstance(api_key, str):
        problems.append(f"{INIT}.apiKey: expected a string (the value is not shown); ignored")
        api_key = ""
    trusted = options.get("workspaceTrusted", True)
    if not isinstance(trusted, bool):
        problems.append(f"{INIT}.workspaceTrusted: expected true or false; taken as false")
        trusted = False
    ignored: list[str] = []
    own = dataclasses.asdict(settings)  # the user's: a workspace value equal to one of these is an echo, no request
    settings = _untrusted(options.get("workspaceSettings"), settings, own, workspace, "workspace settings",
                          problems, ignored)
    if answer is not None and not _empty_array(answer):
        reply = _object(answer, ANSWER, ANSWER_KEYS, problems)
        for key in ("settings", "workspaceSettings"):
            settings = _untrusted(reply.get(key), settings, own, workspace, f"{ANSWER}.{key}", problems, ignored)
        for key, now in (("review", review), ("apiKey", api_key)):
            if key in reply and reply[key] != now:
                ignored.append(f"{ANSWER}.{key}: ignored, it is taken only from {INIT} (your own settings; the "
                               "answer to workspace/configuration may come from the workspace's files)")
    if not trusted and settings.sandbox.backend == UNSANDBOXED:
        ignored.append("sandbox.backend = 'none': refused in an untrusted workspace (Restricted Mode), where the "
                       "project's tests run only in an isolating sandbox; using 'auto'")
        settings = dataclasses.replace(settings, sandbox=dataclasses.replace(settings.sandbox, backend=AUTO))
    said = problems + ignored
    return ServerConfig(settings, review, api_key, trusted, tuple(ignored), tuple(said)), said


def _object(raw: Any, where: str, keys: tuple[str, ...], problems: list[str]) -> Mapping[str, Any]:
    if raw is None or _empty_array(raw):
        return {}
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: expected an object, got {type(raw).__name__}; using defaults")
        return {}
    problems.extend(f"{where}.{key}: unknown option (ignored)" for key in raw if key not in keys)
    return raw


def _untrusted(table: Any, settings: Settings, own: Mapping[str, Any], workspace: Path | None, where: str,
               problems: list[str], ignored: list[str]) -> Settings:
    """`table` over `settings` as a project file may set it: refused keys named in `ignored`."""
    if table is None or _empty_array(table):
        return settings
    if not isinstance(table, Mapping):
        problems.append(f"{where}: expected an object; ignored")
        return settings
    # A value the user's own settings hold, or already in effect, is no request (clients echo them back).
    wanted = _changes(_changes(table, own), dataclasses.asdict(settings))
    if workspace is None and "python" in wanted:
        ignored.append(f"{where}: python: ignored, there is no workspace folder for it to be inside")
        wanted.pop("python")
    allowed, refused = project_table(wanted, settings, workspace or Path("/nonexistent"))
    ignored.extend(f"{where}: {r}" for r in refused)
    settings, more = load(allowed, settings, f"{where}.")
    problems.extend(more)
    return settings


def _changes(table: Mapping[str, Any], now: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = str(key).replace("-", "_")
        current = now.get(name, _Missing)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            sub = _changes(value, current)
            if sub:
                out[key] = sub
        elif not _same(value, current):
            out[key] = value
    return out


class _Missing:
    pass


def _same(value: Any, current: Any) -> bool:
    if isinstance(value, bool) or isinstance(current, bool):
        return value is current
    if isinstance(current, tuple) and isinstance(value, list):
        return tuple(value) == current
    return isinstance(value, (int, float, str)) and isinstance(current, (int, float, str)) and value == current


def _empty_array(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and not value


def effective(config: ServerConfig) -> dict[str, Any]:
    """`fixloop.settings`: the settings in effect (a key only as set or not) and what the workspace did not get."""
    settings = json.loads(json.dumps(dataclasses.asdict(config.settings)))
    settings["llm"].pop("api_key", None)
    return {"settings": settings, "review": config.review, "apiKey": bool(config.api_key or config.settings.llm.api_key),
            "workspaceTrusted": config.workspace_trusted, "ignored": list(config.ignored)}
