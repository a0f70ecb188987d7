"""Does memory save model calls? The scripted Anthropic-compatible server, the real SDK, the real loop.

Pairs of bugs the offline engine cannot fix (a wrong separator literal) in different code. The model
(scripted: wrong once, then right) fixes `a`; then `b` is fixed with an empty memory and with the
memory `a` left. Prints LLM calls, tokens and candidate evaluations side by side.

    python bench/memory_llm.py [--smoke]   (from the repository root)

`--smoke`: the first pair only, on an interpreter with pytest only, with the model asked before the offline
engine (`llm.first`: the engine's futile search takes 20-30 s a run), to prove the bench still runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "server"), str(ROOT)]
for name in [n for n in os.environ if n.startswith("ANTHROPIC_")]:
    del os.environ[name]

from fixloop.application.config import LLMSettings, MemorySettings, Settings  # noqa: E402
from fixloop.application.session import FixSession  # noqa: E402
from fixloop.application.run import RunRequest  # noqa: E402
from tests.llm.fake_anthropic import FakeAnthropic  # noqa: E402
from tests.llm.scripted import ScriptedModel, write_project  # noqa: E402

PAIRS = {
    "separator": {
        "a": ({"slugs/__init__.py": "",
               "slugs/slug.py": "def slug(title: str) -> str:\n    words = title.lower().split()\n"
                                "    return \"-\".join(words)\n",
               "tests/test_slug.py": "from slugs.slug import slug\n\n\ndef test_slug():\n"
                                     "    assert slug(\"Hello Big World\") == \"hello_big_world\"\n"},
              [("slugs/slug.py", "return \"-\".join(words)", "return \" \".join(words)"),
               ("slugs/slug.py", "return \"-\".join(words)", "return \"_\".join(words)")]),
        "b": ({"envs/__init__.py": "",
               "envs/naming.py": "def env_name(app: str, stage: str) -> str:\n"
                                 "    fields = [app.upper(), stage.upper()]\n    name = \"-\".join(fields)\n"
                                 "    return name\n",
               "tests/test_naming.py": "from envs.naming import env_name\n\n\ndef test_env_name():\n"
                                       "    assert env_name(\"shop\", \"prod\") == \"SHOP_PROD\"\n"},
              [("envs/naming.py", "name = \"-\".join(fields)", "name = \".\".join(fields)"),
               ("envs/naming.py", "name = \"-\".join(fields)", "name = \"_\".join(fields)")]),
    },
    "wrong_key": {
        "a": ({"orders/__init__.py": "",
               "orders/totals.py": "def order_total(order: dict) -> float:\n    lines = order[\"lines\"]\n"
                                   "    return sum(line[\"price\"] for line in lines)\n",
               "tests/test_totals.py": "from orders.totals import order_total\n\n\ndef test_total():\n"
                                       "    order = {\"lines\": [{\"price\": 2.0, \"net\": 1.5}, {\"price\": 4.0, \"net\": 3.0}]}\n"
                                       "    assert order_total(order) == 4.5\n"},
              [("orders/totals.py", "line[\"price\"]", "line[\"cost\"]"),
               ("orders/totals.py", "line[\"price\"]", "line[\"net\"]")]),
        "b": ({"payroll/__init__.py": "",
               "payroll/pay.py": "def payroll(staff: list) -> float:\n    paid = [p for p in staff if p[\"active\"]]\n"
                                 "    return sum(person[\"price\"] for person in paid)\n",
               "tests/test_pay.py": "from payroll.pay import payroll\n\n\ndef test_payroll():\n"
                                    "    staff = [{\"active\": True, \"price\": 9.0, \"net\": 7.0}, {\"active\": False, \"price\": 1.0, \"net\": 1.0}]\n"
                                    "    assert payroll(staff) == 7.0\n"},
              [("payroll/pay.py", "person[\"price\"]", "person[\"gross\"]"),
               ("payroll/pay.py", "person[\"price\"]", "person[\"net\"]")]),
    },
}


def fix(files: dict[str, str], edits: list, memory: Path, scratch: Path, python: str,
        first: bool = False) -> dict[str, object]:
    root = write_project(scratch / f"p-{time.monotonic_ns()}", files)
    with FakeAnthropic() as fake:
        fake.fallback = ScriptedModel(list(edits))
        settings = Settings(python=python, memory=MemorySettings(uri=str(memory)),
                            llm=LLMSettings(base_url=fake.url, api_key="bench-key", model="fake-model", max_retries=0,
                                            first=first))
        out = FixSession(RunRequest(root, settings)).run()
        return {"status": out.status.value, "candidates": out.candidates_evaluated, "llm_calls": out.usage.llm_calls,
                "tokens": out.usage.tokens, "requests": len(fake.requests),
                "by": f"{out.patch.proposer}/{out.patch.operator}" if out.patch else "-"}


def lean_python() -> str:
    """The tests' interpreter with pytest only (tests/project_python.py, built once under .cache/): the dev
    environment's plugins cost about 1.5 s in every pytest process a fix starts, a minute over a smoke run."""
    from tests.project_python import project_python
    return project_python()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="the first pair only: proves the bench runs")
    args = parser.parse_args()
    pairs = dict(list(PAIRS.items())[:1]) if args.smoke else PAIRS
    python = lean_python() if args.smoke else sys.executable
    rows = {}
    with tempfile.TemporaryDirectory(prefix="fixloop-bench-memory-llm-") as tmp:
        scratch = Path(tmp)
        for name, pair in pairs.items():
            learned = scratch / f"memory-{name}"
            first = fix(*pair["a"], learned, scratch, python, args.smoke)
            empty = fix(*pair["b"], scratch / f"empty-{name}", scratch, python, args.smoke)
            memory = fix(*pair["b"], learned, scratch, python, args.smoke)
            rows[name] = (first, empty, memory)
            print(f"{name}: done", file=sys.stderr, flush=True)
    print(f"{'pair':12} {'a: calls':>8} | {'b empty: calls':>14} {'cands':>5} {'tokens':>7} | "
          f"{'b memory: calls':>15} {'cands':>5} {'tokens':>7} | fixed by (memory)")
    for name, (a, e, m) in rows.items():
        print(f"{name:12} {a['llm_calls']:>8} | {e['llm_calls']:>14} {e['candidates']:>5} {e['tokens']:>7} | "
              f"{m['llm_calls']:>15} {m['candidates']:>5} {m['tokens']:>7} | {m['by']} ({e['status']}/{m['status']})")
    calls_e = sum(int(e["llm_calls"]) for _, e, _ in rows.values())
    calls_m = sum(int(m["llm_calls"]) for _, _, m in rows.values())
    cand_e = sum(int(e["candidates"]) for _, e, _ in rows.values())
    cand_m = sum(int(m["candidates"]) for _, _, m in rows.values())
    print(f"\nLLM calls, second bug: {calls_e} with an empty memory vs {calls_m} with memory "
          f"({'all avoided' if calls_m == 0 else f'{calls_e / calls_m:.1f}x fewer'})")
    print(f"candidate evaluations, second bug: {cand_e} vs {cand_m} ({cand_e / max(cand_m, 1):.1f}x fewer)")
    errored = [name for name, runs in rows.items() for r in runs if r["status"] == "error"]
    if args.smoke and errored:
        sys.exit("runs that errored: " + ", ".join(errored))


if __name__ == "__main__":
    main()
