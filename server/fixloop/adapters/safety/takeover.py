"""FL-S015 (a candidate taking over its own test process) and the FL-S013 routes that need their context:
what the rule engine (matchers.py) asks of an anchor no other rule flagged.

A forged pass needs the test process to write where fixloop reads, or to end before pytest says what really
happened: raw writes to descriptors it inherited, `exec*` replacing pytest (with `/bin/true`), a fork, an
exit (`sys.exit`, `SystemExit`, `pytest.exit`), a signal to itself or its parent, a limit that kills it. And
it needs a way to the harness's objects: the object graph (`__subclasses__`, `__globals__`, closures), a
traceback's frames (`sys.exc_info()[2]`), or swapping a function's code (`__code__ = ...`). Each check gets
the anchor's identifier node and returns (code, span, message) or None.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from tree_sitter import Node

from fixloop.adapters.safety.catalog import BY_NUMBER, GRAPH_ATTRS, KILLERS, RAW_WRITES, SUBPROCESS, TAKEOVER_NAMES, TIMER_SIGNALS
from fixloop.adapters.safety.nodes import _arguments, _leading_text, _literal, _text

Flag = tuple[str, Node, str]
# Process starters whose arguments are checked for a kill of the test's own process.
_STARTERS = SUBPROCESS | {"asyncio.create_subprocess_exec", "os.system", "os.popen", "subprocess.getoutput",
                          "subprocess.getstatusoutput"}
_OWN_PIDS = {"os.getpid", "os.getppid", "os.getpgrp", "os.getpgid", "os.getsid"}
_PROC = re.compile(rb"/proc/|/dev/fd\b")
_OWN_PROC = re.compile(r"(?:/proc/(?:self|thread-self|\d+)(?:/|$)|/proc/$|/dev/fd)")


class Takeover:
    def __init__(self, qualify: Callable[[Node], str | None], rebound: Callable[[str], bool]) -> None:
        self.qualify = qualify  # a node -> the qualified name it stands for (imports and aliases resolved)
        self.rebound = rebound  # whether the module binds this builtin's name to something of its own

    def check(self, name: Node) -> Flag | None:
        parent = name.parent
        if parent is None:
            return None
        text = _text(name)
        if parent.type == "attribute" and parent.child_by_field_name("attribute") == name:
            if text in GRAPH_ATTRS:
                return "FL-S013", parent, f".{text} reaches objects through the interpreter's object graph"
            if text == "__code__" and _assigned(parent):
                return "FL-S013", parent, "assigning .__code__ swaps the code a function runs"
            node: Node = parent
        else:
            node = name
        call = node.parent if node.parent is not None and node.parent.type == "call" \
            and node.parent.child_by_field_name("function") == node else None
        if text in ("exit", "quit", "SystemExit") and node is name and not self.rebound(text):
            if call is not None or (text == "SystemExit" and _raised(name)):
                return "FL-S015", call or name, f"{text} ends the test process"
            return None
        qualified = self.qualify(node) or ""
        if qualified in TAKEOVER_NAMES:
            return "FL-S015", call or node, f"{qualified} replaces, forks, ends, signals or limits the test process"
        if qualified == "sys.exc_info" and call is not None and _third_of(call):
            return "FL-S013", call.parent or call, "sys.exc_info()'s traceback leads to the harness's frames"
        if call is None:
            if qualified in RAW_WRITES:
                return "FL-S015", node, f"{qualified} passed around (a raw write to a descriptor)"
            return None
        return self._call(call, qualified)

    def _call(self, call: Node, qualified: str) -> Flag | None:
        pos, kw = _arguments(call)
        first = pos[0] if pos else kw.get("fd") or kw.get("file")
        if qualified in RAW_WRITES and (first is None or _int(first) not in (1, 2)):
            return "FL-S015", call, f"{qualified}() to a descriptor other than stdout or stderr"
        if qualified in BY_NUMBER and first is not None and (_int(first) or 0) > 2:
            return "FL-S015", call, f"{qualified}() of descriptor {_text(first)} opens one the process inherited"
        if qualified == "signal.signal" and first is not None and _text(first).rsplit(".", 1)[-1] in TIMER_SIGNALS:
            return "FL-S015", call, f"a handler for {_text(first)} switches off the timer that stops a hung test"
        if qualified in _STARTERS and self._kills_itself(pos):
            return "FL-S015", call, f"{qualified}() signals the test's own process"
        return None

    def _kills_itself(self, args: list[Node]) -> bool:
        for arg in args:
            program = arg.named_children[0] if arg.type in ("list", "tuple") and arg.named_children else arg
            words = (_literal(program) or "").split()
            if words and words[0].rsplit("/", 1)[-1] in KILLERS:
                return True
            for c in _calls(arg):
                func = c.child_by_field_name("function")
                if func is not None and self.qualify(func) in _OWN_PIDS:
                    return True
        return False


def proc_paths(src: bytes, root: Node, start: int, end: int) -> Iterator[tuple[int, Node, str]]:
    """String literals naming the process's own /proc entries or descriptors (its memory, its pipes):
    (anchor, the string node, message). `/proc/cpuinfo` and the like are not the process's own."""
    for m in _PROC.finditer(src, start, end):
        node: Node | None = root.descendant_for_byte_range(m.start(), m.end())
        while node is not None and node.type not in ("string", "comment"):
            node = node.parent
        if node is None or node.type == "comment":
            continue
        lead = _leading_text(node) or ""
        at = lead.find("/proc/") if "/proc/" in lead else lead.find("/dev/fd")
        if at >= 0 and _OWN_PROC.match(lead[at:]):
            yield node.start_byte, node, f"the path {lead[at:at + 40]!r} reaches the test process's own descriptors or memory"


def _assigned(attr: Node) -> bool:
    parent = attr.parent
    while parent is not None and parent.type in ("pattern_list", "tuple_pattern", "list_pattern"):
        parent = parent.parent
    if parent is None:
        return False
    if parent.type in ("assignment", "augmented_assignment"):
        left = parent.child_by_field_name("left")
        return left is not None and left.start_byte <= attr.start_byte < left.end_byte
    return parent.type == "delete_statement"


def _raised(name: Node) -> bool:
    parent = name.parent
    return parent is not None and parent.type == "raise_statement"


def _third_of(call: Node) -> bool:
    """`sys.exc_info()[2]` (or [-1], or a slice) and `a, b, tb = sys.exc_info()` with a named third target."""
    parent = call.parent
    if parent is None:
        return False
    if parent.type == "subscript" and parent.child_by_field_name("value") == call:
        index = parent.child_by_field_name("subscript")
        return index is None or index.type == "slice" or _text(index).replace(" ", "") in ("2", "-1")
    if parent.type == "assignment" and parent.child_by_field_name("right") == call:
        left = parent.child_by_field_name("left")
        targets = left.named_children if left is not None and left.type in ("pattern_list", "tuple_pattern",
                                                                            "list_pattern") else []
        return len(targets) == 3 and _text(targets[2]) != "_"
    return False


def _int(node: Node) -> int | None:
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _int(node.named_children[0])
    if node.type == "integer":
        try:
            return int(_text(node).replace("_", ""), 0)
        except ValueError:
            return None
    return -1  # not a literal: any descriptor at all


def _calls(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "call":
            yield n
        stack.extend(n.named_children)
