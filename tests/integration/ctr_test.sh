#!/usr/bin/env bash
# Real-client checks through containerd: `ctr run` -> containerd-shim-runc-v2 ->
# RUNTIME as the shim's runc BinaryName (ctr's --runc-binary), on a private containerd.
#
#   tests/integration/ctr_test.sh RUNTIME
#
# RUNTIME: a runc-compatible binary path, or one of sandshim, runc, crun, runsc,
# runsc-host (see resolve_runtime in lib/common.sh). Extra global runtime flags come
# from RUNTIME_ARGS (and SANDSHIM_ARGS for sandshim); ctr cannot pass flags, so they
# go through a generated wrapper script.
# SANDSHIM_BROKEN_RUNSC=missing|failing: sandshim's config names a runsc that is missing
# or cannot boot (lib/broken_runsc.sh), so `auto` must fall back; adds a check that it did.
# Exit: 0 all passed, 1 something failed, 77 skipped (not root / containerd won't start).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/daemons.sh
. "$HERE/lib/daemons.sh"
# shellcheck source=lib/image.sh
. "$HERE/lib/image.sh"
# shellcheck source=lib/broken_runsc.sh
. "$HERE/lib/broken_runsc.sh"
# shellcheck source=lib/clients.sh
. "$HERE/lib/clients.sh"

[ $# -eq 1 ] || { echo "usage: $0 RUNTIME_BINARY|NAME" >&2; exit 2; }
NS=sandshimtest
IMG=docker.io/$TEST_IMAGE
# shellcheck disable=SC2034 # read by lib/clients.sh
CLIENT=ctr
# The task never starts: ctr prints the runtime's error and exits non-zero.
MISSING_COMMAND_STATUS=error

setup() {
  require_root
  require_cmds jq timeout "$CONTAINERD_BIN" "$CTR_BIN" containerd-shim-runc-v2
  resolve_runtime "$1"
  [ -x "$RT_BIN" ] || skip_all "runtime binary not found: $RT_BIN"

  WORK=$(make_workdir)
  install_traps
  on_exit '[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$WORK"'
  # The runtime's --root is ours (ctr --runc-root) so its state can be checked.
  RUNC_ROOT=$WORK/d/runc-root
  leaks_init "$WORK/d" "$RUNC_ROOT"
  # Before containerd starts: it passes the config on to the shims and so to sandshim.
  [ -z "${SANDSHIM_BROKEN_RUNSC:-}" ] || break_runsc "$WORK/broken-runsc" "$SANDSHIM_BROKEN_RUNSC" ||
    die "cannot set up the broken runsc"
  on_exit 'stop_daemons "$WORK/d"'
  start_containerd "$WORK/d" || skip_all "private containerd cannot start (see above)"
  mkdir -p "$RUNC_ROOT" "$WORK/fifo"
  RUNTIME=$(runtime_wrapper "$WORK/bin")
  CGROUP_PARENT=$(cgroup_parent_for "$WORK/d")
  log "runtime $RUNTIME (${RT_BIN} ${RT_ARGS[*]:-}); containerd in $WORK/d"

  build_rootfs "$WORK/rootfs" && build_oci_archive "$WORK/rootfs" "$WORK/image.tar" "$IMG" ||
    die "cannot build the test image"
  timeout 120 "${CTR_CMD[@]}" -n "$NS" images import "$WORK/image.tar" >/dev/null ||
    die "ctr images import failed"
  # The first container creates our cgroup parent; let a throwaway one (system runc)
  # do that before the baseline is recorded, so the parent is not counted as a leak.
  # shellcheck disable=SC2046
  ct run --rm $(run_opts "warmup-$$" "$(abs_cmd runc || echo "$RUNTIME")") \
    "$IMG" "warmup-$$" true >/dev/null 2>&1 || log "warm-up container failed"
  leaks_baseline
  AFTER_CHECK_HOOK=client_after_check
}

# --------------------------------------------------------------------------- helpers

ct() { timeout "${T:-60}" "${CTR_CMD[@]}" -n "$NS" "$@"; }

# Options every `ctr run` gets: our runtime, its root, our fifo dir and cgroup parent.
run_opts() { # ID [RUNTIME_BINARY]
  echo --runtime io.containerd.runc.v2 --runc-binary "${2:-$RUNTIME}" --runc-root "$RUNC_ROOT" \
    --fifo-dir "$WORK/fifo" --cgroup "/$CGROUP_PARENT/$1"
}

# crun [CTR-OPT...] -- CMD...: `ctr run --rm` with a fresh id; OUT/ERR/RC.
crun() {
  local id opts=()
  id=$(uniq_name rm)
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  # shellcheck disable=SC2046 # run_opts has no spaces in its words
  capture ct run --rm $(run_opts "$id") "${opts[@]}" "$IMG" "$id" "$@"
}
client_run() { crun -- "$@"; }

# cstart ARG...: detached task, id left in ID; CSTART_OPTS: extra `ctr run` options.
cstart() {
  ID=$(uniq_name bg)
  # shellcheck disable=SC2046
  capture ct run -d $(run_opts "$ID") ${CSTART_OPTS[@]+"${CSTART_OPTS[@]}"} "$IMG" "$ID" "$@"
  [ "$RC" -eq 0 ] || fail "ctr run -d failed ($RC): $ERR"
}

task_status() { ct task ls 2>/dev/null | awk -v id="$1" '$1 == id { print $3 }'; }

task_running() { [ "$(task_status "$1")" = RUNNING ]; }

# True once the task is STOPPED or gone.
task_done() { case $(task_status "$1") in STOPPED | "") return 0 ;; esac; return 1; }

