"""A real history: 20 offline `FixSession` runs over three tiny projects (a shared memory, so later bugs are
fixed by replaying earlier fixes; some fixes rejected), then every KPI of `fixloop stats` checked against a
count made here straight from the events files, and the HTML report opened in a real headless Chromium."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixloop.application.config import MemorySettings, Settings
from fixloop.application.run import RunRequest
from fixloop.core.model import Scope, Status
from fixloop.core.telemetry import EVENTS_SCHEMA
from fixloop.application.runlog import record_decision
from fixloop.application.session import FixSession

from tests.conftest import PYTHON

from .synth import Spec, write

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(2400)]  # 20 real runs: minutes on a busy machine
REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# Three projects with the same shape of bug (a comparison one step off), so memory can replay a fix.
PROJECTS = {
    "shop": ("shop/price.py", "BULK = 10\n\n\ndef line_total(unit: float, qty: int) -> float:\n    if qty > BULK:\n"
             "        return round(unit * qty * 0.9, 2)\n    return round(unit * qty, 2)\n",
             "tests/test_price.py", "from shop.price import line_total\n\n\ndef test_bulk_from_ten():\n"
             "    assert line_total(1.0, 10) == 9.0\n\n\ndef test_small():\n    assert line_total(2.0, 3) == 6.0\n"),
    "cinema": ("cinema/fees.py", "SENIOR_AGE = 65\n\n\ndef ticket(base: float, age: int) -> float:\n"
               "    price = base + 0.0\n    if age > SENIOR_AGE:\n        price = price / 2\n    return round(price, 2)\n",
               "tests/test_fees.py", "from cinema.fees import ticket\n\n\ndef test_senior_from_65():\n"
               "    assert ticket(10.0, 65) == 5.0\n\n\ndef test_adult():\n    assert ticket(10.0, 30) == 10.0\n"),
    "library": ("library/late.py", "GRACE = 3\n\n\ndef fee(days: int) -> float:\n    if days > GRACE:\n"
                "        return 0.0\n    return 0.0\n", "tests/test_late.py",
                "from library.late import fee\n\n\ndef test_late_pays():\n    assert fee(10) == 3.5\n"),
}


def _reset(root: Path, name: str, fixed: bool = False) -> None:
    src, text, test, test_text = PROJECTS[name]
    if fixed:
        text = text.replace("> BULK", ">= BULK").replace("> SENIOR_AGE", ">= SENIOR_AGE")
    for rel, body in ((src, text), (test, test_text), (src.split("/")[0] + "/__init__.py", "")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)


@pytest.fixture(scope="module")
def real_history(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("real-history")
    data = base / "data"
    old = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(data)  # the projects index goes to this test's own data dir
    settings = dataclasses.replace(Settings(), offline=True, max_candidates=40, warm_workers=0, python=PYTHON,
                                   memory=MemorySettings(enabled=True, uri=str(base / "memory")))
    plan = [("shop", True), ("cinema", False), ("shop", True), ("cinema", True), ("shop", False), ("cinema", True),
            ("shop", True), ("cinema", True), ("shop", True), ("cinema", False), ("shop", True), ("cinema", True),
            ("shop", True), ("cinema", True), ("shop", True), ("cinema", True), ("shop", True)]
    roots = {name: base / name for name in PROJECTS}
    outcomes = []
    try:
        for name, accept in plan:  # 17 runs of a fixable bug; the memory learns from the first ones
            _reset(roots[name], name)
            session = FixSession(RunRequest(roots[name], settings, Scope()))
            outcome = session.run()
            outcomes.append(outcome.status)
            if outcome.status is Status.FIXED:
                record_decision(roots[name], outcome.run_id, {"run_id": outcome.run_id, "hunk": "all",
                                                              "accepted": accept, "source": "test"})
        _reset(roots["shop"], "shop", fixed=True)  # nothing to fix
        outcomes.append(FixSession(RunRequest(roots["shop"], settings, Scope())).run().status)
        limited = dataclasses.replace(settings, max_candidates=3)
        for _ in range(2):  # a bug the engine cannot fix in 3 candidates
            _reset(roots["library"], "library")
            outcomes.append(FixSession(RunRequest(roots["library"], limited, Scope())).run().status)
    finally:
        if old is None:
            os.environ.pop("XDG_DATA_HOME", None)
        else:
            os.environ["XDG_DATA_HOME"] = old
    return {"base": base, "data": data, "roots": roots, "outcomes": outcomes}


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def independent_kpis(roots: list[Path]) -> dict[str, Any]:
    """The KPIs counted straight from the files, sharing no code with fixloop.application.history."""
    runs = []
    for root in roots:
        for d in sorted((root / ".fixloop" / "runs").iterdir()):
            events = _lines(d / "events.jsonl")
            summary = json.loads((d / "summary.json").read_text())
            decisions = _lines(d / "decisions.jsonl")
            tested = [e for e in events if e["kind"] == "tested"]
            runs.append({"status": summary["status"], "candidates": sum(e["kind"] == "candidate" for e in events),
                         "test_runs": summary["test_runs"], "seconds": summary["wall_seconds"],
                         "first": bool(tested) and tested[0]["status"] == "plausible",
                         "proposer": summary["proposer"], "tokens": summary["tokens"], "cost": summary["cost_usd"],
                         "accepted": [x["accepted"] for x in decisions], "tested": tested,
                         "refused": [e for e in events if e["kind"] == "checked" and not e["ok"]],
                         "lookups": [e["seconds"] for e in events if e["kind"] == "retrieved"],
                         "schema": [e.get("schema") for e in events if e["kind"] == "started"]})
    fixed = [r for r in runs if r["status"] == "fixed"]
    tried = [r for r in runs if r["status"] in ("fixed", "gave_up", "limits", "error")]
    secs = sorted(r["seconds"] for r in fixed)
    return {"runs": runs, "fixed": len(fixed), "attempted": len(tried), "first": sum(r["first"] for r in fixed),
            "candidates": [r["candidates"] for r in fixed], "test_runs": [r["test_runs"] for r in fixed],
            "median": secs[(len(secs) + 1) // 2 - 1], "p90": secs[-(-9 * len(secs) // 10) - 1],
            "replayed": sum(r["proposer"] == "memory" for r in fixed),
            "accepted": sum(a for r in runs for a in r["accepted"]),
            "rejected": sum(not a for r in runs for a in r["accepted"]),
            "tested_total": sum(len(r["tested"]) for r in runs),
            "passed_total": sum(e["status"] == "plausible" for r in runs for e in r["tested"]),
            "lookups": sum(len(r["lookups"]) for r in runs)}


def test_every_kpi_against_the_events_files(real_history: dict[str, Any]) -> None:
    roots = list(real_history["roots"].values())
    outcomes = real_history["outcomes"]
    assert len(outcomes) == 20
    env = {**os.environ, "XDG_DATA_HOME": str(real_history["data"])}
    out = subprocess.run([sys.executable, "-m", "fixloop", "stats", "--all-projects", "--json"], env=env,
                         capture_output=True, text=True, timeout=120, cwd=real_history["base"])
    assert out.returncode == 0, out.stderr
    k = json.loads(out.stdout)
    mine = independent_kpis(roots)
    assert k["runs"] == len(mine["runs"]) == 20 and k["projects"] == 3
    assert all(r["schema"] == [EVENTS_SCHEMA] for r in mine["runs"])
    assert k["fixed"] == mine["fixed"] == outcomes.count(Status.FIXED) >= 15
    assert k["attempted"] == mine["attempted"]
    assert k["by_status"].get("nothing_to_fix") == 1
    assert k["fix_rate"] == pytest.approx(mine["fixed"] / mine["attempted"])
    assert k["first_try_rate"] == pytest.approx(mine["first"] / mine["fixed"])
    assert k["mean_candidates_per_fix"] == pytest.approx(statistics.mean(mine["candidates"]))
    assert k["mean_test_runs_per_fix"] == pytest.approx(statistics.mean(mine["test_runs"]))
    assert k["median_seconds_per_fix"] == pytest.approx(mine["median"])
    assert k["p90_seconds_per_fix"] == pytest.approx(mine["p90"])
    assert k["tokens"] == 0 and k["cost_usd"] == 0 and k["zero_cost_fix_share"] == 1.0  # offline: $0 fixes
    assert k["memory"]["replayed_fixes"] == mine["replayed"] >= 5  # the memory fixed later bugs by replay
    assert k["memory"]["lookups"] == mine["lookups"] == 20 - 1  # every run but the one with nothing to fix
    assert k["review"]["accepted_hunks"] == mine["accepted"] and k["review"]["rejected_hunks"] == mine["rejected"]
    assert mine["rejected"] >= 3
    assert sum(v["tested"] for v in k["operators"].values()) == mine["tested_total"]
    assert sum(v["passed"] for v in k["operators"].values()) == mine["passed_total"]
    assert k["safety"]["unsafe_candidates_run"] == 0 and k["safety"]["safe_run_rate"] == 1.0
    assert k["error_classes"]["AssertionError"]["runs"] == mine["attempted"]
    assert k["cpu_seconds_per_fix"] > 0 and k["peak_mb"] > 0  # telemetry from the sandbox


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_report_renders_in_headless_chromium(real_history: dict[str, Any], tmp_path: Path) -> None:
    hostile = '<img src=x onerror="document.body.setAttribute(\'data-pwned\',1)"><script>document.body.setAttribute(\'data-pwned\',2)</script>'
    write(real_history["roots"]["library"], Spec("20261101-090000-0000ee", target=hostile, exc="ValueError"))
    env = {**os.environ, "XDG_DATA_HOME": str(real_history["data"])}
    report = tmp_path / "report.html"
    out = subprocess.run([sys.executable, "-m", "fixloop", "report", "--all-projects", "--out", str(report)], env=env,
                         capture_output=True, text=True, timeout=180, cwd=real_history["base"])
    assert out.returncode == 0 and out.stdout.strip() == str(report), out.stderr
    browser = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*browser, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120)
    assert "<h1>fixloop report</h1>" in dom.stdout and "Learning curve" in dom.stdout, dom.stderr[-2000:]
    assert not re.search(r"<body[^>]*data-pwned", dom.stdout)  # neither the img nor the script ran
    shot = Path(os.environ.get("FIXLOOP_SCREENSHOTS", tmp_path)) / "report.png"
    subprocess.run([*browser, f"--screenshot={shot}", "--window-size=1100,2600", report.as_uri()],
                   capture_output=True, timeout=120, check=True)
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000  # a page with plots, not a blank one
