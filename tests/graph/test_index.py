"""The entity index with the real tree-sitter grammar: entities, calls, imports, tests, and the graph's
edges resolved across files; a file that does not parse keeps its last good index."""

from __future__ import annotations

import os
from pathlib import Path

from fixloop.kit.entities import index_source, module_name
from fixloop.kit.entities import test_entity_id as node_entity
from fixloop.adapters.graph.graph import CodeGraph, graph_of
from fixloop.adapters.graph.walk import python_files, read_file

PRICING = '''import os
from .util import helper as h
from . import money
import shop.tax


class Cart:
    def total(self):
        return sum(self.lines()) + h(1)

    def lines(self):
        def inner():
            return money.round(2)
        return [inner()]


@decorated
def apply_discount(price, q):
    if q > LIMIT:
        return shop.tax.add(price)
    return Cart().total()
'''
SOURCES = {
    "shop/__init__.py": "",
    "shop/pricing.py": PRICING,
    "shop/tax.py": "def add(p):\n    return p * 1.2\n",
    "shop/util.py": "def helper(x):\n    return x\n",
    "shop/money.py": "def round(x):\n    return x\n",
    "tests/test_pricing.py": ("from shop.pricing import apply_discount\nfrom shop import pricing\n\n\n"
                              "def test_bulk():\n    assert apply_discount(10, 20)\n\n\n"
                              "class TestCart:\n    def test_total(self):\n        assert pricing.Cart().total() == 1\n"),
}


def test_entities_of_a_module_with_classes_methods_and_nested_functions() -> None:
    index = index_source("shop/pricing.py", PRICING)
    assert index.ok and index.module == "shop.pricing"
    kinds = {e.id: e.kind for e in index.entities}
    assert kinds == {"shop.pricing": "module", "shop.pricing::Cart": "class", "shop.pricing::Cart.total": "method",
                     "shop.pricing::Cart.lines": "method", "shop.pricing::apply_discount": "function"}
    fn = next(e for e in index.entities if e.name == "apply_discount")
    # the name's place (for a diagnostic on it) and the lines (decorator excluded)
    assert (fn.line, fn.end_line, fn.column, fn.end_column) == (18, 21, 4, 18)
    calls = {(r.src, r.target) for r in index.refs if r.kind == "calls"}
    assert ("shop.pricing::Cart.total", "self.lines") in calls
    assert ("shop.pricing::Cart.lines", "money.round") in calls  # inside the nested function: charged to lines
    assert ("shop.pricing::apply_discount", "shop.tax.add") in calls
    imports = {(r.target, r.alias) for r in index.refs if r.kind == "imports"}
    assert imports == {("os", "os"), ("shop.util.helper", "h"), ("shop.money", "money"), ("shop.tax", "shop")}


def test_tests_are_named_like_pytest_node_ids() -> None:
    index = index_source("tests/test_pricing.py", SOURCES["tests/test_pricing.py"])
    tests = sorted(e.id for e in index.entities if e.kind == "test")
    assert tests == ["tests.test_pricing::TestCart.test_total", "tests.test_pricing::test_bulk"]
    assert node_entity("tests/test_pricing.py::TestCart::test_total[1-2]") == "tests.test_pricing::TestCart.test_total"
    assert module_name("shop/__init__.py") == "shop" and module_name("src/a/b.py") == "src.a.b"
    # a `test_` function outside a test file is an ordinary function
    assert index_source("shop/x.py", "def test_mode():\n    pass\n").entities[1].kind == "function"


def test_calls_imports_and_tests_resolve_across_files() -> None:
    graph = graph_of(SOURCES)
    assert graph.callees("shop.pricing::apply_discount") == [
        "shop.pricing::Cart", "shop.pricing::Cart.total", "shop.tax::add"]
    assert graph.callees("shop.pricing::Cart.total") == ["shop.pricing::Cart.lines", "shop.util::helper"]
    assert graph.callees("shop.pricing::Cart.lines") == ["shop.money::round"]
    assert graph.callers("shop.tax::add") == ["shop.pricing::apply_discount"]
    assert graph.imports("shop.pricing") == ["shop.money", "shop.tax", "shop.util"]
    assert graph.tests_of("shop.pricing::apply_discount") == ["tests.test_pricing::test_bulk"]
    assert graph.tests_of("shop.pricing::Cart.total") == ["tests.test_pricing::TestCart.test_total"]
    assert graph.tests_of("shop.util::helper") == []


def test_coverage_adds_the_functions_a_test_ran() -> None:
    graph = graph_of(SOURCES)
    edges = graph.add_coverage({"tests/test_pricing.py::TestCart::test_total": {"shop/util.py": [2],
                                                                                "shop/pricing.py": [9, 13]}})
    assert edges == {"tests.test_pricing::TestCart.test_total": {"shop.util::helper", "shop.pricing::Cart.total",
                                                                 "shop.pricing::Cart.lines"}}
    assert graph.tests_of("shop.util::helper") == ["tests.test_pricing::TestCart.test_total"]


def test_one_file_is_reindexed_alone_and_a_broken_one_keeps_its_last_good_index() -> None:
    graph = graph_of(SOURCES)
    graph.put(index_source("shop/tax.py", "def add(p):\n    return round_up(p)\n\n\ndef round_up(p):\n    return p\n"))
    assert graph.callees("shop.tax::add") == ["shop.tax::round_up"]
    assert graph.callers("shop.tax::add") == ["shop.pricing::apply_discount"]  # the other files untouched
    broken = index_source("shop/tax.py", "def add(p:\n    return\n")
    assert not broken.ok
    held = graph.put(broken)
    assert held is not None and held.ok and graph.entity("shop.tax::round_up") is not None
    fresh = CodeGraph()
    assert fresh.put(index_source("new.py", "def f(:\n")) is None and fresh.entities_in("new.py") == ()
    graph.remove("shop/tax.py")
    assert graph.callees("shop.pricing::apply_discount") == ["shop.pricing::Cart", "shop.pricing::Cart.total"]


def test_the_walk_never_follows_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def stolen():\n    pass\n")
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "a.py").write_text("def a():\n    pass\n")
    (ws / ".venv").mkdir()
    (ws / ".venv" / "v.py").write_text("x = 1\n")
    os.symlink(outside / "secret.py", ws / "pkg" / "link.py")
    os.symlink(outside, ws / "linked_dir")
    assert [p for p, _ in python_files(ws)] == ["pkg/a.py"]
    assert read_file(ws, "pkg/link.py") is None and read_file(ws, "linked_dir/secret.py") is None
    assert read_file(ws, "pkg/a.py") == "def a():\n    pass\n" and read_file(ws, "../outside/secret.py") is None
