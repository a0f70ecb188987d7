"""Class 6: a project's test forks a setsid chain (each link in its own session, each the parent of the next
and then a `sleep 60`) and leaves a file in /dev/shm. After `fixloop fix` no process of the chain is left
anywhere and /dev/shm holds nothing of the run. bwrap has a pid namespace and a private /dev/shm; the
landlock supervisor has to find, stop, kill and clean up after all of it itself."""

from __future__ import annotations

import os
import time
import uuid

from .harness import Host, run_fix

BUGGY = "def inc(x):\n    return x - 1\n"
TEST = "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n"
CHAIN = '''import os
import time

TAG = "{tag}"


def test_leaves_a_chain_behind():
    with open(f"/dev/shm/fixloop-orphan-{{TAG}}-{{os.getpid()}}", "w") as f:
        f.write("left behind")
    if os.fork() == 0:
        for _ in range(1200):
            os.setsid()
            if os.fork() != 0:  # the next link exists before this one turns into a sleep
                os.execv("/bin/sleep", [f"sleep-{{TAG}}", "60"])
        os._exit(0)
    time.sleep(1.0)  # the run ends while the chain still grows
'''


def tagged_processes(tag: str, wait: float = 3.0) -> list[str]:
    end = time.monotonic() + wait
    while True:
        found = []
        for pid in os.listdir("/proc"):
            try:
                if pid.isdigit() and tag.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                    found.append(pid)
            except OSError:
                continue
        if not found or time.monotonic() > end:
            return found
        time.sleep(0.1)


def test_no_orphan_and_no_shm_file_outlive_the_run(host: Host, backend: str) -> None:
    tag = uuid.uuid4().hex
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    host.write("tests/test_chain.py", CHAIN.format(tag=tag))
    host.snapshot()
    try:
        done = run_fix(host, backend, ["--dry-run"])
        left = tagged_processes(tag)
        shm = [n for n in os.listdir("/dev/shm") if tag in n]
        # As uid 65534 the chain may hit the process limit and fail: a run that gives up is fine here.
        assert done.summary is not None and done.summary["status"] in ("fixed", "gave_up"), done.stderr[-2000:]
        assert left == [], f"{len(left)} processes of the chain outlived the run"
        assert shm == [], f"/dev/shm entries outlived the run: {shm}"
        assert host.evidence() == []
    finally:
        for pid in tagged_processes(tag, wait=0):
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass
        for name in os.listdir("/dev/shm"):
            if tag in name:
                os.unlink(f"/dev/shm/{name}")
