"""`fixloop doctor`'s memory lines: where the memory is and, for a shared one, whether the bucket
answers, takes a write, and how long that takes."""

from __future__ import annotations

import time

from fixloop.adapters.memory.settings import MemorySettings
from fixloop.core.sharing import MEANINGS
from fixloop.adapters.memory.remote import explain, is_remote, storage_options
from fixloop.adapters.memory.store import default_uri, new_id, quote


def check(settings: MemorySettings) -> tuple[list[str], bool]:
    """Lines for the report and whether the memory is usable as configured (a local one always is)."""
    if not settings.enabled:
        return ["memory: off (memory.enabled = false)"], True
    if not is_remote(settings.uri):
        return [f"memory: local store at {settings.uri or default_uri()}"], True
    lines = [f"memory: shared store at {settings.uri} (memory.share = {settings.share!r}: {MEANINGS.get(settings.share, '?')}; "
             "`fixloop memory sharing` lists what leaves, table by table and column by column)"]
    try:
        storage_options(settings.uri)
        from fixloop.adapters.memory.factory import make_store
        from fixloop.adapters.memory.shared import RemoteStore

        t0 = time.monotonic()
        remote = RemoteStore(settings.uri, make_store(settings).embedder).open()
        opened = time.monotonic() - t0
        key = f"doctor-{new_id()}"
        t1 = time.monotonic()
        remote._set_meta({key: str(time.time())})
        remote.delete("meta", f"key = {quote(key)}")
        wrote = time.monotonic() - t1
        t2 = time.monotonic()
        remote.count("failures")
        read = time.monotonic() - t2
    except Exception as e:
        lines.append(f"no    {explain(settings.uri, e)}; runs go on with the local copy and queue their rows")
        return lines, False
    lines.append(f"ok    reachable (opened in {opened * 1000:.0f} ms), writable (write + delete {wrote * 1000:.0f} ms), "
                 f"read latency {read * 1000:.0f} ms")
    return lines, True
