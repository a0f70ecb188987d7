"""Past fixes that apply: a real `fixloop fix` run teaches a real LanceDB store; the language server then
warns on another file with the same statement shape, shows the fix re-made there, checks it in the
sandbox and offers it for review. The in-memory memory of the other LSP tests gives the same warnings."""

from __future__ import annotations

import json
from dataclasses import asdict
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
from lsprotocol import types as t

from tests.conftest import PYTHON, fixloop_env
from tests.lsp.fake_memory import FakeMemory
from tests.lsp.lsp_harness import Session, lsp, project

TICKETS = ('SENIOR_AGE = 65\n\n\ndef ticket_price(age: int, base: float = 12.0) -> float:\n'
           '    """Seniors (65 and over) pay half."""\n    if age > SENIOR_AGE:\n        return base / 2\n'
           '    return base\n')
TICKET_TESTS = ("from inventory.tickets import ticket_price\n\n\ndef test_a_senior_of_65_pays_half():\n"
                "    assert ticket_price(65) == 6.0\n\n\ndef test_an_adult_pays_in_full():\n"
                "    assert ticket_price(30) == 12.0\n")
# The same statement shape where the strict comparison is right: the past fix would break a test here.
MEMBERS = ("MEMBER_YEARS = 5\n\n\ndef loyal(years: int) -> bool:\n    if years > MEMBER_YEARS:\n"
           "        return True\n    return False\n")
MEMBER_TESTS = ("from inventory.members import loyal\n\n\ndef test_five_years_is_not_yet_loyal():\n"
                "    assert not loyal(5)\n\n\ndef test_six_years_is_loyal():\n    assert loyal(6)\n")


@pytest.fixture(scope="module")
def learned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """examples/inventory fixed once by a real `fixloop fix` run into a fresh store (kept as templates)."""
    base = tmp_path_factory.mktemp("learned")
    ws = project(base, "shop")
    store = base / "memory.template"
    proc = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(ws), "--yes", "--json", "--offline",
                           "--python", PYTHON, "--memory", str(store)], capture_output=True, text=True,
                          env=fixloop_env(XDG_DATA_HOME=str(base / "xdg")), timeout=600)
    summary = json.loads(proc.stdout)
    assert summary["status"] == "fixed", (summary, proc.stderr[-2000:])
    assert "+    if quantity >= BULK_THRESHOLD:" in summary["diff"], summary["diff"]
    shutil.copytree(ws, base / "shop.template")
    return ws, store


@pytest.fixture
def shop(learned: tuple[Path, Path]) -> Iterator[tuple[Path, Path]]:
    """The learned project, as the run left it, at the same path (the store knows a project by its path),
    with its own copy of the store, and two new files that repeat the fixed statement's shape."""
    ws, template = learned
    shutil.rmtree(ws)
    shutil.copytree(ws.parent / "shop.template", ws)
    store = ws.parent / "memory"
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(template, store)
    for rel, text in {"inventory/tickets.py": TICKETS, "tests/test_tickets.py": TICKET_TESTS,
                      "inventory/members.py": MEMBERS, "tests/test_members.py": MEMBER_TESTS}.items():
        (ws / rel).write_text(text)
    yield ws, store


async def memory_warning(s: Session, uri: str) -> t.Diagnostic:
    found = await s.until(lambda: [d for d in s.client.diagnostics.get(uri, []) if d.source == "fixloop-memory"],
                          timeout=60, what=f"a memory warning on {uri}")
    assert len(found) == 1, found
    return found[0]


async def past_fix_actions(s: Session, uri: str, warning: t.Diagnostic) -> dict[str, t.Command]:
    actions = await s.client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=warning.range,
        context=t.CodeActionContext(diagnostics=[warning])))
    return {a.title: a.command for a in actions if a.title.endswith("past fix")}


async def check_ends(s: Session, started: dict[str, Any]) -> dict[str, Any]:
    assert started["queued"] is False and started["run_id"].startswith("memory-")
    return await s.run_finished(started["run_id"], timeout=300)


