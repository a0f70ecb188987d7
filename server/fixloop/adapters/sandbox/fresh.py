"""Fresh writable copies for one run, made from a pristine tree the sandboxed code never could write.

Backends that mount (bwrap, docker) copy inside the sandbox, into a size-limited tmpfs, with a prelude
of system binaries that runs before the command; they only need the candidate's files staged in a new
host folder. Backends that cannot mount (landlock, none) get a brand-new host folder instead. Either
way the copy is made where nothing sandboxed has run yet, so no name in it can have been planted.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from fixloop.adapters.sandbox.api import RunTree
from fixloop.adapters.sandbox.hostio import write_beneath

# Runs as the sandbox's first process, before the command: copy the pristine tree and the staged
# changes into the run's tmpfs, hand what it copied to the sandbox uid (root recipe), then become the
# command. Only the copied names are handed over: read-only binds inside the copy (a project's `.venv`)
# are left alone.
PRELUDE = (
    'set -e; src=$1; ws=$2; chg=$3; owner=$4; shift 5; '
    'cp -a "$src/." "$ws/"; '
    'if [ -n "$chg" ]; then cp -a --remove-destination "$chg/." "$ws/"; fi; '
    'own() { (cd "$1" && find . -print0) | (cd "$ws" && xargs -0 -r chown -h "$owner"); }; '
    'if [ -n "$owner" ]; then own "$src"; if [ -n "$chg" ]; then own "$chg"; fi; fi; '
    'cd "$ws"; exec "$@"'
)


SANDBOX_HOME = "/home/sandbox"
HIDDEN_BY_A_COPY = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/dev", "/sys",
                    "/run")


def workspace_path(tree: RunTree) -> Path:
    """Where a mounting backend puts the run's copy inside the sandbox (over nothing of the host's: the
    sandbox's own mount namespace): the workspace's own path when it can go there, else beside the
    pristine tree."""
    source = tree.source.resolve()
    if tree.at is not None and placeable(tree.at, [source] + ([tree.runtime.resolve()] if tree.runtime else [])):
        return tree.at
    return source.parent / f"{source.name}-run"  # beside the pristine tree, never on top of it


def placeable(at: Path, owned: list[Path]) -> bool:
    """A copy may sit at `at` unless that hides the system, the sandbox's own folders, or fixloop's trees."""
    if at in {Path("/"), Path("/tmp"), Path("/home"), Path(SANDBOX_HOME)} or \
            any(at == Path(p) or Path(p) in at.parents for p in HIDDEN_BY_A_COPY):
        return False
    return not any(at == p or at in p.parents or p in at.parents for p in owned)


def prelude_argv(source: Path, workspace: Path, changes: Path | None, owner: str) -> list[str]:
    """`/bin/sh -c PRELUDE ...` up to the `--` after which the command's own argv follows."""
    return ["/bin/sh", "-c", PRELUDE, "fixloop-prelude", str(source), str(workspace),
            str(changes) if changes else "", owner, "--"]


def stage_changes(tree: RunTree) -> Path | None:
    """A new private host folder holding only the candidate's files (None when there are none)."""
    if not tree.changes:
        return None
    folder = Path(tempfile.mkdtemp(prefix="fixloop-changes-"))
    for name, data in tree.changes.items():
        write_beneath(folder, name, data)
    return folder


def host_copy(tree: RunTree, parent: Path) -> Path:
    """`parent/ws`: the pristine tree plus the changes, in a folder nothing sandboxed has touched yet."""
    workspace = parent / "ws"
    shutil.copytree(tree.source, workspace, symlinks=True)
    os.chmod(workspace, 0o700)
    for name, data in tree.changes.items():
        write_beneath(workspace, name, data)
    return workspace


def remove(path: Path | None) -> None:
    """Remove a run's folder; `shutil.rmtree` works on directory fds and never follows a planted link."""
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)