# wait_task_done ID [SECS]
wait_task_done() {
  local deadline=$((SECONDS + ${2:-10}))
  until task_done "$1"; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.2
  done
}

# Removes a task (killing it if needed) and its container; quiet and idempotent.
# A task may sit in CREATED (e.g. its start failed): SIGKILL moves it to STOPPED.
cremove() { # ID
  ct task kill -s SIGKILL "$1" >/dev/null 2>&1
  wait_task_done "$1" 10
  ct task delete "$1" >/dev/null 2>&1
  ct container delete "$1" >/dev/null 2>&1
  true
}

client_leftovers() { ct container ls -q; }
client_remove() { local id; for id in "$@"; do cremove "$id"; done; }

# --------------------------------------------------------------------------- checks

# check_echo, check_exit_code, check_missing_command: lib/clients.sh.

check_env_cwd() {
  crun --env FOO=bar --cwd /tmp -- sh -c 'echo "$FOO:$(pwd):$(id -u)"'
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq bar:/tmp:0 "$OUT" "env:cwd:uid"
}

check_stdin() {
  local id
  id=$(uniq_name in)
  # `read` rather than `cat`: ctr 1.6 does not close the task's stdin on EOF, so a
  # command waiting for EOF would hang.
  # shellcheck disable=SC2046
  capture sh -c 'printf "via-stdin\n" | "$@"' sh timeout 60 "${CTR_CMD[@]}" -n "$NS" \
    run --rm $(run_opts "$id") "$IMG" "$id" sh -c 'read -r x; echo "got:$x"'
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq got:via-stdin "$OUT" "echoed stdin"
}

check_exec_kill_delete() {
  cstart sleep 300 || return 1
  local status
  status=$(task_status "$ID")
  capture ct task exec --fifo-dir "$WORK/fifo" --exec-id e1 "$ID" sh -c 'echo in-exec; exit 4'
  local ex_out=$OUT ex_rc=$RC ex_err=$ERR
  ct task kill -s SIGKILL "$ID" >/dev/null 2>&1
  wait_task_done "$ID"
  local stopped
  stopped=$(task_status "$ID")
  capture ct task delete "$ID"
  local del_rc=$RC del_err=$ERR
  ct container delete "$ID" >/dev/null 2>&1
  local left
  left=$(ct container ls -q 2>/dev/null | grep -cx "$ID")
  cremove "$ID"
  assert_eq RUNNING "$status" "task status after run -d" || return 1
  assert_eq in-exec "$ex_out" "exec stdout ($ex_err)" || return 1
  assert_eq 4 "$ex_rc" "exec exit status" || return 1
  assert_eq STOPPED "$stopped" "task status after kill" || return 1
  assert_eq 0 "$del_rc" "task delete status ($del_err)" || return 1
  assert_eq 0 "$left" "container listed after delete"
}

