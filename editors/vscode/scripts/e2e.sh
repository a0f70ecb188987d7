#!/usr/bin/env bash
# Real-editor end-to-end test of the fixloop VS Code extension.
#
# Installs what is missing (Debian chromium/ripgrep/krb5 headers, code-server from npm, playwright-core)
# into a cache outside the clone, builds the .vsix, installs it into throwaway directories, starts
# code-server on 127.0.0.1, drives it with headless Chromium, and prints `N passed, N failed` last.
#
# usage: editors/vscode/scripts/e2e.sh [PYTHON]     (or FIXLOOP_E2E_PYTHON=...)
#   PYTHON: an interpreter that can import fixloop (default <repo>/.venv/bin/python, made by
#           scripts/setup.sh). The extension starts the server with it.
# env:  FIXLOOP_E2E_CACHE  install cache (default /var/cache/fixloop-e2e as root, else ~/.cache/fixloop-e2e)
#       FIXLOOP_E2E_OUT    screenshots and logs (default <repo>/.artifacts/vscode-e2e/<time>)
#       FIXLOOP_E2E_INSTALL_ONLY=1   stop after installing the tools
#       FIXLOOP_E2E_ONLY=REGEX  run only the checks whose name matches (the server then comes from PYTHON,
#                               not from the install; for developing one check)
#       FIXLOOP_E2E_SUITE=goal       run only the goal-mode suite (e2e/goal.e2e.mjs); =hostile: only the hostile
#                                    clone in Restricted Mode (e2e/hostile.e2e.mjs); =install: only the approved
#                                    install (e2e/install.e2e.mjs); =main: only the main one
set -euo pipefail

CODE_SERVER_VERSION=4.100.3     # the newest code-server whose engines.node is 20 (VS Code 1.100.3)
PLAYWRIGHT_VERSION=1.65.1
RIPGREP_PKG_VERSION=1.15.11     # @vscode/ripgrep in code-server 4.100.3; its postinstall downloads from GitHub

here=$(cd "$(dirname "$0")/.." && pwd)            # editors/vscode
repo=$(cd "$here/../.." && pwd)
python=${1:-${FIXLOOP_E2E_PYTHON:-$repo/.venv/bin/python}}
if [ "$(id -u)" = 0 ]; then default_cache=/var/cache/fixloop-e2e; else default_cache=$HOME/.cache/fixloop-e2e; fi
cache=${FIXLOOP_E2E_CACHE:-$default_cache}
out=${FIXLOOP_E2E_OUT:-$repo/.artifacts/vscode-e2e/$(date -u +%Y%m%dT%H%M%SZ)}
start_all=$(date +%s)

