"""Run by test_nonroot.py as an unprivileged uid (`setpriv --reuid=UID ... python3 nonroot_check.py BACKEND`).

Exercises a backend (bwrap: the user-namespace recipe) the way a developer runs it; prints one JSON object:
{attack: {facts..., "limit_hit", "timed_out", "leftovers"}} or {"skip": reason}. Standard library
and fixloop.adapters.sandbox only (the system python has no pytest).
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from fixloop.adapters.sandbox.api import Policy, RunTree, SandboxLimits
from fixloop.adapters.sandbox.select import probe

PAYLOAD = Path(__file__).with_name("payload.py")


def leftovers(tag):
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and tag.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                found.append(int(name))
        except OSError:
            pass
    return found


def main():
    sandbox, reason = probe(sys.argv[1])
    if sandbox is None or os.geteuid() == 0:
        print(json.dumps({"skip": reason or "running as root"}))
        return
    tmp = Path(tempfile.mkdtemp(prefix="fixloop-nonroot-"))
    key = tmp / "home" / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text("BAIT-PRIVATE-KEY\n")
    original = tmp / "project" / "module.py"
    original.parent.mkdir()
    original.write_text("VALUE = 1\n")
    ws = tmp / "ws"
    ws.mkdir()
    shutil.copy(PAYLOAD, ws / "payload.py")
    os.symlink(key, ws / "secret_link")
    bait = subprocess.Popen(["sleep", "60"], env={"ANTHROPIC_API_KEY": "sk-ant-bait-proc"})
    tcp = socket.create_server(("127.0.0.1", 0))
    tcp.settimeout(0.1)
    unix_path = str(tmp / "host.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(unix_path)
    unix.listen()
    unix.settimeout(0.1)
    policy = Policy(env={"PATH": "/usr/bin:/bin", "ANTHROPIC_API_KEY": "sk-ant-bait-env"})
    attacks = {
        "fork_bomb": (["400"], {"processes": 40}),
        "secrets": ([str(key), os.path.expanduser("~"), str(bait.pid), str(os.getpid())], {}),
        "writes": ([str(original), str(key.parent.parent / ".bashrc"), "/etc/fixloop-abuse-bait"], {}),
        "symlinks": ([str(original), str(key)], {}),
        "net": ([str(tcp.getsockname()[1]), "9", unix_path], {}),
        "kill_parent": ([str(bait.pid), str(os.getpid())], {}),
        "remount": (["/usr/lib"], {}),
        "daemon": ([], {}),
        "sleep_forever": ([], {"wall_seconds": 1.5}),
        "mem_bomb": (["32"], {"address_space_mb": 300}),
        "setsid_chain": (["1100", "all"], {"processes": 4096, "memory_total_mb": 0, "wall_seconds": 90,
                                           "cpu_seconds": 60}),
    }
    report = {}
    for name, (args, limits) in attacks.items():
        tag = uuid.uuid4().hex
        result = sandbox.run([sys.executable, "payload.py", name, tag, *args], RunTree(ws),
                             SandboxLimits(**{"wall_seconds": 15.0, **limits}), policy)
        facts = {}
        for line in (result.stdout_head + result.stdout_tail).splitlines():
            try:
                facts.update(json.loads(line))
            except (json.JSONDecodeError, TypeError, ValueError):
                pass
        time.sleep(0.3)
        facts.update(limit_hit=result.limit_hit, timed_out=result.timed_out, duration=result.duration,
                     leftovers=leftovers(tag), stderr=result.stderr_tail[-300:] or result.stderr_head[-300:],
                     shm_left=os.path.exists(f"/dev/shm/fixloop-abuse-{tag}"))
        report[name] = facts
    hits = []
    for s in (tcp, unix):
        try:
            s.accept()
            hits.append("connected")
        except OSError:
            pass
    report["host"] = {"hits": hits, "bait_alive": bait.poll() is None, "key": key.read_text(),
                      "original": original.read_text(), "etc_bait": os.path.exists("/etc/fixloop-abuse-bait")}
    bait.kill()
    shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