check_sigterm_trap() {
  cstart sh -c 'trap "exit 0" TERM; echo ready; sleep 300 & wait' || return 1
  sleep 1
  local t0 t1
  t0=$(now_ms)
  ct task kill "$ID" >/dev/null 2>&1 # SIGTERM by default
  wait_task_done "$ID"
  t1=$(now_ms)
  local status
  status=$(task_status "$ID")
  capture ct task delete "$ID"
  cremove "$ID"
  assert_eq STOPPED "$status" "status after SIGTERM" || return 1
  [ $((t1 - t0)) -lt 5000 ] || fail "took $((t1 - t0)) ms to stop"
}

check_pause_resume_ps_metrics() {
  cstart sleep 300 || return 1
  capture ct task pause "$ID"
  local p_rc=$RC p_err=$ERR paused resumed
  paused=$(task_status "$ID")
  capture ct task resume "$ID"
  local r_rc=$RC
  resumed=$(task_status "$ID")
  capture ct task exec --fifo-dir "$WORK/fifo" --exec-id after "$ID" echo after-resume
  local e_out=$OUT
  capture ct task ps "$ID"
  local ps_rc=$RC ps_out=$OUT ps_err=$ERR
  capture ct task metrics "$ID"
  local m_rc=$RC m_err=$ERR
  cremove "$ID"
  assert_eq 0 "$p_rc" "task pause ($p_err)" && assert_eq PAUSED "$paused" "status while paused" || return 1
  assert_eq 0 "$r_rc" "task resume" && assert_eq RUNNING "$resumed" "status after resume" || return 1
  assert_eq after-resume "$e_out" "exec after resume" || return 1
  assert_eq 0 "$ps_rc" "task ps ($ps_err)" || return 1
  # A header and at least one host pid (gVisor: the sandbox's).
  [ "$(printf '%s\n' "$ps_out" | grep -cE '^[0-9]+')" -ge 1 ] || { fail "no pid in task ps: $ps_out"; return 1; }
  assert_eq 0 "$m_rc" "task metrics ($m_err)"
}

check_kill_signal_reaches_trap() {
  cstart sh -c 'trap "echo got-usr1 >/tmp/usr1; exit 7" USR1; sleep 300 & wait' || return 1
  sleep 1
  ct task kill -s SIGUSR1 "$ID" >/dev/null 2>&1
  wait_task_done "$ID"
  local status
  status=$(task_status "$ID")
  cremove "$ID"
  assert_eq STOPPED "$status" "the USR1 trap ended the task"
}

# cexec ARG...: `ctr task exec` into $ID with a fresh exec id; OUT/ERR/RC.
cexec() { capture ct task exec --fifo-dir "$WORK/fifo" --exec-id "x$RANDOM$RANDOM" "$@"; }
# cexec_ok ARG...: true when the exec succeeds (for wait_until).
cexec_ok() { cexec "$ID" "$@"; [ "$RC" -eq 0 ]; }