log() { echo "[e2e $(( $(date +%s) - start_all ))s] $*" >&2; }
die() { echo "e2e: error: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

# --- system packages -------------------------------------------------------------------------------
install_apt_packages() {
  local missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  [ -f /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)   # kerberos (code-server dep) builds from source
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    die "missing ${missing[*]}; install them (Debian: apt-get install ${missing[*]}) and rerun"
  fi
  log "apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# --- code-server from npm, with the workarounds this offline machine needs -------------------------
code_server_dir=$cache/code-server-$CODE_SERVER_VERSION
code_server=$code_server_dir/node_modules/.bin/code-server
# code-server writes ~/.config/code-server and ~/.local/share/code-server unless told otherwise.
export XDG_CONFIG_HOME=$cache/xdg/config XDG_DATA_HOME=$cache/xdg/data

install_code_server() {
  if [ -x "$code_server" ] && "$code_server" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
    return 0
  fi
  log "installing code-server $CODE_SERVER_VERSION into $code_server_dir (a few minutes)"
  mkdir -p "$cache"
  local tmp; tmp=$(mktemp -d "$cache/.code-server-XXXXXX")
  # 1. @vscode/ripgrep's postinstall downloads rg from api.github.com unless a cached tarball exists
  #    in $TMPDIR: seed it with Debian's rg.
  mkdir -p "$tmp/tmpdir/vscode-ripgrep-cache-$RIPGREP_PKG_VERSION" "$tmp/rgstage"
  cp "$(command -v rg)" "$tmp/rgstage/rg"
  tar czf "$tmp/tmpdir/vscode-ripgrep-cache-$RIPGREP_PKG_VERSION/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" \
    -C "$tmp/rgstage" rg
  mkdir -p "$tmp/pkg"
  # allowScripts: npm 11 announces that dependency install scripts will need approval.
  cat > "$tmp/pkg/package.json" <<'JSON'
{"name": "fixloop-e2e-code-server", "private": true,
 "allowScripts": {"code-server": true, "argon2": true, "kerberos": true, "node-pty": true, "@vscode/ripgrep": true}}
JSON
  # 2. nodedir: node-gyp would download Node headers otherwise (Debian ships them in /usr/include/node).
  # 3. yes=true: node-pty's postinstall runs `npx node-gyp`, which an npmrc `yes=false` cancels.
  # 4. unsafe_perm: code-server's postinstall refuses to run as root without it.
  if ! (cd "$tmp/pkg" && TMPDIR=$tmp/tmpdir npm_config_nodedir=${npm_config_nodedir:-/usr} npm_config_yes=true \
        npm_config_unsafe_perm=true npm install --no-audit --no-fund --loglevel=error \
        "code-server@$CODE_SERVER_VERSION" > "$tmp/npm.log" 2>&1); then
    tail -n 40 "$tmp/npm.log" >&2
    die "npm install code-server@$CODE_SERVER_VERSION failed (log: $tmp/npm.log)"
  fi
  rm -rf "$code_server_dir"
  mv "$tmp/pkg" "$code_server_dir"     # appears only once complete
  rm -rf "$tmp"
  "$code_server" --version >&2
}

playwright_dir=$cache/playwright-core-$PLAYWRIGHT_VERSION

install_playwright() {
  [ -f "$playwright_dir/node_modules/playwright-core/package.json" ] && return 0
  log "installing playwright-core $PLAYWRIGHT_VERSION"
  mkdir -p "$cache"
  local tmp; tmp=$(mktemp -d "$cache/.playwright-XXXXXX")
  echo '{"name":"fixloop-e2e-playwright","private":true}' > "$tmp/package.json"
  (cd "$tmp" && npm install --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION" >&2) \
    || die "npm install playwright-core failed"
  rm -rf "$playwright_dir"; mv "$tmp" "$playwright_dir"
}

t0=$(date +%s)
install_apt_packages
install_code_server
install_playwright
install_seconds=$(( $(date +%s) - t0 ))
log "tools ready in ${install_seconds}s (cache: $cache)"
[ "${FIXLOOP_E2E_INSTALL_ONLY:-0}" = 1 ] && exit 0

# --- the interpreter the extension will use ---------------------------------------------------------
[ -x "$python" ] || command -v "$python" >/dev/null 2>&1 \
  || die "no Python at $python: run 'bash scripts/setup.sh' (makes .venv) or pass an interpreter that has fixloop"
"$python" -c "import fixloop.lsp.server" 2>/dev/null \
  || die "$python cannot import fixloop.lsp.server: run 'bash scripts/setup.sh', or set PYTHONPATH=<repo>/server"

# --- build the .vsix -----------------------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/fixloop-vscode-e2e-XXXXXX")
mkdir -p "$out"
cs_pid=""
goal_cs_pid=""
hostile_cs_pid=""
install_cs_pid=""
model_pid=""
index_pid=""
cleanup() {
  for pid in $cs_pid $goal_cs_pid $hostile_cs_pid $install_cs_pid; do
    kill -- "-$pid" 2>/dev/null || true     # code-server keeps extension hosts and servers otherwise
    wait "$pid" 2>/dev/null || true
  done
  for pid in $model_pid $index_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  cp "$work/code-server.log" "$out/" 2>/dev/null || true
  find "$work/user/logs" \( -name fixloop.log -o -name remoteexthost.log \) -exec cp {} "$out/" \; 2>/dev/null || true
  [ -d "$work/ws/.fixloop/runs" ] && cp -r "$work/ws/.fixloop/runs" "$out/runs" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

t0=$(date +%s)
cd "$here"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
npm run --silent compile >&2 || die "the extension does not compile"
if npm test > "$out/unit-tests.log" 2>&1; then        # the pure modules, with node --test
  echo "PASS extension unit tests ($(grep -m1 '^# pass' "$out/unit-tests.log" | cut -c3-))" | tee -a "$out/e2e.log"
else
  echo "FAIL extension unit tests (see $out/unit-tests.log)" | tee -a "$out/e2e.log"
fi
FIXLOOP_PYTHON=$python npm run --silent bundle-server >&2 || die "building the server wheel failed"
npx vsce ls --no-dependencies > "$out/vsce-ls.txt" || die "vsce ls failed"
for f in "server/fixloop_install.py" "images/icon.png" "README.md" "CHANGELOG.md" "dist/extension.js"; do
  grep -qx "$f" "$out/vsce-ls.txt" || die "the .vsix would not contain $f (vsce ls: $out/vsce-ls.txt)"
done
grep -q '^server/fixloop-.*-py3-none-any.whl$' "$out/vsce-ls.txt" || die "the .vsix would not contain the server wheel"
npx vsce package --no-dependencies --out "$work/fixloop.vsix" >&2 || die "vsce package failed"
build_seconds=$(( $(date +%s) - t0 ))
log "built the .vsix in ${build_seconds}s"

# --- throwaway workspace, user data and extensions -------------------------------------------------
ws=$work/ws
mkdir -p "$ws" "$work/user/User" "$work/ext" "$work/bin"
tar -C "$repo/examples/inventory" --exclude=.fixloop --exclude=__pycache__ --exclude=.pytest_cache -cf - . | tar -C "$ws" -xf -
cat > "$ws/inventory/cli_input.py" <<'PY'
"""Asks for a quantity on the terminal (the e2e fixture's unsafe line)."""


def ask_quantity() -> int:
    return eval(input("quantity? "))
PY
# A Python that cannot import fixloop even when PYTHONPATH points at the sources (-I ignores it).
printf '#!/bin/sh\nexec %s -I "$@"\n' "$(command -v python3)" > "$work/bin/python-without-fixloop"
# Pythons whose "fixloop" is a misbehaving fake (e2e/fake_server): an old protocol, and a crash. The server
# starts isolated (-I ignores PYTHONPATH), so the fake is installed the way a package is: a virtualenv whose
# site-packages has a .pth naming it.
python3 -m venv --without-pip "$work/fake-venv"
echo "$here/e2e/fake_server" > "$("$work/fake-venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/fixloop-fake.pth"
for mode in old-protocol crash; do
  printf '#!/bin/sh\nFIXLOOP_FAKE_MODE=%s exec %s "$@"\n' "$mode" "$work/fake-venv/bin/python" > "$work/bin/python-fake-$mode"
done
chmod +x "$work/bin/"*
# The project's own virtualenv, as a user has one: pytest, ruff and mypy (the checks check fixes their findings).
(cd "$repo" && "$python" -m tests.project_python "$ws/.venv" pytest ruff mypy) || die "making the workspace's .venv failed"
mkdir -p "$ws/.vscode"
# No fixloop.pythonPath, and python3 must not have fixloop: the server comes only from the .vsix.
if python3 -c "import fixloop" 2>/dev/null; then
  die "python3 on PATH ($(command -v python3)) has fixloop installed; the install test needs one without it"
fi
# pip's config for the extension host: first a closed port (the install must fail with a message), then the
# browser test empties it and presses Retry.
printf '[global]\nindex-url = http://127.0.0.1:9/simple\nretries = 0\ntimeout = 3\n' > "$work/pip.conf"
# The user's own fixloop settings: the interpreter, the sandbox and the memory's location are machine-scoped
# (a workspace's value is ignored), and code-server, a remote window, reads those from its Machine settings.
cat > "$ws/.vscode/settings.json" <<JSON
{
  "fixloop.trace.server": "verbose"
}
JSON
mkdir -p "$work/user/Machine"
cat > "$work/user/Machine/settings.json" <<JSON
{
  "fixloop.memory.location": "$work/memory"
}
JSON
only=${FIXLOOP_E2E_ONLY:-}
if [ -n "$only" ]; then   # no install check runs: the server comes from $python
  sed -i "s|^{|{\n  \"fixloop.pythonPath\": \"$python\",|" "$work/user/Machine/settings.json"
fi
# A memory with two fixes of one kind: the mined template the templates check reviews.
"$python" "$here/e2e/seed_templates.py" "$work/templates-memory" || die "seeding the templates memory failed"
cat > "$work/user/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "security.workspace.trust.enabled": false,
  "window.restoreWindows": "none",
  "files.autoSave": "off",
  "chat.disableAIFeatures": true
}
JSON
export XDG_CONFIG_HOME=$work/xdg/config XDG_DATA_HOME=$work/xdg/data
"$code_server" --extensions-dir "$work/ext" --user-data-dir "$work/user" --install-extension "$work/fixloop.vsix" >&2 \
  || die "installing the .vsix into code-server failed"

# serve_code USER_DIR FOLDER LOG [NAME=VALUE ...] [-- FLAG ...]: code-server on a free port of 127.0.0.1, in a
# process group of its own, with that environment and those flags (default: --disable-workspace-trust); returns
# once /healthz answers, 1 if it exits or never answers. Sets served_port and served_pid.
served_port=""
served_pid=""
serve_code() {
  local user=$1 folder=$2 logfile=$3 vars=() flags=(--disable-workspace-trust)
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  if [ "${1:-}" = -- ]; then shift; flags=("$@"); fi
  served_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  env "${vars[@]}" setsid "$code_server" --auth none --bind-addr "127.0.0.1:$served_port" --disable-telemetry \
    --disable-update-check --disable-getting-started-override --extensions-dir "$work/ext" --user-data-dir "$user" \
    "${flags[@]}" "$folder" > "$logfile" 2>&1 &
  served_pid=$!
  for _ in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$served_port/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$served_pid" 2>/dev/null || { tail -n 20 "$logfile" >&2; return 1; }
    sleep 0.2
  done
  return 1
}

ui_seconds=0
if [ "${FIXLOOP_E2E_SUITE:-}" != goal ] && [ "${FIXLOOP_E2E_SUITE:-}" != hostile ] && [ "${FIXLOOP_E2E_SUITE:-}" != install ]; then   # the main suite
# --- code-server on loopback -------------------------------------------------------------------------
serve_code "$work/user" "$ws" "$work/code-server.log" "PIP_CONFIG_FILE=$work/pip.conf" && started=1 || started=0
cs_pid=$served_pid
port=$served_port
[ "$started" = 1 ] || die "code-server did not answer on 127.0.0.1:$port"
log "code-server $CODE_SERVER_VERSION on 127.0.0.1:$port; screenshots in $out"

# --- the browser test --------------------------------------------------------------------------------
t0=$(date +%s)
set +e
E2E_ONLY=$only E2E_TEMPLATES_MEMORY=$work/templates-memory E2E_PIP_CONF=$work/pip.conf E2E_USER_DIR=$work/user \
  E2E_SETTINGS=$work/user/Machine/settings.json E2E_URL="http://127.0.0.1:$port/?folder=$ws" E2E_WS=$ws E2E_SHOTS=$out \
  E2E_PLAYWRIGHT=$playwright_dir/node_modules/playwright-core E2E_PYTHON=$python \
  E2E_BARE_PYTHON=$work/bin/python-without-fixloop E2E_OLD_PYTHON=$work/bin/python-fake-old-protocol \
  E2E_CRASH_PYTHON=$work/bin/python-fake-crash E2E_CHROMIUM=$(command -v chromium) \
  timeout 1200 node "$here/e2e/vscode.e2e.mjs" | tee -a "$out/e2e.log"   # each step has its own timeout too
ui_rc=${PIPESTATUS[0]}
if [ "$ui_rc" != 0 ] && ! grep -q '^FAIL ' "$out/e2e.log"; then
  echo "FAIL the browser script exited with status $ui_rc (see above)" | tee -a "$out/e2e.log"
fi
set -e
ui_seconds=$(( $(date +%s) - t0 ))

# --- after Apply, the fixture's tests pass -----------------------------------------------------------
kill -- "-$cs_pid" 2>/dev/null || true; wait "$cs_pid" 2>/dev/null || true; cs_pid=""
if [ -n "$only" ]; then
  :   # the Apply check did not run
elif (cd "$ws" && "$python" -m pytest -q -p no:cacheprovider > "$out/pytest-after-apply.log" 2>&1); then
  echo "PASS the fixture's tests pass after Apply (pytest)" | tee -a "$out/e2e.log"
else
  tail -n 5 "$out/pytest-after-apply.log"
  echo "FAIL the fixture's tests pass after Apply (pytest)" | tee -a "$out/e2e.log"
fi

# The fake API key the test set must not be in any settings file or log.
if [ -s "$out/api-key.txt" ]; then
  leaks=$(grep -rlF "$(cat "$out/api-key.txt")" "$work/user/User" "$work/user/logs" "$ws/.vscode" "$work/code-server.log" 2>/dev/null || true)
  if [ -z "$leaks" ]; then
    echo "PASS the API key is in no settings file or log" | tee -a "$out/e2e.log"
  else
    echo "FAIL the API key is in no settings file or log: found in $leaks" | tee -a "$out/e2e.log"
  fi
  rm -f "$out/api-key.txt"
fi
fi   # the main suite

# --- goal mode: "Fix: describe the problem…" on copies of editors/shared/fixtures/goal_shop -------------
# A second code-server with its own user data: fixloop.pythonPath is this checkout's Python (no install),
# and the user's config file (FIXLOOP_CONFIG) points the model at the scripted Anthropic-compatible server
# on 127.0.0.1 (tests/llm/goal_model.py) with a made-up key. The offline copy says `offline = true`.
goal_suite() {
  local gw=$work/goal kind
  mkdir -p "$gw/user/User" "$gw/user/Machine"
  cp "$work/user/User/settings.json" "$gw/user/User/settings.json"
  cat > "$gw/user/Machine/settings.json" <<JSON
{
  "fixloop.pythonPath": "$python",
  "fixloop.memory.location": "$gw/memory"
}
JSON
  for kind in offline model; do
    mkdir -p "$gw/$kind/.vscode"
    tar -C "$repo/editors/shared/fixtures/goal_shop" --exclude=__pycache__ --exclude=.fixloop -cf - . | tar -C "$gw/$kind" -xf -
    cat > "$gw/$kind/.vscode/settings.json" <<JSON
{
  "fixloop.trace.server": "verbose"
}
JSON
  done
  sed -i 's/^\[tool.fixloop\]$/[tool.fixloop]\noffline = true/' "$gw/offline/pyproject.toml"
  (cd "$repo" && exec "$python" -m tests.llm.goal_model --url-file "$gw/model-url" --requests-file "$gw/requests.jsonl") \
    > "$gw/model.log" 2>&1 &
  model_pid=$!
  for _ in $(seq 1 150); do [ -s "$gw/model-url" ] && break; sleep 0.2; done
  [ -s "$gw/model-url" ] || { cat "$gw/model.log" >&2; echo "FAIL goal: the scripted model server did not start" | tee -a "$out/e2e.log"; return; }
  printf '[llm]\nbase_url = "%s"\napi_key = "test-key-not-real"\nmax_retries = 0\n' "$(cat "$gw/model-url")" > "$gw/config.toml"
  local gport
  serve_code "$gw/user" "$gw/offline" "$gw/code-server.log" "FIXLOOP_CONFIG=$gw/config.toml" || true
  goal_cs_pid=$served_pid
  gport=$served_port
  log "goal suite: code-server on 127.0.0.1:$gport, scripted model at $(cat "$gw/model-url")"
  set +e
  E2E_GOAL_OFFLINE_URL="http://127.0.0.1:$gport/?folder=$gw/offline" E2E_GOAL_OFFLINE_WS=$gw/offline \
    E2E_GOAL_MODEL_URL="http://127.0.0.1:$gport/?folder=$gw/model" E2E_GOAL_MODEL_WS=$gw/model \
    E2E_GOAL_REQUESTS=$gw/requests.jsonl E2E_SHOTS=$out E2E_PLAYWRIGHT=$playwright_dir/node_modules/playwright-core \
    E2E_CHROMIUM=$(command -v chromium) timeout 1200 node "$here/e2e/goal.e2e.mjs" | tee -a "$out/e2e.log"
  local rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ] && ! grep -q '^FAIL goal' "$out/e2e.log"; then
    echo "FAIL goal: the browser script exited with status $rc" | tee -a "$out/e2e.log"
  fi
  kill -- "-$goal_cs_pid" 2>/dev/null || true; wait "$goal_cs_pid" 2>/dev/null || true; goal_cs_pid=""
  kill "$model_pid" 2>/dev/null || true; wait "$model_pid" 2>/dev/null || true; model_pid=""
  if (cd "$gw/offline" && "$python" -m pytest -q -p no:cacheprovider > "$out/pytest-goal-offline.log" 2>&1) \
      && grep -q "def test_" "$gw"/offline/tests/test_*goal*.py 2>/dev/null; then
    echo "PASS goal offline: the new test and the suite pass after Apply (pytest)" | tee -a "$out/e2e.log"
  else
    tail -n 5 "$out/pytest-goal-offline.log"
    echo "FAIL goal offline: the new test and the suite pass after Apply (pytest)" | tee -a "$out/e2e.log"
  fi
  cp "$gw/code-server.log" "$out/goal-code-server.log" 2>/dev/null || true
  find "$gw/user/logs" -name fixloop.log -exec cp {} "$out/goal-fixloop.log" \; 2>/dev/null || true
  for kind in offline model; do
    [ -d "$gw/$kind/.fixloop/runs" ] && cp -r "$gw/$kind/.fixloop/runs" "$out/goal-runs-$kind" 2>/dev/null || true
  done
}
t0=$(date +%s)
case "${FIXLOOP_E2E_SUITE:-}" in main|hostile|install) ;; *) [ -n "${FIXLOOP_E2E_ONLY:-}" ] || goal_suite ;; esac
goal_seconds=$(( $(date +%s) - t0 ))