@pytest.mark.e2e  # a real fix run teaches the store (once per module), then two sandboxed checks per profile
async def test_a_learned_fix_is_shown_checked_and_applied_on_another_file(
        profile: str, tmp_path: Path, shop: tuple[Path, Path]) -> None:
    ws, store = shop
    review = "workspaceEdit" if profile.startswith("visual-studio-code") else "client"
    options = {"settings": {"memory": {"uri": str(store)}, "sandbox": {"backend": "auto"}, "python": PYTHON,
                            "diagnostics": {"debounce_ms": 0}}, "review": review}
    async with lsp(profile, ws, tmp_path, options=options) as s:
        # Where the fix would break a test, it is not offered: the check says which test.
        members = s.uri("inventory/members.py")
        s.editor.open(members, MEMBERS)
        warning = await memory_warning(s, members)
        assert warning.range.start == t.Position(4, 4) and "failed 2 times" in warning.message
        actions = await past_fix_actions(s, members, warning)
        assert set(actions) == {"Show the past fix", "Apply the past fix"}
        refused = await check_ends(s, await s.command(actions["Apply the past fix"].command,
                                                      *actions["Apply the past fix"].arguments))
        assert refused["status"] == "gave_up", refused
        assert refused["message"] == ("the past fix makes 1 test fail: "
                                      "tests/test_members.py::test_five_years_is_not_yet_loyal"), refused
        assert refused["hunks"] == [] and s.editor.edits == [] and s.editor.text(members) == MEMBERS

        # Where it belongs: shown with this file's names, checked, offered for review, applied once accepted.
        tickets = s.uri("inventory/tickets.py")
        s.editor.open(tickets, TICKETS)
        warning = await memory_warning(s, tickets)
        assert warning.range.start == t.Position(5, 4)
        actions = await past_fix_actions(s, tickets, warning)
        shown = await s.command(actions["Show the past fix"].command, *actions["Show the past fix"].arguments)
        assert "-    if age > SENIOR_AGE:\n+    if age >= SENIOR_AGE:\n" in shown["diff"], shown
        assert shown["files_changed"] == ["inventory/tickets.py"] and shown["hunks"] == []
        summary = await check_ends(s, await s.command(actions["Apply the past fix"].command,
                                                      *actions["Apply the past fix"].arguments))
        assert summary["status"] == "fixed", summary
        assert summary["check"]["broken"] == [] and summary["check"]["tests"] == 15, summary["check"]
        hunk = "inventory/tickets.py#0"
        assert [h["id"] for h in summary["hunks"]] == [hunk] and summary["hunks"][0]["state"] == "pending"
        if review == "workspaceEdit":  # offered like a run's fix: one annotated hunk that needs confirmation
            await s.until(lambda: s.editor.edits, timeout=30, what="workspace/applyEdit")
            edit = s.editor.edits[0].edit
            assert set(edit.change_annotations) == {hunk}
            assert all(a.needs_confirmation for a in edit.change_annotations.values())
            assert (await s.settled_states(summary["run_id"])) == {hunk: "accepted"}
        else:  # the client reviews: nothing is written until it accepts
            assert s.editor.edits == [] and s.editor.text(tickets) == TICKETS
            assert await s.command("fixloop.accept", {"run_id": summary["run_id"]}) == {"applied": [hunk],
                                                                                       "conflicts": []}
        assert s.editor.text(tickets) == TICKETS.replace("if age > SENIOR_AGE:", "if age >= SENIOR_AGE:")
        await s.until(lambda: not [d for d in s.client.diagnostics[tickets] if d.source == "fixloop-memory"],
                      what="the warning to go with the fixed shape")

    # Saved as the editor has it, the project's tests pass.
    (ws / "inventory" / "tickets.py").write_text(s.editor.text(tickets))
    (ws / "tests" / "test_members.py").unlink()
    run = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=ws, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:]


@pytest.mark.e2e  # the server loads LanceDB to find the store unreadable
async def test_a_store_that_cannot_be_read_is_said_once_and_warns_nothing(tmp_path: Path) -> None:
    from fixloop.adapters.memory.embed import HashingEmbedder
    from fixloop.adapters.memory.store import MemoryStore

    ws = project(tmp_path)
    store = tmp_path / "newer-store"
    MemoryStore(str(store), HashingEmbedder()).open()._set_meta({"schema_version": "999"})
    options = {"settings": {"memory": {"uri": str(store)}, "diagnostics": {"debounce_ms": 0}}}
    async with lsp("visual-studio-code", ws, tmp_path, options=options) as s:
        uri = s.uri("inventory/pricing.py")
        text = (ws / "inventory" / "pricing.py").read_text()
        s.editor.open(uri, text)
        said = await s.until(lambda: [m for m in s.client.messages if "fixloop memory" in m.message],
                             timeout=60, what="the memory problem")
        assert said[0].type == t.MessageType.Warning and "newer than this fixloop" in said[0].message
        s.editor.set_text(uri, text + "\n")
        await s.until(lambda: s.client.diagnostics.get(uri) is not None, what="diagnostics")
        assert not [d for d in s.client.diagnostics[uri] if d.source == "fixloop-memory"]
        assert len([m for m in s.client.messages if "fixloop memory" in m.message]) == 1  # said once


