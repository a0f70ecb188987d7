"""The loop's safety check (step 4): a candidate that introduces a dangerous construct never runs.

Each changed Python file is scanned before and after the patch with the tree-sitter rules and with
bandit. Only findings the patch introduced count: a finding is identified by its code and the
source it covers (whitespace-normalized), not by its line, so code that moved or a changed operator
next to an old `os.system` call does not make the old call the candidate's fault. When the file did
not compile before (the candidate repairs a syntax error), bandit could not see the old findings, so
only findings on lines the patch touched count. An introduced finding of severity "error" blocks the
candidate; the others are reported in the verdict.
`# nosec` is ignored here: a generated candidate must not be able to switch the check off. A change
to a file that decides how tests or the interpreter start (FL-S012) is refused whatever it says.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import re
import threading
from collections import Counter, OrderedDict

from fixloop.core.model import Finding, Patch, Verdict
from fixloop.adapters.safety import bandit_scan, rules
from fixloop.adapters.safety.scope import scoped
from fixloop.adapters.safety.catalog import RULES

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
# Files that decide which tests run and what runs before them: no candidate may change them.
RUN_CONFIG_NAMES = frozenset({"pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "noxfile.py",
                              "sitecustomize.py", "usercustomize.py", ".pdbrc", "pytest.toml", ".pytest.toml"})
MAX_SCAN_CHARS = 2_000_000  # larger texts are refused rather than scanned for seconds
_SPACE = re.compile(r"\s+")


class PatchSafety:
    """Implements the `SafetyCheck` port."""

    def __init__(self, use_bandit: bool = True, max_chars: int = MAX_SCAN_CHARS) -> None:
        self.use_bandit = use_bandit
        self.max_chars = max_chars
        # Every candidate of a run patches the same `before` texts: scan each once. Keyed by digest
        # so the cache does not keep whole sources alive.
        self._before: OrderedDict[tuple[str, str], tuple[tuple[Finding, ...], bool]] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, patch: Patch) -> Verdict:
        introduced: list[Finding] = []
        for change in patch.changes:
            if change.after == change.before:
                continue
            if is_run_config(change.path):
                introduced.append(Finding(change.path, 1, "FL-S012", f"{change.path} configures how tests run "
                                          f"({RULES['FL-S012'].name})", "error"))
                continue
            if not change.path.endswith(PYTHON_SUFFIXES):
                continue
            if len(change.after) > self.max_chars:
                return Verdict(False, (), f"unsafe: {change.path} is too large to check "
                                          f"({len(change.after)} characters, limit {self.max_chars})")
            before_scope, after_scope = scoped(change.before, change.after) if self.use_bandit else ("", "")
            after = self._scan(change.path, change.after, after_scope)
            if not after:
                continue
            before, compiled = self._scan_before(change.path, change.before, before_scope)
            added = new_findings(before, after, change.before, change.after)
            if not compiled:
                touched = changed_lines(change.before, change.after)
                added = [f for f in added if touched.intersection(range(f.line, max(f.line, f.end_line) + 1))]
            introduced.extend(added)
        blocking = [f for f in introduced if f.severity == "error"]
        if blocking:
            shown = "; ".join(f"{f.code} at {f.path}:{f.line}: {f.message}" for f in blocking[:3])
            more = f" (and {len(blocking) - 3} more)" if len(blocking) > 3 else ""
            return Verdict(False, tuple(introduced), f"unsafe: the candidate adds {shown}{more}")
        note = f"{len(introduced)} non-blocking finding(s) added" if introduced else ""
        return Verdict(True, tuple(introduced), note)


    def _scan(self, path: str, text: str, scope: str) -> tuple[Finding, ...]:
        """Rules on the whole text, then bandit on `scope`: the text with the definitions the patch left
        alone blanked, line for line (safety/scope.py)."""
        found = list(rules.scan(text, path))
        if self.use_bandit:
            found.extend(bandit_scan.scan_text(scope, path, ignore_nosec=True))
        return tuple(found)

    def _scan_before(self, path: str, text: str, scope: str) -> tuple[tuple[Finding, ...], bool]:
        """Findings of the unpatched text and whether it compiled (an absent or oversized text has none)."""
        if not text or len(text) > self.max_chars:
            return (), True
        digest = hashlib.sha256()
        for part in (text, "\0", scope):
            digest.update(part.encode("utf-8", "surrogatepass"))
        key = (path, digest.hexdigest())
        with self._lock:
            if key in self._before:
                self._before.move_to_end(key)
                return self._before[key]
        result = (self._scan(path, text, scope), _compiles(text))
        with self._lock:
            self._before[key] = result
            while len(self._before) > 64:
                self._before.popitem(last=False)
        return result


def is_run_config(path: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name in RUN_CONFIG_NAMES or name.endswith(".pth")


def _compiles(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def changed_lines(before: str, after: str) -> set[int]:
    """1-based lines of `after` that the patch replaced or inserted (the line after a deletion)."""
    a, b = before.split("\n"), after.split("\n")
    out: set[int] = set()
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.update(range(j1 + 1, max(j2, j1 + 1) + 1))
    return out


def new_findings(before: tuple[Finding, ...] | list[Finding], after: tuple[Finding, ...] | list[Finding],
                 before_text: str, after_text: str) -> list[Finding]:
    """The findings of `after` that `before` did not have, compared as a multiset of fingerprints
    (one more identical `os.system(cmd)` line is still a new one)."""
    before_lines, after_lines = before_text.split("\n"), after_text.split("\n")
    old = Counter(fingerprint(f, before_lines) for f in before)
    out: list[Finding] = []
    for f in after:
        key = fingerprint(f, after_lines)
        if old[key] > 0:
            old[key] -= 1
        else:
            out.append(f)
    return out


def fingerprint(finding: Finding, lines: list[str]) -> str:
    """The finding's code and the source it covers (`lines`: the text split at newlines),
    whitespace-normalized."""
    first, last = finding.line, finding.end_line or finding.line
    if not 1 <= first <= len(lines):
        return f"{finding.code}|{finding.message}"
    last = min(max(last, first), len(lines))
    if finding.end_line:
        chunk = lines[first - 1 : last]
        chunk[-1] = chunk[-1][: finding.end_column] if finding.end_column or last > first else chunk[-1]
        chunk[0] = chunk[0][finding.column :]
        covered = "\n".join(chunk)
    else:
        covered = lines[first - 1]
    return f"{finding.code}|{_SPACE.sub(' ', covered).strip()[:400]}"
