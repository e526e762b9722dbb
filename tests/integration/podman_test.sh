#!/usr/bin/env bash
# Real-client checks through podman (conmon -> RUNTIME), with podman's whole state
# (--root, --runroot, --tmpdir, volumes, network config, containers.conf) in a
# private temp dir.
#
#   tests/integration/podman_test.sh RUNTIME
#
# RUNTIME: a runc-compatible binary path, or one of sandshim, runc, crun, runsc,
# runsc-host (see resolve_runtime in lib/common.sh); extra global flags from
# RUNTIME_ARGS (and SANDSHIM_ARGS for sandshim).
#
# The isolated podman (state dir, ulimits, runtime wrapper) is lib/podman.sh.
# Exit: 0 all passed, 1 something failed, 77 skipped (not root / podman unusable).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/common.sh
. "$HERE/lib/common.sh"
# shellcheck source=lib/image.sh
. "$HERE/lib/image.sh"
# shellcheck source=lib/clients.sh
. "$HERE/lib/clients.sh"
# shellcheck source=lib/podman.sh
. "$HERE/lib/podman.sh"

[ $# -eq 1 ] || { echo "usage: $0 RUNTIME_BINARY|NAME" >&2; exit 2; }
IMG=docker.io/$TEST_IMAGE
# shellcheck disable=SC2034 # read by lib/clients.sh
CLIENT=podman

setup() {
  require_root
  require_cmds podman conmon jq timeout
  resolve_runtime "$1"
  [ -x "$RT_BIN" ] || skip_all "runtime binary not found: $RT_BIN"

  WORK=$(make_workdir)
  install_traps
  on_exit '[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$WORK"'
  P=$WORK/p
  mkdir -p "$P/rtroot" "$P/bin"
  RT_ROOT=$P/rtroot
  RUNTIME=$(runtime_wrapper "$P/bin" "--root=$RT_ROOT")
  CGROUP_PARENT=/$(cgroup_parent_for "$P")
  podman_isolated "$P" "$RUNTIME"
  leaks_init "$P" "$RT_ROOT"
  on_exit 'podman_teardown "$P"'
  log "runtime $RUNTIME -> $RT_BIN ${RT_ARGS[*]:-}; podman state in $P"

  timeout 60 "${PODMAN[@]}" info >/dev/null 2>"$WORK/info.err" ||
    skip_all "podman does not work here: $(tail -n1 "$WORK/info.err")"
  build_rootfs "$WORK/rootfs" && build_oci_archive "$WORK/rootfs" "$WORK/image.tar" "$IMG" ||
    die "cannot build the test image"
  timeout 120 "${PODMAN[@]}" load -q -i "$WORK/image.tar" >/dev/null 2>"$WORK/load.err" ||
    skip_all "podman cannot load an image here: $(tail -n1 "$WORK/load.err")"
  # The first container creates our cgroup parent and its conmon cgroup; let a
  # throwaway one (system runc, also wrapped for its --root) do that before the
  # baseline is recorded.
  local runc
  runc=$(abs_cmd runc) && write_wrapper "$P/bin/warmup" "$runc" "--root=$RT_ROOT" &&
    timeout 60 "${PODMAN[@]}" --runtime "$P/bin/warmup" run --rm --pull never \
      --cgroup-parent "$CGROUP_PARENT" "$IMG" true >/dev/null 2>&1 || log "warm-up container failed"
  podman_pin_overlay_home "$P"
  leaks_baseline
  AFTER_CHECK_HOOK=client_after_check
}

# --------------------------------------------------------------------------- helpers

pm() { timeout "${T:-60}" "${PODMAN[@]}" "$@"; }

prun() { capture pm run --rm --pull never --cgroup-parent "$CGROUP_PARENT" "$@"; }
client_run() { prun "$IMG" "$@"; }

pstart() {
  CN=$(uniq_name it)
  capture pm run -d --pull never --cgroup-parent "$CGROUP_PARENT" --name "$CN" "$@"
  [ "$RC" -eq 0 ] || fail "podman run -d failed ($RC): $ERR"
}

prm() { pm rm -f -t 0 "$@" >/dev/null 2>&1; true; }

client_leftovers() { pm ps -aq; }
client_remove() { prm "$@"; }

# --------------------------------------------------------------------------- checks

# check_echo, check_exit_code, check_missing_command: lib/clients.sh.

check_env_workdir_user() {
  prun -e FOO=bar -w /tmp --user 1000 "$IMG" sh -c 'echo "$FOO:$(pwd):$(id -u)"'
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq bar:/tmp:1000 "$OUT" "env:cwd:uid"
}

check_stdin() {
  capture sh -c 'printf "via-stdin\n" | "$@"' sh timeout 60 "${PODMAN[@]}" \
    run --rm -i --pull never --cgroup-parent "$CGROUP_PARENT" "$IMG" cat
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq via-stdin "$OUT" "echoed stdin"
}

check_detached_exec_stop_rm() {
  pstart "$IMG" sh -c 'trap "exit 0" TERM; sleep 300 & wait' || return 1
  local running
  running=$(pm inspect -f '{{.State.Running}}' "$CN" 2>/dev/null)
  capture pm exec "$CN" sh -c 'echo in-exec; exit 4'
  local ex_out=$OUT ex_rc=$RC ex_err=$ERR
  local t0 t1
  t0=$(now_ms)
  capture pm stop -t 10 "$CN"
  t1=$(now_ms)
  local stop_rc=$RC stop_err=$ERR code
  code=$(pm inspect -f '{{.State.ExitCode}}' "$CN" 2>/dev/null)
  capture pm rm "$CN"
  local rm_rc=$RC rm_err=$ERR
  prm "$CN"
  assert_eq true "$running" "running after run -d" || return 1
  assert_eq in-exec "$ex_out" "exec stdout ($ex_err)" || return 1
  assert_eq 4 "$ex_rc" "exec exit status" || return 1
  assert_eq 0 "$stop_rc" "stop status ($stop_err)" || return 1
  [ $((t1 - t0)) -lt 5000 ] || { fail "stop of a TERM-trapping container took $((t1 - t0)) ms"; return 1; }
  assert_eq 0 "$code" "exit code after TERM" || return 1
  assert_eq 0 "$rm_rc" "rm status ($rm_err)"
}

check_kill_137() {
  pstart "$IMG" sleep 300 || return 1
  capture pm kill "$CN"
  local code
  code=$(pm wait "$CN" 2>/dev/null)
  prm "$CN"
  assert_eq 0 "$RC" "kill status ($ERR)" && assert_eq 137 "$code" "exit code after kill"
}

check_no_leaks_at_end() {
  # shellcheck disable=SC2034 # read by run_check
  AFTER_CHECK_HOOK=""
  timeout 60 "${PODMAN[@]}" rm -af -t 0 >/dev/null 2>&1
  unmount_under "$P"
  remove_cgroup_parent "$P" conmon
  leaks_since_start
}

# --------------------------------------------------------------------------- main

setup "$@"
run_check "podman run: stdout and exit 0" check_echo
run_check "exit 3 propagates" check_exit_code
run_check "missing command gives 127" check_missing_command
run_check "-e/-w/--user" check_env_workdir_user
run_check "-i passes stdin" check_stdin
run_check "run -d, exec, stop (TERM trap), rm" check_detached_exec_stop_rm
run_check "kill gives 137" check_kill_137
CHECK_FILTER="" run_check "no leaks at the end" check_no_leaks_at_end
finish_checks
