"""fixloop_options.select: which collected tests a run keeps, in the order the host asked for them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fixloop.adapters.runner import cold
from fixloop.adapters.runner.cold import selection_args
from fixloop.adapters.runner.fixloop_options import OPTION, SELECT_FILE, select, wanted


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
    assert (cold.OPTION, cold.SELECT_FILE) == (OPTION, SELECT_FILE)  # the host's names are the plugin's
    ids = ["t/a.py::test_1", "t/b.py::test_4", "t/a.py::K::test_2"]
    args, listed = selection_args(ids)
    assert listed is None and args[1:] == ["t/a.py", "t/b.py"] and args[0].startswith(OPTION + "=")
    assert wanted(args[0].split("=", 1)[1]) == ids
    assert selection_args(["tests/", "t/a.py::test_1"]) == (["tests/", "t/a.py::test_1"], None)  # paths as they are
    assert selection_args([]) == ([], None) and wanted("") is None and wanted("{") is None


def test_a_list_too_long_for_an_argument_is_a_file(tmp_path: Path) -> None:
    ids = [f"t/a.py::test_p[{n}]" for n in range(5000)]
    args, listed = selection_args(ids)
    assert args == [f"{OPTION}=@{SELECT_FILE}", "t/a.py"] and listed is not None
    assert selection_args(ids, None)[1] is None  # a warm worker's arguments are never exec'd
    (tmp_path / SELECT_FILE).write_bytes(listed)
    assert wanted(f"@{SELECT_FILE}", str(tmp_path)) == ids and wanted("@missing.json", str(tmp_path)) is None
