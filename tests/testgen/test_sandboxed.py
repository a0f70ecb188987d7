"""Recording in the real sandbox (bwrap or landlock, the project's interpreter) and a property test that finds
a planted bug. Nothing of the project runs on the host."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from fixloop.application.config import Settings
from fixloop.adapters.runner.prepare import prepare
from fixloop.adapters.sandbox.select import choose
from fixloop.application.testgen.harvest import Case
from fixloop.application.testgen.record import Recorder
from fixloop.application.testgen.service import generate
from fixloop.application.testgen.target import TestgenError, find
from tests.project_python import project_python

PYTHON_H = project_python(("pytest", "hypothesis"))  # a project interpreter that has Hypothesis
PYTHON_G = project_python(("pytest", "hypothesis", "black"))  # ... and the ghostwriter (it imports black)
SHOP = '''def discount(price: float) -> float:
    """The price after 10 % off. Never more than the price."""
    return price * 1.1


def fee(amount: int) -> int:
    """The fee; never negative."""
    if amount < 0:
        raise ValueError("no negative amounts")
    return amount // 10
'''
CODEC = '''import os
import time


def div(a: int, b: int) -> float:
    """>>> div(1, 0)"""
    return a / b


def crashy(n: int) -> int:
    if n == 0:
        os._exit(3)
    return n * 2


def crash(flag: bool) -> int:
    os._exit(4)


def slow(flag: bool) -> int:
    while True:
        pass


def now(x: int) -> float:
    return time.time() + x


def dumps(values: list[int]) -> str:
    return ",".join(str(v) for v in values)


def loads(text: str) -> list[int]:
    return [int(part) for part in text.split(",")]  # planted bug: "" (from []) does not load back
'''
FILES = {"pkg/__init__.py": "", "pkg/codec.py": CODEC, "pkg/shop.py": SHOP, "pkg/broken.py": "import no_such_module_here\n\ndef f(x: int) -> int:\n    return x\n",
         "tests/test_codec.py": "from pkg.codec import div\n\ndef test_div():\n    assert div(6, 3) == 2.0\n"}


@pytest.fixture
def project(make_project: Callable[..., Path]) -> Path:
    return make_project(FILES)


def settings() -> Settings:
    return Settings(python=PYTHON_H)


@pytest.mark.e2e  # several sandboxed runs
def test_records_values_and_exceptions_from_docstring_call_sites_and_hints(project: Path) -> None:
    made = generate(project, "pkg/codec.py::div", settings())
    assert made.path == "tests/test_codec_div_generated.py"
    assert "    with pytest.raises(ZeroDivisionError):\n        div(1, 0)\n" in made.text  # the docstring's call
    assert "    assert div(6, 3) == 2.0\n" in made.text  # the existing test's call
    assert "    assert div(1, 1) == 1.0\n" in made.text  # the hints
    assert all(t["status"] == "passed" for t in made.tests) and len(made.tests) >= 5
    assert not (project / made.path).exists()  # nothing written: the caller offers it for review


@pytest.mark.e2e
def test_a_crashing_call_is_recorded_and_the_others_still_run(project: Path) -> None:
    sandbox = choose(Settings().sandbox)
    prepared = prepare(project, sandbox, PYTHON_H)
    try:
        target = find(CODEC, "pkg/codec.py", "crashy", "pkg.codec", "")
        recording = Recorder(prepared, sandbox).record(target, [Case(("1",)), Case(("0",)), Case(("2",))])
    finally:
        prepared.scratch.close()
    assert [(r.kind, r.repr) for r in recording.results] == [("eq", "2"), ("crash", ""), ("eq", "4")]
    assert "exit status 3" in recording.results[1].message
    assert recording.has_hypothesis


@pytest.mark.e2e
@pytest.mark.parametrize("spec,message", [
    ("pkg/codec.py::slow", "slow(True): timed out"),
    ("pkg/codec.py::crash", "crash(True): crashed the interpreter"),
    ("pkg/codec.py::now", "now(0): gave different results"),
    ("pkg/broken.py::f", "pkg.broken does not import in the sandbox: ModuleNotFoundError"),
])
def test_functions_that_cannot_be_characterized_get_a_clear_message(project: Path, spec: str, message: str) -> None:
    with pytest.raises(TestgenError, match="nothing was written") as caught:
        generate(project, spec, settings())
    assert message in str(caught.value)
    assert sorted(p.name for p in (project / "tests").iterdir()) == ["test_codec.py"]


@pytest.mark.parametrize("spec,message", [
    ("pkg/codec.py::missing", "no function 'missing'"),
    ("../elsewhere.py::f", "outside the workspace"),
    ("pkg/none.py::f", "does not exist"),
])
def test_bad_targets_are_refused_before_anything_runs(project: Path, spec: str, message: str) -> None:
    with pytest.raises(TestgenError, match=message):
        generate(project, spec, settings())


@pytest.mark.e2e
def test_a_failing_round_trip_is_offered_as_a_suspected_bug_with_the_falsifying_example(project: Path) -> None:
    made = generate(project, "pkg/codec.py::dumps", settings())
    by_name = {t["name"]: t for t in made.tests}
    bug = by_name["test_loads_inverts_dumps"]
    assert bug["status"] == "suspected_bug" and bug["kind"] == "roundtrip"
    assert "value=[]" in bug["reason"] and "ValueError" in bug["reason"], bug
    assert "# fixloop: suspected bug: the current code fails this property:" in made.text
    assert all(t["status"] == "passed" for t in made.tests if t["kind"] == "characterization")
    assert any("Hypothesis's ghostwriter was not used: ModuleNotFoundError: No module named 'black'" in n
               for n in made.notes), made.notes


@pytest.mark.e2e
def test_the_ghostwriter_in_the_sandbox_is_preferred_and_its_failing_round_trip_is_a_suspected_bug(
        project: Path) -> None:
    made = generate(project, "pkg/codec.py::dumps", Settings(python=PYTHON_G))
    by_name = {t["name"]: t for t in made.tests}
    assert "test_loads_inverts_dumps" not in by_name  # the static round trip gives way to the ghostwriter's
    bug = by_name["test_roundtrip_dumps_loads"]
    assert bug["kind"] == "ghostwriter" and bug["status"] == "suspected_bug", bug
    assert "values=[]" in bug["reason"] and "ValueError" in bug["reason"], bug
    assert "import pkg.codec\n" in made.text and "derandomize=True" in made.text
    assert not any("ghostwriter" in n for n in made.notes), made.notes


@pytest.mark.e2e
def test_a_docstring_invariant_the_code_breaks_is_a_suspected_bug(project: Path) -> None:
    made = generate(project, "pkg/shop.py::discount", settings())
    bug = {t["name"]: t for t in made.tests}["test_discount_invariant_1"]
    assert bug["kind"] == "invariant" and bug["status"] == "suspected_bug", bug
    assert "discount(" in bug["reason"] and "returned" in bug["reason"], bug
    assert "for every input: discount(price) <= price" == bug["origin"]
    kept = generate(project, "pkg/shop.py::fee", settings())  # ValueError for negatives: not its input
    invariant = {t["name"]: t for t in kept.tests}["test_fee_invariant_1"]
    assert invariant["status"] == "passed", invariant
    assert "    except ValueError:" in kept.text


@pytest.mark.e2e
def test_without_hypothesis_only_characterization_tests_and_a_note(project: Path) -> None:
    from tests.conftest import PYTHON  # pytest only

    made = generate(project, "pkg/codec.py::dumps", Settings(python=PYTHON))
    assert {t["kind"] for t in made.tests} == {"characterization"}
    assert any("hypothesis is not installed" in n for n in made.notes)
    assert "hypothesis" not in made.text
