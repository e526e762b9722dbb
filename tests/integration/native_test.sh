#!/usr/bin/env bash
# The native backend through the sandshim CLI on a busybox bundle: lifecycle, and one check
# per hardening promise, each of which fails if its protection is removed.
set -u
. "$(dirname "$0")/lib/image.sh"
require_root
require_cmds jq python3
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"

WORK=$(mktemp -d /tmp/sandshim-native.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
install_traps
on_exit 'rm -rf "$WORK"'
on_exit '"$SANDSHIM_BIN" --root "$ROOT" list -q 2>/dev/null | xargs -r -n1 "$SANDSHIM_BIN" --root "$ROOT" delete --force >/dev/null 2>&1'
ss() { "$SANDSHIM_BIN" --root "$ROOT" --backend native "$@"; }
B=$WORK/bundle
make_bundle "$B" true >/dev/null || die "cannot build the test bundle"
bundle_with() { # NAME JQ
  local d=$WORK/$1
  mkdir -p "$d" && ln -sfn "$B/rootfs" "$d/rootfs"
  jq "$2" "$B/config.json" >"$d/config.json"
  echo "$d"
}
run_in() { ss run --bundle "$(bundle_with "$1" "$2")" "$(uniq_name "$1")"; }
# Scoped to this run (other suites may run at the same time): its dir, and the cgroups
# /sandshim-<id> of its containers, whose ids all carry "-$$-" (uniq_name).
LEAKS=("$CHECK_LEAKS" --match "$WORK" --match "-$$-" --root "$ROOT")
no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks

check_lifecycle() {
  local id out
  id=$(uniq_name life)
  ss create --bundle "$(bundle_with life '.process.args = ["sleep","1000"]')" "$id" || { fail "create"; return; }
  assert_eq native "$(ss state "$id" | jq -r '.annotations["dev.sandshim.backend"]')" "backend in state" || return
  ss start "$id" || { fail "start"; return; }
  out=$(ss exec --user 1000:1000 --env A=b "$id" sh -c 'echo $(id -u) $A; exit 6'); local rc=$?
  assert_eq 6 "$rc" "exec status" || return
  assert_eq "1000 b" "$out" "exec user/env" || return
  assert_contains "$(ss ps --format json "$id")" "[" "ps json" || return
  ss kill "$id" KILL && wait_until 5 sh -c "[ \"\$($SANDSHIM_BIN --root $ROOT state $id | jq -r .status)\" = stopped ]" ||
    { fail "not stopped after kill"; return; }
  ss delete "$id"
}

check_mistyped_config() {
  # Issue #16 P2: a mistyped uid read as uid 0 (root), a string gid aborted the process. Now
  # each is one error line naming the field, a non-zero exit, and nothing in the state root.
  local name jq want id out rc
  for name in uid gids; do
    case $name in
      uid) jq='.process.user.uid = "1000"'; want='config.json: process.user.uid: not a number' ;;
      gids) jq='.process.user.additionalGids = ["x"]'; want='config.json: process.user.additionalGids[0]: not a number' ;;
    esac
    id=$(uniq_name "bad$name")
    out=$(ss create --bundle "$(bundle_with "bad$name" "$jq")" "$id" 2>&1); rc=$?
    assert_ne 0 "$rc" "create with a mistyped $name fails" || return
    assert_eq 1 "$(printf '%s\n' "$out" | grep -c .)" "one error line for $name: $out" || return
    assert_contains "$out" "$want" "the error names the field" || return
    assert_eq "" "$(ss list -q)" "nothing left in the state root" || return
    [ ! -e "$ROOT/$id" ] || { fail "state dir $ROOT/$id left behind"; return; }
  done
}

check_seccomp_denies() {
  local out
  out=$(run_in seccomp '.linux.seccomp = {"defaultAction":"SCMP_ACT_ALLOW","architectures":["SCMP_ARCH_X86_64"],
    "syscalls":[{"names":["mkdir","mkdirat"],"action":"SCMP_ACT_ERRNO","errnoRet":1}]}
    | .root.readonly = false | .process.args = ["sh","-c","mkdir /tmp/x 2>&1; echo rc=$?"]')
  assert_contains "$out" "Operation not permitted" "mkdir under the filter" && assert_contains "$out" "rc=1" "mkdir status"
}

check_capability_drop() {
  local out
  out=$(run_in caps '.root.readonly = false | .process.args = ["sh","-c","touch /tmp/f; chown 1000 /tmp/f 2>&1; grep CapBnd /proc/self/status"]')
  assert_contains "$out" "Operation not permitted" "chown without CAP_CHOWN" || return
  assert_contains "$out" "CapBnd:	0000000020000420" "bounding set is the spec's three caps"
}

