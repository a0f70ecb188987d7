"""What chosen functions return during each test, for the offline reviewer (runs inside the sandbox; stdlib
only). Loaded by the report plugin when FIXLOOP_VALUES names the functions: {"path/rel.py": ["name", ...]}.

Each test's calls of those functions (fixtures included) are recorded in order, as the function's name and a
digest of its return value's shortened repr (addresses removed, so two runs of the same code agree); a
generator's yields count as returns. The host compares the original program's values with a fix's: a fix
that changes what a function returns on inputs the passing tests give it changes behaviour the tests do not
check. Bounded per test; a repr that fails counts as its exception's name.
"""

import hashlib
import json
import os
import re
import reprlib
import sys

MAX_CALLS = 500  # recorded calls per test
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_short = reprlib.Repr()
_short.maxlevel, _short.maxstring, _short.maxother, _short.maxlist, _short.maxdict = 4, 200, 200, 30, 30


def _digest(value):
    try:
        text = _short.repr(value)
    except Exception as e:  # noqa: BLE001 - a value whose repr fails is still a value
        text = f"<repr failed: {type(e).__name__}>"
    return hashlib.sha1(ADDRESS.sub("", text).encode("utf-8", "replace")).hexdigest()[:16]


class Values:
    """A pytest plugin: one `values` record per test, written with the report plugin's sealed writer."""

    def __init__(self, root, spec, write):
        self.wanted = {os.path.join(root, path): frozenset(names) for path, names in spec.items()}
        self.write = write
        self.calls = None

    @classmethod
    def from_env(cls, root, write):
        try:
            spec = json.loads(os.environ.pop("FIXLOOP_VALUES", "") or "{}")
            spec = {str(p): [str(n) for n in names] for p, names in spec.items()}
        except (ValueError, TypeError, AttributeError):
            return None
        return cls(root, spec, write) if spec else None

    def _profile(self, frame, event, arg):
        if event != "return" or self.calls is None:
            return
        code = frame.f_code
        names = self.wanted.get(code.co_filename)
        if names is not None and code.co_name in names and len(self.calls) < MAX_CALLS:
            self.calls.append([code.co_name, _digest(arg)])

    def pytest_runtest_logstart(self, nodeid, location):
        self.calls = []
        sys.setprofile(self._profile)

    def pytest_runtest_logfinish(self, nodeid, location):
        sys.setprofile(None)
        calls, self.calls = self.calls, None
        if calls is not None:
            self.write({"event": "values", "nodeid": nodeid, "calls": calls})
