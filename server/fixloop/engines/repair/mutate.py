"""The offline repair engine as a proposer: templates, then single mutations, then pairs.

No model, no network: tree-sitter edits at the suspicious lines, ordered by suspiciousness x
operator prior, de-duplicated by resulting source, and never yielded unless they parse.
"""

from __future__ import annotations

from typing import Iterator, Mapping

from fixloop.core.model import FileChange, Patch, Suspect
from fixloop.core.patch import TextEdit
from fixloop.core.ports import ProposalContext
from fixloop.engines.repair.candidate import Candidate
from fixloop.engines.repair.catalog import OPERATORS
from fixloop.core.ports import EXPLORE_PREFIX
from fixloop.engines.repair.search import (PAIR_LINES, at_import, editable, explore_first, pair_candidates, ranked,
                                          realize, single_candidates, varied, with_bound_share)
from fixloop.engines.repair.steer import steered, steering
from fixloop.engines.repair.templates import TEMPLATE_SCORE, Site, template_fixes
from fixloop.kit.syntax import code_lines

__all__ = ["MutationProposer"]

MAX_BOUND_LINES = 40  # suspect lines bound at import (defaults, constants, class attributes) given operators


def run_priors(ctx: ProposalContext) -> dict[str, float]:
    """The learned factors for this run. An operator whose past fix was replayed here and failed
    gets no boost over the built-in order: that lesson did not carry over, so its operator is no
    better a bet at the other lines than any other."""
    missed = {a.patch.operator for a in ctx.attempts if a.patch.proposer == "memory" and a.status == "failed"}
    out = dict(ctx.priors)
    for op in missed:
        for key in (op, EXPLORE_PREFIX + op):
            if key in out:
                out[key] = min(out[key], 1.0)
    return out


def _lines_run(text: str, edit: TextEdit) -> tuple[int, ...]:
    """Lines whose execution reaches the edit: its own, and for code inserted at a line start the line
    before it too (inserted after that statement or before the next, it runs when they do)."""
    line = text.count("\n", 0, edit.start) + 1
    inserted_at_start = edit.start == edit.end and (edit.start == 0 or text[edit.start - 1] == "\n")
    return (line - 1, line) if inserted_at_start else (line,)


