"""The Claude-backed goal author: questions, a spec and a reproduction test, written through tools.

Each step is a short tool-use conversation over the project's sources (the read-only tools of the
repair model) that ends in one recording tool: `ask_questions`, `write_spec` or `write_test`. The
calls are metered like the repair model's (the run's token and dollar limits, the daily budget), and
a refused test comes back as `feedback`: the next request shows every earlier try with the reason it
was refused, as the repair model sees its failed candidates.

When the model is unavailable (no key, offline), over budget, failing, or gives no usable answer
within its turns, the step falls back to the offline author, and the run says so once.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any, Callable, Mapping, Sequence

from fixloop.adapters.llm.settings import LLMSettings
from fixloop.core.integrity import is_test_file
from fixloop.core.model import Limits, Usage
from fixloop.core.goal import GoalAuthor, GoalContext, GoalRefused, Question, ReproTest, Spec, Target
from fixloop.adapters.llm import context, goal_prompts
from fixloop.adapters.llm.client import LLMCancelled, LLMError, ModelClient, Reply, Request, ToolCall
from fixloop.adapters.llm.cost import BudgetExceeded, DailyBudget, Meter, Prices, usage_from_api
from fixloop.adapters.llm.tools import EDIT_TOOL, TOOL_SPECS, WRITE_TEST_TOOL, WRITE_TEST_SPEC, Workbench, outline, test_names

log = logging.getLogger("fixloop.adapters.llm")
EPHEMERAL = {"type": "ephemeral"}
READ_TOOLS = tuple(dict(t) for t in TOOL_SPECS if t["name"] != EDIT_TOOL)
READ_NAMES = frozenset(t["name"] for t in READ_TOOLS)
Check = Callable[[Mapping[str, Any]], str]  # a recording tool's input -> why it is refused ("" = accepted)
_ID = re.compile(r"[^a-z0-9_]+")


class NoAnswer(Exception):
    """The model used its turns without a usable answer for this step."""


class ClaudeGoalAuthor:
    name = "claude"

    def __init__(self, settings: LLMSettings, api_key: str, limits: Limits, fallback: GoalAuthor, *,
                 offline: bool = False, cancelled: Callable[[], bool] = lambda: False,
                 daily: DailyBudget | None = None, meter: Meter | None = None) -> None:
        self.settings = settings
        self.fallback = fallback
        self.prices = Prices.from_settings(settings)
        self.meter = meter or Meter(limits, daily)  # a shared meter: the run's one budget for every model call
        self.notes: list[str] = []  # what the run should tell the user (fallbacks), each once
        self.calls: list[dict[str, Any]] = []  # one row per model call, as the repair model logs them
        self._told: set[str] = set()
        self._cancelled = cancelled
        self._tries: list[tuple[str, str]] = []  # (test source, why it was refused): the reflection history
        self._last_test = ""
        self._asked: set[str] = set()  # ids of the questions the model asked
        self._unavailable = ""
        if offline:
            self._unavailable = "offline: the goal's spec and test come from the offline author"
        elif not api_key:
            self._unavailable = "no API key: the goal's spec and test come from the offline author"
        self._client = None if self._unavailable else ModelClient(settings, api_key, cancelled)
        self._system = [{"type": "text", "text": goal_prompts.SYSTEM, "cache_control": EPHEMERAL}]

    # ----- the port --------------------------------------------------------------------------------

    def usage(self) -> Usage:
        return self.meter.total + self.fallback.usage()

    def cancel(self) -> None:
        if self._client is not None:
            self._client.cancel()

    def questions(self, ctx: GoalContext) -> Sequence[Question]:
        if self._asked and self._asked <= set(ctx.answers):
            return ()  # one round: the model asks all it needs at once (at most 3), a second call would cost
        return self._step("questions", lambda: self._questions(ctx), lambda: self.fallback.questions(ctx))

    def spec(self, ctx: GoalContext) -> Spec:
        return self._step("spec", lambda: self._spec(ctx), lambda: self.fallback.spec(ctx))

    def reproduction_test(self, spec: Spec, ctx: GoalContext, feedback: str = "") -> ReproTest:
        if feedback and self._last_test:
            self._tries.append((self._last_test, feedback))
        return self._step("test", lambda: self._test(spec, ctx),
                          lambda: self.fallback.reproduction_test(spec, ctx, feedback))

    # ----- steps -----------------------------------------------------------------------------------

    def _step(self, what: str, by_model: Callable[[], Any], offline: Callable[[], Any]) -> Any:
        if self._client is None:
            self._say(self._unavailable)
            return offline()
        try:
            return by_model()
        except LLMCancelled:
            raise GoalRefused("the run was cancelled") from None
        except (BudgetExceeded, LLMError) as e:
            self._say(f"model stopped: {e}; the goal goes on with the offline author")
        except NoAnswer as e:
            self._say(f"the model gave no usable {what} ({e}); the offline author writes it")
        finally:
            self._client.close()
        return offline()

    def _questions(self, ctx: GoalContext) -> tuple[Question, ...]:
        answered = ""
        if ctx.answers:
            answered = "Already answered (do not ask again):\n" + "\n".join(f"- {k}: {v}" for k, v in ctx.answers.items())
        ask = goal_prompts.QUESTIONS.substitute(max_questions=goal_prompts.MAX_QUESTIONS, answered=answered)
        found = self._converse(ctx, ask, goal_prompts.ASK_TOOL, _check_questions, optional=True)
        if found is None:
            return ()
        raw = found["questions"]
        out: list[Question] = []
        for i, q in enumerate(raw):
            if not isinstance(q, Mapping):
                continue
            text = q.get("text")
            choices = [c.strip()[:200] for c in q.get("choices") or () if isinstance(c, str) and c.strip()]
            choices = list(dict.fromkeys(choices))[:4]
            if not isinstance(text, str) or not text.strip() or len(choices) < 2:
                continue
            qid = _ID.sub("_", str(q.get("id") or f"q{i + 1}").lower()).strip("_")[:40] or f"q{i + 1}"
            if qid in ctx.answers or any(o.id == qid for o in out):
                continue
            out.append(Question(qid, text.strip()[:300], tuple(choices), choices[0]))
            if len(out) == goal_prompts.MAX_QUESTIONS:
                break
        self._asked |= {q.id for q in out}
        return tuple(out)

    def _spec(self, ctx: GoalContext) -> Spec:
        answers = ""
        if ctx.answers:
            answers = "The developer's answers:\n" + "\n".join(f"- {k}: {v}" for k, v in ctx.answers.items()) + "\n"
        if ctx.assumptions:
            answers += "Assumed without asking:\n" + "\n".join(f"- {a}" for a in ctx.assumptions) + "\n"
        found = self._converse(ctx, goal_prompts.SPEC.substitute(answers=answers), goal_prompts.SPEC_TOOL, _check_spec)
        assert found is not None

        def text(key: str) -> str:
            value = found.get(key)
            return value.strip()[:600] if isinstance(value, str) else ""

        expected, where, example = text("expected"), text("where"), text("example")
        target = _target(where, ctx.candidates) or _indexed(where, ctx.sources)
        return Spec(ctx.goal, expected, text("actual") or "the current code does otherwise",
                    target.where if target else where, example, target, tuple(ctx.assumptions))

    def _test(self, spec: Spec, ctx: GoalContext) -> ReproTest:
        if not ctx.test_path:
            raise NoAnswer("the run named no path for the test")
        tries = "\n".join(f"Try {i}:\n{context.data('test', context.head(src, 2500))}\nRefused: "
                          f"{context.data('verification', context.head(why, 1500))}"
                          for i, (src, why) in enumerate(self._tries[-3:], 1))
        module = spec.target.module if spec.target else (ctx.candidates[0].module if ctx.candidates else "?")
        spec_text = "\n".join(f"{k}: {v}" for k, v in spec.as_dict().items() if v and k != "assumptions")
        ask = goal_prompts.TEST.substitute(spec=context.data("spec", spec_text), path=ctx.test_path, module=module,
                                           earlier=goal_prompts.EARLIER.substitute(tries=tries) if tries else "")
        bench = Workbench(ctx.sources, None, is_test_file, test_path=ctx.test_path)
        self._converse(ctx, ask, WRITE_TEST_SPEC, lambda _: "", bench=bench)
        source = bench.tests.get(ctx.test_path)
        if source is None:
            raise NoAnswer("no valid write_test call")
        self._last_test = source
        return ReproTest(ctx.test_path, source, test_names(source), "model")

    # ----- the conversation ------------------------------------------------------------------------

    def _converse(self, ctx: GoalContext, ask: str, final: Mapping[str, Any], check: Check, optional: bool = False,
                  bench: Workbench | None = None) -> dict[str, Any] | None:
        """Read-only tool rounds until the model calls `final` with input that `check` accepts.

        `final`'s input is returned (for write_test, the bench keeps the file). With `optional`, an
        answer that calls no tool means "nothing to record" (None). A refused input goes back to the
        model as a tool error, within the same turn limit."""
        bench = bench or Workbench(ctx.sources, None, is_test_file)
        tools = [*READ_TOOLS, dict(final)]
        tools[-1]["cache_control"] = EPHEMERAL
        messages: list[dict[str, Any]] = [{"role": "user", "content": [
            {"type": "text", "text": self._case(ctx), "cache_control": EPHEMERAL}, {"type": "text", "text": ask}]}]
        rounds = max(1, self.settings.max_tool_rounds)
        for turn in range(rounds):
            last = turn == rounds - 1
            choice = {"type": "tool", "name": final["name"]} if last and not optional else None
            reply = self._call(messages, tools, choice)
            messages.append({"role": "assistant", "content": list(reply.content) or [{"type": "text", "text": "(empty)"}]})
            if not reply.tool_calls:
                if optional:
                    return None
                messages.append({"role": "user", "content": [
                    {"type": "text", "text": f"Answer by calling {final['name']}."}]})
                continue
            results: list[dict[str, Any]] = []
            recorded: dict[str, Any] | None = None
            for call in reply.tool_calls:
                out, is_error = self._tool(call, final, check, bench)
                if call.name == final["name"] and not is_error:
                    recorded = dict(call.input)
                results.append({"type": "tool_result", "tool_use_id": call.id, "is_error": is_error,
                                "content": context.head(out, context.MAX_TOOL_RESULT_CHARS)})
            if recorded is not None:
                return recorded
            messages.append({"role": "user", "content": results})
            context.trim_conversation(messages, self.settings.context_tokens)
        raise NoAnswer(f"no valid {final['name']} call in {rounds} turns")

    @staticmethod
    def _tool(call: ToolCall, final: Mapping[str, Any], check: Check, bench: Workbench) -> tuple[str, bool]:
        if call.name in READ_NAMES or (call.name == WRITE_TEST_TOOL == final["name"]):
            return bench.run(call)  # validated there; write_test keeps the file in the bench
        if call.name != final["name"]:
            return f"error: {call.name} is not available here; use the read-only tools and {final['name']}", True
        problem = check(call.input) if isinstance(call.input, Mapping) else "the tool input must be an object"
        if problem:
            bench.errors.append(f"{call.name}: {problem}")
            return f"error: {problem}", True
        return "recorded", False

    def _case(self, ctx: GoalContext) -> str:
        budget = int(self.settings.context_tokens * 0.7) * context.CHARS_PER_TOKEN
        sections = [context.Section("Functions the goal points at (best first)", _targets_text(ctx) or "(none found: use the tools)")]
        if ctx.cursor_path:
            where = f"{ctx.cursor_path}, line {ctx.cursor_line}" if ctx.cursor_line else ctx.cursor_path
            sections.append(context.Section("Where the developer's cursor is", where))
        outlines = [context.data("outline", f"{t.path}\n{outline(ctx.sources[t.path])}")
                    for t in _unique_paths(ctx.candidates) if t.path in ctx.sources][:3]
        sections.append(context.Section("Outline of those modules", "\n".join(outlines) or "(none)"))
        tests = sorted(p for p in ctx.sources if is_test_file(p))[:5]
        if tests:
            sections.append(context.Section("An existing test (how the project imports its code)",
                                            context.data("test", context.head(ctx.sources[tests[0]], 1500))))
        names = sorted(ctx.sources)
        sections.append(context.Section("Python files of the project", "\n".join(names[:200])))
        return goal_prompts.CASE.substitute(goal=ctx.goal, sections=context.fit(sections, budget))

    def _call(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
              choice: Mapping[str, Any] | None) -> Reply:
        assert self._client is not None
        self.meter.check()
        max_tokens = max(1, min(self.settings.max_output_tokens, self.meter.remaining_tokens()))
        started = time.monotonic()
        reply = self._client.call(Request(self._system, messages, max_tokens, tools, choice))
        spent = usage_from_api(reply.usage, self.prices)
        self.meter.add(spent)
        self.calls.append({"kind": "goal", "model": reply.model or self.settings.model, "tokens": spent.tokens,
                           "cost_usd": round(spent.cost_usd, 6), "seconds": round(time.monotonic() - started, 3),
                           "tool_calls": len(reply.tool_calls), "stop_reason": reply.stop_reason})
        return reply

    def _say(self, message: str) -> None:
        if message and message not in self._told:
            self._told.add(message)
            self.notes.append(message)
            log.warning("%s", message)


def _check_questions(found: Mapping[str, Any]) -> str:
    raw = found.get("questions")
    if not isinstance(raw, list) or not raw:
        return "`questions` must be a non-empty list (or call no tool when there is nothing to ask)"
    if len(raw) > goal_prompts.MAX_QUESTIONS:
        return f"ask at most {goal_prompts.MAX_QUESTIONS} questions"
    for q in raw:
        if not isinstance(q, Mapping) or not isinstance(q.get("text"), str) or not isinstance(q.get("choices"), list) \
                or len([c for c in q["choices"] if isinstance(c, str) and c.strip()]) < 2:
            return "each question needs a `text` and at least 2 `choices` (strings)"
    return ""


def _check_spec(found: Mapping[str, Any]) -> str:
    missing = [k for k in ("expected", "where", "example") if not isinstance(found.get(k), str) or not found[k].strip()]
    return f"write_spec needs {', '.join(missing)} as non-empty text" if missing else ""


def _unique_paths(targets: Sequence[Target]) -> list[Target]:
    seen: set[str] = set()
    return [t for t in targets if not (t.path in seen or seen.add(t.path))]  # type: ignore[func-returns-value]


def _targets_text(ctx: GoalContext, limit: int = 4) -> str:
    return "\n".join(context.data("code", f"{t.where} (lines {t.line}-{t.end_line}, import from {t.module})\n{t.source}")
                     for t in ctx.candidates[:limit])


def _target(where: str, candidates: Sequence[Target]) -> Target | None:
    """The candidate the model's `where` names (path::function, or the function alone), else the best one."""
    path, _, function = where.strip().partition("::")
    for t in candidates:
        if (t.path == path and t.function == function) or (not function and t.function == path):
            return t
    named = [t for t in candidates if t.function == (function or path).rsplit(".", 1)[-1] or t.function == function]
    if named:
        return named[0]
    return candidates[0] if candidates else None


def _indexed(where: str, sources: Mapping[str, str]) -> Target | None:
    """The function the model found with its tools, when the words pointed at none."""
    from fixloop.kit.source_index import Index  # tree-sitter: only when it is needed

    path, _, function = where.strip().partition("::")
    hits = [t for t in Index.build(sources).named(function or path) if not function or t.path == path]
    return hits[0] if hits else None
