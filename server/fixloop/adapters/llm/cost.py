"""Token and dollar accounting: a price table, a per-run meter, and an optional daily budget on disk."""

from __future__ import annotations

import datetime
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from fixloop.adapters.llm.settings import LLMSettings
from fixloop.core.model import Limits, Usage


@dataclass(frozen=True)
class Prices:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float

    @classmethod
    def from_settings(cls, s: LLMSettings) -> "Prices":
        return cls(s.input_price_per_mtok, s.output_price_per_mtok, s.cache_read_price_per_mtok,
                   s.cache_write_price_per_mtok)

    def usage(self, input_tokens: int, output_tokens: int, cache_read: int, cache_write: int) -> Usage:
        cost = (input_tokens * self.input + output_tokens * self.output + cache_read * self.cache_read
                + cache_write * self.cache_write) / 1_000_000
        return Usage(1, input_tokens, output_tokens, cache_read, cache_write, cost)


CallLog = Callable[[dict[str, Any]], None]  # where a role's model call is recorded (the coder's run log)


def call_record(kind: str, model: str, spent: Usage, seconds: float, tool_calls: int, stop_reason: str) -> dict[str, Any]:
    """One model call as the run log's `model_call` event has it."""
    return {"kind": kind, "model": model, "tokens": spent.tokens, "input_tokens": spent.input_tokens,
            "output_tokens": spent.output_tokens, "cache_read_tokens": spent.cache_read_tokens,
            "cache_write_tokens": spent.cache_write_tokens, "cost_usd": round(spent.cost_usd, 6),
            "seconds": round(seconds, 3), "tool_calls": tool_calls, "stop_reason": stop_reason}


def usage_from_api(raw: object, prices: Prices) -> Usage:
    """The API's `usage` object (fields may be missing or None on local servers) as a priced Usage."""

    def field(name: str) -> int:
        value = getattr(raw, name, 0) if raw is not None else 0
        return int(value or 0)

    return prices.usage(field("input_tokens"), field("output_tokens"), field("cache_read_input_tokens"),
                        field("cache_creation_input_tokens"))


class BudgetExceeded(Exception):
    pass


class Meter:
    """What this run spent, checked against the run's hard budget before every call."""

    def __init__(self, limits: Limits, daily: "DailyBudget | None" = None) -> None:
        self.limits = limits
        self.daily = daily
        self.total = Usage()

    def add(self, usage: Usage) -> None:
        self.total = self.total + usage
        if self.daily is not None:
            self.daily.add(usage)

    def remaining_tokens(self) -> int:
        return max(0, self.limits.max_tokens - self.total.tokens)

    def check(self) -> None:
        """Raise before a call that the budget no longer allows."""
        if self.total.tokens > self.limits.max_tokens:
            raise BudgetExceeded(f"token budget of {self.limits.max_tokens} exceeded ({self.total.tokens} spent)")
        if self.total.cost_usd > self.limits.max_cost_usd:
            raise BudgetExceeded(f"cost budget of ${self.limits.max_cost_usd:.2f} exceeded "
                                 f"(${self.total.cost_usd:.4f} spent)")
        if self.daily is not None:
            self.daily.check()


def user_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "fixloop"


class DailyBudget:
    """Dollars spent today across runs, in a small JSON file: {"date": "YYYY-MM-DD", "cost_usd": x, "tokens": n}."""

    def __init__(self, limit_usd: float, path: Path | None = None,
                 today: Callable[[], str] = lambda: datetime.date.today().isoformat()) -> None:
        self.limit_usd = limit_usd
        self.path = path or user_data_dir() / "llm-spend.json"
        self.today = today

    def spent(self) -> float:
        data = self._read()
        return float(data.get("cost_usd", 0.0)) if data.get("date") == self.today() else 0.0

    def check(self) -> None:
        spent = self.spent()
        if spent >= self.limit_usd:
            raise BudgetExceeded(f"daily budget of ${self.limit_usd:.2f} reached (${spent:.4f} spent today)")

    def add(self, usage: Usage) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path.with_suffix(".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # two runs at once must not lose each other's spend
                data = self._read()
                if data.get("date") != self.today():
                    data = {"date": self.today(), "cost_usd": 0.0, "tokens": 0}
                data["cost_usd"] = float(data.get("cost_usd", 0.0)) + usage.cost_usd
                data["tokens"] = int(data.get("tokens", 0)) + usage.tokens
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(json.dumps(data), encoding="utf-8")
                os.replace(tmp, self.path)
        except OSError:
            pass  # an unwritable data dir must not stop a fix; the run's own budget still holds

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}
