"""A repository's own git configuration cannot start anything on the host: fixloop never runs git there.

git has settings that start commands even for a read such as `ls-files` (fsmonitor, a promisor remote
with an `ext::` URL that a sparse index with a missing tree makes git fetch, `protocol.ext.allow=always`
beating a command-line `protocol.allow=never`, upload-pack), too many to override one by one. The
project below sets several of them, and the user's PATH starts with a `git` that records every call:
neither may leave a trace after a whole `fixloop fix`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.git_index import GIT_ENV

from .harness import Host, run_fix

BUGGY = "def inc(x):\n    return x - 1\n"
TEST = "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n"


def _plant(host: Host) -> tuple[Path, Path]:
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    host.write("generated.py", "VERSION = '1'\n")
    host.write(".gitignore", "generated.py\n")
    proof = host.outside / "git-ran"
    script = host.write(".git-hook.sh", f"#!/bin/sh\necho \"$0 $*\" >> {proof}\n", mode=0o755)
    git = ["git", "-C", str(host.project)]
    subprocess.run([*git, "init", "-q", "."], env=GIT_ENV, check=True, capture_output=True)
    subprocess.run([*git, "add", "calc.py", "tests", ".gitignore"], env=GIT_ENV, check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "x"], env=GIT_ENV, check=True, capture_output=True)
    for key, value in [("core.fsmonitor", str(script)), ("protocol.ext.allow", "always"),
                       ("protocol.file.allow", "always"), ("remote.origin.url", f"ext::sh {script}"),
                       ("remote.origin.promisor", "true"), ("remote.origin.uploadpack", str(script)),
                       ("extensions.partialClone", "origin"), ("core.sshCommand", str(script))]:
        subprocess.run([*git, "config", key, value], env=GIT_ENV, check=True, capture_output=True)
    # The user's own PATH starts with a git that records being called (the user trusts their PATH;
    # fixloop must simply not call git on the host).
    bin_dir = host.top / "bin"
    bin_dir.mkdir()
    recorder = bin_dir / "git"
    recorder.write_text(f"#!/bin/sh\necho \"$*\" >> {proof}-path\nexec /usr/bin/git \"$@\"\n")
    os.chmod(recorder, 0o755)
    return proof, bin_dir


def test_the_repositorys_git_config_starts_nothing_and_git_is_never_called(host: Host, backend: str) -> None:
    proof, bin_dir = _plant(host)
    host.snapshot()
    done = run_fix(host, backend, ["--dry-run"], env={"PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin"})
    assert done.summary is not None, done.stderr
    assert not proof.exists(), proof.read_text()
    assert not Path(f"{proof}-path").exists(), Path(f"{proof}-path").read_text()
    assert host.evidence() == []
    assert done.summary["status"] == "fixed", done.stderr
