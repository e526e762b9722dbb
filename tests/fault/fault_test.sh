#!/usr/bin/env bash
# Crash safety, proven by fault injection: sandshim SIGKILLs itself at every named point
# (SANDSHIM_FAULT), and runsc, the sandbox and the gofer are killed mid-life; after `gc` or
# the next `delete`, nothing may remain: no process, runsc state file, cgroup, or state dir.
# ROUNDS=N repeats the whole set (default 1; the documented long run uses 20).
# FAULT_BACKEND=gvisor|native picks the backend (default gvisor).
set -u
. "$(dirname "$0")/../integration/lib/image.sh"
require_root
require_cmds runsc jq
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
ROUNDS=${ROUNDS:-1}
BACKEND=${FAULT_BACKEND:-gvisor}

WORK=$(mktemp -d /tmp/sshim-fault.XXXXXX)
chmod 755 "$WORK"
ROOT=/run/sshim-fault-$$
CG=sshim-fault-$$  # cgroup parent of every container here
install_traps
on_exit 'rm -rf "$WORK" "$ROOT"'
on_exit 'find /sys/fs/cgroup -maxdepth 4 -type d -name "$CG" 2>/dev/null | xargs -r rmdir 2>/dev/null'
on_exit '"$SANDSHIM_BIN" --root "$ROOT" list -q 2>/dev/null | xargs -r -n1 "$SANDSHIM_BIN" --root "$ROOT" delete --force >/dev/null 2>&1'
on_exit 'grep -o "$ROOT/@sessions/[^ ]*/rootfs" /proc/self/mountinfo | xargs -r -n1 umount -l 2>/dev/null'
on_exit 'for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$SANDSHIM_BIN" --root "$ROOT" session delete "$s" >/dev/null 2>&1; done'
# Session audit logs go to our work dir, not /var/log.
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"

ss() { "$SANDSHIM_BIN" --root "$ROOT" --backend "$BACKEND" "$@"; }
# A duration no other test uses, so its processes can be counted as ours.
make_bundle "$WORK/b" sleep 1777 >/dev/null || die "bundle"

# A bundle per container, so the cgroup path names the container.
bundle_for() { # ID
  local d=$WORK/bundles/$1
  mkdir -p "$d" && ln -sfn "$WORK/b/rootfs" "$d/rootfs"
  jq --arg cg "/$CG/$1" '.linux.cgroupsPath = $cg' "$WORK/b/config.json" >"$d/config.json"
  echo "$d"
}

# Nothing of container ID may remain anywhere.
assert_gone() { # ID
  local id=$1 left
  [ ! -e "$ROOT/$id" ] || { fail "state dir $ROOT/$id left"; return 1; }
  # runsc knows containers by a derived id: any state file left is a leak.
  left=$(ls "$ROOT/@runsc" 2>/dev/null | grep -v '\.error\.json$' || true)
  [ -z "$left" ] || { fail "runsc state left: $left"; return 1; }
  # [r]unsc: the pattern must not match the shell that runs pgrep.
  wait_until 5 sh -c "! pgrep -f '[r]unsc.*$ROOT' >/dev/null" ||
    { fail "runsc processes left: $(pgrep -af "[r]unsc.*$ROOT" | cut -c1-120)"; return 1; }
  wait_until 5 sh -c "! pgrep -f '[s]leep 1777' >/dev/null" || { fail "container processes left"; return 1; }
  left=$(find /sys/fs/cgroup -maxdepth 5 -type d -path "*/$CG/$id" 2>/dev/null)
  [ -z "$left" ] || { fail "cgroups left: $left"; return 1; }
}

# Each point whose SIGKILL was seen, one per line: the last check compares it with the
# points compiled into sandshim.
FIRED=$WORK/fired
crash() { # POINT VERB ARGS... : run a verb that must die at POINT
  local point=$1 rc=0; shift
  SANDSHIM_FAULT=$point "$SANDSHIM_BIN" --root "$ROOT" --backend "$BACKEND" "$@" >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq 137 ] || { fail "$point: expected the SIGKILL exit 137, got $rc"; return 1; }
  echo "$point" >>"$FIRED"
}