check_task_exec_flags() {
  # task exec --cwd --user; exec -d runs on after ctr returns; kill --exec-id signals it alone.
  # What the execs write goes to a host directory: here a new file in the task's /tmp fails
  # with ENOENT ("nonexistent directory"), under runc too (seen, not yet explained).
  local h=$WORK/exec-$RANDOM
  mkdir -p "$h"
  local CSTART_OPTS=(--mount "type=bind,src=$h,dst=/h,options=rbind:rw")
  cstart sleep 300 || return 1
  cexec --cwd /tmp --user 1000 "$ID" sh -c 'echo "$(pwd):$(id -u)"'
  local f_out=$OUT f_rc=$RC f_err=$ERR
  capture ct task exec --fifo-dir "$WORK/fifo" --exec-id bg1 -d "$ID" \
    sh -c 'trap "echo got-usr1 >/h/exec-usr1; exit 0" USR1; echo up >/h/exec-d; while :; do sleep 0.2; done'
  local d_rc=$RC d_err=$ERR
  wait_until 15 test -s "$h/exec-d"
  local up=$?
  capture ct task kill -s SIGUSR1 --exec-id bg1 "$ID"
  local k_rc=$RC k_err=$ERR
  wait_until 15 test -s "$h/exec-usr1"
  local got=$? status
  status=$(task_status "$ID")
  cremove "$ID"
  assert_eq 0 "$f_rc" "exec --cwd --user ($f_err)" && assert_eq /tmp:1000 "$f_out" "cwd:uid of the exec" || return 1
  assert_eq 0 "$d_rc" "exec -d status ($d_err)" && assert_eq 0 "$up" "the detached exec ran" || return 1
  assert_eq 0 "$k_rc" "kill --exec-id status ($k_err)" || return 1
  assert_eq RUNNING "$status" "the task after its exec was signalled" || return 1
  # On gVisor the pid the shim signals is sandshim's keeper, which passes the signal on to
  # the command in the sandbox (core/exec_keeper.h).
  assert_eq 0 "$got" "the exec's USR1 trap ran"
}

check_kill_exec_sigkill() {
  # task kill -s SIGKILL --exec-id ends that exec (its heartbeat stops) and leaves the task;
  # on gVisor the keeper's guardian sends the SIGKILL on into the sandbox.
  local h=$WORK/exec9-$RANDOM
  mkdir -p "$h"
  local CSTART_OPTS=(--mount "type=bind,src=$h,dst=/h,options=rbind:rw")
  cstart sleep 300 || return 1
  capture ct task exec --fifo-dir "$WORK/fifo" --exec-id hb -d "$ID" \
    sh -c 'while :; do date +%s%N >/h/beat; sleep 0.1; done'
  local d_rc=$RC d_err=$ERR
  wait_until 15 test -s "$h/beat"
  capture ct task kill -s SIGKILL --exec-id hb "$ID"
  local k_rc=$RC k_err=$ERR
  sleep 1
  local b1 b2 status
  b1=$(cat "$h/beat" 2>/dev/null)
  sleep 1.5
  b2=$(cat "$h/beat" 2>/dev/null)
  status=$(task_status "$ID")
  cremove "$ID"
  assert_eq 0 "$d_rc" "exec -d status ($d_err)" && assert_eq 0 "$k_rc" "kill --exec-id ($k_err)" || return 1
  [ -n "$b1" ] || { fail "the exec never beat"; return 1; }
  assert_eq "$b1" "$b2" "heartbeat after SIGKILL of the exec (still beating: it runs on)" || return 1
  assert_eq RUNNING "$status" "the task after its exec was killed"
}

# A shim wrapper for `ctr container create` (which has no --runc-binary/--runc-root): the
# runtime given as an absolute shim path, the runc shim run with our runtime first on PATH.
create_shim() {
  [ -x "$WORK/shim/containerd-shim-sstest-v2" ] && return 0
  mkdir -p "$WORK/shim/path"
  write_wrapper "$WORK/shim/path/runc" "$RUNTIME"
  printf '#!/bin/sh
PATH=%q:$PATH exec containerd-shim-runc-v2 "$@"\n' "$WORK/shim/path" \
    >"$WORK/shim/containerd-shim-sstest-v2"
  chmod +x "$WORK/shim/containerd-shim-sstest-v2"
}

