#!/usr/bin/env bash
# Run the whole test suite (after scripts/setup.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
rc=$?
if [ $rc -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  rc=1
fi
echo "tests took $(( $(date +%s) - start )) s" >&2
exit $rc
