"""pytest plugin loaded inside the sandbox (`-p fixloop_report`): one JSON line per test event.

It runs under the project's interpreter, so it uses only the standard library and pytest.
Lines go to the report pipe whose descriptor number is in FIXLOOP_REPORT_FD, as they happen, so a
run killed mid-test still tells what it saw; the descriptor is made non-inheritable at once so the
tests' own subprocesses never get it. At the very end come pytest's exit status and the totals of
its JUnit XML: the host believes a pass only when these agree with the process's own exit status.

The pipe leads to fixloop's supervisor (`fixloop_supervise`), which arms this plugin with a key before
pytest starts (`arm`) and forwards only the lines sealed with it (`sealed_writer`).

PYTEST_DONT_REWRITE: the supervisor imports this module before pytest loads it as `-p fixloop_report`, and
pytest warns that a module already imported cannot be rewritten; a project whose `filterwarnings` turns
warnings into errors would then end before collecting a single test.
"""

import faulthandler
import json
import os
import signal
import sys
import threading
import time

import pytest

try:
    import fixloop_options  # beside this file in fixloop's runtime folder
    import fixloop_paths
    from fixloop_supervise import sealed_writer
except ImportError:  # imported from the fixloop package (its own tests), not from a run's runtime folder
    from fixloop.adapters.runner import fixloop_options, fixloop_paths
    from fixloop.adapters.runner.fixloop_supervise import sealed_writer
# The project's pytest configuration, adjusted for fixloop's runs: hooks of this plugin, kept in their module.
pytest_addoption = fixloop_options.pytest_addoption
pytest_collection_modifyitems = fixloop_options.pytest_collection_modifyitems
pytest_load_initial_conftests = fixloop_options.pytest_load_initial_conftests

_timeout = float(os.environ.get("FIXLOOP_TEST_TIMEOUT", "0") or 0)  # wall seconds a test may take
_cpu_limit = float(os.environ.get("FIXLOOP_CPU_LIMIT", "0") or 0)  # CPU seconds: a loop that never ends


def _limits_by_test():
    """A candidate's own limit per test (node id -> seconds, wall and CPU alike), learned by the host from
    each test's baseline time; a test not named keeps the limits above."""
    try:
        table = json.loads(os.environ.pop("FIXLOOP_TEST_LIMITS", "") or "{}")
        return {str(k): float(v) for k, v in table.items() if float(v) > 0}
    except (ValueError, TypeError, AttributeError):
        return {}


_by_test = _limits_by_test()
_armed = []
# Once a test of this session hung, the next ones get ten times the CPU the finished tests needed (at
# least a second), as the host's TestClock does for candidates: a bug that hangs many tests costs one probe.
CPU_FLOOR, CPU_FACTOR = 1.0, 10.0
_clock = {"started": 0.0, "slowest": 0.0, "hangs": 0, "fired": False, "active": False, "wall": 0.0, "cpu": 0.0,
          "began": 0.0, "guarded": False}
_root, _max_message = os.getcwd(), 4000
_session = _xml_path = None


def _take_report_fd():
    try:
        fd = int(os.environ.pop("FIXLOOP_REPORT_FD", ""))
        os.set_inheritable(fd, False)
        return fd
    except (ValueError, OSError):
        return None


_out = _take_report_fd()


_workspace = os.environ.get("FIXLOOP_WORKSPACE", "")
if _workspace and os.path.realpath(_workspace) != os.path.realpath(_root):
    fixloop_paths.relocate(_workspace, _root)


_put = sealed_writer(_out, b"")


def arm(key):
    """Called by the supervisor before pytest starts, with the run's key: every record from now on is sealed."""
    global _put
    _put = sealed_writer(_out, key)


def _write(obj):
    _put(obj)


_harness = None


def pytest_plugin_registered(plugin, manager):
    """First called while pytest registers this plugin (`-p`): what of the project pytest imported by then
    (itself, its dependencies, plugins named before this one) is the harness. Conftests come later."""
    global _harness
    if _harness is None:
        _harness = fixloop_paths.harness_files(_root, _workspace)
        if _harness:
            _write({"event": "harness", "files": _harness})


