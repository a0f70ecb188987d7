"""The project's functions, found statically with tree-sitter (project code is never imported on the host)."""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from typing import Iterator, Mapping

from fixloop.core.integrity import is_test_file
from fixloop.core.goal import Target


def module_name(path: str, sources: Mapping[str, str]) -> str:
    """The dotted name a test imports `path` by. Tests run with the project root on `sys.path`
    (`python -m pytest`), so the path from the root is the name; a `src/` layout drops `src` unless the
    project's own tests import it as `src.`."""
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts and parts[0] == "src" and len(parts) > 1:
        uses_src = any(("from src." in t or "import src." in t) for p, t in sources.items() if is_test_file(p))
        if not uses_src:
            parts = parts[1:]
    return ".".join(parts)


def _text(node: object) -> str:
    raw = node.text if node is not None else b""  # type: ignore[attr-defined]
    return (raw or b"").decode("utf-8", "replace")


def _docstring(body: object) -> str:
    """The first statement's string, cleaned like `inspect.cleandoc` (parsed with `ast`, never run)."""
    if body is None:
        return ""
    for child in body.named_children:  # type: ignore[attr-defined]
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_children and \
                child.named_children[0].type == "string":
            try:
                value = ast.literal_eval(_text(child.named_children[0]))
            except (ValueError, SyntaxError):
                return ""
            return inspect.cleandoc(value) if isinstance(value, str) else ""
        return ""
    return ""


def _definitions(node: object, prefix: str) -> Iterator[tuple[str, object, object]]:
    """(qualified name, the definition node, the node to quote: its decorated form when decorated)."""
    for child in node.named_children:  # type: ignore[attr-defined]
        outer, inner = child, child
        if child.type == "decorated_definition":
            inner = child.child_by_field_name("definition")
            if inner is None:
                continue
        if inner.type == "function_definition":
            name = _text(inner.child_by_field_name("name"))
            yield prefix + name, inner, outer
        elif inner.type == "class_definition":
            name = _text(inner.child_by_field_name("name"))
            body = inner.child_by_field_name("body")
            if body is not None:
                yield from _definitions(body, f"{prefix}{name}.")


def functions(path: str, text: str, sources: Mapping[str, str]) -> list[Target]:
    """Every module-level function and method of one file (nested functions are not targets)."""
    from fixloop.kit.treesitter import parser  # tree-sitter loads when a goal asks for it

    data = text.encode("utf-8", "surrogatepass")
    tree = parser().parse(data)
    module = module_name(path, sources)
    out: list[Target] = []
    for qualified, node, outer in _definitions(tree.root_node, ""):
        params = node.child_by_field_name("parameters")  # type: ignore[attr-defined]
        short = qualified.rsplit(".", 1)[-1]
        out.append(Target(
            path=path, function=qualified,
            line=outer.start_point[0] + 1, end_line=outer.end_point[0] + 1,  # type: ignore[attr-defined]
            module=module, source=_text(outer), docstring=_docstring(node.child_by_field_name("body")),  # type: ignore[attr-defined]
            signature=f"{short}{_text(params)}"))
    return out


@dataclass
class Index:
    """The functions of the project's non-test Python files."""

    targets: list[Target]

    @classmethod
    def build(cls, sources: Mapping[str, str]) -> "Index":
        targets: list[Target] = []
        for path in sorted(sources):
            if path.endswith(".py") and not is_test_file(path):
                targets.extend(functions(path, sources[path], sources))
        return cls(targets)

    def named(self, name: str) -> list[Target]:
        """Functions called `name` (`discount`) or qualified so (`Cart.total`, `cart.discount`)."""
        hits = [t for t in self.targets if t.function == name or t.function.rsplit(".", 1)[-1] == name]
        if not hits and "." in name:
            head, _, leaf = name.rpartition(".")
            hits = [t for t in self.targets if t.function == leaf and
                    (t.module == head or t.module.endswith("." + head))]
        return hits

    def at(self, path: str, line: int) -> Target | None:
        """The innermost function around a 1-based line of `path`."""
        around = [t for t in self.targets if t.path == path and t.line <= line <= t.end_line]
        return min(around, key=lambda t: t.end_line - t.line) if around else None

    def in_file(self, path: str) -> list[Target]:
        return [t for t in self.targets if t.path == path]
