#!/usr/bin/env bash
# Run the whole test suite (after scripts/setup.sh): pytest, then the real-editor end-to-end suites.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
failed=0

run_pytest() {
  local label=$1; shift
  local t0=$(date +%s)
  echo "== pytest: $label ==" >&2
  .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
  local rc=$?
  if [ $rc -eq 5 ]; then
    echo "error: pytest collected no tests ($label)" >&2
    rc=1
  fi
  [ $rc -eq 0 ] || failed=1
  echo "pytest $label took $(( $(date +%s) - t0 )) s" >&2
}

if [ $# -gt 0 ]; then
  run_pytest "selected" "$@"
else
  # The contract stage is the core with fakes, the pure converters and the architecture rules (seconds, one
  # process); the fast stage is the everyday loop; the end-to-end stage runs whole sandboxed fixes and hostile
  # projects; the docker stage runs the docker backend's tests.
  # These run on PYTEST_WORKERS parallel workers (pytest-xdist; tests marked `serial` still run alone).
  workers=${PYTEST_WORKERS:-2}
  run_pytest "contract stage" -m contract
  run_pytest "fast stage" -m "not e2e and not docker and not contract" -n "$workers" --dist worksteal
  run_pytest "end-to-end stage" -m "e2e and not docker" -n "$workers" --dist worksteal --durations=20 -rs
  # The docker backend on a private engine the tests start (and stop) themselves: the abuse suite, the hostile
  # projects and whole fixes in containers. Its closing lines say how long the engine and the image took.
  run_pytest "docker stage" -m docker -n "$workers" --dist worksteal --durations=10
fi

# The editor suites install what they need once (cached outside the clone) and print their own totals.
if [ $# -eq 0 ]; then
  # scripts/check_package.sh: the wheel and sdist build, check and install as a tool; then the editors.
  for suite in scripts/check_package.sh editors/neovim/tests/run.sh editors/vscode/scripts/e2e.sh \
      editors/emacs/tests/run.sh; do
    if [ -f "$suite" ]; then
      t0=$(date +%s)
      echo "== $suite ==" >&2
      bash "$suite" || failed=1
      echo "$suite took $(( $(date +%s) - t0 )) s" >&2
    fi
  done
fi

echo "all suites took $(( $(date +%s) - start )) s" >&2
exit $failed
