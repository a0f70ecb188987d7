#!/usr/bin/env bash
# Packaging check: build the sdist and wheel (python -m build), check them (twine check --strict), install
# the wheel as a tool into a fresh virtualenv (uv tool install), and run it: `fixloop doctor`,
# `fixloop fix` on a copy of the example (--dry-run), `fixloop-server --version`.
# The build tools and uv's download cache live outside the clone, so a second run installs nothing new.
#   FIXLOOP_PKG_CACHE  cache (default /var/cache/fixloop-packaging as root, else ~/.cache/fixloop-packaging)
# Prints PASS/FAIL lines and `N passed, N failed` last.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" = 0 ]; then default_cache=/var/cache/fixloop-packaging; else default_cache=$HOME/.cache/fixloop-packaging; fi
cache=${FIXLOOP_PKG_CACHE:-$default_cache}
tools=$cache/tools-v1
start=$SECONDS
passed=0; failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed ($((SECONDS - start)) s)"; [ "$failed" -eq 0 ]; exit $?; }

if [ ! -f "$tools/.complete" ]; then
  echo "installing build, twine, setuptools and uv into $tools" >&2
  rm -rf "$tools"; mkdir -p "$cache"
  python3 -m venv "$tools" && "$tools/bin/pip" install -q --disable-pip-version-check \
      "build>=1.2" "twine>=6" "setuptools>=77" "uv>=0.5" > "$cache/tools-install.log" 2>&1 \
    && touch "$tools/.complete" || { tail -n 20 "$cache/tools-install.log"; fail "installing the packaging tools"; finish; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$("$tools/bin/python" -c "import tomllib; print(tomllib.load(open('$repo/pyproject.toml', 'rb'))['project']['version'])")

# --no-isolation: the tools venv has setuptools, so the build needs no download.
if "$tools/bin/python" -m build --no-isolation --sdist --wheel --outdir "$work/dist" "$repo" > "$work/build.log" 2>&1; then
  pass "python -m build: $(cd "$work/dist" && ls | tr '\n' ' ')"
else
  tail -n 20 "$work/build.log"; fail "python -m build"; finish
fi
wheel=$work/dist/fixloop-$version-py3-none-any.whl
[ -f "$wheel" ] && pass "the wheel has pyproject's version $version" || fail "no $(basename "$wheel")"
if "$tools/bin/twine" check --strict "$work"/dist/* > "$work/twine.log" 2>&1; then
  pass "twine check --strict"
else
  cat "$work/twine.log"; fail "twine check --strict"
fi
contents=$("$tools/bin/python" -m zipfile -l "$wheel")
for f in fixloop/py.typed fixloop/adapters/runner/ fixloop/lsp/server.py fixloop/_version.py; do
  grep -q "$f" <<<"$contents" || fail "the wheel lacks $f"
done
grep -q "fixloop/adapters/runner/" <<<"$contents" && pass "the wheel has the package data (py.typed, runner/)"

# A fresh virtualenv with the wheel, as `uv tool install` makes it for a user.
export UV_CACHE_DIR=$cache/uv-cache UV_TOOL_DIR=$work/uv-tools UV_TOOL_BIN_DIR=$work/bin UV_PYTHON_DOWNLOADS=never
t0=$SECONDS
if "$tools/bin/uv" tool install --quiet --python "$(command -v python3)" "$wheel" > "$work/uv.log" 2>&1; then
  pass "uv tool install of the wheel ($((SECONDS - t0)) s)"
else
  tail -n 20 "$work/uv.log"; fail "uv tool install of the wheel"; finish
fi
got=$("$work/bin/fixloop-server" --version 2>&1)
[ "$got" = "fixloop-server $version" ] && pass "fixloop-server --version: $got" || fail "fixloop-server --version said: $got"
if "$work/bin/fixloop" doctor "$repo/examples/inventory" > "$work/doctor.log" 2>&1; then
  pass "fixloop doctor: $(grep -m1 '^a run would use' "$work/doctor.log")"
else
  cat "$work/doctor.log"; fail "fixloop doctor"
fi
cp -r "$repo/examples/inventory" "$work/inventory"; rm -rf "$work/inventory/.fixloop"
before=$(cat "$work/inventory/inventory/pricing.py")
if (cd "$work" && XDG_DATA_HOME=$work/data timeout 600 "$work/bin/fixloop" fix inventory --dry-run --offline > "$work/fix.log" 2>&1); then
  [ "$before" = "$(cat "$work/inventory/inventory/pricing.py")" ] && pass "fixloop fix --dry-run on the example finds a fix (the files untouched)" \
    || fail "fixloop fix --dry-run changed the example"
else
  tail -n 20 "$work/fix.log"; fail "fixloop fix on the example"
fi
finish
