"""The warm fork server, run inside the sandbox under the project's interpreter (stdlib + pytest only).

    python -m fixloop_warm <channel-dir>

Start-up: import pytest and collect the suite once in the pristine copy the host made
(<runtime>/template) (conftest and the third-party modules the tests import stay loaded), then forget the project's
own modules. Then, for each request file <channel>/req-<n>.json: fork; the child copies the template
to its own directory, writes the candidate's files, and runs pytest there; the parent waits with a
timeout, kills the child's process group when it hangs, and answers in <channel>/resp-<n>.json.
A file named `stop` ends the server.
"""

import gc
import json
import os
import resource
import shutil
import signal
import sys
import time

RUNTIME_DIR = ".fixloop_runtime"
POLL = 0.002
SKIP = shutil.ignore_patterns(RUNTIME_DIR, ".git", "__pycache__", ".pytest_cache")


def _project_modules(root):
    out = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if name == "fixloop_report" or (path and os.path.abspath(path).startswith(root + os.sep)):
            out.append(name)
    return out


def _moved(path, old, new):
    """A sys.path entry under the template, moved to the candidate's copy."""
    if path in ("", old):
        return new
    return new + path[len(old):] if path.startswith(old + os.sep) else path


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


def _child(request, template, workdir, report):
    """In the forked child: own copy, own process group, capped memory; never returns."""
    code = 70
    try:
        os.setsid()
        if request.get("memory_mb"):
            # On top of what the warm parent already maps (big libraries reserve much address space).
            limit = _address_space() + int(request["memory_mb"]) * 1024 * 1024
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        _quiet()
        shutil.copytree(template, workdir, ignore=SKIP, symlinks=True)
        for rel, text in request.get("files", {}).items():
            target = os.path.join(workdir, rel)
            if not os.path.realpath(target).startswith(os.path.realpath(workdir) + os.sep):
                os._exit(71)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:  # the host sends the file's exact bytes, one char per byte
                f.write(text.encode("latin-1"))
        os.chdir(workdir)
        sys.path[:] = [_moved(p, template, workdir) for p in sys.path]
        if workdir not in sys.path:
            sys.path.insert(0, workdir)
        os.environ["FIXLOOP_REPORT"] = report
        os.environ["FIXLOOP_TEST_TIMEOUT"] = str(request.get("per_test_timeout", 0))
        import importlib

        importlib.invalidate_caches()
        import pytest

        args = ["-p", "fixloop_report", "-p", "no:cacheprovider", "-q", "--color=no", "--no-header", "-rN",
                f"--rootdir={workdir}", f"--confcutdir={workdir}"] + list(request.get("args", []))
        code = int(pytest.main(args))
    except BaseException:  # noqa: BLE001 - the child reports through its exit code only
        code = 72
    finally:
        os._exit(code)


def _serve(channel, root, template):
    seq = 0
    idle_since = time.monotonic()
    while True:
        if os.path.exists(os.path.join(channel, "stop")):
            return
        names = sorted(n for n in os.listdir(channel) if n.startswith("req-") and n.endswith(".json"))
        if not names:
            # Poll fast while candidates flow, slowly once the loop has gone quiet.
            time.sleep(POLL if time.monotonic() - idle_since < 2.0 else 0.05)
            continue
        idle_since = time.monotonic()
        for name in names:
            path = os.path.join(channel, name)
            with open(path, encoding="utf-8") as f:
                request = json.load(f)
            os.unlink(path)
            seq += 1
            rid = request["id"]
            workdir = os.path.join(channel, f"c-{seq}")
            report = os.path.join(channel, f"report-{rid}.jsonl")
            started = time.monotonic()
            pid = os.fork()
            if pid == 0:
                _child(request, template, workdir, report)
            answer = _wait(pid, float(request.get("timeout", 30)))
            answer.update(id=rid, duration=time.monotonic() - started)
            shutil.rmtree(workdir, ignore_errors=True)
            tmp = os.path.join(channel, f".resp-{rid}.tmp")
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(answer, f)
            os.rename(tmp, os.path.join(channel, f"resp-{rid}.json"))
            idle_since = time.monotonic()


def _wait(pid, timeout):
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            if os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
                return {"returncode": None, "signal": sig, "killed": "memory" if sig == signal.SIGKILL else "signal"}
            return {"returncode": os.WEXITSTATUS(status), "signal": None, "killed": ""}
        if time.monotonic() > deadline:
            for target in (-pid, pid):
                try:
                    os.kill(target, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            os.waitpid(pid, 0)
            return {"returncode": None, "signal": signal.SIGKILL, "killed": "timeout"}
        time.sleep(delay)
        delay = min(delay * 2, POLL)


def main():
    channel = os.path.abspath(sys.argv[1])
    root = os.getcwd()
    # The pristine copy the host made before any test ran: earlier runs may have left files in root.
    template = os.path.join(os.path.dirname(channel), "template")
    extra = json.loads(sys.argv[2]) if len(sys.argv) > 2 else []
    os.chdir(template)
    sys.path[:] = [template if p in ("", root) else p for p in sys.path]
    import pytest

    saved = os.dup(1), os.dup(2)
    _quiet()
    try:
        pytest.main(["-q", "--collect-only", "-p", "no:cacheprovider", f"--rootdir={template}",
                     f"--confcutdir={template}"] + list(extra))
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
    with open(os.path.join(channel, "ready"), "w") as f:
        f.write(str(os.getpid()))
    _serve(channel, root, template)


if __name__ == "__main__":
    main()
