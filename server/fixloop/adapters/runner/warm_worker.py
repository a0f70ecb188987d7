"""The warm fork server, run inside the sandbox under the project's interpreter (stdlib + pytest only).

    python -m fixloop_warm <pristine-tree> <pytest-args-json>

Start-up: import pytest and collect the suite once in this run's writable copy (conftest and the
third-party modules the tests import stay loaded), then forget the project's own modules and say
`ready` on the answer pipe. Then, for each request read from the request pipe (descriptors "r,w" in
FIXLOOP_WARM_FDS; frames are a 4-byte length and JSON): fork; the child closes the channel at once,
makes the writable copy the pristine tree again (whatever the previous candidate left in it), writes
the candidate's files, and runs pytest there with its own report pipe and the report plugin armed with a
fresh key; the parent forwards the records the plugin sealed (as `fixloop_supervise` does for a cold run,
ending with the same closing record), capped, waits with a timeout (counted from the end of the copy),
kills the child's process group when it hangs, and answers. End of the request pipe ends the server.

The candidate runs in the copy itself, not in a folder of it: the copy sits where the project lives
(or the report plugin points the interpreter there), so editable installs import the candidate's code.
One server serves one candidate at a time; the host starts one server per lane.
"""

import gc
import json
import os
import resource
import select
import shutil
import signal
import struct
import sys
import time

from fixloop_supervise import KEY_BYTES, Opener

SKIP = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache")
MAX_REQUEST = 64 * 1024 * 1024
MAX_REPORT = 5_000_000
JUNIT = ".fixloop-junit.xml"
COPIED = b'{"event": "copied"}\n'
COPY_SECONDS = 120.0  # the most a candidate's copy of the tree may take


def _project_modules(root):
    """The modules each candidate imports afresh: the project's own. A virtualenv inside the project (`.venv`)
    is not the project: its libraries stay loaded, or every child would import them again (and pytest
    would rewrite the asserts of a plugin's whole distribution again, a second or more each time)."""
    environments = tuple(os.path.abspath(p) + os.sep for p in {sys.prefix, sys.exec_prefix, sys.base_prefix})
    out = []
    for name, module in list(sys.modules.items()):
        path = os.path.abspath(getattr(module, "__file__", None) or "/")
        inside = path.startswith(root + os.sep) and not path.startswith(environments)
        if name == "fixloop_report" or (inside and "site-packages" not in path[len(root):].split(os.sep)):
            out.append(name)
    return out


def _remember_compiled(root):
    """The project's code objects, compiled once here and inherited by every child, so that a child compiles
    (and pytest rewrites the asserts of) only the files its candidate changed; the runs write no bytecode
    files (PYTHONDONTWRITEBYTECODE). Each is taken only for the exact source it was made from."""
    import importlib.machinery

    memo = {}

    def remembered(key, source, make):
        if not key[0].startswith(root + os.sep):
            return make()
        hit = memo.get(key)
        if hit is not None and hit[0] == source:
            return hit[1]
        made = make()
        memo[key] = (source, made)
        return made

    loader = importlib.machinery.SourceFileLoader
    plain = loader.source_to_code

    def source_to_code(self, data, path, *, _optimize=-1):
        return remembered((str(path), _optimize), data, lambda: plain(self, data, path, _optimize=_optimize))

    loader.source_to_code = source_to_code
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    rewritten = getattr(rewrite, "_rewrite_test", None)
    if rewritten is None:
        return

    def rewrite_test(fn, config, *rest):
        try:
            with open(fn, "rb") as f:
                source = f.read()
        except (OSError, TypeError):
            return rewritten(fn, config, *rest)
        code = remembered((str(fn), "pytest"), source, lambda: rewritten(fn, config, *rest)[1])
        return os.stat(fn), code  # the stat is only for a bytecode file, never written here

    rewrite._rewrite_test = rewrite_test


def _address_space():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _quiet():
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)


