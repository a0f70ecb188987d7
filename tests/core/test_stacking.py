"""Fixes of some failing targets put together: a candidate made on top of one, two merged, suspects moved."""

from __future__ import annotations

from fixloop.core.model import FileChange, Patch, Suspect, TestReport
from fixloop.core.ports import ProposalContext
from fixloop.core.stacking import merged, on_partial, on_top

ORIGINAL = "import os\n\n\ndef a():\n    return 1 + 1\n\n\ndef b():\n    return 2 * 3\n"


def _patch(after: str, summary: str, before: str = ORIGINAL) -> Patch:
    return Patch((FileChange("m.py", before, after),), "p", "op", summary)


def test_a_candidate_made_on_top_of_a_fix_is_one_change_of_the_original() -> None:
    base = _patch(ORIGINAL.replace("import os\n", ""), "drop os")
    candidate = _patch(base.changes[0].after.replace("2 * 3", "2 * 2"), "3 -> 2", before=base.changes[0].after)
    together = on_top(base, candidate)
    assert together.changes == (FileChange("m.py", ORIGINAL, ORIGINAL.replace("import os\n", "").replace("2 * 3", "2 * 2")),)
    assert together.summary == "3 -> 2; drop os" and together.proposer == "p"
    again = on_top(together, _patch(together.changes[0].after, "nothing", before=together.changes[0].after))
    assert again.summary == "nothing; 3 -> 2; drop os"  # each fix named once, however deep


def test_two_fixes_of_the_original_merge_unless_they_overlap() -> None:
    first = _patch(ORIGINAL.replace("1 + 1", "1 - 1"), "minus")
    second = _patch(ORIGINAL.replace("2 * 3", "2 * 2"), "two")
    both = merged(first, second)
    assert both is not None and both.changes[0].after == ORIGINAL.replace("1 + 1", "1 - 1").replace("2 * 3", "2 * 2")
    assert both.changes[0].before == ORIGINAL and both.summary == "two; minus"
    assert merged(first, _patch(ORIGINAL.replace("1 + 1", "1 * 1"), "times")) is None  # the same line, otherwise
    assert merged(first, first) is None  # nothing new
    # A fix that already has the base in it (made on top of it) merges without repeating it.
    on_it = on_top(first, _patch(first.changes[0].after.replace("import os\n", ""), "drop", first.changes[0].after))
    third = merged(first, on_it)
    assert third is not None and third.changes[0].after == ORIGINAL.replace("1 + 1", "1 - 1").replace("import os\n", "")


def test_the_search_on_top_of_a_fix_sees_its_sources_and_suspects_moved_with_its_lines() -> None:
    base = _patch(ORIGINAL.replace("import os\n", ""), "drop os")
    ctx = ProposalContext({"m.py": ORIGINAL, "n.py": "x = 1\n"}, TestReport(), ("t1", "t2"),
                          suspects=(Suspect("m.py", 1, 1.0), Suspect("m.py", 9, 0.9), Suspect("n.py", 1, 0.5)))
    top = on_partial(ctx, base, ("t2",))
    assert top.sources["m.py"] == base.changes[0].after and top.sources["n.py"] == "x = 1\n"
    assert top.target_tests == ("t2",)
    # Line 1 was the fix's own (gone); line 9 is line 8 now; another file's lines stay.
    assert [(s.path, s.line) for s in top.suspects] == [("m.py", 8), ("n.py", 1)]
    assert top.attempts is ctx.attempts  # the model sees every attempt of the run
