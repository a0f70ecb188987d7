"""Localization with the code graph: the spectrum localizer's ranking, nudged by each suspect function's
history in the memory (a bounded factor, `memory.MAX_PRIOR`), and its per-test coverage handed to the
graph as test -> function edges."""

from __future__ import annotations

from typing import Mapping, Protocol, Sequence

from fixloop.core.model import Suspect, TestReport
from fixloop.core.ports import Localizer
from fixloop.adapters.graph.memory import GraphMemory


class SpectrumLocalizer(Localizer, Protocol):
    """A localizer that keeps the per-test coverage of its last run (the repair engine's spectrum does)."""

    spectra: Mapping[str, Mapping[str, frozenset[int]]]


class EntityPriorLocalizer:
    def __init__(self, inner: SpectrumLocalizer, memory: GraphMemory) -> None:
        self.inner = inner
        self.memory = memory

    @property
    def runs_tests(self) -> bool:
        return self.inner.runs_tests

    @property
    def note(self) -> str:
        return self.inner.note

    def localize(self, report: TestReport, sources: Mapping[str, str],
                 target_tests: Sequence[str]) -> tuple[Suspect, ...]:
        suspects = self.inner.localize(report, sources, target_tests)
        self.memory.note_spectrum(self.inner.spectra)
        return self.memory.rerank(suspects, sources)
