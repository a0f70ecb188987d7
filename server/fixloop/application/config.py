"""Typed settings with defaults, parsed once at the edge.

Sources, later wins: defaults < the user's config file (`$FIXLOOP_CONFIG`, else
`$XDG_CONFIG_HOME/fixloop/config.toml`) < `[tool.fixloop]` in the project's pyproject.toml < LSP
initializationOptions / workspace configuration < CLI flags. A bad value is reported and
replaced by its default; it never stops the program.

The project's table is untrusted (`PROJECT_RULES`): it may only tighten a limit below the value it
would override, switch things off, never choose the backend, prices, budgets, endpoints, keys, the
memory's location or an interpreter outside the project. Each refused key is named.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from fixloop.core.model import Limits
from fixloop.adapters.runner.listing import CopyRule
from fixloop.adapters.checkers import TOOLS as CHECK_TOOLS
from fixloop.core.review import ReviewSettings
from fixloop.core.trust import TrustSettings
from fixloop.adapters.llm.settings import LLMSettings
from fixloop.adapters.memory.settings import MemorySettings
from fixloop.adapters.runner.install import InstallSettings
from fixloop.adapters.safety.audit import AuditSettings
from fixloop.adapters.safety.hooks import HookSettings
from fixloop.adapters.sandbox.backends import AUTO, SandboxSettings, choices as backend_choices
from fixloop.core.strategies import CHOICES as STRATEGY_CHOICES
from fixloop.core.sharing import DEFAULT_SHARE, MEANINGS as SHARE_MEANINGS, SHARES, at_most


@dataclass(frozen=True)
class DiagnosticsSettings:
    safety: bool = True
    memory: bool = True
    max_file_bytes: int = 1_000_000
    debounce_ms: int = 0  # wait this long after the last change; edits during a check fold into the next one
    incremental: bool = True  # reuse the previous syntax tree when a document changes
    bandit_on_save: bool = True


@dataclass(frozen=True)
class WorkspaceSettings:
    """What a fix may copy: a root that is `/` or a home, or a tree larger than this, is refused."""

    max_files: int = 20_000
    max_mb: int = 500
    allow_home: bool = False  # a home folder (or `/`) as the project root; the size limits still hold
    # Files git ignores that the tests may need (generated version files, build outputs, local data):
    # copied while each is at most `ignored_file_kb` and all together at most `ignored_total_mb`.
    ignored_file_kb: int = 1024
    ignored_total_mb: int = 20
    copy_include: tuple[str, ...] = ()  # gitignore-style globs of ignored files copied whatever their size
    copy_exclude: tuple[str, ...] = ()  # gitignore-style globs of files never copied

    def copy_rule(self) -> CopyRule:
        return CopyRule(self.copy_include, self.copy_exclude, self.ignored_file_kb, self.ignored_total_mb)


@dataclass(frozen=True)
class Settings:
    python: str = ""
    max_iterations: int = Limits.max_iterations
    max_candidates: int = Limits.max_candidates
    wall_seconds: float = Limits.wall_seconds
    breaker_repeats: int = Limits.breaker_repeats
    baseline_timeout: float = Limits.baseline_timeout
    test_timeout: float = Limits.test_timeout
    per_test_timeout: float = Limits.per_test_timeout
    hang_probe_seconds: float = Limits.hang_probe_seconds
    screening_factor: float = Limits.screening_factor
    screening_floor: float = Limits.screening_floor
    select_covering_after: float = Limits.select_covering_after
    max_tokens: int = Limits.max_tokens
    max_cost_usd: float = Limits.max_cost_usd
    allow_test_edits: bool = False
    offline: bool = False
    pytest_args: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()  # checkers whose findings are targets too (`--check ruff`)
    check_files: tuple[str, ...] = ()  # only the findings in these files are targets (empty: in every file)
    warm_workers: int = 2  # warm pytest fork servers that screen candidates (0: a fresh pytest per candidate)
    plausible_lookahead: int = Limits.plausible_lookahead
    search_factor: float = Limits.search_factor
    strategy: str = "auto"  # which proposer leads a run: auto (a bandit over past runs) or one of names.STRATEGIES
    llm: LLMSettings = field(default_factory=LLMSettings)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    diagnostics: DiagnosticsSettings = field(default_factory=DiagnosticsSettings)
    workspace: WorkspaceSettings = field(default_factory=WorkspaceSettings)
    hooks: HookSettings = field(default_factory=HookSettings)  # yours only: commands run on your machine
    install: InstallSettings = field(default_factory=InstallSettings)  # yours only: where packages come from
    review: ReviewSettings = field(default_factory=ReviewSettings)
    audit: AuditSettings = field(default_factory=AuditSettings)
    trust: TrustSettings = field(default_factory=TrustSettings)  # yours only: what may be applied without asking

    def limits(self) -> Limits:
        return Limits(
            max_iterations=self.max_iterations, max_candidates=self.max_candidates, wall_seconds=self.wall_seconds,
            breaker_repeats=self.breaker_repeats, test_timeout=self.test_timeout,
            per_test_timeout=self.per_test_timeout, max_tokens=self.max_tokens, max_cost_usd=self.max_cost_usd,
            plausible_lookahead=self.plausible_lookahead, hang_probe_seconds=self.hang_probe_seconds,
            baseline_timeout=self.baseline_timeout, screening_factor=self.screening_factor,
            screening_floor=self.screening_floor, select_covering_after=self.select_covering_after,
            search_factor=self.search_factor,
        )


def sandbox_choices() -> tuple[str, ...]:
    """The sandbox backends a user may name (`auto` first), from the backend table."""
    return tuple(backend_choices())


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
    if settings.sandbox.backend not in backend_choices():
        problems.append(f"sandbox.backend: {settings.sandbox.backend!r} is not one of {', '.join(backend_choices())}; "
                        f"using {AUTO!r}")
        settings = dataclasses.replace(settings, sandbox=dataclasses.replace(settings.sandbox, backend=AUTO))
    if settings.memory.share not in SHARES:
        modes = "; ".join(f"{m!r}: {SHARE_MEANINGS[m]}" for m in SHARES)
        problems.append(f"memory.share: {settings.memory.share!r} is not a share mode ({modes}); "
                        f"using {DEFAULT_SHARE!r} (`fixloop memory sharing` lists what leaves in each)")
        settings = dataclasses.replace(settings, memory=dataclasses.replace(settings.memory, share=DEFAULT_SHARE))
    if settings.strategy not in STRATEGY_CHOICES:
        problems.append(f"strategy: {settings.strategy!r} is not one of {', '.join(STRATEGY_CHOICES)}; using 'auto'")
        settings = dataclasses.replace(settings, strategy="auto")
    unknown = [c for c in settings.checks if c not in CHECK_TOOLS]
    if unknown:
        problems.append(f"checks: {', '.join(map(repr, unknown))} cannot be checked (known: {', '.join(CHECK_TOOLS)}); "
                        "left out")
        settings = dataclasses.replace(settings, checks=tuple(c for c in settings.checks if c in CHECK_TOOLS))
    if settings.breaker_repeats < 2:
        problems.append("breaker_repeats: must be at least 2; using 3")
        settings = dataclasses.replace(settings, breaker_repeats=3)
    return settings, problems


def user_config_path() -> Path:
    explicit = os.environ.get("FIXLOOP_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "fixloop" / "config.toml"


def from_user_file(base: Settings = Settings()) -> tuple[Settings, list[str]]:
    """The user's own settings file (trusted, like the editor's settings): the same keys as [tool.fixloop]."""
    path = user_config_path()
    if not path.is_file():
        return base, []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        return base, [f"{path}: cannot read it ({e}); using defaults"]
    return load(data, base, f"{path}: ")


def project_settings(workspace: Path) -> tuple[Settings, list[str]]:
    """The user's file, then the project's [tool.fixloop] on top of it (tighten-only)."""
    settings, problems = from_user_file()
    settings, more = from_pyproject(workspace, settings)
    return settings, problems + more


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
    table, refused = project_table(table, base, workspace)
    settings, problems = load(table, base, "[tool.fixloop] ")
    return settings, [f"[tool.fixloop] {r}" for r in refused] + problems


# ---- what a project's own file may set ------------------------------------------------------------
# A repository is untrusted: its pyproject.toml may tighten a guard rail, never loosen one. Loosening,
# and everything below marked USER, is for the user's own settings: the editor, CLI flags, the
# environment and the user's config file.
AT_MOST = "at_most"  # a number no larger than the value it would override
LIMIT = "limit"  # as AT_MOST, where 0 means no limit: never 0 over a limit, any positive number over none
FIXED_CAP = "fixed_cap"  # as AT_MOST, where 0 means derived from the project's own timings: only lower a cap you set
ONLY_TRUE = "only_true"  # may switch on (offline, a warning), never off
ONLY_FALSE = "only_false"  # may switch off (the model, the memory, test edits), never on
INSIDE = "inside_project"  # a path inside the project, links not followed out of it
STRICTER = "stricter"  # a share mode letting no more leave than the one it would override (core/sharing.py)
USER = "user"  # never from a project file
FREE = "free"  # guards nothing: the project decides

_WHERE_USER = "set it in your own settings instead (the editor's settings, a CLI flag, or ~/.config/fixloop/config.toml)"
PROJECT_RULES: dict[str, tuple[str, str]] = {
    "python": (INSIDE, "an interpreter outside the project is yours to choose (--python or the editor setting)"),
    "max_iterations": (AT_MOST, ""), "max_candidates": (AT_MOST, ""), "wall_seconds": (AT_MOST, ""),
    "breaker_repeats": (AT_MOST, ""), "baseline_timeout": (LIMIT, ""), "per_test_timeout": (LIMIT, ""),
    "test_timeout": (FIXED_CAP, "each run's cap is derived from the suite's own timings (test_timeout = 0), "
                                "which a fixed number from the project could raise"),
    "hang_probe_seconds": (AT_MOST, ""), "screening_factor": (AT_MOST, ""), "screening_floor": (AT_MOST, ""),
    "select_covering_after": (AT_MOST, ""),
    "max_tokens": (AT_MOST, ""), "max_cost_usd": (AT_MOST, ""), "warm_workers": (AT_MOST, ""),
    "plausible_lookahead": (AT_MOST, ""), "search_factor": (LIMIT, ""),
    "strategy": (USER, "the order decides what a run costs"),
    "allow_test_edits": (ONLY_FALSE, ""), "offline": (ONLY_TRUE, ""), "pytest_args": (FREE, ""),
    # A check only adds findings a fix must clear and a guard it must keep; the checker runs in the sandbox.
    "checks": (FREE, ""), "check_files": (FREE, ""),
    "llm.enabled": (ONLY_FALSE, ""), "llm.first": (ONLY_FALSE, ""), "llm.stream": (FREE, ""),
    "llm.model": (USER, "the model decides what you pay"), "llm.roles.reviewer.model": (USER, "the model decides what you pay"),
    "llm.roles.auditor.model": (USER, "the model decides what you pay"),
    **{f"llm.roles.{role}.model": (USER, "the model decides what you pay") for role in ("planner", "coder", "reflector")},
    "review.enabled": (ONLY_TRUE, ""), "audit.enabled": (ONLY_TRUE, ""),
    "llm.base_url": (USER, "it decides where your API key is sent"),
    "llm.api_key": (USER, "keep keys out of the repository (use the environment or the editor)"),
    "llm.api_key_env": (USER, "it decides which secret of yours is sent"),
    "llm.timeout_seconds": (AT_MOST, ""), "llm.max_retries": (AT_MOST, ""), "llm.max_tool_rounds": (AT_MOST, ""),
    "llm.max_output_tokens": (AT_MOST, ""), "llm.context_tokens": (AT_MOST, ""),
    "llm.daily_budget_usd": (USER, "budgets are yours"),
    "llm.input_price_per_mtok": (USER, "prices decide when the cost limit stops a run"),
    "llm.output_price_per_mtok": (USER, "prices decide when the cost limit stops a run"),
    "llm.cache_read_price_per_mtok": (USER, "prices decide when the cost limit stops a run"),
    "llm.cache_write_price_per_mtok": (USER, "prices decide when the cost limit stops a run"),
    "sandbox.backend": (USER, "only you choose how the tests are isolated (--sandbox or the editor setting)"),
    "sandbox.memory_mb": (AT_MOST, ""), "sandbox.processes": (AT_MOST, ""), "sandbox.disk_quota_mb": (AT_MOST, ""),
    "sandbox.docker_image": (USER, "the image runs on your machine, with your engine"),
    "memory.enabled": (ONLY_FALSE, ""),
    "memory.uri": (USER, "the memory holds code from all your projects; use --memory, FIXLOOP_MEMORY or the editor setting"),
    "memory.embedder": (USER, "a plug-in embedder is code run outside the sandbox"),
    "memory.share": (STRICTER, "what leaves your machine is yours to decide"),
    "memory.min_pattern_count": (FREE, ""), "memory.max_rows": (AT_MOST, ""), "memory.index_threshold": (FREE, ""),
    "diagnostics.safety": (ONLY_TRUE, ""), "diagnostics.memory": (FREE, ""), "diagnostics.max_file_bytes": (AT_MOST, ""),
    "diagnostics.debounce_ms": (FREE, ""), "diagnostics.incremental": (FREE, ""), "diagnostics.bandit_on_save": (ONLY_TRUE, ""),
    "workspace.max_files": (AT_MOST, ""), "workspace.max_mb": (AT_MOST, ""), "workspace.allow_home": (ONLY_FALSE, ""),
    "workspace.ignored_file_kb": (AT_MOST, ""), "workspace.ignored_total_mb": (AT_MOST, ""),
    # The project knows its generated files; credential files and virtualenvs stay out whatever it says.
    "workspace.copy_include": (FREE, ""), "workspace.copy_exclude": (FREE, ""),
    **{f"hooks.{k}": (USER, "hooks run on your machine, outside the sandbox") for k in
       ("pre_candidate", "post_fix", "on_apply", "timeout_seconds", "deny")},
    "trust.after": (USER, "only you decide what is applied without asking"),
    "trust.model": (USER, "only you decide what is applied without asking"),
    "install.index_url": (USER, "it decides where your environment's packages come from"), "install.timeout_seconds": (AT_MOST, ""),
}


def setting_keys(base: Any = None, prefix: str = "") -> list[str]:
    """Every leaf setting as a dotted name (`llm.model`)."""
    base = Settings() if base is None else base
    keys: list[str] = []
    for f in dataclasses.fields(base):
        value = getattr(base, f.name)
        if dataclasses.is_dataclass(value):
            keys += setting_keys(value, f"{prefix}{f.name}.")
        else:
            keys.append(f"{prefix}{f.name}")
    return keys


def _refusal(rule: str, why: str, key: str, value: Any, current: Any, workspace: Path) -> str:
    """'' when the project may set `key` to `value` over `current`, else why not."""
    if rule == FREE:
        return ""
    if rule == USER:
        return f"{key}: ignored from a project file ({why}); {_WHERE_USER}"
    if rule == STRICTER:
        return "" if isinstance(value, str) and at_most(value, current) else (
            f"{key} = {value!r}: refused, a project may only share less ({', '.join(SHARES)}, from least to most; "
            f"it stays {current!r}); {why}: {_WHERE_USER}")
    if rule == INSIDE:
        return "" if isinstance(value, str) and (value == "" or _inside(workspace, value)) else (
            f"{key} = {value!r}: refused, it is outside the project; {why}")
    if rule in (LIMIT, FIXED_CAP) and isinstance(value, (int, float)) and not isinstance(value, bool):
        if rule == FIXED_CAP and current == 0 and value != 0:
            return f"{key} = {value!r}: refused ({why}); to set a fixed cap, {_WHERE_USER}"
        if value == 0 and current != 0:
            meaning = "no limit" if rule == LIMIT else "a cap derived from the suite's own timings"
            return (f"{key} = 0: refused, 0 means {meaning} and a project may only lower it (it stays {current!r}); "
                    f"to set 0, {_WHERE_USER}")
        if current == 0:
            return ""
    if rule in (AT_MOST, LIMIT, FIXED_CAP):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > current:
            return (f"{key} = {value!r}: refused, a project may only lower it (it stays {current!r}); "
                    f"to raise it, {_WHERE_USER}")
        return ""
    if isinstance(value, bool) and value != (rule == ONLY_TRUE) and value != current:
        return (f"{key} = {str(value).lower()}: refused, a project may only set it to "
                f"{str(rule == ONLY_TRUE).lower()} (it stays {str(current).lower()}); {_WHERE_USER}")
    return ""


def _inside(workspace: Path, value: str) -> bool:
    """A project path that stays inside the project: lexically, and with no folder on the way a link out of it
    (the file itself may be a link: an interpreter's chain is read as data, never run on the host)."""
    root = Path(os.path.realpath(workspace))
    path = Path(os.path.normpath(Path(workspace) / os.path.expanduser(value)))
    lexical_root = Path(os.path.normpath(workspace))
    if lexical_root not in path.parents:
        return False
    parent = Path(os.path.realpath(path.parent))
    return parent == root or root in parent.parents


def project_table(table: dict[str, Any], base: Settings, workspace: Path, prefix: str = ""
                  ) -> tuple[dict[str, Any], list[str]]:
    """The project's table without what it may not set; one message per refused key."""
    refused: list[str] = []
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        dotted = f"{prefix}{name}"
        current = getattr(base, name, None)
        if dataclasses.is_dataclass(current) and isinstance(value, dict):
            out[key], more = project_table(value, current, workspace, f"{dotted}.")
            refused += more
            continue
        rule, why = PROJECT_RULES.get(dotted, (FREE, "")) if current is not None else (FREE, "")
        problem = _refusal(rule, why, dotted, value, current, workspace)
        if problem:
            refused.append(problem)
        elif rule == INSIDE and isinstance(value, str) and value:
            # Relative to the project, not to wherever fixloop was started.
            out[key] = os.path.normpath(Path(workspace) / os.path.expanduser(value))
        else:
            out[key] = value
    return out, refused


def load(data: Mapping[str, Any], base: Settings = Settings(), prefix: str = "") -> tuple[Settings, list[str]]:
    settings, problems = merge(base, data, prefix)
    settings, more = _check_choices(settings)
    return settings, problems + more
