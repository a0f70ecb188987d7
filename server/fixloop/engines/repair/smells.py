"""Suspects the code itself points at, beside what the tests ran.

When many failing tests run the same code, the spectrum gives a hundred lines one score; a line that reads
a name twice while a parameter one character from it is never read (`max(t.get(type1), t.get(type1))` in
a function of `type1, type2`) is then the likeliest slip there is. Such a line, if a failing test ran it (it
is a suspect already), is raised to the best score of the list, ahead of the lines that had it; nothing else
moves, and no line the tests did not run is added.

The other way round, the lines of a `__repr__` (and of functions named for showing a value) run in every
failing test whose assertion compares such objects, because pytest prints them: the spectrum ranks them
first for a reason that has nothing to do with the bug, so they keep half their score.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from fixloop.core.model import Suspect
from fixloop.engines.repair.context import facts, unused_look_alikes
from fixloop.kit.syntax import functions_in, is_name_use, parse, text_of, walk

REPORTING = 0.5  # what a line of a repr function keeps of its score
REPORTING_WHY = "shows values (pytest runs it to print a failed assertion)"


def with_smells(suspects: Sequence[Suspect], sources: Mapping[str, str]) -> tuple[Suspect, ...]:
    """`suspects`, those on a line that reads a name where an unused look-alike parameter was likely meant
    raised to the top score and first among it, best first."""
    paths = {s.path for s in suspects if s.path in sources}
    shown = {path: lines for path in paths if (lines := reporting_lines(sources[path]))}
    suspects = [Suspect(s.path, s.line, round(s.score * REPORTING, 6), f"{s.reason}; {REPORTING_WHY}", s.passing)
                if s.line in shown.get(s.path, ()) else s for s in suspects]
    if not suspects:
        return ()
    top = max(s.score for s in suspects)
    smelly = {path: lines for path in paths if (lines := smelly_lines(sources[path]))}
    out = []
    for s in suspects:
        why = smelly.get(s.path, {}).get(s.line)
        out.append(Suspect(s.path, s.line, top, f"{s.reason}; {why}", s.passing) if why else s)
    return tuple(sorted(out, key=lambda s: (-s.score, s.line not in smelly.get(s.path, {}), s.path, s.line)))


def reporting_lines(text: str) -> frozenset[int]:
    """The lines of functions that show an object (`__repr__`, `_get_repr_value`): pytest calls them to print
    the values of a failed assertion, so only failing tests run them, whatever the bug."""
    return frozenset(line for f in functions_in(text) if "repr" in f.name.lower()
                     for line in range(f.start_line, f.end_line + 1))


def smelly_lines(text: str) -> dict[int, str]:
    """Line -> why, for each line reading twice a name one character from a parameter its function never
    reads (read once, as callbacks read one of the indices they are given, it is too common to count)."""
    if "def " not in text:
        return {}
    out: dict[int, str] = {}
    for node in walk(parse(text).root_node):
        if node.type != "function_definition":
            continue
        meant = unused_look_alikes(facts(node))
        if not meant:
            continue
        reads: dict[tuple[int, str], int] = {}
        for ident in walk(node):
            if ident.type == "identifier" and text_of(ident) in meant and is_name_use(ident):
                key = (ident.start_point[0] + 1, text_of(ident))
                reads[key] = reads.get(key, 0) + 1
        for (line, name), count in reads.items():
            if count > 1:  # the slip copies a use: one side of a pair, both arguments of max(), ...
                out[line] = f"reads {name} twice where the parameter {meant[name]} is never read"
    return out
