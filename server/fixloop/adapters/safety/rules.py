"""tree-sitter safety rules: `scan(text)` for one-off use, `IncrementalScanner` for an editor buffer.

The rules and their codes are in `catalog.py`; the matching is in `matchers.py`. This module owns
parsing (with a parser per thread from `fixloop.kit.treesitter`): text encoded so that no input can
raise, and the incremental path (tree.edit + re-parse with the old tree + changed_ranges) that lets
the language server re-scan only the statements a didChange touched.
"""

from __future__ import annotations

from typing import Collection

from tree_sitter import Node, Tree

from fixloop.core.integrity import is_test_file
from fixloop.core.model import Finding
from fixloop.adapters.safety.bindings import Bindings, collect
from fixloop.kit.treesitter import parser as _parser
from fixloop.adapters.safety.matchers import Hit, Matcher

_DEFINITIONS = {"function_definition", "class_definition", "decorated_definition", "module"}


def encode(text: str) -> bytes:
    """UTF-8 bytes of any str: an unencodable character (a lone surrogate) becomes one '?' byte,
    so character columns stay right and nothing raises."""
    return text.encode("utf-8", "replace")


def scan(text: str, path: str = "", *, codes: Collection[str] | None = None) -> list[Finding]:
    """Findings in one Python source text, ordered by position: of every rule, or only of `codes`
    (e.g. `catalog.EDITOR_CODES`)."""
    return [h.finding for h in scan_hits(text, path) if codes is None or h.finding.code in codes]


def scan_hits(text: str, path: str = "") -> list[Hit]:
    src = encode(text)
    root = _parser().parse(src).root_node
    matcher = Matcher(src, root, collect(root, src), path, bool(path) and is_test_file(path))
    return _ordered(matcher.scan().values())


def _ordered(hits: object) -> list[Hit]:
    return sorted(hits, key=lambda h: (h.finding.line, h.finding.column, h.finding.code))  # type: ignore[attr-defined]


class IncrementalScanner:
    """Holds one buffer's tree and findings; `update(new_text)` re-parses incrementally and
    re-scans only the statements around what changed. The result always equals `scan(new_text)`.

    One instance per open document (on didOpen; feed it the full text after each didChange, or drop
    it on didClose). Not thread-safe: give each instance to one worker at a time."""

    def __init__(self, path: str = "", codes: Collection[str] | None = None) -> None:
        self.path = path
        self.codes = codes
        self.is_test = bool(path) and is_test_file(path)
        self._src: bytes | None = None
        self._tree: Tree | None = None
        self._bindings = Bindings()
        self._hits: dict[int, Hit] = {}
        self.last_span: tuple[int, int] | None = None  # bytes re-scanned by the last update; None = all

    def findings(self) -> list[Finding]:
        return [h.finding for h in _ordered(self._hits.values()) if self.codes is None or h.finding.code in self.codes]

    def update(self, text: str) -> list[Finding]:
        src = encode(text)
        if self._tree is None or self._src is None:
            return self._full(src, _parser().parse(src))
        if src == self._src:
            return self.findings()
        old = self._src
        start, old_end, new_end = edit_span(old, src)
        old_tree = self._tree
        # Module bindings (imports, aliases) cannot change when both the removed and the inserted text
        # lie inside one function body and name no import or global: skip re-collecting them then.
        local_edit = _in_function_body(old_tree.root_node, start, old_end) and not any(
            word in text for text in (old[start:old_end], src[start:new_end]) for word in (b"import", b"global"))
        old_tree.edit(start_byte=start, old_end_byte=old_end, new_end_byte=new_end,
                      start_point=_point(old, start), old_end_point=_point(old, old_end),
                      new_end_point=_point(src, new_end))
        tree = _parser().parse(src, old_tree)
        root = tree.root_node
        local_edit = local_edit and _in_function_body(root, start, new_end)
        bindings = self._bindings if local_edit else collect(root, src)
        if bindings.key() != self._bindings.key():
            return self._full(src, tree, bindings)  # an import changed: every call may mean something else
        lo, hi = start, new_end
        for r in old_tree.changed_ranges(tree):
            lo, hi = min(lo, r.start_byte), max(hi, r.end_byte)
        lo, hi = _statement_lines(root, src, lo, hi)
        if hi - lo > len(src) // 2:
            return self._full(src, tree, bindings)
        delta = len(src) - len(old)
        old_hi = hi - delta
        dlines = src.count(b"\n", lo, hi) - old.count(b"\n", lo, old_hi)
        hits: dict[int, Hit] = {}
        for anchor, hit in self._hits.items():
            if anchor < lo:
                hits[anchor] = hit
            elif anchor >= old_hi:
                hits[anchor + delta] = _shift(hit, delta, dlines)
        hits.update(Matcher(src, root, bindings, self.path, self.is_test).scan(lo, hi))
        self._src, self._tree, self._hits, self.last_span = src, tree, hits, (lo, hi)
        return self.findings()

    def _full(self, src: bytes, tree: Tree, bindings: Bindings | None = None) -> list[Finding]:
        root = tree.root_node
        bindings = bindings if bindings is not None else collect(root, src)
        self._hits = Matcher(src, root, bindings, self.path, self.is_test).scan()
        self._src, self._tree, self._bindings, self.last_span = src, tree, bindings, None
        return self.findings()


