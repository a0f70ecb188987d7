"""The strategies a run may use and the proposer each puts first (config.py checks a setting against them)."""

from __future__ import annotations

AUTO = "auto"  # the bandit chooses per run
DEFAULT = "memory-first"  # today's order with a memory: replay, then the offline engine, then the model

# strategy -> the proposer names it puts first (the first one present leads). A mined-template
# proposer is available only where it is built; "model-first" only with a key and not offline.
LEADS: dict[str, tuple[str, ...]] = {
    "template-first": ("template", "templates", "mined"),
    "memory-first": ("memory",),
    "mutation-first": ("mutation",),
    "model-first": ("llm",),
}
STRATEGIES: tuple[str, ...] = tuple(LEADS)
CHOICES: tuple[str, ...] = (AUTO, *STRATEGIES)
