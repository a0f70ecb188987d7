"""An in-memory learning memory (the `ReviewMemory` port) for the language-server tests that need no store.

It holds fixes as the file before and after, learns their statement edits the way a run does
(`changed_statements`, `fix_summary`) and turns them into warnings with the real store's own code
(`fixloop.adapters.memory.pastfix.hits_in`): a warning here is one the real store would give for the same fix,
and `tests/lsp/test_past_fix.py` checks that it is.

A fix: `{"memory_id": str, "path": str, "before": str, "after": str, "count": int (default 2),
"edit": str (optional: the stored edit as it is on disk, e.g. one that no longer reads)}`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from fixloop.core.model import FileChange, Patch, PatternHit
from fixloop.core.patch import unified_diff
from fixloop.adapters.memory.learning import MIN_PATTERN_TOKENS, fix_summary
from fixloop.adapters.memory.pastfix import FixDetail, KnownFix, hits_in
from fixloop.kit.shapes import changed_statements, edits_to_json


class FakeMemory:
    def __init__(self, fixes: list[dict[str, Any]], min_pattern_count: int = 2) -> None:
        self.fixes = list(fixes)
        self.min_pattern_count = min_pattern_count
        self.decisions: list[tuple[str, str, bool]] = []
        self.problem = ""

    def _learned(self) -> tuple[dict[str, KnownFix], dict[str, FixDetail]]:
        table: dict[str, KnownFix] = {}
        details: dict[str, FixDetail] = {}
        for fix in self.fixes:
            edits = changed_statements(fix["before"], fix["after"])[:3]
            patch = Patch((FileChange(fix["path"], fix["before"], fix["after"]),), "mutation", "fix")
            count = int(fix.get("count", 2))
            if not edits or len(edits[0].fault_shape.split()) < MIN_PATTERN_TOKENS or count < self.min_pattern_count:
                continue
            table[edits[0].fault_shape] = KnownFix(count, fix_summary(edits, patch), fix["memory_id"])
            details[fix["memory_id"]] = FixDetail(fix.get("edit", edits_to_json(edits)), unified_diff(patch))
        return table, details

    def patterns_in(self, path: str, source: str) -> list[PatternHit]:
        table, details = self._learned()

        def known(fixes: Sequence[KnownFix]) -> Mapping[str, FixDetail]:
            return {f.fix_id: details[f.fix_id] for f in fixes}

        return hits_in(path, source, table, known) if table else []

    def record_decision(self, run_id: str, hunk_id: str, accepted: bool, patch: Patch | None = None) -> None:
        self.decisions.append((run_id, hunk_id, accepted))

    def forget(self, row_id: str) -> int:
        before = len(self.fixes)
        self.fixes = [f for f in self.fixes if f["memory_id"] != row_id]
        return before - len(self.fixes)
