"""tree-sitter's Python grammar and one parser per thread, for the repair engine, the safety rules and the
language server alike.

A `Parser` is not thread-safe (the language server parses on worker threads while a run's safety check
parses on its own), so each thread gets its own. The grammar loads on first use: the language server imports
this module lazily to keep it off its start-up path.
"""

from __future__ import annotations

import threading
from functools import lru_cache

from tree_sitter import Language, Parser


class _PerThread(threading.local):
    parser: Parser | None = None  # the class default is what a new thread sees


_local = _PerThread()


@lru_cache(maxsize=1)
def language() -> Language:
    import tree_sitter_python

    return Language(tree_sitter_python.language())


def parser() -> Parser:
    """This thread's parser."""
    if _local.parser is None:
        _local.parser = Parser(language())
    return _local.parser
