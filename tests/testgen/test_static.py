"""The static half of "write tests for this function": finding the function, harvesting inputs from the
docstring, call sites and hints, property candidates, rendering, and where the file goes. Real tree-sitter,
no sandbox."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from fixloop.application.testgen.harvest import Case, calls_in, harvest, hint_cases
from fixloop.application.testgen.place import create, fresh_test_path, folder_for_tests
from fixloop.application.testgen.properties import inverse_name, properties, strategy
from fixloop.application.testgen.record import Recorded
from fixloop.application.testgen.render import characterization, property_tests, render
from fixloop.application.testgen.target import (Param, TestgenError, find, function_at, module_functions, module_name,
                                    parse_spec)

MOD = '''import json


def add(a: int, b: int = 2) -> int:
    """Add.

    >>> add(2, 3)
    5
    >>> add(a=1)
    3
    """
    return a + b


def encode(items: list[str]) -> str:
    return json.dumps(items)


def decode(text: str) -> list[str]:
    return json.loads(text)


def normalize_name(name: str) -> str:
    return " ".join(name.split()).title()


class Shelf:
    @staticmethod
    def size(n: int) -> int:
        return n

    def put(self, item: str, *, count: int = 1) -> list[str]:
        return [item] * count
'''


def test_parse_spec_and_bad_specs() -> None:
    assert parse_spec("pkg/mod.py::add") == ("pkg/mod.py", "add")
    assert parse_spec("pkg/mod.py::Shelf.put") == ("pkg/mod.py", "Shelf.put")
    for bad in ("pkg/mod.py", "::add", "pkg/mod.py::a.b.c", "pkg/mod.py::1x"):
        with pytest.raises(TestgenError):
            parse_spec(bad)


def test_module_name_follows_packages_and_src_layout() -> None:
    inits = {"pkg/__init__.py", "src/app/__init__.py", "src/app/sub/__init__.py"}
    assert module_name("pkg/mod.py", inits.__contains__) == ("pkg.mod", "")
    assert module_name("src/app/sub/mod.py", inits.__contains__) == ("app.sub.mod", "src")
    assert module_name("tool.py", inits.__contains__) == ("tool", "")
    assert module_name("scripts/tool.py", inits.__contains__) == ("tool", "scripts")


def test_find_reads_signature_docstring_and_method_kinds() -> None:
    add = find(MOD, "pkg/mod.py", "add", "pkg.mod", "")
    assert add.params == (Param("a", "int"), Param("b", "int", "2"))
    assert add.returns == "int" and ">>> add(2, 3)" in add.docstring and add.kind == "function"
    put = find(MOD, "pkg/mod.py", "Shelf.put", "pkg.mod", "")
    assert put.kind == "method" and put.params == (Param("item", "str"), Param("count", "int", "1", "keyword"))
    assert find(MOD, "pkg/mod.py", "Shelf.size", "pkg.mod", "").kind == "staticmethod"
    with pytest.raises(TestgenError, match="no function 'missing'"):
        find(MOD, "pkg/mod.py", "missing", "pkg.mod", "")
    with pytest.raises(TestgenError, match="no class 'Nope'"):
        find(MOD, "pkg/mod.py", "Nope.put", "pkg.mod", "")


def test_function_at_a_line() -> None:
    lines = MOD.splitlines()
    assert function_at(MOD, lines.index("def add(a: int, b: int = 2) -> int:")) == "add"
    assert function_at(MOD, lines.index("        return [item] * count")) == "Shelf.put"
    assert function_at(MOD, 0) is None  # the import
    assert module_functions(MOD) == {"add", "encode", "decode", "normalize_name"}


def test_call_sites_keep_only_literal_arguments() -> None:
    src = "x = 3\nadd(1, 2)\nadd(x, 2)\nm.add(-1, b=[1, 'a'])\nadd(*args)\nadd(f(1))\nother(1, 2)\n"
    cases = calls_in(src, "add", False, "tests/test_m.py")
    assert [(c.args, c.kwargs, c.origin) for c in cases] == [
        (("1", "2"), (), "tests/test_m.py:2"), (("-1",), (("b", "[1, 'a']"),), "tests/test_m.py:4")]
    assert calls_in(src, "add", True, "t.py")[0].args == ("-1",)  # a method: only `obj.add(...)`


def test_harvest_orders_docstring_tests_then_hints_and_checks_the_signature() -> None:
    target = find(MOD, "pkg/mod.py", "add", "pkg.mod", "")
    sources = {"pkg/mod.py": MOD, "tests/test_mod.py": "from pkg.mod import add\nadd(10, 20)\nadd(1, 2, 3)\n",
               "app.py": "add(7)\nadd(c=1)\n"}
    cases = harvest(target, sources)
    assert [c.call("add") for c in cases] == [
        "add(2, 3)", "add(a=1)", "add(10, 20)", "add(7)", "add(0)", "add(1)", "add(-3)", "add(10)"]
    assert cases[0].origin == "docstring" and cases[2].origin == "tests/test_mod.py:2"  # tests before other code


def test_hint_cases_need_a_usable_hint_for_every_required_parameter() -> None:
    assert [c.args for c in hint_cases((Param("s", "Optional[str]"),))] == [("''",), ("'abc'",), ("'Hello World'",),
                                                                          ("None",)]
    assert hint_cases((Param("x", "Widget"),)) == []
    assert hint_cases((Param("x"),)) == []
    assert hint_cases((Param("x", "", "3"),)) == [Case((), (), "hints")]


def test_strategies_from_hints() -> None:
    assert strategy("list[int]") == "st.lists(st.integers(), max_size=20)"
    assert strategy("Dict[str, float]") == ("st.dictionaries(st.text(), st.floats(allow_nan=False, "
                                            "allow_infinity=False), max_size=10)")
    assert strategy("str | None") == "st.none() | st.text()"
    assert strategy("tuple[int, str]") == "st.tuples(st.integers(), st.text())"
    assert strategy("Widget") is None and strategy("list[Widget]") is None


def test_inverse_names_and_properties() -> None:
    assert inverse_name("encode", {"encode", "decode"}) == ("encode", "decode")
    assert inverse_name("loads", {"dumps", "loads"}) == ("dumps", "loads")
    assert inverse_name("to_json", {"to_json", "from_json"}) == ("to_json", "from_json")
    assert inverse_name("encode", {"encode"}) is None
    functions = module_functions(MOD)
    decode = find(MOD, "pkg/mod.py", "decode", "pkg.mod", "")
    [roundtrip] = properties(decode, MOD, functions)  # the forward side's hint gives the strategy
    assert roundtrip.kind == "roundtrip" and "decode(encode(value)) == value" in roundtrip.source
    assert "st.lists(st.text(), max_size=20)" in roundtrip.source
    [idem] = properties(find(MOD, "pkg/mod.py", "normalize_name", "pkg.mod", ""), MOD, functions)
    assert idem.kind == "idempotent" and "normalize_name(once) == once" in idem.source
    assert properties(find(MOD, "pkg/mod.py", "add", "pkg.mod", ""), MOD, functions) == []


def test_render_is_valid_python_with_suspects_marked() -> None:
    target = find(MOD, "pkg/mod.py", "decode", "pkg.mod", "")
    recorded = [Recorded(Case(("'[]'",), (), "hints"), "eq", "[]"),
                Recorded(Case(("''",), (), "hints"), "raises", type="JSONDecodeError", module="json.decoder"),
                Recorded(Case(("'x'",), (), "hints"), "raises", type="ValueError", module="builtins"),
                Recorded(Case(("'1'",), (), "hints"), "timeout"),
                Recorded(Case(("'2'",), (), "hints"), "repr", "<Thing 2>")]
    tests, imports = characterization(target, recorded)
    assert [t.name for t in tests] == ["test_decode_1", "test_decode_raises_JSONDecodeError_1",
                                       "test_decode_raises_ValueError_1", "test_decode_repr_1"]
    props = properties(target, MOD, module_functions(MOD))
    text = render(target, tests + property_tests(props), imports, props,
                  {props[0].name: "Failing test case: test(value=[]) ValueError: boom"})
    ast.parse(text)
    assert "from json.decoder import JSONDecodeError" in text and "from pkg.mod import decode, encode" in text
    assert "    assert decode('[]') == []\n" in text
    assert "    with pytest.raises(ValueError):\n        decode('x')\n" in text
    assert "    assert repr(decode('2')) == '<Thing 2>'\n" in text
    assert "# fixloop: suspected bug: the current code fails this property: Failing test case" in text
    method = find(MOD, "pkg/mod.py", "Shelf.put", "pkg.mod", "")
    [t] = characterization(method, [Recorded(Case(("'a'",), (("count", "2"),)), "eq", "['a', 'a']")])[0]
    assert "assert Shelf().put('a', count=2) == ['a', 'a']" in t.source


def test_the_test_file_goes_to_the_projects_tests_folder_under_a_fresh_name(tmp_path: Path) -> None:
    target = find(MOD, "pkg/mod.py", "add", "pkg.mod", "")
    (tmp_path / "pkg").mkdir()
    assert folder_for_tests(tmp_path, target) == "pkg"  # beside the module when there is no tests folder
    (tmp_path / "tests").mkdir()
    assert fresh_test_path(tmp_path, target) == "tests/test_mod_add_generated.py"
    (tmp_path / "tests" / "test_mod_add_generated.py").write_text("# mine\n")
    assert fresh_test_path(tmp_path, target) == "tests/test_mod_add_generated_2.py"
    (tmp_path / "checks").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["checks"]\n')
    assert folder_for_tests(tmp_path, target) == "checks"


def test_create_never_replaces_a_file_nor_follows_a_link(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "tests").mkdir(parents=True)
    create(ws, "tests/test_new.py", "x = 1\n")
    assert (ws / "tests" / "test_new.py").read_text() == "x = 1\n"
    with pytest.raises(TestgenError, match="exists now"):
        create(ws, "tests/test_new.py", "x = 2\n")
    assert (ws / "tests" / "test_new.py").read_text() == "x = 1\n"
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, ws / "linked")
    with pytest.raises(TestgenError, match="cannot write"):
        create(ws, "linked/test_x.py", "x = 3\n")
    assert list(outside.iterdir()) == []
    os.symlink(outside / "target.py", ws / "tests" / "test_link.py")
    with pytest.raises(TestgenError):
        create(ws, "tests/test_link.py", "x = 4\n")
    assert not (outside / "target.py").exists()
