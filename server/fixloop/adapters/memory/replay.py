"""The memory-replay proposer: a past fix's edit, re-applied at the analogous statement here.

A lesson carries the fixed statement's tokens before and after (`if q > LIMIT:` -> `if q >= LIMIT:`).
At every suspect line whose statement has a similar abstract shape, the same token edit is made
with this code's names (`if age > MAX_AGE:` -> `if age >= MAX_AGE:`). Cheap and few: it runs
before the offline engine, and the loop skips candidates it has already evaluated.
"""

from __future__ import annotations

from typing import Iterator

from fixloop.core.model import FileChange, Patch
from fixloop.core.patch import TextEdit, apply_edits
from fixloop.core.ports import ProposalContext
from fixloop.kit.syntax import parses
from fixloop.adapters.memory.learning import edits_from_json
from fixloop.kit.shapes import Token, code_of, reads_as_fixed, shape_similarity, statements, transfer


class MemoryReplayProposer:
    name = "memory"
    adaptive = False

    def __init__(self, max_candidates: int = 8, min_shape_similarity: float = 0.6, max_suspects: int = 200) -> None:
        self.max_candidates = max_candidates
        self.min_shape_similarity = min_shape_similarity
        self.max_suspects = max_suspects

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        # A fix recalled by its fault key alone is the analogy proposer's: a token replay of it would cost
        # candidates the exact replay never spent before.
        lessons = [lesson for lesson in ctx.lessons if lesson.outcome == "fixed" and lesson.meta.get("edits")
                   and lesson.meta.get("channel") != "key"]
        if not lessons:
            return
        by_file: dict[str, dict[int, tuple[Token, ...]]] = {}
        suspects = [s for s in ctx.suspects if s.path in ctx.sources and not ctx.is_test_file(s.path)]
        ranked: list[tuple[float, str, int, str, Patch]] = []
        for rank, lesson in enumerate(lessons):
            for edit in edits_from_json(str(lesson.meta["edits"])):
                seen: set[tuple[str, int]] = set()
                for suspect in suspects[: self.max_suspects]:
                    if (suspect.path, suspect.line) in seen:
                        continue
                    seen.add((suspect.path, suspect.line))
                    if suspect.path not in by_file:
                        by_file[suspect.path] = {}
                        for line, tokens in statements(ctx.sources[suspect.path]):
                            by_file[suspect.path].setdefault(line, tokens)  # the outermost statement
                    target = by_file[suspect.path].get(suspect.line)
                    if not target:
                        continue
                    similarity = shape_similarity(edit.before, target)
                    if similarity < self.min_shape_similarity or reads_as_fixed(edit.before, edit.after, target):
                        continue
                    edits = transfer(edit, target, self.min_shape_similarity)
                    if not edits:
                        continue
                    before = ctx.sources[suspect.path]
                    try:
                        after = apply_edits(before, [TextEdit(*e) for e in edits])
                    except ValueError:
                        continue
                    summary = (f"{suspect.path}:{suspect.line}: replay of "
                               f"`{code_of(edit.before).strip()}` -> `{code_of(edit.after).strip()}`")
                    patch = Patch((FileChange(suspect.path, before, after),), self.name,
                                  lesson.operator or "replay", summary,
                                  {"fix_id": lesson.meta.get("fix_id", ""), "lesson_similarity": lesson.similarity})
                    score = lesson.similarity * similarity * suspect.score
                    ranked.append((-score, suspect.path, suspect.line, str(rank), patch))
        ranked.sort(key=lambda r: r[:4])
        yielded = 0
        keys: set[object] = set()
        for *_, patch in ranked:
            change = patch.changes[0]
            if change.after == change.before or patch.key() in keys or not parses(change.after):
                continue
            keys.add(patch.key())
            yield patch
            yielded += 1
            if yielded >= self.max_candidates:
                return
