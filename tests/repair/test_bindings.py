"""Suspects outside function bodies: which lines run at import, and the bindings suspect lines read."""

from __future__ import annotations

import textwrap

from fixloop.core.model import Frame, Suspect
from fixloop.core.model import TestReport as Report
from fixloop.core.model import TestResult as Result
from fixloop.engines.repair.bindings import with_bindings
from fixloop.engines.repair.localize import SpectrumLocalizer, TracebackLocalizer
from fixloop.kit.syntax import code_lines


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def is_test(path: str) -> bool:
    return path.startswith("tests/")


def lines_of(text: str, *needles: str) -> list[int]:
    """1-based line of each needle's first occurrence."""
    rows = text.splitlines()
    return [next(i + 1 for i, row in enumerate(rows) if needle in row) for needle in needles]


PAGER = src('''
    """Pages."""
    PER_ROW = 3


    @cached
    def page(items, number,
             size=11):
        """The items on one page."""
        start = (number - 1) * size
        key = lambda x: x * PER_ROW
        return items[start:start + size]


    class Pager:
        size = 11

        def first(self):
            return self.size
''')


def test_code_lines_are_bodies_without_signatures_docstrings_or_bindings() -> None:
    code = code_lines(PAGER)
    start, lam, ret, first_ret = lines_of(PAGER, "start =", "lambda", "return items", "return self.size")
    assert {start, lam, ret, first_ret} <= code
    decorator, sig, default, doc, constant, attr, method = lines_of(
        PAGER, "@cached", "def page", "size=11):", '"""The items', "PER_ROW = 3", "    size = 11", "def first")
    assert not {decorator, sig, default, doc, constant, attr, method} & code


def test_a_default_read_by_a_suspect_line_becomes_a_suspect() -> None:
    start, default = lines_of(PAGER, "start =", "size=11):")
    out = with_bindings((Suspect("m.py", start, 0.8, "ochiai 0.8", 3),), {"m.py": PAGER}, is_test)
    found = {(s.line): s for s in out}
    assert default in found and found[default].score < 0.8
    assert "default of size" in found[default].reason and found[default].passing == 3
    # The constant the lambda reads, and the class attribute `self.size` reads.
    lam, constant, read, attr = lines_of(PAGER, "lambda", "PER_ROW = 3", "return self.size", "    size = 11")
    out = with_bindings((Suspect("m.py", lam, 0.5), Suspect("m.py", read, 0.4)), {"m.py": PAGER}, is_test)
    assert {constant, attr} <= {s.line for s in out}


def test_a_default_that_names_a_constant_of_a_family_is_a_suspect_and_a_plain_name_is_not() -> None:
    text = src('''
        MODE_A = 1
        MODE_B = 2


        def f(x, mode=MODE_A, table=lookup):
            return x * mode + table[x]
    ''')
    ret, sig = lines_of(text, "return x", "def f")
    out = with_bindings((Suspect("m.py", ret, 0.8),), {"m.py": text}, is_test)
    assert [s.reason for s in out if s.line == sig] == [f"default of mode, read at m.py:{ret}"]


def test_locals_and_parameters_without_defaults_are_not_bindings() -> None:
    text = src('''
        LIMIT = 3


        def f(items, LIMIT):
            return items[:LIMIT]


        def g(items):
            size = 4
            return items[:size]
    ''')
    f_line, g_line = lines_of(text, "items[:LIMIT]", "items[:size]")
    out = with_bindings((Suspect("m.py", f_line, 1.0), Suspect("m.py", g_line, 1.0)), {"m.py": text}, is_test)
    assert {s.line for s in out} == {f_line, g_line}