class MutationProposer:
    """Offline candidates, best first. `skipped` tells which files were left alone and why."""

    name = "mutation"
    adaptive = False

    def __init__(self, max_suspect_lines: int = 80, pair_lines: int = PAIR_LINES, max_pairs: int = 200) -> None:
        self.max_suspect_lines = max_suspect_lines
        self.pair_lines = pair_lines
        self.max_pairs = max_pairs
        self.skipped: dict[str, str] = {}
        self._made: dict[tuple[str, str], Candidate] = {}  # (path, source) -> the single that made it

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        suspects = [s for s in ctx.suspects if s.path in ctx.sources and not ctx.is_test_file(s.path)]
        # Values bound at import are few and are read far down the list: they are not cut with the body lines.
        bound = [s for s in suspects if s.line not in code_lines(ctx.sources[s.path])]
        body = [s for s in suspects if s.line in code_lines(ctx.sources[s.path])]
        lines_by_path = self._line_scores(body[: self.max_suspect_lines] + bound[:MAX_BOUND_LINES], ctx.sources)
        seen: set[str] = set()
        self._made = {}
        exposure = {(s.path, s.line): s.passing for s in ctx.suspects}

        failures = [r for r in ctx.baseline.failed if not ctx.target_tests or r.nodeid in ctx.target_tests]
        learned, steer = run_priors(ctx), steering(failures)
        priors = steered(learned, steer)
        sites = self._sites(ctx, suspects)
        # A learned prior can demote a template below the aimed ones, into the ranked singles.
        fixes = [f.rescored(f.score * float(priors.get(f.operator, 1.0))) for f in template_fixes(sites, ctx.sources)]
        aimed = [c for c in fixes if c.score >= TEMPLATE_SCORE]
        yield from self._patches(ranked(aimed), ctx.sources, seen, "template", exposure)

        singles: list[Candidate] = [c for c in fixes if c.score < TEMPLATE_SCORE]
        for path, scores in lines_by_path.items():
            made = single_candidates(path, ctx.sources[path], scores, learned)
            # What the failed assertion says steers the edits in bodies: a value bound at import changes every
            # reader of it, not one result by one (`BULK = 9` passes where `qty >= BULK` is the fix).
            singles.extend(c if at_import(c, ctx.sources) else c.rescored(c.score * steer.get(c.operator, 1.0))
                           for c in made)
        # An exploring draw stands in for the learned factors only: the failure's own steering stays.
        order = with_bound_share(explore_first(varied(singles), learned), lambda c: at_import(c, ctx.sources))
        yield from self._patches(order, ctx.sources, seen, "", exposure)
        yield from self._patches(self._pairs(ctx, singles), ctx.sources, seen, "pair", exposure)

    def _pairs(self, ctx: ProposalContext, singles: list[Candidate]) -> Iterator[Candidate]:
        """Pairs, once every single was tried: by then `ctx.attempts` says which singles were partial fixes."""
        yield from pair_candidates(singles, self.pair_lines, limit=self.max_pairs, helped=self._helped(ctx))

    def _helped(self, ctx: ProposalContext) -> dict[Candidate, float]:
        """Single candidates that made some failing test pass, with the share of those tests they fixed."""
        failing = set(ctx.target_tests) or {r.nodeid for r in ctx.baseline.failed}
        out: dict[Candidate, float] = {}
        for attempt in ctx.attempts:
            change = attempt.patch.changes[0] if len(attempt.patch.changes) == 1 else None
            made = self._made.get((change.path, change.after)) if change is not None else None
            if made is None or attempt.report is None or not failing:
                continue
            fixed = {r.nodeid for r in attempt.report.results if r.outcome == "passed"} & failing
            if fixed:
                out[made] = len(fixed) / len(failing)
        return out

    def _line_scores(self, suspects: list[Suspect], sources: Mapping[str, str]) -> dict[str, dict[int, float]]:
        out: dict[str, dict[int, float]] = {}
        for s in suspects:
            if s.path not in out:
                why = editable(sources[s.path])
                if why:
                    self.skipped[s.path] = why
                    continue
                out[s.path] = {}
            out[s.path][s.line] = max(s.score, out[s.path].get(s.line, 0.0))
        return out

    def _sites(self, ctx: ProposalContext, suspects: list[Suspect]) -> list[Site]:
        """Deepest project frame of each failure; assertion failures in a test point at the top suspects."""
        sites: list[Site] = []
        for result in ctx.baseline.failed:
            if ctx.target_tests and result.nodeid not in ctx.target_tests:
                continue
            frames = [f for f in result.frames if f.in_project and f.path in ctx.sources and not ctx.is_test_file(f.path)]
            if frames:
                sites.append(Site(frames[-1].path, frames[-1].line, result))
            elif result.exc_type == "AssertionError":
                # Ranked like a literal mutation at that line, not like a template aimed at an error.
                sites.extend(Site(s.path, s.line, result, 0.85 * s.score) for s in suspects[:3])
        unique: dict[tuple[str, int, str], Site] = {}
        for site in sites:
            unique.setdefault((site.path, site.line, site.result.exc_type), site)  # one site per place and error
        return [s for s in unique.values() if not editable(ctx.sources[s.path])]

    def _patches(self, candidates: Iterator[Candidate] | list[Candidate], sources: Mapping[str, str],
                 seen: set[str], kind: str, exposure: Mapping[tuple[str, int], int]) -> Iterator[Patch]:
        for c in candidates:
            after = realize(c, sources, seen)
            if after is None:
                continue
            if kind != "pair":
                self._made[(c.path, after)] = c
            # The overfitting guard prefers, among equally small fixes, the one fewer passing tests run.
            lines = {ln for e in c.edits for ln in _lines_run(sources[c.path], e)}
            meta = {"score": round(c.score, 4), "line": c.line, "kind": kind or "single",
                    "exposure": max(exposure.get((c.path, ln), 0) for ln in lines), "at_import": at_import(c, sources)}
            yield Patch((FileChange(c.path, sources[c.path], after),), self.name, c.operator, c.label, meta)
