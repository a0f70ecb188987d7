"""A mined template transfers: real fix runs in two projects teach a real LanceDB store, the template mined
from them is approved, and a third project's bug of the same class is fixed by it as the first candidate
(real pytest in the real sandbox)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fixloop.application.config import MemorySettings, Settings
from fixloop.application.run import RunRequest
from fixloop.core.model import Status
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore
from fixloop.adapters.mined.mine import mine
from fixloop.adapters.mined.registry import approved, decide
from fixloop.adapters.sandbox.select import probe
from fixloop.application.session import FixSession
from tests.backends import unavailable
from tests.conftest import PYTHON

SHOP = {
    "shop/__init__.py": "",
    "shop/price.py": "BULK = 10\n\n\ndef line_total(unit: float, qty: int) -> float:\n    if qty > BULK:\n"
                     "        return round(unit * qty * 0.9, 2)\n    return round(unit * qty, 2)\n",
    "tests/test_price.py": "from shop.price import line_total\n\n\ndef test_bulk_from_ten():\n"
                           "    assert line_total(1.0, 10) == 9.0\n\n\ndef test_small():\n    assert line_total(2.0, 3) == 6.0\n",
}
CINEMA = {
    "cinema/__init__.py": "",
    "cinema/fees.py": "SENIOR_AGE = 65\n\n\ndef ticket(base: float, age: int) -> float:\n    price = base + 0.0\n"
                      "    if age > SENIOR_AGE:\n        price = price / 2\n    return round(price, 2)\n",
    "tests/test_fees.py": "from cinema.fees import ticket\n\n\ndef test_senior_from_65():\n"
                          "    assert ticket(10.0, 65) == 5.0\n\n\ndef test_adult():\n    assert ticket(10.0, 30) == 10.0\n",
}
# Another project, other names, another message (a bool, not a number), the same slip.
LIBRARY = {
    "library/__init__.py": "",
    "library/loans.py": "MAX_LOANS = 3\n\n\ndef may_borrow(loans: int, banned: bool = False) -> bool:\n"
                        "    if banned:\n        return False\n    if loans > MAX_LOANS:\n        return False\n"
                        "    return True\n",
    "tests/test_loans.py": "from library.loans import may_borrow\n\n\ndef test_at_the_limit():\n"
                           "    assert may_borrow(3) is False\n\n\ndef test_below():\n    assert may_borrow(1) is True\n\n\n"
                           "def test_banned():\n    assert may_borrow(0, banned=True) is False\n",
}


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.e2e  # three sandboxed fix runs
def test_a_template_mined_in_two_projects_fixes_a_third_first(tmp_path: Path) -> None:
    sandbox, why = probe("bwrap")
    if sandbox is None:
        sandbox, why = probe("landlock")
    if sandbox is None:
        unavailable("landlock", f"nor bwrap: {why}")
    uri = str(tmp_path / "memory")
    settings = dataclasses.replace(Settings(), offline=True, python=PYTHON,
                                   sandbox=dataclasses.replace(Settings().sandbox, backend=sandbox.name),
                                   memory=MemorySettings(uri=uri))
    for name, files, fixed in (("shop", SHOP, "if qty >= BULK:"), ("cinema", CINEMA, "if age >= SENIOR_AGE:")):
        outcome = FixSession(RunRequest(_project(tmp_path / name, files), settings)).run()
        assert outcome.status is Status.FIXED and outcome.patch is not None, outcome.message
        assert fixed in outcome.patch.changes[0].after

    store = MemoryStore(uri, HashingEmbedder()).open()
    [template] = mine(store)
    assert (template.before_shape, template.after_shape) == ("ID1 <|> CONST1", "ID1 <=|>= CONST1")
    assert template.projects == 2
    decide(store, template.id, "approved", "test")

    third = FixSession(RunRequest(_project(tmp_path / "library", LIBRARY), settings))
    outcome = third.run()
    assert outcome.status is Status.FIXED and outcome.patch is not None, outcome.message
    assert outcome.patch.proposer == "template" and outcome.patch.operator == template.operator
    assert outcome.attempts[0].patch.proposer == "template" and outcome.candidates_evaluated == 1
    assert "if loans >= MAX_LOANS:" in outcome.patch.changes[0].after
    # The run's success is the template's record now (read from what the run wrote).
    [served] = approved(MemoryStore(uri, HashingEmbedder()).open())
    assert (served.record.tries, served.record.successes, served.record.demoted) == (1, 1, False)
