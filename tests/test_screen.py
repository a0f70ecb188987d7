"""The command line's choke point for what reaches a terminal (`screen.PrintableConsole`), the diff a user is
asked to accept (`printable.diff_shown`, `screen.print_diff`) and the log (`printable.PrintableFormatter`)."""

from __future__ import annotations

import io
import logging

import pytest
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from fixloop.kit.printable import PrintableFormatter, diff_shown
from fixloop.kit.screen import console, print_diff

EVIL = "a\x1b[1A\x1b[2Kb\x1b]52;c;cHduZWQ=\x1b\\c\x1b]0;t\x07d\x9b\u202ee\x08f\rg\u200bh"


def _screen(*renderables: object) -> str:
    buf = io.StringIO()
    terminal = console(file=buf, force_terminal=True, color_system=None, width=200)
    for r in renderables:
        terminal.print(r)
    return buf.getvalue()


def test_nothing_but_printable_text_reaches_the_terminal() -> None:
    table = Table()
    table.add_column("x")
    table.add_row(EVIL)
    screen = _screen(EVIL, f"[bold]{EVIL}[/]", Text(EVIL), table, Syntax("+" + EVIL + "\n", "diff"))
    assert [ch for ch in screen if not (ch.isprintable() or ch == "\n")] == []
    # Every character shown as text by the string, the markup and the table. A `Text` or a syntax view built
    # outside the console has lost its BEL and backspace to rich already (so `print_diff` escapes the diff before
    # it makes one), but its ESC is escaped all the same.
    assert screen.count("a\\x1b[1A\\x1b[2Kb\\x1b]52;c;cHduZWQ=\\x1b\\c\\x1b]0;t\\x07d\\x9b\\u202ee") == 3
    assert "\\x08f\\rg\\u200bh" in screen  # rich alone would drop a backspace or a carriage return silently


def test_fixloops_own_markup_and_styles_still_work() -> None:
    buf = io.StringIO()
    terminal = console(file=buf, force_terminal=True, color_system="standard", width=80)
    terminal.print("[red]error:[/] text")
    assert buf.getvalue() == "\x1b[31merror:\x1b[0m text\n"  # the style's own sequence, not the text's


def test_the_diff_to_accept_shows_every_character_and_says_so() -> None:
    diff = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\r\n+x = '\u202e'\t# \x1b[2K\r\n"
    shown, note = diff_shown(diff)
    assert shown == "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\\r\n+x = '\\u202e'\t# \\x1b[2K\\r\n"
    assert "\\r (control) x2" in note and "\\u202e (RIGHT-TO-LEFT OVERRIDE) x1" in note and "\\x1b (control) x1" in note
    assert diff_shown("-a\n+b\tc\n") == ("-a\n+b\tc\n", "")


def test_a_diff_to_a_pipe_is_the_exact_text(capsys: pytest.CaptureFixture[str]) -> None:
    diff = "-x = 1\r\n+x = '\u202e'\n"
    print_diff(diff, console(stderr=True))
    out, err = capsys.readouterr()
    assert out == diff and err == ""


def test_log_lines_are_escaped() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(PrintableFormatter("%(levelname)s %(message)s"))
    log = logging.getLogger("fixloop.test_screen")
    log.addHandler(handler)
    try:
        log.warning("refused %s", EVIL)
        try:
            raise ValueError(EVIL)
        except ValueError:
            log.exception("while reading %r", "x")
    finally:
        log.removeHandler(handler)
    text = stream.getvalue()
    assert [ch for ch in text if not (ch.isprintable() or ch == "\n")] == []
    assert text.startswith("WARNING refused a\\x1b[1A\\x1b[2Kb") and "ValueError: a\\x1b[1A" in text
