#!/usr/bin/env bash
# Puts the server that matches this extension into editors/vscode/server/: the fixloop wheel of this
# checkout (pip wheel, no dependencies) and the installer both editors share. `vsce package` ships them.
#   FIXLOOP_PYTHON  the Python whose pip builds the wheel (default python3)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/../.." && pwd)
python=${FIXLOOP_PYTHON:-python3}
version=$(node -p "require('$here/package.json').version")
rm -rf "$here/server"
mkdir -p "$here/server"
"$python" -m pip wheel --quiet --no-deps --disable-pip-version-check --wheel-dir "$here/server" "$repo" >&2
wheel="$here/server/fixloop-$version-py3-none-any.whl"
if [ ! -f "$wheel" ]; then
  echo "bundle-server: no $(basename "$wheel") was built (package.json and pyproject.toml disagree on the version?)" >&2
  ls "$here/server" >&2
  exit 1
fi
cp "$repo/editors/shared/fixloop_install.py" "$here/server/"
echo "bundled $(basename "$wheel") and fixloop_install.py into $here/server" >&2
