"""tree-sitter for the language server's own needs (the test at a position). The safety rules keep
their own incremental trees per document (`fixloop.adapters.safety.rules.IncrementalScanner`)."""

from __future__ import annotations


def to_bytes(text: str) -> bytes:
    # Lone surrogates (non-UTF-8 content sent as JSON escapes) become "?" instead of an error.
    return text.encode("utf-8", "replace")


def test_at(text: str, line: int) -> str | None:
    """`Class::test_name` (or `test_name`) of the test function around a 0-based line."""
    from fixloop.kit.treesitter import parser  # tree-sitter loads on the first request that needs it, not at start-up

    tree = parser().parse(to_bytes(text))
    node = tree.root_node.descendant_for_point_range((line, 0), (line, 0))
    names: list[str] = []
    found = False
    while node is not None:
        if node.type in ("function_definition", "class_definition"):
            name_node = node.child_by_field_name("name")
            name = (name_node.text or b"").decode("utf-8", "replace") if name_node else ""
            if node.type == "function_definition":
                names = [name] if name.startswith("test") else []
                found = name.startswith("test")
            elif found:
                if not name.startswith("Test"):
                    return None
                names.insert(0, name)
        node = node.parent
    return "::".join(names) if found else None
