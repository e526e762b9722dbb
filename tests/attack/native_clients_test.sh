#!/usr/bin/env bash
# The same attack probe, run as an attacker would (root inside a busybox container), through
# the real clients with sandshim's native backend: docker (private dockerd,
# --runtime=sandshim-native = sandshim --backend native), podman (--runtime wrapper adding
# --backend native, state in a temp dir) and ctr (private containerd, --runc-binary wrapper).
# Per attack and client, three runs:
#   control  the same client with runc and the protection taken away (a volume, a device
#            rule, --privileged, seccomp off): the attack must be seen to work, else the
#            check could not tell a block from a broken probe
#   runc     the same client with runc, defaults (docker's/podman's/containerd's seccomp)
#   sandshim the same client with sandshim --backend native, defaults: must block it
# Attacks: cgroupfs escape (write our pid to the host's devices cgroup.procs), device (mknod
# c 1 11 = /dev/kmsg, then open it), seccomp (a static probe calling keyctl, unshare(NEWUSER),
# perf_event_open, userfaultfd). The caller's keyring and terminal do not
# reach a container started through a daemon, so those attacks are in
# native_process_test.sh only.
# Env: CHECK_FILTER=ERE runs only matching checks.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib/image.sh"
. "$HERE/../integration/lib/daemons.sh"
. "$HERE/../integration/lib/podman.sh"
require_root
require_cmds jq timeout gcc
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
SANDSHIM_ABS=$(readlink -f "$SANDSHIM_BIN")
RUNC=${RUNC:-/usr/sbin/runc}
[ -x "$RUNC" ] || skip_all "runc not found: $RUNC"
NS=sandshimattack
IMG=docker.io/$TEST_IMAGE
T=${T:-90}

W=$(make_workdir)
install_traps
on_exit 'rm -rf "$W"'
D=$W/d          # containerd + dockerd (ctr uses the same containerd)
P=$W/p          # podman's whole state
CTR_ROOT=$D/runc-root
mkdir -p "$P/rtroot" "$P/rtroot-runc" "$P/bin" "$W/bin" "$W/fifo"

# Wrappers: sandshim --backend native for ctr and podman; podman's also bake in --root.
write_wrapper "$W/bin/sandshim-native" "$SANDSHIM_ABS" --backend native
write_wrapper "$P/bin/sandshim-native" "$SANDSHIM_ABS" "--root=$P/rtroot" --backend native
write_wrapper "$P/bin/runc" "$RUNC" "--root=$P/rtroot-runc"

leaks_init "$D" "$D/exec/runtime-runc" "$CTR_ROOT" "$P/rtroot" "$P/rtroot-runc"
LEAK_SCOPE+=(--match "$P" --match "$(cgroup_parent_for "$P")")

# ------------------------------------------------------------------ clients
HAVE_DOCKER=0 HAVE_CTR=0 HAVE_PODMAN=0
add_docker_runtime sandshim-native "$SANDSHIM_ABS" --backend native
add_docker_runtime runc-bin "$RUNC"
on_exit 'stop_daemons "$D"'
gcc -static -O1 -o "$W/process_probe" "$HERE/probes/process_probe.c" || die "cannot build the probe"
build_rootfs "$W/rootfs" && cp "$W/process_probe" "$W/rootfs/bin/" && build_oci_archive "$W/rootfs" "$W/image.tar" "$IMG" || die "cannot build the test image"
if start_daemons "$D"; then
  import_docker_image "$W/rootfs" "$IMG" && HAVE_DOCKER=1 || log "docker import failed"
  timeout 120 "${CTR_CMD[@]}" -n "$NS" images import "$W/image.tar" >/dev/null && HAVE_CTR=1 || log "ctr import failed"
else
  log "private containerd/dockerd cannot start"
fi

if command -v podman >/dev/null && command -v conmon >/dev/null; then
  podman_isolated "$P"  # --runtime per run: the sandshim or the runc wrapper above
  on_exit 'podman_teardown "$P"'
  timeout 120 "${PODMAN[@]}" load -q -i "$W/image.tar" >/dev/null 2>"$W/load.err" && HAVE_PODMAN=1 ||
    log "podman cannot load the image: $(tail -n1 "$W/load.err")"
else
  log "podman/conmon not installed"
fi

