"""Error-driven templates: the failure's exception picks the edit."""

from __future__ import annotations

from fixloop.core.model import Frame
from fixloop.core.model import TestResult as Result
from fixloop.core.patch import apply_edits
from fixloop.kit.syntax import parses
from fixloop.engines.repair.templates import Site, expected_actual, template_fixes


def fixes(source: str, line: int, exc_type: str, message: str, frames: tuple[Frame, ...] = ()) -> list[tuple[str, str]]:
    result = Result("tests/test_m.py::test_x", "failed", exc_type=exc_type, message=message, frames=frames)
    out = []
    for fix in template_fixes([Site("m.py", line, result)], {"m.py": source}):
        after = apply_edits(source, fix.edits)
        assert parses(after), after
        out.append((fix.operator, after))
    return out


def test_name_error_adds_a_stdlib_import_after_the_docstring() -> None:
    src = '"""Doc."""\n\ndef f(x):\n    return math.floor(x)\n'
    found = fixes(src, 4, "NameError", "name 'math' is not defined")
    assert ("add_import", '"""Doc."""\nimport math\n\n\ndef f(x):\n    return math.floor(x)\n') in found


def test_name_error_renames_to_the_closest_name_in_scope() -> None:
    src = "def f(total):\n    return totl + 1\n"
    assert ("rename_name", "def f(total):\n    return total + 1\n") in fixes(src, 2, "NameError", "name 'totl' is not defined")


def _imports(sources: dict[str, str], path: str, line: int, exc_type: str, message: str) -> list[str]:
    result = Result("t::x", "failed", exc_type=exc_type, message=message)
    return [fix.summary for fix in template_fixes([Site(path, line, result)], sources) if fix.operator == "add_import"]


def test_an_undefined_name_is_imported_from_the_project_module_that_defines_it() -> None:
    sources = {"src/shop/__init__.py": "", "src/shop/models.py": "class Cart:\n    pass\n",
               "src/shop/util.py": "from __future__ import annotations\n\nimport os\n\n\ndef new():\n    return Cart()\n",
               "tests/test_util.py": "class Cart:\n    pass\n", "src/shop/other.py": "Cart = None\n"}
    found = _imports(sources, "src/shop/util.py", 7, "NameError", "name 'Cart' is not defined")
    assert found == ["from shop.models import Cart", "from shop.other import Cart"]  # never the tests' Cart
    made = next(f for f in template_fixes([Site("src/shop/util.py", 7, Result(
        "t::x", "failed", exc_type="NameError", message="name 'Cart' is not defined"))], sources)
        if f.summary == "from shop.models import Cart")
    # In isort's order (ruff's I001): the project's own imports are a group of their own, after the standard library's.
    assert apply_edits(sources["src/shop/util.py"], made.edits) == (
        "from __future__ import annotations\n\nimport os\n\nfrom shop.models import Cart\n\n\ndef new():\n    return Cart()\n")


def test_an_import_goes_where_isort_keeps_it() -> None:
    from fixloop.engines.repair.imports import placement
    from fixloop.kit.syntax import Offsets, parse

    def placed(text: str, statement: str, sources: dict[str, str] | None = None) -> str:
        at, inserted = placement(parse(text).root_node, Offsets(text), statement, sources or {"shop/__init__.py": ""})
        return text[:at] + inserted + text[at:]

    body = "\n\ndef f():\n    pass\n"
    assert placed("import os\nimport sys\n" + body, "from collections import deque\n") == (
        "import os\nimport sys\nfrom collections import deque\n" + body)
    assert placed("import os\nfrom typing import Any\n" + body, "from collections import deque\n") == (
        "import os\nfrom collections import deque\nfrom typing import Any\n" + body)
    assert placed("import os\n\nimport requests\n" + body, "from shop.models import Cart\n") == (
        "import os\n\nimport requests\n\nfrom shop.models import Cart\n" + body)
    assert placed("import requests\n\nfrom shop import x\n" + body, "import json\n") == (
        "import json\n\nimport requests\n\nfrom shop import x\n" + body)
    assert placed("x = 1\n", "import json\n") == "import json\n\nx = 1\n"
    assert placed('"""Doc."""\n' + body, "import json\n") == '"""Doc."""\nimport json\n' + body


def test_a_checkers_undefined_name_is_imported_from_the_standard_library() -> None:
    src = "def count(words):\n    seen = defaultdict(int)\n    return seen\n"
    ruff = _imports({"m.py": src}, "m.py", 2, "ruff F821", "F821 Undefined name `defaultdict`")
    assert ruff == ["from collections import defaultdict"]
    mypy = _imports({"m.py": src}, "m.py", 2, "mypy name-defined", 'name-defined Name "defaultdict" is not defined')
    pyright = _imports({"m.py": src}, "m.py", 2, "pyright reportUndefinedVariable",
                       'reportUndefinedVariable "defaultdict" is not defined')
    assert mypy == ruff == pyright
    assert _imports({"m.py": src}, "m.py", 2, "ruff F401", "F401 `os` imported but unused") == []
    assert _imports({"m.py": src}, "m.py", 2, "NameError", "name 'no_such_thing_anywhere' is not defined") == []


