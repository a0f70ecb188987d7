"""What a docker run's container is made of (pure: the keyword arguments for docker-py's `containers.create`).

The container's first process is a small shell of ours, not the engine's docker-init (which the engine binds
at /sbin/docker-init, where a host /usr shown for a distribution's Python would hide it). As root, with the
prelude's few capabilities, it checks that the image has the prelude's tools, opens the report file in a
folder of its own (a volume only root can enter), runs the prelude and the command as a foreground child (so it reaps every orphan meanwhile,
and the command sees SIGINT as usual), then writes the command's exit status and the CPU time of every
reaped process beside the report, where nothing the command runs can write.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from fixloop.adapters.sandbox.api import REPORT_FD_ENV, Policy, RunTree, SandboxLimits, SandboxUnavailable
from fixloop.adapters.sandbox.docker_engine import TOOLS
from fixloop.adapters.sandbox.envpolicy import clean_env
from fixloop.adapters.sandbox.fresh import SANDBOX_HOME, prelude_argv, workspace_path

REPORT_DIR = "/run/fixloop-report"
REPORT_FD = 9
PRELUDE_CAPS = ["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "SETUID", "SETGID", "SETPCAP"]
SOCKETS = ("/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock")
# Top folders the image provides (or the container mounts itself). A bind anywhere else gets a root-owned 0755
# tmpfs at its top folder first, so the run's uid can reach it: an image keeps /root private (0700).
IMAGE_TOPS = frozenset({"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/var", "/opt",
                        "/proc", "/sys", "/dev", "/run", "/tmp"})
OPENED = "size=1m,mode=0755"


def init_script(fds: Sequence[int] = ()) -> str:
    """The container's first process. $0: the report folder; then the top folders to open (an image's mode
    survives a tmpfs mounted over it), "--", the prelude and the command. With two descriptors (request, answer),
    bash (dash knows only 0-9) gives the command the request stream as the first, the stdout stream as the
    second, and its own stdout goes to stderr."""
    tools = TOOLS + (("bash",) if fds else ())
    run = '"$@"'
    if fds:
        request, answer = (int(fd) for fd in fds)
        run = f'bash -c \'exec {request}<&0 {answer}>&1 1>&2 0</dev/null; exec "$@"\' fixloop-fds "$@"'
    return (
        'chmod 0700 "$0"; missing=; for t in ' + " ".join(tools) + '; do '
        'command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done; '
        'if [ -n "$missing" ]; then echo "missing$missing" > "$0/status"; exit 127; fi; '
        'while [ "$1" != -- ]; do chmod 0755 "$1"; shift; done; shift; '
        f'exec {REPORT_FD}>"$0/report.jsonl"; '
        f'{run}; s=$?; {{ echo "exit $s"; times; }} > "$0/status"; exit $s'
    )


def check_bind(path: Path) -> None:
    resolved = path.resolve()
    for sock in SOCKETS:
        s = Path(sock)
        if resolved == s or resolved in s.parents or resolved == Path("/"):
            raise SandboxUnavailable(f"refusing to mount {path} into a container: it exposes the docker socket")
    if resolved.is_socket():
        raise SandboxUnavailable(f"refusing to mount the socket {path} into a container")


def binds(tree: RunTree, policy: Policy, changes: Path | None) -> dict[str, dict[str, str]]:
    """Read-only binds at their host paths: the pristine tree, fixloop's runtime files, the staged changes and
    what the interpreter needs. A policy path over (or around) the run's copy is left out; one inside it (a
    project's `.venv`) shows over the copy (the engine mounts by depth, the copy's tmpfs first)."""
    workspace = workspace_path(tree)
    volumes: dict[str, dict[str, str]] = {}
    policy_paths = {Path(p).resolve() for p in policy.read_only}
    for ro in [tree.source.resolve(), *([tree.runtime.resolve()] if tree.runtime else []),
               *([changes] if changes else []), *sorted(policy_paths)]:
        if not ro.exists() or str(ro) in volumes:
            continue
        check_bind(ro)
        if ro in policy_paths and (ro == workspace or ro in workspace.parents):
            continue
        volumes[str(ro)] = {"bind": str(ro), "mode": "ro"}
    return volumes


def tmpfs(tree: RunTree, limits: SandboxLimits, volumes: dict[str, dict[str, str]]) -> dict[str, str]:
    """The container's writable places, each size-limited: /tmp, home, /dev/shm, the run's copy (bytes and
    inodes), and a bare tmpfs at each top folder a bind needs reached."""
    workspace = workspace_path(tree)
    mb = 1024 * 1024
    tmp = f"size={limits.tmp_mb}m,mode=1777,exec"
    mounts = {"/tmp": tmp, SANDBOX_HOME: tmp, "/dev/shm": tmp,
              str(workspace): f"size={max(1, limits.disk_quota_mb)}m,nr_inodes={max(1000, limits.disk_files)},"
                              "mode=0700,exec"}
    for target in [*volumes, str(workspace)]:
        parts = Path(target).parts
        top = "/" + parts[1] if len(parts) > 2 else ""
        if top and top not in IMAGE_TOPS and top not in mounts:
            mounts[top] = OPENED
    return mounts


def container_settings(argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
                       image: str, uid: int, changes: Path | None = None, fds: Sequence[int] = ()) -> dict[str, Any]:
    """Keyword arguments for `client.containers.create` (unit-tested)."""
    from docker.types import LogConfig, Mount, Ulimit

    source = tree.source.resolve()
    workspace = workspace_path(tree)
    volumes = binds(tree, policy, changes)
    env = clean_env(policy.env)
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(HOME=SANDBOX_HOME, TMPDIR="/tmp", USER="sandbox", LOGNAME="sandbox", **{REPORT_FD_ENV: str(REPORT_FD)})
    mb = 1024 * 1024
    # Root fills the copy and hands it over; setpriv drops every capability before the command.
    mounts = tmpfs(tree, limits, volumes)
    opened = sorted(path for path, options in mounts.items() if options == OPENED)
    command = ["/bin/sh", "-c", init_script(fds), REPORT_DIR, *opened, "--", *prelude_argv(source, workspace, changes, f"{uid}:{uid}"),
               "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--bounding-set=-all",
               "--inh-caps=-all", "--no-new-privs", "--",
               # The address space is limited here, not by the engine: runc's own start needs more.
               "prlimit", f"--as={limits.address_space_mb * mb}", "--", *argv]
    memory = (limits.memory_total_mb or limits.address_space_mb) * mb  # the whole run's memory (cgroup)
    cpu = max(1, int(limits.cpu_seconds))
    return {
        "image": image, "command": command, "working_dir": "/", "user": "0:0", "hostname": "sandbox",
        "environment": env, "volumes": volumes, "network_mode": "none", "read_only": True,
        "cap_drop": ["ALL"], "cap_add": list(PRELUDE_CAPS), "security_opt": ["no-new-privileges"],
        "pids_limit": limits.processes, "mem_limit": memory, "memswap_limit": memory,
        "tmpfs": mounts,
        # The report folder outlives the container (an anonymous volume, removed with it): a tmpfs would be gone
        # before the host could read it. Root's alone; the command writes only through the descriptor it gets.
        "mounts": [Mount(REPORT_DIR, None, type="volume")], "init": False, "stdin_open": bool(fds), "tty": False,
        # Output reaches the host through an attached stream, capped there; the engine keeps none of it on disk.
        "log_config": LogConfig(type="none"), "labels": {"fixloop.sandbox": "1"},
        "ulimits": [
            Ulimit(name="cpu", soft=cpu, hard=cpu + 1),
            Ulimit(name="fsize", soft=limits.file_size_mb * mb, hard=limits.file_size_mb * mb),
            Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
            Ulimit(name="core", soft=0, hard=0),
        ],
    }