check_readonly_and_masked() {
  local out
  [ -e /proc/timer_list ] || { skip "this kernel has no /proc/timer_list to mask"; return; }
  out=$(run_in paths '.root.readonly = true | .process.args = ["sh","-c","exec 2>&1; echo x > /proc/sys/kernel/hostname; touch /etc/x; echo timer_list=$(wc -c < /proc/timer_list)"]')
  assert_contains "$out" "can't create /proc/sys/kernel/hostname: Read-only file system" "readonly /proc/sys" || return
  assert_contains "$out" "touch: /etc/x: Read-only file system" "readonly rootfs" || return
  assert_contains "$out" "timer_list=0" "masked /proc/timer_list reads empty"
}

check_limits() {
  local out
  out=$(run_in pids '.linux.resources = {"pids":{"limit":8}} | .process.args = ["sh","-c","for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 2 & done 2>&1 | head -1; wait"]')
  assert_contains "$out" "fork" "fork fails under pids.limit 8" || return
  local rc=0
  run_in mem '.linux.resources = {"memory":{"limit":33554432}} | .process.args = ["sh","-c","head -c 200000000 /dev/zero | tail > /dev/null"]' || rc=$?
  assert_eq 137 "$rc" "a 200 MB hog under a 32 MiB limit is OOM-killed"
}

