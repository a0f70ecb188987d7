"""The LLM proposer: plan, edit through tools, reflect; bounded by the run's budget.

Each `next()` on `propose()` may make several model calls: the plan (once), then tool-use rounds
until the model's edits form a candidate. The candidate is yielded as a Patch; the loop tests it
in the sandbox and appends the result to `ctx.attempts`, which the next call shows the model.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Iterator, Mapping

from fixloop.adapters.llm.settings import LLMSettings
from fixloop.core.model import Attempt, Limits, Patch, Reflection, Usage
from fixloop.core.ports import ProposalContext
from fixloop.adapters.llm import context, prompts
from fixloop.adapters.llm.client import LLMCancelled, LLMError, ModelClient, Reply, Request
from fixloop.adapters.llm.cost import BudgetExceeded, DailyBudget, Meter, Prices, call_record, usage_from_api
from fixloop.adapters.llm.fallback import parse_edits
from fixloop.adapters.llm.tools import TOOL_SPECS, ToolError, Workbench

log = logging.getLogger("fixloop.adapters.llm")
EPHEMERAL = {"type": "ephemeral"}
MAX_EMPTY_CANDIDATES = 2


def _cached_tools() -> list[dict[str, Any]]:
    tools = [dict(t) for t in (*TOOL_SPECS, prompts.REFLECT_TOOL)]
    tools[-1]["cache_control"] = EPHEMERAL  # caches the tools and, with the system block, the stable prefix
    return tools


ROLE_OF = {"plan": "planner", "reflect": "reflector"}  # every other call is the coder's


class LLMProposer:
    name = "llm"
    adaptive = True

    def __init__(self, settings: LLMSettings, api_key: str, limits: Limits, *, offline: bool = False,
                 cancelled: Callable[[], bool] = lambda: False, daily: DailyBudget | None = None) -> None:
        self.settings = settings
        self.prices = Prices.from_settings(settings)
        self.meter = Meter(limits, daily)
        self.notes: list[str] = []  # the loop turns these into "note" events
        self._told: set[str] = set()
        self.calls: list[dict[str, Any]] = []  # one row per model call: kind, model, tokens, $, seconds, tools
        self._undrained: list[dict[str, Any]] = []
        self._unavailable = ""
        if offline:
            self._unavailable = "offline: the model is not called"
        elif not api_key:
            self._unavailable = (f"no API key (set {settings.api_key_env}, llm.api_key, or pass one from the editor): "
                                 "the model is not called")
        self._client = None if self._unavailable else ModelClient(settings, api_key, cancelled)
        self._plan = ""
        self._case = ""
        self._yielded: dict[tuple[tuple[str, str], ...], int] = {}
        self._duplicate_note = ""
        self._tools = _cached_tools()
        self._system = [{"type": "text", "text": prompts.SYSTEM, "cache_control": EPHEMERAL}]

    # ----- ports ---------------------------------------------------------------------------------

    def usage(self) -> Usage:
        return self.meter.total

    @property
    def reachable(self) -> bool:
        """A key and not offline: the model can be asked (by this proposer or the reviewer sharing its meter)."""
        return self._client is not None

    def cancel(self) -> None:
        if self._client is not None:
            self._client.cancel()

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        if self._client is None:
            self._say(self._unavailable)
            return
        try:
            self._case = context.case_text(ctx, self.settings.context_tokens)
            if not self._plan:
                self._plan = self._make_plan()
            empty = 0
            while empty < MAX_EMPTY_CANDIDATES:
                patch = self._candidate(ctx)
                if patch is None:
                    empty += 1
                    continue
                empty = 0
                self._yielded[patch.key()] = len(self._yielded) + 1
                yield patch
            self._say(f"the model gave no usable new candidate {MAX_EMPTY_CANDIDATES} times in a row; "
                      "no more model candidates")
        except BudgetExceeded as e:
            self._say(f"model stopped: {e}")
        except LLMCancelled:
            return
        except LLMError as e:
            self._say(f"model stopped: {e}")
        finally:
            self._client.close()  # frees the connection pool; a later call opens a new one

    def reflect(self, attempt: Attempt, ctx: ProposalContext) -> Reflection | None:
        if self._client is None or attempt.patch.proposer != self.name:
            return None
        ask = prompts.REFLECT.substitute(
            index=attempt.index, summary=attempt.patch.summary or attempt.patch.operator,
            diff=context.data("diff", context.head(context.unified_diff(attempt.patch), 3000)),
            failure=context.data("test-output", context.report_text(attempt.report, ctx.target_tests, 3000)))
        try:
            reply = self._call("reflect", [self._user(ask)], {"type": "tool", "name": "record_reflection"})
        except (BudgetExceeded, LLMError) as e:
            self._say(f"model stopped: {e}")
            return None
        except LLMCancelled:
            return None
        found = next((c.input for c in reply.tool_calls if c.name == "record_reflection"), None)
        if found is None:
            edits_json = _first_json_object(reply.text)
            found = edits_json if edits_json is not None else {"root_cause": reply.text.strip()[:500]}
        return _reflection(found)

    # ----- steps ---------------------------------------------------------------------------------

    def _make_plan(self) -> str:
        reply = self._call("plan", [self._user(prompts.PLAN)], {"type": "none"})
        return reply.text.strip()[:2000] or "(no plan given)"

    def _candidate(self, ctx: ProposalContext) -> Patch | None:
        bench = Workbench(ctx.sources, ctx.workspace, ctx.is_test_file)
        history = context.history_text(ctx, self.name, self.settings.context_tokens)
        if self._duplicate_note:
            history, self._duplicate_note = f"{history}\n\n{self._duplicate_note}", ""
        messages: list[dict[str, Any]] = [self._user(prompts.PROPOSE.substitute(history=history, plan=self._plan))]
        rounds = max(1, self.settings.max_tool_rounds)
        texts: list[str] = []
        operator = "edit"
        for turn in range(rounds):
            reply = self._call("propose", messages, None)
            texts.append(reply.text)
            messages.append({"role": "assistant", "content": list(reply.content) or [{"type": "text", "text": "(empty)"}]})
            if reply.tool_calls:
                results: list[dict[str, Any]] = []
                for call in reply.tool_calls:
                    out, is_error = bench.run(call) if call.name != "record_reflection" else \
                        ("error: record_reflection is only for reflection requests", True)
                    results.append({"type": "tool_result", "tool_use_id": call.id, "is_error": is_error,
                                    "content": context.head(out, context.MAX_TOOL_RESULT_CHARS)})
                left = rounds - turn - 1
                if 0 < left <= 2:
                    results.append({"type": "text", "text": prompts.ROUNDS_LEFT.substitute(rounds=left)})
                messages.append({"role": "user", "content": results})
                context.trim_conversation(messages, self.settings.context_tokens)
                continue
            if not bench.edited:
                for edit in parse_edits(reply.text):  # a model without tool_use: fenced edits in text
                    try:
                        bench.replace(edit.path, edit.old, edit.new)
                        operator = "text_edit"
                    except ToolError as e:
                        bench.errors.append(f"text edit: {e}")
            if bench.edited:
                break
            messages.append(self._user_plain(prompts.NO_EDIT))
        if bench.errors:
            log.info("model tool errors: %s", "; ".join(bench.errors))
        patch = bench.patch(self.name, operator, _summary(texts, bench.edited),
                            {"tool_errors": tuple(bench.errors), "tool_calls": bench.calls, "plan": self._plan[:500]})
        if patch is None:
            return None
        earlier = context.lookup(ctx, patch.key())
        if earlier is not None or patch.key() in self._yielded:
            index = earlier.index if earlier else self._yielded[patch.key()]
            failure = context.report_text(earlier.report, ctx.target_tests, 1500) if earlier and earlier.report \
                else (earlier.note if earlier else "already proposed")
            self._duplicate_note = prompts.DUPLICATE.substitute(index=index, failure=context.data("test-output", failure))
            return None
        return patch

    # ----- plumbing ------------------------------------------------------------------------------

    def _user(self, text: str) -> dict[str, Any]:
        """A user turn that starts with the case, marked as the end of the cached prefix."""
        return {"role": "user", "content": [{"type": "text", "text": self._case, "cache_control": EPHEMERAL},
                                            {"type": "text", "text": text}]}

    @staticmethod
    def _user_plain(text: str) -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "text", "text": text}]}

    def _call(self, kind: str, messages: list[dict[str, Any]], tool_choice: Mapping[str, Any] | None) -> Reply:
        assert self._client is not None
        self.meter.check()
        max_tokens = max(1, min(self.settings.max_output_tokens, self.meter.remaining_tokens()))
        started = time.monotonic()
        model = self.settings.roles.model(ROLE_OF.get(kind, "coder"), self.settings.model)
        reply = self._client.call(Request(self._system, messages, max_tokens, self._tools, tool_choice,
                                          {"model": model} if model != self.settings.model else {}))
        spent = usage_from_api(reply.usage, self.prices)
        self.meter.add(spent)
        self.log_call(call_record(kind, reply.model or model, spent, time.monotonic() - started, len(reply.tool_calls),
                                  reply.stop_reason))
        return reply

    def log_call(self, record: dict[str, Any]) -> None:
        """A model call for the run log: this proposer's, or a role's that shares its budget (`CallLog`)."""
        self.calls.append(record)
        self._undrained.append(record)

    def drain_calls(self) -> list[dict[str, Any]]:
        """The calls made since the last drain, for the run log (the `CallLogging` port)."""
        out, self._undrained = self._undrained, []
        return out

    def _say(self, message: str) -> None:
        """Tell the run once per message (as a loop note event and a log line)."""
        if message and message not in self._told:
            self._told.add(message)
            self.notes.append(message)
            log.warning("%s", message)


def _summary(texts: list[str], edited: Mapping[str, str]) -> str:
    for text in reversed(texts):
        for line in text.splitlines():
            if line.strip().lower().startswith("fix:"):
                return line.strip()[4:].strip()[:200]
    return "model edit of " + ", ".join(sorted(edited)) if edited else ""


def _first_json_object(text: str) -> dict[str, Any] | None:
    import json

    start = text.find("{")
    while start != -1:
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[start:])
            if isinstance(obj, dict):
                return obj
        except ValueError:
            pass
        start = text.find("{", start + 1)
    return None


def _reflection(found: Mapping[str, Any]) -> Reflection:
    def text(key: str) -> str:
        value = found.get(key, "")
        return value.strip()[:500] if isinstance(value, str) else str(value)[:500]

    try:
        confidence = min(1.0, max(0.0, float(found.get("confidence", 0.0))))
    except (TypeError, ValueError):
        confidence = 0.0
    return Reflection(signature="", root_cause=text("root_cause"), location=text("location"),
                      strategy=text("strategy"), confidence=confidence)