check_create_points() {
  local p id
  for p in create.after-record create.after-journal create.after-backend; do
    id=$(uniq_name "${p//./-}")
    crash "$p" create --bundle "$(bundle_for "$id")" "$id" || return
    ss gc >/dev/null || return $(fail "$p: gc failed")
    assert_gone "$id" || { REASON="$p: $REASON"; return 1; }
  done
}

check_run_point() {
  local id
  id=$(uniq_name run)
  crash run.after-journal run --bundle "$(bundle_for "$id")" "$id" || return
  ss gc >/dev/null || return $(fail "gc failed")
  assert_gone "$id"
}

check_start_points() {
  local p id
  for p in start.before-backend start.after-backend; do
    id=$(uniq_name "${p//./-}")
    ss create --bundle "$(bundle_for "$id")" "$id" || return $(fail "create failed")
    crash "$p" start "$id" || return
    ss delete --force "$id" || return $(fail "$p: delete after the crash failed")
    assert_gone "$id" || { REASON="$p: $REASON"; return 1; }
  done
}

check_delete_points() {
  local p id
  for p in delete.before-replay delete.after-replay; do
    id=$(uniq_name "${p//./-}")
    ss run -d --bundle "$(bundle_for "$id")" "$id" || return $(fail "run -d failed")
    crash "$p" delete --force "$id" || return
    ss delete --force "$id" || return $(fail "$p: second delete failed")
    assert_gone "$id" || { REASON="$p: $REASON"; return 1; }
  done
}

check_exec_point() {
  local id
  id=$(uniq_name exec)
  ss run -d --bundle "$(bundle_for "$id")" "$id" || return $(fail "run -d failed")
  crash exec.before-backend exec "$id" true || return
  ss exec "$id" true || return $(fail "container unusable after a crashed exec")
  ss delete --force "$id" || return $(fail "delete failed")
  assert_gone "$id"
}

check_kill_point() {
  local id
  id=$(uniq_name kill)
  ss run -d --bundle "$(bundle_for "$id")" "$id" || return $(fail "run -d failed")
  crash kill.before-backend kill "$id" KILL || return
  assert_eq running "$(ss state "$id" | jq -r .status)" "container untouched by the crashed kill" || return
  ss kill "$id" KILL || return $(fail "kill after the crash failed")
  ss delete --force "$id" || return $(fail "delete failed")
  assert_gone "$id"
}

check_gc_point() {
  local id
  id=$(uniq_name gc)
  crash create.after-backend create --bundle "$(bundle_for "$id")" "$id" || return
  crash gc.before-replay gc || return
  ss gc >/dev/null || return $(fail "second gc failed")
  assert_gone "$id" || return
  assert_eq '{"removed":[],"errors":[]}' "$(ss gc --json)" "gc after gc"
}

# Kill pieces of gVisor: the sandbox, the gofer, and runsc itself in the middle of create.
check_kill_sandbox_and_gofer() {
  local id pid which
  for which in sandbox gofer; do
    id=$(uniq_name "kill-$which")
    ss run -d --bundle "$(bundle_for "$id")" "$id" || return $(fail "run -d failed")
    pid=$(pgrep -f "[r]unsc-$which.*$ROOT" | head -1)
    [ -n "$pid" ] || return $(fail "no runsc-$which found")
    kill -9 "$pid"
    ss delete --force "$id" || return $(fail "delete after killing the $which failed")
    assert_gone "$id" || { REASON="kill $which: $REASON"; return 1; }
  done
}

check_kill_runsc_mid_create() {
  local id pid rc=0
  id=$(uniq_name kill-runsc)
  ss create --bundle "$(bundle_for "$id")" "$id" >/dev/null 2>&1 &
  local ss_pid=$!
  # The moment a gofer exists, runsc create is half way: kill the runsc create itself.
  wait_until 10 pgrep -f "[r]unsc-gofer.*$ROOT" || return $(fail "no gofer appeared")
  pid=$(pgrep -f "[r]unsc .*$ROOT.* create " | head -1)
  [ -n "$pid" ] && kill -9 "$pid"
  wait "$ss_pid" || rc=$?
  if [ "$rc" -eq 0 ]; then  # runsc finished before the kill: clean up the normal way
    ss delete --force "$id" || return $(fail "delete failed")
  fi
  ss gc >/dev/null
  assert_gone "$id"
}