def test_bindings_in_other_modules_and_base_classes() -> None:
    sources = {
        "pkg/__init__.py": "",
        "pkg/conf.py": "WIDTH = 9\nMODE = 'fast'\n",
        "pkg/base.py": "class Base:\n    retries = 2\n",
        "pkg/data.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Options:\n    depth: int = 4\n",
        "pkg/use.py": src('''
            from . import conf
            from .base import Base
            from .conf import WIDTH
            from .data import Options


            class Client(Base):
                def cut(self, text, opts):
                    return text[:WIDTH] + conf.MODE + str(self.retries) + str(opts.depth)
        '''),
        "tests/test_use.py": "WIDTH = 1\n",
    }
    line = lines_of(sources["pkg/use.py"], "return text")[0]
    out = with_bindings((Suspect("pkg/use.py", line, 1.0),), sources, is_test)
    found = {(s.path, s.line): s.reason for s in out}
    assert ("pkg/conf.py", 1) in found and ("pkg/conf.py", 2) in found  # imported name, module attribute
    assert ("pkg/base.py", 2) in found and "Base.retries" in found[("pkg/base.py", 2)]
    assert ("pkg/data.py", 6) in found  # a dataclass field read through an instance
    assert not any(path.startswith("tests/") for path, _ in found)


def test_defaults_a_call_leaves_to_its_callee() -> None:
    text = src('''
        def page(items, number, size=11, *, strict=False):
            return items


        def first(items):
            return page(items, 1)


        def sized(items):
            return page(items, 1, 10, strict=True)
    ''')
    first, sized, default = lines_of(text, "page(items, 1)", "page(items, 1, 10", "def page")
    out = with_bindings((Suspect("m.py", first, 1.0),), {"m.py": text}, is_test)
    assert [s.line for s in out if s.line == default] and "default of" in out[-1].reason
    out = with_bindings((Suspect("m.py", sized, 1.0),), {"m.py": text}, is_test)
    assert default not in {s.line for s in out}  # both given: nothing left to the defaults


def test_the_traceback_spreads_over_bodies_only() -> None:
    text = src('''
        def f(a,
              b=2):
            """Doc."""
            c = a + b
            return c
    ''')
    failure = Result("tests/test_m.py::test_f", "failed", frames=(Frame("m.py", 5, "f"),))
    lines = {s.line for s in TracebackLocalizer(is_test).localize(Report((failure,)), {"m.py": text}, ())}
    assert lines == {4, 5}


class Coverage:
    def __init__(self, spectra: dict[str, dict[str, frozenset[int]]], failed: tuple[str, ...]) -> None:
        self.spectra, self.failed = spectra, failed

    def coverage(self, select=()):  # type: ignore[no-untyped-def]
        return Report(tuple(Result(t, "failed" if t in self.failed else "passed") for t in self.spectra)), self.spectra


def test_import_time_lines_are_not_ranked_by_the_test_that_imported_them() -> None:
    text = src('''
        SIZE = 11


        def page(items):
            return items[:SIZE]


        def other(items):
            return items
    ''')
    # The failing test imported the module (lazily) and so recorded its `def` and constant lines.
    spectra = {"tests/t.py::fail": {"m.py": frozenset({1, 4, 5, 8})}, "tests/t.py::ok": {"m.py": frozenset({5, 9})}}
    loc = SpectrumLocalizer(Coverage(spectra, ("tests/t.py::fail",)), is_test)
    out = loc.localize(Report((Result("tests/t.py::fail", "failed"),)), {"m.py": text}, ("tests/t.py::fail",))
    by_line = {s.line: s for s in out}
    assert 4 not in by_line and 8 not in by_line  # `def` lines: no spectrum, no binding
    assert by_line[1].reason.startswith("constant SIZE") and by_line[1].score < by_line[5].score


def test_a_helper_of_the_failing_path_outranks_unrun_lines_of_the_called_function() -> None:
    report_py = "def summarize(rows):\n    out = []\n    for r in rows:\n        out.append(keep(r))\n    if not out:\n" \
        "        return None\n    return out\n"
    helper_py = "def keep(r):\n    return r > 0\n"
    test_py = "def test_summary():\n    assert summarize([0])\n"
    tests = {f"tests/test_m.py::test_{i}": {"report.py": frozenset({2, 3, 4, 7}), "helper.py": frozenset({2})}
             for i in range(200)}
    tests["tests/test_m.py::test_summary"] = {"report.py": frozenset({2, 3, 4, 7}), "helper.py": frozenset({2})}
    loc = SpectrumLocalizer(Coverage(tests, ("tests/test_m.py::test_summary",)), is_test)
    failure = Result("tests/test_m.py::test_summary", "failed", exc_type="AssertionError",
                     frames=(Frame("tests/test_m.py", 2, "test_summary"),))
    sources = {"report.py": report_py, "helper.py": helper_py, "tests/test_m.py": test_py}
    out = loc.localize(Report((failure,)), sources, ("tests/test_m.py::test_summary",))
    rank = [(s.path, s.line) for s in out]
    assert ("report.py", 6) not in rank and ("report.py", 5) not in rank  # never run by the failing test
    assert ("report.py", 1) not in rank  # the `def` line
    assert ("helper.py", 2) in rank and out[rank.index(("helper.py", 2))].score > 0.5


