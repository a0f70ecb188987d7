"""Where an edit-form template applies in a statement, and the code it makes there.

The template's before-window must be a whole node of its `within` type (span "node"), or a run of
children of one (span "children": two neighbouring arguments). Roles bind one token of their kind (the
same role the same text, two roles two texts), a hole binds any whole named node, an operator family
one of its operators (the after-window then takes the alternative at the same place). A CONST role (a
named limit) binds an upper-case name, or, as a `loose` match ranked after those, any other name: a
limit is as often a parameter (`max_weight`) as a module constant, and the examples only showed one kind.
Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Protocol, Sequence

from fixloop.kit.syntax import Offsets, parse
from fixloop.adapters.mined.view import View, statement_nodes, view_of


class PatternToken(Protocol):  # model.PatternToken (model imports this module: no import back)
    role: bool
    value: str
    gap: str

    @property
    def hole(self) -> bool: ...

    @property
    def family(self) -> bool: ...


class MinedTemplate(Protocol):  # model.MinedTemplate
    @property
    def before(self) -> Sequence[PatternToken]: ...

    @property
    def after(self) -> Sequence[PatternToken]: ...

    within: str
    span: str

_CONST = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
_KIND = re.compile(r"^(ID|NUM|STR|CONST|_)")
OPS = "#ops"
LOOSE = "#loose"
COMMUTATIVE = frozenset({"max", "min"})
NOT_POSITIONAL = frozenset({"keyword_argument", "list_splat", "dictionary_splat"})


@dataclass(frozen=True)
class Match:
    start: int  # characters of the source the window covers
    end: int
    text: str  # what the window becomes
    parent: str  # the node type around the window (ranks it against the template's contexts)
    callee: str = ""  # span "children": the called name, and which arguments were exchanged
    position: int = -1
    moved: tuple[str, str] = ("", "")
    loose: bool = False  # a CONST role bound a name that is not upper-case


def _token_fit(p: PatternToken, view: View, pos: int) -> str:
    """'exact', 'loose' (a CONST role on a lower-case name) or '' (the token cannot be the role)."""
    t = view.tokens[pos]
    kind = _KIND.match(p.value).group(1)  # type: ignore[union-attr]
    if kind == "CONST":
        return "" if t.shape != "ID" else "exact" if _CONST.match(t.text) else "loose"
    return "exact" if t.shape == kind else ""


def _bind(pattern: Sequence[PatternToken], view: View, pos: int, end: int, ends: dict[int, set[int]],
          env: dict[str, Any]) -> dict[str, Any] | None:
    if not pattern:
        return env if pos == end else None
    p, rest = pattern[0], pattern[1:]
    texts = [t.text for t in view.tokens]
    if p.hole:
        if p.value in env:
            s, e = env[p.value]
            q = pos + (e - s)
            return _bind(rest, view, q, end, ends, env) if texts[s:e] == texts[pos:q] else None
        for q in sorted(ends.get(pos, ())):
            if q <= end:
                found = _bind(rest, view, q, end, ends, {**env, p.value: (pos, q)})
                if found is not None:
                    return found
        return None
    if pos >= end:
        return None
    if p.family:
        for index, alt in enumerate(p.value.split("|")):
            words = alt.split(" ")
            if texts[pos:pos + len(words)] == words and env.get(OPS, index) == index and pos + len(words) <= end:
                found = _bind(rest, view, pos + len(words), end, ends, {**env, OPS: index})
                if found is not None:
                    return found
        return None
    if p.role:
        fit = _token_fit(p, view, pos)
        if not fit or env.get(p.value, texts[pos]) != texts[pos]:
            return None
        bound = {**env, p.value: texts[pos]} | ({LOOSE: True} if fit == "loose" else {})
        return _bind(rest, view, pos + 1, end, ends, bound)
    return _bind(rest, view, pos + 1, end, ends, env) if texts[pos] == p.value else None


def _render(template: MinedTemplate, view: View, source: str, env: dict[str, Any]) -> str:
    out = []
    for k, p in enumerate(template.after):
        if p.hole:
            s, e = env[p.value]
            text = view.text(s, e, source)
        elif p.role:
            text = env[p.value]
        elif p.family:
            text = p.value.split("|")[env.get(OPS, 0)]
        else:
            text = p.value
        out.append((p.gap if k else "") + text)
    return "".join(out)


def _distinct(env: dict[str, Any]) -> bool:
    roles = [v for k, v in env.items() if not k.startswith(("#", "_"))]
    return len(set(roles)) == len(roles)


def matches(template: MinedTemplate, view: View, source: str) -> Iterator[Match]:
    """Every place in the statement `view` (cut from `source`) where the template applies."""
    ends = view.named_ends()
    for k, span in enumerate(view.spans):
        if span.type != template.within:
            continue
        parent = view.spans[span.parent].type if span.parent >= 0 else ""
        if template.span == "node":
            env = _bind(template.before, view, span.start, span.end, ends, {})
            if env is not None and _distinct(env):
                yield Match(view.tokens[span.start].start, view.tokens[span.end - 1].end,
                            _render(template, view, source, env), parent, loose=LOOSE in env)
            continue
        kids = [view.spans[c] for c in view.children(k) if view.spans[c].named]
        grand = view.spans[span.parent] if span.parent >= 0 else None
        outer = view.spans[grand.parent].type if grand is not None and grand.parent >= 0 else ""
        callee = ""
        if grand is not None and span.start > grand.start:
            callee = view.tokens[span.start - 1].text  # the name right before `(`
        if callee in COMMUTATIVE:
            continue  # exchanging arguments there changes nothing: a candidate that cannot fix anything
        for position, first in enumerate(kids):
            for last in kids[position:]:
                if first.type in NOT_POSITIONAL or last.type in NOT_POSITIONAL:
                    continue  # keyword arguments exchanged are the same call; `*args` has no place to swap
                env = _bind(template.before, view, first.start, last.end, ends, {})
                if env is None or not _distinct(env):
                    continue
                holes = [view.text(*env[h], source) for h in sorted(x for x in env if x.startswith("_"))]
                yield Match(view.tokens[first.start].start, view.tokens[last.end - 1].end,
                            _render(template, view, source, env), outer, callee, position,
                            (holes[0], holes[1]) if len(holes) == 2 else ("", ""), LOOSE in env)


def apply_in(template: MinedTemplate, source: str, line: int) -> list[Match]:
    """The template's matches in the statement starting on `line` of `source`."""
    node = statement_nodes(source).get(line)
    if node is None:
        return []
    return list(matches(template, view_of(node, source, Offsets(source)), source))


def check(template: MinedTemplate, before: str, after: str) -> str:
    """'' when the edit-form template reads back: its before-window, written out with sample names, parses
    and is found again by the template itself, and its after-window parses."""
    def wrappers(code: str) -> list[str]:
        body = "\n        pass" if code.endswith(":") else ""
        return ["def f():\n    return g({})\n".format(code), "def f():\n    return ({})\n".format(code),
                "def f():\n    {}{}\n".format(code, body)]

    parsed = False
    for wrapped_before, wrapped_after in zip(wrappers(before), wrappers(after)):
        if parse(wrapped_before).root_node.has_error:
            continue
        parsed = True
        if not parse(wrapped_after).root_node.has_error and apply_in(template, wrapped_before, 2):
            return ""
    shown = " ".join(t.value for t in template.before)
    if not parsed:
        return f"its before-shape `{shown}` does not parse"
    return f"its before-shape `{shown}` no longer reads back as a {template.within} (or its after-shape does not parse)"
