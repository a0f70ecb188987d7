"""The real loop (real pytest on scratch copies) with a real store: the second similar bug is fixed
by replaying the first one's fix; without memory the wiring leaves the port empty."""

import dataclasses
from pathlib import Path

from fixloop.config import MemorySettings, Settings
from fixloop.core.model import Status
from fixloop.session import FixSession
from fixloop.wiring import make_ports, make_runner, make_task
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


def test_the_second_similar_bug_is_fixed_from_memory(tmp_path: Path) -> None:
    uri = str(tmp_path / "memory")
    first = FixSession(_project(tmp_path / "first", FIRST), _settings(uri)).run()
    assert first.status is Status.FIXED and first.patch is not None and first.patch.proposer == "mutation"
    second = FixSession(_project(tmp_path / "second", SECOND), _settings(uri)).run()
    assert second.status is Status.FIXED and second.patch is not None
    assert second.patch.proposer == "memory" and second.candidates_evaluated == 1
    assert "if age >= SENIOR_AGE:" in second.patch.changes[0].after
    assert second.candidates_evaluated < first.candidates_evaluated


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
