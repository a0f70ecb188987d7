"""The command line's output: one console class through which only printable text reaches the screen, and
the diff a user is asked to accept. (Not in printable.py: rich's console and syntax views, pygments among
them, stay off the language server's start-up.)"""

from __future__ import annotations

import sys
from typing import Any, Iterable

from rich.console import Console, ConsoleOptions
from rich.markup import escape
from rich.segment import Segment
from rich.syntax import Syntax
from rich.text import Text

from fixloop.kit.printable import diff_shown, printable


class PrintableConsole(Console):
    """The one console the command line prints through: whatever it is given, only printable text reaches
    the screen. Strings pass `printable` before rich parses them (rich itself would silently drop a backspace
    or a carriage return, and keep ESC), and every segment rendered from a `Text`, a table or a syntax view
    passes it again. Rich's own control segments (a live display's cursor moves) and the colours it renders
    from styles are its own sequences, never text of the project."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(printable(text, multiline=True), **kwargs)

    def render(self, renderable: Any, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or _shown_as_is(segment.text):
                yield segment
            else:
                yield Segment(printable(segment.text, multiline=True), segment.style)


def _shown_as_is(text: str) -> bool:
    return text.isprintable() or text.replace("\n", "").replace("\t", "").isprintable()


def console(stderr: bool = False, **kwargs: Any) -> PrintableConsole:
    """A console for the command line (stderr for messages, stdout for results), without rich's highlighter."""
    kwargs.setdefault("highlight", False)
    return PrintableConsole(stderr=stderr, **kwargs)


def print_diff(diff: str, err: Console) -> None:
    """The diff a user is asked to accept, on stdout. To a terminal: `diff_shown`, with its note on `err`. To
    a pipe or a file: the exact text, for a tool to apply."""
    out = console()
    if not out.is_terminal:
        sys.stdout.write(diff if diff.endswith("\n") or not diff else diff + "\n")
        sys.stdout.flush()
        return
    text, note = diff_shown(diff)
    out.print(Syntax(text, "diff", theme="ansi_dark", background_color="default"))
    if note:
        err.print(f"[yellow]note:[/] {escape(note)}")
