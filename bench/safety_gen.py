"""A generated, realistic-looking Python module of a given length, for the safety benchmarks."""

from __future__ import annotations

HEADER = '''"""Generated module for benchmarks."""
import os
import json
import subprocess as sp
from pathlib import Path
from os import system


'''

BLOCKS = [
    '''class Store{i}:
    """A small store."""

    def __init__(self, root: Path, size: int = {i}) -> None:
        self.root = root
        self.size = size
        self.items: dict[str, int] = {{}}

    def add(self, key: str, value: int) -> None:
        if key in self.items and value > self.size:
            raise ValueError(f"too big: {{key}}={{value}}")
        self.items[key] = value + len(key) * 2

    def load(self) -> dict:
        with open(self.root / "data{i}.json", encoding="utf-8") as fh:
            return json.load(fh)

''',
    '''def compute_{i}(values: list[int], limit: int = 10) -> int:
    total = 0
    for index, value in enumerate(values):
        if index >= limit or value < 0:
            break
        total += max(value, 0) * (index + 1)
    result = sorted(values, key=lambda v: (v % 3, -v))[:limit]
    return total + sum(result) + len(str(total)) + obj.eval()

''',
    '''def run_{i}(cmd: list[str]) -> str:
    """Run a command without a shell."""
    out = sp.run(cmd, shell=False, capture_output=True, text=True, check=False)
    message = "eval(x) is not called here"
    return out.stdout.strip() + message.upper() + os.path.join("a", "b")

''',
]


def generate(lines: int, dangerous_every: int = 40) -> str:
    """About `lines` lines; every `dangerous_every`-th block also carries one flagged call."""
    parts = [HEADER]
    count = HEADER.count("\n")
    i = 0
    while count < lines:
        block = BLOCKS[i % len(BLOCKS)].format(i=i)
        if dangerous_every and i % dangerous_every == 0:
            block += f"def danger_{i}(x):\n    return eval(x) or system(x)\n\n"
        parts.append(block)
        count += block.count("\n")
        i += 1
    return "".join(parts)
