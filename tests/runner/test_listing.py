"""Which files the copy takes: `.gitignore` read as data, ignored files the tests may need, no git run."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from fixloop.adapters.runner.listing import CopyRule, listing, list_files
from fixloop.adapters.runner.project_files import copy_tree


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def test_a_generated_version_file_that_git_ignores_is_copied(tmp_path: Path) -> None:
    _write(tmp_path, {".gitignore": "src/pkg/_version.py\n*.log\n", "src/pkg/__init__.py": "from ._version import v\n",
                      "src/pkg/_version.py": "v = '1.0'\n", "run.log": "x" * 10, "tests/test_a.py": ""})
    assert list_files(tmp_path) == [".gitignore", "run.log", "src/pkg/__init__.py", "src/pkg/_version.py",
                                    "tests/test_a.py"]


def test_large_ignored_files_and_folders_past_the_budget_are_left_out_and_named(tmp_path: Path) -> None:
    _write(tmp_path, {".gitignore": "data/\n*.bin\n", "a.py": "", "big.bin": b"\0" * 3000, "small.bin": b"\0" * 10,
                      **{f"data/part{i:02}.csv": "1,2\n" for i in range(30)}})
    tracked_big = b"\0" * 5000
    _write(tmp_path, {"model.pt": tracked_big})  # not ignored: copied whatever its size
    out = listing(tmp_path, CopyRule(ignored_file_kb=1, ignored_total_mb=1))
    assert "big.bin" in out.left_out and "big.bin" not in out.names
    assert {"small.bin", "model.pt", "a.py"} <= set(out.names)
    assert len([n for n in out.names if n.startswith("data/")]) == 30
    # A budget of files: once spent, an ignored folder is not entered at all.
    import fixloop.adapters.runner.listing as module

    saved = module.IGNORED_FILES
    module.IGNORED_FILES = 5
    try:
        out = listing(tmp_path)
    finally:
        module.IGNORED_FILES = saved
    copied = [n for n in out.names if n.startswith("data/")]
    assert len(copied) == 4 and out.ignored_copied == 5  # small.bin first, then four rows of data/
    assert any(n.startswith("data/part") for n in out.left_out)


def test_git_semantics_deeper_files_decide_and_an_ignored_folder_cannot_be_reincluded(tmp_path: Path) -> None:
    _write(tmp_path, {".gitignore": "*.gen\nout/\n", "pkg/.gitignore": "!keep.gen\n", "pkg/keep.gen": "k",
                      "pkg/drop.gen": "d", "out/.gitignore": "!*\n", "out/x.txt": "x", "a.py": ""})
    out = listing(tmp_path, CopyRule(ignored_total_mb=0))  # no ignored file is copied
    assert "pkg/keep.gen" in out.names and "pkg/drop.gen" not in out.names
    assert "out/x.txt" not in out.names and "out/x.txt" in out.left_out


def test_git_info_exclude_counts_like_a_gitignore(tmp_path: Path) -> None:
    _write(tmp_path, {".git/info/exclude": "secret_notes.txt\n", "secret_notes.txt": "n", "a.py": ""})
    assert listing(tmp_path, CopyRule(ignored_total_mb=0)).names == ["a.py"]


def test_virtualenvs_by_any_name_caches_and_credentials_are_never_copied(tmp_path: Path) -> None:
    _write(tmp_path, {"py311/pyvenv.cfg": "home = /usr/bin\n", "py311/lib/site.py": "", "pkg/__pycache__/x.pyc": b"",
                      ".tox/py/x.py": "", "build/lib/pkg.py": "", "pkg.egg-info/PKG-INFO": "", ".env": "KEY=1",
                      "deploy/id_rsa": "KEY", "certs/server.pem": "KEY", "pkg/a.py": ""})
    assert list_files(tmp_path) == ["pkg/a.py"]


def test_the_users_globs_include_and_exclude(tmp_path: Path) -> None:
    _write(tmp_path, {".gitignore": "*.db\n", "fixtures.db": b"\0" * 4096, "docs/huge.md": "x", "a.py": ""})
    rule = CopyRule(include=("*.db",), exclude=("docs/",), ignored_file_kb=1)
    assert list_files(tmp_path, rule) == [".gitignore", "a.py", "fixtures.db"]
    assert "fixtures.db" not in list_files(tmp_path, CopyRule(ignored_file_kb=1))


def test_a_gitignore_that_is_a_link_or_a_fifo_is_not_read_and_does_not_stall(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "patterns").write_text("*.py\n")
    root = tmp_path / "proj"
    _write(root, {"a.py": "", "sub/b.py": ""})
    os.symlink(outside / "patterns", root / ".gitignore")
    os.mkfifo(root / "sub" / ".gitignore")
    result: list[list[str]] = []
    walker = threading.Thread(target=lambda: result.append(list_files(root, CopyRule(ignored_total_mb=0))),
                              daemon=True)
    walker.start()
    walker.join(10)
    assert result == [[".gitignore", "a.py", "sub/b.py"]]  # the link itself is listed; copying drops a link out


def test_a_hard_link_to_a_file_outside_is_not_copied(tmp_path: Path) -> None:
    outside = tmp_path / "secret"
    outside.write_text("KEY\n")
    root = tmp_path / "proj"
    _write(root, {"a.py": "x = 1\n"})
    os.link(outside, root / "notes.txt")
    dest = tmp_path / "copy"
    dest.mkdir()
    copy_tree(root, dest, list_files(root))
    assert sorted(os.listdir(dest)) == ["a.py"]


def test_the_workspace_guard_counts_what_the_copy_takes_not_ignored_data(tmp_path: Path) -> None:
    from fixloop.application.workspace_guard import measure

    _write(tmp_path, {".gitignore": "data/\n", "a.py": "", **{f"data/{i}.bin": b"\0" * 4096 for i in range(50)}})
    # 50 ignored files of 4 KB: past a 1-file-KB cap, none is taken, so a 10 KB workspace limit holds.
    files, size = measure(tmp_path, 10, 10 * 1024, CopyRule(ignored_file_kb=1))
    assert (files, size) == (2, len("data/\n"))
    files, size = measure(tmp_path, 10, 100 * 1024 * 1024)  # the default rule takes them, and stops at 10 files
    assert files == 11


def test_an_include_glob_reaches_into_a_folder_the_copy_skips_and_takes_only_what_it_names(tmp_path: Path) -> None:
    _write(tmp_path, {"build/gen/parser.py": "P = 1\n", "build/lib/pkg.py": "", "a.py": "",
                      "venv/pyvenv.cfg": "", "venv/gen.py": ""})
    rule = CopyRule(include=("build/gen/parser.py", "venv/gen.py"))
    assert list_files(tmp_path, rule) == ["a.py", "build/gen/parser.py"]
    assert list_files(tmp_path) == ["a.py"]
