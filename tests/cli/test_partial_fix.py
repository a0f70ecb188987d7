"""End to end: a project with a bug and, beside it, a test that fails on this machine whatever the code does
(as real suites have: a missing data folder, a locale, a library version). `fixloop fix` fixes the bug,
says which test still fails and why, and never offers a change for the machine's test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixloop.adapters.sandbox.select import probe
from tests.backends import unavailable
from tests.conftest import PYTHON, fixloop_env

pytestmark = pytest.mark.e2e

PROJECT = {
    "shop/__init__.py": "",
    "shop/prices.py": ("def total(prices, discount):\n    net = sum(prices) - discount\n"
                       "    return max(net, 1)\n"),  # the bug: a total is never below 0, not 1
    "shop/storage.py": ("from pathlib import Path\n\n\ndef data_folder():\n"
                        "    return Path('/srv/shop-data-not-on-this-machine')\n"),
    "tests/test_prices.py": ("from shop.prices import total\n\n\ndef test_total():\n    assert total([2, 3], 1) == 4\n\n\n"
                             "def test_no_negative_total():\n    assert total([1], 5) == 0\n"),
    "tests/test_storage.py": ("from shop.storage import data_folder\n\n\ndef test_data_folder_exists():\n"
                              "    assert data_folder().is_dir()\n"),
}


def test_a_test_that_fails_apart_from_the_bug_does_not_block_its_fix(make_project, tmp_path: Path) -> None:
    if probe("bwrap")[0] is None:
        unavailable("bwrap", probe("bwrap")[1])
    root = make_project(PROJECT)
    proc = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(root), "--python", PYTHON, "--sandbox", "bwrap",
                           "--no-memory", "--offline", "--dry-run", "--json"],
                          capture_output=True, text=True, timeout=300,
                          env=fixloop_env(XDG_DATA_HOME=str(tmp_path / "data"),
                                          FIXLOOP_CONFIG=str(tmp_path / "none.toml")))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["status"] == "fixed", summary["message"]
    assert summary["files_changed"] == ["shop/prices.py"]
    assert "-    return max(net, 1)\n+    return max(net, 0)" in summary["diff"]
    machine = "tests/test_storage.py::test_data_folder_exists"
    assert summary["still_failing"] == [machine]
    assert "fixes 1 of the 2 failing tests" in summary["message"] and machine in summary["message"]
    assert sorted(summary["failing_before"]) == ["tests/test_prices.py::test_no_negative_total", machine]
    assert (root / "shop/prices.py").read_text().endswith("max(net, 1)\n")  # a dry run writes nothing


LOCALE_CONFTEST = ("import locale\n\nimport pytest\n\n\n@pytest.fixture\ndef german():\n"
                   "    locale.setlocale(locale.LC_ALL, 'xx_XX.NOT-ON-THIS-MACHINE')\n    yield\n")
LOCALE_TESTS = "".join(f"\n\ndef test_grouped_{n}(german):\n    assert True\n" for n in range(3))


def _fix_json(root: Path, tmp_path: Path) -> tuple[dict, str]:
    proc = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(root), "--python", PYTHON, "--sandbox", "bwrap",
                           "--no-memory", "--offline", "--dry-run", "--json"],
                          capture_output=True, text=True, timeout=300,
                          env=fixloop_env(XDG_DATA_HOME=str(tmp_path / "data"),
                                          FIXLOOP_CONFIG=str(tmp_path / "none.toml")))
    return json.loads(proc.stdout), proc.stderr


def test_tests_whose_set_up_fails_before_the_code_runs_are_set_apart_not_targets(make_project, tmp_path: Path) -> None:
    """A fixture that needs a locale the machine lacks errors in three tests' set-up: no change to the code can
    fix them, and a candidate screened on them would fail whatever it is. The bug beside them is fixed."""
    if probe("bwrap")[0] is None:
        unavailable("bwrap", probe("bwrap")[1])
    root = make_project({**{k: v for k, v in PROJECT.items() if "storage" not in k},
                         "tests/conftest.py": LOCALE_CONFTEST, "tests/test_locale.py": LOCALE_TESTS})
    summary, stderr = _fix_json(root, tmp_path)
    assert summary["status"] == "fixed", summary["message"]
    assert "-    return max(net, 1)\n+    return max(net, 0)" in summary["diff"]
    assert summary["candidates_evaluated"] <= 3, summary["candidates_evaluated"]
    assert "3 failing test(s) error in their set-up before any of the project's code runs" in stderr
    assert "tests/conftest.py:german: Error: unsupported locale setting" in stderr
    assert len(summary["failing_before"]) == 4


def test_when_only_set_ups_fail_the_run_says_the_code_has_nothing_to_fix(make_project, tmp_path: Path) -> None:
    if probe("bwrap")[0] is None:
        unavailable("bwrap", probe("bwrap")[1])
    prices = PROJECT["shop/prices.py"].replace("max(net, 1)", "max(net, 0)")
    root = make_project({**{k: v for k, v in PROJECT.items() if "storage" not in k}, "shop/prices.py": prices,
                         "tests/conftest.py": LOCALE_CONFTEST, "tests/test_locale.py": LOCALE_TESTS})
    summary, _ = _fix_json(root, tmp_path)
    assert summary["status"] == "nothing_to_fix", summary["message"]
    assert "nothing the code can fix fails (fix the set-up, then run again)" in summary["message"]
    assert summary["candidates_evaluated"] == 0
