"""bandit, in process, on a text that may exist only in an editor buffer or a candidate patch.

bandit has no public "scan this string" call. `BanditManager._parse_file(name, fileobj, files)` is
what its own `run_tests` calls per file, so we call it with a BytesIO: 2-3 ms on a small file
instead of ~240 ms for a `bandit` process. It is private API, hence the pin (bandit>=1.9,<1.10) and
a test that checks it; if it ever goes away or changes shape, the same scan runs through a
temporary file and the public `discover_files` + `run_tests`. bandit is imported on first use
(~0.2 s) so nothing pays for it at start-up.
"""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import io
import logging
import os
import tempfile
import threading
import warnings
from typing import Any

from fixloop.core.model import Finding

# bandit ids for what a repair candidate must never introduce: same list as the rules' errors.
DANGEROUS = {
    "B102": "exec",
    "B307": "eval",
    "B301": "pickle and friends",
    "B302": "marshal",
    "B602": "subprocess with shell=True",
    "B605": "a process started through a shell",
}
SEVERITY = {"HIGH": "warning", "MEDIUM": "warning", "LOW": "info"}
DEFAULT_EXCLUDE = ("B101",)  # assert: every pytest test is full of them

_lock = threading.Lock()
_config: Any = None


class _QuietModuleName(logging.Filter):
    """bandit warns that a buffer has no module name inside a package tree; that is expected here."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Unable to find qualified name for module")


class _QuietFormatters(logging.Filter):
    """bandit loads its report formatters too; one whose optional package is missing (sarif) is no loss
    here, since fixloop reads findings, never reports, and its error must not reach the user's terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not message.startswith("Could not load '"):
            return True
        try:
            formatters = {e.name for e in importlib.metadata.entry_points(group="bandit.formatters")}
        except Exception:  # noqa: BLE001 - broken metadata: keep the message
            return True
        return message.split("'")[1] not in formatters


_QUIET = _QuietFormatters()  # one instance: adding it again is a no-op


def _bandit() -> tuple[Any, Any]:
    global _config
    logging.getLogger("stevedore.extension").addFilter(_QUIET)  # bandit loads its plugins as it is imported
    with warnings.catch_warnings():  # stevedore's deprecation of an argument bandit still passes
        warnings.filterwarnings("ignore", "The verify_requirements argument", DeprecationWarning)
        from bandit.core import config, manager  # noqa: PLC0415 - lazy: ~0.2 s

    with _lock:
        if _config is None:
            logging.getLogger("bandit.core.node_visitor").addFilter(_QuietModuleName())
            _config = config.BanditConfig()
    return manager, _config


@functools.lru_cache(maxsize=1)
def in_memory_supported() -> bool:
    """Whether the private in-memory entry point still has the shape we call."""
    manager, _ = _bandit()
    parse = getattr(manager.BanditManager, "_parse_file", None)
    if parse is None:
        return False
    try:
        params = list(inspect.signature(parse).parameters)
    except (TypeError, ValueError):
        return False
    return params[:4] == ["self", "fname", "fdata", "new_files_list"]


def scan_text(text: str, path: str, *, ignore_nosec: bool = False,
              exclude: tuple[str, ...] = DEFAULT_EXCLUDE) -> list[Finding]:
    """bandit's findings for `text` as if it were the file `path`. A text bandit cannot parse
    (a syntax error, undecodable bytes) gives no findings; nothing here raises on bad input."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return []  # lone surrogates (undecodable bytes): bandit would skip it as a syntax error anyway
    issues = _issues_in_memory(data, path, ignore_nosec, exclude) if in_memory_supported() \
        else _issues_via_file(data, path, ignore_nosec, exclude)
    lines = data.split(b"\n")
    return [_finding(issue, path, lines) for issue in issues]


def _new_manager(ignore_nosec: bool, exclude: tuple[str, ...]) -> Any:
    manager, config = _bandit()
    return manager.BanditManager(config, "file", quiet=True, ignore_nosec=ignore_nosec,
                                 profile={"exclude": list(exclude)} if exclude else None)


def _issues_in_memory(data: bytes, path: str, ignore_nosec: bool, exclude: tuple[str, ...]) -> list[Any]:
    m = _new_manager(ignore_nosec, exclude)
    name = path or "<buffer>"
    m._parse_file(name, io.BytesIO(data), [name])
    return sorted(m.results, key=lambda i: (i.lineno, i.col_offset, i.test_id))


def _issues_via_file(data: bytes, path: str, ignore_nosec: bool, exclude: tuple[str, ...]) -> list[Any]:
    """The public route: write the text to a private temporary file and scan that."""
    m = _new_manager(ignore_nosec, exclude)
    fd, name = tempfile.mkstemp(prefix="fixloop-bandit-", suffix=".py")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        m.discover_files([name])
        m.run_tests()
        return sorted(m.results, key=lambda i: (i.lineno, i.col_offset, i.test_id))
    finally:
        os.unlink(name)


def _finding(issue: Any, path: str, lines: list[bytes]) -> Finding:
    test_id = str(getattr(issue, "test_id", "") or "B000")
    severity = "error" if test_id in DANGEROUS else SEVERITY.get(str(issue.severity).upper(), "warning")
    line = max(1, int(issue.lineno or 1))
    linerange = list(getattr(issue, "linerange", None) or [line])
    end_line = max(max(linerange), line)
    column = _char_column(lines, line, int(getattr(issue, "col_offset", 0) or 0))
    end_byte = getattr(issue, "end_col_offset", None)
    end_byte = int(end_byte) if isinstance(end_byte, int) else -1
    end_column = _char_column(lines, end_line, end_byte) if end_byte >= 0 else column
    if end_line == line and end_column < column:
        end_column = column  # bandit's end column can come from another node; keep the range sane
    message = f"{issue.text} ({getattr(issue, 'test', '') or test_id}; bandit severity {issue.severity}, " \
              f"confidence {issue.confidence})"
    return Finding(path, line, test_id, message, severity, column, end_line, end_column)


def _char_column(lines: list[bytes], line: int, byte_column: int) -> int:
    """ast columns count UTF-8 bytes; diagnostics count characters."""
    if not 1 <= line <= len(lines):
        return 0
    return len(lines[line - 1][:byte_column].decode("utf-8", "replace"))