def _in_project(path):
    if path.startswith("<"):  # "<frozen posixpath>", "<string>": code without a file, never the project's
        return False
    path = os.path.abspath(path)
    if not path.startswith(_root + os.sep):
        return False
    parts = path[len(_root) + 1 :].split(os.sep)
    return not any(p in ("site-packages", ".venv", "venv", ".fixloop_runtime") for p in parts)


def _frames(excinfo, item):
    """The traceback from the test's own file inward: the frames above it are pytest calling the test, and
    when the project is one of pytest's dependencies they are the project's files without being its bug."""
    frames = []
    try:
        entries = list(excinfo.traceback)
        own = [i for i, entry in enumerate(entries) if str(entry.path) == str(item.path)]
        for entry in entries[own[0]:] if own else entries:
            path = str(entry.path)
            rel = os.path.relpath(path, _root) if path.startswith(_root + os.sep) else path
            frames.append([rel.replace(os.sep, "/"), entry.lineno + 1, entry.name, _in_project(path)])
    except Exception:  # a broken traceback must not break the report
        pass
    return frames[-30:]



def pytest_configure(config):
    global _spectrum, _xml_path
    fixloop_options.one_process(config)
    # Absolute now: a test may change the working directory before the end.
    if getattr(config.option, "xmlpath", None):
        _xml_path = os.path.abspath(config.option.xmlpath)
    if os.environ.get("FIXLOOP_COVERAGE"):
        import fixloop_spectrum

        _spectrum = fixloop_spectrum.Spectrum(_root, _in_project, _write)
        _spectrum.start()
    if os.environ.get("FIXLOOP_VALUES"):
        import fixloop_values

        values = fixloop_values.Values.from_env(_root, _write)
        if values is not None:
            config.pluginmanager.register(values, "fixloop_values")


def pytest_sessionstart(session):
    global _session
    _session = session


def _junit_totals(config):
    """tests, failures, errors and skipped from the JUnit XML pytest wrote at the end of the session."""
    path = _xml_path
    if not path:
        return None
    try:
        import xml.etree.ElementTree as ET

        root = ET.parse(path).getroot()
    except Exception:  # no file, or not XML: the host sees no totals
        return None
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        for key in totals:
            try:
                totals[key] += int(suite.get(key, "0"))
            except ValueError:
                return None
    return totals


_spectrum = None


def pytest_unconfigure(config):
    global _out, _put
    if _spectrum is not None:
        _spectrum.finish()
    if _out is not None:
        totals = _junit_totals(config)
        if totals is not None:
            _write(dict(event="junit", **totals))
        status = getattr(_session, "exitstatus", None)
        _write({"event": "end", "exitstatus": int(status) if status is not None else None})
        os.close(_out)
        _out, _put = None, sealed_writer(None, b"")


def pytest_collectreport(report):
    if report.failed:
        _write({"event": "collect_error", "nodeid": report.nodeid, "longrepr": str(report.longrepr)[-_max_message:]})


def pytest_collection_finish(session):
    _write({"event": "collected", "count": len(session.items)})


class Timeout(BaseException):
    """Raised in a test that ran past its limit. Not an Exception: `except Exception` in the code under
    test must not swallow it. The test fails, the session goes on, and the lines the hang ran stay in
    its traceback and its coverage."""


def _cpu_now():
    if _clock["hangs"]:
        return min(_clock["cpu"], max(CPU_FLOOR, CPU_FACTOR * _clock["slowest"] + 0.5))
    return _clock["cpu"]


# pytest, pluggy and fixloop's own runtime files (this folder).
_HARNESS = (os.sep + "_pytest" + os.sep, os.sep + "pluggy" + os.sep,
            os.path.dirname(os.path.abspath(__file__)) + os.sep)


def _in_harness(frame):
    """Whether the signal landed in pytest's machinery (or in the standard library on its behalf, such as
    `inspect` while a failure is being reported) rather than in the code under test: the innermost
    frame that is either the project's or the harness's decides."""
    while frame is not None:
        name = frame.f_code.co_filename
        if any(h in name for h in _HARNESS):
            return True
        if _in_project(name):
            return False
        frame = frame.f_back
    return True


