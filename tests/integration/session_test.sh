#!/usr/bin/env bash
# Sessions on both backends: one command from a workspace to a sandbox, execs with exit
# codes, a clean environment, the workspace shared with the host, a read-only base, two
# sessions that cannot see each other, and a delete that leaves nothing.
# SESSION_BACKEND=gvisor|native (default: both, one after the other).
set -u
. "$(dirname "$0")/lib/image.sh"
require_root
require_cmds jq
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"

WORK=$(mktemp -d /tmp/sandshim-sess.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$SANDSHIM_BIN" --root "$ROOT" session delete "$s" >/dev/null 2>&1; done'
build_rootfs "$WORK/rootfs" >/dev/null 2>&1 || die "rootfs"
LEAKS=("$CHECK_LEAKS" --match "$WORK" --match sess- --root "$ROOT")
no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks

check_session() { # BACKEND
  local be=$1 ws=$WORK/ws-$1 a b out rc=0
  ss() { "$SANDSHIM_BIN" --root "$ROOT" --backend "$be" session "$@"; }
  mkdir -p "$ws" && chmod 777 "$ws"
  a=$(uniq_name a); b=$(uniq_name b)
  SECRET_FROM_CALLER=leak ss create "$a" --rootfs "$WORK/rootfs" --workspace "$ws" --env GREETING=hi \
    --proxy http://127.0.0.1:3128 --memory 256m --pids 100 >/dev/null || return $(fail "create $a")
  ss create "$b" --rootfs "$WORK/rootfs" --workspace "$ws" >/dev/null || return $(fail "create $b")
  assert_eq "$be" "$(ss list --json | jq -r --arg a "$a" '.[] | select(.id == $a) | .backend')" "backend in list" || return
  out=$(ss exec "$a" -- sh -c 'echo "$GREETING|$SECRET_FROM_CALLER|$HTTPS_PROXY|$no_proxy|$(id -u)|$(pwd)"; exit 5') || rc=$?
  assert_eq 5 "$rc" "exit status" || return
  assert_eq "hi||http://127.0.0.1:3128|localhost,127.0.0.1,::1|1000|/workspace" "$out" "environment, user, cwd" || return
  ss exec "$a" -- sh -c 'echo from-sandbox > /workspace/result.txt' || return $(fail "workspace write")
  assert_eq from-sandbox "$(cat "$ws/result.txt")" "workspace write visible on the host" || return
  out=$(ss exec "$a" -- sh -c 'touch /bin/evil 2>&1; echo rc=$?')
  assert_contains "$out" "rc=1" "base rootfs is read-only" || return
  # Isolation: b cannot see a's processes or a's /tmp.
  ss exec "$a" -- sh -c 'echo secret > /tmp/a-only; (sleep 1234 &) ; true' || return $(fail "exec in a")
  out=$(ss exec "$b" -- sh -c 'ls /tmp/a-only 2>&1; ps')
  assert_contains "$out" "No such file" "a's /tmp from b" || return
  assert_not_contains "$out" "sleep 1234" "a's processes from b" || return
  ss exec "$a" -- false; rc=$?
  assert_eq 1 "$rc" "false gives 1" || return
  ss delete "$a" "$b" || return $(fail "delete")
  assert_eq "[]" "$(ss list --json)" "no sessions left" || return
  ss exec "$a" -- true 2>/dev/null && return $(fail "exec after delete worked")
  return 0
}

check_bad_input() {
  local rc=0
  "$SANDSHIM_BIN" --root "$ROOT" session create ../x --rootfs "$WORK/rootfs" --workspace "$WORK" 2>/dev/null && return $(fail "bad id accepted")
  "$SANDSHIM_BIN" --root "$ROOT" session create ok1 --rootfs "$WORK/rootfs" --workspace "$WORK/nope" 2>"$WORK/err" || rc=$?
  [ "$rc" -ne 0 ] || return $(fail "missing workspace accepted")
  assert_contains "$(cat "$WORK/err")" "not a directory" "error names the workspace" || return
  "$SANDSHIM_BIN" --root "$ROOT" session create ok2 --rootfs "$WORK/rootfs" --workspace "$WORK" --env "1BAD=x" 2>/dev/null &&
    return $(fail "bad env accepted")
  assert_eq "" "$(ls -A "$ROOT/@sessions" 2>/dev/null)" "nothing left behind"
}

backends=${SESSION_BACKEND:-gvisor native}
for be in $backends; do
  command -v runsc >/dev/null || [ "$be" = native ] || continue
  run_check "session on $be: create, exec, env, workspace, isolation, delete" check_session "$be"
done
run_check "session bad input leaves nothing" check_bad_input
finish_checks
