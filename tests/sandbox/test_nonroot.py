"""The bwrap user-namespace recipe as an unprivileged developer runs it: `setpriv` down to an unprivileged uid
around a check process (nonroot_check.py) that attacks through the sandbox and reports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.backends import unavailable

HERE = Path(__file__).resolve().parent
SERVER = HERE.parents[1] / "server"
SYSTEM_PYTHON = "/usr/bin/python3"


def _pyseccomp_dir() -> str:
    try:
        import pyseccomp
    except ImportError:
        return ""
    return str(Path(pyseccomp.__file__).parent)


# The whole battery as an unprivileged uid (fork bomb, memory bomb, a 1,100-link setsid chain, ...): several
# seconds per backend, in the end-to-end stage. A uid of its own: RLIMIT_NPROC counts every process of a uid,
# and the chain must not starve the hostile tests' runs as nobody on the other worker.
pytestmark = pytest.mark.e2e
BATTERY_UID = 65520


@pytest.fixture(scope="module", params=["bwrap", "landlock"])
def report(request: pytest.FixtureRequest) -> dict[str, Any]:
    if os.geteuid() != 0:
        pytest.skip("needs root to drop to another uid; this process already runs unprivileged")
    if not (shutil.which("setpriv") and os.path.exists(SYSTEM_PYTHON)):
        pytest.skip("setpriv or the system python3 is missing")
    done = subprocess.run(
        ["setpriv", f"--reuid={BATTERY_UID}", f"--regid={BATTERY_UID}", "--clear-groups", SYSTEM_PYTHON, str(HERE / "nonroot_check.py"),
         request.param],
        capture_output=True, text=True, timeout=300,
        # pyseccomp is one pure-Python file over libseccomp: the system python can use this copy.
        env={"PYTHONPATH": os.pathsep.join(filter(None, [str(SERVER), _pyseccomp_dir()])), "PATH": "/usr/bin:/bin"},
    )
    if done.returncode != 0 and ("Permission denied" in done.stderr or "No module named" in done.stderr):
        pytest.skip(f"the checkout is not readable by uid {BATTERY_UID}: {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    if "skip" in data:
        unavailable(request.param, f"it does not start for an unprivileged user: {data['skip']}")
    return data


def test_unprivileged_recipe_contains_everything(report: dict[str, Any]) -> None:
    assert report["fork_bomb"]["forks"] < 40
    s = report["secrets"]
    assert s["key"].startswith("denied") and s["shadow"].startswith("denied") and s["leaked_environ"] == []
    assert s["env_bait"] == [] and "ANTHROPIC_API_KEY" not in s["env_names"]
    w = report["writes"]
    assert all(w[k].startswith("denied") for k in ("project", "bashrc", "etc")), w
    y = report["symlinks"]
    assert all(y[k].startswith("denied") for k in ("shipped", "through", "hardlink")), y
    n = report["net"]
    assert all(n[k].startswith("denied") for k in ("tcp", "unix", "dns", "abstract")), n
    k = report["kill_parent"]
    assert k["bait"].startswith("denied") and k["launcher"].startswith("denied"), k
    r = report["remount"]
    assert r["mount_rc"] != 0 and r["write"].startswith("denied"), r
    assert report["daemon"]["parent_exits"] and report["daemon"]["duration"] < 5
    assert report["sleep_forever"]["timed_out"] and report["sleep_forever"]["limit_hit"] == "wall"
    assert report["mem_bomb"]["limit_hit"] == "memory"
    chain = report["setsid_chain"]
    assert chain["shm"].startswith("ok") and chain["chain_done"] and not chain["timed_out"], chain
    assert not chain["shm_left"], "the run's /dev/shm file outlived it"
    assert all(v["leftovers"] == [] for k, v in report.items() if k != "host"), "processes left running"
    host = report["host"]
    assert host == {"hits": [], "bait_alive": True, "key": "BAIT-PRIVATE-KEY\n", "original": "VALUE = 1\n",
                    "etc_bait": False}
