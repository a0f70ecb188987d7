"""What leaves the machine for a team's memory, per share mode, table and column: the list that
`fixloop memory sharing` prints and docs/sharing.md shows.

Written out by hand, on purpose: tests/memory/test_leaving.py passes rows with every column filled
(secrets, home paths, the login name, code) through `privacy.for_sharing` and holds this list to what
really comes out, column by column and treatment by treatment, so neither can drift from the other.
A column not listed stays on the machine (the shared row holds its empty value); vectors never leave.
"""

from __future__ import annotations

from typing import Any

from fixloop.core.sharing import ALL, FIXES_AND_STATS, FIXES_ONLY, MEANINGS, SHARES

AS_IS = "as is"
SCRUBBED = "scrubbed"
MASKED = "secrets masked"
FOLDER = "folder name"
DIGEST = "digest"
REPACKED = "repacked"
TREATMENTS: dict[str, str] = {
    AS_IS: "unchanged: ids are random, flags, counts, weights and times are numbers, proposer, operator, source "
           "and verdict names are fixloop's; `exc_type`, `error_class` and `entity` (module::Class.function) of "
           "failures, fixes and decisions name things in your code",
    SCRUBBED: "secrets masked, the home folder written ~, other absolute folders cut to their last part, "
              "the login name replaced",
    MASKED: "code structure a replay needs, verbatim but for secrets, which are masked",
    FOLDER: "the project's folder name, never the path to it",
    DIGEST: "a digest of the run's id: groups a run's rows, names nothing",
    REPACKED: "the row's own columns packed again as treated here, with its fix's (as in fixes)",
}

FAILURES = {"id": AS_IS, "project": FOLDER, "run_id": AS_IS, "time": AS_IS, "test_id": SCRUBBED, "exc_type": AS_IS,
            "message": SCRUBBED, "signature": SCRUBBED, "shape": MASKED, "statement": SCRUBBED, "frame": SCRUBBED,
            "error_class": AS_IS, "text": SCRUBBED, "fixed": AS_IS, "fix_id": AS_IS, "tried": AS_IS,
            "tried_operators": SCRUBBED, "entity": AS_IS, "recall": REPACKED}
FIXES = {"id": AS_IS, "failure_id": AS_IS, "project": FOLDER, "run_id": AS_IS, "time": AS_IS, "path": SCRUBBED,
         "diff": SCRUBBED, "summary": SCRUBBED, "proposer": AS_IS, "operator": AS_IS, "verified": AS_IS,
         "decision": AS_IS, "fault_shape": MASKED, "edit": MASKED, "entity": AS_IS, "review": AS_IS}
DECISIONS = {"id": AS_IS, "project": FOLDER, "run_id": AS_IS, "hunk_id": SCRUBBED, "accepted": AS_IS,
             "fix_id": AS_IS, "fault_shape": MASKED, "operator": AS_IS, "diff": SCRUBBED, "time": AS_IS,
             "entity": AS_IS}
STATS_ALL = {"id": AS_IS, "project": FOLDER, "error_class": AS_IS, "operator": AS_IS, "success": AS_IS,
             "weight": AS_IS, "source": AS_IS, "run_id": AS_IS, "time": AS_IS}
STATS_CODE_FREE = {"id": AS_IS, "error_class": AS_IS, "operator": AS_IS, "success": AS_IS,
                   "weight": AS_IS, "source": AS_IS, "run_id": DIGEST, "time": AS_IS}
TEMPLATES = {"id": AS_IS, "template_id": AS_IS, "verdict": AS_IS, "spec": MASKED, "source": AS_IS, "time": AS_IS}
VERDICTS = {"id": AS_IS, "fix_id": AS_IS, "decision": AS_IS, "time": AS_IS}
FORGOTTEN = {"id": AS_IS, "table": AS_IS, "time": AS_IS}

EVERY = "every row"
NONE = "none"
CODE_FREE_ROWS = ("rows whose error class is one of Python's built-in exceptions or pytest's, whose operator is a "
                  "fixloop operator name and whose source is test, review or strategy (any other row stays)")
_COMMON = {"mined_templates": (EVERY + " (a decision on a template)", TEMPLATES),
           "verdicts": (EVERY + " (a fix's review verdict: accepted, rejected or mixed)", VERDICTS),
           "forgotten": (EVERY + " (ids forgotten with `fixloop memory forget`)", FORGOTTEN)}
_FIXES = {"failures": ("fixed failures", FAILURES), "fixes": ("verified fixes", FIXES)}

# mode -> table -> (which rows leave, column -> treatment); a table with NONE sends nothing.
LEAVES: dict[str, dict[str, tuple[str, dict[str, str]]]] = {
    FIXES_ONLY: {**_FIXES, "decisions": (NONE, {}), "operator_stats": (NONE, {}), **_COMMON},
    FIXES_AND_STATS: {**_FIXES, "decisions": (NONE, {}), "operator_stats": (CODE_FREE_ROWS, STATS_CODE_FREE),
                      **_COMMON},
    ALL: {"failures": (EVERY, FAILURES), "fixes": (EVERY, FIXES), "decisions": (EVERY, DECISIONS),
          "operator_stats": (EVERY, STATS_ALL), **_COMMON},
}
NEVER = ("vectors and the embedder's name (each machine embeds with its own)", "the meta table",
         "credentials (read by LanceDB from the standard chain, never copied into a row)")


def listing(share: str) -> dict[str, Any]:
    """What leaves under `share`, as `fixloop memory sharing` prints it."""
    return {"share": share, "meaning": MEANINGS[share],
            "tables": {t: {"rows": rows, "columns": cols} for t, (rows, cols) in LEAVES[share].items()},
            "treatments": {k: v for k, v in TREATMENTS.items()
                           if any(k in cols.values() for _, cols in LEAVES[share].values())},
            "never": list(NEVER)}


def markdown() -> str:
    """The list as docs/sharing.md shows it (between its markers)."""
    lines = []
    for share in SHARES:
        lines += [f"### `memory.share = \"{share}\"`", "", MEANINGS[share][:1].upper() + MEANINGS[share][1:] + ".", "",
                  "| table | rows that leave | columns that leave (treatment) |", "| --- | --- | --- |"]
        for table, (rows, cols) in LEAVES[share].items():
            shown = ", ".join(f"`{c}`" + ("" if how == AS_IS else f" ({how})") for c, how in cols.items()) or "–"
            lines.append(f"| `{table}` | {rows} | {shown} |")
        lines.append("")
    lines += ["Treatments:", ""] + [f"- *{k}*: {v}" for k, v in TREATMENTS.items()]
    lines += ["", "Never, in any mode: " + "; ".join(NEVER) + "."]
    return "\n".join(lines) + "\n"
