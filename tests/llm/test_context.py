"""Context assembly: what the model sees, and the truncation rules under a token budget."""

from __future__ import annotations

from fixloop.core.model import Attempt, FileChange, Lesson, Patch, Reflection, Suspect
from fixloop.core.model import TestReport as Report
from fixloop.core.model import TestResult as Result
from fixloop.core.ports import ProposalContext
from fixloop.adapters.llm.context import CHARS_PER_TOKEN, case_text, data, estimate_tokens, history_text

CALC = "def average(values):\n    return sum(values) / len(values)\n"
TEST = "from calc import average\n\n\ndef test_empty():\n    assert average([]) == 0.0\n"


def ctx_with(longrepr: str = "E ZeroDivisionError", lessons: tuple[Lesson, ...] = (), body: str = CALC) -> ProposalContext:
    result = Result("test_calc.py::test_empty", "failed", exc_type="ZeroDivisionError",
                        message="division by zero", longrepr=longrepr)
    return ProposalContext(sources={"calc.py": body, "test_calc.py": TEST}, baseline=Report((result,)),
                           target_tests=(result.nodeid,), suspects=(Suspect("calc.py", 2, 1.0),), lessons=lessons,
                           is_test_file=lambda p: p.startswith("test_"))


def test_case_has_failure_test_source_suspect_lessons_and_outline() -> None:
    lesson = Lesson("ZeroDivisionError @ calc.py:average", "guarded an empty list", "+    if not values:", similarity=0.9,
                    outcome="fixed")
    text = case_text(ctx_with(lessons=(lesson,)), 24_000)
    assert "ZeroDivisionError: division by zero" in text
    assert "def test_empty():" in text
    assert ">>    2 |     return sum(values) / len(values)" in text
    assert "guarded an empty list" in text and "+    if not values:" in text
    assert "def average  (lines 1-2)" in text
    assert "calc.py\ntest_calc.py (test)" in text
    assert text.count("<data") == text.count("</data>")


def test_a_huge_traceback_keeps_its_tail_and_the_case_fits_the_budget() -> None:
    longrepr = "\n".join(f"frame {i}" for i in range(20_000)) + "\nE   assert 1 == 2"
    budget = 4000
    text = case_text(ctx_with(longrepr=longrepr), budget)
    assert estimate_tokens(text) <= budget
    assert "E   assert 1 == 2" in text and "earlier lines truncated" in text
    assert "frame 10 " not in text


def test_low_priority_sections_are_dropped_first() -> None:
    big = "def average(values):\n" + "".join(f"    x{i} = {i}\n" for i in range(3000)) + "    return 1\n"
    text = case_text(ctx_with(body=big), 2000)
    assert len(text) <= 2000 * 0.7 * CHARS_PER_TOKEN + 400
    assert "## Outline of the suspicious modules\n[omitted: over the context budget]" in text
    assert "ZeroDivisionError" in text  # the highest-priority section survives


def test_data_blocks_cannot_be_closed_from_inside() -> None:
    assert data("x", "a </data> b") == '<data kind="x">\na <\\/data> b\n</data>'


def attempt(i: int, proposer: str = "llm") -> Attempt:
    patch = Patch((FileChange("calc.py", CALC, CALC.replace("len(values)", f"(len(values) + {i})")),), proposer, "edit",
                  f"try {i}")
    report = Report((Result("test_calc.py::test_empty", "failed", exc_type="AssertionError",
                                    message=f"assert {i} == 0"),))
    return Attempt(i, patch, "failed", report=report,
                   reflection=Reflection("sig", f"cause {i}", "calc.py:2", f"strategy {i}", 0.5))


def test_history_keeps_recent_attempts_in_full_and_summarises_older_ones() -> None:
    ctx = ctx_with()
    ctx.attempts.extend(attempt(i) for i in range(1, 7))
    ctx.attempts.append(attempt(7, proposer="mutation"))
    text = history_text(ctx, "llm", 24_000)
    assert text.startswith("7 candidates were tested")
    for i in (4, 5, 6):
        assert f"### Candidate #{i}: try {i}" in text and f"strategy {i}" in text and f"(len(values) + {i})" in text
    for i in (1, 2, 3, 7):
        assert f"#{i} [" in text and f"### Candidate #{i}:" not in text


def test_history_drops_details_to_fit_but_keeps_one_line_each() -> None:
    ctx = ctx_with()
    ctx.attempts.extend(attempt(i) for i in range(1, 4))
    text = history_text(ctx, "llm", 1000)
    assert "details of candidate #1 dropped" in text
    assert "### Candidate #3" in text  # the newest keeps its details longest


def test_old_tool_results_are_elided_when_the_conversation_grows() -> None:
    from fixloop.adapters.llm.context import ELIDED, trim_conversation

    def result(i: int) -> dict:
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x" * 4000}]}

    messages = [{"role": "user", "content": [{"type": "text", "text": "case"}]}]
    for i in range(5):
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "view_file",
                                                           "input": {"path": "a.py"}}]})
        messages.append(result(i))
    assert trim_conversation(messages, 2500) == 3  # 10,000 characters allowed: two results stay
    contents = [m["content"][0]["content"] for m in messages if m["content"][0]["type"] == "tool_result"]
    assert contents[:3] == [ELIDED] * 3 and contents[3:] == ["x" * 4000] * 2


def test_the_suspects_callers_and_callees_come_from_the_code_graph() -> None:
    sources = {"calc.py": "from stats import total\n\n\ndef average(values):\n    return total(values) / len(values)\n",
               "stats.py": "def total(values):\n    return sum(values)\n",
               "report.py": "from calc import average\n\n\ndef line(values):\n    return f'{average(values):.2f}'\n",
               "test_calc.py": TEST}
    result = Result("test_calc.py::test_empty", "failed", exc_type="ZeroDivisionError", message="division by zero")
    ctx = ProposalContext(sources=sources, baseline=Report((result,)), target_tests=(result.nodeid,),
                          suspects=(Suspect("calc.py", 5, 1.0),), is_test_file=lambda p: p.startswith("test_"))
    text = case_text(ctx, 24_000)
    assert "## Callers and callees of the suspicious functions" in text
    assert "called by report::line at report.py:5: return f'{average(values):.2f}'" in text
    assert "calls stats::total (stats.py:1): def total(values):" in text
    assert "test_calc::test_empty" not in text.split("## Callers and callees")[1].split("##")[0]  # tests have their own section
