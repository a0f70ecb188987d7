#!/usr/bin/env bash
# Capture the review split as text (real Neovim UI in tmux, real server): bash screenshot.sh OUT.txt
#   FIXLOOP_TEST_PYTHON  Python with fixloop (default <repo>/.venv/bin/python)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
repo="$(cd "$plugin/../.." && pwd)"
out="${1:?usage: screenshot.sh OUT.txt}"
venv="${FIXLOOP_NVIM_VENV:-$HOME/.cache/fixloop-nvim/venv}"
py="${FIXLOOP_TEST_PYTHON:-$repo/.venv/bin/python}"
work="$(mktemp -d)"
mkdir -p "$work/project" "$work/xdg"
cp -r "$repo/examples/inventory/." "$work/project/"
cp -r "$here/fixtures/two_hunks/." "$work/project/"
session="fixloop-shot-$$"
tmux new-session -d -s "$session" -x 160 -y 36 \
  "cd '$work/project' && env TERM=xterm-256color XDG_CONFIG_HOME='$work/xdg/config' XDG_DATA_HOME='$work/xdg/data' \
   XDG_STATE_HOME='$work/xdg/state' FIXLOOP_PLUGIN_DIR='$plugin' FIXLOOP_TEST_PYTHON='$py' \
   FIXLOOP_SHOT_MARKER='$work/marker' ${FIXLOOP_SHOT_CMD:+FIXLOOP_SHOT_CMD='$FIXLOOP_SHOT_CMD'} \
   '$venv/bin/nvim' --clean -u '$here/screenshot_init.lua' inventory/pricing.py"
for _ in $(seq 1 600); do [ -f "$work/marker" ] && break; sleep 0.2; done
sleep 0.5
# Accept the first hunk, so the picture shows both states and the edited buffer.
tmux send-keys -t "$session" a
sleep "${FIXLOOP_SHOT_SETTLE:-3}"
tmux capture-pane -p -t "$session" > "$out"
tmux kill-session -t "$session"
rm -rf "$work"
[ -s "$out" ] && echo "wrote $out"
