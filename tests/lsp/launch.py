"""Start the real language server for the end-to-end tests, with the fakes the tests may use:

- FIXLOOP_TEST_PATCHES: a JSON list of scripted patches, tried before the real proposers
  (`[{"summary": str, "edits": [{"path": str, "old": str, "new": str}, ...]}]`); the real loop still
  checks them and runs the project's tests on a scratch copy.
- FIXLOOP_TEST_MEMORY: a JSON list of remembered fixes for an in-memory memory (tests/lsp/fake_memory.py):
  `[{"memory_id": str, "path": str, "before": str, "after": str, "count": int, "edit": str}]`; the
  warnings and their past fixes come from the real memory code.
Without these variables it is exactly `fixloop-server`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout, for the shared test fakes

from fixloop.core.patch import replace_snippet  # noqa: E402
from fixloop.lsp.providers import DefaultProviders  # noqa: E402
from fixloop.lsp.server import build_server, run_until_exit  # noqa: E402
from tests.fakes import Candidate, ScriptedProposer  # noqa: E402
from tests.lsp.fake_memory import FakeMemory  # noqa: E402


def scripted(patches: list[dict[str, Any]]) -> ScriptedProposer:
    """The shared scripted proposer, its candidates given as snippet edits (see FIXLOOP_TEST_PATCHES)."""

    def edit(spec: dict[str, Any]) -> Callable[[Mapping[str, str]], dict[str, str]]:
        def texts(sources: Mapping[str, str]) -> dict[str, str]:
            out: dict[str, str] = {}
            for e in spec["edits"]:
                out[e["path"]] = replace_snippet(out.get(e["path"], sources[e["path"]]), e["old"], e["new"])
            return out
        return texts

    return ScriptedProposer([Candidate(edit(spec), "script", spec.get("summary", "")) for spec in patches])


class FakeProviders(DefaultProviders):
    """Real safety checks and the real memory warnings, over an in-memory memory (tests/lsp/fake_memory.py)."""

    def __init__(self, fixes: list[dict[str, Any]], *args: Any) -> None:
        super().__init__(*args)
        self.memory = FakeMemory(fixes)

    def store(self) -> Any:
        return self.memory


def _load(name: str) -> Any:
    value = os.environ.get(name)
    return json.loads(Path(value).read_text(encoding="utf-8")) if value else None


def main() -> None:
    patches = _load("FIXLOOP_TEST_PATCHES")
    memory = _load("FIXLOOP_TEST_MEMORY")
    factory = None
    if patches:
        from fixloop.application.session import FixSession

        class ScriptedSession(FixSession):
            def ports(self, runner: Any, on_choice: Any = lambda choice: None) -> Any:
                # The scripted patches first, then the configured proposers (their strategy chosen now).
                ports = super().ports(runner, on_choice)
                return dataclasses.replace(ports, proposers=[scripted(patches), *ports.proposers])

        def factory(request: Any) -> FixSession:
            return ScriptedSession(request)

    holder: dict[str, Any] = {}
    provider = None
    if memory is not None:
        provider = FakeProviders(memory, lambda: holder["server"].root, lambda: holder["server"].config.settings)
    server = build_server(provider=provider, **({"session_factory": factory} if factory else {}))
    holder["server"] = server
    run_until_exit(server, sys.argv[1:])  # the product's own exit path


if __name__ == "__main__":
    main()
