import subprocess
from pathlib import Path

from fixloop.core.model import FileChange, Patch
from fixloop.core.patch import (
    TextEdit, apply_edits, apply_hunks, hunks, patch_size, replace_snippet, unified_diff,
)
import pytest


def test_apply_edits_in_any_order() -> None:
    assert apply_edits("abcdef", [TextEdit(4, 5, "E"), TextEdit(0, 1, "A")]) == "AbcdEf"


def test_overlapping_edits_are_refused() -> None:
    with pytest.raises(ValueError):
        apply_edits("abcdef", [TextEdit(0, 3, "x"), TextEdit(2, 4, "y")])


def test_replace_snippet_must_be_unique() -> None:
    assert replace_snippet("a = 1\nb = 2\n", "b = 2", "b = 3") == "a = 1\nb = 3\n"
    with pytest.raises(ValueError, match="2 times"):
        replace_snippet("x\nx\n", "x", "y")
    with pytest.raises(ValueError, match="not found"):
        replace_snippet("x\n", "z", "y")


def test_unified_diff_keeps_crlf_and_marks_missing_newline() -> None:
    patch = Patch((FileChange("m.py", "a = 1\r\nb = 2", "a = 1\r\nb = 3"),))
    diff = unified_diff(patch)
    assert "-b = 2\n\\ No newline at end of file" in diff
    assert "a = 1\r\n" in diff


def test_hunks_apply_one_by_one_and_together() -> None:
    before = "".join(f"line {i}\n" for i in range(20))
    after = before.replace("line 2\n", "LINE 2\n").replace("line 15\n", "LINE 15\n")
    hs = hunks(FileChange("f.py", before, after))
    assert len(hs) == 2
    assert apply_hunks(before, hs) == after
    only_second = apply_hunks(before, [hs[1]])
    assert "line 2\n" in only_second and "LINE 15\n" in only_second
    assert patch_size(Patch((FileChange("f.py", before, after),))) == 4


def test_hunks_of_edits_at_the_ends_and_in_the_middle_of_a_long_file() -> None:
    before = "".join(f"line {i}\n" for i in range(3000))
    after = "head\n" + before.replace("line 1500\n", "").replace("line 2999\n", "line 2999\ntail\n")
    hs = hunks(FileChange("f.py", before, after))
    assert [(h.start, h.end, h.old_lines, h.new_lines) for h in hs] == [
        (0, 0, (), ("head\n",)), (1500, 1501, ("line 1500\n",), ()), (3000, 3000, (), ("tail\n",))]
    assert apply_hunks(before, hs) == after
    assert hunks(FileChange("f.py", before, before)) == ()


def test_the_diff_breaks_lines_at_line_feeds_only(tmp_path: Path) -> None:
    # A form feed, a NEL, a line separator or a CRLF stays inside its line: the diff is the file's own lines,
    # and `patch` applies it to the exact bytes.
    before = "a = 1\r\n\x0c\nb = '\x85x\u2028y'\nc = 3\n"
    after = before.replace("c = 3", "c = 4")
    diff = unified_diff(Patch((FileChange("m.py", before, after),)))
    assert diff.count("\n") == 8 and "-c = 3\n+c = 4\n" in diff, diff
    (tmp_path / "m.py").write_bytes(before.encode())
    done = subprocess.run(["patch", "-p1", "--binary"], input=diff.encode(), cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "m.py").read_bytes() == after.encode()
