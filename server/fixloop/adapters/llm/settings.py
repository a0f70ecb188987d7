"""The model's settings: which model, where, its limits and prices, and a model of its own per role."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RoleSettings:
    model: str = ""  # "" : the main model (`llm.model`)


@dataclass(frozen=True)
class RolesSettings:
    planner: RoleSettings = field(default_factory=RoleSettings)  # the hypothesis and plan, once a run
    coder: RoleSettings = field(default_factory=RoleSettings)  # the edits, through the tools
    reflector: RoleSettings = field(default_factory=RoleSettings)  # why a candidate failed
    reviewer: RoleSettings = field(default_factory=RoleSettings)
    auditor: RoleSettings = field(default_factory=RoleSettings)

    def model(self, role: str, main: str) -> str:
        """The model a role asks: its own when one is set, else the main one."""
        own = {"planner": self.planner, "coder": self.coder, "reflector": self.reflector, "reviewer": self.reviewer,
               "auditor": self.auditor}[role]
        return own.model or main


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
    roles: RolesSettings = field(default_factory=RolesSettings)  # a model of its own per role
