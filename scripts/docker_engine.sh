#!/usr/bin/env bash
# A private docker engine for fixloop's docker backend, and a sandbox image made without any registry.
#
#   bash scripts/docker_engine.sh start   start the engine (reused when it already runs); prints DOCKER_HOST=...
#   bash scripts/docker_engine.sh image   build the image from Debian's packages once (cached); prints IMAGE=...
#   bash scripts/docker_engine.sh stop    stop the engine this script started
#   bash scripts/docker_engine.sh env     print `export DOCKER_HOST=...` for the engine
#
# The engine has its own data root, exec root, pid file and socket under $FIXLOOP_DOCKER_CACHE
# (default /var/cache/fixloop-docker): never the machine's own engine or /var/run/docker.sock. It runs without
# networking of its own (no iptables, no bridge): sandboxed runs have no network anyway. Storage: overlay2 when
# the kernel has overlayfs, else vfs (slower: every container copies the whole image); FIXLOOP_DOCKER_STORAGE
# chooses. The image is `debootstrap --variant=minbase --include=python3,util-linux` from the mirror the
# machine's apt uses (FIXLOOP_DEBIAN_MIRROR overrides), imported with `docker import`; its root file system is
# cached as a tar keyed by the recipe, so a new engine imports it in seconds. Needs root, dockerd
# (apt-get install docker.io) and debootstrap. Timings go to stderr and to $CACHE/engine/timings.
set -euo pipefail

CACHE=${FIXLOOP_DOCKER_CACHE:-/var/cache/fixloop-docker}
ENGINE=$CACHE/engine
SOCK=$ENGINE/docker.sock
PIDFILE=$ENGINE/docker.pid
SUITE=${FIXLOOP_DOCKER_SUITE:-bookworm}
IMAGE=${FIXLOOP_DOCKER_IMAGE:-fixloop-sandbox:$SUITE}
INCLUDE=python3,util-linux
# What the image is made of; its hash names the cached root file system and labels the image.
RECIPE="fixloop-sandbox v1; debootstrap --variant=minbase --include=$INCLUDE $SUITE; arch $(uname -m); trimmed"
KEY=$(printf '%s' "$RECIPE" | sha256sum | cut -c1-16)
export DOCKER_HOST=unix://$SOCK

say() { echo "docker_engine: $*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
record() { say "$*"; echo "$(date +%s) $*" >> "$ENGINE/timings"; }  # the tests show the lines of their session

answers() { [ -S "$SOCK" ] && docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

running_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  [ -n "$pid" ] && [ -d "/proc/$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ] && echo "$pid"
}

start_with() {  # start dockerd with one storage driver; 0 when its socket answers within 60 s
  local driver=$1
  mkdir -p "$ENGINE/data-$driver" "$ENGINE/exec"
  setsid dockerd --data-root "$ENGINE/data-$driver" --exec-root "$ENGINE/exec" --pidfile "$PIDFILE" \
    -H "unix://$SOCK" --storage-driver="$driver" --iptables=false --ip6tables=false --bridge=none \
    >"$ENGINE/dockerd.log" 2>&1 </dev/null 8>&- 9>&- &
  local pid=$!
  for _ in $(seq 1 240); do
    answers && { echo "$driver" > "$ENGINE/driver"; return 0; }
    [ -d "/proc/$pid" ] || break
    sleep 0.25
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  say "dockerd with $driver did not start: $(tail -3 "$ENGINE/dockerd.log" | tr '\n' ' ')"
  return 1
}

start() {
  command -v dockerd >/dev/null || { say "dockerd not found: apt-get install docker.io"; exit 2; }
  mkdir -p "$ENGINE"
  chmod 755 "$CACHE" "$ENGINE"  # the socket's group decides who may use it; the folders only let it be reached
  exec 8>"$ENGINE/start.lock"
  flock 8
  if [ -n "$(running_pid)" ] && answers; then
    echo "DOCKER_HOST=$DOCKER_HOST"
    echo "STATE=running"
    return 0
  fi
  rm -f "$SOCK" "$PIDFILE"
  local t0 wanted
  t0=$(now)
  wanted=${FIXLOOP_DOCKER_STORAGE:-auto}
  if [ "$wanted" = auto ]; then
    grep -qw overlay /proc/filesystems && start_with overlay2 || start_with vfs || exit 1
  else
    start_with "$wanted" || exit 1
  fi
  record "engine: started in $(since "$t0") s (storage $(cat "$ENGINE/driver"), socket $SOCK)"
  echo "DOCKER_HOST=$DOCKER_HOST"
  echo "STATE=started"
}

stop() {
  exec 8>"$ENGINE/start.lock"
  flock 8
  local pid
  pid=$(running_pid || true)
  [ -n "$pid" ] || { say "no engine of ours runs"; return 0; }
  kill "$pid"
  for _ in $(seq 1 80); do [ -d "/proc/$pid" ] || break; sleep 0.25; done
  [ -d "/proc/$pid" ] && kill -9 "$pid"
  rm -f "$SOCK"
  say "engine stopped"
}

mirror() {  # the Debian mirror the machine's apt already uses for $SUITE (deb822 and one-line sources)
  if [ -n "${FIXLOOP_DEBIAN_MIRROR:-}" ]; then echo "$FIXLOOP_DEBIAN_MIRROR"; return; fi
  local found
  found=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v suite="$(. /etc/os-release; echo "${VERSION_CODENAME:-}")" '
    function flush() {
      if (!done && types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uris ~ /debian/) { split(uris, u, " "); print u[1]; done = 1 }
      types = suites = uris = ""
    }
    /^[ \t]*$/ { flush(); next }
    /^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
    /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
    /^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
    END { flush() }')
  if [ -z "$found" ]; then
    found=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } if ($(i+1) !~ /-(security|updates|backports)$/ && $i ~ /debian/) { print $i; exit } }')
  fi
  [ -n "$found" ] || { say "no Debian mirror in the machine's apt sources: set FIXLOOP_DEBIAN_MIRROR"; exit 2; }
  echo "$found"
}

