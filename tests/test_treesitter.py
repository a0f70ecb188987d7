"""One tree-sitter parser per thread, shared by the repair engine, the safety rules and the language server."""

from __future__ import annotations

import threading

from fixloop.kit.treesitter import parser


def test_each_thread_keeps_its_own_parser() -> None:
    here = parser()
    assert parser() is here
    seen: list[object] = []
    worker = threading.Thread(target=lambda: seen.extend([parser(), parser()]))
    worker.start()
    worker.join()
    assert seen[0] is seen[1] and seen[0] is not here
    assert parser().parse(b"def f(:\n").root_node.has_error
    assert not parser().parse(b"def f():\n    return 1\n").root_node.has_error
