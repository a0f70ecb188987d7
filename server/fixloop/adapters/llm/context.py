"""Context assembly under a token budget, with explicit truncation rules.

Tokens are estimated as characters / 4 (a safe over-estimate for code), so no tokenizer is needed.

Rules, in order:
1. The per-call budget (`context_tokens`) is split: the stable case gets 70 %, the attempt history 30 %.
2. The case is made of sections in priority order: failing tests (assertion and traceback), the tests'
   source, the suspicious functions with their enclosing scope, lessons from memory, module outlines,
   the list of Python files.
   Each section is cut to its own cap first (tracebacks keep their tail, code keeps its head).
3. Sections are then added in priority order while they fit; a section that does not fit is cut to
   what is left if that is at least 400 characters, otherwise dropped with a marker saying so.
4. History: the last 3 candidates of this proposer in full (diff, failure, reflection); older ones and
   other proposers' candidates summarised one line each (at most 12 lines), so the model sees every
   failed idea without the history growing without bound.
5. Tool results within one candidate's conversation: each is cut to 12,000 characters; when the whole
   conversation passes the budget, the oldest tool results are replaced by a marker (newest kept).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from fixloop.core.model import Attempt, Lesson, TestReport, TestResult
from fixloop.core.patch import unified_diff
from fixloop.core.ports import ProposalContext
from fixloop.adapters.graph.neighbours import callers_and_callees
from fixloop.adapters.memory.analogy_proposer import mapped
from fixloop.kit.syntax import functions_in
from fixloop.adapters.llm import prompts
from fixloop.adapters.llm.tools import outline

CHARS_PER_TOKEN = 4
MIN_CUT_CHARS = 400
FULL_ATTEMPTS = 3
SUMMARY_LINES = 12
MAX_TOOL_RESULT_CHARS = 12_000
MAX_MAPPED_CODE = 300  # a statement shown in a lesson's before/after line, as the analogy proposer keeps it
ELIDED = "[tool output elided to fit the context budget; call the tool again if you still need it]"


def estimate_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


def data(kind: str, body: str) -> str:
    """Wrap untrusted material; a closing tag inside it cannot end the block early."""
    safe = body.replace("</data", "<\\/data")
    return f'<data kind="{kind}">\n{safe}\n</data>'


def head(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    kept = text[:limit].rsplit("\n", 1)[0]
    return f"{kept}\n[... {text[len(kept):].count(chr(10)) + 1} more lines truncated ...]"


def tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    kept = text[-limit:].split("\n", 1)[-1]
    return f"[... {text[: len(text) - len(kept)].count(chr(10)) + 1} earlier lines truncated ...]\n{kept}"


@dataclass(frozen=True)
class Section:
    title: str
    body: str


def fit(sections: Sequence[Section], budget_chars: int) -> str:
    """Rule 3: keep sections in priority order while they fit, cut or drop the rest."""
    out: list[str] = []
    left = budget_chars
    for s in sections:
        block = f"## {s.title}\n{s.body}"
        if len(block) <= left:
            out.append(block)
            left -= len(block)
        elif left >= MIN_CUT_CHARS:
            out.append(head(block, left))
            left = 0
        else:
            out.append(f"## {s.title}\n[omitted: over the context budget]")
    return "\n\n".join(out)


# ----- the case: what is failing and where -----------------------------------------------------------

def failure_text(result: TestResult, limit: int = 3000) -> str:
    lines = [f"{result.nodeid}: {result.outcome}"]
    if result.exc_type or result.message:
        lines.append(f"{result.exc_type}: {result.message}".strip(": "))
    if result.longrepr:
        lines.append(tail(result.longrepr, limit))
    return "\n".join(lines)


def report_text(report: TestReport | None, targets: Sequence[str], limit: int = 3000) -> str:
    if report is None:
        return "(no test report)"
    if report.problem:
        return f"the test run failed: {report.problem}"
    if report.timed_out and not report.failed:
        return "the tests timed out"
    if report.collection_errors:
        return "collection error:\n" + tail(report.collection_errors[0], limit)
    failing = [r for r in report.failed if r.nodeid in targets] or list(report.failed)
    if not failing:
        return "the targeted tests passed but others broke" if report.results else "(no results)"
    per = max(400, limit // len(failing))
    return "\n\n".join(failure_text(r, per) for r in failing[:4])


def _function_source(text: str, start: int, end: int, mark: frozenset[int] = frozenset()) -> str:
    lines = text.splitlines()
    return "\n".join(f"{'>>' if i in mark else '  '}{i:>5} | {lines[i - 1]}" for i in range(start, min(end, len(lines)) + 1))


def test_sources(ctx: ProposalContext) -> str:
    out: list[str] = []
    for nodeid in ctx.target_tests[:5]:
        path, _, rest = nodeid.partition("::")
        name = rest.split("::")[-1].split("[")[0]
        text = ctx.sources.get(path)
        if text is None:
            continue
        for fn in functions_in(text):
            if fn.name == name:
                out.append(data("test", f"{path}\n{_function_source(text, fn.start_line, fn.end_line)}"))
                break
    return "\n".join(out)


def suspect_sources(ctx: ProposalContext, max_functions: int = 5) -> str:
    """The top suspicious functions, whole, with suspicious lines marked `>>`."""
    chosen: list[tuple[str, int, int, str]] = []
    marks: dict[tuple[str, int, int], set[int]] = {}
    for s in ctx.suspects:
        text = ctx.sources.get(s.path)
        if text is None or ctx.is_test_file(s.path):
            continue
        enclosing = [f for f in functions_in(text) if f.start_line <= s.line <= f.end_line]
        if enclosing:
            fn = min(enclosing, key=lambda f: f.end_line - f.start_line)
            key = (s.path, fn.start_line, fn.end_line)
            label = fn.name
        else:
            key = (s.path, max(1, s.line - 5), s.line + 5)
            label = "module level"
        if key not in marks:
            if len(chosen) >= max_functions:
                continue
            marks[key] = set()
            chosen.append((*key, label))
        marks[key].add(s.line)
    out = [data("code", f"{path} ({label}, lines {start}-{end})\n"
                        f"{_function_source(ctx.sources[path], start, end, frozenset(marks[(path, start, end)]))}")
           for path, start, end, label in chosen]
    return "\n".join(out)


def neighbours(ctx: ProposalContext) -> str:
    """Who calls the suspects and what they call (the code graph of the run's sources)."""
    body = callers_and_callees(ctx.sources, ctx.suspects, ctx.is_test_file)
    return data("code-graph", body) if body else ""


def lessons_text(ctx: ProposalContext, limit: int = 5) -> str:
    out: list[str] = []
    for lesson in ctx.lessons[:limit]:
        # A fix recalled by its fault key only is an analogy: its names are roles to map onto this code. The
        # lesson says how they map at the top suspect when the analogy finds it (mapping_text).
        kind = "same kind of statement fixed elsewhere (map its names onto this code)" \
            if lesson.meta.get("channel") == "key" else "similar failure"
        body = (f"{kind} ({lesson.similarity:.2f}), outcome {lesson.outcome or '?'}: {lesson.summary}\n"
                f"signature: {lesson.signature}")
        if lesson.meta.get("channel") == "key":
            body += mapping_text(ctx, lesson)
        if lesson.fix_diff:
            body += "\n" + head(lesson.fix_diff, 1500)
        out.append(data("lesson", body))
    return "\n".join(out)


def mapping_text(ctx: ProposalContext, lesson: Lesson) -> str:
    """An analogy's before/after and which of the past fix's names play which role at the top suspect
    statement (the mapping the analogy proposer tries), so a model can make the same edit here; "" when
    its shape does not map onto that statement."""
    top = next((s for s in ctx.suspects if s.path in ctx.sources and not ctx.is_test_file(s.path)), None)
    found = mapped(lesson, ctx.sources[top.path], top.line) if top is not None else None
    if top is None or found is None or not found[2].roles:
        return ""
    before, after, analogy = found
    past = f"{before}\n{after}"

    def first_use(role: tuple[str, str]) -> int:  # the roles in the order the past statement names them
        hit = re.search(rf"(?<![\w.]){re.escape(role[0])}(?!\w)", past)
        return hit.start() if hit else len(past)

    roles = ", ".join(f"{a} -> {b}" for a, b in sorted(analogy.roles, key=first_use))
    return (f"\npast fix: `{before[:MAX_MAPPED_CODE]}` -> `{after[:MAX_MAPPED_CODE]}`"
            f"\nhere ({top.path}:{top.line}): `{analogy.was[:MAX_MAPPED_CODE]}` -> `{analogy.text[:MAX_MAPPED_CODE]}`"
            f"\nroles: {roles}")


def outlines(ctx: ProposalContext, max_files: int = 3) -> str:
    paths: list[str] = []
    for s in ctx.suspects:
        if s.path in ctx.sources and s.path not in paths and not ctx.is_test_file(s.path):
            paths.append(s.path)
    return "\n".join(data("outline", f"{p}\n{outline(ctx.sources[p])}") for p in paths[:max_files])


def file_list(ctx: ProposalContext, limit: int = 200) -> str:
    names = sorted(ctx.sources)
    shown = "\n".join(f"{n}{' (test)' if ctx.is_test_file(n) else ''}" for n in names[:limit])
    return shown + (f"\n[{len(names) - limit} more]" if len(names) > limit else "")


def case_text(ctx: ProposalContext, budget_tokens: int) -> str:
    budget = int(budget_tokens * 0.7) * CHARS_PER_TOKEN
    failing = data("test-output", report_text(ctx.baseline, ctx.target_tests, limit=budget // 4))
    sections = [
        Section("Failing tests", failing),
        Section("Source of the failing tests", test_sources(ctx) or "(not found)"),
        Section("Suspicious code (lines marked >> rank highest)", suspect_sources(ctx) or "(no suspects: use the tools)"),
        Section("Lessons from earlier runs", lessons_text(ctx) or "(none)"),
        Section("Outline of the suspicious modules", outlines(ctx) or "(none)"),
        Section("Python files of the project", file_list(ctx)),
    ]
    graph = neighbours(ctx)
    if graph:  # only when the graph found any: an empty section would cost tokens and an omission marker
        sections.insert(3, Section("Callers and callees of the suspicious functions", graph))
    return prompts.CASE.substitute(sections=fit(sections, budget))


# ----- the history: every candidate tried so far ----------------------------------------------------

def _one_line(a: Attempt) -> str:
    what = a.patch.summary or a.patch.operator or "candidate"
    why = a.reflection.signature if a.reflection else a.note or a.status
    return f"#{a.index} [{a.patch.proposer}/{a.patch.operator}] {what[:100]} -> {a.status}: {why[:160]}"


def attempt_text(a: Attempt, targets: Sequence[str]) -> str:
    parts = [f"### Candidate #{a.index}: {a.patch.summary or a.patch.operator} -> {a.status}"]
    parts.append(data("diff", head(unified_diff(a.patch), 2500)))
    if a.report is not None:
        parts.append(data("test-output", report_text(a.report, targets, limit=2000)))
    elif a.note:
        parts.append(f"rejected before running: {a.note}")
    errors = a.patch.meta.get("tool_errors") if a.patch.meta else None
    if errors:
        parts.append("tool errors while making it: " + "; ".join(str(e) for e in list(errors)[:5]))
    if a.reflection and (a.reflection.root_cause or a.reflection.strategy):
        r = a.reflection
        parts.append(f"reflection: root cause: {r.root_cause}; location: {r.location}; "
                     f"next strategy: {r.strategy}; confidence {r.confidence:.2f}")
    return "\n".join(parts)


def history_text(ctx: ProposalContext, proposer: str, budget_tokens: int) -> str:
    failed = [a for a in ctx.attempts if a.status != "plausible"]
    if not failed:
        return prompts.HISTORY_EMPTY
    budget = int(budget_tokens * 0.3) * CHARS_PER_TOKEN
    mine = [a for a in failed if a.patch.proposer == proposer]
    full = mine[-FULL_ATTEMPTS:]
    brief = [a for a in failed if a not in full]
    parts = [f"{len(failed)} candidates were tested or rejected so far; none fixed the tests."]
    if brief:
        shown = brief[-SUMMARY_LINES:]
        parts.append("Earlier candidates (one line each):")
        if len(brief) > len(shown):
            parts.append(f"[{len(brief) - len(shown)} older candidates not listed]")
        parts.extend(_one_line(a) for a in shown)
    text = "\n".join(parts)
    kept: list[str] = []
    used = len(text)
    for a in reversed(full):  # newest first: the newest candidate is the last one dropped
        t = attempt_text(a, ctx.target_tests)
        if used + len(t) > budget:
            text += f"\n[details of candidate #{a.index} dropped to fit the budget] {_one_line(a)}"
            continue
        kept.insert(0, t)
        used += len(t)
    return text + ("\n\n" + "\n\n".join(kept) if kept else "")


def lookup(ctx: ProposalContext, key: tuple[tuple[str, str], ...]) -> Attempt | None:
    return next((a for a in ctx.attempts if a.patch.key() == key), None)


def conversation_chars(messages: Sequence[dict[str, Any]]) -> int:
    total = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            total += len(content)
            continue
        for block in content or ():
            total += len(str(block.get("text") or block.get("content") or block.get("input") or ""))
    return total


def trim_conversation(messages: list[dict[str, Any]], budget_tokens: int) -> int:
    """Rule 5: replace the oldest tool results by a marker until the conversation fits; returns how many."""
    budget = budget_tokens * CHARS_PER_TOKEN
    trimmed = 0
    results = [b for m in messages[:-1] if isinstance(m.get("content"), list)
               for b in m["content"] if b.get("type") == "tool_result" and b.get("content") != ELIDED]
    for block in results:
        if conversation_chars(messages) <= budget:
            break
        block["content"] = ELIDED
        trimmed += 1
    return trimmed
