"""The model's tools over the scratch copy: three read-only ones, one edit tool, and (for a goal's
reproduction test only) `write_test`.

Every input is validated here. A bad input (missing file, ambiguous or absent snippet, a path
outside the project, a symlink, a test file) becomes an error string returned to the model and
recorded; nothing is ever written to disk: edits go to an in-memory working copy that becomes
the proposed Patch, and a written test is kept in memory for the goal run to verify and offer.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Collection, Mapping

from fixloop.core.model import FileChange, Patch
from fixloop.core.patch import replace_snippet
from fixloop.kit.syntax import parse, walk
from fixloop.adapters.llm.client import ToolCall

MAX_VIEW_LINES = 300
MAX_SEARCH_HITS = 40
MAX_OTHER_FILE_BYTES = 200_000
_SYMBOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,99}$")
_SECRET = re.compile(r"(?i)(^id_(rsa|dsa|ecdsa|ed25519)|\.(pem|key|p12|pfx|keystore|netrc|pgpass)$|^secrets?\.|"
                     r"^credentials|\.env$)")

EDIT_TOOL = "replace_snippet"
TOOL_SPECS: tuple[dict[str, Any], ...] = (
    {
        "name": "view_file",
        "description": "Show a project file with line numbers, optionally only lines start_line..end_line.",
        "input_schema": {"type": "object", "properties": {
            "path": {"type": "string", "description": "path relative to the project root"},
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1}}, "required": ["path"]},
    },
    {
        "name": "module_outline",
        "description": "List the classes and functions of a Python file with their line ranges.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "name": "search_symbol",
        "description": "Find where a name is defined and used across the project's Python files.",
        "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    },
    {
        "name": EDIT_TOOL,
        "description": ("Replace one exact snippet of a non-test Python source with new text. `old` must occur "
                        "exactly once in the file (copy it verbatim, with enough context to be unique). "
                        "Several calls may edit several places; the edits together form one candidate fix."),
        "input_schema": {"type": "object", "properties": {
            "path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}},
            "required": ["path", "old", "new"]},
    },
)


WRITE_TEST_TOOL = "write_test"
WRITE_TEST_SPEC: dict[str, Any] = {
    "name": WRITE_TEST_TOOL,
    "description": ("Write the whole text of a NEW pytest test file (a reproduction test). Only a test file is "
                    "allowed: a name like test_*.py or *_test.py, never conftest.py, never an existing file. "
                    "Calling it again replaces what you wrote before."),
    "input_schema": {"type": "object", "properties": {
        "path": {"type": "string", "description": "the test file's path relative to the project root"},
        "content": {"type": "string", "description": "the whole file: imports and test_* functions"}},
        "required": ["path", "content"]},
}
MAX_TEST_CHARS = 40_000
_TEST_NAME = re.compile(r"^(test_[A-Za-z0-9_]*|[A-Za-z0-9_]+_test)\.py$")
_TEST_DEF = re.compile(r"^(?:async\s+)?def\s+(test[A-Za-z0-9_]*)\s*\(", re.M)


class ToolError(Exception):
    pass


def test_file_problem(path: str, existing: Collection[str], tests_folder: str = "") -> str:
    """Why `path` (normalised, relative) may not be written by `write_test`, or "" when it may.

    A new test file only: a test_*.py / *_test.py name (never conftest.py, which pytest runs while
    collecting), inside the project's tests folder when it has one, and not a file that exists."""
    name = path.rsplit("/", 1)[-1]
    if not _TEST_NAME.match(name):
        return (f"{path} is not a test file name; write_test only writes a new test file named test_*.py "
                "or *_test.py")
    folder = tests_folder.strip("/")
    if folder and not path.startswith(folder + "/"):
        return f"{path} is outside the project's tests folder; write the test under {folder}/"
    if path in existing:
        return f"{path} already exists; write_test never overwrites a file: choose a new name"
    return ""


