"""The HTML report: one self-contained file (inline CSS and SVG, no script, no network), every text from a
run log escaped. Its own Content-Security-Policy forbids scripts and remote loads, so even a bug in the
escaping could not run code in a browser or the editor's webview."""

from __future__ import annotations

import datetime
import html
from pathlib import Path
from typing import Any

from fixloop import __version__
from fixloop.application.history.text import headline
from fixloop.application.history.store import History
from fixloop.kit.replace_file import replace_text

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
STYLE = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px auto;max-width:980px;padding:0 16px;
color:#222;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.sub{color:#666;margin-bottom:16px}
.kpis{display:grid;grid-template-columns:repeat(auto-fill,minmax(210px,1fr));gap:10px}
.kpi{border:1px solid #ddd;border-radius:6px;padding:8px 10px}.kpi b{display:block;font-size:19px}
.kpi span{color:#666;font-size:12px}
table{border-collapse:collapse;width:100%;font-size:12.5px}td,th{border-bottom:1px solid #eee;padding:3px 6px;
text-align:left;vertical-align:top}th{background:#f6f6f6}td.n{text-align:right;font-variant-numeric:tabular-nums}
.note{background:#fff8e1;border:1px solid #f0d98c;padding:6px 10px;border-radius:4px;margin:8px 0}
svg{max-width:100%;height:auto}
@media (prefers-color-scheme: dark){body{background:#1e1e1e;color:#ddd}th{background:#2a2a2a}
.kpi{border-color:#444}td,th{border-color:#333}svg{background:#fff;border-radius:4px}}
"""


def e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def render(h: History, k: dict[str, Any], plots: dict[str, str], plots_note: str) -> str:
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',  # a constant: no quote to escape
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>fixloop report</title><style>{STYLE}</style></head><body>",
        "<h1>fixloop report</h1>",
        f'<div class="sub">{e(k["runs"])} runs in {e(len(h.projects))} project(s), written '
        f'{e(datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))} by fixloop {e(__version__)}</div>',
    ]
    if h.skipped:
        parts.append('<div class="note">Skipped: ' + e("; ".join(f"{n} run folder(s): {why}" for why, n in
                                                               h.skipped.items())) + "</div>")
    if not h.records:
        parts.append('<div class="note">No runs yet: run <code>fixloop fix</code> (or Fix until tests pass in the '
                     "editor) and each run will show here.</div></body></html>")
        return "\n".join(parts)
    parts.append('<h2>Key figures</h2><div class="kpis">')
    for name, value in headline(k):
        parts.append(f'<div class="kpi"><span>{e(name)}</span><b>{e(value)}</b></div>')
    parts.append("</div>")
    if plots_note:
        parts.append(f'<div class="note">{e(plots_note)}</div>')
    for title, svg in plots.items():
        parts.append(f"<h2>{e(title)}</h2>{svg}")
    parts.append(_error_classes(k))
    parts.append(_sources(k))
    parts.append(_table("Safety check refusals, by rule", ["rule", "candidates"],
                        [[c, n] for c, n in k["safety"]["refusals_by_rule"].items()]
                        + [["integrity guard", k["safety"]["guard_refusals"]],
                           ["unsafe candidates that ran", k["safety"]["unsafe_candidates_run"]]]))
    parts.append(_table("Operators and proposers", ["proposer/operator", "ran tests", "passed the suite"],
                        [[n, v["tested"], v["passed"]] for n, v in k["operators"].items()]))
    parts.append(_runs(h.records[-200:]))
    parts.append("</body></html>")
    return "\n".join(parts)


def _error_classes(k: dict[str, Any]) -> str:
    rows = [[cls, v["runs"], v["fixed"], ", ".join(f"{f} x{n}" for f, n in v["fixers"].items())]
            for cls, v in k["error_classes"].items()]
    return _table("Error classes and what fixes them", ["error class", "runs", "fixed", "fixed by"], rows)


def _sources(k: dict[str, Any]) -> str:
    """Fixes by source, and what each saved against the generic search's medians for the same error class."""
    def n(x: float | None) -> str:
        return "–" if x is None else f"{x:.1f}"

    rows = [[name, v["fixes"], n(v["median_candidates"]), n(v["median_seconds"]), f"{v['compared']}",
             n(v["median_candidates_saved"]), n(v["median_seconds_saved"])]
            for name, v in k.get("sources", {}).items() if v["fixes"]]
    return _table("Fixes by source (saved: per fix, median, vs the search's medians for the same error class)",
                  ["source", "fixes", "candidates", "s", "compared", "candidates saved", "s saved"], rows)


def _runs(records: list[dict[str, Any]]) -> str:
    rows = [[datetime.datetime.fromtimestamp(r["started"]).strftime("%Y-%m-%d %H:%M"), Path(r["project"]).name,
             r["target"] or "all", r["status"], f"{r['proposer']}/{r['operator']}" if r["proposer"] else "",
             r["candidates"], r["test_runs"], r["tokens"], f"{r['cost_usd']:.4f}", f"{r['seconds']:.1f}",
             r["decision"], r["run_id"]] for r in reversed(records)]
    return _table(f"Runs (latest {len(records)})", ["date", "project", "target", "status", "fixed by", "cand.",
                                                     "tests", "tokens", "$", "s", "decision", "run id"], rows)


def _table(title: str, head: list[str], rows: list[list[Any]]) -> str:
    if not rows:
        return ""
    out = [f"<h2>{e(title)}</h2><table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f'<td class="n">{e(c)}</td>' if isinstance(c, (int, float)) else f"<td>{e(c)}</td>"
                                    for c in row) + "</tr>")
    out.append("</table>")
    return "".join(out)


def build(h: History, k: dict[str, Any]) -> tuple[str, str]:
    """The page and a note for the user ("" when nothing to say)."""
    from fixloop.application.history.plots import PlotsUnavailable, all_plots

    try:
        plots, note = (all_plots(h.records, k), "") if h.records else ({}, "")
    except PlotsUnavailable as err:
        plots, note = {}, str(err)
    return render(h, k, plots, note), note


def write_report(out: Path, h: History, k: dict[str, Any]) -> tuple[Path, str]:
    """Write the report (atomically, to a path the user chose) and return its absolute path and a note."""
    page, note = build(h, k)
    target = out.expanduser().resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_text(target, page, 0o644)
    return target, note
