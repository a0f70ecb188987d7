"""Where a fix came from, by the proposer that made it: the sources the learning curve counts (`fixloop stats`,
the run's summary). Counted by proposer name, so a proposer that lands later (the one-shot analogy) is
counted as soon as it fixes something."""

from __future__ import annotations

REPLAY, ANALOGY, TEMPLATE, SEARCH, MODEL, OTHER = "replay", "analogy", "template", "search", "model", "other"
CHECKER = "checker"
SOURCES: tuple[str, ...] = (REPLAY, ANALOGY, TEMPLATE, SEARCH, CHECKER, MODEL, OTHER)
BY_PROPOSER: dict[str, str] = {
    "memory": REPLAY,  # a past fix replayed at this place
    "analogy": ANALOGY,  # a one-shot analogy to a past fix
    "template": TEMPLATE, "templates": TEMPLATE, "mined": TEMPLATE,  # a template mined from past fixes
    "mutation": SEARCH, "offline": SEARCH,  # the generic offline search (mutation operators, error templates)
    "llm": MODEL, "claude": MODEL,
    "checker": CHECKER,  # a checker's own fix of its finding (`--check ruff`)
}
WORDS: dict[str, str] = {
    REPLAY: "a past fix replayed", ANALOGY: "a one-shot analogy to a past fix", TEMPLATE: "a mined template",
    SEARCH: "the generic search", CHECKER: "the checker's own fix", MODEL: "the model", OTHER: "another proposer",
}


def source_of(proposer: str) -> str:
    return BY_PROPOSER.get(proposer, OTHER) if proposer else ""