# Sessions: crash in session create, exec, delete and gc; the workspace keeps what was
# written before the crash, and session gc (or the next delete) leaves nothing.
SESS=sshimfs$$  # prefix of every session id here, so its cgroups and containers are ours
mkdir -p "$WORK/ws" && chmod 777 "$WORK/ws"
sess() { ss session "$@"; }
sess_create() { sess create "$1" --rootfs "$WORK/b/rootfs" --workspace "$WORK/ws" "${@:2}"; }
assert_session_gone() { # ID
  local id=$1 left
  [ ! -e "$ROOT/@sessions/$id" ] || { fail "session dir $ROOT/@sessions/$id left"; return 1; }
  [ -z "$(ls "$ROOT/@sessions/@names" 2>/dev/null)" ] || { fail "session name left"; return 1; }
  assert_gone "sess-$id" || return
  left=$(grep -F "$ROOT/@sessions/$id" /proc/self/mountinfo || true)
  [ -z "$left" ] || { fail "mounts left (layer or netns): $left"; return 1; }
  left=$(pgrep -af "$ROOT/@sessions/$id/" || true)
  [ -z "$left" ] || { fail "processes left (relay): $left"; return 1; }
  left=$(find /sys/fs/cgroup -maxdepth 4 -type d -name "*sess-$id*" 2>/dev/null)
  [ -z "$left" ] || { fail "session cgroups left: $left"; return 1; }
  assert_eq precious "$(cat "$WORK/ws/keep.txt" 2>/dev/null)" "workspace intact"
}

check_session_create_points() {
  local p id
  echo precious >"$WORK/ws/keep.txt"
  # Proxy network mode, so the crashes also hit a made namespace and a running relay; a
  # secret, so they also hit its CA, rules and control socket, and a relay holding its value.
  echo fault-secret-value >"$WORK/secret-value"
  for p in session.create.after-dir session.create.after-journal session.create.after-netns \
           session.create.after-link session.create.after-relay session.create.after-secrets session.create.after-container; do
    id=$(uniq_name "$SESS-${p//./-}")
    crash "$p" session create "$id" --name "n-$id" --rootfs "$WORK/b/rootfs" --workspace "$WORK/ws" \
      --network proxy --allow-domain example.test --secret "K:host=example.test" --secret-file "K=$WORK/secret-value" || return
    sess gc >/dev/null || return $(fail "$p: session gc failed")
    assert_session_gone "$id" || { REASON="$p: $REASON"; return 1; }
  done
}

check_session_exec_point() {
  local id
  id=$(uniq_name "$SESS-exec")
  sess_create "$id" >/dev/null || return $(fail "session create failed")
  crash session.exec.before-backend session exec "$id" -- sh -c 'echo x > /workspace/x' || return
  assert_eq ok "$(sess exec "$id" -- echo ok)" "session usable after a crashed exec" || return
  sess delete "$id" || return $(fail "delete failed")
  assert_session_gone "$id"
}

check_session_delete_points() {
  local p id
  for p in session.delete.before-replay session.delete.after-replay; do
    id=$(uniq_name "$SESS-${p//./-}")
    sess_create "$id" --name "n-$id" --network proxy >/dev/null || return $(fail "session create failed")
    sess exec "$id" -- sh -c "echo written > /workspace/$id" || return $(fail "exec failed")
    crash "$p" session delete "$id" || return
    sess delete "$id" || return $(fail "$p: second delete failed")
    assert_session_gone "$id" || { REASON="$p: $REASON"; return 1; }
    assert_eq written "$(cat "$WORK/ws/$id")" "$p: a file written in the session survives" || return
  done
}

