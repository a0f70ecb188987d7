"""A team's memory on a real S3-compatible server (moto): a template mined from fixes two machines shared,
approved on one machine, is approved on the other (templates are the team's, not a project's)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import pytest

from fixloop.adapters.memory.shared import SharedStore
from fixloop.adapters.mined.mine import mine
from fixloop.adapters.mined.registry import approved, decide
from tests.memory.conftest import s3_server, shared_uri  # noqa: F401  (the shared server's fixtures)
from tests.memory.shared_helpers import machine

from .helpers import CINEMA, SHOP, teach

pytestmark = pytest.mark.e2e  # talks to a server process


def _eventually(store: SharedStore, done: Callable[[], bool], seconds: float = 15) -> None:
    """Sync until `done()`: a handle on the shared store sees another machine's commits within the
    read-consistency interval (1 s), so one sync right after theirs may not."""
    deadline = time.monotonic() + seconds
    store.sync()
    while not done() and time.monotonic() < deadline:
        time.sleep(0.5)
        store.sync()


def test_a_template_approved_on_one_machine_is_approved_on_the_other(shared_uri: str, tmp_path: Path) -> None:
    a = machine(shared_uri, tmp_path / "a").open()
    teach(a, "/home/alice/src/shop", "shop/price.py", SHOP, SHOP.replace("qty > BULK", "qty >= BULK"), "run-a")
    b = machine(shared_uri, tmp_path / "b").open()  # opening pulls what the team wrote
    teach(b, "/home/bob/cinema", "cinema/fees.py", CINEMA, CINEMA.replace("age > SENIOR_AGE", "age >= SENIOR_AGE"),
          "run-b")
    _eventually(a, lambda: len(mine(a)) == 1)
    [template] = mine(a)  # mined from both machines' fixes
    assert {e.project for e in template.examples} == {"shop", "cinema"}
    decide(a, template.id, "approved", "cli")
    assert a.outbox.pending() == 0  # the decision went out at once
    _eventually(b, lambda: bool(approved(b)))
    [served] = approved(b)
    assert served.id == template.id and served.status == "approved"
    assert b.count("mined_templates") == 1
