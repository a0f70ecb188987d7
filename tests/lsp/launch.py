"""Start the real language server for the end-to-end tests, with the fakes the tests may use:

- FIXLOOP_TEST_PATCHES: a JSON list of scripted patches, tried before the real proposers
  (`[{"summary": str, "edits": [{"path": str, "old": str, "new": str}, ...]}]`); the real loop still
  checks them and runs the project's tests on a scratch copy.
- FIXLOOP_TEST_MEMORY: a JSON list of remembered patterns (an in-memory memory store):
  `[{"path": str, "match": str, "message": str, "memory_id": str, "replacement": str}]`.
Without these variables it is exactly `fixloop-server`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterator, Mapping

from fixloop.core.model import FileChange, Patch
from fixloop.core.patch import replace_snippet
from fixloop.core.ports import ProposalContext
from fixloop.lsp.providers import DefaultProviders, MemoryPattern
from fixloop.lsp.server import build_server, serve


class ScriptedProposer:
    name = "scripted"
    adaptive = False

    def __init__(self, patches: list[dict[str, Any]]) -> None:
        self.patches = patches

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        for spec in self.patches:
            texts: dict[str, str] = {}
            for edit in spec["edits"]:
                path = edit["path"]
                texts[path] = replace_snippet(texts.get(path, ctx.sources[path]), edit["old"], edit["new"])
            yield Patch(tuple(FileChange(p, ctx.sources[p], after) for p, after in texts.items()),
                        "scripted", "script", spec.get("summary", ""))


class FakeMemory(DefaultProviders):
    """Real safety checks; remembered patterns from a list (an in-memory store)."""

    def __init__(self, patterns: list[dict[str, Any]], *args: Any) -> None:
        super().__init__(*args)
        self.entries = patterns

    def memory_patterns(self, path: str, text: str) -> list[MemoryPattern]:
        out = []
        lines = text.splitlines()
        for entry in self.entries:
            if entry["path"] != path:
                continue
            for i, line in enumerate(lines, 1):
                if entry["match"] in line:
                    out.append(MemoryPattern(i, i, entry["message"], entry["memory_id"],
                                             replacement=entry.get("replacement")))
        return out

    def forget(self, memory_id: str) -> bool:
        before = len(self.entries)
        self.entries = [e for e in self.entries if e["memory_id"] != memory_id]
        return len(self.entries) < before


def _load(name: str) -> Any:
    value = os.environ.get(name)
    return json.loads(Path(value).read_text(encoding="utf-8")) if value else None


def main() -> int:
    patches = _load("FIXLOOP_TEST_PATCHES")
    memory = _load("FIXLOOP_TEST_MEMORY")
    factory = None
    if patches:
        from fixloop.session import FixSession

        class ScriptedSession(FixSession):
            def ports(self, runner: Any) -> Any:  # the scripted patches first, then the configured proposers
                ports = super().ports(runner)
                return dataclasses.replace(ports, proposers=[ScriptedProposer(patches), *ports.proposers])

        def factory(workspace: Path, settings: Any, scope: Any, overlays: Mapping[str, str]) -> FixSession:
            return ScriptedSession(workspace, settings, scope, overlays)

    holder: dict[str, Any] = {}
    provider = None
    if memory is not None:
        provider = FakeMemory(memory, lambda: holder["server"].root, lambda: holder["server"].config.settings)
    server = build_server(provider=provider, **({"session_factory": factory} if factory else {}))
    holder["server"] = server
    return serve(server, sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