def test_the_in_memory_memory_gives_the_real_stores_warnings(tmp_path: Path) -> None:
    """tests/lsp/fake_memory.py stands for the real store in the other LSP tests: for the same fixes it
    must give the same warnings, past fixes included (ids aside), and no more."""
    from fixloop.core.model import FileChange, Outcome, Patch, Status
    from fixloop.core.ports import ProposalContext
    from fixloop.adapters.memory.embed import HashingEmbedder
    from fixloop.adapters.memory.learning import LearningMemory
    from fixloop.adapters.memory.store import MemoryStore
    from tests.memory.conftest import failing_report

    pricing = (Path(__file__).resolve().parents[2] / "examples" / "inventory" / "inventory" / "pricing.py").read_text()
    fixes = [("inventory/pricing.py", pricing, pricing.replace("if quantity > BULK_THRESHOLD:",
                                                               "if quantity >= BULK_THRESHOLD:")),
             ("pkg/short.py", "def f(x):\n    return x\n", "def f(x):\n    return -x\n")]  # too short to warn about
    real = LearningMemory(MemoryStore(str(tmp_path / "memory"), HashingEmbedder()), "/p", min_pattern_count=1)
    for i, (path, before, after) in enumerate(fixes):
        report = failing_report(f"tests/test_{i}.py::test_it", "assert 1 == 2", path, 2)
        real.record_outcome(Outcome(Status.FIXED, f"run-{i}", "fixed", Patch((FileChange(path, before, after),),
                                                                             "mutation", "op"), baseline=report),
                            ProposalContext(sources={path: before}, baseline=report,
                                            target_tests=(report.failed[0].nodeid,)))
    fake = FakeMemory([{"memory_id": f"m{i}", "path": p, "before": b, "after": a, "count": 1}
                       for i, (p, b, a) in enumerate(fixes)], min_pattern_count=1)
    editing = TICKETS + "\n\ndef f(y):\n    return y\n"
    got_real, got_fake = real.patterns_in("inventory/tickets.py", editing), fake.patterns_in("inventory/tickets.py", editing)
    assert len(got_real) == 1 and got_real[0].after == "    if age >= SENIOR_AGE:\n"
    assert [asdict(h) | {"fix_id": ""} for h in got_fake] == [asdict(h) | {"fix_id": ""} for h in got_real]
    # A stored edit that no longer reads: both still warn, neither has anything to apply.
    real.store.update("fixes", "true", {"edit": "{"})
    fake.fixes[0]["edit"] = "{"
    broken_real = LearningMemory(real.store, "/p", min_pattern_count=1).patterns_in("inventory/tickets.py", editing)
    broken_fake = fake.patterns_in("inventory/tickets.py", editing)
    assert [(h.after, h.problem) for h in broken_fake] == [(h.after, h.problem) for h in broken_real] != []
    assert broken_real[0].after is None


def test_a_warning_whose_lines_changed_applies_nothing() -> None:
    """Between an edit and the next check, a code action may name a warning made on other text."""
    from fixloop.lsp.past_fixes import STALE, past_fix
    from fixloop.lsp.providers import MemoryPattern

    pattern = MemoryPattern(6, 6, "this shape failed 2 times", "f1", fix_diff="d", before="    if age > SENIOR_AGE:\n",
                            replacement="    if age >= SENIOR_AGE:\n")
    run_id, patch, summary = past_fix("inventory/tickets.py", TICKETS, pattern)
    assert run_id == "memory-f1-6" and patch is not None
    assert patch.changes[0].after == TICKETS.replace("age > SENIOR", "age >= SENIOR")
    for edited in (TICKETS.replace("age > SENIOR", "age > 1 + SENIOR"), "# a line above\n" + TICKETS, "x = 1\n"):
        run_id, patch, summary = past_fix("inventory/tickets.py", edited, pattern)
        assert patch is None and summary["note"] == STALE and summary["files_changed"] == []
    odd = MemoryPattern(1, 1, "m", "../../x y", before="SENIOR_AGE = 65\n", replacement="SENIOR_AGE = 66\n")
    assert past_fix("inventory/tickets.py", TICKETS, odd)[0] == "memory-xy-1"  # the id names a folder: plain
