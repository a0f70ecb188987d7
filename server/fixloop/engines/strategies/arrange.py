"""A strategy applied to a run's proposers: its lead's first few candidates go first, then today's order.

The leading proposer's candidate stream is split in two: a head of at most `LEAD_MAX` candidates that
runs before every other proposer, and the rest of the same stream at the proposer's own place in
today's order. So a strategy only moves a few candidates forward: every proposer still gets its turn
with the same budget less those few, and a lead that does not fix the bug costs at most `LEAD_MAX`
candidates (the model leads with fewer: `arrange`). Today's order is left exactly as it is.
"""

from __future__ import annotations

import itertools
import threading
from typing import Callable, Iterator, Protocol, Sequence, overload, runtime_checkable

from fixloop.core.model import Attempt, Patch, Reflection, Usage
from fixloop.core.ports import CallLogging, Metered, Noting, ProposalContext, Proposer, Reflector
from fixloop.core.bandit import LEAD_MAX
from fixloop.core.strategies import DEFAULT, LEADS, STRATEGIES


class _Stream:
    """One proposer's candidates, asked for once and shared by its head and its rest."""

    def __init__(self, inner: Proposer) -> None:
        self.inner = inner
        self._it: Iterator[Patch] | None = None

    def of(self, ctx: ProposalContext) -> Iterator[Patch]:
        if self._it is None:
            self._it = iter(self.inner.propose(ctx))
        return self._it


class Part:
    """The head (`limit` candidates) or the rest of a proposer's stream, passing its ports through.
    Only the rest reports the proposer's usage, so tokens are not counted twice."""

    def __init__(self, stream: _Stream, limit: int | None) -> None:
        self.stream = stream
        self.limit = limit
        self.name = stream.inner.name
        self.adaptive = stream.inner.adaptive
        inner = stream.inner
        self.notes: list[str] = inner.notes if isinstance(inner, Noting) else []

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        it = self.stream.of(ctx)
        yield from (itertools.islice(it, self.limit) if self.limit is not None else it)

    def reflect(self, attempt: Attempt, ctx: ProposalContext) -> Reflection | None:
        inner = self.stream.inner
        return inner.reflect(attempt, ctx) if isinstance(inner, Reflector) else None

    def drain_calls(self) -> list[dict[str, object]]:
        inner = self.stream.inner
        return inner.drain_calls() if isinstance(inner, CallLogging) else []

    def usage(self) -> Usage:
        inner = self.stream.inner
        return inner.usage() if self.limit is None and isinstance(inner, Metered) else Usage()


@runtime_checkable
class Offering(Protocol):
    """A proposer serving a list of vetted edits (the approved mined templates): with none, it has nothing
    to lead with, and today's order starts with the proposer after it."""

    def templates(self) -> Sequence[object]: ...


def _active(proposers: Sequence[Proposer]) -> list[Proposer]:
    return [p for p in proposers if not isinstance(p, Offering) or p.templates()]


@runtime_checkable
class Demotable(Protocol):
    """A proposer that may lose its place (mined templates that kept failing)."""

    demoted: bool


def _may_lead(p: Proposer) -> bool:
    """Templates that kept failing lost their place (after the generic operators): they never lead."""
    return not (isinstance(p, Demotable) and p.demoted)


def lead_of(strategy: str, proposers: Sequence[Proposer]) -> Proposer | None:
    """The proposer `strategy` puts first among these, or None when none of its proposers is here (or has
    anything to offer)."""
    names = LEADS.get(strategy, ())
    active = _active(proposers)
    return next((p for name in names for p in active if p.name == name and _may_lead(p)), None)


def default_of(proposers: Sequence[Proposer]) -> str:
    """The strategy today's order amounts to: the one its first proposer (with something to offer) leads."""
    active = _active(proposers)
    first = active[0].name if active else ""
    return next((s for s in STRATEGIES if first in LEADS[s]), DEFAULT)


def available(proposers: Sequence[Proposer]) -> list[str]:
    """The strategies these proposers allow: today's order, and each whose lead is among them."""
    today = default_of(proposers)
    return [s for s in STRATEGIES if s == today or lead_of(s, proposers) is not None]


def arrange(proposers: Sequence[Proposer], strategy: str, lead_max: int = LEAD_MAX,
            breaker_repeats: int = 3) -> list[Proposer]:
    """The proposers in the order `strategy` asks for. A lead already first (today's order) is left as is.
    An adaptive lead (the model) leads with fewer candidates than trip the identical-failure breaker,
    which ends a run: leading must never stop the proposers after it from having their turn."""
    lead = lead_of(strategy, proposers)
    active = _active(proposers)
    if lead is None or active[0] is lead:
        return list(proposers)
    stream = _Stream(lead)
    head = min(lead_max, max(breaker_repeats - 1, 1)) if lead.adaptive else lead_max
    return [Part(stream, head)] + [Part(stream, None) if p is lead else p for p in proposers]


class ArrangedOnUse(Sequence[Proposer]):
    """A run's proposers in its strategy's order, chosen when the run first asks for them (its search,
    after the baseline). The choice reads the memory, whose store meanwhile opens in the background:
    importing LanceDB alone takes 1-3 s, which the baseline no longer waits for."""

    def __init__(self, choose: Callable[[], Sequence[Proposer]]) -> None:
        self._choose = choose
        self._lock = threading.Lock()
        self._arranged: Sequence[Proposer] | None = None

    def _items(self) -> Sequence[Proposer]:
        with self._lock:
            if self._arranged is None:
                self._arranged = list(self._choose())
            return self._arranged

    @overload
    def __getitem__(self, index: int) -> Proposer: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Proposer]: ...

    def __getitem__(self, index: int | slice) -> Proposer | Sequence[Proposer]:
        return self._items()[index]

    def __len__(self) -> int:
        return len(self._items())

    def __iter__(self) -> Iterator[Proposer]:
        return iter(self._items())
