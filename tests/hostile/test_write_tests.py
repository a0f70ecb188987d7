"""`fixloop tests` on an attacker's project: the module writes to the bait home and the outside folder when
imported or called, and returns the user's private key if it can read it; its `tests` folder is a link to
the outside folder. Recording runs only inside the sandbox, so nothing changes outside the project, the key
never reaches the generated file, and the file is not written through the link. A planted `hypothesis`
package's ghostwriter does the same and answers with hostile test code: none of it is kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.backends import unavailable
from tests.conftest import PYTHON

from .harness import BAIT_KEY, Host, as_user, nobody_python, user_env

MODULE = '''import os

HOME, OUTSIDE = {home!r}, {outside!r}


def _try(action):
    try:
        action()
    except OSError:
        pass


_try(lambda: open(os.path.join(HOME, ".bashrc"), "a").write("pwned at import\\n"))
_try(lambda: open(os.path.join(OUTSIDE, "imported"), "w").write("x"))


def leak(n: int) -> str:
    _try(lambda: open(os.path.join(OUTSIDE, "called"), "w").write("x"))
    try:
        with open(os.path.join(HOME, ".ssh", "id_rsa")) as f:
            return f.read()
    except OSError:
        return "blocked"
'''


def run_tests(host: Host, backend: str, spec: str) -> subprocess.CompletedProcess[str]:
    interpreter = sys.executable if host.user == "root" else nobody_python()
    argv = [interpreter, "-m", "fixloop", "tests", spec, "--root", str(host.project), "--yes", "--json",
            "--sandbox", backend, "--python", PYTHON if host.user == "root" else interpreter]
    host.give_away()
    done = subprocess.run(as_user(host, backend, argv), cwd=host.top, env=user_env(host, backend), capture_output=True,
                          text=True, timeout=300)
    if host.user == "nobody" and backend != "docker" and "does not work here" in done.stderr:
        unavailable(backend, f"it does not start for an unprivileged user: {done.stderr.strip()[-300:]}")
    return done


@pytest.mark.e2e
def test_recording_an_attackers_function_changes_nothing_outside_and_leaks_nothing(host: Host, backend: str) -> None:
    host.write("lib.py", MODULE.format(home=str(host.home), outside=str(host.outside)))
    os.symlink(host.outside, host.project / "tests")
    host.snapshot()
    done = run_tests(host, backend, "lib.py::leak")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["written"] is True and summary["file"] == "test_lib_leak_generated.py", summary
    written = (host.project / summary["file"]).read_text()
    assert "assert leak(0) == 'blocked'" in written
    assert BAIT_KEY.strip() not in done.stdout + done.stderr + written
    assert [e for e in host.evidence() if not e.endswith("test_lib_leak_generated.py")] == []
    assert not (host.outside / "imported").exists() and not (host.outside / "called").exists()


GHOSTWRITER = '''import os

HOME, OUTSIDE = {home!r}, {outside!r}


def magic(*functions, **options):
    for path, text in ((os.path.join(HOME, ".bashrc"), "pwned by the ghostwriter"), (os.path.join(OUTSIDE, "ghost"), "x")):
        try:
            open(path, "a").write(text)
        except OSError:
            pass
    try:
        key = open(os.path.join(HOME, ".ssh", "id_rsa")).read()
    except OSError:
        key = "no-key"
    return (
        "import os\\nimport lib\\nfrom hypothesis import given, strategies as st\\n\\n"
        "os.system('touch /tmp/fixloop-ghost-pwned')\\n\\n"
        "@given(n=st.integers())\\ndef test_fuzz_leak(n):\\n"
        "    assert __import__('os').system('id') == lib.leak(n=n), " + repr(key) + "\\n"
    )
'''


@pytest.mark.e2e
def test_a_planted_ghostwriter_changes_nothing_outside_and_none_of_its_text_is_kept(host: Host, backend: str) -> None:
    host.write("lib.py", MODULE.format(home=str(host.home), outside=str(host.outside)))
    host.write("hypothesis/__init__.py", "")
    host.write("hypothesis/extra/__init__.py", "")
    host.write("hypothesis/extra/ghostwriter.py", GHOSTWRITER.format(home=str(host.home), outside=str(host.outside)))
    host.snapshot()
    done = run_tests(host, backend, "lib.py::leak")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    written = (host.project / summary["file"]).read_text()
    assert "assert leak(0) == 'blocked'" in written
    for planted in ("os.system", "__import__", "test_fuzz_leak", "fixloop-ghost-pwned", BAIT_KEY.strip()):
        assert planted not in written + done.stdout + done.stderr, planted
    assert "ghostwriter was not used: the ghostwriter wrote no property test of it worth keeping" in done.stdout, summary
    assert [e for e in host.evidence() if not e.endswith(summary["file"])] == []
    assert not (host.outside / "ghost").exists() and not os.path.exists("/tmp/fixloop-ghost-pwned")
