"""The pure review functions: placing hunks in edited text, and reading back which were taken."""

from __future__ import annotations

from typing import Sequence

from fixloop.core.model import FileChange, Patch
from fixloop.core.patch import hunks
from fixloop.lsp.parsing import to_bytes
from fixloop.lsp.positions import line_offsets, position_at, units_for
from fixloop.lsp.review import Placed, place, proposal_from, taken
from fixloop.lsp.settings import parse_options

BEFORE = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\n"
AFTER = "a = 10\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 70\nh = 8\n"


def line_edits(placed: Sequence[Placed]) -> list[tuple[int, int, str]]:
    """Each placed hunk as (first line, line after the last, new text): what an editor's edit replaces."""
    return [(p.start, p.start + len(p.hunk.old_lines), "".join(p.hunk.new_lines)) for p in placed]


def apply_line_edits(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    lines = text.splitlines(keepends=True)
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = [new] if new else []
    return "".join(lines)


def two_hunks() -> list:
    return list(hunks(FileChange("m.py", BEFORE, AFTER)))


def test_place_on_unchanged_text_uses_the_original_lines() -> None:
    hs = two_hunks()
    placed, conflicts = place(BEFORE, BEFORE, hs)
    assert conflicts == {} and [p.start for p in placed] == [0, 6]
    assert apply_line_edits(BEFORE, line_edits(placed)) == AFTER


def test_place_rebases_onto_shifted_text_and_refuses_edited_lines() -> None:
    hs = two_hunks()
    current = "# new first line\n" + BEFORE.replace("g = 7\n", "g = 7  # mine\n")
    placed, conflicts = place(BEFORE, current, hs)
    assert [p.start for p in placed] == [1]  # hunk #0 moved down one line
    assert list(conflicts) == ["m.py#1"] and "edited since the run" in conflicts["m.py#1"]
    assert apply_line_edits(current, line_edits(placed)).startswith("# new first line\na = 10\n")


def test_ambiguous_lines_are_a_conflict() -> None:
    before = "x = 1\ny = 2\n"
    h = hunks(FileChange("m.py", before, "x = 1\ny = 3\n"))
    _, conflicts = place(before, "y = 2\nx = 1\ny = 2\n", list(h))
    assert "occur 2 times" in conflicts["m.py#0"]


def test_taken_reads_each_hunk_from_the_document() -> None:
    hs = two_hunks()
    placed, _ = place(BEFORE, BEFORE, hs)
    only_second = apply_line_edits(BEFORE, line_edits(placed[1:]))
    assert taken(BEFORE, only_second, placed) == {"m.py#0": False, "m.py#1": True}
    assert taken(BEFORE, AFTER, placed) == {"m.py#0": True, "m.py#1": True}
    assert taken(BEFORE, BEFORE, placed) == {"m.py#0": False, "m.py#1": False}
    scribbled = BEFORE.replace("a = 1\n", "a = 99\n")
    assert taken(BEFORE, scribbled, placed)["m.py#0"] is None  # the user changed it: cannot tell


def test_positions_count_lsp_lines_and_client_units() -> None:
    text = "é\r\nx = '😀'\rlast"
    utf16 = lambda s: len(s.encode("utf-16-le")) // 2  # noqa: E731
    assert position_at(text, text.index("x"), utf16) == (1, 0)
    assert position_at(text, text.index("'", 8) + 1, utf16) == (1, 8)  # the emoji is 2 UTF-16 units
    assert position_at(text, len(text), len) == (2, 4)
    assert line_offsets("a\nbb\n") == [0, 2, 5]
    from lsprotocol.types import PositionEncodingKind

    assert units_for(PositionEncodingKind.Utf8)("é😀") == 6 and units_for("utf-32")("é😀") == 2
    assert units_for(None)("é😀") == 3  # UTF-16 unless the client chose otherwise


def test_proposal_hunk_json_follows_the_contract() -> None:
    proposal = proposal_from("r1", Patch((FileChange("m.py", BEFORE, AFTER),)), lambda rel: f"file:///ws/{rel}")
    first = proposal.hunks[0].to_json()
    assert first == {"id": "m.py#0", "path": "m.py", "uri": "file:///ws/m.py", "start_line": 0, "end_line": 1,
                     "old": "a = 1\n", "new": "a = 10\n", "state": "pending"}


def test_settings_parse_with_messages_and_defaults(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.fixloop]\nmax_iterations = 7\n")
    config, problems = parse_options({"settings": {"max_cost_usd": -1, "diagnostics": {"memory": False}},
                                      "review": "client", "apiKey": 5, "extra": 1}, tmp_path)
    assert config.settings.max_iterations == 7 and config.settings.diagnostics.memory is False
    assert config.settings.max_cost_usd == 2.0 and config.review == "client" and config.api_key == ""
    assert len(problems) == 3 and not any("5" == p for p in problems)
    config, problems = parse_options("nonsense", None)
    assert problems and config.review == "workspaceEdit"
    assert "sk-secret" not in repr(parse_options({"apiKey": "sk-secret"}, None)[0])


def test_an_empty_array_is_no_settings(tmp_path) -> None:
    # Lua clients send an empty table as `[]`: that is "nothing set", not a mistake to report.
    (tmp_path / "pyproject.toml").write_text("[tool.fixloop]\nmax_iterations = 7\n")
    config, problems = parse_options({"review": "client", "settings": []}, tmp_path, answer=[])
    assert problems == [] and config.review == "client" and config.settings.max_iterations == 7
    config, problems = parse_options([], tmp_path, {"settings": [], "workspaceSettings": []})
    assert problems == [] and config.settings.max_iterations == 7
    config, problems = parse_options({"settings": [1]}, tmp_path)
    assert problems == ["initializationOptions.settings: expected an object; using defaults"]


def test_lone_surrogates_encode_without_error() -> None:
    assert to_bytes("caf\udce9") == b"caf?"


def test_memory_pattern_hits_become_diagnostics() -> None:
    """fixloop.adapters.memory's PatternHit, as the ReviewMemory port returns it, shown as an FL-M001 diagnostic
    over the statement."""
    from fixloop.core.model import PatternHit
    from fixloop.lsp.diagnostics import memory_diagnostic
    from fixloop.lsp.providers import as_pattern

    hit = PatternHit("m.py", 2, 4, 2, 24, "if ID > ID :", 3, "if q > LIMIT: -> if q >= LIMIT:", "fix-1")
    pattern = as_pattern(hit)
    assert pattern.memory_id == "fix-1"
    assert pattern.message == "this shape failed 3 times in this project; fixed by if q > LIMIT: -> if q >= LIMIT:"
    d = memory_diagnostic(pattern, ["def f(q):", "    if q > LIMIT: return 1"], len)
    assert d["range"] == {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 24}}
    assert d["code"] == "FL-M001" and d["source"] == "fixloop-memory" and d["data"] == {"memory_id": "fix-1", "line": 2}