def test_a_lambda_parameter_is_not_the_constant_of_the_same_name() -> None:
    text = "x = 3\nLIMIT = 4\n\n\ndef f(items):\n    return sorted(items, key=lambda x: x % LIMIT)\n"
    out = with_bindings((Suspect("m.py", 6, 1.0),), {"m.py": text}, is_test)
    assert {s.line for s in out} == {2, 6}


def test_values_reached_through_a_default_an_init_parameter_and_an_augmented_read() -> None:
    sources = {
        "pkg/__init__.py": "",
        "pkg/defaults.py": "KEEP_NEWLINE = True\n",
        "pkg/env.py": src('''
            from .defaults import KEEP_NEWLINE


            class Env:
                def __init__(self, keep=KEEP_NEWLINE, width=80):
                    self.keep = keep
                    self.width = width

                def render(self, text):
                    return text if self.keep else text.rstrip()


            def step(tokens, idx=-1):
                idx += 1
                return tokens[idx:]
        '''),
    }
    env = sources["pkg/env.py"]
    render, sig, augmented, step = lines_of(env, "return text if", "def __init__", "idx += 1", "def step")
    out = with_bindings((Suspect("pkg/env.py", render, 1.0),), sources, is_test)
    found = {(s.path, s.line): s for s in out}
    # self.keep was set in __init__ from a parameter with a default, and that default names a constant.
    assert "default of keep (self.keep)" in found[("pkg/env.py", sig)].reason
    assert ("pkg/defaults.py", 1) in found and found[("pkg/defaults.py", 1)].score < found[("pkg/env.py", sig)].score
    # `idx += 1` reads idx: its default is a suspect.
    out = with_bindings((Suspect("pkg/env.py", augmented, 1.0),), sources, is_test)
    assert ("pkg/env.py", step) in {(s.path, s.line) for s in out}
    # A suspect far down the list is followed too (a value every test reads ranks its readers low).
    far = tuple(Suspect("pkg/env.py", render, 0.9 - i / 1000) for i in range(60)) + (Suspect("pkg/env.py", augmented, 0.01),)
    assert ("pkg/env.py", step) in {(s.path, s.line) for s in with_bindings(far, sources, is_test)}


def test_an_attribute_copied_from_another_objects_attribute_is_followed_to_its_default() -> None:
    sources = {
        "pkg/__init__.py": "",
        "pkg/defaults.py": "KEEP_NEWLINE = True\n",
        "pkg/env.py": "from .defaults import KEEP_NEWLINE\n\n\nclass Env:\n"
                      "    def __init__(self, keep=KEEP_NEWLINE):\n        self.keep = keep\n",
        "pkg/lexer.py": src('''
            import typing as t

            if t.TYPE_CHECKING:  # imported for annotations only: still where `env.keep` comes from
                from .env import Env


            class Lexer:
                def __init__(self, env):
                    self.keep = env.keep
                    self.loop = self.loop

                def lex(self, text):
                    return text if self.keep and self.loop else text.rstrip()
        '''),
    }
    lex = lines_of(sources["pkg/lexer.py"], "return text if")[0]
    found = {(s.path, s.line) for s in with_bindings((Suspect("pkg/lexer.py", lex, 1.0),), sources, is_test)}
    assert {("pkg/env.py", 5), ("pkg/defaults.py", 1)} <= found  # and the cycle `self.loop = self.loop` ends
