"""End to end: `fixloop fix --check ruff` (and `--check mypy`) on small projects, in the bwrap sandbox, with ruff from the project's
own interpreter: a finding's own fix offered, an undefined name fixed by the search its line leads, a fix that
breaks a test never offered, and a project without ruff told so while the run goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from fixloop.adapters.sandbox.select import probe
from tests.backends import unavailable
from tests.conftest import PYTHON, fixloop_env
from tests.project_python import project_python

pytestmark = pytest.mark.e2e

TESTS = ("from shop.cart import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n\n\n"
         "def test_discount():\n    assert total([10], 3) == 7\n")


def _fix(root: Path, tmp_path: Path, python: str, *more: str, memory: bool = False) -> tuple[int, dict[str, Any], str]:
    """One run; with `memory`, the store under `tmp_path` that every run of the test shares."""
    if probe("bwrap")[0] is None:
        unavailable("bwrap", probe("bwrap")[1])
    proc = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(root), "--check", "ruff", "--python", python,
                           "--sandbox", "bwrap", *([] if memory else ["--no-memory"]), "--offline", "--dry-run",
                           "--json", *more],
                          capture_output=True, text=True, timeout=300,
                          env=fixloop_env(XDG_DATA_HOME=str(tmp_path / "data"),
                                          FIXLOOP_CONFIG=str(tmp_path / "none.toml")))
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def _labels(make_project: Callable[..., Path], pyproject: str) -> Path:
    """A project whose `shelf_label` passes its arguments the wrong way round (a type error, no failing test)."""
    labels = ("def label(name: str, count: int) -> str:\n    return f'{count} x {name}'\n\n\n"
              "def shelf_label(item: str, stock: int) -> str:\n    return label(stock, item)\n")
    tests = "from shop.labels import label\n\n\ndef test_label():\n    assert label('pen', 3) == '3 x pen'\n"
    return make_project({"shop/__init__.py": "", "shop/labels.py": labels, "tests/test_labels.py": tests,
                         "pyproject.toml": pyproject})


def _events(summary: dict[str, Any]) -> list[dict[str, Any]]:
    lines = (Path(summary["run_dir"]) / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_an_unused_import_gets_ruffs_own_fix_and_the_tests_still_pass(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    cart = "import os\nimport sys\n\n\ndef total(prices, discount=0):\n    return sum(prices) - discount\n"
    root = make_project({"shop/__init__.py": "", "shop/cart.py": cart, "tests/test_cart.py": TESTS})
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "ruff")))
    assert code == 0, stderr
    assert summary["status"] == "fixed" and summary["files_changed"] == ["shop/cart.py"]
    assert "-import os\n-import sys\n" in summary["diff"]
    assert summary["failing_before"] == ["ruff::shop/cart.py::F401"]
    assert summary["source"] == "checker" and summary["candidates_evaluated"] == 1
    assert (root / "shop" / "cart.py").read_text() == cart  # --dry-run: the workspace as it was
    fixed = next(e for e in _events(summary) if e["kind"] == "tested" and e.get("status") == "plausible")
    runs = {r["selection"]: r for r in fixed["runs"]}
    assert runs["targets"]["tests"] == ["ruff::shop/cart.py::F401"]  # screened on its finding alone, no pytest
    assert runs["full"]["ran"] == 4  # the whole suite confirmed it, with the finding and the guard checked again


def test_an_undefined_name_is_fixed_by_the_search_its_line_leads_to(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    cart = ("def total(prices, discount=0):\n    subtotal = sum(prices)\n    if discount > subtotal:\n"
            "        raise ValueError(f'discount {discont} is more than {subtotal}')\n    return subtotal - discount\n")
    root = make_project({"shop/__init__.py": "", "shop/cart.py": cart, "tests/test_cart.py": TESTS})
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "ruff")))
    assert code == 0, stderr
    assert summary["status"] == "fixed"
    assert "+        raise ValueError(f'discount {discount} is more than {subtotal}')" in summary["diff"]
    localized = next(e for e in _events(summary) if e["kind"] == "localized")
    assert localized["suspects"][0] == "shop/cart.py:4"


def test_a_missing_import_is_added_from_the_project_module_that_defines_it(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    """ruff's F821 in code no test runs: the import the file lost, from the project's own module."""
    models = "class Receipt:\n    def __init__(self, total):\n        self.total = total\n"
    cart = ("def total(prices, discount=0):\n    return sum(prices) - discount\n\n\n"
            "def receipt(prices):\n    return Receipt(total(prices))\n")
    root = make_project({"src/shop/__init__.py": "", "src/shop/models.py": models, "src/shop/cart.py": cart,
                         "tests/test_cart.py": TESTS, "conftest.py": "import sys\nsys.path.insert(0, 'src')\n"})
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "ruff")))
    assert code == 0, stderr
    assert summary["status"] == "fixed" and summary["failing_before"] == ["ruff::src/shop/cart.py::F821"]
    # The name as written, imported (the blank lines its group needs below it), never `receipt` put in its place.
    diff = summary["diff"]
    assert "+from shop.models import Receipt\n+\n+\n def total" in diff
    assert not [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]


def test_with_check_files_only_those_files_findings_are_targets_and_no_file_gains_one(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    """The editor's "this file" (a diagnostic's code action, the command in a file): the other file's finding is
    left as it is, not fixed and not counted."""
    cart = "import os\n\n\ndef total(prices, discount=0):\n    return sum(prices) - discount\n"
    other = "import sys\n\n\ndef size(xs):\n    return len(xs)\n"
    root = make_project({"shop/__init__.py": "", "shop/cart.py": cart, "shop/other.py": other,
                         "tests/test_cart.py": TESTS})
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "ruff")), "--set",
                                 'check_files=["shop/cart.py"]')
    assert code == 0, stderr
    assert summary["status"] == "fixed" and summary["failing_before"] == ["ruff::shop/cart.py::F401"]
    assert summary["files_changed"] == ["shop/cart.py"]
    notes = [e["message"] for e in _events(summary) if e["kind"] == "note"]
    assert "ruff: 1 finding(s) of 1 rule(s) in 1 file(s) are targets; 1 in other files are left as they are " \
           "(none may be added)" in notes


def test_a_findings_fix_that_breaks_a_test_is_never_offered(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    cart = "import sys\n\n\ndef total(prices, discount=0):\n    return sum(prices) - discount\n"
    uses = TESTS + "\n\ndef test_reexport():\n    from shop.cart import sys as cart_sys\n    assert cart_sys.maxsize > 0\n"
    root = make_project({"shop/__init__.py": "", "shop/cart.py": cart, "tests/test_cart.py": uses})
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "ruff")), "--max-candidates", "3")
    assert code == 1, stderr
    assert summary["status"] != "fixed" and summary["files_changed"] == []
    tried = [e for e in _events(summary) if e["kind"] == "tested"]
    assert tried and tried[0]["status"] == "failed"  # ruff's own fix was tried first, and the test caught it


def test_a_project_without_ruff_is_told_and_the_run_goes_on(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    cart = "import os\n\n\ndef total(prices, discount=0):\n    return sum(prices) - discount\n"
    root = make_project({"shop/__init__.py": "", "shop/cart.py": cart, "tests/test_cart.py": TESTS})
    code, summary, stderr = _fix(root, tmp_path, PYTHON)
    assert code == 3, stderr  # nothing to fix: the tests pass, and the findings could not be read
    assert summary["status"] == "nothing_to_fix"
    notes = [e["message"] for e in _events(summary) if e["kind"] == "note"]
    assert any("ruff is not installed in the project's environment" in n and "goes on without it" in n for n in notes)


def test_a_mypy_error_is_fixed_by_the_search_and_the_tests_still_pass(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    labels = ("def label(name: str, count: int) -> str:\n    return f'{count} x {name}'\n\n\n"
              "def shelf_label(item: str, stock: int) -> str:\n    return label(stock, item)\n")
    tests = "from shop.labels import label\n\n\ndef test_label():\n    assert label('pen', 3) == '3 x pen'\n"
    root = make_project({"shop/__init__.py": "", "shop/labels.py": labels, "tests/test_labels.py": tests})
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "mypy")), "--check", "mypy")
    assert code == 0, stderr
    assert summary["status"] == "fixed" and summary["failing_before"] == ["mypy::shop/labels.py::arg-type"]
    assert "-    return label(stock, item)\n+    return label(item, stock)" in summary["diff"]
    notes = [e["message"] for e in _events(summary) if e["kind"] == "note"]
    assert "mypy: 2 finding(s) of 1 rule(s) in 1 file(s) are targets" in notes
    assert "ruff: no findings" in notes or any("ruff is not installed" in n for n in notes)



def test_a_mypy_errors_past_fix_is_replayed_on_the_same_mistake_in_another_project(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    """A finding is remembered like a failing test: its signature (rule, message shape, statement shape) finds
    the first project's fix, which is made again with the second project's names, at the first candidate."""
    python = project_python(("pytest", "mypy"))
    first = _labels(make_project, "")
    code, summary, stderr = _fix(first, tmp_path, python, "--check", "mypy", memory=True)
    assert code == 0 and summary["source"] == "search" and summary["candidates_evaluated"] > 1, stderr
    tickets = ("def seat_label(row: str, number: int) -> str:\n    return f'{row}{number}'\n\n\n"
               "def ticket_line(show: str, seat: int, row: str) -> str:\n    place = seat_label(seat, row)\n"
               "    return f'{show} at {place}'\n")
    tests = "from desk.tickets import seat_label\n\n\ndef test_seat():\n    assert seat_label('B', 12) == 'B12'\n"
    second = make_project({"desk/__init__.py": "", "desk/tickets.py": tickets, "tests/test_tickets.py": tests},
                          name="desk")
    code, summary, stderr = _fix(second, tmp_path, python, "--check", "mypy", memory=True)
    assert code == 0, stderr
    assert summary["status"] == "fixed" and summary["failing_before"] == ["mypy::desk/tickets.py::arg-type"]
    assert summary["source"] == "replay" and summary["candidates_evaluated"] == 1
    assert "-    place = seat_label(seat, row)\n+    place = seat_label(row, seat)\n" in summary["diff"]


def test_a_pyright_error_is_fixed_by_the_search_and_the_tests_still_pass(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    """pyright from the project's environment (its wheel carries pyright, run by the machine's node) in the sandbox,
    with the project's own configuration naming what it checks."""
    root = _labels(make_project, "[tool.pyright]\ninclude = ['shop']\n")
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "pyright")), "--check", "pyright")
    assert code == 0, stderr
    assert summary["status"] == "fixed", summary["message"]
    assert summary["failing_before"] == ["pyright::shop/labels.py::reportArgumentType"]
    assert "-    return label(stock, item)\n+    return label(item, stock)" in summary["diff"]
    notes = [e["message"] for e in _events(summary) if e["kind"] == "note"]
    assert "pyright: 2 finding(s) of 1 rule(s) in 1 file(s) are targets" in notes