check_create_then_start() {
  # container create, then task start (in the foreground, as a user waits for it), task
  # ls/ps, exec, kill, delete: the runtime's create and start come from two ctr calls (ctr
  # run makes both at once). task start returns the TERM trap's exit 5.
  create_shim
  local id
  id=$(uniq_name cs)
  capture ct container create --runtime "$WORK/shim/containerd-shim-sstest-v2" "$IMG" "$id" -- \
    sh -c 'echo started >/tmp/s; trap "exit 5" TERM; sleep 300 & wait'
  local c_rc=$RC c_err=$ERR listed
  listed=$(ct container ls -q | grep -cx "$id")
  local before
  before=$(task_status "$id")
  ct task start --fifo-dir "$WORK/fifo" "$id" >/dev/null 2>&1 &
  local runner=$!
  wait_until 15 task_running "$id"
  local status
  status=$(task_status "$id")
  capture ct task ps "$id"
  local ps_rc=$RC ps_out=$OUT
  capture ct task exec --fifo-dir "$WORK/fifo" --exec-id cat "$id" cat /tmp/s
  local e_out=$OUT e_err=$ERR
  ct task kill "$id" >/dev/null 2>&1
  local code
  wait "$runner"
  code=$?
  local after  # the foreground task start deletes the task it waited for
  after=$(task_status "$id")
  cremove "$id"
  # The default cgroup (no --cgroup in container create): /<namespace>/<id>, in every
  # hierarchy (cgroup v1 has one per controller); the parent goes only if empty.
  find /sys/fs/cgroup -maxdepth 2 -type d -name "$NS" -exec rmdir {} + 2>/dev/null
  assert_eq 0 "$c_rc" "container create ($c_err)" && assert_eq 1 "$listed" "container ls" || return 1
  assert_eq "" "$before" "no task before task start" || return 1
  assert_eq RUNNING "$status" "task ls after start" || return 1
  assert_eq 0 "$ps_rc" "task ps" || return 1
  [ "$(printf '%s\n' "$ps_out" | grep -cE '^[0-9]+')" -ge 1 ] || { fail "no pid in task ps: $ps_out"; return 1; }
  assert_eq started "$e_out" "exec in the started task ($e_err)" || return 1
  assert_eq 5 "$code" "task start's status: the TERM trap's exit 5" &&
    assert_eq "" "$after" "task ls after task start returned"
}

check_kill_signals() {
  # task kill -s HUP, USR2, INT: each reaches its trap; INT ends the task with 9, which the
  # foreground `ctr run` returns.
  local h=$WORK/sigs-$RANDOM id
  mkdir -p "$h"
  id=$(uniq_name sig)
  # shellcheck disable=SC2046
  ct run --rm $(run_opts "$id") --mount "type=bind,src=$h,dst=/h,options=rbind:rw" "$IMG" "$id" \
    sh -c 'trap "echo hup >>/h/sigs" HUP; trap "echo usr2 >>/h/sigs" USR2; trap "exit 9" INT; echo ready >/h/ready; while :; do sleep 0.2; done' \
    >/dev/null 2>&1 &
  local runner=$!
  wait_until 15 test -s "$h/ready"
  ct task kill -s SIGHUP "$id" >/dev/null 2>&1
  wait_until 10 grep -q hup "$h/sigs"
  local hup=$?
  ct task kill -s SIGUSR2 "$id" >/dev/null 2>&1
  wait_until 10 grep -q usr2 "$h/sigs"
  local usr2=$?
  ct task kill -s SIGINT "$id" >/dev/null 2>&1
  local code
  wait "$runner"
  code=$?
  cremove "$id"
  assert_eq 0 "$hup" "HUP trap" && assert_eq 0 "$usr2" "USR2 trap" || return 1
  assert_eq 9 "$code" "ctr run's status: the INT trap's exit 9"
}

check_kill_all() {
  # The init ignores TERM and waits for its two children. kill -s TERM (the init alone) leaves
  # the task running (control); kill --all -s TERM reaches the children, the wait ends, and
  # so does the task.
  # (The trap comes after the children start: they would inherit an ignored TERM.)
  cstart sh -c 'sleep 301 & sleep 302 & trap "" TERM; wait' || return 1
  sleep 1
  ct task kill -s SIGTERM "$ID" >/dev/null 2>&1
  sleep 2
  local alone
  alone=$(task_status "$ID")
  capture ct task kill --all -s SIGTERM "$ID"
  local k_rc=$RC k_err=$ERR
  wait_task_done "$ID"
  local status
  status=$(task_status "$ID")
  capture ct task ls
  local ls_out=$OUT
  cremove "$ID"
  assert_eq RUNNING "$alone" "status after TERM to the init alone" || return 1
  assert_eq 0 "$k_rc" "kill --all ($k_err)" && assert_eq STOPPED "$status" "status after kill --all -s TERM" &&
    assert_contains "$ls_out" "$ID" "task ls lists the stopped task"
}