# A journal sandshim cannot read (corrupt, mistyped, or from a newer sandshim): a plain delete
# refuses with one line naming it and keeps everything; delete --force, session delete --force
# and gc undo what they can read and what the record and the host name, and leave nothing.
check_unreadable_journal() {
  local id sid out
  id=$(uniq_name badj)
  ss run -d --bundle "$(bundle_for "$id")" "$id" || return $(fail "run -d failed")
  echo '[{"kind":"runsc-container","data":{"id":7}}' >"$ROOT/$id/journal.json"
  ss kill "$id" KILL || return $(fail "kill failed")
  wait_until 20 bash -c '[ "$("$0" --root "$1" state "$2" | jq -r .status)" = stopped ]' "$SANDSHIM_BIN" "$ROOT" "$id" || return $(fail "not stopped after kill")
  out=$(ss delete "$id" 2>&1) && return $(fail "a plain delete went past the journal")
  [[ "$out" == *journal* ]] || return $(fail "plain delete: $out")
  ss delete --force "$id" 2>/dev/null || return $(fail "delete --force failed")
  assert_gone "$id" || return
  echo precious >"$WORK/ws/keep.txt"  # the workspace keeps its files (assert_session_gone)
  sid=$(uniq_name "$SESS-badj")
  sess_create "$sid" --name "n-$sid" --network proxy >/dev/null || return $(fail "session create failed")
  echo '[{"kind":"from-a-newer-sandshim","data":{}}]' >"$ROOT/@sessions/$sid/journal.json"
  echo 'garbage' >"$ROOT/sess-$sid/journal.json"
  # Each failure below still removes the session (the suite's own cleanup could not).
  bad() { sess delete --force "$sid" >/dev/null 2>&1; fail "$1"; }
  out=$(sess delete "$sid" 2>&1) && return $(bad "a plain session delete went past the journal")
  [[ "$out" == *from-a-newer-sandshim* ]] || return $(bad "plain session delete: $out")
  out=$(sess gc --json)  # exits non-zero: it has an error to report
  [[ "$out" == *"session $sid: journal"* ]] || return $(bad "gc did not report the journal: $out")
  sess delete --force "$sid" 2>/dev/null || return $(bad "session delete --force failed")
  assert_session_gone "$sid" || return
  assert_eq '{"removed":[],"errors":[]}' "$(sess gc --json)" "session gc afterwards"
}

check_session_gc_point() {
  local id
  id=$(uniq_name "$SESS-gc")
  crash session.create.after-container session create "$id" --rootfs "$WORK/b/rootfs" --workspace "$WORK/ws" || return
  crash session.gc.before-replay session gc || return
  sess gc >/dev/null || return $(fail "second session gc failed")
  assert_session_gone "$id" || return
  assert_eq '{"removed":[],"errors":[]}' "$(sess gc --json)" "session gc after gc"
}

# Credential contexts: a crash at each journal point of context create (the first context,
# which also makes "default" on gVisor, and a later one) and of context rm; gc leaves no
# context behind and the session goes on working.
assert_context_gone() { # SESSION NAME
  local id=$1 name=$2
  [ ! -e "$ROOT/@sessions/$id/contexts/$name" ] || { fail "context dir $name left"; return 1; }
  [ ! -e "$ROOT/ctx-$name+$id" ] || { fail "context container ctx-$name+$id left"; return 1; }
}
check_context_points() {
  local p id
  echo precious >"$WORK/ws/keep.txt"
  for p in session.context.after-journal session.context.after-container; do
    id=$(uniq_name "$SESS-ctx")
    sess_create "$id" >/dev/null || return $(fail "session create failed")
    crash "$p" session context create "$id" first || return
    sess gc >/dev/null || return $(fail "$p: session gc failed")
    assert_context_gone "$id" first && assert_context_gone "$id" default || { REASON="$p (first): $REASON"; return 1; }
    sess context create "$id" one >/dev/null || return $(fail "$p: context create after gc")
    wait_until 60 refill_done "$id" || return $(fail "$p: refill still running")
    crash "$p" session context create "$id" two || return
    sess gc >/dev/null || return $(fail "$p: second session gc failed")
    assert_context_gone "$id" two || { REASON="$p (later): $REASON"; return 1; }
    assert_eq ok "$(sess exec --context one "$id" -- echo ok)" "$p: a made context survives gc" || return
    sess delete "$id" || return $(fail "$p: delete failed")
    assert_session_gone "$id" || { REASON="$p: $REASON"; return 1; }
  done
  id=$(uniq_name "$SESS-ctxrm")
  sess_create "$id" >/dev/null || return $(fail "session create failed")
  sess context create "$id" one >/dev/null || return $(fail "context create")
  # The refill that create started may still be making a spare; gc skips a session in use (it
  # never waits on a live holder), so under ctest -j2's load the rm's leftovers stayed (seen once).
  wait_until 60 refill_done "$id" || return $(fail "rm: refill still running")
  crash session.context.rm.after-record session context rm "$id" one || return
  sess gc >/dev/null || return $(fail "rm: session gc failed")
  assert_context_gone "$id" one || { REASON="rm: $REASON"; return 1; }
  sess delete "$id" || return $(fail "rm: delete failed")
  assert_session_gone "$id"
}

