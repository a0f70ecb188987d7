"""bandit reads only the definitions a candidate touched: real bandit, real rules, the same verdicts as a
scan of the whole files, on patches that add dangers next to imports made elsewhere in the module."""

from __future__ import annotations

import ast

import pytest

from fixloop.core.model import FileChange, Patch
from fixloop.adapters.safety import bandit_scan, rules
from fixloop.adapters.safety.check import PatchSafety, new_findings
from fixloop.adapters.safety.scope import scoped

MODULE = '''"""A module with dangers of its own, outside what the patches touch."""
import os
import subprocess as sp

TIMEOUT = 3


def loader(blob):
    import pickle
    from yaml import load as yaml_load
    return pickle.loads(blob), yaml_load


@staticmethod
def shell(cmd):
    return os.system(cmd)


class Runner:
    def start(self, cmd):
        return sp.Popen(cmd)

    def total(self, xs):
        return sum(xs) - TIMEOUT


def helper(cmd):
    return cmd.strip()


def untouched(cmd):
    return run(cmd)
'''

PATCHES = {
    "an aliased module imported at the top": ("return cmd.strip()", "return sp.call(cmd, shell=True)"),
    "a module imported inside another function": ("return cmd.strip()", "return pickle.loads(cmd)"),
    "a name imported inside another function": ("return cmd.strip()", "return yaml_load(cmd)"),
    "a danger in a class method": ("return sum(xs) - TIMEOUT", "return eval(xs)"),
    "a harmless change": ("return sum(xs) - TIMEOUT", "return sum(xs) + TIMEOUT"),
    "a new function with a shell": ("def helper(cmd):", "def run(c):\n    return os.popen(c)\n\n\ndef helper(cmd):"),
    "a module-level change": ("TIMEOUT = 3", "TIMEOUT = eval('3')"),
    "an import that turns untouched code dangerous": ("TIMEOUT = 3", "from os import system as run"),
    "the same from inside a function": ("    import pickle\n", "    import pickle\n    from os import system as run\n"),
    "a decorator dropped": ("@staticmethod\ndef shell", "def shell"),
}


def whole_file_findings(before: str, after: str) -> list[tuple[str, int]]:
    """What the check found before it scoped bandit: both whole texts scanned."""
    def scan(text: str) -> list:  # type: ignore[type-arg]
        return rules.scan(text, "m.py") + bandit_scan.scan_text(text, "m.py", ignore_nosec=True)
    return sorted((f.code, f.line) for f in new_findings(scan(before), scan(after), before, after))


@pytest.mark.parametrize("name", PATCHES)
def test_the_scoped_check_finds_what_the_whole_file_scan_finds(name: str) -> None:
    old, new = PATCHES[name]
    after = MODULE.replace(old, new)
    assert after != MODULE
    verdict = PatchSafety().check(Patch((FileChange("m.py", MODULE, after),)))
    assert sorted((f.code, f.line) for f in verdict.findings) == whole_file_findings(MODULE, after)
    if name != "a harmless change" and name != "a decorator dropped":
        assert verdict.findings, name  # each danger is seen (the comparison alone could agree on nothing)


def test_untouched_definitions_are_blanked_line_for_line_with_their_imports_kept() -> None:
    after = MODULE.replace("return cmd.strip()", "return cmd.lower()")
    before_scope, after_scope = scoped(MODULE, after)
    assert before_scope.count("\n") == MODULE.count("\n") and after_scope.count("\n") == after.count("\n")
    assert "return cmd.lower()" in after_scope and "return cmd.strip()" in before_scope
    assert "os.system" not in after_scope and "sp.Popen" not in after_scope
    lines = after_scope.split("\n")
    assert lines[MODULE.split("\n").index("    import pickle")] == "import pickle"
    assert "import subprocess as sp" in lines and "TIMEOUT = 3" in lines
    ast.parse(after_scope)


def test_what_cannot_be_blanked_exactly_is_scanned_whole() -> None:
    tangled = MODULE.replace("    import pickle\n", "    import pickle; import json\n")
    after = tangled.replace("return cmd.strip()", "return cmd.lower()")
    before_scope, after_scope = scoped(tangled, after)
    assert "pickle.loads(blob)" in before_scope and "pickle.loads(blob)" in after_scope  # that definition stays
    assert "os.system" not in after_scope  # the others are still blanked
    broken = "def f(:\n    pass\n"
    assert scoped(broken, broken + "\n") == (broken, broken + "\n")