def test_an_optional_read_without_narrowing_is_narrowed_keeping_what_the_code_does(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    """mypy's union-attr: the assert that narrows it (None failed before and still does), not a guard that
    makes None return something."""
    names = ("from typing import Optional\n\n\ndef shout(name: Optional[str]) -> str:\n    return name.upper() + '!'\n")
    tests = "from shop.names import shout\n\n\ndef test_shout():\n    assert shout('hi') == 'HI!'\n"
    root = make_project({"shop/__init__.py": "", "shop/names.py": names, "tests/test_names.py": tests})
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "mypy")), "--check", "mypy")
    assert code == 0, stderr
    assert summary["status"] == "fixed" and summary["failing_before"] == ["mypy::shop/names.py::union-attr"]
    assert summary["operator"] == "narrow_assert" and "+    assert name is not None\n" in summary["diff"]


def test_a_mypy_configuration_that_names_its_files_checks_every_candidate(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    """`[tool.mypy] files = ...`: mypy is run with no paths, for the baseline and for each candidate alike (a
    candidate not checked would clear every mypy target)."""
    root = _labels(make_project, "[tool.mypy]\nfiles = ['shop']\n")
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "mypy")), "--check", "mypy")
    assert code == 0, stderr
    assert summary["status"] == "fixed" and summary["failing_before"] == ["mypy::shop/labels.py::arg-type"]
    assert "+    return label(item, stock)" in summary["diff"], summary["diff"]


