"""How fast the safety checks are, side by side, on generated 2,000- and 5,000-line files.

Prints medians (ms) of: a tree-sitter parse alone; the rules on an already parsed tree, next to a
tree-sitter query that only collects every call (what a query-based engine would start from); a full
rule scan (parse + rules); an incremental re-scan after a one-line edit (tree.edit + re-parse +
re-scan of the touched statement); and bandit in process; then the ratios.
Run: python bench/safety_speed.py [--smoke]   (`--smoke`: 500- and 1,000-line files, 3 repeats: proves it still runs)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from safety_gen import generate  # noqa: E402

from tree_sitter import Query, QueryCursor  # noqa: E402

from fixloop.adapters.safety import bandit_scan  # noqa: E402
from fixloop.adapters.safety.bindings import collect  # noqa: E402
from fixloop.adapters.safety.matchers import Matcher  # noqa: E402
from fixloop.adapters.safety.rules import IncrementalScanner, encode, scan  # noqa: E402
from fixloop.kit.treesitter import language, parser  # noqa: E402


def median_ms(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds: under load, wall time grows and CPU time does not."""
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def incremental_ms(text: str, repeat: int) -> tuple[float, float]:
    """Alternate two versions differing in one line in the middle (an inserted `eval(input())`)."""
    lines = text.split("\n")
    mid = len(lines) // 2
    while not lines[mid].startswith("    return"):
        mid += 1
    edited = "\n".join(lines[:mid] + [lines[mid][: len(lines[mid]) - len(lines[mid].lstrip())] + "eval(input())"]
                       + lines[mid:])
    scanner = IncrementalScanner("pkg/generated.py")
    scanner.update(text)
    times, cpu = [], []
    for i in range(repeat):
        target = edited if i % 2 == 0 else text
        t0, c0 = time.perf_counter(), time.process_time()
        found = scanner.update(target)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        assert scanner.last_span is not None, "the edit should take the incremental path"
        if i < 2:
            assert found == scan(target, "pkg/generated.py")
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])  # `parser` is tree-sitter's
    ap.add_argument("--smoke", action="store_true", help="smaller files, fewer repeats: proves the bench runs")
    args = ap.parse_args()
    # (sizes, repeats, incremental repeats, bandit repeats); incremental needs 2 to compare with a full scan
    sizes, repeat, incr_repeat, bandit_repeat = ((2000, 5000), 3, 4, 1) if args.smoke else ((2000, 5000), 21, 41, 3)
    t0 = time.perf_counter()
    bandit_scan.scan_text("x = 1\n", "warmup.py")
    print(f"bandit import + first scan: {(time.perf_counter() - t0) * 1000:.0f} ms wall (once per process)")
    print("medians, ms as wall/CPU; 'incremental' = IncrementalScanner.update after a one-line edit")
    print(f"{'lines':>6} {'parse':>12} {'rules only':>12} {'call query':>12} {'full scan':>12}"
          f" {'incremental':>12} {'bandit':>13} {'findings':>9} {'full/incr':>10} {'bandit/full':>12}")
    calls = Query(language(), "(call) @call")
    for n in sizes:
        text = generate(n)
        src = encode(text)
        parse = median_ms(lambda: parser().parse(src), repeat)
        root = parser().parse(src).root_node
        rules_only = median_ms(lambda: Matcher(src, root, collect(root, src), "pkg/generated.py", False).scan(), repeat)
        query = median_ms(lambda: QueryCursor(calls).captures(root), repeat)
        full = median_ms(lambda: scan(text, "pkg/generated.py"), repeat)
        incr = incremental_ms(text, incr_repeat)
        bandit = median_ms(lambda: bandit_scan.scan_text(text, "pkg/generated.py"), bandit_repeat)
        findings = len(scan(text, "pkg/generated.py"))
        cell = lambda m: f"{m[0]:.1f}/{m[1]:.1f}"  # noqa: E731
        print(f"{text.count(chr(10)):>6} {cell(parse):>12} {cell(rules_only):>12} {cell(query):>12} {cell(full):>12}"
              f" {cell(incr):>12} {cell(bandit):>13} {findings:>9} {full[1] / incr[1]:>9.1f}x"
              f" {bandit[1] / full[1]:>11.0f}x")
    print("ratios on CPU time; wall time on a loaded machine is several times the CPU time")


if __name__ == "__main__":
    main()
