"""Runs INSIDE the sandbox, with the project's interpreter: import the module, call the function on each
case, and write one JSON line per case to the report pipe (`FIXLOOP_REPORT_FD`). Standalone: it imports
nothing of fixloop, and its inputs are literals (`ast.literal_eval`), never code.

argv[1] is a JSON object: import_root, module, cls, function, kind, is_async, timeout, cases
([{"args": [repr, ...], "kwargs": [[name, repr], ...]}]), ghostwriter (bool: also ask Hypothesis's
ghostwriter for property tests of the function; it imports `black`, and only ever runs here).
"""

import ast
import importlib
import importlib.util
import json
import os
import signal
import sys


class _Timeout(BaseException):  # BaseException: the function's own `except Exception` cannot swallow it
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _emit(out, record):
    out.write(json.dumps(record) + "\n")
    out.flush()


def _outcome(value):
    text = repr(value)
    try:
        back = ast.literal_eval(text)
        same = type(back) is type(value) and back == value
    except Exception:
        same = False
    if same:
        return {"kind": "eq", "repr": text}
    if " at 0x" in text or len(text) > 2000:
        return {"kind": "opaque", "type": type(value).__name__}
    return {"kind": "repr", "repr": text, "type": type(value).__name__}


def _call(spec, target, case):
    args = [ast.literal_eval(a) for a in case["args"]]
    kwargs = {k: ast.literal_eval(v) for k, v in case["kwargs"]}
    signal.setitimer(signal.ITIMER_REAL, spec["timeout"])
    try:
        if spec["kind"] == "method":
            result = getattr(target(), spec["function"])(*args, **kwargs)
        else:
            result = target(*args, **kwargs)
        if spec["is_async"]:
            import asyncio
            result = asyncio.run(result)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return result


MAX_GHOSTWRITER = 64 * 1024


def _ghostwrite(target):
    """Hypothesis's ghostwriter on the function: its text, or why there is none."""
    signal.setitimer(signal.ITIMER_REAL, 30.0)
    try:
        from hypothesis.extra import ghostwriter

        text = ghostwriter.magic(target)
    except _Timeout:
        return {"ghostwriter_error": "the ghostwriter took too long"}
    except BaseException as e:
        return {"ghostwriter_error": f"{type(e).__name__}: {e}"[:300]}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return {"ghostwriter": str(text)[:MAX_GHOSTWRITER]}


def main():
    spec = json.loads(sys.argv[1])
    out = os.fdopen(int(os.environ["FIXLOOP_REPORT_FD"]), "w", encoding="utf-8")
    sys.path.insert(0, os.path.join(os.getcwd(), spec["import_root"]))
    signal.signal(signal.SIGALRM, _alarm)
    has_hypothesis = importlib.util.find_spec("hypothesis") is not None
    try:
        signal.setitimer(signal.ITIMER_REAL, max(10.0, spec["timeout"]))
        module = importlib.import_module(spec["module"])
        signal.setitimer(signal.ITIMER_REAL, 0)
        target = getattr(module, spec["cls"] or spec["function"])
        if spec["cls"] and spec["kind"] != "method":
            target = getattr(target, spec["function"])
    except _Timeout:
        _emit(out, {"import": "error", "error": "importing it took too long"})
        return
    except BaseException as e:
        _emit(out, {"import": "error", "error": f"{type(e).__name__}: {e}"[:500]})
        return
    _emit(out, {"import": "ok", "hypothesis": has_hypothesis})
    for index, case in enumerate(spec["cases"]):
        _emit(out, {"i": index, "start": True})
        try:
            record = _outcome(_call(spec, target, case))
        except _Timeout:
            record = {"kind": "timeout"}
        except BaseException as e:
            kind = type(e)
            record = {"kind": "raises", "type": kind.__qualname__, "module": kind.__module__,
                      "message": str(e)[:300]}
        record["i"] = index
        _emit(out, record)
    if spec.get("ghostwriter"):
        _emit(out, _ghostwrite(target))
    _emit(out, {"done": True})


if __name__ == "__main__":
    main()
