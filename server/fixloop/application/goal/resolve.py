"""Which functions the words point at: names called or quoted, files named, the cursor."""

from __future__ import annotations

import re
from dataclasses import dataclass

from fixloop.kit.source_index import Index
from fixloop.core.goal import GoalRefused, Target

MAX_GOAL = 2000
_FILE = re.compile(r"(?<![\w/.-])([\w./-]+\.py)\b")
_CALLED = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\s*\(")
_QUOTED = re.compile(r"`([A-Za-z_][\w.]*)(?:\(.*?\))?`")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words so common in a description that a function of that name is no evidence the user means it.
_PLAIN = {"the", "a", "an", "it", "is", "be", "to", "of", "in", "on", "for", "and", "or", "not", "should", "must",
          "return", "returns", "make", "fix", "match", "its", "docstring", "function", "method", "value", "when",
          "with", "this", "that", "wrong", "bug", "test", "tests", "one", "too", "by", "as", "at", "if", "get",
          "set", "run", "main", "data", "list", "dict", "str", "int", "len", "print", "sum", "min", "max"}


def check_words(goal: str) -> str:
    """The goal, stripped; GoalRefused(usage) when it is empty, too long or has no words at all."""
    text = (goal or "").strip()
    if not text:
        raise GoalRefused("the goal is empty: say what is wrong, e.g. --goal \"discount(10) should be 9.0\"",
                          usage=True)
    if len(text) > MAX_GOAL:
        raise GoalRefused(f"the goal is {len(text)} characters long; keep it under {MAX_GOAL}", usage=True)
    if not any(len(w) >= 2 and w.isalpha() for w in re.findall(r"[A-Za-z]+", text)) and "(" not in text:
        raise GoalRefused(f"the goal {text[:60]!r} has no words to go on: say what a function does wrong, "
                          "e.g. \"discount(10) should be 9.0\"", usage=True)
    return text


@dataclass(frozen=True)
class Resolution:
    candidates: tuple[Target, ...]  # best first
    certain: bool  # one function is clearly meant: no question needed
    reason: str  # how it was found, in words (for assumptions and the run log)


def _files_named(goal: str, index: Index, files: set[str]) -> list[str]:
    named = []
    for raw in _FILE.findall(goal):
        rel = raw.lstrip("./")
        hits = [f for f in files if f == rel or f.endswith("/" + rel)]
        if not hits:
            raise GoalRefused(f"the goal names {raw}, which is not a Python file of this project", usage=True)
        named.extend(hits)
    return named


def _names(goal: str) -> tuple[list[str], list[str]]:
    """(names called or quoted: strong evidence, other words: weak evidence)."""
    strong = list(dict.fromkeys(_CALLED.findall(goal) + _QUOTED.findall(goal)))
    text_wo_files = _FILE.sub(" ", goal)
    weak = [w for w in dict.fromkeys(_WORD.findall(text_wo_files)) if w not in strong and w.lower() not in _PLAIN]
    return strong, weak


def resolve(goal: str, index: Index, files: set[str], cursor: Target | None = None) -> Resolution:
    """Candidate targets for the words. Raises GoalRefused(usage) for a file or function that does not exist."""
    in_files = _files_named(goal, index, files)
    pool = [t for t in index.targets if t.path in in_files] if in_files else index.targets
    scoped = Index(pool)
    strong, weak = _names(goal)
    called = [t for n in strong for t in scoped.named(n)]
    missing = [n for n in strong if not scoped.named(n) and not _builtin_like(n)]
    if called:
        unique = list(dict.fromkeys(called))
        return Resolution(tuple(_cursor_first(unique, cursor)), len(unique) == 1 or _one_at(unique, cursor),
                          "named in the goal")
    if missing:
        where = f" in {', '.join(in_files)}" if in_files else ""
        raise GoalRefused(f"the goal names {', '.join(missing)}, but no function of that name is in the project{where}",
                          usage=True)
    mentioned = list(dict.fromkeys(t for n in weak for t in scoped.named(n)))
    if mentioned:
        return Resolution(tuple(_cursor_first(mentioned, cursor)), len(mentioned) == 1 or _one_at(mentioned, cursor),
                          "a word of the goal names it")
    if cursor is not None and (not in_files or cursor.path in in_files):
        return Resolution((cursor,), True, "the function at the cursor")
    documented = [t for t in pool if ">>>" in t.docstring]
    if documented and re.search(r"\bdoc|\bexample", goal, re.I):
        return Resolution(tuple(documented), len(documented) == 1,
                          "the only function with docstring examples" if len(documented) == 1
                          else "functions with docstring examples")
    if in_files and pool:
        return Resolution(tuple(pool), len(pool) == 1, f"the functions of {', '.join(in_files)}")
    raise GoalRefused("the goal names no function of this project: name it (e.g. \"discount(10) should be 9.0\"), "
                      "or ask from the editor with the cursor in the function", usage=True)


def _builtin_like(name: str) -> bool:
    import builtins

    return name.split(".")[0] in vars(builtins) or name.split(".")[0] in ("self", "cls")


def _cursor_first(targets: list[Target], cursor: Target | None) -> list[Target]:
    if cursor is None or cursor not in targets:
        return targets
    return [cursor] + [t for t in targets if t != cursor]


def _one_at(targets: list[Target], cursor: Target | None) -> bool:
    return cursor is not None and cursor in targets