# --- a hostile clone in Restricted Mode (e2e/hostile.e2e.mjs) ------------------------------------------
# editors/shared/hostile_workspace.py plants modules that leave a file in $hw/proof when imported, an
# "interpreter" that leaves one when run, and a .vscode/settings.json asking for it, no sandbox, its own
# memory, model and budget. Workspace trust is on (a third code-server, own user data) and the folder is not
# trusted: Restricted Mode. The user's own settings: this checkout's Python and a memory of theirs.
hostile_suite() {
  local hw=$work/hostile
  mkdir -p "$hw/user/User" "$hw/user/Machine"
  python3 "$repo/editors/shared/hostile_workspace.py" build "$hw/ws" "$hw/proof" "$python" \
    || { echo "FAIL hostile: building the workspace" | tee -a "$out/e2e.log"; return; }
  grep -v '"security.workspace.trust.enabled"' "$work/user/User/settings.json" \
    | sed 's|^{|{\n  "security.workspace.trust.enabled": true,\n  "security.workspace.trust.startupPrompt": "never",\n  "security.workspace.trust.emptyWindow": false,|' \
    > "$hw/user/User/settings.json"
  cat > "$hw/user/Machine/settings.json" <<JSON
{
  "fixloop.pythonPath": "$python",
  "fixloop.memory.location": "$hw/user-memory"
}
JSON
  local hport
  serve_code "$hw/user" "$hw/ws" "$hw/code-server.log" -- || true   # workspace trust on
  hostile_cs_pid=$served_pid
  hport=$served_port
  log "hostile suite: code-server on 127.0.0.1:$hport (workspace trust on)"
  set +e
  E2E_URL="http://127.0.0.1:$hport/?folder=$hw/ws" E2E_WS=$hw/ws E2E_PROOF=$hw/proof E2E_MEMORY=$hw/user-memory \
    E2E_PYTHON=$python E2E_USER_DIR=$hw/user E2E_SHOTS=$out E2E_PLAYWRIGHT=$playwright_dir/node_modules/playwright-core \
    E2E_CHROMIUM=$(command -v chromium) timeout 900 node "$here/e2e/hostile.e2e.mjs" | tee -a "$out/e2e.log"
  local rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ] && ! grep -q '^FAIL hostile' "$out/e2e.log"; then
    echo "FAIL hostile: the browser script exited with status $rc" | tee -a "$out/e2e.log"
  fi
  kill -- "-$hostile_cs_pid" 2>/dev/null || true; wait "$hostile_cs_pid" 2>/dev/null || true; hostile_cs_pid=""
  # After the server and its runs are gone: still no trace, and the applied fix passes the tests.
  if found=$(python3 "$repo/editors/shared/hostile_workspace.py" check "$hw/proof"); then
    echo "PASS hostile: no file of the workspace's making outside it, after everything stopped" | tee -a "$out/e2e.log"
  else
    echo "FAIL hostile: the workspace left $found" | tee -a "$out/e2e.log"
  fi
  cp "$hw/code-server.log" "$out/hostile-code-server.log" 2>/dev/null || true
  find "$hw/user/logs" -name fixloop.log -exec cp {} "$out/hostile-fixloop.log" \; 2>/dev/null || true
}
t0=$(date +%s)
case "${FIXLOOP_E2E_SUITE:-}" in main|goal|install) ;; *) [ -n "${FIXLOOP_E2E_ONLY:-}" ] || hostile_suite ;; esac
hostile_seconds=$(( $(date +%s) - t0 ))

