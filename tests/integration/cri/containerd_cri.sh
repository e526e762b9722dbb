# shellcheck shell=bash
# A private containerd with its CRI plugin on, for driving pods the way kubelet does.
#
#   start_cri_containerd DIR SANDSHIM_WRAPPER   # sets CRI_SOCK, CTR_CMD, CRI_BRIDGE, RUNC_ROOT, SANDSHIM_ROOT
#   stop_cri_containerd DIR
#
# Everything is under DIR: config, root, state, sockets, the shims' runtime roots, the CNI
# config and host-local's IP store. Runtime handlers: `runc` (the control), `sandshim`
# (the binary under test, as the runc v2 shim's BinaryName). CNI is a bridge plugin conf on
# a private bridge `sshimk<X>` with 10.214.<X>.0/24 (the docker suites use 10.213.x), no
# masquerade: pods talk to each other and to the bridge only. The pause image is named in
# sandbox_image and imported by the suite (it cannot be pulled here).

# shellcheck source=../lib/daemons.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/daemons.sh"

PAUSE_IMAGE=${PAUSE_IMAGE:-docker.io/sandshim-test/pause:latest}
CRI_SOCK=""
CRI_BRIDGE=""

_pick_cri_subnet() { # prints X: no address, route or link of ours uses it yet
  local i x
  for i in $(seq 0 60); do
    x=$(( ($$ + i * 7) % 250 + 1 ))
    ip -o -4 addr show | grep -q " 10\.214\.$x\." && continue
    ip -o -4 route show | grep -q "^10\.214\.$x\." && continue
    ip link show "sshimk$x" >/dev/null 2>&1 && continue
    echo "$x"
    return 0
  done
  return 1
}

_write_cni_conf() { # DIR X
  local d=$1 x=$2
  mkdir -p "$d/cni/net.d" "$d/cni/ipam"
  CRI_BRIDGE=sshimk$x
  echo "$CRI_BRIDGE" >"$d/cri-bridge.name"
  cat >"$d/cni/net.d/10-sandshim-test.conflist" <<JSON
{"cniVersion": "0.4.0", "name": "sandshim-cri-test-$x",
 "plugins": [{"type": "bridge", "bridge": "$CRI_BRIDGE", "isGateway": true, "ipMasq": false,
              "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.214.$x.0/24"}]],
                       "dataDir": "$d/cni/ipam"}}]}
JSON
}

_write_cri_config() { # DIR WRAPPER
  local d=$1/containerd wrapper=$2
  mkdir -p "$d/root" "$d/state" "$d/opt" "$1/runc-root" "$1/sandshim-root"
  cat >"$d/config.toml" <<TOML
version = 2
root = "$d/root"
state = "$d/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = "$d/containerd.sock"
[ttrpc]
  address = "$d/containerd.sock.ttrpc"
[debug]
  address = "$d/debug.sock"
  level = "info"

[plugins."io.containerd.internal.v1.opt"]
  path = "$d/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  # The test host may not let us lower oom_score_adj (the pause container asks -998):
  # containerd clamps it to its own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$1/cni/net.d"
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "/usr/sbin/runc"
        Root = "$1/runc-root"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.sandshim]
      runtime_type = "io.containerd.runc.v2"
      # A pod may ask for the host's network stack instead of gVisor's (docs/KUBERNETES.md).
      pod_annotations = ["dev.sandshim.network-stack"]
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.sandshim.options]
        BinaryName = "$wrapper"
        Root = "$1/sandshim-root"
TOML
}

start_cri_containerd() { # DIR WRAPPER
  local dir=$1 x
  mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
  DAEMON_DIR=$dir
  RUNC_ROOT=$dir/runc-root
  SANDSHIM_ROOT=$dir/sandshim-root
  x=$(_pick_cri_subnet) || { log "no free 10.214.x.0/24"; return 1; }
  _write_cni_conf "$dir" "$x"
  _write_cri_config "$dir" "$2"
  local d=$dir/containerd
  "$CONTAINERD_BIN" --config "$d/config.toml" >"$dir/containerd.log" 2>&1 &
  echo $! >"$dir/containerd.pid"
  CRI_SOCK=$d/containerd.sock
  CTR_CMD=("$CTR_BIN" --address "$CRI_SOCK" --timeout 60s)
  _wait_ready "$dir/containerd.pid" cri_call Version '{}' ||
    { log "containerd's CRI did not become ready; last log lines:"; tail -n 20 "$dir/containerd.log" >&2; return 1; }
}

stop_cri_containerd() { # DIR
  local dir=$1
  [ -d "$dir" ] || return 0
  _kill_our_shims "$dir"
  _stop_pid "$dir/containerd.pid" 20
  _kill_our_shims "$dir"
  kill_procs_naming "$dir"
  unmount_under "$dir"
  [ -f "$dir/cri-bridge.name" ] && ip link del "$(cat "$dir/cri-bridge.name")" 2>/dev/null
  remove_cgroup_parent "$dir" all
}

CRI_CLIENT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cri_client.py
# Debian's python3 has python3-grpcio; a pyenv python3 earlier in PATH would not.
CRI_PYTHON=${CRI_PYTHON:-/usr/bin/python3}

cri_call() { # METHOD [REQUEST_JSON]: the answer as JSON on stdout
  local req=${2:-}
  [ -n "$req" ] || req='{}'
  timeout "${T:-120}" "$CRI_PYTHON" "$CRI_CLIENT" --socket "$CRI_SOCK" call "$1" "$req"
}
cri_port_forward() { # POD_ID PORT: stdin to the pod's PORT; its answer on stdout, errors on stderr
  timeout "${T:-120}" "$CRI_PYTHON" "$CRI_CLIENT" --socket "$CRI_SOCK" --timeout 15 portforward "$1" "$2"
}
cri_exec_stream() { # CONTAINER_ID CMD...
  timeout "${T:-120}" "$CRI_PYTHON" "$CRI_CLIENT" --socket "$CRI_SOCK" exec -- "$@"
}