def _on_timer(signum, frame):
    if not _clock["active"]:  # the test is over: a late signal must not outlive it
        return
    if not _clock["guarded"] or (frame is not None and (frame.f_lineno is None or _in_harness(frame))):
        # Raised outside a test's setup, call or teardown (while pytest reports it, say, in a conftest hook),
        # in pytest's own machinery, or at an instruction without a line (pytest's report of the failure
        # then breaks on the missing line number), it would end the whole session, and every test after it
        # would go unrun: try again when the test's code runs.
        signal.setitimer(signal.ITIMER_PROF if signum == signal.SIGPROF else signal.ITIMER_REAL, 0.05)
        return
    _clock["fired"] = True
    if signum == signal.SIGPROF:
        raise Timeout(f"the test used more than {_cpu_now():g} s of CPU: it probably loops forever")
    raise Timeout(f"the test did not finish in {_clock['wall']:g} s")


def _arm(nodeid):
    """Soft limits, by signal in the main thread (a project's own handler for the signal is left alone)."""
    own = _by_test.get(nodeid)
    _clock["wall"], _clock["cpu"] = (own, own) if own is not None else (_timeout, _cpu_limit)
    _clock["started"], _clock["fired"], _clock["active"] = time.process_time(), False, True
    if threading.current_thread() is not threading.main_thread():
        return
    for sig, timer, seconds in ((signal.SIGPROF, signal.ITIMER_PROF, _cpu_now() if _clock["cpu"] > 0 else 0),
                                (signal.SIGALRM, signal.ITIMER_REAL, _clock["wall"])):
        try:
            if seconds > 0 and signal.getsignal(sig) in (signal.SIG_DFL, _on_timer):
                signal.signal(sig, _on_timer)
                signal.setitimer(timer, seconds)
                _armed.append(timer)
        except (ValueError, OSError):
            pass


def _disarm():
    _clock["active"] = False
    while _armed:
        signal.setitimer(_armed.pop(), 0)
    if _clock["fired"]:
        _clock["hangs"] += 1
    else:
        _clock["slowest"] = max(_clock["slowest"], time.process_time() - _clock["started"])


def _guarded():
    """Around a test's setup, call and teardown: where pytest turns an exception into the test's failure."""
    _clock["guarded"] = True
    try:
        yield
    finally:
        _clock["guarded"] = False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _guarded()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _guarded()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield from _guarded()


def pytest_runtest_logstart(nodeid, location):
    _write({"event": "start", "nodeid": nodeid})
    if _spectrum is not None:
        _spectrum.switch(nodeid)
    _arm(nodeid)
    _clock["began"] = time.monotonic()
    wall = _clock["wall"]
    if wall > 0:
        # A test that ignores the soft limit (stuck in C, or catching BaseException) ends the whole run
        # from inside a little later: the launcher notices the missing "finish" line.
        faulthandler.dump_traceback_later(wall + max(2.0, wall / 2), exit=True, file=sys.stderr)


def pytest_runtest_logfinish(nodeid, location):
    _disarm()
    if _clock["wall"] > 0:
        faulthandler.cancel_dump_traceback_later()
    # The whole test, fixtures included: what the host learns a test's own limit from.
    _write({"event": "finish", "nodeid": nodeid, "seconds": time.monotonic() - _clock["began"]})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if call.excinfo is not None and rep.failed:
        rep._fixloop = {
            "exc_type": call.excinfo.type.__name__,
            "message": str(call.excinfo.value)[:_max_message],
            "frames": _frames(call.excinfo, item),
        }


def pytest_runtest_logreport(report):
    info = getattr(report, "_fixloop", {})
    if report.when == "call" or (report.when == "setup" and not report.passed) or (
        report.when == "teardown" and report.failed
    ):
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        elif report.when != "call" and report.failed:
            outcome = "error"
        _write(
            {
                "event": "result",
                "nodeid": report.nodeid,
                "when": report.when,
                "outcome": outcome,
                "duration": report.duration,
                "exc_type": info.get("exc_type", ""),
                "message": info.get("message", ""),
                "frames": info.get("frames", []),
                "longrepr": str(report.longrepr)[-_max_message:] if report.failed else "",
            }
        )