# run CLIENT RUNTIME SCRIPT [CLIENT-OPT...]: OUT (stdout+stderr) and RC.
# CLIENT: docker|podman|ctr; RUNTIME: runc|sandshim.
run() {
  local client=$1 rt=$2 s=$3 id; shift 3
  id=$(uniq_name "a")
  case $client in
    docker)
      local r=runc-bin; [ "$rt" = sandshim ] && r=sandshim-native
      OUT=$(timeout "$T" "${DOCKER_CMD[@]}" run --rm --runtime "$r" "$@" "$IMG" sh -c "$s" 2>&1); RC=$? ;;
    podman)
      OUT=$(timeout "$T" "${PODMAN[@]}" --runtime "$P/bin/$([ "$rt" = sandshim ] && echo sandshim-native || echo runc)" \
        run --rm --pull never --cgroup-parent "/$(cgroup_parent_for "$P")" "$@" "$IMG" sh -c "$s" 2>&1); RC=$? ;;
    ctr)
      local b=$RUNC; [ "$rt" = sandshim ] && b=$W/bin/sandshim-native
      OUT=$(timeout "$T" "${CTR_CMD[@]}" -n "$NS" run --rm --runtime io.containerd.runc.v2 --runc-binary "$b" \
        --runc-root "$CTR_ROOT" --fifo-dir "$W/fifo" --cgroup "/$(cgroup_parent_for "$D")/$id" \
        "$@" "$IMG" "$id" sh -c "$s" 2>&1); RC=$? ;;
  esac
}
record() { log "$1: rc=$RC $(printf '%s' "$OUT" | tr '\n' ' ' | head -c 300)"; }

# Warm-up (runc): creates the cgroup parents before the leak baseline.
[ "$HAVE_DOCKER" = 1 ] && { run docker runc true; [ "$RC" = 0 ] || log "docker warm-up: $OUT"; }
[ "$HAVE_CTR" = 1 ] && { run ctr runc true; [ "$RC" = 0 ] || log "ctr warm-up: $OUT"; }
[ "$HAVE_PODMAN" = 1 ] && { run podman runc true; [ "$RC" = 0 ] || log "podman warm-up: $OUT"; }
[ "$HAVE_PODMAN" = 1 ] && podman_pin_overlay_home "$P"
leaks_baseline

after_check() {
  local left msg=""
  if [ "$HAVE_DOCKER" = 1 ]; then
    left=$(timeout 20 "${DOCKER_CMD[@]}" ps -aq 2>/dev/null)
    # shellcheck disable=SC2086
    [ -z "$left" ] || { timeout 60 "${DOCKER_CMD[@]}" rm -f $left >/dev/null 2>&1; msg="docker containers left: $(echo $left)"; }
  fi
  if [ "$HAVE_CTR" = 1 ]; then
    left=$(timeout 20 "${CTR_CMD[@]}" -n "$NS" container ls -q 2>/dev/null)
    [ -z "$left" ] || msg="${msg:+$msg; }ctr containers left: $(echo $left)"
  fi
  if [ "$HAVE_PODMAN" = 1 ]; then
    left=$(timeout 20 "${PODMAN[@]}" ps -aq 2>/dev/null)
    [ -z "$left" ] || { timeout 60 "${PODMAN[@]}" rm -af -t 0 >/dev/null 2>&1; msg="${msg:+$msg; }podman containers left: $(echo $left)"; }
  fi
  leaks_since_baseline || msg="${msg:+$msg; }$REASON"
  [ "$(stat -c %u:%g /dev/null)" = 0:0 ] || msg="${msg:+$msg; }host /dev/null is no longer root-owned"
  [ -z "$msg" ] || fail "$msg"
}
AFTER_CHECK_HOOK=after_check

have() { # CLIENT
  case $1 in
    docker) [ "$HAVE_DOCKER" = 1 ] || { skip "private dockerd unavailable"; return 1; } ;;
    ctr) [ "$HAVE_CTR" = 1 ] || { skip "private containerd unavailable"; return 1; } ;;
    podman) [ "$HAVE_PODMAN" = 1 ] || { skip "podman unavailable"; return 1; } ;;
  esac
}

# attack CLIENT SCRIPT ESCAPED_RE "CONTROL-OPTS": the control must match ESCAPED_RE (a
# line, grep -E); sandshim must not, and must have run the probe to its END marker.
attack() {
  local client=$1 s="$2; echo END" re=$3 rc
  local -a copts
  read -r -a copts <<<"$4"
  run "$client" runc "$s" "${copts[@]}"; record "control ($client, runc, $4)"
  printf '%s\n' "$OUT" | grep -Eq "$re" || { fail "control: the attack did not work with runc $4: $(echo $OUT | head -c 300)"; return 1; }
  run "$client" runc "$s"; record "runc ($client, defaults)"
  local runc_out=$OUT
  run "$client" sandshim "$s"; rc=$RC; record "sandshim native ($client, defaults)"
  assert_eq 0 "$rc" "$client run status (sandshim)" || return
  assert_contains "$OUT" "END" "$client: the probe ran" || return
  # sandshim must block whatever runc blocks (it may block more).
  if printf '%s\n' "$runc_out" | grep -Eq "$re"; then
    log "note: runc via $client lets it through too"
    return 0
  fi
  ! printf '%s\n' "$OUT" | grep -Eq "$re" || { fail "sandshim native via $client let through what runc blocks: $(echo $OUT | head -c 300)"; return 1; }
}