def test_a_ruff_finding_a_mypy_error_and_a_failing_test_are_fixed_in_one_run(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    """Three faults, each fixed by its own edit: each fix of some targets becomes the base the search goes on
    from, and the three are offered as one change."""
    cart = ("import os\n\n\ndef label(name: str, count: int) -> str:\n    return f'{count} x {name}'\n\n\n"
            "def shelf_label(item: str, stock: int) -> str:\n    return label(stock, item)\n\n\n"
            "def total(prices: list[int], discount: int = 0) -> int:\n    return sum(prices) + discount\n")
    tests = ("from shop.cart import label, total\n\n\ndef test_label():\n    assert label('pen', 3) == '3 x pen'\n\n\n"
             "def test_total():\n    assert total([10], 3) == 7\n")
    root = make_project({"shop/__init__.py": "", "shop/cart.py": cart, "tests/test_cart.py": tests})
    # Two cores shared with other tests: more search time than the default, which sufficed on a quiet machine.
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "ruff", "mypy")), "--check", "mypy",
                                 "--set", "search_factor=20")
    assert code == 0, stderr
    assert summary["status"] == "fixed" and summary["still_failing"] == [], summary["message"]
    assert sorted(summary["failing_before"]) == ["mypy::shop/cart.py::arg-type", "ruff::shop/cart.py::F401",
                                                 "tests/test_cart.py::test_total"]
    diff = summary["diff"]
    assert "-import os\n" in diff and "+    return label(item, stock)" in diff and "+    return sum(prices) - discount" in diff
    events = _events(summary)
    notes = [e["message"] for e in events if e["kind"] == "note"]
    assert sum(n.startswith("building on candidate") for n in notes) >= 1
    # ruff's own fix comes first and is kept, though the failing test imports the module whose import it removes:
    # a fix made for findings is not judged on a test that fails for another fault.
    first = next(e for e in events if e["kind"] == "tested")
    assert first["candidate"] == 1 and first["proposer"] == "checker"
    assert next(n for n in notes if n.startswith("building on candidate")).startswith("building on candidate 1,")


def test_a_checker_that_cannot_check_the_project_is_told_and_the_run_goes_on(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    """The project's own configuration breaks ruff (an unknown setting): its message, then the tests alone."""
    cart = "def total(prices, discount=0):\n    return sum(prices) + discount\n"
    tests = "from shop.cart import total\n\n\ndef test_discount():\n    assert total([10], 3) == 7\n"
    root = make_project({"shop/__init__.py": "", "shop/cart.py": cart, "tests/test_cart.py": tests,
                         "pyproject.toml": "[tool.ruff]\nselectt = ['F']\n"})
    code, summary, stderr = _fix(root, tmp_path, project_python(("pytest", "ruff")))
    assert code == 0, stderr
    assert summary["status"] == "fixed" and summary["failing_before"] == ["tests/test_cart.py::test_discount"]
    notes = [e["message"] for e in _events(summary) if e["kind"] == "note"]
    said = next(n for n in notes if n.startswith("--check ruff: ruff could not check the project"))
    assert "selectt" in said and "the run goes on without it" in said
