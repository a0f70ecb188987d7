"""A project shipped with a hand-made `.git/index` must not steer the scratch copy.

Two attacks from the index: a name under a folder that the project has since replaced with a symlink
to the user's `~/.ssh` (the copy would read the key, and a test's failure message would carry it into
the run log), and a name that climbs with `..` through a symlink so that the copy lands at a chosen
absolute path on the host.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.git_index import write_index

from .harness import Host, run_fix

BUGGY = "def inc(x):\n    return x - 1\n"
TEST = "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n"
KEY = "BAIT-ECDSA-KEY-do-not-leak\n"
# The copied "key" shows up in a failure message, hence in events.jsonl, if the copy followed the link.
LEAK_TEST = ("from pathlib import Path\n\n\ndef test_leak():\n"
             "    p = Path(__file__).parent.parent / 'sub' / 'id_ecdsa'\n"
             "    assert not p.exists(), p.read_text()\n")
DEPTH = 12  # more `..` than any scratch folder is deep: the copy's side climbs to `/` and stays there


def _plant(host: Host) -> str:
    (host.home / ".ssh" / "id_ecdsa").write_text(KEY)
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    host.write("tests/test_leak.py", LEAK_TEST)
    # On the project's side, L/.. DEPTH times comes back to the project itself (L points DEPTH deep).
    deep = host.project.joinpath(*[f"d{i}" for i in range(DEPTH)])
    deep.mkdir(parents=True)
    (deep / "keep.txt").write_text("")
    os.symlink(os.path.relpath(deep, host.project), host.project / "L")
    # Ignored, so the copy makes `L` a real folder, from which the same `..` climb to `/`.
    host.write(".gitignore", "/L\n")
    climb = str(host.outside.relative_to("/")) + "/pwn.py"
    host.write(climb, "planted = True\n")
    write_index(host.project, [
        ("calc.py", BUGGY.encode()), ("tests/test_calc.py", TEST.encode()), ("tests/test_leak.py", LEAK_TEST.encode()),
        ("sub/id_ecdsa", b"placeholder\n"), ("L/" + "../" * DEPTH + climb, b"planted = True\n"),
        ("/" + str(host.outside.relative_to("/")) + "/abs.py", b"planted = True\n"),
    ])
    # `sub` was a folder when the index was made; now it is a link to the user's keys.
    os.symlink(host.home / ".ssh", host.project / "sub")
    return climb


def test_a_hand_made_index_neither_leaks_the_key_nor_writes_outside(host: Host, backend: str) -> None:
    _plant(host)
    host.snapshot()
    done = run_fix(host, backend, ["--dry-run"])
    assert host.evidence() == []
    assert done.summary is not None, done.stderr
    assert KEY.strip() not in done.stdout + done.stderr
    run_dir = Path(done.summary["run_dir"])
    for name in ("events.jsonl", "summary.json"):
        text = (run_dir / name).read_text()
        assert KEY.strip() not in text, f"the key reached {name}"
    # The honest part of the project is still fixed: the copy kept calc.py and its test.
    assert "test_leak" not in " ".join(done.summary["failing_before"]) or done.summary["status"] == "fixed"
    assert "tests/test_calc.py::test_inc" in done.summary["failing_before"], done.stderr
