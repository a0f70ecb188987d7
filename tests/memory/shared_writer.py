"""A 'machine' for the shared-memory concurrency tests: writes batches of fixed failures through its own
cache and queue, syncing after each; prints `committed TAG BATCH` once a batch is in the local cache
(and so queued) and `synced TAG BATCH PENDING` after each sync."""

import sys
import time
from pathlib import Path

from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.shared import SharedStore

uri, folder, tag, batches, size = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
store = SharedStore(uri, HashingEmbedder(64), "fixes-only", folder=folder, retry_seconds=0.0).open()
print("open", flush=True)
for b in range(batches):
    rows = [{"id": f"{tag}-{b}-{i}", "project": tag, "run_id": f"{tag}-{b}", "time": time.time(),
             "test_id": f"tests/t.py::test_{i}", "exc_type": "AssertionError", "message": f"assert {i} == {b}",
             "signature": f"AssertionError: assert <num> == <num> @ {tag}", "text": f"{tag} {b} {i} " + "x" * 200,
             "fixed": True} for i in range(size)]
    store.add("failures", rows)
    print(f"committed {tag} {b}", flush=True)
    report = store.sync(wait=True, pull=False)
    if "error" in report:
        print(f"error {report['error']}", file=sys.stderr, flush=True)
        sys.exit(3)
    print(f"synced {tag} {b} {report['pending']}", flush=True)
print("done", flush=True)