# --- a missing package, installed only on the user's click (e2e/install.e2e.mjs) -------------------------
# tests/package_index.py builds a project whose tests import tinydep, which its own .venv lacks, and serves
# tinydep's wheel on 127.0.0.1. The user's config file names that index and turns the audit on; landlock (it
# installs as this user).
install_suite() {
  local iw=$work/install
  mkdir -p "$iw/user/User" "$iw/user/Machine"
  cp "$work/user/User/settings.json" "$iw/user/User/settings.json"
  (cd "$repo" && exec "$python" -m tests.package_index --root "$iw/pkg" --url-file "$iw/index-url") > "$iw/index.log" 2>&1 &
  index_pid=$!
  for _ in $(seq 1 600); do [ -s "$iw/index-url" ] && break; sleep 0.2; done
  [ -s "$iw/index-url" ] || { cat "$iw/index.log" >&2; echo "FAIL install: the package index did not start" | tee -a "$out/e2e.log"; return; }
  cat > "$iw/user/Machine/settings.json" <<JSON
{
  "fixloop.pythonPath": "$python",
  "fixloop.sandbox.backend": "landlock",
  "fixloop.memory.enabled": false
}
JSON
  printf 'offline = true\n[install]\nindex_url = "%s"\n[audit]\nenabled = true\n' "$(cat "$iw/index-url")" > "$iw/config.toml"
  local iport
  serve_code "$iw/user" "$iw/pkg/calc" "$iw/code-server.log" "FIXLOOP_CONFIG=$iw/config.toml" || true
  install_cs_pid=$served_pid
  iport=$served_port
  log "install suite: code-server on 127.0.0.1:$iport, package index at $(cat "$iw/index-url")"
  set +e
  E2E_URL="http://127.0.0.1:$iport/?folder=$iw/pkg/calc" E2E_WS=$iw/pkg/calc E2E_SHOTS=$out \
    E2E_PLAYWRIGHT=$playwright_dir/node_modules/playwright-core E2E_CHROMIUM=$(command -v chromium) \
    timeout 600 node "$here/e2e/install.e2e.mjs" | tee -a "$out/e2e.log"
  local rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ] && ! grep -q '^FAIL install' "$out/e2e.log"; then
    echo "FAIL install: the browser script exited with status $rc" | tee -a "$out/e2e.log"
  fi
  kill -- "-$install_cs_pid" 2>/dev/null || true; wait "$install_cs_pid" 2>/dev/null || true; install_cs_pid=""
  kill "$index_pid" 2>/dev/null || true; wait "$index_pid" 2>/dev/null || true; index_pid=""
  cp "$iw/code-server.log" "$out/install-code-server.log" 2>/dev/null || true
  find "$iw/user/logs" -name fixloop.log -exec cp {} "$out/install-fixloop.log" \; 2>/dev/null || true
}
t0=$(date +%s)
case "${FIXLOOP_E2E_SUITE:-}" in main|goal|hostile) ;; *) [ -n "${FIXLOOP_E2E_ONLY:-}" ] || install_suite ;; esac
install_seconds_ui=$(( $(date +%s) - t0 ))

passed=$(grep -c '^PASS ' "$out/e2e.log" || true)
failed=$(grep -c '^FAIL ' "$out/e2e.log" || true)
echo "screenshots and logs: $out"
echo "times: tools ${install_seconds}s, build ${build_seconds}s, UI ${ui_seconds}s, goal ${goal_seconds}s, hostile ${hostile_seconds}s, install ${install_seconds_ui}s, total $(( $(date +%s) - start_all ))s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
