"""bandit's own plugin loading never reaches the user's terminal."""

from __future__ import annotations

import subprocess
import sys


def test_a_report_formatter_bandit_cannot_load_is_not_printed() -> None:
    # A fresh interpreter logging to stderr as the CLI does: the sarif formatter's
    # optional package is missing in most installs, and stevedore logs that at ERROR.
    code = ("import logging, sys\n"
            "from fixloop.kit.printable import log_to\n"
            "log_to(sys.stderr, logging.WARNING, '%(message)s')\n"
            "from fixloop.adapters.safety import bandit_scan\n"
            "print(len(bandit_scan.scan_text('import os\\nos.system(\"x\")\\n', 'a.py')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and int(done.stdout) > 0, done.stderr
    assert "Could not load" not in done.stderr, done.stderr
