#!/usr/bin/env bash
# Headless check of fixloop with Emacs + Eglot (Debian's emacs-nox and elpa-eglot, installed when missing).
#   bash editors/emacs/tests/run.sh [PYTHON]   (PYTHON has fixloop; default <repo>/.venv/bin/python)
# Prints PASS/FAIL lines and `N passed, N failed` last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
python=${1:-${FIXLOOP_TEST_PYTHON:-$repo/.venv/bin/python}}
start=$SECONDS

if ! command -v emacs >/dev/null 2>&1 || [ ! -d /usr/share/emacs/site-lisp/elpa/eglot-1.9 ] && ! ls -d /usr/share/emacs/site-lisp/elpa/eglot-* >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing emacs-nox elpa-eglot (apt)" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends emacs-nox elpa-eglot >/dev/null; } \
      || { echo "cannot install emacs-nox elpa-eglot"; echo "0 passed, 1 failed"; exit 1; }
  else
    echo "emacs and elpa-eglot are missing: apt-get install emacs-nox elpa-eglot"; echo "0 passed, 1 failed"; exit 1
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$repo/examples/inventory/." "$work/project"
rm -rf "$work/project/.fixloop" "$work/project/.pytest_cache"
git -C "$work/project" init -q   # project.el finds the project root by its VCS
# A hostile clone (editors/shared/hostile_workspace.py): what it plants leaves files in $work/proof if it runs.
python3 "$repo/editors/shared/hostile_workspace.py" build "$work/hostile/ws" "$work/hostile/proof" "$python"
git -C "$work/hostile/ws" init -q

passed=0; failed=0
run_test() {   # run_test FILE ARGS...: one Emacs per test file, its PASS/FAIL lines added up
  local file=$1; shift
  # Emacs' own files go to a throwaway home; Debian's site-start activates elpa-eglot (hence -q, not -Q).
  local out rc p f
  out=$(cd "$work" && HOME=$work/home timeout 600 emacs --batch -q -l "$here/$file" "$@" 2>"$work/stderr")
  rc=$?
  printf '%s\n' "$out"
  p=$(grep -c '^PASS ' <<<"$out"); f=$(grep -c '^FAIL ' <<<"$out")
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "FAIL $file: emacs exited with $rc"; tail -n 20 "$work/stderr"
  fi
  [ "$f" -gt 0 ] && tail -n 30 "$work/stderr"
  passed=$((passed + p)); failed=$((failed + f))
}
run_test test-eglot.el "$work/project" "$python"
run_test test-hostile.el "$work/hostile/ws" "$work/hostile/proof" "$python"
echo "$passed passed, $failed failed ($((SECONDS - start)) s)"
[ "$failed" -eq 0 ]
