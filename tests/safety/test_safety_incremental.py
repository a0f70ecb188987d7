"""IncrementalScanner: after any sequence of edits its findings equal a full scan of the text."""

from __future__ import annotations

import random

import pytest

from fixloop.adapters.safety.rules import IncrementalScanner, edit_span, encode, scan

BASE = '''import os
import subprocess as sp
from pathlib import Path

password = "hunter22"


class Store:
    """Keeps things; eval(x) in a docstring is text."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.items = {}

    def run(self, cmd: list[str]) -> str:
        out = sp.run(
            cmd,
            shell=False,
            capture_output=True,
        )
        return out.stdout

    def danger(self, x: str) -> None:
        os.system(x); y = eval(x)
        print("é✓ unicode", y)


def helper(a: int, b: int) -> int:
    if a < b:
        return a + 1
    return obj.eval(b)
'''

SNIPPETS = [
    "eval(x)", "os.system(c)\n", "sp.run(c, shell=True)\n", "import pickle\n", "pickle.loads(b)\n",
    "from os import system as s\n", "s(cmd)\n", "\n", "    ", "(", ")", '"""', "'", "#", "shell=True",
    "token = 'abcdef12'\n", "open('/etc/x', 'w')\n", "def f():\n    return 1\n", "é", "✓", "x", ",",
    "import os as o\n", "o.popen(x)\n", ":", "\\", "requests.get(u)\n", "import requests\n",
]


def random_edit(rng: random.Random, text: str) -> str:
    pos = rng.randrange(len(text) + 1)
    kind = rng.random()
    if kind < 0.5:
        return text[:pos] + rng.choice(SNIPPETS) + text[pos:]
    end = min(len(text), pos + rng.randint(1, 30))
    if kind < 0.8:
        return text[:pos] + text[end:]
    return text[:pos] + rng.choice(SNIPPETS) + text[end:]


@pytest.mark.parametrize("seed", range(8))
def test_random_edits_match_full_scan(seed: int) -> None:
    rng = random.Random(seed)
    scanner = IncrementalScanner("pkg/store.py")
    text = BASE
    assert scanner.update(text) == scan(text, "pkg/store.py")
    partial = 0
    for _ in range(150):
        text = random_edit(rng, text)
        got = scanner.update(text)
        assert got == scan(text, "pkg/store.py"), f"seed {seed}: differs after an edit; text:\n{text}"
        partial += scanner.last_span is not None
    assert partial > 0  # some updates did take the incremental path


SWAPS = [("True", "False"), ("False", "True"), ("eval", "evil"), ("evil", "eval"), ("shell", "shall"),
         ("shall", "shell"), ("a + 1", "a + 2"), ("hunter22", "hunter2"), ("hunter2", "hunter22"),
         ("os.system", "os.sistem"), ("os.sistem", "os.system"), ("x", "y"), ("y", "x")]


@pytest.mark.parametrize("seed", range(4))
def test_token_swaps_take_the_incremental_path(seed: int) -> None:
    """Edits that keep the file well-formed, as typing mostly does: nearly all are partial re-scans."""
    rng = random.Random(seed)
    scanner = IncrementalScanner("pkg/store.py")
    text = BASE + "\n".join(f"def f{i}(x):\n    return eval(x) if {i} else os.system(x)\n" for i in range(20))
    scanner.update(text)
    partial = 0
    for _ in range(100):
        old, new = rng.choice(SWAPS)
        places = [i for i in range(len(text)) if text.startswith(old, i)]
        if not places:
            continue
        at = rng.choice(places)
        text = text[:at] + new + text[at + len(old):]
        assert scanner.update(text) == scan(text, "pkg/store.py")
        partial += scanner.last_span is not None
    assert partial > 50


def test_small_edit_rescans_only_its_statement() -> None:
    scanner = IncrementalScanner("m.py")
    scanner.update(BASE)
    text = BASE.replace("return a + 1", "return a + 2")
    assert scanner.update(text) == scan(text, "m.py")
    assert scanner.last_span is not None
    lo, hi = scanner.last_span
    assert encode(text)[lo:hi].decode().strip() == "return a + 2"


def test_keyword_edit_far_from_the_name_is_seen() -> None:
    scanner = IncrementalScanner("m.py")
    before = scanner.update(BASE)
    text = BASE.replace("shell=False", "shell=True")
    after = scanner.update(text)
    assert after == scan(text, "m.py")
    assert [f.code for f in after if f.code == "FL-S003"] == ["FL-S003"]
    assert "FL-S003" not in [f.code for f in before]
    assert scanner.last_span is not None


def test_import_change_rescans_everything() -> None:
    scanner = IncrementalScanner("m.py")
    scanner.update(BASE)
    text = BASE.replace("import subprocess as sp", "import mytools as sp")
    assert scanner.update(text) == scan(text, "m.py")
    assert scanner.last_span is None


def test_lines_shift_after_an_insertion_above() -> None:
    scanner = IncrementalScanner("m.py")
    first = scanner.update(BASE)
    text = BASE.replace("password = \"hunter22\"\n", "password = \"hunter22\"\nA = 1\nB = 2\n")
    second = scanner.update(text)
    assert second == scan(text, "m.py")
    moved = [(a.line + 2, a.code) for a in first if a.line > 5]
    assert [(b.line, b.code) for b in second if b.line > 5] == moved


def test_unclosed_string_hides_and_closing_restores() -> None:
    scanner = IncrementalScanner("m.py")
    full = scanner.update(BASE)
    opened = BASE.replace("class Store:", '"""\nclass Store:')
    assert scanner.update(opened) == scan(opened, "m.py")
    assert len(scanner.findings()) < len(full)
    assert scanner.update(BASE) == full


def test_same_text_and_first_update() -> None:
    scanner = IncrementalScanner()
    assert scanner.findings() == []
    assert scanner.update("") == []
    assert scanner.update("import os\nos.system(x)\n") == scan("import os\nos.system(x)\n")
    assert scanner.update("import os\nos.system(x)\n") == scan("import os\nos.system(x)\n")


@pytest.mark.parametrize("old,new", [
    (b"abc", b"abc"), (b"abc", b"abXc"), (b"", b"x"), (b"x", b""), (b"aaaa", b"aa"),
    ("é".encode(), "è".encode()), ("aé".encode(), "aéé".encode()),
])
def test_edit_span_is_a_single_replacement(old: bytes, new: bytes) -> None:
    start, old_end, new_end = edit_span(old, new)
    assert old[:start] + new[start:new_end] + old[old_end:] == new
    assert old[:start].decode() is not None and new[:new_end].decode() is not None


def test_codes_filter() -> None:
    scanner = IncrementalScanner("m.py", codes={"FL-S007"})
    assert [f.code for f in scanner.update(BASE)] == ["FL-S007"]
    assert [f.code for f in scanner.update(BASE + "token = 'abcdef123'\n")] == ["FL-S007", "FL-S007"]


def test_a_scan_leaves_no_reference_cycle_behind() -> None:
    """The language server collects cycles rarely (lsp/server.py): a cycle through a matcher would keep each
    keystroke's parse tree, a megabyte of native memory on a 2,000-line file, until a full collection."""
    import gc

    text = "import os\nimport subprocess\n\n\ndef run(cmd):\n    os.system(cmd)\n    return subprocess.run(cmd, shell=True)\n"
    scanner = IncrementalScanner("pkg/run.py")
    scanner.update(text)
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        found = scan(text, "pkg/run.py")
        scanner.update(text.replace("run(cmd)", "run(cmd, x)"))
        scanner.update(text)
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
    assert found and [f.code for f in scanner.findings()] == [f.code for f in found]
