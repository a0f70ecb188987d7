"""What `fixloop fix` shows on stderr while a run works, and how it ends.

On a terminal, one live status line (the `progress.RunProgress` line: phase, candidate n/N, the suspect being
tried, the time left) that redraws as the run goes. Elsewhere (CI logs, pipes), the same line printed now and
then: every `EVERY_CANDIDATES` candidates, and every `EVERY_SECONDS` seconds while nothing else was said (a
long baseline included). A few lines are always printed (the interpreter, the strategy, the baseline's
counts, the suspects, a candidate that passes everything). `--quiet` keeps only warnings and the end.
stdout is never written here: `--json` keeps it for its one object.

Everything from the project goes through `shown` (control characters and bidi overrides escaped, then rich
markup escaped).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Mapping

from rich.console import Console
from rich.text import Text

from fixloop.core.model import Event
from fixloop.core.sources import WORDS
from fixloop.kit.printable import shown
from fixloop.application.progress import RunProgress

EVERY_CANDIDATES = 10
EVERY_SECONDS = 15.0
TICK = 1.0  # how often the plain mode looks at the clock


class _LiveLine:
    """The status line, rendered afresh at every refresh of the spinner (so the time left counts down)."""

    def __init__(self, display: "RunDisplay") -> None:
        self.display = display

    def __rich__(self) -> Text:
        return Text(self.display.line())


class RunDisplay:
    """Call it with each event of a run; use it as a context manager around the run."""

    def __init__(self, console: Console, quiet: bool = False, live: bool | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.console, self.quiet, self.clock = console, quiet, clock
        self.live = (console.is_terminal and not console.is_dumb_terminal) if live is None else live
        self.progress = RunProgress()
        self.status: Any = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._said_at = clock()  # when the last plain progress line (or the start) was printed
        self._said_candidate = 0

    def __enter__(self) -> "RunDisplay":
        if self.quiet:
            return self
        if self.live:
            self.status = self.console.status(_LiveLine(self))
            self.status.__enter__()
        else:
            self._ticker = threading.Thread(target=self._tick, name="fixloop-progress", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(2 * TICK)
        if self.status is not None:
            self.status.__exit__(None, None, None)

    def line(self) -> str:
        # No lock: the spinner's thread renders this while holding the console's lock, and an event prints
        # (takes the console's lock) while holding ours. A line read mid-update is at worst one event old.
        return self.progress.line(self.clock())

    def __call__(self, e: Event) -> None:
        with self._lock:
            self.progress.update(e)
            self._said(e)
            if not self.live and not self.quiet and self._candidates_due():
                self._say_progress()

    def _said(self, e: Event) -> None:
        """The lines that stay, in both modes."""
        d = e.data
        if e.kind == "started" and d.get("python"):
            # Which interpreter runs the tests, before anything runs (also in --json as "python").
            self._print(f"python: {shown(d['python'])}")
        if e.kind in ("breaker", "note") and "config" not in d:  # config notes were printed at start
            self.console.print(f"[yellow]{shown(d.get('message'))}[/]")  # warnings, even when quiet
        if self.quiet:
            return
        if e.kind == "strategy" and d.get("strategy"):
            self._print(f"strategy: {shown(d['strategy'])} ({shown(d.get('strategy_reason', ''))})")
        elif e.kind == "baseline":
            self._print(f"baseline: {d.get('passed', 0)} passed, {d.get('failed', 0)} failed ({d.get('seconds')} s)")
        elif e.kind == "localized" and d.get("suspects"):
            self._print(f"suspects: {', '.join(shown(x) for x in list(d['suspects'])[:5])}")
        elif e.kind == "tested" and d.get("status") == "plausible":
            self._print(f"candidate {e.candidate} passes the whole suite")
        elif e.kind == "tested" and d.get("status") == "partial":
            self._print(f"candidate {e.candidate} fixes some of the failing targets and breaks nothing (kept while a "
                        "fix of all of them is looked for)")

    def _print(self, markup: str) -> None:
        if not self.quiet:
            self.console.print(markup)

    def _candidates_due(self) -> bool:
        return self.progress.candidate - self._said_candidate >= EVERY_CANDIDATES

    def _say_progress(self) -> None:
        self.console.print(Text(self.progress.line(self.clock())))  # Text: printable already, never markup
        self._said_at, self._said_candidate = self.clock(), self.progress.candidate

    def _tick(self) -> None:
        while not self._stop.wait(TICK):
            self.beat()

    def beat(self) -> None:
        """The plain mode's clock: the line again once `EVERY_SECONDS` went by without one."""
        with self._lock:
            if self.quiet or self.live:
                return
            if self.progress.phase not in ("start", "done") and self.clock() - self._said_at >= EVERY_SECONDS:
                self._say_progress()


def show_end(console: Console, summary: Mapping[str, Any]) -> None:
    """What a run that did not end fixed tried, and the next steps (the summary's `tried`, `next_steps`)."""
    tried = summary.get("tried") or {}
    if tried.get("candidates"):
        proposers = ", ".join(f"{shown(k)} {v}" for k, v in (tried.get("proposers") or {}).items())
        console.print(f"tried: {tried['candidates']} candidates ({proposers})")
        operators = list((tried.get("operators") or {}).items())
        more = f", and {len(operators) - 8} more" if len(operators) > 8 else ""
        console.print("  operators: " + ", ".join(f"{shown(k)} {v}" for k, v in operators[:8]) + more)
    if tried.get("suspects"):
        console.print(f"  top suspects: {', '.join(shown(x) for x in tried['suspects'])}")
    steps = summary.get("next_steps") or []
    if steps:
        console.print("next steps:")
        for step in steps:
            console.print(f"  - {shown(step)}")


def show_audit(console: Console, audit: Mapping[str, Any] | None) -> None:
    """The security pass beside the diff: by whom, each finding by severity, or that it found nothing."""
    if not audit:
        return
    findings = audit.get("findings") or []
    note = f" ({shown(audit['note'])})" if audit.get("note") else ""
    console.print(f"audit ({shown(audit['by'])}): " + (f"{len(findings)} finding(s)" if findings else "nothing found") + note)
    colour = {"high": "red", "medium": "yellow"}
    for f in findings:
        where = f"{shown(f['path'])}:{f['line']}: " if f.get("path") else ""
        console.print(f"  [{colour.get(f['severity'], 'dim')}]{f['severity']}[/] {where}{shown(f['message'])} "
                      f"[dim]({shown(f['source'])})[/]")


def fixed_by(source: str, saved: dict[str, Any] | None) -> str:
    """One line: where the fix came from and, where the history can tell, what that saved."""
    text = f"source: {WORDS.get(source, 'another proposer')}"
    if saved:
        n = saved["search_fixes"]
        text += (f", {saved['candidates']:g} candidate(s) and {saved['seconds']:.1f} s against the generic search's "
                 f"median of {saved['search_median_candidates']:g} and {saved['search_median_seconds']:.1f} s for "
                 f"{shown(saved['error_class'])} in this project ({n} fix{'es' if n != 1 else ''})")
    return text
