"""A writer process for the concurrency tests: appends batches to a memory store and prints
`committed TAG BATCH` after each batch's commit returned (so the parent knows what is durable)."""

import sys
import time

from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore

uri, tag, batches, size, compact_every = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
store = MemoryStore(uri, HashingEmbedder(64)).open()
print("open", flush=True)
for b in range(batches):
    rows = [{"id": f"{tag}-{b}-{i}", "project": tag, "run_id": f"{tag}-{b}", "time": time.time(),
             "test_id": f"tests/t.py::test_{i}", "exc_type": "AssertionError", "message": f"assert {i} == {b}",
             "signature": f"AssertionError: assert <num> == <num> @ {tag}", "text": f"{tag} {b} {i} " + "x" * 200}
            for i in range(size)]
    store.add("failures", rows)
    print(f"committed {tag} {b}", flush=True)
    if compact_every and b % compact_every == compact_every - 1:
        store.compact(build_index=False)
print("done", flush=True)
