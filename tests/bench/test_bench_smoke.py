"""Every benchmark under bench/ runs in its `--smoke` mode: a small but real run of the same measurement, so a
benchmark that rots (an API it calls changed, a helper moved) fails the build, not the next person who measures.

The scripts are found when the tests are collected, so a new benchmark without a working `--smoke` fails too.
A helper module that is no script (`safety_gen.py`: no `__main__` block) is not run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixloop.adapters.sandbox.select import probe
from tests.backends import unavailable
from tests.conftest import REPO, fixloop_env

DOCKER = {"docker_vs_bwrap"}  # compare the docker backend: the docker stage, on the tests' private engine
TIMEOUT = 240  # seconds; a smoke run takes well under a minute on two cores, more while other tests share them


def benches() -> list[Any]:
    out = []
    for path in sorted((REPO / "bench").glob("*.py")):
        if 'if __name__ == "__main__":' not in path.read_text(encoding="utf-8"):
            continue
        mark = pytest.mark.docker if path.stem in DOCKER else pytest.mark.e2e
        out.append(pytest.param(path.stem, marks=mark, id=path.stem))
    return out


@pytest.mark.parametrize("name", benches())
def test_smoke(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    env = fixloop_env()  # PYTHONPATH=server, as each bench's docstring runs it; no ANTHROPIC_* of the developer
    if name in DOCKER:
        env["DOCKER_HOST"] = request.getfixturevalue("docker_engine").host
        bwrap, reason = probe("bwrap")  # what docker is compared with
        if bwrap is None:
            unavailable("bwrap", reason)
    else:
        # A bench that probes every backend (sandbox_overhead) reports docker as skipped rather than reach the
        # machine's own engine: docker is measured in the docker stage, on the private one.
        env["DOCKER_HOST"] = f"unix://{tmp_path}/no-engine.sock"
    try:
        done = subprocess.run([sys.executable, f"bench/{name}.py", "--smoke"], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        out, err = (s.decode(errors="replace") if isinstance(s, bytes) else s or "" for s in (e.stdout, e.stderr))
        pytest.fail(f"bench/{name}.py --smoke ran over {TIMEOUT} s\n--- stdout\n{out}\n--- stderr\n{err}")
    print(done.stdout)
    print(done.stderr, file=sys.stderr)
    assert done.returncode == 0, (f"bench/{name}.py --smoke exited {done.returncode}\n--- stdout\n"
                                  f"{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}")
