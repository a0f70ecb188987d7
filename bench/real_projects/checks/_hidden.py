"""Hidden check runner: never shown to fixloop. Runs with the project's interpreter, outside the project.

    python _hidden.py CASES.py GOLDEN.json [--record]

CASES.py defines CASES, a dict of name -> function of no arguments. Each function's result (its repr, or
the exception type it raised) is compared with GOLDEN.json, which --record writes from the original
project. Exit 0 when every case matches, 1 otherwise (the mismatches on stdout).
"""

import importlib.util
import json
import sys


def outcome(fn):
    try:
        return repr(fn())
    except Exception as exc:  # noqa: BLE001 - the exception type is the outcome
        return f"raises {type(exc).__name__}"


def main():
    cases_path, golden_path = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("hidden_cases", cases_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    got = {name: outcome(fn) for name, fn in module.CASES.items()}
    if "--record" in sys.argv[3:]:
        with open(golden_path, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        print(f"recorded {len(got)} cases")
        return 0
    with open(golden_path) as f:
        want = json.load(f)
    bad = [name for name in want if got.get(name) != want[name]]
    for name in bad:
        print(f"{name}: got {got.get(name)} want {want[name]}")
    print(f"{len(want) - len(bad)}/{len(want)} hidden cases pass")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
