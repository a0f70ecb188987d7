"""Tool input validation on a real scratch-like directory: errors are returned, nothing is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixloop.core.integrity import is_test_file
from fixloop.adapters.llm.client import ToolCall
from fixloop.adapters.llm.fallback import SnippetEdit, parse_edits
from fixloop.adapters.llm.tools import Workbench, outline

SRC = {
    "pkg/calc.py": "class Calc:\n    def add(self, a, b):\n        return a - b\n\n\ndef twice(x):\n    return Calc().add(x, x)\n",
    "tests/test_calc.py": "from pkg.calc import twice\n\n\ndef test_twice():\n    assert twice(2) == 4\n",
}


@pytest.fixture
def bench(tmp_path: Path) -> Workbench:
    for name, body in SRC.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    (tmp_path / "README.md").write_text("hello\n")
    os.symlink("/etc", tmp_path / "etc_link")
    (tmp_path / "pkg" / "alias.py").symlink_to(tmp_path / "pkg" / "calc.py")
    return Workbench(dict(SRC), tmp_path, is_test_file)


def call(bench: Workbench, tool: str, **args: object) -> tuple[str, bool]:
    return bench.run(ToolCall("t", tool, args))


def test_view_file_and_ranges(bench: Workbench) -> None:
    out, err = call(bench, "view_file", path="pkg/calc.py", start_line=2, end_line=3)
    assert not err and "    2 |     def add(self, a, b):" in out and "    3 |" in out and "    1 |" not in out
    out, err = call(bench, "view_file", path="README.md")
    assert not err and "hello" in out
    out, err = call(bench, "view_file", path="./tests/test_calc.py")
    assert not err and "test_twice" in out  # tests may be read, never edited


def test_outline_and_search(bench: Workbench) -> None:
    out, err = call(bench, "module_outline", path="pkg/calc.py")
    assert not err and out.splitlines() == ["class Calc  (lines 1-3)", "    def add  (lines 2-3)", "def twice  (lines 6-7)"]
    out, err = call(bench, "search_symbol", name="Calc.add")
    assert not err and out.splitlines()[0] == "pkg/calc.py:2: def add(self, a, b):"
    assert "pkg/calc.py:7" in out


@pytest.mark.parametrize("name,args,message", [
    ("view_file", {"path": "nope.py"}, "does not exist"),
    ("view_file", {"path": "pkg/calc.py", "start_line": 99}, "has only 7 lines"),
    ("view_file", {"path": "pkg/calc.py", "start_line": "1"}, "whole number"),
    ("view_file", {"path": 3}, "non-empty string"),
    ("view_file", {"path": "../../etc/passwd"}, "leaves the project"),
    ("view_file", {"path": "/etc/passwd"}, "is absolute"),
    ("view_file", {"path": "C:\\\\x.py"}, "is absolute"),
    ("view_file", {"path": "~/.ssh/id_rsa"}, "is absolute"),
    ("view_file", {"path": "etc_link/passwd"}, "symbolic link"),
    ("view_file", {"path": ".env"}, "hidden or credentials"),
    ("view_file", {"path": ".git/config"}, "hidden or credentials"),
    ("view_file", {"path": "deploy/server.pem"}, "hidden or credentials"),
    ("view_file", {"path": "secrets.toml"}, "hidden or credentials"),
    ("module_outline", {"path": "README.md"}, "not a Python file"),
    ("search_symbol", {"name": "a; rm -rf /"}, "identifier"),
    ("replace_snippet", {"path": "pkg/alias.py", "old": "a - b", "new": "a + b"}, "symbolic link"),
    ("replace_snippet", {"path": "tests/test_calc.py", "old": "== 4", "new": "== 0"}, "is a test file"),
    ("replace_snippet", {"path": "README.md", "old": "hello", "new": "bye"}, "not a Python source"),
    ("replace_snippet", {"path": "pkg/calc.py", "old": "", "new": "x"}, "empty"),
    ("replace_snippet", {"path": "pkg/calc.py", "old": "Calc", "new": "C"}, "occurs 2 times"),
    ("replace_snippet", {"path": "pkg/calc.py", "old": "a * b", "new": "a + b"}, "not found"),
    ("replace_snippet", {"path": "pkg/calc.py", "old": "a - b", "new": "a - b"}, "identical"),
    ("replace_snippet", {"path": "pkg/calc.py", "old": "a - b", "new": "(a +"}, "syntax error near line 3"),
    ("replace_snippet", {"path": "pkg/calc.py", "old": 1, "new": "x"}, "must be strings"),
    ("run_shell", {"cmd": "ls"}, "no tool named"),
])
def test_bad_inputs_become_errors_and_write_nothing(bench: Workbench, tmp_path: Path, name: str,
                                                    args: dict, message: str) -> None:
    before = {p: (tmp_path / p).read_text() for p in SRC}
    out, err = bench.run(ToolCall("t", name, args))
    assert err and out.startswith("error: ") and message in out
    assert bench.errors and message in bench.errors[-1]
    assert bench.edited == {} and bench.patch("llm", "edit", "", {}) is None
    assert {p: (tmp_path / p).read_text() for p in SRC} == before


def test_edits_accumulate_into_one_patch_and_never_touch_disk(bench: Workbench, tmp_path: Path) -> None:
    out, err = call(bench, "replace_snippet", path="pkg/calc.py", old="a - b", new="a + b")
    assert not err and "replaced lines 3-3" in out
    out, err = call(bench, "view_file", path="pkg/calc.py", start_line=3, end_line=3)
    assert "a + b" in out  # the model sees its own edit
    patch = bench.patch("llm", "edit", "add", {"tool_errors": ()})
    assert patch is not None and patch.paths == ("pkg/calc.py",)
    assert patch.changes[0].before == SRC["pkg/calc.py"] and "a + b" in patch.changes[0].after
    assert (tmp_path / "pkg/calc.py").read_text() == SRC["pkg/calc.py"]


def test_outline_handles_decorators() -> None:
    text = "import functools\n\n@functools.cache\ndef f():\n    pass\n"
    assert outline(text) == "def f  (lines 3-5)"


def test_fallback_parses_json_search_replace_and_diff() -> None:
    j = 'Here:\n```json\n{"path": "a.py", "old": "x = 1\\n", "new": "x = 2\\n"}\n```'
    assert parse_edits(j) == [SnippetEdit("a.py", "x = 1\n", "x = 2\n")]
    sr = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    assert parse_edits(sr) == [SnippetEdit("a.py", "x = 1\n", "x = 2\n")]
    diff = "```diff\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n```"
    assert parse_edits(diff) == [SnippetEdit("a.py", "def f():\n    return 1\n", "def f():\n    return 2\n")]
    assert parse_edits("I think the bug is in f.") == []
    assert parse_edits("```json\n{not json}\n```") == []


def test_an_empty_file_can_be_viewed() -> None:
    bench = Workbench({"pkg/__init__.py": ""}, None, is_test_file)
    assert bench.run(ToolCall("t", "view_file", {"path": "pkg/__init__.py"})) == ("pkg/__init__.py is empty", False)


def test_write_test_is_offered_only_for_a_goal_and_writes_only_the_new_test_file(tmp_path: Path) -> None:
    for name, body in SRC.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    content = "from pkg.calc import twice\n\n\ndef test_twice_three():\n    assert twice(3) == 6\n"
    plain = Workbench(dict(SRC), tmp_path, is_test_file)
    out, err = plain.run(ToolCall("t", "write_test", {"path": "tests/test_goal.py", "content": content}))
    assert err and "no tool named 'write_test'" in out  # the repair model never gets it

    bench = Workbench(dict(SRC), tmp_path, is_test_file, test_path="tests/test_goal.py")
    (tmp_path / "tests" / "test_planted.py").write_text("# not in sources, but on disk\n")
    (tmp_path / "linked").symlink_to(tmp_path / "tests")
    for path, why in [("pkg/calc.py", "not a test file name"), ("tests/conftest.py", "not a test file name"),
                      ("tests/test_calc.py", "already exists"), ("tests/test_planted.py", "already exists"),
                      ("linked/test_goal.py", "symbolic link"), ("test_goal.py", "outside the project's tests folder"),
                      (".hidden/test_goal.py", "hidden")]:
        out, err = bench.run(ToolCall("t", "write_test", {"path": path, "content": content}))
        assert err and why in out, (path, out)
    out, err = bench.run(ToolCall("t", "write_test", {"path": "tests/test_goal.py", "content": content}))
    assert not err and out == "wrote tests/test_goal.py: tests test_twice_three"
    assert bench.tests == {"tests/test_goal.py": content} and bench.edited == {}
    assert not (tmp_path / "tests" / "test_goal.py").exists()  # kept in memory: the run verifies, the user reviews
    assert (tmp_path / "tests" / "test_planted.py").read_text() == "# not in sources, but on disk\n"
