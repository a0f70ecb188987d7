"""Every bad input of a fix session (the project, its tests, the interpreter, the user's edits): a clear
outcome, and no user file changed."""

from __future__ import annotations

import hashlib
import venv
from pathlib import Path

import pytest

from fixloop.application.config import Settings, load
from fixloop.application.run import RunRequest
from fixloop.core.model import Scope, Status
from fixloop.application.session import FixSession
from tests.conftest import PYTHON

LIB = "def add(a, b):\n    return a - b\n"
TESTS = "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n"


def _settings(**extra: object) -> Settings:
    settings, problems = load({"python": PYTHON, "sandbox": {"backend": "none"}, "memory": {"enabled": False},
                               "offline": True, **extra})
    assert not problems
    return settings


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".fixloop" not in p.parts}


def _fix(root: Path, **extra: object) -> FixSession:
    session = FixSession(RunRequest(root, _settings(**extra)))
    session.run()
    return session


def test_no_tests_collected(make_project) -> None:
    root = make_project({"lib.py": LIB})
    before = _digest(root)
    s = _fix(root)
    assert s.outcome.status is Status.NOTHING_TO_FIX and "no tests" in s.outcome.message
    assert _digest(root) == before


def test_all_tests_pass(make_project) -> None:
    root = make_project({"lib.py": LIB.replace("-", "+"), "tests/test_lib.py": TESTS})
    s = _fix(root)
    assert s.outcome.status is Status.NOTHING_TO_FIX and "all 2 tests pass" in s.outcome.message


def test_syntax_error_in_source(make_project) -> None:
    root = make_project({"lib.py": "def add(a, b)\n    return a + b\n", "tests/test_lib.py": TESTS})
    before = _digest(root)
    s = _fix(root)
    assert s.outcome.status is Status.GAVE_UP
    assert "could not be collected" in s.outcome.message and "lib.py" in s.outcome.message
    assert _digest(root) == before


def test_import_error_in_test_file(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": "from lib import missing\n\ndef test_x():\n    pass\n"})
    before = _digest(root)
    s = _fix(root)
    assert s.outcome.status is Status.GAVE_UP and "could not be collected" in s.outcome.message
    assert _digest(root) == before


def test_pytest_missing_from_the_project_interpreter(make_project, tmp_path: Path) -> None:
    env_dir = tmp_path / "bare-venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    s = _fix(root, python=str(env_dir / "bin" / "python"))
    assert s.outcome.status is Status.ERROR
    assert "pytest is not installed" in s.outcome.message


@pytest.mark.e2e  # a whole fix run whose candidates hang until killed
def test_hanging_test_does_not_hang_the_run(make_project) -> None:
    lib = "def total(n):\n    s = 0\n    i = 0\n    while i < n:\n        s += i\n        i -= 1\n    return s\n"
    tests = "from lib import total\n\ndef test_total():\n    assert total(4) == 6\n\ndef test_empty():\n    assert total(0) == 0\n"
    root = make_project({"lib.py": lib, "tests/test_lib.py": tests})
    s = _fix(root, per_test_timeout=1.0, test_timeout=30.0)
    assert s.outcome.status is Status.FIXED  # reached only because every hanging candidate was killed


def test_flaky_test_is_reported_as_flaky(make_project, tmp_path) -> None:
    # Fails in the first run only: every run starts from a fresh copy, so the marker lives outside the
    # project (the unsandboxed backend can reach it).
    marker = tmp_path / "seen-once"
    flaky = (
        "import os\n\n"
        "def test_flaky():\n"
        f"    first = not os.path.exists({str(marker)!r})\n"
        f"    open({str(marker)!r}, 'a').close()\n"
        "    assert not first\n"
    )
    root = make_project({"lib.py": LIB.replace("-", "+"), "tests/test_flaky.py": flaky})
    s = _fix(root)
    assert s.outcome.status is Status.FLAKY
    assert s.outcome.flaky == ("tests/test_flaky.py::test_flaky",)
    assert s.summary["status"] == "flaky"


@pytest.mark.e2e  # a whole fix run copying 3,000 files per run
def test_thousands_of_files(make_project) -> None:
    files: dict[str, str] = {f"data/d{i // 100}/f{i}.txt": "x" for i in range(3000)}
    files.update({"lib.py": LIB, "tests/test_lib.py": TESTS})
    root = make_project(files)
    s = _fix(root)
    assert s.outcome.status is Status.FIXED


@pytest.mark.e2e  # a whole fix run
def test_non_utf8_source_keeps_its_encoding_and_mode(make_project) -> None:
    latin = "# -*- coding: latin-1 -*-\nGREETING = 'héllo'\r\n\r\ndef add(a, b):\r\n    return a - b\r\n".encode("latin-1")
    # The test also checks the text survives the round trip (warm screening writes the file's own bytes).
    root = make_project({"lib.py": latin, "tests/test_lib.py": TESTS + "\ndef test_greeting():\n    from lib import GREETING\n    assert len(GREETING) == 5\n"})
    (root / "lib.py").chmod(0o640)
    s = _fix(root)
    assert s.outcome.status is Status.FIXED
    assert (root / "lib.py").read_bytes() == latin  # untouched until applied
    assert s.apply().ok
    after = (root / "lib.py").read_bytes()
    assert after == latin.replace(b"a - b", b"a + b")
    assert (root / "lib.py").stat().st_mode & 0o777 == 0o640


@pytest.mark.e2e  # a whole fix run
def test_user_edit_during_the_run_is_a_conflict(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    s = _fix(root)
    assert s.outcome.status is Status.FIXED
    user_text = "# the user typed this\n" + LIB
    (root / "lib.py").write_text(user_text)
    result = s.apply()
    assert not result.ok and "changed since the run started" in result.conflicts[0]
    assert (root / "lib.py").read_text() == user_text


@pytest.mark.e2e  # a whole fix run
def test_scope_to_one_test(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    session = FixSession(RunRequest(root, _settings(), Scope("node", "tests/test_lib.py::test_add")))
    session.run()
    assert session.outcome.status is Status.FIXED
