#!/usr/bin/env bash
# Root inside a native sandshim container against cgroupfs, devices, masked paths and bind
# flags (review C1, C2, M5, M6, L7). Each attack runs three ways on a docker-shaped bundle
# (a `cgroup` mount at /sys/fs/cgroup, sysfs at /sys, docker's capabilities incl.
# CAP_MKNOD, devices deny-all + docker's allow list, no cgroup namespace, as docker on a
# v1/hybrid host):
#   control  a setup without the protection, where the attack must be seen to work (else
#            the check could not tell a block from a broken probe)
#   runc     /usr/sbin/runc with the same bundle: recorded (# lines), not asserted
#   sandshim --backend native: must block it
# One check drives a private dockerd with --runtime=sandshim (--backend native).
# Test-only switches sandshim honours for the controls (nowhere else): SANDSHIM_TEST_DEVICE_POLICY
# =v1|bpf|none (which device enforcer is set up) and SANDSHIM_TEST_TRUST_DEV_NULL=1 (masked
# paths bound from the path /dev/null, as before the fix).
# Env: CHECK_FILTER=ERE runs only matching checks; NO_DOCKER=1 skips the docker check.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib/image.sh"
. "$HERE/../integration/lib/daemons.sh"
require_root
require_cmds jq unshare
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
RUNC=${RUNC:-/usr/sbin/runc}