# Spare context containers (gVisor only): the refill killed at each of its journal points (in
# the background, where SANDSHIM_FAULT reaches the refill a create starts, then once more in
# the foreground), and a claim killed after it adopted the spare; gc leaves no spare.
spare_ready() { [ "$(sess inspect "$1" --json | jq .spare_contexts.ready)" = 1 ]; }
# No refill holds the flock of the session's spares dir (a spare's waiter, forked from the
# refill, shows its command line: pgrep would count it).
refill_done() {
  local i
  i=$(stat -c %i "$ROOT/@sessions/$1/spares" 2>/dev/null) || return 0
  ! awk -v i=":$i\$" '$2 == "FLOCK" && $6 ~ i {f = 1} END {exit !f}' /proc/locks
}
assert_no_spare() { # SESSION
  [ -z "$(ls "$ROOT/@sessions/$1/spares" 2>/dev/null)" ] || { fail "spare dir left: $(ls "$ROOT/@sessions/$1/spares")"; return 1; }
  # Every "+session" container is a context's (a claimed spare keeps its id): no spare left.
  local want=$(sess context list "$1" --json | jq length) have=$(ss list -q | grep -c "+$1\$")
  [ "$want" = "$have" ] || { fail "$have context containers in session $1, $want contexts: a spare left"; return 1; }
}
check_spare_points() {
  local p id cid
  for p in session.context.spare.after-journal session.context.spare.after-container; do
    id=$(uniq_name "$SESS-spare")
    sess_create "$id" >/dev/null || return $(fail "session create failed")
    sess context create "$id" one >/dev/null || return $(fail "context create")
    wait_until 60 spare_ready "$id" || return $(fail "$p: no spare ready")
    SANDSHIM_FAULT=$p sess context create "$id" two >/dev/null || return $(fail "$p: context create two")
    wait_until 60 refill_done "$id" || return $(fail "$p: refill still running")
    crash "$p" session context refill "$id" || return
    sess gc >/dev/null || return $(fail "$p: session gc failed")
    assert_no_spare "$id" || { REASON="$p: $REASON"; return 1; }
    assert_eq ok "$(sess exec --context two "$id" -- echo ok)" "$p: a claimed context survives gc" || return
    sess delete "$id" || return $(fail "$p: delete failed")
    assert_session_gone "$id" || { REASON="$p: $REASON"; return 1; }
  done
  # session create --context-spares: the refill it waits for dies at a point; the session is
  # made all the same (a warning), gc removes the half-made spare, the first context goes cold.
  for p in session.context.spare.after-journal session.context.spare.after-container; do
    id=$(uniq_name "$SESS-warm")
    SANDSHIM_FAULT=$p sess_create "$id" --context-spares 2 >/dev/null 2>"$WORK/warm.err" ||
      return $(fail "$p: session create --context-spares failed: $(cat "$WORK/warm.err")")
    grep -q "context-spares" "$WORK/warm.err" || return $(fail "$p: no warning from session create: $(cat "$WORK/warm.err")")
    echo "$p" >>"$FIRED"
    grep -q session-context-spare "$ROOT/@sessions/$id/journal.json" || return $(fail "$p: control: no spare journaled")
    [ "$p" != session.context.spare.after-container ] || [ -n "$(ls "$ROOT/@sessions/$id/spares" | grep -v '^depth$')" ] ||
      return $(fail "$p: control: no half-made spare")
    sess gc >/dev/null || return $(fail "$p: session gc failed")
    [ -z "$(ls "$ROOT/@sessions/$id/spares" | grep -v '^depth$')" ] || return $(fail "$p: spare left after gc")
    assert_eq ok "$(sess context create "$id" one >/dev/null && sess exec --context one "$id" -- echo ok)" \
      "$p: first context after gc" || return
    wait_until 60 refill_done "$id"
    sess delete "$id" || return $(fail "$p: delete failed")
    assert_session_gone "$id" || { REASON="$p: $REASON"; return 1; }
  done
  id=$(uniq_name "$SESS-claim")
  sess_create "$id" >/dev/null || return $(fail "session create failed")
  sess context create "$id" one >/dev/null || return $(fail "context create")
  wait_until 60 spare_ready "$id" || return $(fail "claim: no spare ready")
  cid=$(ls "$ROOT/@sessions/$id/spares")
  crash session.context.claim.after-adopt session context create "$id" two || return
  wait_until 60 refill_done "$id"
  sess gc >/dev/null || return $(fail "claim: session gc failed")
  assert_context_gone "$id" two || { REASON="claim: $REASON"; return 1; }
  ! ss list -q | grep -qxF "$cid" || return $(fail "claim: the adopted spare $cid left")
  sess delete "$id" || return $(fail "claim: delete failed")
  assert_session_gone "$id"
}

