"""The one column a lookup reads: what `recall()` needs of a failure, packed into the `recall` column.

A nearest-neighbour lookup pays for every column it reads (about 0.5 ms each for 8 rows of a
100,000-row store), and joining the fixes table costs another query (5-10 ms at 30,000 fixes). So a
failure row carries its recall fields and its verified fix's lesson in one string. Failure rows
are never updated, so the copy cannot drift; the fixes table stays the truth about whether a fix
still exists (a forgotten fix is dropped by the reader, not here).

The base fields are always packed again from the row's own columns when it is written (after
redaction), so an imported or pulled `recall` value can only contribute its fix, never a text
that disagrees with the row. A store written before this column existed gets it filled by SQL
on open (`FILL_SQL`) without a fix: the reader then joins the fixes table for those rows.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

SEP = "\x1f"  # the ASCII unit separator; replaced by a space inside a field
FIELDS = ("id", "project", "signature", "exc_type", "statement", "fixed", "tried", "tried_operators")
FIX_FIELDS = ("id", "proposer", "operator", "summary", "fault_shape", "edit", "diff")
DIFF_CHARS = 1500  # what the model's context shows of a past fix's diff
_TEXT = ("project", "signature", "exc_type", "statement", "tried_operators")

# The same packing in the SQL LanceDB runs when it adds the column to an older store (no fix known).
FILL_SQL = ("concat_ws(chr(31), " + ", ".join(
    f"replace({f}, chr(31), ' ')" if f in _TEXT or f == "id" else f"CAST({f} AS VARCHAR)" for f in FIELDS)
    + ", '')")


def fix_lesson(fix: Mapping[str, Any]) -> dict[str, Any]:
    """What recall shows of a fix row: its id, who made it, what it changed, the head of its diff."""
    out = {k: fix.get(k, "") or "" for k in FIX_FIELDS}
    out["diff"] = str(out["diff"])[:DIFF_CHARS]
    return out


def pack(row: Mapping[str, Any], fix: Mapping[str, Any] | None) -> str:
    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value if value is not None else "").replace(SEP, " ")

    # json.dumps escapes control characters, so the fix never holds a raw separator.
    return SEP.join([text(row.get(f, "")) for f in FIELDS] + [json.dumps(fix_lesson(fix)) if fix else ""])


def unpack(value: Any) -> dict[str, Any] | None:
    """The recall fields and `fix` (a lesson dict or None); None when the value is not a packed row."""
    if not isinstance(value, str):
        return None
    parts = value.split(SEP)
    if len(parts) != len(FIELDS) + 1 or not parts[0] or parts[5] not in ("true", "false"):
        return None
    row: dict[str, Any] = dict(zip(FIELDS, parts))
    row["fixed"] = parts[5] == "true"
    try:
        row["tried"] = int(parts[6] or 0)
    except ValueError:
        return None
    row["fix"] = fix_of(value)
    return row


def fix_of(value: Any) -> dict[str, Any] | None:
    """The fix lesson a packed value carries, or None."""
    if not isinstance(value, str) or SEP not in value:
        return None
    try:
        fix = json.loads(value.rsplit(SEP, 1)[1] or "null")
    except ValueError:
        return None
    if not isinstance(fix, dict) or not fix.get("id"):
        return None
    return {k: str(fix.get(k, "") or "") for k in FIX_FIELDS}


def repacked(row: dict[str, Any], clean: Callable[[str, str], str]) -> str:
    """`row`'s recall value packed again from its columns, keeping the fix it carried (a `fix` key of the
    row wins: the writer's own fix), each fix text passed through `clean(key, text)`."""
    fix = row.pop("fix", None) or fix_of(row.get("recall"))
    if fix:
        fix = {k: clean(k, v) if isinstance(v, str) else v for k, v in fix_lesson(fix).items()}
    return pack(row, fix)