class _Timers:
    """asyncio's call_later on a hand-driven clock."""

    def __init__(self) -> None:
        self.now = 0.0
        self.due: list[list] = []

    def later(self, delay: float, callback):  # type: ignore[no-untyped-def]
        entry = [self.now + delay, callback, False]
        self.due.append(entry)

        class Handle:
            def cancel(self) -> None:
                entry[2] = True
        return Handle()

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for entry in sorted(self.due, key=lambda e: e[0]):
            if entry[0] <= self.now and not entry[2] and entry in self.due:
                self.due.remove(entry)
                entry[1]()


def test_progress_reports_carry_the_candidate_and_suspect_at_a_bounded_rate() -> None:
    from fixloop.core.model import Event
    from fixloop.lsp.progress import ProgressReporter, end_message

    timers, sent = _Timers(), []
    reporter = ProgressReporter(sent.append, timers.later, clock=lambda: timers.now, interval=0.5, heartbeat=5.0)
    reporter.update(Event("started", "r", 0.0, "start", None, {"limits": {"wall_seconds": 600, "max_candidates": 400}}))
    assert sent == ["baseline: running the tests as they are (0 s)"]
    for n in range(1, 31):  # 30 candidates in 0.3 s: one report now, the newest state when the interval ends
        timers.advance(0.01)
        reporter.update(Event("candidate", "r", timers.now, "propose", n,
                              {"where": f"calc/ops.py:{n}", "operator": "swap_comparison", "limit": 400}))
    assert len(sent) == 1
    timers.advance(0.5)
    assert len(sent) == 2 and sent[-1].startswith("search: candidate 30/400, calc/ops.py:30 swap_comparison, ")
    timers.advance(5.0)  # nothing happened for a while: the time left still counts down
    assert len(sent) == 3 and sent[-1].startswith("search: candidate 30/400") and sent[-1] != sent[-2]
    reporter.close()
    timers.advance(60.0)
    reporter.update(Event("finished", "r", timers.now, "done", None, {}))
    assert len(sent) == 3  # nothing after the end
    summary = {"status": "limits", "message": "candidate limit of 400 reached",
               "next_steps": ["raise the candidate limit (400 now): `--max-candidates 800`", "other"]}
    assert end_message(summary) == ("limits: candidate limit of 400 reached; next: raise the candidate limit "
                                    "(400 now): `--max-candidates 800`")
    assert end_message({"status": "gave_up", "message": "t\x1b[2J"}) == "gave_up: t\\x1b[2J"


def test_the_editors_api_key_reaches_only_the_run_settings() -> None:
    from fixloop.lsp.runs import run_settings

    config, problems = parse_options({"apiKey": "sk-editor-key"}, None)
    assert problems == [] and config.settings.llm.api_key == ""  # not in the shared settings
    settings = run_settings(config)
    assert settings.llm.api_key == "sk-editor-key"
    assert "sk-editor-key" not in repr(settings) and "sk-editor-key" not in repr(config)