# Scoped to what this test made (its root, bundles and cgroup parent): other suites may run.
LEAKS=("$CHECK_LEAKS" --match "$ROOT" --match "$WORK" --match "$CG" --match "$SESS" --root "$ROOT")
no_leaks() {
  # The parent cgroup is ours, not the containers' (like docker's /docker): remove it if
  # empty; a container cgroup left inside keeps it and is reported.
  find /sys/fs/cgroup -maxdepth 4 -type d -name "$CG" 2>/dev/null | xargs -r rmdir 2>/dev/null
  "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"
}
AFTER_CHECK_HOOK=no_leaks

# Native: the container's init killed from outside.
check_kill_native_init() {
  local id pid
  id=$(uniq_name kill-init)
  ss run -d --bundle "$(bundle_for "$id")" "$id" || return $(fail "run -d failed")
  pid=$(ss state "$id" | jq -r .pid)
  kill -9 "$pid"
  wait_until 5 sh -c "[ \"\$($SANDSHIM_BIN --root $ROOT state $id | jq -r .status)\" = stopped ]" || return $(fail "not stopped")
  ss delete "$id" || return $(fail "delete failed")
  assert_gone "$id"
}

# Behaviour, not names: every point in fault::kPoints (shim/core/fault.h) must have killed
# a verb above. A point that is declared but never reached by its verb (moved, renamed,
# or dead code) fails here.
check_every_point_fired() {
  local want p missing=""
  want=$(sed -n '/kPoints\[\] = {/,/};/p' "$REPO_ROOT/shim/core/fault.h" | grep -o '"[^"]*"' | tr -d '"')
  [ -n "$want" ] || { fail "no crash points read from shim/core/fault.h"; return; }
  for p in $want; do
    # Spare context containers are gVisor's only (check_spare_points).
    [ "$BACKEND" = native ] && [[ $p == session.context.spare.* || $p == session.context.claim.* ]] && continue
    grep -qxF "$p" "$FIRED" 2>/dev/null || missing="$missing $p"
  done
  [ -z "$missing" ] || fail "crash points never seen to fire:$missing"
}

for ((round = 1; round <= ROUNDS; round++)); do
  run_check "round $round ($BACKEND): crash points in create" check_create_points
  run_check "round $round: crash point in run" check_run_point
  run_check "round $round: crash points in start" check_start_points
  run_check "round $round: crash points in delete" check_delete_points
  run_check "round $round: crash point in exec" check_exec_point
  run_check "round $round: crash point in kill" check_kill_point
  run_check "round $round: crash point in gc" check_gc_point
  run_check "round $round: crash points in session create" check_session_create_points
  run_check "round $round: crash point in session exec" check_session_exec_point
  run_check "round $round: crash points in session delete" check_session_delete_points
  run_check "round $round: crash point in session gc" check_session_gc_point
  run_check "round $round: an unreadable journal: delete --force and gc leave nothing" check_unreadable_journal
  run_check "round $round: crash points in context create and rm" check_context_points
  [ "$BACKEND" = native ] || run_check "round $round: crash points of spare context containers" check_spare_points
  if [ "$BACKEND" = native ]; then
    run_check "round $round: container init killed" check_kill_native_init
  else
    run_check "round $round: sandbox and gofer killed" check_kill_sandbox_and_gofer
    run_check "round $round: runsc killed mid-create" check_kill_runsc_mid_create
  fi
done
# Only a full run reaches every point.
[ -n "${CHECK_FILTER:-}" ] || run_check "every crash point compiled into sandshim fired" check_every_point_fired
finish_checks