def test_attribute_error_uses_the_closest_attribute() -> None:
    src = "class B:\n    def __init__(self):\n        self.items = {}\n\n    def has(self, k):\n        return k in self.itmes\n"
    found = fixes(src, 6, "AttributeError", "'B' object has no attribute 'itmes'")
    assert found and found[0][1].endswith("return k in self.items\n")


def test_a_checkers_optional_member_access_is_narrowed_first_with_an_assert_then_guarded() -> None:
    src = "def shout(name: str | None) -> str:\n    return name.upper()\n"
    for exc_type, message in (("mypy union-attr", 'Item "None" of "str | None" has no attribute "upper"'),
                              ("pyright reportOptionalMemberAccess", '"upper" is not a known attribute of "None"')):
        found = fixes(src, 2, exc_type, message)
        assert found[0] == ("narrow_assert", "def shout(name: str | None) -> str:\n    assert name is not None\n"
                                             "    return name.upper()\n")
        assert ("none_guard", "def shout(name: str | None) -> str:\n    if name is None:\n        return \"\"\n"
                              "    return name.upper()\n") in found
    # A test that fails on None is not fixed by an assert: only the guards.
    runtime = fixes(src, 2, "AttributeError", "'NoneType' object has no attribute 'upper'")
    assert runtime and all(op == "none_guard" for op, _ in runtime)


def test_zero_division_guard() -> None:
    src = "def mean(xs):\n    return sum(xs) / len(xs)\n"
    found = [a for op, a in fixes(src, 2, "ZeroDivisionError", "division by zero") if op == "zero_guard"]
    assert "def mean(xs):\n    if not len(xs):\n        return 0.0\n    return sum(xs) / len(xs)\n" in found


def test_a_value_the_failing_operation_cannot_take_is_tested_where_the_value_is_made() -> None:
    # The statement's value is needed further down: no `return` can go before it.
    src = ("def metric(value):\n    exponent = int(math.floor(math.log10(abs(value))))\n"
           "    return value / 10 ** exponent\n")
    found = {a for op, a in fixes(src, 2, "ValueError", "math domain error") if op == "guarded_value"}
    assert ("def metric(value):\n    exponent = int(math.floor(math.log10(abs(value)))) if abs(value) != 0 else 0\n"
            "    return value / 10 ** exponent\n") in found
    src = "def share(part, whole):\n    ratio = part / whole\n    return round(ratio, 2)\n"
    found = {a for op, a in fixes(src, 2, "ZeroDivisionError", "division by zero") if op == "guarded_value"}
    assert "def share(part, whole):\n    ratio = part / whole if whole != 0 else 0.0\n    return round(ratio, 2)\n" in found
    assert not [op for op, _ in fixes(src, 2, "ValueError", "invalid literal for int()") if op == "guarded_value"]


def test_index_and_none_guards() -> None:
    src = "def first(xs):\n    return xs[0]\n"
    assert ("index_guard", "def first(xs):\n    if not xs:\n        return None\n    return xs[0]\n") in \
        fixes(src, 2, "IndexError", "list index out of range")
    src = "def email(u):\n    return u['email']\n"
    assert ("none_guard", "def email(u):\n    if u is None:\n        return None\n    return u['email']\n") in \
        fixes(src, 2, "TypeError", "'NoneType' object is not subscriptable")


def test_key_error_uses_get_with_a_default_in_scope() -> None:
    src = "def setting(cfg, key, default=None):\n    return cfg[key]\n"
    found = [a for op, a in fixes(src, 2, "KeyError", "'theme'")]
    assert "def setting(cfg, key, default=None):\n    return cfg.get(key, default)\n" in found


def test_recursion_error_inserts_a_base_case() -> None:
    src = 'def digit_sum(n):\n    """Doc."""\n    return n % 10 + digit_sum(n // 10)\n'
    frames = tuple(Frame("m.py", 3, "digit_sum") for _ in range(5))
    found = [a for op, a in fixes(src, 3, "RecursionError", "maximum recursion depth exceeded", frames)]
    assert 'def digit_sum(n):\n    """Doc."""\n    if n == 0:\n        return 0\n    return n % 10 + digit_sum(n // 10)\n' in found


def test_assertion_values_steer_literal_changes() -> None:
    assert expected_actual("assert 1800 == 5400\n +  where 1800 = f('1h')") == (1800, 5400)
    assert expected_actual("assert f(x)") is None
    src = "UNITS = {'h': 60}\n"
    found = [a for op, a in fixes(src, 1, "AssertionError", "assert 60 == 3600")]
    assert "UNITS = {'h': 3600}\n" in found


def test_templates_ignore_unrelated_errors() -> None:
    assert fixes("def f():\n    return 1\n", 2, "ValueError", "bad") == []


def test_assertion_values_reach_module_constants_the_line_reads() -> None:
    src = "UNITS = {'h': 60, 'm': 60}\nOTHER = 7\n\n\ndef seconds(n, unit):\n    return n * UNITS[unit]\n"
    found = [a for op, a in fixes(src, 6, "AssertionError", "assert 60 == 3600")]
    assert "UNITS = {'h': 3600, 'm': 60}\nOTHER = 7\n\n\ndef seconds(n, unit):\n    return n * UNITS[unit]\n" in found
    assert not any("OTHER = 3547" in a for a in found)
