"""The real loop (real pytest on a scratch copy) with a real store: a bug like one memory has seen
is fixed by replaying that fix; without memory the wiring leaves the port empty."""

import dataclasses
from pathlib import Path

import pytest

from fixloop.application.config import MemorySettings, Settings
from fixloop.application.run import RunRequest
from fixloop.core.model import Status
from fixloop.application.session import FixSession
from fixloop.application.wiring import make_ports, make_runner, make_task
from fixloop.core.model import Scope

FIRST = {
    "shop/__init__.py": "",
    "shop/price.py": "BULK = 10\n\n\ndef line_total(unit: float, qty: int) -> float:\n    if qty > BULK:\n"
                     "        return round(unit * qty * 0.9, 2)\n    return round(unit * qty, 2)\n",
    "tests/test_price.py": "from shop.price import line_total\n\n\ndef test_bulk_from_ten():\n"
                           "    assert line_total(1.0, 10) == 9.0\n\n\ndef test_small():\n    assert line_total(2.0, 3) == 6.0\n",
}
SECOND = {
    "cinema/__init__.py": "",
    "cinema/fees.py": "SENIOR_AGE = 65\n\n\ndef ticket(base: float, age: int) -> float:\n    price = base + 0.0\n"
                      "    if age > SENIOR_AGE:\n        price = price / 2\n    return round(price, 2)\n",
    "tests/test_fees.py": "from cinema.fees import ticket\n\n\ndef test_senior_from_65():\n"
                          "    assert ticket(10.0, 65) == 5.0\n\n\ndef test_adult():\n    assert ticket(10.0, 30) == 10.0\n",
}


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _settings(memory_uri: str, enabled: bool = True) -> Settings:
    return dataclasses.replace(Settings(), offline=True, sandbox=dataclasses.replace(Settings().sandbox, backend="none"),
                               memory=MemorySettings(enabled=enabled, uri=memory_uri))


def _teach_first_fix(uri: str) -> None:
    """What a run on FIRST leaves in memory (bench/memory_learning.py runs that part for real)."""
    from fixloop.core.model import Attempt, FileChange, Frame, Outcome, Patch, TestReport
    from fixloop.core.model import TestResult as Result
    from fixloop.core.ports import ProposalContext
    from fixloop.adapters.graph.factory import make_memory

    memory = make_memory(MemorySettings(uri=uri), Path("/projects/first"))
    assert memory is not None
    nodeid = "tests/test_price.py::test_bulk_from_ten"
    report = TestReport(results=(Result(nodeid, "failed", 0.0, "AssertionError", "assert 10.0 == 9.0",
                                        (Frame("tests/test_price.py", 5, "test_bulk_from_ten"),)),))
    before = FIRST["shop/price.py"]
    fix = Patch((FileChange("shop/price.py", before, before.replace("qty > BULK", "qty >= BULK")),),
                "mutation", "comparison_swap", "shop/price.py:5: > -> >=")
    ctx = ProposalContext(sources=dict(FIRST), baseline=report, target_tests=(nodeid,))
    memory.record_attempt("first", Attempt(1, fix, "plausible"), ctx)
    memory.record_outcome(Outcome(Status.FIXED, "first", "fixed", fix, baseline=report, candidates_evaluated=1), ctx)


@pytest.mark.e2e  # a whole fix session
def test_the_second_similar_bug_is_fixed_from_memory(tmp_path: Path) -> None:
    uri = str(tmp_path / "memory")
    _teach_first_fix(uri)
    second = FixSession(RunRequest(_project(tmp_path / "second", SECOND), _settings(uri))).run()
    assert second.status is Status.FIXED and second.patch is not None
    assert second.patch.proposer == "memory" and second.candidates_evaluated == 1
    assert "if age >= SENIOR_AGE:" in second.patch.changes[0].after
    # The run taught the memory in turn: two fixed failures of this shape now.
    from fixloop.adapters.graph.factory import make_memory

    memory = make_memory(MemorySettings(uri=uri), tmp_path / "second")
    assert memory is not None and memory.store.count("fixes", "fault_shape = 'if ID > ID :'") == 2


def test_no_memory_means_no_port_and_no_replay(tmp_path: Path) -> None:
    project = _project(tmp_path / "p", SECOND)
    settings = _settings(str(tmp_path / "memory"), enabled=False)
    task = make_task(project, settings, Scope())
    runner = make_runner(task, settings)
    try:
        ports = make_ports(task, settings, runner, lambda: False, lambda: 0.0)
    finally:
        runner.close()
    assert ports.memory is None and [p.name for p in ports.proposers][0] != "memory"
    assert not (tmp_path / "memory").exists()
