"""The one-shot analogy proposer: each past verified fix, carried over to the suspect statements here
whose shape it shares (analogy.py), at most `per_fix` candidates per past fix.

It runs after the exact replay and before the offline engine. A wrong analogy therefore costs at most
`per_fix` candidates per recalled fix (and `max_candidates` in all) before the generic operators
start; what it proposes goes through the same safety check and sandbox as every other candidate.
`mapped` is the same carrying-over at one statement, for a model's context (llm/context.py): a lesson
shows where its names go, not only the past diff.
"""

from __future__ import annotations

import logging
from typing import Iterator

from fixloop.core.model import FileChange, Lesson, Patch, Suspect
from fixloop.core.ports import ProposalContext
from fixloop.kit.syntax import functions_in, parses
from fixloop.adapters.memory.analogy import MAX_CODE, Analogy, analogies
from fixloop.kit.shapes import code_of, edits_from_json

log = logging.getLogger("fixloop.adapters.memory")
HEADER_SHARE = 0.8  # a function's `def` line counts as its most suspect line, a little less (defaults)
MIN_SCORE = 0.05  # an analogy less alike than this is a coincidence of shape, neither proposed nor shown


def past_statements(lesson: Lesson, limit: int = 3) -> list[tuple[str, str]]:
    """The statements a past fix changed, (before, after) as stored, that an analogy can read: unreadable,
    empty or oversized ones are left out (a teammate's row is untrusted)."""
    out: list[tuple[str, str]] = []
    for edit in edits_from_json(str(lesson.meta.get("edits") or ""))[:limit]:
        before, after = code_of(edit.before).strip(), code_of(edit.after).strip()
        if before and after and len(before) <= MAX_CODE and len(after) <= MAX_CODE:
            out.append((before, after))
    return out


def mapped(lesson: Lesson, source: str, line: int, min_score: float = MIN_SCORE) -> tuple[str, str, Analogy] | None:
    """The past fix's best analogy at the statement on `line` of `source`, with the past statement it came
    from: what a model is shown so it can make the same edit with this code's names (the same mapping the
    proposer tries). None when no stored statement maps onto it."""
    try:
        found = [(before, after, a) for before, after in past_statements(lesson)
                 for a in analogies(before, after, source, line, 1) if a.score >= min_score]
    except Exception as e:  # noqa: BLE001  a hostile row shows no mapping; it never stops the context
        log.info("analogy: lesson %s not mapped: %s: %s", lesson.meta.get("fix_id", "?"), type(e).__name__, e)
        return None
    return max(found, key=lambda f: f[2].score) if found else None


class AnalogyProposer:
    name = "analogy"
    adaptive = False

    def __init__(self, per_fix: int = 3, max_candidates: int = 6, max_suspects: int = 40,
                 min_score: float = MIN_SCORE) -> None:
        self.per_fix = per_fix
        self.max_candidates = max_candidates
        self.max_suspects = max_suspects
        self.min_score = min_score

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        lessons = [lesson for lesson in ctx.lessons if lesson.outcome == "fixed" and lesson.meta.get("edits")]
        if not lessons:
            return
        places = self._places(ctx)
        by_lesson: list[list[tuple[float, Patch]]] = []
        for lesson in lessons:
            try:
                by_lesson.append(self._from(lesson, places, ctx))
            except Exception as e:  # noqa: BLE001  a teammate's row is untrusted: a bad one is skipped, never fatal
                log.info("analogy: lesson %s skipped: %s: %s", lesson.meta.get("fix_id", "?"), type(e).__name__, e)
        keys: set[object] = set()
        for patch in _in_turn(by_lesson):
            if patch.key() in keys:
                continue
            keys.add(patch.key())
            yield patch
            if len(keys) >= self.max_candidates:
                return

    def _places(self, ctx: ProposalContext) -> list[Suspect]:
        """The suspect lines, each function's `def` line after them (a wrong default lives there)."""
        suspects = [s for s in ctx.suspects if s.path in ctx.sources and not ctx.is_test_file(s.path)][: self.max_suspects]
        out = {(s.path, s.line): s for s in suspects}
        for s in suspects:
            for fn in functions_in(ctx.sources[s.path]):
                if fn.start_line < s.line <= fn.end_line and (s.path, fn.start_line) not in out:
                    out[(s.path, fn.start_line)] = Suspect(s.path, fn.start_line, s.score * HEADER_SHARE, "def")
        return sorted(out.values(), key=lambda s: (-s.score, s.path, s.line))

    def _from(self, lesson: Lesson, places: list[Suspect], ctx: ProposalContext) -> list[tuple[float, Patch]]:
        """This past fix's best `per_fix` candidates here."""
        out: list[tuple[float, Patch]] = []
        for before, after in past_statements(lesson):
            for place in places:
                source = ctx.sources[place.path]
                for found in analogies(before, after, source, place.line, self.per_fix):
                    score = found.score * place.score * max(lesson.similarity, 0.1)
                    if found.score >= self.min_score:
                        out.append((score, self._patch(lesson, place, source, found, before, after)))
        out.sort(key=lambda item: -item[0])
        kept: list[tuple[float, Patch]] = []
        keys: set[object] = set()
        for score, patch in out:
            change = patch.changes[0]
            if patch.key() in keys or change.after == change.before or not parses(change.after):
                continue
            keys.add(patch.key())
            kept.append((score, patch))
            if len(kept) >= self.per_fix:
                break
        return kept

    def _patch(self, lesson: Lesson, place: Suspect, source: str, found: Analogy, before: str, after: str) -> Patch:
        roles = ", ".join(f"{a} ~ {b}" for a, b in found.roles)
        summary = (f"{place.path}:{place.line}: `{found.was}` -> `{found.text}`, as a past fix did "
                   f"`{before}` -> `{after}`" + (f" ({roles})" if roles else ""))
        new_source = source[: found.start] + found.text + source[found.end:]
        return Patch((FileChange(place.path, source, new_source),), self.name, lesson.operator or "analogy",
                     summary[:600], {"fix_id": lesson.meta.get("fix_id", ""), "analogy_score": found.score,
                                     "roles": roles, "past_before": before[:300],
                                     "past_after": after[:300]})


def _in_turn(by_lesson: list[list[tuple[float, Patch]]]) -> Iterator[Patch]:
    """Each past fix's best candidate first (the past fixes by their best score), then each one's second, ...:
    two past fixes of one kind whose shape fits everywhere (an exchange fits any call of two arguments) must
    not fill every place before a third, of the kind this bug is, gets one."""
    queues = sorted((kept for kept in by_lesson if kept), key=lambda kept: -kept[0][0])
    for turn in range(max((len(q) for q in queues), default=0)):
        for kept in queues:
            if turn < len(kept):
                yield kept[turn][1]
