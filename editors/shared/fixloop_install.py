"""Install the fixloop language server into a private virtual environment that an editor manages.

Run by the VS Code extension and the Neovim plugin (`:FixloopInstall`) with the Python they found:

    python fixloop_install.py --home DIR --source WHEEL_OR_DIR_OR_SPEC [--expect-version V]

Layout under DIR: `envs/<name>/` holds one virtual environment; `current.json` names the one in use
(`{"python": ..., "version": ..., "env": ...}`) and is replaced only once a new environment is complete and
its server imports, so an interrupted or failed install leaves the previous one working (or none) and the
next run clears the leftovers. Dependencies come from whatever package index the user's pip is configured
for (pip.conf, PIP_* variables).

Output: one JSON object per line on stdout: `{"progress": "..."}` while working, then `{"ok": true,
"python": ..., "version": ...}` or `{"ok": false, "problem": ..., "message": ...}` (exit status 1). The
problems are `old-python`, `no-venv`, `network`, `pip`, `verify`, `busy`, `interrupted`.

Syntax stays Python 3.6-compatible up to the version check, so an old interpreter gets the message rather
than a SyntaxError.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

MIN_PYTHON = (3, 10)
CURRENT = "current.json"
MARKER = "fixloop-install.json"
EXTRAS = ("report",)  # `fixloop report` draws its plots with matplotlib

# Lines of pip's output that mean the index could not be reached, or did not have a dependency.
NETWORK_SIGNS = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Connection refused",
    "ConnectTimeoutError",
    "ReadTimeoutError",
    "Max retries exceeded",
    "Could not fetch URL",
)


def emit(**fields):  # type: (...) -> None
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def fail(problem, message):  # type: (str, str) -> None
    emit(ok=False, problem=problem, message=message)
    sys.exit(1)


if sys.version_info < MIN_PYTHON:
    fail("old-python", "Python {}.{} at {} is too old: the fixloop server needs Python {}.{} or newer. Install a "
         "newer Python (or select one) and run the install again.".format(
             sys.version_info[0], sys.version_info[1], sys.executable, *MIN_PYTHON))

import argparse  # noqa: E402  (after the version check on purpose)
import fcntl  # noqa: E402
from pathlib import Path  # noqa: E402


class Interrupted(Exception):
    pass


def _on_signal(signum: int, frame: object) -> None:
    raise Interrupted(signal.Signals(signum).name)


def _python_in(env: Path) -> Path:
    return env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def read_current(home: Path) -> dict[str, str] | None:
    """The environment in use, if it is complete."""
    try:
        current = json.loads((home / CURRENT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(current, dict) or not Path(str(current.get("python", ""))).exists():
        return None
    return current


def _clear_leftovers(home: Path, keep: str | None) -> None:
    """Environments that are not in use: unfinished installs and replaced ones."""
    envs = home / "envs"
    if not envs.is_dir():
        return
    for child in envs.iterdir():
        if child.name != keep:
            emit(progress=f"removing {'an unfinished install' if not (child / MARKER).exists() else 'an old server'}"
                 f" ({child.name})")
            shutil.rmtree(child, ignore_errors=True)


def _run(cmd: list[str], what: str, cwd: Path) -> tuple[int, list[str]]:
    """Runs `cmd` in `cwd`, passing its lines on as progress; returns the status and the output."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            text=True, errors="replace", cwd=cwd)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip()
            if not line:
                continue
            lines.append(line)
            if line.startswith(("Collecting", "Downloading", "Installing", "Successfully", "Processing",
                                "Building", "ERROR")):
                emit(progress=f"{what}: {line.strip()[:160]}")
        return proc.wait(), lines
    except BaseException:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        raise


def _pip_problem(lines: list[str]) -> tuple[str, str]:
    errors = [line for line in lines if line.startswith("ERROR")]
    tail = "\n".join(errors[-3:] or lines[-8:])  # pip's own verdict, not its whole log
    if any(sign in line for line in lines for sign in NETWORK_SIGNS):
        return ("network", "pip could not download fixloop's dependencies from the package index it is "
                "configured for (is there a network connection, a proxy, or an index set in pip.conf / "
                "PIP_INDEX_URL?). Fix that and run the install again. pip said:\n" + tail)
    return "pip", "pip could not install the fixloop server. Run the install again; pip said:\n" + tail


def install(home: Path, source: str, expect: str | None) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    lock = open(home / ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fail("busy", "another fixloop server install is running; wait for it to finish, then try again.")
    current = read_current(home)
    _clear_leftovers(home, Path(current["env"]).name if current else None)
    env = home / "envs" / time.strftime("%Y%m%dT%H%M%S")
    env.parent.mkdir(parents=True, exist_ok=True)
    try:
        return _install_into(home, env, source, expect)
    except BaseException:
        shutil.rmtree(env, ignore_errors=True)  # an unfinished environment is never left in use
        raise


def with_extras(source: str) -> str:
    """A wheel or source tree with the extras an editor's user expects (the report's plots); a spec as given."""
    return f"{source}[{','.join(EXTRAS)}]" if Path(source).exists() else source


def _install_into(home: Path, env: Path, source: str, expect: str | None) -> dict[str, str]:
    emit(progress=f"creating a virtual environment with Python {sys.version.split()[0]}")
    # -I and the home folder as the working directory, for every step: `-m` and `-c` put the current folder
    # first on sys.path (an editor may start this in a project with its own `pip/` or `venv.py`), and pip
    # takes a bare name that is a folder there (`fixloop/` with a setup.py) for a local project to build.
    status, lines = _run([sys.executable, "-I", "-m", "venv", str(env)], "venv", home)
    if status != 0:
        fail("no-venv", f"{sys.executable} cannot create virtual environments (on Debian/Ubuntu: apt install "
             "python3-venv), or use another Python. It said:\n" + "\n".join(lines[-5:]))
    python = _python_in(env)
    emit(progress="installing the fixloop server and its dependencies (pip)")
    status, lines = _run([str(python), "-I", "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
                          "--progress-bar", "off", with_extras(source)], "pip", home)
    if status != 0:
        fail(*_pip_problem(lines))
    emit(progress="checking the server")
    check = subprocess.run([str(python), "-I", "-c", "import fixloop, fixloop.lsp.server; print(fixloop.__version__)"],
                           capture_output=True, text=True, timeout=300, cwd=home)
    version = check.stdout.strip()
    if check.returncode != 0 or (expect and version != expect):
        why = check.stderr.strip().splitlines()[-1:] if check.returncode else [f"got version {version}, "
                                                                               f"expected {expect}"]
        fail("verify", f"the installed server does not work: {' '.join(why)}. Run the install again.")
    record = {"python": str(python), "version": version, "env": str(env), "source": source}
    (env / MARKER).write_text(json.dumps(record), encoding="utf-8")
    tmp = home / (CURRENT + ".tmp")
    tmp.write_text(json.dumps(record), encoding="utf-8")
    os.replace(tmp, home / CURRENT)  # the switch: atomic
    _clear_leftovers(home, env.name)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Install the fixloop server into a private environment.")
    parser.add_argument("--home", required=True, help="directory the editor keeps the environments in")
    parser.add_argument("--source", required=True, help="what pip installs: a wheel, a source tree or a spec")
    parser.add_argument("--expect-version", help="refuse an install whose fixloop has another version")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    try:
        record = install(Path(args.home).expanduser(), args.source, args.expect_version)
    except Interrupted as e:
        # The unfinished environment is removed now if possible, else by the next run.
        fail("interrupted", f"the install was interrupted ({e}); nothing was changed. Run it again.")
    emit(ok=True, python=record["python"], version=record["version"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
