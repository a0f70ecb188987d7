"""What the user's terminal receives from a hostile project, under a real pseudo-terminal.

The project's file names, code, test ids, failure messages, `[tool.fixloop]` keys and a committed run log carry
CSI cursor movements and erase sequences (the issue's spoof: a comment after the changed line moves the cursor
up, erases the real change and prints a fake `-`/`+` pair), OSC 52 clipboard writes (ESC- and BEL-terminated),
OSC 0 window titles, C1 controls and bidirectional overrides. `fixloop fix` (progress, diff, errors), `fix` on a
project whose collection fails, `history`, `show`, `report RUN_DIR` and `doctor` run under a pty with styling off
(`NO_COLOR`, `TERM=dumb`): nothing but printable characters, line breaks and tabs may reach the screen, and what
the payloads said shows up escaped. A live display (`TERM=xterm`) may move its own status line, never anything
of the project's.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
import unicodedata
from pathlib import Path
from typing import Sequence

from tests.conftest import PYTHON

from .harness import Host, as_user, nobody_python, user_env

ESC = "\x1b"
OSC52_ST = ESC + "]52;c;cHduZWQ=" + ESC + "\\"  # clipboard write, ESC-terminated (ST)
OSC52_BEL = ESC + "]52;c;cHduZWQ=\x07"  # the same, BEL-terminated
TITLE = ESC + "]0;PWNED\x07"
SPOOF = ESC + "[5A" + ESC + "[0K"  # cursor up five lines, erase the line
CLEAR = ESC + "[2J" + ESC + "[H"
C1 = "\x9b31m\x85"  # CSI as one C1 byte, NEL
BIDI = "\u202e\u2066"
PAYLOADS = (OSC52_ST, OSC52_BEL, TITLE, SPOOF, CLEAR, C1, BIDI)

MODULE = "calc" + TITLE + ".py"  # the buggy file's own name
BUGGY = (
    "def inc(x):\n"
    "    return x - 1\n"
    f"# {SPOOF}-    return x - 1  FAKE\n"
    f"# {SPOOF}+    return x + 1  FAKE {C1}{BIDI}\n"
)
TEST = (
    "import importlib.util\nimport pathlib\n\nimport pytest\n\n"
    f"_spec = importlib.util.spec_from_file_location('calc', pathlib.Path(__file__).parent.parent / {MODULE!r})\n"
    "calc = importlib.util.module_from_spec(_spec)\n_spec.loader.exec_module(calc)\n\n\n"
    f"@pytest.mark.parametrize('n', [1], ids=[{OSC52_ST + CLEAR!r}])\n"
    "def test_inc(n):\n"
    f"    assert calc.inc(n) == n + 1, {TITLE + OSC52_BEL + BIDI!r}\n"
)
PYPROJECT = (
    "[tool.pytest.ini_options]\n"
    "disable_test_id_escaping_and_forfeit_all_rights_to_community_support = true\n\n"
    "[tool.fixloop]\n"
    f"{json.dumps('unknown' + OSC52_ST + C1)} = 1\n"
)
BROKEN_CONFTEST = f"raise RuntimeError({OSC52_BEL + SPOOF + BIDI + C1!r})\n"
RUN_ID = "20260101-000000-aaaaaa"


def committed_run(project: Path) -> Path:
    """A run log the repository ships: every string field and the diff carry the payloads, and its summary.json
    holds them raw (not even JSON then: the history reads the events instead, `report RUN_DIR` the bytes)."""
    run = project / ".fixloop" / "runs" / RUN_ID
    run.mkdir(parents=True)
    payload = "".join(PAYLOADS)
    summary = {"run_id": RUN_ID, "status": "fixed", "message": "fixed " + payload, "proposer": "offline" + TITLE,
               "operator": "swap" + OSC52_ST, "target": "tests/t.py::x" + CLEAR, "error_class": "AssertionError" + C1,
               "started": 1767225600.0, "wall_seconds": 1.0, "candidates_evaluated": 1, "diff": payload,
               "unsafe_rules": {"FL-S001" + OSC52_BEL: 1}, "decision": "accepted" + SPOOF}
    raw = json.dumps(summary, ensure_ascii=False).replace("\\u001b", ESC).replace("\\u0007", "\x07")
    (run / "summary.json").write_text(raw, encoding="utf-8")
    events = [{"kind": "started", "phase": "start", "t": 0.0, "message": payload},
              {"kind": "note", "phase": "search", "t": 0.5, "message": payload}]
    (run / "events.jsonl").write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events))
    (run / "fix.diff").write_text(f"--- a/{MODULE}\n+++ b/{MODULE}\n@@ -1 +1 @@\n-x {payload}\n+y {SPOOF}\n")
    return run


def on_screen(host: Host, argv: Sequence[str], backend: str = "none", term: str = "dumb",
              timeout: float = 300) -> bytes:
    """Everything `fixloop argv` writes to a pseudo-terminal (stdin, stdout and stderr all on it), as the host's
    user in the environment `backend` needs (the private engine's address and socket group for docker)."""
    interpreter = sys.executable if host.user == "root" else nobody_python()
    command = as_user(host, backend, [interpreter, "-m", "fixloop", *argv])
    env = {**user_env(host, backend), "TERM": term, "NO_COLOR": "1", "COLUMNS": "120", "LINES": "40"}
    host.give_away()
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, cwd=host.top, env=env,
                                start_new_session=True)
    finally:
        os.close(slave)
    screen = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:  # EIO: every writer closed the terminal
                    break
                if not chunk:
                    break
                screen += chunk
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return bytes(screen)


