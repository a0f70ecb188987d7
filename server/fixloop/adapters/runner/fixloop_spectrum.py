"""Each test's executed lines of the project's files, for the localizer's spectrum (runs inside the sandbox;
stdlib, and coverage.py when it imports). Loaded by the report plugin when FIXLOOP_COVERAGE is set; the lines
go out as `coverage` records through the plugin's sealed writer."""

import os
import sys


class Spectrum:
    """Per-test executed lines of project files: coverage.py dynamic contexts when coverage imports
    (the project's own or the copy fixloop exposes), else a sys.settrace line collector."""

    def __init__(self, root, in_project, write):
        self.root, self.in_project, self.write = root, in_project, write
        self.cov = None
        self.lines = {}  # nodeid -> {path: set(lines)}
        self.current = None
        self.started = False

    def start(self):
        """Before collection, although tracing it costs some time (lines run at import belong to no test):
        coverage decides once per file whether to trace it, and a file first entered during a test would be
        judged with whatever the test patched (a test that mocks `os.path.join` made coverage skip every
        project file)."""
        if self.started:
            return
        self.started = True
        try:
            if os.environ.get("FIXLOOP_COVERAGE") == "settrace":
                raise ImportError("line tracing asked for")
            import coverage

            self.cov = coverage.Coverage(data_file=None, config_file=False, include=[self.root + os.sep + "*"],
                                         omit=["*" + os.sep + ".fixloop_runtime" + os.sep + "*", "*site-packages*"])
            self.cov.start()
        except Exception:  # no usable coverage: trace lines ourselves
            self.cov = None
            sys.settrace(self._trace)

    def switch(self, nodeid):
        if self.cov is not None:
            self.cov.switch_context(nodeid)
        else:
            self.current = self.lines.setdefault(nodeid, {})

    def _trace(self, frame, event, arg):
        path = frame.f_code.co_filename
        if self.current is None or not self.in_project(path):
            return None
        lines = self.current.setdefault(os.path.relpath(path, self.root).replace(os.sep, "/"), set())

        def local(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local

        return local

    def finish(self):
        if not self.started:
            return
        if self.cov is not None:
            self.cov.stop()
            data = self.cov.get_data()
            for path in data.measured_files():
                if not self.in_project(path):
                    continue
                rel = os.path.relpath(path, self.root).replace(os.sep, "/")
                for line, contexts in (data.contexts_by_lineno(path) or {}).items():
                    for ctx in contexts:
                        if ctx:
                            self.lines.setdefault(ctx, {}).setdefault(rel, set()).add(line)
        else:
            sys.settrace(None)
        for nodeid, files in self.lines.items():
            self.write({"event": "coverage", "nodeid": nodeid, "tool": "coverage" if self.cov else "settrace",
                        "lines": {path: sorted(lines) for path, lines in files.items()}})
