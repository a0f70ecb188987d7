"""Typed settings with defaults, parsed once at the edge.

Sources, later wins: defaults < `[tool.fixloop]` in the project's pyproject.toml < LSP
initializationOptions / workspace configuration < CLI flags. A bad value is reported and
replaced by its default; it never stops the program.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .core.model import Limits


@dataclass(frozen=True)
class LLMSettings:
    enabled: bool = True
    model: str = "claude-sonnet-5-5"
    base_url: str = ""
    api_key_env: str = "ANTHROPIC_API_KEY"
    api_key: str = field(default="", repr=False)  # from the editor; prefer the environment variable
    timeout_seconds: float = 60.0
    max_retries: int = 2
    stream: bool = True  # streamed answers can be stopped between events
    max_tool_rounds: int = 8  # model turns spent on one patch before giving up on it
    max_output_tokens: int = 4096
    context_tokens: int = 24_000
    daily_budget_usd: float = 0.0  # 0 = no daily budget
    input_price_per_mtok: float = 3.0
    output_price_per_mtok: float = 15.0
    cache_read_price_per_mtok: float = 0.3
    cache_write_price_per_mtok: float = 3.75
    first: bool = False  # ask the model before the offline engine


@dataclass(frozen=True)
class SandboxSettings:
    backend: str = "auto"  # auto | bwrap | landlock | docker | none
    memory_mb: int = 4096
    processes: int = 512
    disk_quota_mb: int = 2048
    docker_image: str = "python:3.11-slim"


@dataclass(frozen=True)
class MemorySettings:
    enabled: bool = True
    uri: str = ""  # empty: the per-user data directory
    min_pattern_count: int = 2
    max_rows: int = 200_000
    embedder: str = "hashing"  # hashing | hashing:DIM | package.module:Factory
    index_threshold: int = 50_000  # failures rows before a vector index is built at compaction


@dataclass(frozen=True)
class DiagnosticsSettings:
    safety: bool = True
    memory: bool = True
    max_file_bytes: int = 1_000_000
    debounce_ms: int = 0  # wait this long after the last change; edits during a check fold into the next one
    incremental: bool = True  # reuse the previous syntax tree when a document changes
    bandit_on_save: bool = True


@dataclass(frozen=True)
class Settings:
    python: str = ""
    max_iterations: int = Limits.max_iterations
    max_candidates: int = Limits.max_candidates
    wall_seconds: float = Limits.wall_seconds
    breaker_repeats: int = Limits.breaker_repeats
    test_timeout: float = Limits.test_timeout
    per_test_timeout: float = Limits.per_test_timeout
    max_tokens: int = Limits.max_tokens
    max_cost_usd: float = Limits.max_cost_usd
    allow_test_edits: bool = False
    offline: bool = False
    pytest_args: tuple[str, ...] = ()
    warm_workers: int = 2  # warm pytest fork servers that screen candidates (0: a fresh pytest per candidate)
    plausible_lookahead: int = Limits.plausible_lookahead
    llm: LLMSettings = field(default_factory=LLMSettings)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    diagnostics: DiagnosticsSettings = field(default_factory=DiagnosticsSettings)

    def limits(self) -> Limits:
        return Limits(
            max_iterations=self.max_iterations, max_candidates=self.max_candidates, wall_seconds=self.wall_seconds,
            breaker_repeats=self.breaker_repeats, test_timeout=self.test_timeout,
            per_test_timeout=self.per_test_timeout, max_tokens=self.max_tokens, max_cost_usd=self.max_cost_usd,
            plausible_lookahead=self.plausible_lookahead,
        )


def _coerce(value: Any, kind: Any, where: str) -> Any:
    origin = typing.get_origin(kind)
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise ValueError(f"{where}: expected true or false, got {value!r}")
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        raise ValueError(f"{where}: expected a whole number >= 0, got {value!r}")
    if kind is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            return float(value)
        raise ValueError(f"{where}: expected a number >= 0, got {value!r}")
    if kind is str:
        if isinstance(value, str):
            return value
        raise ValueError(f"{where}: expected a string, got {value!r}")
    if origin is tuple:
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise ValueError(f"{where}: expected a list of strings, got {value!r}")
    raise ValueError(f"{where}: unsupported setting type")


def merge(base: Any, data: Mapping[str, Any], prefix: str = "") -> tuple[Any, list[str]]:
    """Overlay `data` on the dataclass `base`; return the result and one message per bad key."""
    problems: list[str] = []
    if not isinstance(data, Mapping):
        return base, [f"{prefix.rstrip('.') or 'settings'}: expected a table, got {data!r}; using defaults"]
    hints = typing.get_type_hints(type(base))
    names = {f.name for f in dataclasses.fields(base)}
    changes: dict[str, Any] = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        where = f"{prefix}{key}"
        if name not in names:
            problems.append(f"{where}: unknown setting (ignored)")
            continue
        current = getattr(base, name)
        if dataclasses.is_dataclass(current):
            sub, sub_problems = merge(current, value, f"{where}.")
            changes[name] = sub
            problems.extend(sub_problems)
            continue
        try:
            changes[name] = _coerce(value, hints[name], where)
        except ValueError as e:
            problems.append(f"{e}; using the default {current!r}")
    return dataclasses.replace(base, **changes), problems


def _check_choices(settings: Settings) -> tuple[Settings, list[str]]:
    problems: list[str] = []
    if settings.sandbox.backend not in ("auto", "bwrap", "landlock", "docker", "none"):
        problems.append(f"sandbox.backend: {settings.sandbox.backend!r} is not one of auto, bwrap, landlock, docker, none; using 'auto'")
        settings = dataclasses.replace(settings, sandbox=dataclasses.replace(settings.sandbox, backend="auto"))
    if settings.breaker_repeats < 2:
        problems.append("breaker_repeats: must be at least 2; using 3")
        settings = dataclasses.replace(settings, breaker_repeats=3)
    return settings, problems


def from_pyproject(workspace: Path, base: Settings = Settings()) -> tuple[Settings, list[str]]:
    path = workspace / "pyproject.toml"
    if not path.is_file():
        return base, []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        return base, [f"{path}: cannot read [tool.fixloop] ({e}); using defaults"]
    table = data.get("tool", {}).get("fixloop", {})
    if not isinstance(table, dict):
        return load(table, base, "[tool.fixloop] ")
    table, refused = _without_untrusted(table)
    settings, problems = load(table, base, "[tool.fixloop] ")
    return settings, [f"[tool.fixloop] {r}" for r in refused] + problems


# A repository is untrusted: its pyproject.toml may not pick where the key goes, which variable holds
# it, or switch the sandbox off. Only the user's own settings (editor, CLI, environment) may.
_UNTRUSTED = {
    ("llm", "api_key"): "ignored; keep keys out of the repository (use the environment or the editor)",
    ("llm", "api_key_env"): "ignored from a project file; set it in the editor or keep the default",
    ("llm", "base_url"): "ignored from a project file (it decides where your API key is sent); "
                         "set it in the editor settings instead",
    ("memory", "uri"): "ignored from a project file (the memory holds code from all your projects); "
                       "use --memory, FIXLOOP_MEMORY or the editor setting",
    ("memory", "embedder"): "ignored from a project file (a plug-in embedder is code run outside the sandbox); "
                            "set it in the editor settings instead",
}


def _without_untrusted(table: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    refused: list[str] = []
    out = dict(table)
    for (section, key), why in _UNTRUSTED.items():
        sub = out.get(section)
        if isinstance(sub, dict) and any(k.replace("-", "_") == key for k in sub):
            out[section] = {k: v for k, v in sub.items() if k.replace("-", "_") != key}
            refused.append(f"{section}.{key}: {why}")
    sandbox = out.get("sandbox")
    if isinstance(sandbox, dict) and sandbox.get("backend") == "none":
        out["sandbox"] = {k: v for k, v in sandbox.items() if k != "backend"}
        refused.append('sandbox.backend = "none": ignored from a project file; only you can switch the '
                       "sandbox off (--sandbox none, or the editor setting)")
    return out, refused


def load(data: Mapping[str, Any], base: Settings = Settings(), prefix: str = "") -> tuple[Settings, list[str]]:
    settings, problems = merge(base, data, prefix)
    settings, more = _check_choices(settings)
    return settings, problems + more