# (1) cgroupfs: move ourselves into the host's root devices cgroup.
ESCAPE='echo $$ > /sys/fs/cgroup/devices/cgroup.procs 2>&1; echo "devices=$(grep :devices: /proc/self/cgroup | cut -d: -f3)"'
ESCAPED='^devices=/$'
check_cgroup() { # CLIENT
  have "$1" || return
  [ -d /sys/fs/cgroup/devices ] || { skip "no cgroup v1 devices hierarchy"; return; }
  local c="-v /sys/fs/cgroup:/sys/fs/cgroup"
  [ "$1" = ctr ] && c="--mount type=bind,src=/sys/fs/cgroup,dst=/sys/fs/cgroup,options=rbind:rw"
  attack "$1" "$ESCAPE" "$ESCAPED" "$c"
}

# (2) devices: mknod is allowed by every client's defaults (c *:* m); opening must not be.
# Opened write-only: a read open of /dev/kmsg also wants CAP_SYSLOG, which no default grants.
MKNOD='k=/tmp/kmsg.$$; mknod $k c 1 11 && echo made; (exec 3>$k) 2>&1 && echo OPENED; rm -f $k'
check_device() { # CLIENT
  have "$1" || return
  # ctr has no device-cgroup-rule flag: --privileged (allow-all devices) is the weak setup.
  if [ "$1" = ctr ]; then attack "$1" "$MKNOD" '^OPENED$' "--privileged"
  else attack_rule "$1"; fi
}
# --device-cgroup-rule's value has spaces, which attack's word split cannot carry.
attack_rule() {
  local client=$1 s="$MKNOD; echo END" rc
  run "$client" runc "$s" --device-cgroup-rule 'c 1:11 rwm'; record "control ($client, runc, --device-cgroup-rule 'c 1:11 rwm')"
  printf '%s\n' "$OUT" | grep -q '^OPENED$' || { fail "control: /dev/kmsg did not open with the rule: $(echo $OUT | head -c 300)"; return 1; }
  run "$client" runc "$s"; record "runc ($client, defaults)"
  run "$client" sandshim "$s"; rc=$RC; record "sandshim native ($client, defaults)"
  assert_eq 0 "$rc" "$client run status (sandshim)" || return
  assert_contains "$OUT" "END" "$client: the probe ran" || return
  assert_not_contains "$OUT" "OPENED" "sandshim native via $client: /dev/kmsg opened"
}

# (3) seccomp: tests/attack/probes/process_probe.c calls syscalls the default profiles
# refuse (the kernel keyring, new user namespaces, perf, userfaultfd) and says per syscall
# whether it was "blocked" (EPERM/ENOSYS before the kernel's own checks) or "reached".
# Control: runc with seccomp off (docker/podman: --security-opt seccomp=unconfined; ctr: no
# flag, as ctr applies no seccomp unless --seccomp is given, so its runc and sandshim runs
# pass --seccomp). Every syscall the control reaches and runc's defaults block, sandshim
# native must block too, and there must be at least one (docker and containerd block all
# four; podman's profile allows keyctl and unshare, and blocks perf and userfaultfd).
SYSCALLS="keyctl unshare perf_event_open userfaultfd"
PROBE_RUN='/bin/process_probe keyctl sandshim-attack-nokey unshare perf userfaultfd'
check_seccomp() { # CLIENT
  have "$1" || return
  local s="$PROBE_RUN; echo END" c r n asserted="" rc
  local -a on=() off=(--security-opt seccomp=unconfined)
  [ "$1" = ctr ] && { on=(--seccomp); off=(); }
  run "$1" runc "$s" "${off[@]}"; c=$OUT; record "control ($1, runc, seccomp off)"
  run "$1" runc "$s" "${on[@]}"; r=$OUT; record "runc ($1, default seccomp)"
  run "$1" sandshim "$s" "${on[@]}"; rc=$RC; record "sandshim native ($1, default seccomp)"
  assert_eq 0 "$rc" "$1 run status (sandshim)" || return
  assert_contains "$OUT" "END" "$1: the probe ran" || return
  for n in $SYSCALLS; do
    printf '%s\n' "$c" | grep -q "^$n reached" || continue
    printf '%s\n' "$r" | grep -q "^$n blocked" || continue
    printf '%s\n' "$OUT" | grep -q "^$n blocked" || { fail "$n: runc via $1 blocks it, sandshim native does not: $(echo $OUT | head -c 300)"; return 1; }
    asserted="$asserted $n"
  done
  log "$1: blocked by runc's and sandshim's default seccomp, reached with it off:${asserted:- none}"
  [ -n "$asserted" ] || fail "$1: no syscall both reached with seccomp off and blocked by runc's defaults"
}

for client in docker podman ctr; do
  run_check "$client: cgroupfs escape into the host's devices cgroup blocked" check_cgroup "$client"
  run_check "$client: mknod + open of /dev/kmsg blocked" check_device "$client"
  run_check "$client: default seccomp blocks what runc's does (keyring, userns, perf, userfaultfd)" check_seccomp "$client"
done
finish_checks
