"""A past run's fix.diff back onto today's file."""

from __future__ import annotations

from fixloop.core.model import FileChange, Patch
from fixloop.core.patch import unified_diff
from fixloop.application.history import diffs

BEFORE = "".join(f"line {i}\n" for i in range(1, 21))


def _diff(after: str, path: str = "pkg/m.py") -> str:
    return unified_diff(Patch((FileChange(path, BEFORE, after),)))


def test_a_diff_applies_where_its_lines_are_even_when_they_moved() -> None:
    after = BEFORE.replace("line 3\n", "LINE 3\n").replace("line 17\n", "LINE 17\n")
    (fd,) = diffs.parse(_diff(after))
    assert fd.path == "pkg/m.py" and len(fd.hunks) == 2
    assert diffs.apply(BEFORE, fd) == after
    moved = "new first line\n" + BEFORE
    assert diffs.apply(moved, fd) == "new first line\n" + after


def test_a_diff_that_no_longer_fits_or_names_odd_paths_is_refused() -> None:
    after = BEFORE.replace("line 3\n", "LINE 3\n")
    (fd,) = diffs.parse(_diff(after))
    assert diffs.apply(after, fd) is None  # the fix is in already
    for bad in ("/etc/passwd", "../x.py", "a/../../x.py", ""):
        text = _diff(after).replace("+++ b/pkg/m.py", f"+++ b/{bad}" if bad else "+++ ")
        assert diffs.parse(text) == []
    assert diffs.parse("garbage\n@@ -1 +1 @@\n-x\n+y\n") == []
