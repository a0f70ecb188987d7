"""Which plausible fix is offered, and a reviewer's word on it before it is.

Every plausible fix passed the whole suite; what tells them apart is what the tests do not check. The
offline review ranks them by how much they agree with the original program on the passing tests' inputs
(what the functions each fix changes return there, with the fix and without: a fix that changes values no
test checks changes behaviour nobody asked for), then by the loop's own order (the smallest, then the one
fewer passing tests run), and says why. A model reviewer (llm/reviewer.py) reads
the winning diff beside the others and may accept it, prefer another, or reject it (it fits the tests, not
the fault); a rejected fix makes the loop search on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from fixloop.core.model import ACCEPT, PREFER, Numbered, Patch, Review
from fixloop.core.patch import patch_size
from fixloop.core.ports import BehaviourProbe, Calls, ProposalContext



@dataclass(frozen=True)
class ReviewSettings:
    enabled: bool = True  # the offline review always, a model's when one is configured and reachable


def preference(patch: Patch) -> tuple[int, bool, float]:
    """Smaller first; among equally small fixes, one in a body before one to a value bound at import (a
    default or a constant changes every reader of it: `BULK = 9` passes where `qty >= BULK` is the fix),
    then the one fewer passing tests run (`exposure`, when known)."""
    exposure = patch.meta.get("exposure", 0)
    return (patch_size(patch), patch.meta.get("at_import") is True,
            float(exposure) if isinstance(exposure, (int, float)) else 0.0)


def changed_values(before: Calls, after: Calls) -> tuple[int, int]:
    """(calls whose value differs, calls compared), over every call either run recorded."""
    keys = set(before) | set(after)
    return sum(before.get(k) != after.get(k) for k in keys), len(keys)


class OfflineReviewer:
    """Prefers, among several plausible fixes, the one that changes the fewest values the passing tests see
    (`probe`), then the loop's order; it never rejects (nothing offline can tell a fix that fits the tests
    from one that fits the fault better)."""

    def __init__(self, probe: BehaviourProbe | None = None) -> None:
        self.probe = probe

    def review(self, winner: Numbered, plausible: Sequence[Numbered], ctx: ProposalContext) -> Review:
        number, patch = winner
        size, _, exposure = preference(patch)
        reach = f", run by {exposure:g} passing test(s)" if exposure else ""
        others = sorted(patch_size(p) for n, p in plausible if n != number)
        if not others:
            return Review(ACCEPT, f"the only plausible fix ({size} changed line(s){reach})", "offline")
        smallest = (f"the smallest of {len(plausible)} plausible fixes ({size} changed line(s){reach}; "
                    f"the others {', '.join(map(str, others))})")
        changed = self._changed(plausible)
        if number not in changed or len(changed) < 2:
            return Review(ACCEPT, smallest, "offline")
        rate = {n: differ / compared for n, (differ, compared) in changed.items()}
        best = min((item for item in plausible if item[0] in changed),
                   key=lambda item: (rate[item[0]], preference(item[1]), item[0]))[0]
        mine = _changed_text(changed[number])
        if best != number and rate[best] < rate[number]:
            return Review(PREFER, f"candidate {best} changes {_changed_text(changed[best])} the passing tests see "
                                  f"of the code it changes, this fix {mine}", "offline", prefer=best)
        return Review(ACCEPT, f"{smallest}; it changes {mine} the passing tests see, no other fewer", "offline")

    def _changed(self, plausible: Sequence[Numbered]) -> dict[int, tuple[int, int]]:
        """Candidate number -> (values changed, values compared), for the fixes whose values could be known."""
        out: dict[int, tuple[int, int]] = {}
        if self.probe is None:
            return out
        for n, patch in plausible:
            before, after = self.probe.values(None, patch), self.probe.values(patch, patch)
            if before is not None and after is not None and (before or after):
                out[n] = changed_values(before, after)
        return out


def _changed_text(changed: tuple[int, int]) -> str:
    differ, compared = changed
    return f"{differ} of {compared} value(s)"