WORK=$(mktemp -d /tmp/sandshim-attack-mounts.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
RUNC_ROOT=$WORK/runc
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'umount -R "$WORK/vol/sub" 2>/dev/null; true'
on_exit '"$SANDSHIM_BIN" --root "$ROOT" list -q 2>/dev/null | xargs -r -n1 "$SANDSHIM_BIN" --root "$ROOT" delete --force >/dev/null 2>&1'
on_exit '"$RUNC" --root "$RUNC_ROOT" list -q 2>/dev/null | xargs -r -n1 "$RUNC" --root "$RUNC_ROOT" delete --force >/dev/null 2>&1'
LEAKS=("$CHECK_LEAKS" --match "$WORK" --match "-$$-" --root "$ROOT")
no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks

B=$WORK/bundle
make_bundle "$B" true >/dev/null || die "cannot build the test bundle"
# docker's shape (moby oci/defaults.go + daemon/oci_linux.go) on a v1/hybrid host.
jq '
  .process.capabilities = ({
    bounding: ["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FSETID","CAP_FOWNER","CAP_MKNOD","CAP_NET_RAW","CAP_SETGID",
               "CAP_SETUID","CAP_SETFCAP","CAP_SETPCAP","CAP_NET_BIND_SERVICE","CAP_SYS_CHROOT","CAP_KILL","CAP_AUDIT_WRITE"]}
    | .effective = .bounding | .permitted = .bounding)
  | .process.noNewPrivileges = false
  | .linux.namespaces = [{type:"pid"},{type:"network"},{type:"ipc"},{type:"uts"},{type:"mount"}]
  | .mounts = [.mounts[] | select(.destination != "/sys/fs/cgroup" and .destination != "/sys")]
      + [{destination:"/sys", type:"sysfs", source:"sysfs", options:["nosuid","noexec","nodev","ro"]},
         {destination:"/sys/fs/cgroup", type:"cgroup", source:"cgroup", options:["ro","nosuid","noexec","nodev"]}]
  | .linux.resources.devices = [{allow:false, access:"rwm"},
      {allow:true, type:"c", major:1, minor:5, access:"rwm"}, {allow:true, type:"c", major:1, minor:3, access:"rwm"},
      {allow:true, type:"c", major:1, minor:9, access:"rwm"}, {allow:true, type:"c", major:1, minor:8, access:"rwm"},
      {allow:true, type:"c", major:5, minor:0, access:"rwm"}, {allow:true, type:"c", major:5, minor:1, access:"rwm"},
      {allow:true, type:"c", major:1, minor:7, access:"rwm"}, {allow:true, type:"c", major:136, access:"rwm"},
      {allow:true, type:"c", major:5, minor:2, access:"rwm"}, {allow:true, type:"c", major:10, minor:200, access:"rwm"},
      {allow:true, type:"c", access:"m"}, {allow:true, type:"b", access:"m"}]
  | del(.linux.seccomp)' "$B/config.json" >"$B/c" && mv "$B/c" "$B/config.json" || die "cannot shape the bundle"

bundle_with() { # NAME JQ [ROOTFS]: a bundle dir using the shared rootfs (or ROOTFS)
  local d=$WORK/b-$1
  mkdir -p "$d"
  jq --arg r "${3:-$B/rootfs}" ".root.path = \$r | $2" "$B/config.json" >"$d/config.json"
  echo "$d"
}
script() { jq -n --arg s "$1" '["sh","-c",$s]'; }  # process.args for a shell script
# run_ss/run_runc NAME JQ [ROOTFS]: the container's stdout+stderr in OUT, status in RC.
run_ss() { OUT=$(timeout 60 "$SANDSHIM_BIN" --root "$ROOT" --backend native run --bundle "$(bundle_with "$@")" "$(uniq_name "$1")" 2>&1); RC=$?; }
run_runc() {
  local id; id=$(uniq_name "$1")
  OUT=$(timeout 60 "$RUNC" --root "$RUNC_ROOT" run --bundle "$(bundle_with "$@")" "$id" 2>&1 </dev/null); RC=$?
  "$RUNC" --root "$RUNC_ROOT" delete --force "$id" >/dev/null 2>&1
}
record() { log "$1: rc=$RC $(printf '%s' "$OUT" | tr '\n' ' ' | head -c 300)"; }

# The weak setup for the cgroupfs attacks: what sandshim did before (and what runc does
# with a plain read-only rbind): the host's /sys/fs/cgroup, read-only at the top only.
WEAK_CGROUP='.mounts = [.mounts[] | select(.destination != "/sys/fs/cgroup")]
  + [{destination:"/sys/fs/cgroup", type:"bind", source:"/sys/fs/cgroup", options:["rbind","ro","nosuid","nodev","noexec"]}]'

# ----------------------------------------------------------------------------- checks

ESCAPE='echo $$ > /sys/fs/cgroup/devices/cgroup.procs 2>&1; echo "devices=$(grep :devices: /proc/self/cgroup | cut -d: -f3)"'
check_cgroup_procs_escape() {
  run_runc escape-control "$WEAK_CGROUP | .process.args = $(script "$ESCAPE")"
  record "control (runc, host cgroupfs rbind,ro)"
  assert_contains "$OUT" "devices=/" "control: the container moved itself into the host's root devices cgroup" || return
  assert_not_contains "$OUT" "devices=/escape" "control: moved" || return
  run_runc escape-runc ".process.args = $(script "$ESCAPE")"
  record "runc (docker defaults)"
  run_ss escape ".process.args = $(script "$ESCAPE")"
  record "sandshim"
  assert_eq 0 "$RC" "sandshim run status" || return
  assert_contains "$OUT" "Read-only file system" "sandshim: cgroup.procs write refused" || return
  # Its own cgroup: sandshim-<state root tag>-<container id> (#34: names unique per --root).
  assert_contains "$OUT" "devices=/sandshim-" "sandshim: still in a sandshim devices cgroup" || return
  assert_contains "$OUT" "-escape-" "sandshim: the container's own cgroup" || return
  # The weak spec under sandshim: its ro on an rbind is recursive, so it holds too.
  run_ss escape-weak "$WEAK_CGROUP | .process.args = $(script "$ESCAPE")"
  record "sandshim (host cgroupfs rbind,ro)"
  assert_contains "$OUT" "Read-only file system" "sandshim weak spec: refused" || return
  assert_contains "$OUT" "devices=/sandshim-" "sandshim weak spec: still in a sandshim cgroup" || return
  assert_contains "$OUT" "-escape-weak-" "sandshim weak spec: still in its own cgroup"
}

# Opened for writing (append) and closed: nothing is written. `[ -w ]` cannot tell (root).
AGENT='n=0; for f in $(find /sys/fs/cgroup -maxdepth 3 -name release_agent 2>/dev/null); do n=$((n+1)); (exec 3>>"$f") 2>/dev/null && echo "WRITABLE $f"; done;
  echo "release_agents=$n"; grep -c " /sys/fs/cgroup/[^ ]* rw" /proc/self/mountinfo | sed "s/^/rw_cgroup_mounts=/"'
check_release_agent() {
  run_runc agent-control "$WEAK_CGROUP | .process.args = $(script "$AGENT")"
  record "control (runc, host cgroupfs rbind,ro)"
  assert_contains "$OUT" "WRITABLE /sys/fs/cgroup/" "control: a host release_agent is writable" || return
  run_runc agent-runc ".process.args = $(script "$AGENT")"
  record "runc (docker defaults)"
  run_ss agent ".process.args = $(script "$AGENT")"
  record "sandshim"
  assert_not_contains "$OUT" "WRITABLE" "sandshim: no writable release_agent" || return
  assert_contains "$OUT" "rw_cgroup_mounts=0" "sandshim: no read-write mount under /sys/fs/cgroup" || return
  run_ss agent-weak "$WEAK_CGROUP | .process.args = $(script "$AGENT")"
  record "sandshim (host cgroupfs rbind,ro)"
  assert_not_contains "$OUT" "WRITABLE" "sandshim weak spec: no writable release_agent" || return
  assert_contains "$OUT" "rw_cgroup_mounts=0" "sandshim weak spec: every submount read-only"
}

# /dev/kmsg (c 1:11): the default policy denies it. Opened write-only (nothing is written:
# a write-only open needs no syslog permission), so it only tests the device policy.
MKNOD='k=/tmp/kmsg.$$; mknod $k c 1 11 && echo made; (exec 3>$k) 2>&1 && echo OPENED; rm -f $k'
check_device_mknod_open() {
  SANDSHIM_TEST_DEVICE_POLICY=none run_ss dev-control ".process.args = $(script "$MKNOD")"
  record "control (sandshim, SANDSHIM_TEST_DEVICE_POLICY=none)"
  assert_contains "$OUT" "OPENED" "control: with no device policy the node opens" || return
  run_runc dev-allow '.linux.resources.devices = [{allow:true, access:"rwm"}] | .process.args = '"$(script "$MKNOD")"
  record "control (runc, devices allow-all)"
  assert_contains "$OUT" "OPENED" "control: runc with an allow-all policy opens it" || return
  run_runc dev-runc ".process.args = $(script "$MKNOD")"
  record "runc (docker defaults)"
  local policy
  for policy in "" v1 bpf; do
    SANDSHIM_TEST_DEVICE_POLICY=$policy run_ss "dev-${policy:-both}" ".process.args = $(script "$MKNOD")"
    record "sandshim (${policy:-v1 + eBPF})"
    assert_eq 0 "$RC" "sandshim ${policy:-default} status" || return
    assert_contains "$OUT" "made" "sandshim ${policy:-default}: mknod is allowed (docker's c *:* m)" || return
    assert_not_contains "$OUT" "OPENED" "sandshim ${policy:-default}: the node must not open" || return
    assert_contains "$OUT" "Operation not permitted" "sandshim ${policy:-default}: EPERM" || return
  done
}

check_bpf_filter_attached() {
  # The eBPF filter alone, on this host's cgroup2 hierarchy: attached while the container runs.
  local uni id n
  uni=$(awk '{for (i = 7; i < NF; i++) if ($i == "-") { if ($(i+1) == "cgroup2") print $5; break }}' /proc/self/mountinfo | head -1)
  [ -n "$uni" ] || { skip "no cgroup2 mount"; return; }
  id=$(uniq_name bpf)
  # On a host with the v1 devices controller (like this one) the v1 rules are the enforcer and
  # no program is loaded; the switch makes sandshim set up the filter a v2-only host gets.
  SANDSHIM_TEST_DEVICE_POLICY=bpf "$SANDSHIM_BIN" --root "$ROOT" --backend native create --bundle "$(bundle_with bpf '.process.args = ["sleep","30"]')" "$id" ||
    { fail "create"; return; }
  # The container's own cgroup2 path, from its init (the default name carries a root tag).
  local pid cg
  pid=$("$SANDSHIM_BIN" --root "$ROOT" state "$id" | jq -r .pid)
  cg=$(awk -F: '$1 == "0" {print $3}' "/proc/$pid/cgroup")
  n=$(bpf_device_progs "$uni$cg")
  "$SANDSHIM_BIN" --root "$ROOT" delete --force "$id"
  log "BPF_CGROUP_DEVICE programs on $uni$cg: $n"
  assert_eq 1 "$n" "device programs attached"
}
# How many BPF_CGROUP_DEVICE programs are attached to cgroup DIR (bpf BPF_PROG_QUERY; no bpftool here).
bpf_device_progs() {
  python3 - "$1" <<'PY'
import ctypes, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
ids = (ctypes.c_uint32 * 16)()
# target_fd, attach_type (BPF_CGROUP_DEVICE = 6), query_flags, attach_flags, prog_ids, prog_cnt
attr = ctypes.create_string_buffer(struct.pack("IIIIQI4x", fd, 6, 0, 0, ctypes.addressof(ids), 16), 120)
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(321, 16, attr, 120) != 0:  # __NR_bpf, BPF_PROG_QUERY
    print("error", ctypes.get_errno()); sys.exit(0)
print(struct.unpack_from("I", attr.raw, 24)[0])
PY
}

# The sysfs fallback: in a user namespace without a network namespace of its own, sysfs
# cannot be mounted and the host's /sys is bound instead. Every mount under it (debugfs,
# tracefs, securityfs, bpffs, the cgroup hierarchies) must be read-only, not just the top.
USERNS='.linux.namespaces = [.linux.namespaces[] | select(.type != "network")] + [{type:"user"}]
  | .linux.uidMappings = [{containerID:0, hostID:100000, size:65536}]
  | .linux.gidMappings = [{containerID:0, hostID:100000, size:65536}]'
SYSPROBE='awk '"'"'$5 ~ "^/sys" && $6 ~ /^rw/ {print "RW", $5}'"'"' /proc/self/mountinfo;
  echo "sys_mounts=$(awk '"'"'$5 ~ "^/sys"'"'"' /proc/self/mountinfo | wc -l)"'
# What rootless podman puts in the spec for a host network: the host's /sys as a read-only
# rbind (its cgroup hierarchies included, so no cgroup mount of its own).
SYS_RBIND='.mounts = [.mounts[] | select(.destination != "/sys" and .destination != "/sys/fs/cgroup")]
  + [{destination:"/sys", type:"bind", source:"/sys", options:["rbind","ro","nosuid","nodev","noexec"]}]'
check_sysfs_fallback() {
  run_runc sysfs-runc "$USERNS | $SYS_RBIND | .process.args = $(script "$SYSPROBE")"
  record "control (runc, /sys as rbind,ro: read-only at the top only)"
  assert_contains "$OUT" "RW /sys/" "control: a submount of the host's /sys is read-write" || return
  run_ss sysfs "$USERNS | .process.args = $(script "$SYSPROBE")"
  record "sandshim (sysfs refused: its fallback)"
  assert_eq 0 "$RC" "sandshim run status" || return
  assert_not_contains "$OUT" "RW /sys" "sandshim fallback: nothing under /sys is read-write" || return
  assert_not_contains "$OUT" "sys_mounts=0" "sandshim: /sys is there" || return
  run_ss sysfs-rbind "$USERNS | $SYS_RBIND | .process.args = $(script "$SYSPROBE")"
  record "sandshim (/sys as rbind,ro)"
  assert_eq 0 "$RC" "sandshim rbind status" || return
  assert_not_contains "$OUT" "RW /sys" "sandshim rbind,ro: nothing under /sys is read-write"
}

# M5: an image whose /dev/null is a symlink, and a spec without a /dev tmpfs. The target
# is harmless: the container's own domainname (its own UTS namespace), standing in for
# /proc/sys/kernel/core_pattern. Through the masked /proc/timer_list (this kernel has no
# /proc/kcore) it becomes writable.
NULLTRICK='echo m5pwned > /proc/timer_list 2>&1; echo "domainname=$(cat /proc/sys/kernel/domainname)" | tee /m5.result'
check_masked_dev_null_symlink() {
  local r=$WORK/rootfs-m5
  cp -a "$B/rootfs" "$r" && rm -f "$r/dev/null" && ln -s /proc/sys/kernel/domainname "$r/dev/null" || { fail "rootfs"; return; }
  local spec='.mounts = [.mounts[] | select(.destination | startswith("/dev") | not)] | .process.args = '"$(script "$NULLTRICK")"
  SANDSHIM_TEST_TRUST_DEV_NULL=1 run_ss m5-control "$spec" "$r"
  record "control (sandshim, SANDSHIM_TEST_TRUST_DEV_NULL=1: the path followed, as before the fix)"
  assert_contains "$OUT" "domainname=m5pwned" "control: the masked path became a writable sysctl" || return
  run_runc m5-runc "$spec" "$r"
  OUT="$OUT $(cat "$r/m5.result" 2>/dev/null)"  # runc reopens stdio onto that /dev/null
  record "runc $("$RUNC" --version | head -1 | cut -d' ' -f3)"
  run_ss m5 "$spec" "$r"
  record "sandshim"
  assert_ne 0 "$RC" "sandshim must refuse the container" || return
  assert_contains "$OUT" "refusing to mask paths" "sandshim: says why" || return
  assert_not_contains "$OUT" "m5pwned" "sandshim: nothing ran"
}

# M6: a volume with a device node and a submount, bound "rbind,nosuid,nodev,ro".
BINDPROBE='head -c 1 /vol/zero >/dev/null 2>&1 && echo DEV_OPENED; touch /vol/sub/f 2>&1 && echo SUB_WRITABLE;
  touch /vol/f 2>&1 && echo TOP_WRITABLE; grep " /vol " /proc/self/mountinfo | cut -d" " -f6'
check_bind_flags() {
  mkdir -p "$WORK/vol/sub" && mknod "$WORK/vol/zero" c 1 5 && mount -t tmpfs -o size=1m t "$WORK/vol/sub" ||
    { fail "volume setup"; return; }
  local vol="{destination:\"/vol\", type:\"bind\", source:\"$WORK/vol\", options:"
  run_ss bind-control ".mounts += [${vol}[\"rbind\",\"rw\"]}] | .process.args = $(script "$BINDPROBE")"
  record "control (sandshim, rbind,rw)"
  assert_contains "$OUT" "DEV_OPENED" "control: the node opens without nodev" || return
  assert_contains "$OUT" "SUB_WRITABLE" "control: the submount is writable" || return
  run_runc bind-runc ".mounts += [${vol}[\"rbind\",\"nosuid\",\"nodev\",\"ro\"]}] | .process.args = $(script "$BINDPROBE")"
  record "runc (rbind,nosuid,nodev,ro)"
  run_ss bind ".mounts += [${vol}[\"rbind\",\"nosuid\",\"nodev\",\"ro\"]}] | .process.args = $(script "$BINDPROBE")"
  record "sandshim (rbind,nosuid,nodev,ro)"
  assert_not_contains "$OUT" "DEV_OPENED" "sandshim: nodev" || return
  assert_not_contains "$OUT" "SUB_WRITABLE" "sandshim: ro is recursive on an rbind" || return
  assert_not_contains "$OUT" "TOP_WRITABLE" "sandshim: ro" || return
  assert_contains "$OUT" "ro,nosuid,nodev" "sandshim: the flags are on the mount" || return
  run_ss bind-rro ".mounts += [${vol}[\"rbind\",\"rro\"]}] | .process.args = $(script "$BINDPROBE")"
  record "sandshim (rbind,rro)"
  umount "$WORK/vol/sub"
  assert_not_contains "$OUT" "SUB_WRITABLE" "sandshim rro: the submount is read-only"
}

check_refusals() {
  # L7: the root of the hierarchies would make delete and kill --all reach every host process.
  # Not run under runc for that reason. A controller that is not mounted (net_cls here)
  # cannot enforce a limit: create fails instead of ignoring it (runc's behaviour).
  run_ss l7 '.linux.cgroupsPath = "/" | .process.args = ["true"]'
  assert_ne 0 "$RC" "cgroupsPath / refused" || return
  assert_contains "$OUT" "root of the cgroup hierarchies" "cgroupsPath / message" || return
  if ! grep -qw net_cls /proc/self/mountinfo; then
    run_ss netcls '.linux.resources.network = {classID: 1048577} | .process.args = ["true"]'
    assert_ne 0 "$RC" "net_cls classID without the controller refused" || return
    assert_contains "$OUT" "net_cls cgroup controller is not mounted" "net_cls message" || return
  fi
  run_ss swappiness '.linux.resources.memory = {swappiness: 7, disableOOMKiller: true} |
    .process.args = ["sh","-c","cat /sys/fs/cgroup/memory/memory.swappiness; grep oom_kill_disable /sys/fs/cgroup/memory/memory.oom_control"]'
  assert_eq 0 "$RC" "swappiness run ($OUT)" || return
  assert_contains "$OUT" "7" "memory.swappiness applied" || return
  assert_contains "$OUT" "oom_kill_disable 1" "disableOOMKiller applied" || return
  # blockIO throttles are written (they were accepted and dropped before).
  local dev
  dev=$(cat /sys/block/*/dev 2>/dev/null | head -1)
  if [ -n "$dev" ] && grep -qw blkio /proc/self/mountinfo; then
    run_ss blkio '.linux.resources.blockIO = {throttleReadBpsDevice: [{major: '"${dev%:*}"', minor: '"${dev#*:}"', rate: 1048576}]} |
      .process.args = ["cat","/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device"]'
    assert_eq 0 "$RC" "blkio run ($OUT)" || return
    assert_eq "$dev 1048576" "$OUT" "blkio throttle applied" || return
  fi
  # runtime-tools parity: a shared root is set after pivot_root (which refuses shared mounts).
  run_ss shared '.linux.rootfsPropagation = "shared" | .process.args = ["sh","-c","awk '"'"'$5 == \"/\" {print $7}'"'"' /proc/self/mountinfo"]'
  assert_eq 0 "$RC" "rootfsPropagation shared runs ($OUT)" || return
  assert_contains "$OUT" "shared:" "/ is shared inside"
}

check_docker_cgroup_escape() {
  [ "${NO_DOCKER:-0}" = 1 ] && { skip "NO_DOCKER=1"; return; }
  local d=$WORK/d
  add_docker_runtime sandshim-native "$(readlink -f "$SANDSHIM_BIN")" --backend native
  add_docker_runtime runc-bin "$RUNC"
  on_exit 'stop_daemons "$WORK/d"'
  start_daemons "$d" || { skip "private dockerd cannot start"; return; }
  build_rootfs "$WORK/img" && import_docker_image "$WORK/img" || { fail "image"; return; }
  local probe="$ESCAPE; $MKNOD" rc control weak
  # Control: the host's cgroupfs as a docker volume, read-only (runc: the top mount only).
  OUT=$(timeout 60 "${DOCKER_CMD[@]}" run --rm --runtime runc-bin -v /sys/fs/cgroup:/sys/fs/cgroup:ro "$TEST_IMAGE" sh -c "$ESCAPE" 2>&1); RC=$?
  control=$OUT; record "control (runc via docker, -v /sys/fs/cgroup:/sys/fs/cgroup:ro)"
  OUT=$(timeout 60 "${DOCKER_CMD[@]}" run --rm --runtime sandshim-native -v /sys/fs/cgroup:/sys/fs/cgroup:ro "$TEST_IMAGE" sh -c "$ESCAPE" 2>&1); RC=$?
  weak=$OUT; record "sandshim via docker, same volume"
  OUT=$(timeout 60 "${DOCKER_CMD[@]}" run --rm --runtime runc-bin "$TEST_IMAGE" sh -c "$probe" 2>&1); RC=$?
  record "runc via docker"
  OUT=$(timeout 60 "${DOCKER_CMD[@]}" run --rm --runtime sandshim-native "$TEST_IMAGE" sh -c "$probe" 2>&1); rc=$?
  RC=$rc; record "sandshim via docker"
  stop_daemons "$d"
  printf '%s\n' "$control" | grep -qx "devices=/" || { fail "control: runc with the volume did not escape: $control"; return; }
  ! printf '%s\n' "$weak" | grep -qx "devices=/" || { fail "sandshim with the volume escaped: $weak"; return; }
  assert_contains "$weak" "Read-only file system" "sandshim with the volume: refused" || return
  assert_eq 0 "$rc" "docker run status" || return
  assert_contains "$OUT" "Read-only file system" "docker: cgroup.procs write refused" || return
  ! printf '%s\n' "$OUT" | grep -qx "devices=/" || { fail "docker: moved into the root devices cgroup"; return; }
  assert_not_contains "$OUT" "OPENED" "docker: /dev/kmsg does not open"
}

run_check "cgroupfs: writing the host's cgroup.procs to leave the devices cgroup" check_cgroup_procs_escape
run_check "cgroupfs: no writable release_agent, no read-write cgroup mount" check_release_agent
run_check "devices: mknod is allowed, opening a denied char device is not (v1, eBPF, both)" check_device_mknod_open
run_check "devices: the eBPF program is attached on the cgroup2 hierarchy" check_bpf_filter_attached
run_check "sysfs fallback (user namespace, host network): the host's /sys read-only throughout" check_sysfs_fallback
run_check "masked paths: a symlinked /dev/null is refused, not followed" check_masked_dev_null_symlink
run_check "bind flags: nosuid, nodev and recursive ro on an rbind; rro" check_bind_flags
run_check "refused: cgroupsPath /, limits without a controller; swappiness, blkio, shared root applied" check_refusals
run_check "docker --runtime=sandshim (native): cgroupfs escape and device open blocked" check_docker_cgroup_escape
finish_checks