check_user_namespace() {
  local out host_uid
  mkdir -p "$WORK/shared" "$B/rootfs/shared" && chmod 777 "$WORK/shared"
  out=$(run_in userns '.linux.namespaces += [{"type":"user"}] | .linux.uidMappings = [{"containerID":0,"hostID":100000,"size":65536}]
    | .linux.gidMappings = [{"containerID":0,"hostID":100000,"size":65536}]
    | .mounts += [{"destination":"/shared","type":"bind","source":"'"$WORK/shared"'","options":["rbind","rw"]}]
    | .process.args = ["sh","-c","id -u; touch /shared/f"]')
  assert_eq 0 "$out" "root inside the user namespace" || return
  host_uid=$(stat -c %u "$WORK/shared/f" 2>/dev/null)
  assert_eq 100000 "$host_uid" "file owner on the host is the mapped uid"
}

check_symlink_mount_escape() {
  mkdir -p "$WORK/canary"
  echo original >"$WORK/canary/keep"
  # The image's /evil points at a host directory. Resolved on the host, the mount below would
  # create $WORK/canary/newdir there; resolved inside the rootfs it cannot.
  ln -sfn "$WORK/canary" "$B/rootfs/evil"
  run_in escape '.mounts += [{"destination":"/evil/newdir","type":"tmpfs","source":"tmpfs","options":["size=1m"]}]
    | .process.args = ["true"]' >/dev/null 2>&1
  rm -f "$B/rootfs/evil"
  [ ! -e "$WORK/canary/newdir" ] || { fail "the mount destination was created on the host"; return 1; }
  assert_eq "keep" "$(ls "$WORK/canary")" "host canary dir unchanged" || return
  assert_eq original "$(cat "$WORK/canary/keep")" "host canary file unchanged"
}

check_proc_self_exe() {
  local id pid rc=0
  # A container cannot name sandshim's own binary as its command...
  run_in selfexe '.process.args = ["/proc/self/exe"]' 2>"$WORK/err" || rc=$?
  [ "$rc" -ne 0 ] || return $(fail "/proc/self/exe ran as the container command")
  # ...and the init it waits in before start runs from a handle nobody can write: the
  # container's processes can reach it through /proc/<init>/exe, hold it (O_PATH) until
  # every user of the file is gone (no ETXTBSY any more), then write. Run from a copy of
  # the binary, so that if the protection ever goes, the write damages the copy.
  local copy=$WORK/sandshim-copy out
  cp "$SANDSHIM_BIN" "$copy" || return $(fail "copy the binary")
  id=$(uniq_name sealed)
  "$copy" --root "$ROOT" --backend native create --bundle "$(bundle_with sealed '.process.args = ["sleep","10"]')" "$id" ||
    return $(fail "create")
  pid=$(ss state "$id" | jq -r .pid)
  out=$(python3 - "$pid" "$SANDSHIM_BIN --root $ROOT delete --force $id" <<'EOF'
import os, subprocess, sys, time
pid = sys.argv[1]
held = os.open(f"/proc/{pid}/exe", os.O_PATH)
print("exe:", os.readlink(f"/proc/{pid}/exe"))
subprocess.run(sys.argv[2], shell=True, check=True)
for _ in range(50):  # until the init is gone (a zombie no longer holds its executable)
    try:
        if open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z": break
    except FileNotFoundError:
        break
    time.sleep(0.1)
try:
    w = os.open(f"/proc/self/fd/{held}", os.O_WRONLY)
    os.write(w, b"#")
    print("WRITABLE")
except OSError as e:
    print("refused:", e.strerror)
EOF
)
  assert_not_contains "$out" "WRITABLE" "write through the init's /proc/<pid>/exe" || return
  assert_contains "$out" "refused:" "write through the init's /proc/<pid>/exe"
}

check_no_fd_leak() {
  local out
  out=$(run_in fds '.process.args = ["sh","-c","ls /proc/self/fd | wc -l"]' 7</etc/hostname 8</etc/hostname)
  # ls itself opens the directory: 0 1 2 and that one.
  assert_eq 4 "$out" "descriptors inside the container"
}

check_container_hooks() {
  local id out host_mnt
  id=$(uniq_name hooks)
  mkdir -p "$WORK/hooks"
  rm -f "$B/rootfs/tmp/sc-$id.state"
  host_mnt=$(readlink /proc/self/ns/mnt)
  # createContainer runs the host's sh (the root is not changed yet) in the container's
  # namespaces; startContainer runs the image's sh inside the container's root.
  out=$(ss run --bundle "$(bundle_with hooks '.root.readonly = false | .hooks = {
      "createContainer": [{"path": "/bin/sh", "args": ["sh", "-c",
        "cat > '"$WORK"'/hooks/cc.state; readlink /proc/self/ns/mnt > '"$WORK"'/hooks/cc.mnt"]}],
      "startContainer": [{"path": "/bin/sh", "args": ["sh", "-c", "cat > /tmp/sc-'"$id"'.state"]}]}
    | .process.args = ["sh", "-c", "readlink /proc/self/ns/mnt; cat /tmp/sc-'"$id"'.state"]')" "$id" 2>&1)
  rm -f "$B/rootfs/tmp/sc-$id.state"
  local cc_state cc_mnt
  cc_state=$(cat "$WORK/hooks/cc.state" 2>/dev/null)
  cc_mnt=$(cat "$WORK/hooks/cc.mnt" 2>/dev/null)
  assert_eq "creating $id 1" "$(jq -r '"\(.status) \(.id) \(.pid)"' <<<"$cc_state" 2>/dev/null)" \
    "createContainer state (status id pid-in-container)" || return
  assert_ne "$host_mnt" "$cc_mnt" "createContainer's mount namespace is not the host's" || return
  assert_eq "$cc_mnt" "$(head -1 <<<"$out")" "createContainer ran in the container's mount namespace" || return
  assert_eq "created $id 1" "$(tail -n +2 <<<"$out" | jq -r '"\(.status) \(.id) \(.pid)"' 2>/dev/null)" \
    "startContainer state, read inside the container ($out)" || return
  # A failing createContainer hook fails create with its name, and leaves nothing (AFTER_CHECK_HOOK).
  local rc=0
  out=$(ss run --bundle "$(bundle_with hookfail '.hooks = {"createContainer": [{"path": "/bin/false"}]}
    | .process.args = ["echo", "must-not-run"]')" "$(uniq_name hookfail)" 2>&1) || rc=$?
  assert_ne 0 "$rc" "exit status with a failing createContainer hook" || return
  assert_not_contains "$out" "must-not-run" "the process did not run" || return
  assert_contains "$out" "createContainer hook" "the error names the hook"
}

check_no_pivot() {
  command -v strace >/dev/null || { skip "strace is not installed"; return; }
  local mode flag out calls
  # Inside, both roots look the same (mountinfo is relative to the root), so watch the
  # init's syscalls: pivot_root by default, MS_MOVE + chroot with --no-pivot.
  for mode in pivot no-pivot; do
    flag=""
    [ "$mode" = no-pivot ] && flag=--no-pivot
    # shellcheck disable=SC2086 # $flag is empty or one word
    out=$(strace -f -qq -e signal=none -e trace=pivot_root,chroot,mount -o "$WORK/trace-$mode" \
      "$SANDSHIM_BIN" --root "$ROOT" --backend native run $flag \
      --bundle "$(bundle_with "$mode" '.process.args = ["sh", "-c", "ls / | tr \"\\n\" \" \""]')" "$(uniq_name np)" 2>&1)
    assert_contains "$out" "bin dev etc" "the image is the root with $mode ($out)" || return
    calls=$(grep -Eo 'pivot_root\(|chroot\(|MS_MOVE' "$WORK/trace-$mode" | tr -d '(' | tr '\n' ' ')
    if [ "$mode" = pivot ]; then
      assert_eq "pivot_root " "$calls" "root change without --no-pivot" || return
    else
      assert_eq "MS_MOVE chroot " "$calls" "root change with --no-pivot" || return
    fi
  done
}

check_oom_event() {
  local id n out
  id=$(uniq_name oom)
  # The hog (tail buffers everything) is OOM-killed; the init lives on, so events can see it.
  # The hog's side asks to be killed first (oom_score_adj 1000): when the kernel finds the
  # cgroup still over its limit before tail's memory is freed, it takes head next, never
  # the init (seen: tail, then sh 0.26 s later, and the container had stopped).
  ss create --bundle "$(bundle_with oom '.linux.resources = {"memory":{"limit":33554432}}
    | .process.args = ["sh","-c","(echo 1000 > /proc/self/oom_score_adj; head -c 200000000 /dev/zero | tail > /dev/null); sleep 60"]')" "$id" ||
    { fail "create"; return; }
  ss start "$id" || { fail "start"; return; }
  wait_until 20 sh -c '[ "$('"$SANDSHIM_BIN"' --root '"$ROOT"' events --stats '"$id"' | jq -r ".data.memory.oom_kill // 0")" -ge 1 ]'
  n=$(ss events --stats "$id" | jq -r '.data.memory.oom_kill // "absent"')
  out=$(timeout 5 "$SANDSHIM_BIN" --root "$ROOT" events --interval 1 "$id" | head -1)
  ss delete --force "$id"
  assert_ne absent "$n" "oom_kill in events --stats" || return
  [ "$n" -ge 1 ] 2>/dev/null || { fail "oom_kill is $n after the hog was killed"; return; }
  assert_eq "oom $id" "$(jq -r '"\(.type) \(.id)"' <<<"$out" 2>/dev/null)" "first line of events"
}

check_fallback_and_fail_closed() {
  local out rc=0
  mkdir -p "$WORK/nobin"
  out=$(PATH=$WORK/nobin SANDSHIM_CONFIG=$WORK/cfg.json "$SANDSHIM_BIN" --root "$ROOT" run --bundle "$(bundle_with fb '.process.args = ["echo","fell-back"]')" "$(uniq_name fb)" 2>&1)
  echo '{"runsc":"/nonexistent/runsc","cache_dir":"'"$WORK"'/cache"}' >"$WORK/cfg.json"
  out=$(SANDSHIM_CONFIG=$WORK/cfg.json "$SANDSHIM_BIN" --root "$ROOT" run --bundle "$(bundle_with fb '.process.args = ["echo","fell-back"]')" "$(uniq_name fb)" 2>&1)
  assert_contains "$out" "fell-back" "auto ran the container natively" || return
  assert_contains "$out" "falling back to the native runtime" "the fallback is announced" || return
  out=$(SANDSHIM_CONFIG=$WORK/cfg.json "$SANDSHIM_BIN" --root "$ROOT" --backend gvisor run --bundle "$(bundle_with fb '.process.args = ["true"]')" "$(uniq_name fb)" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || { fail "--backend gvisor ran without runsc"; return; }
  assert_contains "$out" "refusing to fall back" "fail-closed message"
}

check_doctor() {
  local out rc=0
  out=$("$SANDSHIM_BIN" doctor --json) || { fail "doctor failed on a host with runsc"; return; }
  assert_eq 5 "$(jq length <<<"$out")" "doctor findings" || return
  echo '{"runsc":"/nonexistent/runsc","cache_dir":"'"$WORK"'/cache"}' >"$WORK/cfg-doctor.json"
  out=$(SANDSHIM_CONFIG=$WORK/cfg-doctor.json "$SANDSHIM_BIN" doctor) || rc=$?
  assert_eq 1 "$rc" "doctor exit without runsc" || return
  assert_contains "$out" "GAP   gvisor" "the gap is named" && assert_contains "$out" "install runsc" "with what to do"
}

run_check "doctor reports gaps and what to do" check_doctor
run_check "native lifecycle: create/start/exec/kill/delete" check_lifecycle
run_check "a mistyped config.json field is one clear error, nothing created" check_mistyped_config
run_check "seccomp profile denies with errnoRet" check_seccomp_denies
run_check "capabilities dropped to the spec's set" check_capability_drop
run_check "read-only and masked paths" check_readonly_and_masked
run_check "pids and memory limits enforced" check_limits
run_check "user namespace mapping" check_user_namespace
run_check "symlink in the image cannot redirect a mount to the host" check_symlink_mount_escape
run_check "/proc/self/exe class: no path to the host binary" check_proc_self_exe
run_check "no host fd leaks into the container" check_no_fd_leak
run_check "auto falls back and says so; gvisor fails closed" check_fallback_and_fail_closed
run_check "createContainer and startContainer hooks: where, when, state on stdin" check_container_hooks
run_check "--no-pivot: MS_MOVE + chroot instead of pivot_root" check_no_pivot
run_check "an OOM kill shows in events (--stats count, oom event)" check_oom_event
finish_checks
