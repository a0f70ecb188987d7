"""Fault keys: what a statement's abstract shape does, with names, literals and layout left out, so that
a past fix is recalled for a statement written differently (`max(low, min(value, low))` and
`min(max(requested, self.low), self.low)` are both a min/max clamp; `if q > LIMIT:` and
`return self.low < h` both an ordering comparison). The one-shot analogy needs no more to start.

Pure functions over shape strings (`shapes.shape_of`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from fixloop.adapters.memory.roles import family_of
from fixloop.kit.shapes import KEEP_NAMES

MIN_OVERLAP = 0.34  # Jaccard overlap of two keys for a past fix to be worth an analogy here
_PLAIN = frozenset({"self", "cls", "print", "str", "int", "float", "bool", "list", "dict", "set", "tuple"})


@lru_cache(maxsize=8192)  # a project's statement shapes repeat from one recall to the next
def features(shape: str) -> frozenset[str]:
    """The operator families, telling builtins, `not`, defaults of a `def`, and calls of a role by arity."""
    tokens = shape.split()
    out: set[str] = set()
    depth_args: list[int] = []  # per open parenthesis of a role's call: its argument count so far
    opened: list[bool] = []
    for i, tok in enumerate(tokens):
        family = family_of(tok)
        if family is not None:
            out.add("op:" + ",".join(sorted(family)))
        elif tok in KEEP_NAMES and tok not in _PLAIN:
            out.add("name:" + tok)
        elif tok == "not":
            out.add("not")
        if tok == "(":
            role_call = i > 0 and tokens[i - 1] == "ID"
            opened.append(role_call)
            depth_args.append(0 if i + 1 < len(tokens) and tokens[i + 1] == ")" else 1)
        elif tok == "," and depth_args:
            depth_args[-1] += 1
        elif tok == ")" and depth_args:
            args, role_call = depth_args.pop(), opened.pop()
            if role_call and args >= 2 and not (tokens and tokens[0] == "def"):
                out.add(f"call/{args}")
    if tokens and tokens[0] in ("def", "async") and "=" in tokens:
        out.add("def=")
    return frozenset(out)


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def nearest(here: Iterable[str], known: Mapping[frozenset[str], Sequence[str]], limit: int) -> list[str]:
    """Ids (in `known`, keyed by the key of their fault shape) of the past fixes whose key is most like one of
    the shapes `here`, best first; each distinct key compared once."""
    keys = {features(shape) for shape in here} - {frozenset()}
    scored: list[tuple[float, int, str]] = []
    for key, ids in known.items():
        best = max((overlap(key, k) for k in keys), default=0.0)
        if best >= MIN_OVERLAP:
            scored += [(best, n, i) for n, i in enumerate(reversed(ids))]  # the latest first among equals
    scored.sort(key=lambda s: (-s[0], s[1]))
    return list(dict.fromkeys(i for _, _, i in scored))[:limit]
