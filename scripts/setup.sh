#!/usr/bin/env bash
# Set everything up in .venv, then show fixloop fixing the example project (without touching it).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "note: bubblewrap (bwrap) is not installed; install it for the default sandbox (apt-get install bubblewrap)" >&2
  fi
fi

# The docker backend's tests start a private engine and build its image from Debian's packages (as root only).
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
    ! { command -v dockerd && command -v debootstrap; } >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null ||
    echo "note: docker.io or debootstrap did not install; the docker backend's tests will skip" >&2
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'

echo "== fixloop fix examples/inventory --dry-run ==" >&2
.venv/bin/fixloop fix examples/inventory --dry-run
