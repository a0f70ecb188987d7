"""fixloop_options.select: which collected tests a run keeps, in the order the host asked for them."""

from __future__ import annotations

from dataclasses import dataclass

from fixloop.adapters.runner.cold import selection_args
from fixloop.adapters.runner.fixloop_options import OPTION, select, wanted


@dataclass
class Item:
    nodeid: str


def _ids(items: list[Item]) -> list[str]:
    return [i.nodeid for i in items]


ITEMS = [Item("t/a.py::test_1"), Item("t/a.py::K::test_2"), Item("t/a.py::K::test_3"),
         Item("t/a.py::test_p[10:01]"), Item("t/a.py::test_p[x]"), Item("t/b.py::test_4")]


def test_kept_in_the_order_asked_and_a_class_keeps_its_tests() -> None:
    kept, dropped = select(ITEMS, ["t/b.py::test_4", "t/a.py::K", "t/a.py::test_1"])
    assert _ids(kept) == ["t/b.py::test_4", "t/a.py::K::test_2", "t/a.py::K::test_3", "t/a.py::test_1"]
    assert _ids(dropped) == ["t/a.py::test_p[10:01]", "t/a.py::test_p[x]"]


def test_a_parameter_id_of_another_run_keeps_its_functions_tests_not_named() -> None:
    kept, _ = select(ITEMS, ["t/a.py::test_p[09:59]", "t/a.py::test_p[x]"])
    assert _ids(kept) == ["t/a.py::test_p[10:01]", "t/a.py::test_p[x]"]
    kept, _ = select(ITEMS, ["t/a.py::test_gone", "t/a.py::test_1"])
    assert _ids(kept) == ["t/a.py::test_1"]  # a test that is gone is simply not run


def test_the_option_and_the_arguments_the_host_builds() -> None:
    args = selection_args(["t/a.py::test_1", "t/b.py::test_4", "t/a.py::K::test_2"])
    assert args[1:] == ["t/a.py", "t/b.py"] and args[0].startswith(OPTION + "=")
    assert wanted(args[0].split("=", 1)[1]) == ["t/a.py::test_1", "t/b.py::test_4", "t/a.py::K::test_2"]
    assert selection_args(["tests/", "t/a.py::test_1"]) == ["tests/", "t/a.py::test_1"]  # paths as they are
    assert selection_args([]) == [] and wanted("") is None and wanted("{") is None
