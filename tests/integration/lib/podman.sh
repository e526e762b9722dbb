# shellcheck shell=bash
# podman with its whole state in one private directory DIR, for every suite that drives
# podman (tests/integration/podman_test.sh, tests/attack/native_clients_test.sh,
# tests/attack/host_test.sh). Sourced after common.sh.
#
#   podman_isolated DIR [RUNTIME]   sets PODMAN (the command, as an array) with --root,
#                                   --runroot, --tmpdir, volumes, network config and a
#                                   containers.conf all under DIR; RUNTIME becomes --runtime
#   podman_pin_overlay_home DIR     before the leak baseline (see below)
#   podman_teardown DIR             removes containers, stray processes, mounts, cgroups
#
# Two things this host needs:
#  * root lacks CAP_SYS_RESOURCE, and podman 4.3 asks for RLIMIT_NOFILE/NPROC of
#    1048576 ("setrlimit `RLIMIT_NPROC`: Operation not permitted"; `--ulimit host`
#    does the same), so the private containers.conf pins default_ulimits to values at
#    or below the current hard limits.
#  * podman 4.3 forgets --runtime-flag when its cleanup process runs
#    `RUNTIME delete --force`, so a runtime's flags (its --root above all) must be baked
#    into a wrapper script (write_wrapper in common.sh) handed over as the runtime.

# Pinned ulimits: never above what this process may set without CAP_SYS_RESOURCE.
PODMAN_NPROC_LIMIT=${PODMAN_NPROC_LIMIT:-${NPROC_LIMIT:-4096}}

podman_isolated() { # DIR [RUNTIME]
  local p=$1 nofile nproc
  mkdir -p "$p"
  nofile=$(ulimit -Hn)
  nproc=$(ulimit -Hu)
  { [ "$nproc" = unlimited ] || [ "$nproc" -gt "$PODMAN_NPROC_LIMIT" ]; } && nproc=$PODMAN_NPROC_LIMIT
  # netns none: the checks need no network, and podman's default bridge would add CNI
  # bridges and iptables rules to the host.
  cat >"$p/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
netns = "none"

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
  # env rather than export: a suite may run several isolated podmans side by side.
  PODMAN=(env CONTAINERS_CONF="$p/containers.conf" podman --root "$p/root" --runroot "$p/runroot"
    --tmpdir "$p/tmp" --storage-driver overlay --volumepath "$p/volumes" --network-config-dir "$p/net"
    --cgroup-manager cgroupfs --events-backend file)
  [ -z "${2:-}" ] || PODMAN+=(--runtime "$2")
  # c/image keeps a blob-info cache in /var/lib/containers/cache whatever --root says;
  # if this run creates it, this run removes it.
  [ -e /var/lib/containers ] || on_exit 'rm -rf /var/lib/containers'
}

# podman's overlay driver bind-mounts its home (DIR/root/overlay) onto itself while any
# podman process of ours runs, and a failed run's asynchronous cleanup can keep it up past
# the leak check's wait (seen in 2 of 4 full runs of podman_test.sh). It is podman's own
# storage, not something a runtime made: mounted here, the way the driver does, it is
# part of the baseline, and podman_teardown's unmount removes it. Per-container mounts
# are still leaks.
podman_pin_overlay_home() { # DIR
  local home=$1/root/overlay
  mkdir -p "$home"
  mountpoint -q "$home" ||
    { mount --bind "$home" "$home" && mount --make-private "$home"; } ||
    log "cannot pre-mount podman's overlay home"
}

podman_teardown() { # DIR
  [ -n "${1:-}" ] && [ -d "$1" ] || return 0
  [ -z "${PODMAN+set}" ] || timeout 60 "${PODMAN[@]}" rm -af -t 0 >/dev/null 2>&1
  kill_procs_naming "$1"
  unmount_under "$1"
  remove_cgroup_parent "$1" all
}