def _read_exact(fd, n):
    data = bytearray()
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def read_frame(fd):
    head = _read_exact(fd, 4)
    if head is None:
        return None
    (size,) = struct.unpack(">I", head)
    if size > MAX_REQUEST:
        return None
    body = _read_exact(fd, size)
    return None if body is None else json.loads(body.decode("utf-8"))


def write_frame(fd, obj):
    data = json.dumps(obj).encode("utf-8")
    data = struct.pack(">I", len(data)) + data
    while data:
        data = data[os.write(fd, data):]


def _reset(root, template):
    """`root` holding exactly the pristine tree again; read-only binds inside it (a `.venv`) are left alone."""
    device = os.stat(root).st_dev
    for name in os.listdir(root):
        path = os.path.join(root, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_dev != device:
            continue  # a mount point
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    shutil.copytree(template, root, ignore=SKIP, symlinks=True, dirs_exist_ok=True)


def _child(request, template, workdir, channel, report_fd, key):
    """In the forked child: no channel, the copy reset, own process group, capped memory; never returns."""
    code = 70
    try:
        for fd in channel:  # the code under test never gets the host's channel
            os.close(fd)
        os.setsid()
        if request.get("memory_mb"):
            # On top of what the warm parent already maps (big libraries reserve much address space).
            limit = _address_space() + int(request["memory_mb"]) * 1024 * 1024
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        _quiet()
        _reset(workdir, template)
        for rel, text in request.get("files", {}).items():
            target = os.path.join(workdir, rel)
            if not os.path.realpath(target).startswith(os.path.realpath(workdir) + os.sep):
                os._exit(71)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if os.path.lexists(target):
                os.unlink(target)
            with open(target, "wb") as f:  # the host sends the file's exact bytes, one char per byte
                f.write(text.encode("latin-1"))
        os.chdir(workdir)
        # The candidate's clock starts now: copying a big tree is the worker's cost, not the candidate's.
        os.write(report_fd, COPIED)
        os.environ["FIXLOOP_REPORT_FD"] = str(report_fd)
        os.environ["FIXLOOP_TEST_TIMEOUT"] = str(request.get("per_test_timeout", 0))
        os.environ["FIXLOOP_CPU_LIMIT"] = str(request.get("cpu_limit", 0))
        os.environ["FIXLOOP_TEST_LIMITS"] = json.dumps(request.get("test_limits") or {})
        # What the report plugin records besides results (the spectrum's lines, the reviewer's values): the
        # project's modules are imported afresh in this child, so their lines and calls are seen. fixloop's
        # own coverage.py comes last on the path, so a coverage the project installed wins.
        for name, value in (request.get("env") or {}).items():
            if str(name).startswith("FIXLOOP_"):
                os.environ[str(name)] = str(value)
        if request.get("coverage_path"):
            sys.path.append(str(request["coverage_path"]))
        import importlib

        importlib.invalidate_caches()
        import fixloop_report  # fresh in each child (the worker forgot it): takes the report descriptor

        fixloop_report.arm(bytes(key))
        key[:] = bytes(len(key))
        import pytest

        args = ["-p", "fixloop_report", "-p", "no:cacheprovider", "-q", "--color=no", "--no-header", "-rN",
                f"--junitxml={JUNIT}", f"--rootdir={workdir}", f"--confcutdir={workdir}"] + list(request.get("args", []))
        code = int(pytest.main(args))
    except BaseException:  # noqa: BLE001 - the child reports through its exit code only
        code = 72
    finally:
        os._exit(code)


def _run(request, template, workdir, channel):
    """One candidate in a forked child: its answer, with the report lines it wrote."""
    read_end, write_end = os.pipe()
    key = bytearray(os.urandom(KEY_BYTES))
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _child(request, template, workdir, channel, write_end, key)
    os.close(write_end)
    opener = Opener(bytes(key))
    head = b""  # the child's own first line (COPIED), written before any code of the candidate runs
    report = bytearray()
    overflow = False
    answer = None
    timeout = float(request.get("timeout", 30))
    deadline = started + COPY_SECONDS
    copied = False
    ended_at = None
    open_pipe = True
    status = None
    while True:
        if open_pipe:
            ready, _, _ = select.select([read_end], [], [], 0.002)
            if ready:
                chunk = os.read(read_end, 1 << 16)
                if not chunk:
                    open_pipe = False
                    opener.finish()
                elif not copied:
                    head += chunk
                    if head.startswith(COPIED):
                        copied = True
                        deadline = time.monotonic() + timeout
                        chunk, head = head[len(COPIED):], b""
                    elif len(head) >= len(COPIED):
                        copied, chunk, head = True, head, b""  # not the child's own line: opened like the rest
                if copied and chunk:
                    for body in opener.feed(chunk):
                        if len(report) + len(body) + 1 > MAX_REPORT:
                            overflow = True
                        else:
                            report += body + b"\n"
        else:
            time.sleep(0.002)
        if answer is None:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                # Telemetry for the run history: the candidate's CPU time and peak memory.
                rusage = {"cpu_seconds": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}
                if os.WIFSIGNALED(status):
                    sig = os.WTERMSIG(status)
                    answer = {"returncode": None, "signal": sig, "killed": "memory" if sig == signal.SIGKILL else "signal"}
                else:
                    answer = {"returncode": os.WEXITSTATUS(status), "signal": None, "killed": ""}
                answer.update(rusage)
                ended_at = time.monotonic()
                _kill_group(pid)  # daemons the candidate left go with it
            elif time.monotonic() > deadline:
                _kill_group(pid)
                status = os.waitpid(pid, 0)[1]
                answer = {"returncode": None, "signal": signal.SIGKILL, "killed": "timeout"}
                ended_at = time.monotonic()
        # An orphan may hold the pipe: stop reading shortly after the child ended.
        if answer is not None and (not open_pipe or time.monotonic() - ended_at > 0.5):
            break
    os.close(read_end)
    report += opener.record(status)
    answer.update(id=request.get("id"), duration=time.monotonic() - started,
                  report=report.decode("utf-8", "replace"), overflow=overflow)
    return answer


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _serve(template, root, channel):
    request_fd, answer_fd = channel
    while True:
        try:
            request = read_frame(request_fd)
        except (OSError, ValueError):
            return
        if request is None:  # the host closed the pipe: stop
            return
        write_frame(answer_fd, _run(request, template, root, channel))


def main():
    template = os.path.abspath(sys.argv[1])
    extra = json.loads(sys.argv[2]) if len(sys.argv) > 2 else []
    channel = tuple(int(x) for x in os.environ.pop("FIXLOOP_WARM_FDS").split(","))
    for fd in channel:
        os.set_inheritable(fd, False)
    try:  # this process's own run report is not used: children get their own
        os.close(int(os.environ.pop("FIXLOOP_REPORT_FD", "")))
    except (ValueError, OSError):
        pass
    root = os.getcwd()  # this run's own writable copy: each candidate runs in it, reset
    import pytest

    _remember_compiled(root)

    saved = os.dup(1), os.dup(2)
    _quiet()
    try:
        pytest.main(["-q", "--collect-only", "-p", "no:cacheprovider", f"--rootdir={root}",
                     f"--confcutdir={root}"] + list(extra))
    except BaseException:  # noqa: BLE001 - a broken suite still gets a server; each child reports its own error
        pass
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
    for name in _project_modules(template) + _project_modules(root):
        sys.modules.pop(name, None)
    # Everything loaded so far stays shared and untouched by the children's garbage collections.
    gc.collect()
    gc.freeze()
    write_frame(channel[1], {"ready": os.getpid()})
    _serve(template, root, channel)


if __name__ == "__main__":
    main()