@dataclass
class Workbench:
    """The working copy the model edits for one candidate, and the record of its tool use."""

    sources: Mapping[str, str]
    workspace: Path | None
    is_test_file: Callable[[str], bool]
    edited: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    calls: int = 0
    # `write_test` is offered only when this is set: the one path the goal run will write ("" = none).
    test_path: str = ""
    tests: dict[str, str] = field(default_factory=dict)  # path -> text written with write_test

    def text(self, path: str) -> str:
        return self.edited.get(path, self.sources[path])

    def run(self, call: ToolCall) -> tuple[str, bool]:
        """Execute one tool call; returns (result text, is_error)."""
        self.calls += 1
        handlers = {"view_file": self._view, "module_outline": self._outline, "search_symbol": self._search,
                    EDIT_TOOL: self._replace}
        if self.test_path:
            handlers[WRITE_TEST_TOOL] = self._write_test
        try:
            handler = handlers.get(call.name)
            if handler is None:
                raise ToolError(f"there is no tool named {call.name!r}; use one of {', '.join(handlers)}")
            if not isinstance(call.input, Mapping):
                raise ToolError("the tool input must be an object")
            return handler(call.input), False
        except ToolError as e:
            self.errors.append(f"{call.name}: {e}")
            return f"error: {e}", True

    def replace(self, path: Any, old: Any, new: Any) -> str:
        """The edit tool's validation and effect, also used for edits parsed from plain text."""
        name = self._path(path, edit=True)
        if not isinstance(old, str) or not isinstance(new, str):
            raise ToolError("`old` and `new` must be strings")
        before = self.text(name)
        try:
            after = replace_snippet(before, old, new)
        except ValueError as e:
            raise ToolError(f"{name}: {e}") from None
        if after == before:
            raise ToolError("the replacement is identical to the snippet; nothing changes")
        tree = parse(after)
        if tree.root_node.has_error:
            line = _first_error_line(tree.root_node)
            raise ToolError(f"the edit would leave {name} with a syntax error near line {line}; not applied")
        self.edited[name] = after
        start = before[: before.index(old)].count("\n") + 1
        return f"replaced lines {start}-{start + old.count(chr(10))} of {name}"

    def write_test(self, path: Any, content: Any) -> str:
        """The write_test tool's validation and effect: a new test file, kept in memory."""
        name = self._path(path, edit=False)
        folder = self.test_path.rsplit("/", 1)[0] if "/" in self.test_path else ""
        problem = test_file_problem(name, self.sources, folder)
        if not problem and self.workspace is not None and (self.workspace / name).exists():
            problem = f"{name} already exists; write_test never overwrites a file: choose a new name"
        if problem:
            raise ToolError(problem)
        if name != self.test_path:
            raise ToolError(f"write the reproduction test to {self.test_path} (the file this run creates), not {name}")
        if not isinstance(content, str) or not content.strip():
            raise ToolError("`content` must be the whole test file as a non-empty string")
        if len(content) > MAX_TEST_CHARS:
            raise ToolError(f"the test file is {len(content)} characters; keep it under {MAX_TEST_CHARS}")
        tree = parse(content)
        if tree.root_node.has_error:
            raise ToolError(f"{name} would have a syntax error near line {_first_error_line(tree.root_node)}; not written")
        if not _TEST_DEF.search(content):
            raise ToolError(f"{name} has no top-level test function (def test_...(): ...)")
        self.tests[name] = content if content.endswith("\n") else content + "\n"
        return f"wrote {name}: tests {', '.join(test_names(content))}"

    def patch(self, proposer: str, operator: str, summary: str, meta: Mapping[str, Any]) -> Patch | None:
        changes = tuple(FileChange(p, self.sources[p], after) for p, after in sorted(self.edited.items())
                        if after != self.sources[p])
        return Patch(changes, proposer, operator, summary, dict(meta)) if changes else None

    # ----- handlers ------------------------------------------------------------------------------

    def _view(self, args: Mapping[str, Any]) -> str:
        name, text = self._readable(args.get("path"))
        lines = text.splitlines()
        if not lines:
            return f"{name} is empty"
        start = _int(args.get("start_line", 1), "start_line")
        end = _int(args.get("end_line", min(len(lines), start + MAX_VIEW_LINES - 1)), "end_line")
        if start > len(lines):
            raise ToolError(f"{name} has only {len(lines)} lines")
        end = min(end, len(lines), start + MAX_VIEW_LINES - 1)
        if end < start:
            raise ToolError("end_line is before start_line")
        body = "\n".join(f"{i:>5} | {lines[i - 1]}" for i in range(start, end + 1))
        more = f"\n[lines {end + 1}-{len(lines)} not shown]" if end < len(lines) else ""
        return f"{name} lines {start}-{end} of {len(lines)}:\n{body}{more}"

    def _outline(self, args: Mapping[str, Any]) -> str:
        name, text = self._readable(args.get("path"))
        if not name.endswith(".py"):
            raise ToolError(f"{name} is not a Python file")
        return outline(text) or f"{name} defines no classes or functions"

    def _search(self, args: Mapping[str, Any]) -> str:
        symbol = args.get("name")
        if not isinstance(symbol, str) or not _SYMBOL.match(symbol):
            raise ToolError("`name` must be an identifier such as parse_date or Calculator.add")
        last = symbol.rsplit(".", 1)[-1]
        word = re.compile(rf"\b{re.escape(last)}\b")
        definition = re.compile(rf"^\s*(async\s+def|def|class)\s+{re.escape(last)}\b")
        defs: list[str] = []
        uses: list[str] = []
        for path in sorted(self.sources):
            for i, line in enumerate(self.text(path).splitlines(), 1):
                if word.search(line):
                    (defs if definition.match(line) else uses).append(f"{path}:{i}: {line.strip()[:160]}")
        hits = defs + uses
        if not hits:
            return f"{last} does not occur in the project's Python files"
        shown = hits[:MAX_SEARCH_HITS]
        more = f"\n[{len(hits) - len(shown)} more not shown]" if len(hits) > len(shown) else ""
        return "\n".join(shown) + more

    def _replace(self, args: Mapping[str, Any]) -> str:
        return self.replace(args.get("path"), args.get("old"), args.get("new"))

    def _write_test(self, args: Mapping[str, Any]) -> str:
        return self.write_test(args.get("path"), args.get("content"))

    # ----- validation ----------------------------------------------------------------------------

    def _path(self, raw: Any, edit: bool) -> str:
        if not isinstance(raw, str) or not raw.strip():
            raise ToolError("`path` must be a non-empty string relative to the project root")
        path = raw.strip().replace("\\", "/")
        if path.startswith("/") or re.match(r"^[A-Za-z]:", path) or path.startswith("~"):
            raise ToolError(f"{raw!r} is absolute; give a path relative to the project root")
        if ".." in path.split("/"):
            raise ToolError(f"{raw!r} leaves the project; `..` is not allowed")
        name = posixpath.normpath(path)
        if any(part.startswith(".") for part in name.split("/")) or _SECRET.search(name.rsplit("/", 1)[-1]):
            # What the model reads is sent to the API: keep keys, .env files and VCS internals out.
            raise ToolError(f"{name} is a hidden or credentials file; it is not shown or edited")
        if self.workspace is not None:
            probe = self.workspace
            for part in name.split("/"):
                probe = probe / part
                if probe.is_symlink():
                    raise ToolError(f"{name} goes through a symbolic link; only regular project files are allowed")
        if edit and self.is_test_file(name):
            raise ToolError(f"{name} is a test file; tests are the specification and may not be edited. "
                            "Fix the code under test instead")
        if edit and name not in self.sources:
            raise ToolError(f"{name} is not a Python source file of the project")
        return name

    def _readable(self, raw: Any) -> tuple[str, str]:
        name = self._path(raw, edit=False)
        if name in self.sources:
            return name, self.text(name)
        if self.workspace is not None:
            target = self.workspace / name
            try:
                if target.is_file() and target.stat().st_size <= MAX_OTHER_FILE_BYTES:
                    return name, target.read_text(encoding="utf-8", errors="replace")
            except OSError:
                pass
        raise ToolError(f"{name} does not exist (or is too large to show)")


def test_names(source: str) -> tuple[str, ...]:
    """The top-level test functions of a test file, in order."""
    return tuple(dict.fromkeys(_TEST_DEF.findall(source)))


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ToolError(f"`{what}` must be a whole number >= 1")
    return value


def _first_error_line(root: Any) -> int:
    for node in walk(root):
        if node.type == "ERROR" or node.is_missing:
            return int(node.start_point[0]) + 1
    return 1


def outline(text: str) -> str:
    """Classes and functions, indented by nesting, with 1-based line ranges."""
    rows: list[str] = []

    def visit(node: Any, depth: int) -> None:
        for child in node.children:
            target = child
            if child.type == "decorated_definition":
                target = child.child_by_field_name("definition") or child
            if target.type in ("function_definition", "class_definition"):
                name = target.child_by_field_name("name")
                label = (name.text or b"?").decode("utf-8", "replace") if name is not None else "?"
                kind = "class" if target.type == "class_definition" else "def"
                rows.append(f"{'    ' * depth}{kind} {label}  (lines {child.start_point[0] + 1}-{child.end_point[0] + 1})")
                body = target.child_by_field_name("body")
                if body is not None:
                    visit(body, depth + 1)

    visit(parse(text).root_node, 0)
    return "\n".join(rows)
