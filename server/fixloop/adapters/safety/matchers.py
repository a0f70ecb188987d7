"""The rule engine: find the flagged constructs in a tree-sitter tree.

Candidates are found by name: a regular expression finds every place a rule-relevant name (or a
local alias of one) is written, and the tree decides what is there. A name inside a string or a
comment is not an identifier node; a name that is not the callee of a call (`obj.eval` as a value)
is not a call. This costs a few milliseconds on a 5,000-line file, where a tree query walks the
whole tree (about 12 ms). Every finding is keyed by the start byte of its name (the anchor), which
is what lets the incremental scanner re-scan only part of a file.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from functools import lru_cache

from tree_sitter import Node

from fixloop.core.model import Finding
from fixloop.adapters.safety.bindings import Bindings
from fixloop.adapters.safety.nodes import _STRING_HINTS, _trie, _FOLDABLE, _FOLD_PATH, _LOOKUP_BUILTINS, _arguments, _fold, _is_outside_path, _is_secret_name, _last_name, _leading_text, _literal, _looks_like_secret, _short, _text, _truth, _writes
from fixloop.adapters.safety.catalog import (
    ANCHOR_NAMES,
    BLOCKED_ATTRS,
    BLOCKED_STRINGS,
    CALL_KINDS,
    FRAME_ATTRS,
    SENSITIVE_MODULES,
    PATH_DELETE_METHODS,
    PATH_WRITE_METHODS,
    RAW_WRITES,
    RULES,
    TAKEOVER_NAMES,
    YAML_SAFE_LOADERS,
    is_harness,
)
from fixloop.adapters.safety.invisible import invisible
from fixloop.adapters.safety.takeover import Takeover, proc_paths

# Matched against the lower-cased text (same offsets: bytes.lower() maps ASCII only); factored by
# first letter, which makes the search about 7x faster than a case-insensitive alternation.
_SECRET = re.compile(rb"p(?:ass(?:word|wd|phrase)|wd|rivate_?key)|secret|token|a(?:pi_?key|ccess_?key|uth_?key)"
                     rb"|credential")
_HOME_VARS = {"HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "XDG_CONFIG_HOME", "XDG_DATA_HOME"}
_PATH_CTORS = {"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "pathlib.PurePosixPath",
               "pathlib.WindowsPath", "os.path.join", "posixpath.join", "ntpath.join", "os.path.normpath",
               "os.fspath", "str", "os.path.expanduser", "os.path.expandvars"}
_PATH_DERIVED = {"expanduser", "resolve", "absolute", "joinpath", "with_name", "with_suffix", "parent"}


@dataclass(frozen=True)
class Hit:
    anchor: int  # start byte of the flagged name
    finding: Finding


@lru_cache(maxsize=64)
def _anchor_pattern(extra: frozenset[str]) -> re.Pattern[bytes]:
    """`\b(?:name|name...)\b` with the names folded into a trie: re tries alternatives one by one,
    so sharing prefixes makes the search about twice as fast."""
    return re.compile(rb"\b(?:" + _trie(sorted(n.encode() for n in ANCHOR_NAMES | extra)) + rb")\b")



class Matcher:
    """Scans byte ranges of one parsed text."""

    def __init__(self, src: bytes, root: Node, bindings: Bindings, path: str, is_test: bool) -> None:
        self.src, self.root, self.bindings, self.path, self.is_test = src, root, bindings, path, is_test
        aliases = frozenset(local for local, target in bindings.names.items()
                            if target in CALL_KINDS or is_harness(target) or target in TAKEOVER_NAMES | RAW_WRITES)
        self.anchors = _anchor_pattern(aliases)
        # Weak: a cycle would keep the parse tree (native memory) until a full collection, rare in the server.
        qualify = weakref.WeakMethod(self.qualify)
        self.takeover = Takeover(lambda node: qualify()(node), lambda name: name in bindings.names)  # type: ignore[misc]

    def scan(self, start: int = 0, end: int | None = None) -> dict[int, Hit]:
        end = len(self.src) if end is None else end
        hits: dict[int, Hit] = {}
        for m in self.anchors.finditer(self.src, start, end):
            node = self.root.descendant_for_byte_range(m.start(), m.end())
            if node is not None and node.type == "identifier" and node.start_byte == m.start() \
                    and node.end_byte == m.end():
                hit = self._reference(node) or self._call(node) or self._taken(node)
                if hit is not None:
                    hits[hit.anchor] = hit
        for pattern, quote_at in _STRING_HINTS:  # a few simple patterns: one alternation is 4x slower
            for m in pattern.finditer(self.src, start, end):
                hit = self._built_string(quote_at(m))
                if hit is not None and hit.anchor not in hits:
                    hits[hit.anchor] = hit
        for at, node, message in proc_paths(self.src, self.root, start, end):
            hits.setdefault(at, self._hit("FL-S015", node, node, message))
        for at, stop, message in invisible(self.src, start, end):
            hits.setdefault(at, self._hit_bytes("FL-S014", at, stop, message))
        for m in _SECRET.finditer(self.src.lower(), start, end):
            node = self.root.descendant_for_byte_range(m.start(), m.end())
            if node is not None and node.start_byte not in hits:
                hit = self._secret(node)
                if hit is not None:
                    hits[hit.anchor] = hit
        return hits

    # --- calls -------------------------------------------------------------------------------

    def _call(self, name: Node) -> Hit | None:
        parent = name.parent
        if parent is None:
            return None
        func: Node = name
        if parent.type == "attribute" and parent.child_by_field_name("attribute") == name:
            func, parent = parent, parent.parent  # type: ignore[assignment]
        if parent is None or parent.type != "call" or parent.child_by_field_name("function") != func:
            return None
        call = parent
        qualified = self.qualify(func)
        kind = CALL_KINDS.get(qualified) if qualified else None
        if kind is None:
            return self._path_method(name, func, call)
        pos, kw = _arguments(call)
        q = qualified
        if kind == "exec":
            if pos and _literal(pos[0]) is None:
                return self._hit("FL-S001", name, call, f"{q}() on a non-literal argument runs arbitrary code")
        elif kind == "os_shell":
            return self._hit("FL-S002", name, call, f"{q}() runs a command through the shell")
        elif kind == "subprocess":
            shell = kw.get("shell")
            truth = _truth(shell) if shell is not None else False
            if truth is True:
                return self._hit("FL-S003", name, call, f"{q}(..., shell=True) runs the command through the shell")
            if truth is None:
                return self._hit("FL-S003", name, call, f"{q}(..., shell={_short(shell)}) may run a shell",
                                 severity="warning")
        elif kind == "shell_always":
            return self._hit("FL-S003", name, call, f"{q}() always runs the command through the shell")
        elif kind == "deserialize":
            return self._hit("FL-S004", name, call, f"{q}() can run code embedded in the data")
        elif kind == "yaml":
            loader = kw.get("Loader") or (pos[1] if len(pos) > 1 else None)
            loader_name = ((self.qualify(loader) or _last_name(loader)).rsplit(".", 1)[-1]) if loader else ""
            if "unsafe" in q or loader is None or loader_name not in YAML_SAFE_LOADERS:
                return self._hit("FL-S005", name, call, f"{q}() without a safe Loader")
        elif kind == "mktemp":
            return self._hit("FL-S006", name, call, f"{q}() is open to a race on the file name")
        elif kind == "open":
            target = pos[0] if pos else kw.get("file")
            mode = pos[1] if len(pos) > 1 else kw.get("mode")
            if target is not None and _writes(mode) and self.outside(target):
                return self._hit("FL-S008", name, call, f"{q}() writes to {_short(target)}, outside the project")
        elif kind == "delete":
            target = pos[0] if pos else kw.get("path")
            if target is not None and self.outside(target):
                return self._hit("FL-S009", name, call, f"{q}() deletes {_short(target)}, outside the project")
        elif kind == "network":
            if not self.is_test:
                return self._hit("FL-S010", name, call, f"{q}() opens a network connection")
        elif kind == "import":
            module = _fold(pos[0]) if pos else None
            if pos and module is None:
                return self._hit("FL-S013", name, call, f"{q}() of a computed module name")
            if module is not None and re.split(r"[.:]", module, maxsplit=1)[0] in SENSITIVE_MODULES:
                return self._hit("FL-S013", name, call, f"{q}({module!r}) imports {module} by name")
        elif kind == "lookup":
            return self._lookup(name, call, q, pos)
        elif kind == "namespace":
            return self._namespace(name, call, f"{q}()")
        return None

    # --- FL-S013: reaching into the interpreter or the test harness --------------------------

    def _reference(self, name: Node) -> Hit | None:
        """A frame attribute, a harness name or module used in any way (called, passed, imported)."""
        parent = name.parent
        if parent is None:
            return None
        text = _text(name)
        if parent.type == "attribute" and parent.child_by_field_name("attribute") == name:
            if text in FRAME_ATTRS:
                return self._hit("FL-S013", name, parent, f".{text} reaches into a stack frame")
            if text == "__dict__":
                obj = parent.child_by_field_name("object")
                if obj is not None and self.qualify(obj) in SENSITIVE_MODULES:
                    return self._hit("FL-S013", name, parent, f"{_short(parent)} exposes a module's namespace")
                return self._namespace(name, parent, _short(parent))
            if text == "__getattribute__":
                call = parent.parent
                if call is not None and call.type == "call" and call.child_by_field_name("function") == parent:
                    pos, _ = _arguments(call)
                    attr = _fold(pos[-1]) if pos else ""
                    if attr is None or attr in BLOCKED_ATTRS:
                        return self._hit("FL-S013", name, call, f".__getattribute__({_short(pos[-1])}) looks up "
                                         "an attribute by a computed or blocked name")
                return None
            node: Node = parent
        else:
            if text == "__builtins__":
                return self._hit("FL-S013", name, name, "__builtins__ reaches the interpreter's builtins")
            if text in _LOOKUP_BUILTINS and self.qualify(name) == text and not (
                    parent.type == "call" and parent.child_by_field_name("function") == name):
                return self._hit("FL-S013", name, name, f"{text} passed around as a value (a computed lookup)")
            node = name
        qualified = self.qualify(node)
        if not qualified or not is_harness(qualified):
            return None
        span = node.parent if node.parent is not None and node.parent.type == "call" \
            and node.parent.child_by_field_name("function") == node else node
        return self._hit("FL-S013", name, span, f"{qualified} reaches into the interpreter, the test harness "
                         "or the process itself")

    def _lookup(self, name: Node, call: Node, q: str, pos: list[Node]) -> Hit | None:
        """getattr/setattr/delattr/getattr_static (object, name) and attrgetter/methodcaller (name)."""
        if q.rsplit(".", 1)[-1] in ("attrgetter", "methodcaller"):
            attr = _fold(pos[0]) if pos else ""
            if attr is None or any(part in BLOCKED_ATTRS for part in attr.split(".")):
                return self._hit("FL-S013", name, call, f"{q}() of a computed or blocked attribute name")
            return None
        if not pos:
            return None
        if self.qualify(pos[0]) in SENSITIVE_MODULES:
            return self._hit("FL-S013", name, call, f"{q}() on the {self.qualify(pos[0])} module")
        if len(pos) < 2:
            return None
        attr = _fold(pos[1])
        if attr is None:
            return self._hit("FL-S013", name, call, f"{q}() of a computed attribute name ({_short(pos[1])})")
        if attr in BLOCKED_ATTRS:
            return self._hit("FL-S013", name, call, f"{q}(..., {attr!r}) reaches into the interpreter")
        return None

    def _namespace(self, name: Node, expr: Node, what: str) -> Hit | None:
        """`globals()[key]`, `vars(x).get(key)`, `obj.__dict__[key]`: flagged when the key is computed
        or names something the rule blocks."""
        parent = expr.parent
        key: Node | None = None
        if parent is not None and parent.type == "subscript" and parent.child_by_field_name("value") == expr:
            key = parent.child_by_field_name("subscript")
            span = parent
        elif parent is not None and parent.type == "attribute" and parent.child_by_field_name("object") == expr:
            method, call = parent.child_by_field_name("attribute"), parent.parent
            if _text(method) not in ("get", "pop", "setdefault", "__getitem__") or call is None \
                    or call.type != "call":
                return None
            pos, _ = _arguments(call)
            key, span = (pos[0] if pos else None), call
        if key is None:
            return None
        value = _fold(key)
        if value is None:
            return self._hit("FL-S013", name, span, f"{what}[{_short(key)}] looks up a computed name")
        if value in BLOCKED_STRINGS or value in BLOCKED_ATTRS or value in SENSITIVE_MODULES \
                or value in ("__import__", "getattr", "__builtins__"):
            return self._hit("FL-S013", name, span, f"{what}[{value!r}] reaches into the interpreter")
        return None

    def _built_string(self, quote: int) -> Hit | None:
        """A string literal, or an expression of literals (+, %, .format, .join, f-strings), that spells
        a blocked name: `getattr(sys, "_get" + "frame")` is `sys._getframe`."""
        if quote < 0 or self.src[quote:quote + 1] not in (b"'", b'"'):
            return None
        node = self.root.descendant_for_byte_range(quote, quote + 1)
        for _ in range(3):
            if node is None or node.type == "string":
                break
            node = node.parent
        if node is None or node.type != "string":
            return None
        best: Node | None = None
        for _ in range(10):
            if node.type in _FOLDABLE:
                value = _fold(node)
                if value is not None and value in BLOCKED_STRINGS:
                    best = node
            parent = node.parent
            if parent is None or parent.type not in _FOLD_PATH:
                break
            node = parent
        if best is None:
            return None
        return self._hit("FL-S013", best, best, f"the string {_fold(best)!r} names what the rule blocks")

    def _path_method(self, name: Node, func: Node, call: Node) -> Hit | None:
        method = _text(name)
        if func.type != "attribute" or (method not in PATH_WRITE_METHODS and method not in PATH_DELETE_METHODS):
            return None
        obj = func.child_by_field_name("object")
        if obj is None:
            return None
        pos, kw = _arguments(call)
        if method in PATH_WRITE_METHODS and (method != "open" or _writes(pos[0] if pos else kw.get("mode"))):
            if self.outside(obj):
                return self._hit("FL-S008", name, call, f".{method}() writes to {_short(obj)}, outside the project")
        if method in PATH_DELETE_METHODS and self.outside(obj):
            return self._hit("FL-S009", name, call, f".{method}() deletes {_short(obj)}, outside the project")
        return None

    def qualify(self, node: Node) -> str | None:
        return self.bindings.qualify_node(node)

    def outside(self, node: Node, depth: int = 0) -> bool:
        """Whether an expression is, visibly, an absolute or home-directory path."""
        if depth > 8:
            return False
        t = node.type
        if t in ("string", "concatenated_string"):
            lead = _leading_text(node)
            return lead is not None and _is_outside_path(lead)
        if t == "parenthesized_expression" and node.named_children:
            return self.outside(node.named_children[0], depth + 1)
        if t == "binary_operator":
            op, left = node.child_by_field_name("operator"), node.child_by_field_name("left")
            return op is not None and op.type in ("/", "+") and left is not None and self.outside(left, depth + 1)
        if t == "attribute":
            obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
            return attr is not None and _text(attr) == "parent" and obj is not None and self.outside(obj, depth + 1)
        if t == "subscript":
            value, index = node.child_by_field_name("value"), node.child_by_field_name("subscript")
            return value is not None and index is not None and self.qualify(value) == "os.environ" \
                and _literal(index) in _HOME_VARS
        if t != "call":
            return False
        func = node.child_by_field_name("function")
        if func is None:
            return False
        pos, _ = _arguments(node)
        q = self.qualify(func) or ""
        if not q and func.type == "identifier" and _text(func) in ("Path", "PurePath"):
            q = "pathlib.Path"  # used without an import we could see (a snippet, a star import)
        if q == "pathlib.Path.home":
            return True
        if q in _PATH_CTORS:
            return bool(pos) and self.outside(pos[0], depth + 1)
        if q in ("os.getenv", "os.environ.get"):
            return bool(pos) and _literal(pos[0]) in _HOME_VARS
        if func.type == "attribute":
            attr, obj = func.child_by_field_name("attribute"), func.child_by_field_name("object")
            if attr is not None and obj is not None and _text(attr) in _PATH_DERIVED:
                return self.outside(obj, depth + 1)
        return False

    # --- secrets -----------------------------------------------------------------------------

    def _secret(self, node: Node) -> Hit | None:
        value: Node | None = None
        holder: Node | None = None
        if node.type == "identifier":
            parent = node.parent
            name_node: Node = node
            if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
                name_node, parent = parent, parent.parent
            if parent is None:
                return None
            field = {"assignment": "left", "keyword_argument": "name", "default_parameter": "name",
                     "typed_default_parameter": "name"}.get(parent.type)
            if field is None or parent.child_by_field_name(field) != name_node:
                return None
            holder, value = parent, parent.child_by_field_name("right" if parent.type == "assignment" else "value")
            name = _text(node)
        elif node.type == "string_content":
            string = node.parent
            pair = string.parent if string is not None else None
            if pair is None or pair.type != "pair" or pair.child_by_field_name("key") != string:
                return None
            holder, value = pair, pair.child_by_field_name("value")
            name = _literal(string) or ""
            node = string  # type: ignore[assignment]
        else:
            return None
        secret = _literal(value) if value is not None else None
        if secret is None or not _is_secret_name(name) or not _looks_like_secret(secret, name):
            return None
        return self._hit("FL-S007", node, holder, f"'{name}' is assigned a hard-coded secret",
                         severity="warning" if self.is_test else None)

    def _taken(self, name: Node) -> Hit | None:
        flag = self.takeover.check(name)
        return None if flag is None else self._hit(flag[0], name, flag[1], flag[2])

    # --- findings ----------------------------------------------------------------------------

    def _hit_bytes(self, code: str, start: int, end: int, message: str) -> Hit:
        line, col = self.src.count(b"\n", 0, start), start - (self.src.rfind(b"\n", 0, start) + 1)
        finding = Finding(path=self.path, line=line + 1, code=code, message=f"{message} ({RULES[code].name})",
                          severity=RULES[code].severity, column=self._column(start, col), end_line=line + 1,
                          end_column=self._column(start, col) + 1)
        return Hit(start, finding)

    def _hit(self, code: str, name: Node, span: Node, message: str, severity: str | None = None) -> Hit:
        rule = RULES[code]
        start, end = span.start_point, span.end_point
        finding = Finding(
            path=self.path, line=start[0] + 1, code=code, message=f"{message} ({rule.name})",
            severity=severity or rule.severity, column=self._column(span.start_byte, start[1]),
            end_line=end[0] + 1, end_column=self._column(span.end_byte, end[1]),
        )
        return Hit(name.start_byte, finding)

    def _column(self, byte: int, byte_column: int) -> int:
        return len(self.src[byte - byte_column : byte].decode("utf-8", "replace"))
