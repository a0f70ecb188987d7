"""The project's pytest configuration, adjusted for fixloop's runs (hooks of fixloop's report plugin, inside
the sandbox, under the project's interpreter: the standard library and pytest only).

- One process: pytest-xdist's `-n` (often in addopts) off; its workers would run the tests without the
  report plugin's pipe, so no test's result, time or lines would reach fixloop.
- No pytest-cov: a run of a few tests would fail its `--cov-fail-under`, and its tracer costs every run.
- Which collected tests a run keeps: the host names them by node id in `--fixloop-select` (JSON) and gives
  pytest only their files. Given as arguments, a node id that pytest does not collect again ends the whole
  run ("not found"), and a test parametrized with the moment (`test_parse[11-28-2026 13:43:34]`) has a new
  id in every run; here such an id keeps the tests of its function nobody asked for by name instead.
"""

import json
import os

import pytest

# The host's runner/cold.py names the same (it cannot import this module: pytest is the project's, not fixloop's).
OPTION = "--fixloop-select"
SELECT_FILE = ".fixloop-select.json"  # the list, when it is too long for an argument (`--fixloop-select=@...`)
_root = os.getcwd()  # the run's copy: a test may change the working directory before collection ends


@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """pytest-cov's `--cov` off, before pytest-cov starts measuring here."""
    options = early_config.known_args_namespace
    if getattr(options, "cov_source", None):
        options.cov_source = None
    yield


def one_process(config):
    """Called from the plugin's `pytest_configure`, before xdist's own (trylast), which starts the workers
    only in distribution mode."""
    if getattr(config.option, "dist", "no") != "no" or getattr(config.option, "tx", None):
        config.option.dist, config.option.tx, config.option.numprocesses = "no", [], 0


def pytest_addoption(parser):
    parser.addoption(OPTION, default=None, help="node ids of the tests to keep (JSON; fixloop's)")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    ids = wanted(config.getoption(OPTION))
    if ids is not None:
        kept, dropped = select(items, ids)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def wanted(raw, root=None):
    """The node ids of `--fixloop-select`, or None (then pytest's own selection stands)."""
    try:
        if raw and raw.startswith("@"):
            with open(os.path.join(root or _root, raw[1:]), "rb") as f:
                raw = f.read().decode("utf-8", "surrogateescape")
        ids = json.loads(raw) if raw else None
    except (OSError, ValueError):
        return None
    return [str(i) for i in ids] if isinstance(ids, list) else None


def _function(nodeid):
    return nodeid.split("[", 1)[0]


def select(items, ids):
    """(kept, dropped): the items `ids` name, in the order of `ids` (an id of a class or a module keeps what
    is in it), then pytest's order among the items of one id."""
    by_id = {item.nodeid: n for n, item in enumerate(items)}
    named = {nodeid for nodeid in ids if nodeid in by_id}
    by_function = {}
    for n, item in enumerate(items):
        if "[" in item.nodeid and item.nodeid not in named:
            by_function.setdefault(_function(item.nodeid), []).append(n)
    rank = {}
    for order, nodeid in enumerate(ids):
        if nodeid in by_id:
            rank.setdefault(by_id[nodeid], order)
            continue
        inside = [n for n, item in enumerate(items) if item.nodeid.startswith(nodeid + "::")]
        if not inside and "[" in nodeid:  # a parameter id of another run: the same function's other ids
            inside = by_function.get(_function(nodeid), [])
        for n in inside:
            rank.setdefault(n, order)
    kept = sorted(rank, key=lambda n: (rank[n], n))
    chosen = set(kept)
    return [items[n] for n in kept], [item for n, item in enumerate(items) if n not in chosen]
