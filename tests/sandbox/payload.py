"""Hostile code, run inside the sandbox: `python payload.py NAME TAG [ARGS...]`.

Each attack prints one JSON line `{"attack": ..., ...facts}` on stdout (flushed before anything that
may get it killed), so the test can tell what got through. Only the standard library.
"""

import json
import os
import signal
import socket
import sys
import time


def say(**facts):
    sys.stdout.write(json.dumps(facts) + "\n")
    sys.stdout.flush()


def attempt(fn):
    try:
        return "ok:" + str(fn())[:200]
    except BaseException as e:  # noqa: BLE001 - the point is to report any failure
        return f"denied:{type(e).__name__}:{e}"[:300]


def fork_bomb(n):
    made = 0
    for _ in range(int(n)):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        made += 1
    say(forks=made)


def mem_bomb(chunk_mb):
    held = []
    try:
        while len(held) < 64:
            held.append(bytearray(int(chunk_mb) * 1024 * 1024))
    except MemoryError:
        say(allocated_mb=len(held) * int(chunk_mb))
        raise
    say(allocated_mb=len(held) * int(chunk_mb))


def mem_spread(procs, mb):
    """Many processes, each under the per-process limit, together over the run's memory cap."""
    for _ in range(int(procs)):
        if os.fork() == 0:
            block = bytearray(int(mb) * 1024 * 1024)
            for i in range(0, len(block), 4096):
                block[i] = 1  # touch every page: resident, not just reserved
            time.sleep(30)
            os._exit(0)
    say(spawned=True)
    time.sleep(30)
    say(survived=True)


def cpu_loop(ignore):
    if ignore == "1":
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    say(started=True)
    while True:
        pass


def sleep_forever():
    say(started=True)
    time.sleep(3600)


def disk_fill(total_mb, where="fill"):
    if where == "tmp":
        import tempfile

        where = tempfile.mkdtemp()
    os.makedirs(where, exist_ok=True)
    block = b"x" * (1024 * 1024)
    written = 0
    for i in range(int(total_mb)):
        with open(f"{where}/f{i}", "wb") as f:
            f.write(block)
            f.flush()
            os.fsync(f.fileno())
        written += 1
        if written % 8 == 0:
            say(written_mb=written)
    say(written_mb=written, done=True)


def big_file(mb):
    with open("big", "wb") as f:
        for _ in range(int(mb)):
            f.write(b"x" * (1024 * 1024))
    say(done=True)


def fds():
    held = []
    try:
        while len(held) < 100000:
            held.append(open(os.devnull))
    except OSError:
        pass
    say(opened=len(held))


def net(tcp_port, udp_port, unix_path, abstract_name="fixloop-abuse-abstract"):
    def tcp():
        with socket.create_connection(("127.0.0.1", int(tcp_port)), timeout=2) as s:
            s.sendall(b"leak")

    def udp():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(b"leak", ("127.0.0.1", int(udp_port)))
            return "sent"

    def unix():
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(2)
            s.connect(unix_path)
            s.sendall(b"leak")

    def dns():
        return socket.getaddrinfo("example.com", 80)

    def abstract():
        with socket.socket(socket.AF_UNIX) as s:
            s.connect("\0" + abstract_name)

    say(tcp=attempt(tcp), udp=attempt(udp), unix=attempt(unix), dns=attempt(dns), abstract=attempt(abstract))


def read(path, limit=4096):
    with open(path, "rb") as f:
        return f.read(limit).decode("utf-8", "replace")


def secrets(key_path, real_home, *pids):
    environs = {}
    for pid in list(pids) + ["1"]:
        environs[pid] = attempt(lambda pid=pid: read(f"/proc/{pid}/environ", 1 << 16))
    leaked = []
    try:
        names = os.listdir("/proc")
    except OSError:
        names = []
    if names:
        for name in names:
            if name.isdigit():
                try:
                    if b"sk-ant-bait" in open(f"/proc/{name}/environ", "rb").read():
                        leaked.append(name)
                except OSError:
                    pass
    say(home_listing=attempt(lambda: "|".join(sorted(os.listdir(real_home)))),
        key=attempt(lambda: read(key_path)), shadow=attempt(lambda: read("/etc/shadow")),
        environs=environs, leaked_environ=leaked, env_names=sorted(os.environ),
        env_bait=[k for k, v in os.environ.items() if "bait" in v])


