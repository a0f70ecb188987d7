"""The offline repair engine as a proposer: templates, then single mutations, then pairs.

No model, no network: tree-sitter edits at the suspicious lines, ordered by suspiciousness x
operator prior, de-duplicated by resulting source, and never yielded unless they parse.
"""

from __future__ import annotations

from typing import Iterator, Mapping

from ..core.model import FileChange, Patch, Suspect
from ..core.ports import ProposalContext
from .catalog import OPERATORS
from .operators import Mutation, Operator
from .search import EXPLORE_PREFIX, Candidate, editable, explore_first, pair_candidates, ranked, realize, single_candidates
from .syntax import Offsets, parse, walk
from .templates import TEMPLATE_SCORE, Site, template_fixes

__all__ = ["MutationProposer", "Mutation", "mutations_at", "OPERATORS"]


def mutations_at(text: str, lines: set[int], operators: tuple[Operator, ...] = OPERATORS) -> Iterator[Mutation]:
    """Every mutation whose node starts on one of `lines` (1-based): the catalog at a glance."""
    off = Offsets(text)
    for node in walk(parse(text).root_node):
        if node.start_point[0] + 1 in lines:
            for op in operators:
                yield from op(node, off)


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


class MutationProposer:
    """Offline candidates, best first. `skipped` tells which files were left alone and why."""

    name = "mutation"
    adaptive = False

    def __init__(self, max_suspect_lines: int = 40, pair_lines: int = 3, max_pairs: int = 200) -> None:
        self.max_suspect_lines = max_suspect_lines
        self.pair_lines = pair_lines
        self.max_pairs = max_pairs
        self.skipped: dict[str, str] = {}

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        suspects = [s for s in ctx.suspects if s.path in ctx.sources and not ctx.is_test_file(s.path)]
        lines_by_path = self._line_scores(suspects[: self.max_suspect_lines], ctx.sources)
        seen: set[str] = set()

        priors = run_priors(ctx)
        sites = self._sites(ctx, suspects)
        # A learned prior can demote a template below the aimed ones, into the ranked singles.
        fixes = [Candidate(f.path, f.edits, f.operator, f"{f.path}: {f.summary}",
                           f.score * float(priors.get(f.operator, 1.0)),
                           ctx.sources[f.path].count("\n", 0, f.edits[0].start) + 1)
                 for f in template_fixes(sites, ctx.sources)]
        aimed = [c for c in fixes if c.score >= TEMPLATE_SCORE]
        yield from self._patches(ranked(aimed), ctx.sources, seen, "template")

        singles: list[Candidate] = [c for c in fixes if c.score < TEMPLATE_SCORE]
        for path, scores in lines_by_path.items():
            singles.extend(single_candidates(path, ctx.sources[path], scores, priors))
        yield from self._patches(explore_first(ranked(singles), priors), ctx.sources, seen, "")
        yield from self._patches(pair_candidates(singles, self.pair_lines, limit=self.max_pairs), ctx.sources, seen, "pair")

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
                 seen: set[str], kind: str) -> Iterator[Patch]:
        for c in candidates:
            after = realize(c, sources, seen)
            if after is None:
                continue
            meta = {"score": round(c.score, 4), "line": c.line, "kind": kind or "single"}
            yield Patch((FileChange(c.path, sources[c.path], after),), self.name, c.operator, c.summary, meta)
