"""The report's plots as inline SVG (matplotlib, Agg, text drawn as paths): no script, no external file.

Labels come from run logs (untrusted): they are reduced to plain characters before matplotlib sees them
(no mathtext `$...$`, nothing that could close an XML comment), and the SVG goes into the page as markup
matplotlib produced, never as text from a run.
"""

from __future__ import annotations

import datetime
import io
import re
from collections import defaultdict
from typing import Any, Callable

_UNSAFE = re.compile(r"[^A-Za-z0-9_./:#+= -]")
WIDTH = 7.5


class PlotsUnavailable(Exception):
    """matplotlib is not installed: the report is written without plots (and says how to get them)."""


def label(text: Any, limit: int = 40) -> str:
    return _UNSAFE.sub("?", str(text))[:limit]


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as e:
        raise PlotsUnavailable("plots need matplotlib: pip install 'fixloop[report]' (the report has its tables "
                               "without it)") from e
    matplotlib.use("Agg", force=True)
    matplotlib.rcParams.update({"svg.fonttype": "path", "svg.hashsalt": "fixloop", "font.size": 9,
                                "axes.spines.top": False, "axes.spines.right": False})
    import matplotlib.pyplot as plt

    return plt


def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prologue and DOCTYPE: the page is HTML


def all_plots(records: list[dict[str, Any]], k: dict[str, Any]) -> dict[str, str]:
    """Each plot's title -> its SVG; a plot with no data is left out."""
    plt = _pyplot()
    out: dict[str, str] = {}
    makers: list[tuple[str, Callable[[Any, list[dict[str, Any]], dict[str, Any]], bool]]] = [
        ("Learning curve: candidates, time and $ per fix", learning_curve),
        ("Fix rate by error class over time", fix_rate_by_class),
        ("Cost per day", cost_per_day),
        ("Operator success", operator_success),
    ]
    for title, make in makers:
        fig = None
        try:
            fig = make(plt, records, k)
            if fig:
                out[title] = _svg(fig)
        finally:
            if fig:
                plt.close(fig)
    return out


def learning_curve(plt: Any, records: list[dict[str, Any]], k: dict[str, Any]) -> Any:
    fixed = [r for r in records if r["status"] == "fixed"]
    if not fixed:
        return None
    xs = list(range(1, len(fixed) + 1))
    fig, axes = plt.subplots(3, 1, figsize=(WIDTH, 5.4), sharex=True)
    for ax, key, name in zip(axes, ("candidates", "seconds", "cost_usd"), ("candidates", "seconds", "$")):
        ys = [r[key] for r in fixed]
        ax.plot(xs, ys, color="#888", linewidth=0.8, zorder=1)
        fresh = [(x, y) for x, y, r in zip(xs, ys, fixed) if not r.get("replayed")]
        replay = [(x, y) for x, y, r in zip(xs, ys, fixed) if r.get("replayed")]
        if fresh:
            ax.scatter(*zip(*fresh), s=14, color="#1f77b4", label="fixed", zorder=2)
        if replay:
            ax.scatter(*zip(*replay), s=30, marker="*", color="#d62728", label="replayed from memory", zorder=3)
        ax.set_ylabel(name)
    axes[0].legend(loc="upper right", frameon=False)
    axes[-1].set_xlabel("fix number (oldest first)")
    return fig


def _day_ticks(ax: Any, days: list[str]) -> None:
    """At most a dozen date labels, so a long history stays readable."""
    step = max(1, -(-len(days) // 12))
    ticks = list(range(0, len(days), step))
    ax.set_xticks(ticks, [label(days[i]) for i in ticks], rotation=30, ha="right")


def _day(ts: float) -> str:
    return datetime.datetime.fromtimestamp(ts).strftime("%Y-%m-%d")


def fix_rate_by_class(plt: Any, records: list[dict[str, Any]], k: dict[str, Any]) -> Any:
    classes = list(k["error_classes"])[:6]
    if not classes:
        return None
    days = sorted({_day(r["started"]) for r in records})
    fig, ax = plt.subplots(figsize=(WIDTH, 2.8))
    for cls in classes:
        tried: dict[str, int] = defaultdict(int)
        fixed: dict[str, int] = defaultdict(int)
        for r in records:
            if r["error_class"] == cls and r["status"] in ("fixed", "gave_up", "limits", "error"):
                tried[_day(r["started"])] += 1
                fixed[_day(r["started"])] += r["status"] == "fixed"
        pts = [(d, 100 * fixed[d] / tried[d]) for d in days if tried[d]]
        ax.plot([days.index(d) for d, _ in pts], [y for _, y in pts], marker="o", markersize=3, label=label(cls))
    _day_ticks(ax, days)
    ax.set_ylabel("fixed %")
    ax.set_ylim(-5, 105)
    ax.legend(loc="lower right", frameon=False, fontsize=7)
    return fig


def cost_per_day(plt: Any, records: list[dict[str, Any]], k: dict[str, Any]) -> Any:
    if not records:
        return None
    cost: dict[str, float] = defaultdict(float)
    fixes: dict[str, int] = defaultdict(int)
    for r in records:
        cost[_day(r["started"])] += r["cost_usd"]
        fixes[_day(r["started"])] += r["status"] == "fixed"
    days = sorted(cost)
    fig, ax = plt.subplots(figsize=(WIDTH, 2.4))
    ax.bar(range(len(days)), [cost[d] for d in days], color="#2ca02c")
    _day_ticks(ax, days)
    ax.set_ylabel("$ per day")
    if len(days) <= 14:  # the fixes of each day on its bar, while there is room
        for i, d in enumerate(days):
            ax.annotate(f"{fixes[d]} fix", (i, cost[d]), ha="center", va="bottom", fontsize=7)
    return fig


def operator_success(plt: Any, records: list[dict[str, Any]], k: dict[str, Any]) -> Any:
    rows = list(k["operators"].items())[:12]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(WIDTH, 0.6 + 0.28 * len(rows)))
    names = [label(n, 48) for n, _ in rows][::-1]
    tested = [v["tested"] for _, v in rows][::-1]
    passed = [v["passed"] for _, v in rows][::-1]
    ax.barh(names, tested, color="#c7c7c7", label="ran its tests")
    ax.barh(names, passed, color="#1f77b4", label="passed the suite")
    ax.set_xlabel("candidates")
    ax.legend(loc="lower right", frameon=False)
    return fig
