"""What the launcher watches while a run goes on: the disk it fills and the memory and CPU of its
whole process tree (orphans of a pid namespace or a subreaper stay descendants)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable


class DiskWatch:
    """A per-run disk quota. Free space and inodes of the run's filesystems are the cheap trigger (checked
    every 0.1 s); when they cross the quota, the run's own writable trees are measured to confirm, so
    heavy writes by other programs on the same disk do not kill the run (the trigger re-arms instead)."""

    def __init__(self, paths: Iterable[Path], quota_mb: int, quota_files: int) -> None:
        self.paths = [Path(p) for p in paths]
        self.quota_bytes = quota_mb * 1024 * 1024
        self.quota_files = quota_files
        self.base: dict[int, tuple[Path, int, int]] = {}
        for path in self.paths:
            try:
                dev = os.stat(path).st_dev
                if dev not in self.base:
                    free, files = self._free(path)
                    self.base[dev] = (path, free, files)
            except OSError:
                continue

    @staticmethod
    def _free(path: Path) -> tuple[int, int]:
        st = os.statvfs(path)
        return st.f_bavail * st.f_frsize, st.f_favail

    def used(self) -> tuple[int, int]:
        """Bytes and inodes consumed on the worst filesystem since the start (or the last re-arm)."""
        worst_bytes = worst_files = 0
        for path, free, files in self.base.values():
            try:
                now_free, now_files = self._free(path)
            except OSError:
                continue
            worst_bytes = max(worst_bytes, free - now_free)
            worst_files = max(worst_files, files - now_files)
        return worst_bytes, worst_files

    def _over(self, used_bytes: int, used_files: int) -> bool:
        return used_bytes > self.quota_bytes or (self.quota_files > 0 and used_files > self.quota_files)

    def tree_usage(self) -> tuple[int, int]:
        """Allocated bytes and entries under the watched paths; stops counting once over the quota."""
        size = count = 0
        stack = [str(p) for p in self.paths]
        while stack and not self._over(size, count):
            try:
                with os.scandir(stack.pop()) as it:
                    for entry in it:
                        count += 1
                        st = entry.stat(follow_symlinks=False)
                        size += st.st_blocks * 512
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
            except OSError:
                continue
        return size, count

    def exceeded(self) -> bool:
        if not self._over(*self.used()):
            return False
        if self._over(*self.tree_usage()):
            return True
        for dev, (path, _, _) in list(self.base.items()):  # someone else wrote: re-arm from here
            try:
                self.base[dev] = (path, *self._free(path))
            except OSError:
                pass
        return False


PAGE = os.sysconf("SC_PAGE_SIZE")
TREE_EVERY = 1.0  # seconds between scans of the whole /proc (about 10 ms each on a busy machine)


TICK = os.sysconf("SC_CLK_TCK")


def tree_usage(root_pid: int) -> tuple[int, float]:
    """Resident bytes of `root_pid` and all its descendants (orphans of a pid namespace or a subreaper
    stay descendants), and the most CPU seconds any one of them has used, from /proc/*/stat."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(name)
        parent[pid] = int(fields[1])
        rss[pid] = int(fields[21]) * PAGE
        cpu[pid] = (int(fields[11]) + int(fields[12])) / TICK
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    total, most, stack = 0, 0.0, [root_pid]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        most = max(most, cpu.get(pid, 0.0))
        stack.extend(children.get(pid, ()))
    return total, most
