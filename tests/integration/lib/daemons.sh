# shellcheck shell=bash
# Private containerd + dockerd instances for the real-client tests.
#
# Everything lives under one directory DIR (sockets, pidfiles, data/exec roots, logs),
# so several runs - and a system docker, if one exists - never share state:
#   DIR/containerd/{config.toml,root,state,containerd.sock,containerd.sock.ttrpc}
#   DIR/docker (data-root)  DIR/exec (exec-root)  DIR/docker.sock  DIR/docker.pid
#
# Networking choice: dockerd's default bridge network must work (the bridge check
# needs it), but docker0 and the global iptables chains may belong to another dockerd.
# So we create our own bridge (name and /24 picked to be free) and hand it over with
# --bridge, and run with --iptables=false --ip-masq=false --ip-forward=false: no
# NAT/forwarding is needed because the tests only talk container <-> bridge address,
# and no host-wide firewall or sysctl state is touched. Published ports (-p) go through
# the userland proxy: docker-proxy, a child of dockerd, listens on the host port and
# forwards to the container's bridge address; dockerd starts it with --iptables=false too.
#
# Containers get a private cgroup parent (cgroup_parent_for DIR, in common.sh), so
# their cgroups never mix with another docker's and leftovers are easy to find.
#
# Usage:
#   add_docker_runtime NAME PATH [RUNTIME_ARG...]   # before start_daemons
#   start_daemons DIR       # containerd + dockerd; non-zero if either cannot start
#   start_containerd DIR    # containerd only (the ctr test)
#   "${DOCKER_CMD[@]}" ... / DOCKER ...   # docker CLI against the private daemon
#   "${CTR_CMD[@]}" ... / CTR ...         # ctr against the private containerd
#   stop_daemons DIR [keep]

# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# The 20.10 CLI matches the 20.10 daemon; the newer CLI in /usr/local/bin works too
# (it negotiates the API version down) but we pin one so results are reproducible.
DOCKER_CLI=${DOCKER_CLI:-/usr/bin/docker}
DOCKERD_BIN=${DOCKERD_BIN:-/usr/sbin/dockerd}
CONTAINERD_BIN=${CONTAINERD_BIN:-/usr/bin/containerd}
CTR_BIN=${CTR_BIN:-/usr/bin/ctr}
DOCKER_PROXY_BIN=${DOCKER_PROXY_BIN:-/usr/sbin/docker-proxy}
DAEMON_START_TIMEOUT=${DAEMON_START_TIMEOUT:-60}

DAEMON_RUNTIMES_JSON='{}'
DAEMON_DIR=""
DOCKER_SOCK=""
CONTAINERD_SOCK=""
BRIDGE_NAME=""
BRIDGE_IP=""

add_docker_runtime() { # NAME PATH [ARG...]
  local name=$1 path=$2; shift 2
  local args
  args=$(printf '%s\n' "$@" | jq -R . | jq -s 'map(select(. != ""))')
  DAEMON_RUNTIMES_JSON=$(jq --arg n "$name" --arg p "$path" --argjson a "$args" \
    '.[$n] = ({path: $p} + (if ($a | length) > 0 then {runtimeArgs: $a} else {} end))' \
    <<<"$DAEMON_RUNTIMES_JSON")
}

# docker/ctr against the private instances. The arrays also work under `timeout`,
# which cannot run shell functions.
DOCKER_CMD=()
CTR_CMD=()
DOCKER() { "${DOCKER_CMD[@]}" "$@"; }
CTR() { "${CTR_CMD[@]}" "$@"; }

_write_containerd_config() { # DIR
  local d=$1/containerd
  mkdir -p "$d/root" "$d/state" "$d/opt"
  # CRI is disabled: it would want CNI config and a sandbox image we cannot pull.
  # Snapshotters that cannot work here are disabled only to keep the log readable.
  cat >"$d/config.toml" <<TOML
version = 2
root = "$d/root"
state = "$d/state"
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.aufs",
  "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = "$d/containerd.sock"

[ttrpc]
  address = "$d/containerd.sock.ttrpc"

[debug]
  address = "$d/debug.sock"
  level = "info"

[plugins."io.containerd.internal.v1.opt"]
  path = "$d/opt"
TOML
}

# Picks a bridge name and 10.213.X.0/24 subnet that nothing on the host uses yet,
# starting from a pid-derived offset (SALT varies it between attempts).
_pick_bridge() { # SALT
  local i x
  for i in $(seq 0 40); do
    x=$(( ($$ + ${1:-0} * 13 + i * 7) % 250 + 1 ))
    ip -o -4 addr show | grep -q " 10\.213\.$x\." && continue
    ip -o -4 route show | grep -q "^10\.213\.$x\." && continue
    ip link show "sshim$x" >/dev/null 2>&1 && continue
    BRIDGE_NAME="sshim$x"
    BRIDGE_IP="10.213.$x.1"
    return 0
  done
  return 1
}

# Retries because a concurrent run may grab the same name between pick and add.
_create_bridge() { # DIR
  local attempt
  for attempt in 1 2 3 4 5; do
    _pick_bridge "$attempt" || break
    ip link add "$BRIDGE_NAME" type bridge 2>/dev/null || continue
    echo "$BRIDGE_NAME" >"$1/bridge.name"
    ip addr add "$BRIDGE_IP/24" dev "$BRIDGE_NAME" && ip link set "$BRIDGE_NAME" up
    return
  done
  log "cannot create a private bridge"
  return 1
}

