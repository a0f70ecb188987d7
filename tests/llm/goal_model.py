"""A scripted model for goal runs on the fake Anthropic server: asks, specs, writes the test, fixes.

It answers by the request's shape: the last tool offered names the goal step (`ask_questions`,
`write_spec`, `write_test`); `tool_choice` none is the repair model's plan, a forced
`record_reflection` a reflection, anything else a repair turn. Each step looks at the code first
(one `view_file`), as a real model would, so the tool loop is exercised.

Run as a program it serves the bulk-discount scenario on 127.0.0.1 for the editor tests:

    python -m tests.llm.goal_model --url-file PATH [--requests-file PATH]

It writes its base URL to PATH once it listens, logs each request's step to --requests-file (one
JSON line each), and serves until it is killed.
"""

from __future__ import annotations

import argparse
import json
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .fake_anthropic import FakeAnthropic, message, text, tool_use


@dataclass(frozen=True)
class Scenario:
    look_at: str  # the file each step views first
    questions: tuple[dict[str, Any], ...]  # ask_questions input items ({} : ask nothing)
    spec: dict[str, str]
    test_source: str  # written to whatever path the request names
    fix: tuple[str, str, str]  # (path, old, new) for repair turns


BULK_DISCOUNT = Scenario(
    look_at="shop/pricing.py",
    questions=({"id": "threshold", "text": "Should an order line of exactly 10 units get the bulk discount?",
                "choices": ["Yes, from 10 units on", "No, only above 10 units"]},),
    spec={"expected": "line_total(1.0, 10) == 9.0: ten units already get the 10% bulk discount",
          "actual": "the discount starts at 11 units", "where": "shop/pricing.py::line_total",
          "example": "line_total(1.0, 10) == 9.0"},
    test_source=("from shop.pricing import line_total\n\n\n"
                 "def test_bulk_discount_starts_at_ten_units():\n"
                 "    assert line_total(1.0, 10) == 9.0\n"),
    fix=("shop/pricing.py", "    if quantity > BULK_THRESHOLD:\n", "    if quantity >= BULK_THRESHOLD:\n"),
)


REVIEW = {"verdict": "accept", "reason": "scripted review: it fixes the cause"}


def step_of(body: dict[str, Any]) -> str:
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "none":
        return "plan"
    if choice.get("type") == "tool" and choice.get("name") == "record_reflection":
        return "reflect"
    if choice.get("type") == "tool" and choice.get("name") == "record_review":
        return "review"
    names = [t.get("name") for t in body.get("tools") or ()]
    for step in ("ask_questions", "write_spec", "write_test"):
        if names and names[-1] == step:
            return step
    return "propose"


def _after_tool(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]
    content = last["content"] if isinstance(last["content"], list) else []
    return any(b.get("type") == "tool_result" for b in content)


def _test_path(body: dict[str, Any]) -> str:
    """The path the write_test request names ("... with write_test to the path X (a new file)")."""
    for m in body["messages"]:
        for block in m["content"] if isinstance(m["content"], list) else ():
            said = str(block.get("text") or "")
            if "write_test to the path " in said:
                return said.split("write_test to the path ", 1)[1].split(" ", 1)[0]
    return "tests/test_goal.py"


@dataclass
class ScriptedGoalModel:
    scenario: Scenario = BULK_DISCOUNT
    steps: list[str] = field(default_factory=list)  # the step of every request, in order
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        step = step_of(body)
        self.steps.append(step)
        self.bodies.append(body)
        s = self.scenario
        if step == "plan":
            return message(text(f"Hypothesis: the threshold comparison is off by one.\nLocation: {s.fix[0]}\nPlan: fix it."))
        if step == "reflect":
            return message(tool_use("record_reflection", {"root_cause": "still off", "location": s.fix[0],
                                                          "strategy": "compare with >=", "confidence": 0.5}))
        if step == "review":
            return message(tool_use("record_review", REVIEW))
        if not _after_tool(body):
            return message(text("Let me look at the code first."), tool_use("view_file", {"path": s.look_at}))
        if step == "ask_questions":
            if not s.questions:
                return message(text("No questions."))
            return message(tool_use("ask_questions", {"questions": list(s.questions)}))
        if step == "write_spec":
            return message(tool_use("write_spec", dict(s.spec)))
        if step == "write_test":
            return message(tool_use("write_test", {"path": _test_path(body), "content": s.test_source}))
        if any(b.get("name") == "replace_snippet" for m in body["messages"] if m["role"] == "assistant"
               for b in m["content"] if isinstance(b, dict)):
            return message(text("Fix: compare the quantity with >= so ten units get the discount"))
        path, old, new = s.fix
        return message(tool_use("replace_snippet", {"path": path, "old": old, "new": new}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--url-file", required=True)
    parser.add_argument("--requests-file", default="")
    args = parser.parse_args()
    model = ScriptedGoalModel()
    log = Path(args.requests_file) if args.requests_file else None

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        reply = model(body)
        if log is not None:
            with log.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"step": model.steps[-1], "tools": [b.get("name") for b in reply["content"]
                                                                      if b.get("type") == "tool_use"]}) + "\n")
        return reply

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with FakeAnthropic() as fake:
        fake.fallback = answer
        tmp = Path(args.url_file + ".tmp")
        tmp.write_text(fake.url, encoding="utf-8")
        tmp.replace(args.url_file)  # appears only when complete
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