image() {
  answers || { say "no engine answers at $SOCK: run '$0 start' first"; exit 2; }
  local label
  label=$(docker image inspect -f '{{index .Config.Labels "fixloop.recipe"}}' "$IMAGE" 2>/dev/null || true)
  if [ "$label" = "$KEY" ]; then
    echo "IMAGE=$IMAGE"
    return 0
  fi
  mkdir -p "$CACHE/images"
  exec 9>"$CACHE/images/$KEY.lock"
  flock 9
  label=$(docker image inspect -f '{{index .Config.Labels "fixloop.recipe"}}' "$IMAGE" 2>/dev/null || true)
  if [ "$label" = "$KEY" ]; then  # imported meanwhile by another caller
    echo "IMAGE=$IMAGE"
    return 0
  fi
  local tar=$CACHE/images/$KEY.tar t0
  if [ ! -s "$tar" ]; then
    command -v debootstrap >/dev/null || { say "debootstrap not found: apt-get install debootstrap"; exit 2; }
    local root=$CACHE/images/$KEY.rootfs url
    url=$(mirror)
    rm -rf "$root"
    t0=$(now)
    debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$root" "$url" >"$CACHE/images/$KEY.log" 2>&1 ||
      { say "debootstrap failed: $(tail -5 "$CACHE/images/$KEY.log" | tr '\n' ' ')"; exit 1; }
    # Package caches, lists, documentation and translations serve no sandboxed run and cost every container.
    tar -C "$root" --exclude=./var/cache/apt/archives --exclude=./var/lib/apt/lists --exclude=./usr/share/doc \
      --exclude=./usr/share/man --exclude=./usr/share/locale --exclude=./usr/share/info -cf "$tar.part" .
    mv "$tar.part" "$tar"
    rm -rf "$root"
    record "image: root file system built in $(since "$t0") s (debootstrap $SUITE from the machine's mirror)"
  fi
  t0=$(now)
  docker import -c "LABEL fixloop.recipe=$KEY" "$tar" "$IMAGE" >/dev/null
  record "image: $IMAGE imported in $(since "$t0") s"
  echo "IMAGE=$IMAGE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  image) image ;;
  env) echo "export DOCKER_HOST=$DOCKER_HOST" ;;
  *) echo "usage: $0 start|image|stop|env" >&2; exit 2 ;;
esac
