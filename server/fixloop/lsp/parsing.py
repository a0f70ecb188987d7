"""tree-sitter for the language server's own needs (the test at a position). The safety rules keep
their own incremental trees per document (`fixloop.safety.rules.IncrementalScanner`)."""

from __future__ import annotations

import threading
from typing import Any

_local = threading.local()


def _parser() -> Any:
    """One parser per thread (a Parser is not thread-safe); the grammar loads on first use only."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter_python
        from tree_sitter import Language, Parser

        parser = _local.parser = Parser(Language(tree_sitter_python.language()))
    return parser


def to_bytes(text: str) -> bytes:
    # Lone surrogates (non-UTF-8 content sent as JSON escapes) become "?" instead of an error.
    return text.encode("utf-8", "replace")
