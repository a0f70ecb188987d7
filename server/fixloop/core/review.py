"""Which plausible fix is offered, and a reviewer's word on it before it is.

Every plausible fix passed the whole suite; what tells them apart is what the tests do not check. The
offline review keeps the loop's own order (the smallest, then the one fewer passing tests run: the change
that reaches the least behaviour the tests rely on) and says why. A model reviewer (llm/reviewer.py) reads
the winning diff beside the others and may accept it, prefer another, or reject it (it fits the tests, not
the fault); a rejected fix makes the loop search on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from fixloop.core.model import ACCEPT, Numbered, Patch, Review
from fixloop.core.patch import patch_size
from fixloop.core.ports import ProposalContext



@dataclass(frozen=True)
class ReviewSettings:
    enabled: bool = True  # the offline review always, a model's when one is configured and reachable


def preference(patch: Patch) -> tuple[int, float]:
    """Smaller first; among equally small fixes, the one fewer passing tests run (`exposure`, when known)."""
    exposure = patch.meta.get("exposure", 0)
    return patch_size(patch), float(exposure) if isinstance(exposure, (int, float)) else 0.0


class OfflineReviewer:
    """The loop's order, explained: it never rejects (nothing offline can tell a fix that fits the tests
    from one that fits the fault better than the size of the change)."""

    def review(self, winner: Numbered, plausible: Sequence[Numbered], ctx: ProposalContext) -> Review:
        number, patch = winner
        size, exposure = preference(patch)
        reach = f", run by {exposure:g} passing test(s)" if exposure else ""
        others = sorted(patch_size(p) for n, p in plausible if n != number)
        if not others:
            return Review(ACCEPT, f"the only plausible fix ({size} changed line(s){reach})", "offline")
        return Review(ACCEPT, f"the smallest of {len(plausible)} plausible fixes ({size} changed line(s){reach}; "
                              f"the others {', '.join(map(str, others))})", "offline")
