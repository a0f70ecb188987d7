"""The KPIs as short text: one place for the terminal, the report and the editors."""

from __future__ import annotations

from typing import Any


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def num(x: float | None, fmt: str = ".1f") -> str:
    return "–" if x is None else format(x, fmt)


def headline(k: dict[str, Any]) -> list[tuple[str, str]]:
    """The few numbers worth one line each (the editors echo these too)."""
    return [
        ("runs", f"{k['runs']} in {k['projects']} project(s), {k['attempted']} to fix"),
        ("fix rate", f"{pct(k['fix_rate'])} ({k['fixed']} fixed)"),
        ("first-try rate", pct(k["first_try_rate"])),
        ("candidates / iterations / test runs per fix", f"{num(k['mean_candidates_per_fix'])} / "
         f"{num(k['mean_iterations_per_fix'])} / {num(k['mean_test_runs_per_fix'])}"),
        ("time per fix (median / p90)", f"{num(k['median_seconds_per_fix'])} s / {num(k['p90_seconds_per_fix'])} s"),
        ("tokens and $ per fix", f"{num(k['tokens_per_fix'], '.0f')} / ${num(k['cost_per_fix_usd'], '.4f')}"),
        ("fixed at $0", pct(k["zero_cost_fix_share"])),
        ("safe runs", f"{pct(k['safety']['safe_run_rate'])} ({k['safety']['unsafe_candidates_run']} unsafe candidates ran)"),
    ]


def source_rows(sources: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """Fixes by source and what each saved against the generic search's medians for the same error class."""
    counted = {name: row for name, row in sources.items() if row["fixes"]}
    rows = [("fixes by source", ", ".join(f"{name} {row['fixes']}" for name, row in counted.items()) or "none yet")]
    for name, row in counted.items():
        text = (f"{row['fixes']} fixes, median {num(row['median_candidates'])} candidates and "
                f"{num(row['median_seconds'])} s each")
        if name != "search":
            text += (f"; saved {num(row['median_candidates_saved'])} candidates and {num(row['median_seconds_saved'])} s "
                     f"per fix (median) vs the search on the same error class, {row['compared']} of {row['fixes']} "
                     "compared" if row["compared"] else "; no search fix of the same error class to compare with")
        rows.append((f"  {name}", text))
    return rows
