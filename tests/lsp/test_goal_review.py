"""The new-file hunk of a goal fix, reviewed in process: a CreateFile before its text, never over a file,
and a clear conflict for an editor that cannot create files."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from lsprotocol import types as t
from pygls.workspace import Workspace

from fixloop.core.model import FileChange, Patch
from fixloop.application.goal.newfile import with_new_file
from fixloop.lsp.editor import Editor
from fixloop.lsp.review_edits import Reviewer
from fixloop.lsp.settings import ServerConfig

TEST = "tests/test_f_goal.py"
TEXT = "from calc import f\n\n\ndef test_f_goal():\n    assert f(3) == 7\n"


class Recorder:
    def __init__(self) -> None:
        self.decisions: list[tuple[str, bool]] = []

    def record_decision(self, run_id: str, hunk: Mapping[str, Any], accepted: bool, patch: Patch | None) -> None:
        self.decisions.append((hunk["id"], accepted))

    def applied(self, run_id: str, patch: Patch) -> str:
        return ""


def reviewer(root: Path, ops: tuple[t.ResourceOperationKind, ...]) -> tuple[Reviewer, list[t.WorkspaceEdit], list[str]]:
    sent: list[t.WorkspaceEdit] = []
    shown: list[str] = []
    caps = t.ClientCapabilities(workspace=t.WorkspaceClientCapabilities(workspace_edit=t.WorkspaceEditClientCapabilities(
        document_changes=True, resource_operations=list(ops))))
    workspace = Workspace(root.as_uri())
    editor = Editor(root=lambda: root, config=ServerConfig, workspace=lambda: workspace, capabilities=lambda: caps,
                    show=lambda kind, message: shown.append(message), log=lambda message: None)

    async def apply(params: t.ApplyWorkspaceEditParams) -> t.ApplyWorkspaceEditResult:
        sent.append(params.edit)
        return t.ApplyWorkspaceEditResult(applied=True)

    return Reviewer(editor, lambda method, params: None, apply, Recorder()), sent, shown


def project(tmp_path: Path) -> tuple[Path, Patch]:
    root = tmp_path / "ws"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text("def f(x):\n    return x * 2 - 1\n")
    fix = Patch((FileChange("calc.py", "def f(x):\n    return x * 2 - 1\n", "def f(x):\n    return x * 2 + 1\n"),),
                "mutation", "arith")
    return root, with_new_file(fix, TEST, TEXT)


async def test_the_new_file_is_created_first_and_never_over_a_file(tmp_path: Path) -> None:
    root, patch = project(tmp_path)
    review, sent, _ = reviewer(root, (t.ResourceOperationKind.Create,))
    proposal = review.add("run-1", patch, {"status": "fixed"})
    shown = review.show("run-1")
    assert shown is not None and shown["hunks"][0] == {
        "id": f"{TEST}#0", "path": TEST, "uri": (root / TEST).as_uri(), "start_line": 0, "end_line": 0, "old": "",
        "new": TEXT, "state": "pending", "new_file": True}
    assert "new_file" not in shown["hunks"][1]
    await review.offer(proposal)
    changes = sent[0].document_changes or []
    assert isinstance(changes[0], t.CreateFile) and changes[0].uri == (root / TEST).as_uri()
    assert changes[0].options == t.CreateFileOptions(overwrite=False, ignore_if_exists=False)
    assert isinstance(changes[1], t.TextDocumentEdit) and changes[1].text_document.version is None
    assert changes[1].edits[0].new_text == TEXT

    (root / TEST).write_text("# the user's own test\n")  # made meanwhile: the hunk is a conflict, not a write
    review2, sent2, _ = reviewer(root, (t.ResourceOperationKind.Create,))
    result = await review2.offer(review2.add("run-2", patch))
    assert [h.id for h in result.conflicts] == [f"{TEST}#0"] and "never overwrites" in result.conflicts[0].message
    assert not any(isinstance(c, t.CreateFile) for c in sent2[0].document_changes or [])
    assert (root / TEST).read_text() == "# the user's own test\n"


async def test_an_editor_that_cannot_create_files_gets_a_conflict_with_what_to_do(tmp_path: Path) -> None:
    root, patch = project(tmp_path)
    review, sent, _ = reviewer(root, ())
    result = await review.offer(review.add("run-1", patch))
    assert [h.id for h in result.conflicts] == [f"{TEST}#0"]
    assert "cannot create files through workspace/applyEdit" in result.conflicts[0].message
    assert all(isinstance(c, t.TextDocumentEdit) for c in sent[0].document_changes or [])
