"""tree-sitter helpers shared by the repair engine: parse, walk, and byte/character offsets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

import tree_sitter_python
from tree_sitter import Language, Node, Parser, Tree

PY = Language(tree_sitter_python.language())


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(PY)


def parse(text: str) -> Tree:
    return _parser().parse(text.encode("utf-8"))


def parses(text: str) -> bool:
    return not parse(text).root_node.has_error


def walk(node: Node) -> Iterator[Node]:
    cursor = node.walk()
    visited_children = False
    while True:
        if not visited_children:
            yield cursor.node  # type: ignore[misc]
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            return


class Offsets:
    """Maps tree-sitter byte offsets to character offsets of the decoded text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self._data = text.encode("utf-8")

    def char(self, byte_offset: int) -> int:
        if self.ascii:
            return byte_offset
        return len(self._data[:byte_offset].decode("utf-8", "replace"))


@dataclass(frozen=True)
class Function:
    name: str
    start_line: int  # 1-based, inclusive
    end_line: int


@lru_cache(maxsize=256)
def functions_in(text: str) -> tuple[Function, ...]:
    out: list[Function] = []
    for node in walk(parse(text).root_node):
        if node.type == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None and name.text is not None:
                out.append(Function(name.text.decode("utf-8", "replace"), node.start_point[0] + 1, node.end_point[0] + 1))
    return tuple(out)
