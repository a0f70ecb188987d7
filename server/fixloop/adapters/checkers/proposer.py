"""The checkers' own fixes as candidates: the first thing tried for a target that is a finding.

All the targeted findings' safe fixes together first (one candidate that may clear every target), then each
(file, rule)'s alone, then the same with the fixes the checker calls unsafe: they may change what the code
does, so only where passing tests run the code they change (`tested`); elsewhere nothing but the checker would
judge them (`x != False` -> `x` in code no test runs differs for None). Findings without a fix (an undefined
name) are left to the other proposers, which the findings' lines lead to.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

from fixloop.adapters.checkers.findings import PROPOSER, Finding, fixed
from fixloop.core.model import FileChange, Patch
from fixloop.core.ports import ProposalContext


class CheckerFixProposer:
    name = PROPOSER
    adaptive = False

    def __init__(self, findings: Callable[[], Sequence[Finding]], tested: Callable[[Patch], bool]) -> None:
        self.findings = findings
        self.tested = tested

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        wanted = set(ctx.target_tests)
        targeted = [f for f in self.findings() if f.target in wanted and not ctx.is_test_file(f.path)]
        groups = list(dict.fromkeys(f.target for f in targeted))
        for safe_only in (True, False):
            for group in [None, *groups] if len(groups) > 1 else groups:
                chosen = [f for f in targeted if group is None or f.target == group]
                patch = _patch(ctx, chosen, safe_only)
                if patch is not None and (safe_only or self.tested(patch)):
                    yield patch


def _patch(ctx: ProposalContext, findings: Sequence[Finding], safe_only: bool) -> Patch | None:
    after = fixed(ctx.sources, findings, safe_only)
    if not after:
        return None
    used = [f for f in findings if f.fix is not None and (f.fix.safe or not safe_only) and f.path in after]
    codes = ", ".join(dict.fromkeys(f"{f.tool} {f.code}" for f in used))
    first = used[0].fix.message if used and used[0].fix else "the checker's fix"
    summary = first if len(used) == 1 else f"{codes}: {len(used)} fixes ({first}, ...)"
    changes = tuple(FileChange(path, ctx.sources[path], text) for path, text in sorted(after.items()))
    kind = "safe" if all(f.fix is not None and f.fix.safe for f in used) else "unsafe"
    return Patch(changes, proposer="checker", operator=f"{used[0].tool}-fix-{kind}" if used else "checker-fix",
                 summary=summary, meta={"rules": [f.code for f in used]})
