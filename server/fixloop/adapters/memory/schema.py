"""Table layouts of the memory store, their version, and the migration path between versions.

Version history (bump SCHEMA_VERSION and add a step to MIGRATIONS when a layout changes):
  1  failures, fixes, decisions, operator_stats, meta. Later, in place: `entity` on failures, fixes and
     decisions (the code graph's link; "" on older rows), mined_templates (a new table is created on
     open, so it needs no version step), `recall` on failures (filled from the row's columns), and
     forgotten and verdicts (new, like mined_templates).
Columns added to a table later are filled by `missing_columns` (a default per type), so an older
store opens without a rewrite; a change that needs data work gets a function in MIGRATIONS.
"""

from __future__ import annotations

from typing import Any, Callable

import pyarrow as pa

from fixloop.adapters.memory.packed import FILL_SQL

SCHEMA_VERSION = 1

_S, _F, _B, _I = pa.string(), pa.float64(), pa.bool_(), pa.int32()


def failures(dim: int) -> pa.Schema:
    return pa.schema([
        ("id", _S), ("project", _S), ("run_id", _S), ("time", _F), ("test_id", _S),
        ("exc_type", _S), ("message", _S), ("signature", _S), ("shape", _S), ("statement", _S), ("frame", _S),
        ("error_class", _S), ("text", _S), ("fixed", _B), ("fix_id", _S), ("tried", _I), ("tried_operators", _S),
        ("embedder", _S), ("vector", pa.list_(pa.float32(), dim)),
        ("entity", _S),  # the code graph's id of the suspect function (`module::Class.func`), "" when unknown
        ("recall", _S),  # what a lookup reads, in one column: see packed.py
    ])


FIXES = pa.schema([
    ("id", _S), ("failure_id", _S), ("project", _S), ("run_id", _S), ("time", _F), ("path", _S), ("diff", _S),
    ("summary", _S), ("proposer", _S), ("operator", _S), ("verified", _B), ("decision", _S),
    ("fault_shape", _S), ("edit", _S),
    ("entity", _S),  # the fixed function
    ("review", _S),  # the reviewer's word on the fix when it was offered: "accept (offline)", "prefer (model)"
])

DECISIONS = pa.schema([
    ("id", _S), ("project", _S), ("run_id", _S), ("hunk_id", _S), ("accepted", _B), ("fix_id", _S),
    ("fault_shape", _S), ("operator", _S), ("diff", _S), ("time", _F),
    ("entity", _S),  # the function of the decided fix
])

OPERATOR_STATS = pa.schema([
    ("id", _S), ("project", _S), ("error_class", _S), ("operator", _S), ("success", _B), ("weight", _F),
    ("source", _S), ("run_id", _S), ("time", _F),
])

# One row per decision on a mined template (approve, reject, import): append-only, the latest row wins.
MINED_TEMPLATES = pa.schema([
    ("id", _S), ("template_id", _S), ("verdict", _S), ("spec", _S), ("source", _S), ("time", _F),
])

META = pa.schema([("key", _S), ("value", _S)])

# The ids of rows forgotten on a team's shared memory (`id` is the forgotten row's), so that forgetting sticks
# on every machine: see sync.py.
FORGOTTEN = pa.schema([("id", _S), ("table", _S), ("time", _F)])

# A fix's review verdict, one row per review (besides `fixes.decision`, which a fix shared before its review
# carries without it), so that a fix rejected on one machine is not warned about or mined on the others:
# see sync.py. The latest row wins.
VERDICTS = pa.schema([("id", _S), ("fix_id", _S), ("decision", _S), ("time", _F)])

TABLES = ("failures", "fixes", "decisions", "operator_stats", "meta", "mined_templates", "forgotten", "verdicts")


def schema_for(table: str, dim: int) -> pa.Schema:
    return {"failures": failures(dim), "fixes": FIXES, "decisions": DECISIONS,
            "operator_stats": OPERATOR_STATS, "meta": META, "mined_templates": MINED_TEMPLATES,
            "forgotten": FORGOTTEN, "verdicts": VERDICTS}[table]


def empty_value(kind: pa.DataType) -> Any:
    """What a writer that does not know a column puts in it."""
    if pa.types.is_boolean(kind):
        return False
    if pa.types.is_integer(kind):
        return 0
    if pa.types.is_floating(kind):
        return 0.0
    if pa.types.is_string(kind):
        return ""
    return None


def _default_sql(kind: pa.DataType) -> str:
    if pa.types.is_boolean(kind):
        return "false"
    if pa.types.is_integer(kind):
        return "CAST(0 AS INT)"
    if pa.types.is_floating(kind):
        return "CAST(0.0 AS DOUBLE)"
    return "''"


# Columns computed from the others: an older store gets them filled from its own rows, not with a default.
DERIVED = {"recall": FILL_SQL}


def missing_columns(current: pa.Schema, wanted: pa.Schema) -> dict[str, str]:
    """Columns `wanted` has and `current` lacks, with the SQL expression that fills them."""
    have = set(current.names)
    return {f.name: DERIVED.get(f.name) or _default_sql(f.type)
            for f in wanted if f.name not in have and not pa.types.is_fixed_size_list(f.type)}


# from_version -> step that brings a store at that version to from_version + 1. Each step gets the
# open connection and must be safe to run twice (another process may be migrating at the same time).
MIGRATIONS: dict[int, Callable[[Any], None]] = {}