def _in_function_body(root: Node, lo: int, hi: int) -> bool:
    node: Node | None = root.descendant_for_byte_range(lo, max(lo, hi - 1) if hi > lo else lo)
    while node is not None:
        if node.type == "block" and node.parent is not None and node.parent.type == "function_definition":
            return True
        node = node.parent
    return False


def _statement_lines(root: Node, src: bytes, lo: int, hi: int) -> tuple[int, int]:
    """Widen [lo, hi) to the smallest statement that holds it, then to whole lines. A flagged call
    that contains a changed byte lies inside that statement, so nothing outside it can change."""
    node: Node | None = root.descendant_for_byte_range(lo, max(lo, hi - 1) if hi > lo else lo)
    while node is not None and not (node.type.endswith("_statement") or node.type in _DEFINITIONS):
        node = node.parent
    if node is not None and node.type != "module":
        lo, hi = min(lo, node.start_byte), max(hi, node.end_byte)
    elif node is not None:
        return 0, len(src)
    line_start = src.rfind(b"\n", 0, lo) + 1
    line_end = src.find(b"\n", hi)
    return line_start, len(src) if line_end < 0 else line_end + 1


def _shift(hit: Hit, delta: int, dlines: int) -> Hit:
    if not delta and not dlines:
        return hit
    f = hit.finding
    moved = Finding(f.path, f.line + dlines, f.code, f.message, f.severity, f.column,
                    f.end_line + dlines if f.end_line else 0, f.end_column)
    return Hit(hit.anchor + delta, moved)


def edit_span(old: bytes, new: bytes) -> tuple[int, int, int]:
    """The single edit turning `old` into `new`: (start, old_end, new_end), on UTF-8 character bounds."""
    limit = min(len(old), len(new))
    lo, hi = 0, limit
    while lo < hi:  # the longest common prefix, by halving: slice compares run in C
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    while prefix > 0 and ((prefix < len(old) and old[prefix] & 0xC0 == 0x80)
                          or (prefix < len(new) and new[prefix] & 0xC0 == 0x80)):
        prefix -= 1
    lo, hi = 0, limit - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:] == new[len(new) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    suffix = lo
    while suffix > 0 and old[len(old) - suffix] & 0xC0 == 0x80:
        suffix -= 1
    return prefix, len(old) - suffix, len(new) - suffix


def _point(src: bytes, byte: int) -> tuple[int, int]:
    return src.count(b"\n", 0, byte), byte - (src.rfind(b"\n", 0, byte) + 1)
