"""The docker engine as the docker backend sees it: a client whose engine answers, what it can enforce here,
the image a run needs, and a clear message for each way the engine can fail (never an "internal error").
"""

from __future__ import annotations

import errno
import grp
import io
import os
import tarfile
from typing import Any

from fixloop.adapters.sandbox.api import SandboxUnavailable

PING_SECONDS = 10.0  # an engine that does not answer a ping in this time is not used
# Creating a container copies the image on the vfs storage driver (seconds, more on a busy disk): every other
# call may take this long before the engine is given up on.
API_SECONDS = 300.0
DEFAULT_SOCKET = "unix:///var/run/docker.sock"
TOOLS = ("cp", "find", "xargs", "chown", "chmod", "setpriv", "prlimit")  # the prelude's, besides /bin/sh
OFFLINE_RECIPE = ("debootstrap --variant=minbase --include=python3,util-linux bookworm ROOTFS && "
                  "tar -C ROOTFS -c . | docker import - {image}")


def address() -> str:
    return os.environ.get("DOCKER_HOST") or DEFAULT_SOCKET


def _errnos(e: BaseException) -> set[int]:
    """Every errno in an exception's chain (requests and urllib3 wrap the socket's error several times)."""
    found: set[int] = set()
    seen: set[int] = set()
    todo: list[Any] = [e]
    while todo:
        cur = todo.pop()
        if cur is None or id(cur) in seen:
            continue
        seen.add(id(cur))
        if isinstance(cur, OSError) and cur.errno:
            found.add(cur.errno)
        todo += [cur.__cause__, cur.__context__, *[a for a in getattr(cur, "args", ()) if isinstance(a, BaseException)]]
        todo.append(getattr(cur, "reason", None))
    return found


def _socket_owner(where: str) -> str:
    path = where[len("unix://"):] if where.startswith("unix://") else ""
    try:
        gid = os.stat(path).st_gid
    except OSError:
        return ""
    try:
        name = grp.getgrgid(gid).gr_name
    except KeyError:
        name = str(gid)
    return f" (its group is {name}, gid {gid})"


def explain(e: BaseException, doing: str = "") -> str:
    """The user's message for an engine error: what failed and what to do, with the engine's address."""
    where = address()
    codes = _errnos(e)
    text = str(e)
    if errno.EACCES in codes or errno.EPERM in codes or "Permission denied" in text:
        return (f"permission denied on the docker socket {where}{_socket_owner(where)}: uid {os.getuid()} may not use "
                "this engine; add the user to the socket's group, or choose another backend")
    if errno.ENOENT in codes:
        return (f"no docker engine answers at {where} (no such socket): start one, or point DOCKER_HOST at it "
                "(scripts/docker_engine.sh starts a private engine)")
    if errno.ECONNREFUSED in codes:
        return f"no docker engine answers at {where} (connection refused): start the engine, or fix DOCKER_HOST"
    if "timed out" in text.lower() or "timeout" in type(e).__name__.lower():
        return f"the docker engine at {where} did not answer in time{f' ({doing})' if doing else ''}: {text[-200:]}"
    return f"the docker engine at {where} failed{f' ({doing})' if doing else ''}: {type(e).__name__}: {text[-300:]}"


def client() -> Any:
    """A docker-py client whose engine answers (pinged), with a long timeout for everything after the ping."""
    try:
        import docker
    except ImportError as e:
        raise SandboxUnavailable(f"docker-py is not installed ({e}); pip install 'fixloop[docker]'") from e
    try:
        c = docker.from_env(timeout=int(PING_SECONDS))
        c.ping()
    except Exception as e:  # docker.errors.DockerException, requests errors
        raise SandboxUnavailable(explain(e, "a ping")) from e
    c.api.timeout = API_SECONDS
    return c


def missing_image(image: str) -> str:
    return (f"the docker image {image} is not on the engine at {address()}, and fixloop never pulls one. Make one "
            f"offline: {OFFLINE_RECIPE.format(image=image)} (scripts/docker_engine.sh image does this), or "
            f"`docker pull {image}` where a registry is reachable; `sandbox.docker_image` names the image")


def check_image(c: Any, image: str) -> None:
    try:
        import docker.errors
        c.images.get(image)
    except docker.errors.ImageNotFound as e:
        raise SandboxUnavailable(missing_image(image)) from e
    except Exception as e:
        raise SandboxUnavailable(explain(e, f"looking up the image {image}")) from e


def refused(e: BaseException, image: str) -> str:
    """Why the engine would not create or start a run's container."""
    text = str(getattr(e, "explanation", "") or e)
    if "/bin/sh" in text and ("no such file" in text or "permission denied" in text or "exec format" in text):
        return f"the image {image} has no usable /bin/sh (the sandbox's prelude needs it): {text[-200:]}"
    if "No such image" in text:
        return missing_image(image)
    return explain(e, "starting a container") if not hasattr(e, "explanation") else \
        f"the docker engine at {address()} refused the run's container: {text[-300:]}"


def lacking(image: str, names: str) -> str:
    return (f"the image {image} lacks {names.strip()}: the sandbox's prelude needs /bin/sh, "
            f"{', '.join(TOOLS[:-1])} and {TOOLS[-1]} (util-linux)")


def engine_facts(c: Any) -> dict[str, Any]:
    """What this engine can enforce (cgroup limits, seccomp, rootless), from its `info`."""
    try:
        info = c.info()
    except Exception:  # a fact we cannot read is one we do not claim
        return {}
    return info if isinstance(info, dict) else {}


def read_files(container: Any, folder: str, cap: int) -> tuple[dict[str, bytes], bool]:
    """The regular files directly in a container's folder, through the engine, in one call (a non-regular
    member, such as a planted link, reads as nothing). (name -> data, the folder held more than `cap` bytes)."""
    try:
        stream, _ = container.get_archive(folder)
        raw = bytearray()
        for chunk in stream:
            raw += chunk
            if len(raw) > cap + 1024 * 1024:
                return {}, True
        files: dict[str, bytes] = {}
        with tarfile.open(fileobj=io.BytesIO(bytes(raw))) as tar:
            for member in tar:
                parts = member.name.split("/")
                if member.isreg() and len(parts) == 2:
                    files[parts[1]] = tar.extractfile(member).read(cap + 1)  # type: ignore[union-attr]
        return files, sum(map(len, files.values())) > cap
    except Exception:  # no such folder: the run never got that far
        return {}, False