check_run_flags() {
  mkdir -p "$WORK/vol" && echo from-host >"$WORK/vol/f"
  crun --read-only --memory-limit 67108864 --cpus 0.5 --mount "type=bind,src=$WORK/vol,dst=/vol,options=rbind:ro" -- \
    sh -c 'cat /vol/f; touch /etc/x 2>/dev/null || echo rootfs-ro; touch /vol/g 2>/dev/null || echo vol-ro'
  assert_eq 0 "$RC" "exit status ($ERR)" || return 1
  assert_eq "from-host
rootfs-ro
vol-ro" "$OUT" "bind mount, --read-only, ro volume (with --memory-limit, --cpus)"
}

check_net_host() {
  # As in podman_test.sh: the host's loopback and uplink, read from /proc/net/dev (Debian 13's runsc has
  # no /sys/class/net).
  local uplink
  uplink=$(host_uplink) || { fail "the host has no default route to compare with"; return 1; }
  crun --net-host -- sh -c "$IFACES_CMD"
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_contains " $OUT " " lo " "loopback" &&
    assert_contains " $OUT " " $uplink " "the host's uplink"
}

# With SANDSHIM_BROKEN_RUNSC: gVisor cannot run, so `auto` must have used native.
check_fell_back_to_native() {
  cstart sleep 300 || return 1
  local kernel state logf warned=0
  capture ct task exec --fifo-dir "$WORK/fifo" --exec-id uname "$ID" uname -r
  kernel=$OUT
  # The shim gives the runtime --root <runc-root>/<namespace>.
  state=$(timeout 20 "$SANDSHIM_BIN" --root "$RUNC_ROOT/$NS" state "$ID" 2>&1)
  # The shim keeps the runtime's --log in the task's bundle while the task lives.
  logf=$WORK/d/containerd/state/io.containerd.runtime.v2.task/$NS/$ID/log.json
  grep -q "$FALLBACK_WARNING" "$logf" 2>/dev/null && warned=1
  cremove "$ID"
  assert_host_kernel "$kernel" || return 1
  assert_native_state "$state" || return 1
  assert_eq 1 "$warned" "\"$FALLBACK_WARNING\" in $logf"
}

check_no_leaks_after_shutdown() {
  # shellcheck disable=SC2034 # read by run_check
  AFTER_CHECK_HOOK=""
  stop_daemons "$WORK/d" keep
  leaks_since_start
  local rc=$?
  stop_daemons "$WORK/d"
  return $rc
}

# --------------------------------------------------------------------------- main

setup "$@"
run_check "ctr run --rm: stdout and exit 0" check_echo
run_check "exit 3 propagates" check_exit_code
run_check "--env/--cwd" check_env_cwd
run_check "stdin is passed" check_stdin
run_check "run -d, task exec, kill, delete" check_exec_kill_delete
run_check "SIGTERM to trapping task stops it < 5s" check_sigterm_trap
run_check "missing command fails with a clear error" check_missing_command
run_check "a path that is not executable: permission denied" check_not_executable
run_check "HOME from the image's passwd when none is given" check_home
run_check "task pause/resume, ps, metrics" check_pause_resume_ps_metrics
run_check "task kill -s USR1 reaches the trap" check_kill_signal_reaches_trap
run_check "task exec --cwd --user, exec -d, kill --exec-id" check_task_exec_flags
run_check "task kill -s SIGKILL --exec-id ends the exec alone" check_kill_exec_sigkill
run_check "container create, task start, task ls/ps, exec" check_create_then_start
run_check "task kill -s HUP, USR2, INT reach their traps" check_kill_signals
run_check "task kill --all" check_kill_all
run_check "run --read-only --mount --memory-limit --cpus" check_run_flags
run_check "run --net-host" check_net_host
[ -z "${SANDSHIM_BROKEN_RUNSC:-}" ] ||
  run_check "auto fell back to native (host kernel, state, warning in --log)" check_fell_back_to_native
CHECK_FILTER="" run_check "no leaks after containerd shutdown" check_no_leaks_after_shutdown
finish_checks