_write_daemon_json() { # DIR
  jq -n --argjson rt "$DAEMON_RUNTIMES_JSON" --arg cg "$(cgroup_parent_for "$1")" \
    '{runtimes: $rt, "cgroup-parent": $cg, "log-driver": "json-file"}' >"$1/daemon.json"
}

# _wait_ready PIDFILE CMD...: until CMD succeeds; gives up early if the daemon died.
_wait_ready() {
  local pid deadline=$((SECONDS + DAEMON_START_TIMEOUT))
  pid=$(cat "$1")
  shift
  while [ "$SECONDS" -lt "$deadline" ]; do
    "$@" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.2
  done
  return 1
}

_start_containerd() { # DIR
  local d=$1/containerd
  _write_containerd_config "$1" || return 1
  "$CONTAINERD_BIN" --config "$d/config.toml" >"$1/containerd.log" 2>&1 &
  echo $! >"$1/containerd.pid"
  CONTAINERD_SOCK=$d/containerd.sock
  CTR_CMD=("$CTR_BIN" --address "$CONTAINERD_SOCK" --timeout 60s)
  _wait_ready "$1/containerd.pid" "$CTR_BIN" --address "$CONTAINERD_SOCK" --timeout 2s version ||
    { log "containerd did not become ready; last log lines:"; tail -n 20 "$1/containerd.log" >&2; return 1; }
}

_start_dockerd() { # DIR
  local dir=$1
  _create_bridge "$dir" && _write_daemon_json "$dir" || return 1
  mkdir -p "$dir/docker" "$dir/exec" "$dir/cli"
  DOCKER_SOCK=$dir/docker.sock
  "$DOCKERD_BIN" --config-file "$dir/daemon.json" \
    --containerd "$CONTAINERD_SOCK" \
    --data-root "$dir/docker" --exec-root "$dir/exec" \
    --pidfile "$dir/docker.pid" -H "unix://$DOCKER_SOCK" \
    --bridge "$BRIDGE_NAME" --iptables=false --ip6tables=false --ip-masq=false \
    --ip-forward=false --userland-proxy=true --userland-proxy-path "$DOCKER_PROXY_BIN" \
    --storage-driver overlay2 >"$dir/dockerd.log" 2>&1 &
  echo $! >"$dir/dockerd.launch.pid"
  # A private client config dir: no contexts, credential helpers or
  # DOCKER_HOST from the calling user's environment can redirect the CLI.
  DOCKER_CMD=(env -u DOCKER_HOST -u DOCKER_CONTEXT -u DOCKER_TLS_VERIFY
    DOCKER_CONFIG="$dir/cli" "$DOCKER_CLI" -H "unix://$DOCKER_SOCK")
  _wait_ready "$dir/dockerd.launch.pid" timeout 5 "${DOCKER_CMD[@]}" info ||
    { log "dockerd did not become ready; last log lines:"; tail -n 20 "$dir/dockerd.log" >&2; return 1; }
}

# start_daemons DIR / start_containerd DIR: non-zero (after cleaning up) when anything
# fails to start; the caller decides whether that is a skip.
start_daemons() {
  _start_in "$1" _start_containerd _start_dockerd
}
start_containerd() {
  _start_in "$1" _start_containerd
}
_start_in() { # DIR STEP...
  mkdir -p "$1" || return 1
  DAEMON_DIR=$(cd "$1" && pwd)
  shift
  local step
  for step in "$@"; do
    "$step" "$DAEMON_DIR" || { stop_daemons "$DAEMON_DIR" keep; return 1; }
  done
}

# Sends TERM, waits up to SECS, then KILLs. Only the pid we were given.
_stop_pid() { # PIDFILE SECS
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  wait_until "$2" sh -c "! kill -0 $pid" || { log "pid $pid ignored TERM; killing"; kill -KILL "$pid" 2>/dev/null; }
  wait_until 5 sh -c "! kill -0 $pid" || log "pid $pid still alive"
}

# Kills shims (and their runtime children) that belong to our containerd; a normal
# dockerd shutdown stops containers, but a crashed test can leave shims behind.
_kill_our_shims() { # DIR
  local pid
  for pid in $(pgrep -f "containerd-shim.*-address $1/" || true); do
    pkill -KILL -P "$pid" 2>/dev/null || true
    kill -KILL "$pid" 2>/dev/null || true
  done
}

_remove_docker_containers() {
  [ -S "${DOCKER_SOCK:-}" ] || return 0
  local ids
  ids=$(timeout 20 "${DOCKER_CMD[@]}" ps -aq 2>/dev/null) || return 0
  # shellcheck disable=SC2086
  [ -z "$ids" ] || timeout 60 "${DOCKER_CMD[@]}" rm -f $ids >/dev/null 2>&1 || true
}

# stop_daemons DIR [keep]: tears everything down and removes DIR. With "keep", DIR and
# the cgroups stay for inspection (e.g. a leak check); call again without it to finish.
stop_daemons() {
  local dir=$1 keep=${2:-}
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  _remove_docker_containers
  _stop_pid "$dir/docker.pid" 30
  _stop_pid "$dir/dockerd.launch.pid" 5
  _kill_our_shims "$dir"
  _stop_pid "$dir/containerd.pid" 20
  _kill_our_shims "$dir"
  kill_procs_naming "$dir"
  unmount_under "$dir"
  if [ -f "$dir/bridge.name" ]; then
    ip link del "$(cat "$dir/bridge.name")" 2>/dev/null || true
    rm -f "$dir/bridge.name"
  fi
  if [ "$keep" = keep ]; then
    remove_cgroup_parent "$dir"
    return 0
  fi
  remove_cgroup_parent "$dir" all
  rm -rf "$dir"
}
