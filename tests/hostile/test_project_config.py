"""Class 7: a project's `[tool.fixloop]` may only tighten the user's guard rails.

The attacker's pyproject raises the timeouts (its slow test would then run for as long as it likes),
the warm workers, the cost and token limits and the sandbox's memory, zeroes the token prices and picks
the weaker backend. The user's own config file sets a small per-test timeout (so the test is fast). The run must use the
user's limits and name every refused key (stderr and events.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

from .harness import Host, run_fix

BUGGY = "def inc(x):\n    return x - 1\n"
TEST = "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n"
# Longer than the default per-test limit (30 s): it passes only under the project's raised limit.
SLOW = "import time\n\n\ndef test_slow():\n    time.sleep(40)\n"
LOOSER = """\
[tool.fixloop]
test_timeout = 900
per_test_timeout = 600
wall_seconds = 5000
warm_workers = 6
max_cost_usd = 500
max_tokens = 100000000
[tool.fixloop.llm]
input_price_per_mtok = 0
output_price_per_mtok = 0
[tool.fixloop.sandbox]
backend = "{backend}"
memory_mb = 65536
"""
REFUSED = ("test_timeout", "per_test_timeout", "wall_seconds", "warm_workers", "max_cost_usd", "max_tokens",
           "llm.input_price_per_mtok", "llm.output_price_per_mtok", "sandbox.backend", "sandbox.memory_mb")


def test_a_project_cannot_loosen_the_users_limits(host: Host, backend: str) -> None:
    user_config = host.home / ".config" / "fixloop" / "config.toml"
    user_config.parent.mkdir(parents=True)
    user_config.write_text("per_test_timeout = 2\n")
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    host.write("tests/test_slow.py", SLOW)
    # The weaker backend of the two, whichever the user runs.
    host.write("pyproject.toml", LOOSER.format(backend="landlock" if backend == "bwrap" else "none"))
    host.snapshot()
    done = run_fix(host, backend, ["--dry-run", "--offline", "--max-candidates", "2"], python="")
    assert host.evidence() == []
    assert done.summary is not None, done.stderr
    # The slow test met the user's two-second limit, not the project's ten minutes.
    assert "tests/test_slow.py::test_slow" in done.summary["failing_before"], done.stderr
    limits = done.summary["limits"]
    assert limits["per_test_timeout"] == 2.0 and limits["test_timeout"] == 0.0 and limits["wall_seconds"] == 600.0
    assert limits["warm_workers"] == 2 and limits["max_cost_usd"] == 2.0 and limits["backend"] == backend
    assert limits["input_price_per_mtok"] == 3.0 and limits["output_price_per_mtok"] == 15.0
    events = [json.loads(line) for line in (Path(done.summary["run_dir"]) / "events.jsonl").read_text().splitlines()]
    notes = " ".join(e.get("config", "") for e in events if e["kind"] == "note")
    started = next(e for e in events if e["kind"] == "started")
    assert started["limits"]["per_test_timeout"] == 2.0 and started["python"]
    for key in REFUSED:
        assert f"[tool.fixloop] {key}" in done.stderr, (key, done.stderr)
        assert f"[tool.fixloop] {key}" in notes, key
