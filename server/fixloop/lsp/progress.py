"""Loop events -> `$/progress` messages: phase first, then iteration, candidates, tests, tokens."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.model import Event

PHASES = {"start": "start", "baseline": "baseline", "retrieve": "memory", "localize": "localize",
          "propose": "propose", "check": "check", "run": "run", "reflect": "reflect", "done": "done"}


@dataclass
class ProgressState:
    phase: str = "start"
    iteration: int = 0
    candidates: int = 0
    passed: int = 0
    failed: int = 0
    tokens: int = 0

    def update(self, event: Event) -> None:
        data = event.data
        self.phase = PHASES.get(event.phase, event.phase or event.kind)
        if event.kind in ("baseline", "tested"):
            self.passed = _int(data.get("passed"), self.passed)
            self.failed = _int(data.get("failed"), self.failed)
        if event.kind == "candidate" and event.candidate is not None:
            self.candidates = max(self.candidates, event.candidate)
        if "iteration" in data:
            self.iteration = _int(data.get("iteration"), self.iteration)
        if "tokens" in data:
            self.tokens = _int(data.get("tokens"), self.tokens)

    def message(self) -> str:
        iteration = f"iteration {self.iteration}, " if self.iteration else ""
        return (f"{self.phase}: {iteration}candidate {self.candidates}, "
                f"tests {self.passed} passed / {self.failed} failed, {self.tokens} tokens")


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