def write(path, text="pwned"):
    with open(path, "a") as f:
        f.write(text)
    return "written"


def writes(project_file, bashrc, etc_file):
    say(project=attempt(lambda: write(project_file)), bashrc=attempt(lambda: write(bashrc)),
        etc=attempt(lambda: write(etc_file)), home_bashrc=attempt(lambda: write(os.path.expanduser("~/.bashrc"))))


def symlinks(target_file, key_path):
    def through():
        os.symlink(target_file, "through_link")
        return write("through_link")

    def plant():
        os.makedirs(".fixloop_runtime", exist_ok=True)
        os.symlink(key_path, ".fixloop_runtime/report.jsonl")
        return "planted"

    def hardlink():
        os.link(key_path, "hard_key")
        return "linked"

    say(shipped=attempt(lambda: read("secret_link")), through=attempt(through), plant=attempt(plant),
        hardlink=attempt(hardlink))


def remount(ro_dir):
    import subprocess

    mount = subprocess.run(["mount", "-o", "remount,bind,rw", ro_dir], capture_output=True, text=True)
    say(mount_rc=mount.returncode, mount_err=mount.stderr[-200:],
        write=attempt(lambda: write(os.path.join(ro_dir, "fixloop-remount-bait"))),
        usr=attempt(lambda: write("/usr/fixloop-remount-bait")))


def kill_parent(bait_pid, launcher_pid):
    def kill(pid, sig):
        os.kill(int(pid), sig)
        return "sent"

    say(bait=attempt(lambda: kill(bait_pid, signal.SIGKILL)), launcher=attempt(lambda: kill(launcher_pid, 0)),
        ppid=attempt(lambda: kill(os.getppid(), signal.SIGTERM)), ppid_was=os.getppid())
    time.sleep(0.2)


def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for _ in range(600):  # keeps the inherited stdout open and a heartbeat going
                with open("heartbeat", "a") as f:
                    f.write(".")
                time.sleep(0.1)
            os._exit(0)
        os._exit(0)
    time.sleep(0.3)
    say(parent_exits=True)


def pristine(source_dir):
    """The run's cwd is its own copy; the pristine tree it came from is out of reach."""
    def report():
        fd = int(os.environ["FIXLOOP_REPORT_FD"])
        os.write(fd, b'{"from": "the run"}\n')
        return "sent"

    say(cwd=os.getcwd(), module=read("module.py"), source_write=attempt(lambda: write(f"{source_dir}/module.py")),
        source_new=attempt(lambda: write(f"{source_dir}/planted.py")),
        source_unlink=attempt(lambda: os.unlink(f"{source_dir}/module.py")),
        copy_write=attempt(lambda: write("module.py", "\nVALUE = 2\n")), report=attempt(report),
        leftover=os.path.exists("left_by_the_last_run"))
    write("left_by_the_last_run")


def flood(mb):
    block = b"y" * (1 << 20)
    out = sys.stdout.buffer
    for _ in range(int(mb)):
        out.write(block)
    out.flush()


def setsid_chain(links, wait="all"):
    """A chain of `links` short-lived processes, each in its own session, each handing on to the next
    before it turns into a tagged `sleep 60` (so every sleep is the parent of the next link); plus a
    file in /dev/shm. `wait`: "all" returns once the last link exists, "none" returns while the chain
    is still growing (the supervisor then races it)."""
    tag = sys.argv[2]
    shm = f"/dev/shm/fixloop-abuse-{tag}"
    say(shm=attempt(lambda: open(shm, "w").write("left behind")))
    done_r, done_w = os.pipe()
    if os.fork() == 0:
        os.close(done_r)
        for _ in range(int(links)):
            os.setsid()
            if os.fork() != 0:
                os.execv("/bin/sleep", [f"sleep-{tag}", "60"])
        os.write(done_w, b"x")
        os._exit(0)
    os.close(done_w)
    if wait == "all":
        import select

        ready, _, _ = select.select([done_r], [], [], 30)
        say(chain_done=bool(ready))
    say(chain_started=True)

if __name__ == "__main__":
    name, _tag, *args = sys.argv[1:]
    say(attack=name, uid=os.getuid())
    globals()[name](*args)
