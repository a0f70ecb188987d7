"""Parameter names of the project's functions, read from the sources without importing anything: an
exchanged pair of arguments that then lines up with the callee's parameters by name (`zone_price(PER_ZONE,
zones)` against `def zone_price(zones, per_zone)`) is a likelier fix than one that breaks such a line-up."""

from __future__ import annotations

import re
from typing import Mapping

_DEF = re.compile(r"def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_CHARS = 2_000_000  # a big project is read up to here; past it, no nudges
FAVOURED, OPPOSED = 1.25, 0.8


class Signatures:
    def __init__(self, sources: Mapping[str, str]) -> None:
        self.sources = sources
        self._params: dict[str, list[str]] | None = None

    def params(self, name: str) -> list[str]:
        if self._params is None:
            self._params = {}
            read = 0
            for text in self.sources.values():
                read += len(text)
                if read > MAX_CHARS:
                    break
                for fn, raw in _DEF.findall(text):
                    names = [p.split(":")[0].split("=")[0].strip().lstrip("*") for p in raw.split(",")]
                    self._params.setdefault(fn, [n for n in names if n and n not in ("self", "cls", "/")])
        return self._params.get(name, [])

    def swap_factor(self, callee: str, position: int, moved: tuple[str, str]) -> float:
        """1.25 when exchanging the arguments at `position`, `position + 1` lines them up with the callee's
        parameter names, 0.8 when it breaks such a line-up, else 1."""
        params = self.params(callee)
        if position < 0 or len(params) < position + 2 or not all(moved):
            return 1.0
        a, b = moved
        p, q = params[position], params[position + 1]
        now, swapped = _fits(a, p) + _fits(b, q), _fits(b, p) + _fits(a, q)
        return FAVOURED if swapped > now else OPPOSED if swapped < now else 1.0


def _fits(argument: str, parameter: str) -> int:
    parameter = parameter.lower()
    for name in _IDENT.findall(argument):
        name = name.lower()
        if name == parameter or (min(len(name), len(parameter)) >= 3 and (name in parameter or parameter in name)):
            return 1
    return 0
