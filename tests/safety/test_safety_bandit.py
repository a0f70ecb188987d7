"""bandit in process: real bandit, the private entry point guarded, findings mapped to ours."""

from __future__ import annotations

import importlib.metadata
import logging

import pytest

from fixloop.adapters.safety import bandit_scan
from fixloop.adapters.safety.bandit_scan import DANGEROUS, scan_text

SAMPLE = '''import os
import subprocess
import jsonpickle


def run(cmd, blob):
    os.system(cmd)
    subprocess.call(cmd, shell=True)
    eval(cmd)
    jsonpickle.decode(blob)
    return 1
'''


def by_code(findings):  # type: ignore[no-untyped-def]
    return {f.code: f for f in findings}


def test_pinned_bandit_still_has_the_private_entry_point() -> None:
    """The pin in pyproject (bandit>=1.9,<1.10) exists for this; if this fails, re-check the pin."""
    version = tuple(int(p) for p in importlib.metadata.version("bandit").split(".")[:2])
    assert (1, 9) <= version < (1, 10)
    assert bandit_scan.in_memory_supported()


def test_findings_are_mapped() -> None:
    found = by_code(scan_text(SAMPLE, "pkg/mod.py"))
    assert {"B605", "B602", "B307", "B301"} <= set(found)
    assert found["B605"].line == 7 and found["B605"].severity == "error"
    assert found["B602"].line == 8 and found["B602"].severity == "error"
    assert found["B301"].line == 10  # jsonpickle: something the tree-sitter rules do not cover
    assert found["B404"].severity == "info"  # import subprocess: LOW
    line = SAMPLE.splitlines()[6]
    f = found["B605"]
    assert line[f.column : f.end_column] == "os.system(cmd)"
    assert all(f.path == "pkg/mod.py" for f in found.values())
    assert "bandit severity" in f.message and "confidence" in f.message


def test_asserts_are_not_reported_by_default() -> None:
    assert scan_text("def test_x():\n    assert 1 == 1\n", "tests/test_x.py") == []
    assert [f.code for f in scan_text("assert x\n", "m.py", exclude=())] == ["B101"]


def test_public_fallback_gives_the_same_findings() -> None:
    data = SAMPLE.encode()
    memory = bandit_scan._issues_in_memory(data, "pkg/mod.py", False, bandit_scan.DEFAULT_EXCLUDE)
    via_file = bandit_scan._issues_via_file(data, "pkg/mod.py", False, bandit_scan.DEFAULT_EXCLUDE)
    as_tuple = lambda i: (i.test_id, i.lineno, i.col_offset, i.severity, i.confidence)  # noqa: E731
    assert [as_tuple(i) for i in memory] == [as_tuple(i) for i in via_file]
    assert len(memory) >= 5


def test_nosec_is_honoured_unless_ignored() -> None:
    text = "import os\nos.system(cmd)  # nosec\n"
    assert "B605" not in by_code(scan_text(text, "m.py"))
    assert "B605" in by_code(scan_text(text, "m.py", ignore_nosec=True))


@pytest.mark.parametrize("text", [
    "def broken(:\n    eval(x)\n",
    "s = '\udcff'\neval(s)\n",
    "",
    "\x00eval(x)\n",
])
def test_unparsable_input_gives_no_findings_and_no_crash(text: str) -> None:
    assert scan_text(text, "m.py") == []


def test_non_ascii_columns() -> None:
    text = "import os\nx = 'é✓'; os.system(c)\n"
    f = by_code(scan_text(text, "m.py"))["B605"]
    assert text.splitlines()[1][f.column : f.end_column] == "os.system(c)"


def test_module_name_warning_is_filtered(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        scan_text("x = 1\n", "/not/in/a/package.py")
    assert not [r for r in caplog.records if "qualified name" in r.getMessage()]


def test_dangerous_ids_are_real_bandit_tests() -> None:
    from bandit.core import extension_loader

    known = set(extension_loader.MANAGER.plugins_by_id) | {
        t["id"] for tests in extension_loader.MANAGER.blacklist.values() for t in tests
    }
    assert set(DANGEROUS) <= known
