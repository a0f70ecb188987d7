"""The test-integrity guard: candidates may not edit tests, skip them, or reach for the test harness."""

from __future__ import annotations

from typing import Callable

from fixloop.core.model import Attempt, Patch

# A fix has no business with pytest's internals or fixloop's report: adding these words is refused.
HARNESS_WORDS = ("FIXLOOP_", "fixloop_report", "fixloop_paths", "fixloop_options", "fixloop_supervise",
                 "fixloop_values", "fixloop_spectrum", ".fixloop_runtime", "_pytest", "pytest_runtest", "XFailed", "atexit", "os._exit",
                 "sys.settrace")
HARNESS_FILES = frozenset({"pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "sitecustomize.py",
                           "usercustomize.py"})
SKIP_MARKERS = ("pytest.mark.skip", "pytest.mark.xfail", "pytest.skip(", "pytest.xfail(")


def rejection(patch: Patch, index: int, is_test_file: Callable[[str], bool]) -> Attempt | None:
    """The rejected attempt when candidate `index` breaks the guard, else None. (A change to project code
    pytest itself imports is allowed: the runner checks such a pass with its canary tests.)"""
    for change in patch.changes:
        if is_test_file(change.path):
            return Attempt(index, patch, "rejected", note=f"edits a test file ({change.path})")
        if change.path.startswith(".fixloop") or change.path.rsplit("/", 1)[-1] in HARNESS_FILES:
            return Attempt(index, patch, "rejected", note=f"edits the test harness ({change.path})")
        reaching = [w for w in HARNESS_WORDS if change.after.count(w) > change.before.count(w)]
        if reaching:
            return Attempt(index, patch, "rejected",
                           note=f"reaches into the test harness ({', '.join(reaching)} in {change.path})")
        added = sum(change.after.count(m) for m in SKIP_MARKERS)
        removed = sum(change.before.count(m) for m in SKIP_MARKERS)
        if added > removed:
            return Attempt(index, patch, "rejected", note=f"adds a skip or xfail marker ({change.path})")
    if not patch.changes or all(c.before == c.after for c in patch.changes):
        return Attempt(index, patch, "rejected", note="empty patch")
    return None
