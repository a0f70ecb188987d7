"""Reading candidates ahead of the loop: a runner with spare lanes screens the next few while one is judged."""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterator

from fixloop.core.guard import rejection
from fixloop.core.model import Patch, Verdict
from fixloop.core.ports import Ports, Prefetching, ProposalContext, Proposer


def checked_ahead(proposer: Proposer, ctx: ProposalContext, ports: Ports, screened: Callable[[Patch], tuple[str, ...]],
                   wanted: Callable[[Patch], bool]) -> Iterator[tuple[Patch, Verdict | None]]:
    """Candidates in order, with their safety verdict when it was taken early. A runner with spare lanes
    gets the next few `wanted` candidates that passed the guard and the safety check, to screen in parallel
    on the tests the loop will screen them on (`screened`; one not wanted now never will be: the loop skips
    it); an adaptive proposer is never read ahead."""
    if not isinstance(ports.runner, Prefetching) or proposer.adaptive:
        yield from ((patch, None) for patch in proposer.propose(ctx))
        return
    window: deque[tuple[Patch, Verdict | None]] = deque()
    for patch in proposer.propose(ctx):
        width = ports.runner.lanes()  # asked each time: a worker may come up during the search
        verdict = None
        if width > 1:
            worth = wanted(patch)
            verdict = ports.safety.check(patch) if ports.safety is not None and worth else None
            if worth and (verdict is None or verdict.ok) and rejection(patch, 0, ports.is_test_file) is None:
                ports.runner.prefetch(patch, screened(patch))
        window.append((patch, verdict))
        while len(window) > (width if width > 1 else 0):  # one more than the lanes: a free lane never waits
            yield window.popleft()
    yield from window