def unprintable(screen: bytes) -> list[str]:
    """Every character on the screen that is neither printable nor a line break or tab, with its context."""
    text = screen.decode("utf-8", "replace")
    return [f"{ch!r} in {text[max(0, i - 30):i + 30]!r}" for i, ch in enumerate(text)
            if ch not in "\r\n\t" and (not ch.isprintable() or unicodedata.category(ch) in ("Cf", "Zl", "Zp"))]


def _project(host: Host) -> None:
    host.write(MODULE, BUGGY)
    host.write("tests/test_calc.py", TEST)
    host.write("pyproject.toml", PYPROJECT)
    committed_run(host.project)


def _run_logs(project: Path) -> dict[str, str]:
    """What a run of `project` recorded, to say why its screen was not the one expected."""
    return {str(p.relative_to(project)): p.read_text(errors="replace")[-3000:]
            for p in sorted((project / ".fixloop" / "runs").glob("*/*")) if p.is_file()}


def _python(host: Host) -> str:
    return PYTHON if host.user == "root" else nobody_python()


def test_nothing_of_the_project_moves_the_cursor_or_writes_the_clipboard(host: Host, backend: str) -> None:
    _project(host)
    broken = host.project.parent / "broken"
    (broken / "tests").mkdir(parents=True)
    (broken / "conftest.py").write_text(BROKEN_CONFTEST)
    (broken / "tests" / "test_x.py").write_text("def test_x():\n    assert True\n")
    host.snapshot()
    common = ["--offline", "--no-memory", "--sandbox", backend, "--python", _python(host)]
    screens = {
        "fix": on_screen(host, ["fix", str(host.project), "--dry-run", *common], backend),
        "fix-error": on_screen(host, ["fix", str(broken), "--dry-run", *common], backend),
        "history": on_screen(host, ["history", str(host.project)]),
        "show": on_screen(host, ["show", RUN_ID, str(host.project)]),
        "report": on_screen(host, ["report", str(host.project / ".fixloop" / "runs" / RUN_ID)]),
        "doctor": on_screen(host, ["doctor", str(host.project), "--sandbox", backend], backend),
    }
    fixed = screens["fix"].decode("utf-8", "replace")
    assert "fixed" in fixed and "+    return x + 1" in fixed, fixed  # the run worked: there was a diff to show
    assert "\\x1b[5A\\x1b[0K-    return x - 1  FAKE" in fixed  # the spoof is on screen as text
    assert "the change holds characters shown here as escapes" in fixed, fixed
    assert "\\x1b]0;PWNED\\x07" in fixed  # the file name, escaped
    error = screens["fix-error"].decode("utf-8", "replace")
    assert "\\x1b]52;c;cHduZWQ=\\x07" in error, (error, _run_logs(broken))
    assert "\\x1b]52;c;cHduZWQ=\\x1b\\\\" in screens["show"].decode("utf-8", "replace")
    for name, screen in screens.items():
        assert unprintable(screen) == [], (name, unprintable(screen)[:5])
    assert host.evidence() == []


def test_a_live_status_line_moves_only_itself(host: Host, backend: str) -> None:
    _project(host)
    screen = on_screen(host, ["fix", str(host.project), "--dry-run", "--offline", "--no-memory", "--sandbox",
                              backend, "--python", _python(host)], backend, term="xterm-256color")
    text = screen.decode("utf-8", "replace")
    assert "+    return x + 1" in text, text
    raw = [p for p in PAYLOADS if p in text] + [s for s in (ESC + "]", ESC + "[5A", ESC + "[0K", ESC + "[2J", "\x07",
                                                            "\x9b", "\u202e") if s in text]
    assert raw == [], raw
