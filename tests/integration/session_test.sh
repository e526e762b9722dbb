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
# Audit logs in our work dir (the default is /var/log/sandshim/sessions).
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
on_exit 'grep -o "$ROOT/@sessions/[^ ]*/rootfs" /proc/self/mountinfo | xargs -r -n1 umount -l 2>/dev/null' 
# Ids from uniq_name carry our pid: other suites (and people) may run sessions meanwhile.
LEAKS=("$CHECK_LEAKS" --match "$WORK" --match "-$$-" --root "$ROOT")
no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks

check_session() { # BACKEND
  local be=$1 ws=$WORK/ws-$1 a b out rc=0
  ss() { "$SANDSHIM_BIN" --root "$ROOT" --backend "$be" session "$@"; }
  mkdir -p "$ws" && chmod 777 "$ws"
  a=$(uniq_name a); b=$(uniq_name b)
  SECRET_FROM_CALLER=leak ss create "$a" --rootfs "$WORK/rootfs" --workspace "$ws" --env GREETING=hi \
    --proxy http://127.0.0.1:3128 --memory 256m --pids 100 >/dev/null || { fail "create $a"; return; }
  ss create "$b" --rootfs "$WORK/rootfs" --workspace "$ws" >/dev/null || { fail "create $b"; return; }
  assert_eq "$be" "$(ss list --json | jq -r --arg a "$a" '.[] | select(.id == $a) | .backend')" "backend in list" || return
  out=$(ss exec "$a" -- sh -c 'echo "$GREETING|$SECRET_FROM_CALLER|$HTTPS_PROXY|$no_proxy|$(id -u)|$(pwd)"; exit 5') || rc=$?
  assert_eq 5 "$rc" "exit status" || return
  assert_eq "hi||http://127.0.0.1:3128|localhost,127.0.0.1,::1|1000|/workspace" "$out" "environment, user, cwd" || return
  ss exec "$a" -- sh -c 'echo from-sandbox > /workspace/result.txt' || { fail "workspace write"; return; }
  assert_eq from-sandbox "$(cat "$ws/result.txt")" "workspace write visible on the host" || return
  # The writable layer: root may change /bin in a's layer; the shared base and b never see it.
  ss exec -u 0 "$a" -- sh -c 'echo layer > /bin/evil' || { fail "write into the layer"; return; }
  assert_eq layer "$(ss exec "$a" -- cat /bin/evil)" "the layer keeps a's write" || return
  [ ! -e "$WORK/rootfs/bin/evil" ] || { fail "the base rootfs was changed"; return; }
  out=$(ss exec "$b" -- sh -c 'cat /bin/evil 2>&1; echo rc=$?')
  assert_contains "$out" "rc=1" "b does not see a's layer" || return
  # Isolation: b cannot see a's processes or a's /tmp.
  ss exec "$a" -- sh -c 'echo secret > /tmp/a-only; (sleep 1234 &) ; true' || { fail "exec in a"; return; }
  out=$(ss exec "$b" -- sh -c 'ls /tmp/a-only 2>&1; ps')
  assert_contains "$out" "No such file" "a's /tmp from b" || return
  assert_not_contains "$out" "sleep 1234" "a's processes from b" || return
  ss exec "$a" -- false; rc=$?
  assert_eq 1 "$rc" "false gives 1" || return
  # Audit: create, each exec with exit status and byte counts; never an env value.
  assert_eq 5 "$(jq -s 'map(select(.event == "exec"))[0].exit' "$WORK/audit/$a.jsonl")" "audit exit status" || return
  assert_eq true "$(jq -s 'map(select(.event == "exec"))[0].bytes_out > 0' "$WORK/audit/$a.jsonl")" "audit bytes out" || return
  grep -q '"GREETING"' "$WORK/audit/$a.jsonl" || { fail "audit lacks the env key"; return; }
  ! grep -q 'hi\b\|leak' "$WORK/audit/$a.jsonl" || { fail "an env value reached the audit log"; return; }
  ss delete "$a" "$b" || { fail "delete"; return; }
  assert_eq delete "$(tail -1 "$WORK/audit/$a.jsonl" | jq -r .event)" "audit delete line" || return
  assert_eq "[]" "$(ss list --json)" "no sessions left" || return
  ss exec "$a" -- true 2>/dev/null && { fail "exec after delete worked"; return; }
  return 0
}

check_bad_input() {
  local rc=0
  "$SANDSHIM_BIN" --root "$ROOT" session create ../x --rootfs "$WORK/rootfs" --workspace "$WORK" 2>/dev/null && { fail "bad id accepted"; return; }
  "$SANDSHIM_BIN" --root "$ROOT" session create ok1 --rootfs "$WORK/rootfs" --workspace "$WORK/nope" 2>"$WORK/err" || rc=$?
  [ "$rc" -ne 0 ] || { fail "missing workspace accepted"; return; }
  assert_contains "$(cat "$WORK/err")" "--workspace $WORK/nope: No such file or directory" "error names the workspace and why" || return
  "$SANDSHIM_BIN" --root "$ROOT" session create ok2 --rootfs "$WORK/rootfs" --workspace "$WORK" --env "1BAD=x" 2>/dev/null &&
    { fail "bad env accepted"; return; }
  assert_eq "" "$(find "$ROOT/@sessions" -mindepth 1 ! -type d 2>/dev/null)" "nothing left behind"
}

# Exec semantics and lifecycle, one behaviour per check: each check gets its own session
# (with_session), so the first failure does not hide the rest, and no_leaks runs after each.
SX_ID="" SX_BE="" SX_WS=""
sx() { "$SANDSHIM_BIN" --root "$ROOT" --backend "$SX_BE" session "$@"; }

# with_session BACKEND CHECK: creates a session named name-<id> (64m, 40 pids) with its
# own workspace, runs CHECK with SX_ID/SX_BE/SX_WS set, then deletes the session whatever
# CHECK did (it may have deleted it already) and returns CHECK's status.
with_session() { # BACKEND CHECK
  local rc=0
  SX_BE=$1 SX_ID=$(uniq_name x)
  SX_WS=$WORK/wsx-$SX_ID
  mkdir -p "$SX_WS" && chmod 777 "$SX_WS"
  sx create "$SX_ID" --name "name-$SX_ID" --rootfs "$WORK/rootfs" --workspace "$SX_WS" --memory 64m --pids 40 \
    >/dev/null || { fail "create"; return; }
  "$2" || rc=$?
  sx delete "$SX_ID" >/dev/null 2>&1
  return $rc
}

sx_streams() {
  sx exec "name-$SX_ID" -- sh -c 'echo to-out; echo to-err >&2' >"$SX_WS.o" 2>"$SX_WS.e" || { fail "exec by name"; return; }
  assert_eq to-out "$(cat "$SX_WS.o")" "stdout alone" || return
  assert_eq to-err "$(cat "$SX_WS.e")" "stderr alone"
}

sx_stdin() {
  assert_eq piped "$(echo piped | sx exec "$SX_ID" -- cat)" "stdin passed through" || return
  assert_eq end "$(sx exec "$SX_ID" -- sh -c 'cat; echo end' <&-)" "a closed stdin reads as empty"
}

sx_exit_statuses() {
  local rc=0
  sx exec "$SX_ID" -- sh -c 'kill -TERM $$' || rc=$?
  assert_eq 143 "$rc" "a signal is 128+n" || return
  rc=0
  sx exec "$SX_ID" -- nonexistent-command 2>/dev/null || rc=$?
  assert_eq 127 "$rc" "a command that is not there is 127"
}

# A TERM sent to sandshim reaches the command (gVisor: through the sandbox), which ends.
sx_term_forwarded() {
  local runner rc=0
  # The binary itself, not the sx function: a function put in the background runs in a
  # forked bash, and $! would be that bash, not sandshim.
  "$SANDSHIM_BIN" --root "$ROOT" --backend "$SX_BE" session exec "$SX_ID" -- sleep 1004 &
  runner=$!
  sleep 2
  kill -TERM "$runner"
  wait "$runner" || rc=$?
  assert_eq 143 "$rc" "TERM forwarded to the command" || return
  assert_not_contains "$(sx exec "$SX_ID" -- ps)" "sleep 1004" "the command that got TERM is gone"
}

sx_timeout_ends_tree() {
  local t0=$SECONDS rc=0
  sx exec --timeout 2s "$SX_ID" -- sh -c 'sleep 1001 & sleep 1002 & sleep 1003' || rc=$?
  assert_eq 124 "$rc" "timeout exit status" || return
  [ $((SECONDS - t0)) -lt 15 ] || { fail "timeout took $((SECONDS - t0)) s"; return; }
  assert_not_contains "$(sx exec "$SX_ID" -- ps)" "sleep 100" "the whole tree of the timed-out exec is gone"
}

sx_tty() {
  local out
  out=$(echo typed-in | sx exec -t "$SX_ID" -- sh -c '[ -t 0 ] && [ -t 1 ] && echo has-tty; read x; echo got=$x')
  assert_contains "$out" "has-tty" "--tty gives a terminal" || return
  assert_contains "$out" "got=typed-in" "--tty passes input"
}

# With a terminal the command runs under runsc exec (gVisor); ending its tree at the deadline
# ran runsc ps/kill, whose wait reaped our own runsc exec child too: "waitpid: No child
# processes" and status 1 instead of 124.
sx_tty_timeout() {
  local t0=$SECONDS rc=0
  sx exec -t --timeout 2s "$SX_ID" -- sh -c 'sleep 1001 & sleep 1002' </dev/null >"$SX_WS.tt" 2>&1 || rc=$?
  assert_eq 124 "$rc" "timeout exit status with --tty ($(tail -n 1 "$SX_WS.tt"))" || return
  [ $((SECONDS - t0)) -lt 15 ] || { fail "timeout took $((SECONDS - t0)) s"; return; }
  assert_not_contains "$(sx exec "$SX_ID" -- ps)" "sleep 100" "the whole tree of the timed-out exec is gone"
}

sx_shell_carries_state() {
  local rc=0 f
  sx exec --shell "$SX_ID" -- 'mkdir -p /tmp/deep && cd /tmp/deep && export CARRIED=yes' || { fail "shell 1"; return; }
  assert_eq "/tmp/deep yes" "$(sx exec --shell "$SX_ID" -- 'echo $(pwd) $CARRIED')" "cd and export carry over" || return
  # Values come back as data, byte for byte ($( ) never runs); aliases and functions do not
  # carry; exit N keeps N and still saves.
  sx exec --shell "$SX_ID" -- 'export V="it'"'"'s \$(touch /tmp/ran) \\ a
b"; alias ll=false; fn() { :; }; exit 7' || rc=$?
  assert_eq 7 "$rc" "exit N keeps N" || return
  assert_eq "it's \$(touch /tmp/ran) \\ a
b|noalias|nofunc|" "$(sx exec --shell "$SX_ID" -- 'printf "%s|" "$V"; alias ll >/dev/null 2>&1 || printf "noalias|"
    command -v fn >/dev/null 2>&1 || printf "nofunc|"; [ ! -e /tmp/ran ] || echo RAN')" "values as data; no alias, no function" ||
    return
  # Names that make a shell or the loader run code never come back (PATH: the spec's again).
  sx exec --shell "$SX_ID" -- 'export LD_PRELOAD=/nowhere.so ENV=/tmp/e BASH_ENV=/tmp/e PATH=/nowhere' >/dev/null 2>&1
  assert_eq "[][][] ok" "$(sx exec --shell "$SX_ID" -- 'echo "[$LD_PRELOAD][$ENV][$BASH_ENV]" $(ls -d / >/dev/null && echo ok)')" \
    "code-running names are not carried" || return
  # A directory that is gone: the next exec starts where an exec starts, and carries on.
  sx exec --shell "$SX_ID" -- 'mkdir -p /tmp/gone && cd /tmp/gone && rmdir /tmp/gone' || { fail "rmdir own cwd"; return; }
  assert_eq "$(sx exec "$SX_ID" -- pwd) ok" "$(sx exec --shell "$SX_ID" -- 'echo $(pwd) ok')" "a gone directory is left" || return
  # A variable execve would refuse (over 128 KiB) is dropped, not carried into an exec that
  # could never start again (E2BIG natively); the rest still carries.
  sx exec --shell "$SX_ID" -- 'export BIG=$(head -c 300000 /dev/zero | tr "\0" x)' || { fail "big"; return; }
  assert_eq "0 yes" "$(sx exec --shell "$SX_ID" -- 'echo ${#BIG} $CARRIED')" "an oversized variable is dropped" || return
  # The state is on the host (root's, 0600), nothing of it in the sandbox.
  f=$ROOT/@sessions/$SX_ID/shell-state.json
  assert_eq "600 root" "$(stat -c '%a %U' "$f")" "the state file is root's, 0600" || return
  assert_eq '"/tmp/deep"' "$(sx exec --shell "$SX_ID" -- 'cd /tmp/deep' && jq .cwd "$f")" "the host keeps the directory" || return
  assert_eq absent "$(sx exec --shell "$SX_ID" -- '[ -e /tmp/.sandshim-shell ] && echo present || echo absent')" \
    "nothing of the state inside the sandbox" || return
  # Each credential context has its own state: one principal's exports never reach another.
  sx context create "$SX_ID" other --env OWN=ctx >/dev/null || { fail "context create"; return; }
  assert_eq "[][ctx]" "$(sx exec --shell --context other "$SX_ID" -- 'echo "[$CARRIED][$OWN]"; export LEAK=1')" \
    "a context starts with its own state" || return
  assert_eq "[yes][]" "$(sx exec --shell "$SX_ID" -- 'echo "[$CARRIED][$LEAK]"')" "nor does it reach the default one"
}

sx_json() {
  local out rc=0
  out=$(sx exec --json "$SX_ID" -- sh -c 'echo o; echo e >&2; exit 3') || rc=$?
  assert_eq 3 "$rc" "--json keeps the exit status" || return
  assert_eq 'o
|e
|3' "$(echo "$out" | jq -r '.stdout + "|" + .stderr + "|" + (.exit|tostring)')" "--json document"
}

# A fork bomb stops at the pids limit and the session survives it.
sx_pids_limit() {
  sx exec --timeout 20s "$SX_ID" -- sh -c 'i=0; while [ $i -lt 100 ]; do sleep 30 & i=$((i+1)); done 2>/dev/null; wait' >/dev/null 2>&1
  assert_eq alive "$(sx exec "$SX_ID" -- echo alive)" "session survives hitting the pids limit"
}

# A memory hog fails alone (native: the cgroup's OOM killer; gVisor: RLIMIT_AS inside).
sx_memory_limit() {
  sx exec --timeout 60s "$SX_ID" -- sh -c 'x=$(head -c 200000000 /dev/zero | tr "\0" a); echo ${#x}' >/dev/null 2>&1 &&
    { fail "a 200 MB allocation succeeded under --memory 64m"; return; }
  assert_eq alive "$(sx exec "$SX_ID" -- echo alive)" "session survives a memory hog"
}

sx_inspect_and_names() {
  local doc
  doc=$(sx inspect --json "$SX_ID")
  assert_eq "$SX_BE" "$(jq -r .backend <<<"$doc")" "inspect backend" || return
  assert_eq "name-$SX_ID" "$(jq -r .name <<<"$doc")" "inspect name" || return
  sx create "$(uniq_name dup)" --name "name-$SX_ID" --rootfs "$WORK/rootfs" --workspace "$SX_WS" 2>"$SX_WS.err" &&
    { fail "a duplicate name was accepted"; return; }
  assert_contains "$(cat "$SX_WS.err")" "taken" "duplicate name error"
}

# Stop leaves no process that could run an exec; start brings the session back.
sx_stop_start() {
  sx stop "$SX_ID" >/dev/null || { fail "stop"; return; }
  assert_eq stopped "$(sx list --json | jq -r --arg i "$SX_ID" '.[] | select(.id == $i) | .status')" "stopped status" || return
  sx exec "$SX_ID" -- true 2>/dev/null && { fail "exec in a stopped session worked"; return; }
  sx start "$SX_ID" >/dev/null || { fail "start"; return; }
  assert_eq again "$(sx exec "$SX_ID" -- echo again)" "exec after start"
}

sx_metrics() {
  local out
  sx exec "$SX_ID" -- true || { fail "exec"; return; }
  out=$("$SANDSHIM_BIN" --root "$ROOT" metrics)
  assert_contains "$out" "sandshim_session_execs_total{session=\"$SX_ID\",backend=\"$SX_BE\"}" "metrics per session" || return
  assert_contains "$out" "sandshim_sessions{state=\"running\",backend=\"$SX_BE\"}" "metrics by state"
}

# gc --idle: a session used just now survives a long TTL and goes with a short one.
sx_gc_idle() {
  sx exec "$SX_ID" -- true || { fail "exec"; return; }
  sx gc --idle 1h --json | jq -e '.removed | length == 0' >/dev/null || { fail "gc --idle 1h removed something"; return; }
  sleep 1
  sx gc --idle 500ms --json | jq -e --arg i "$SX_ID" '.removed | any(contains($i))' >/dev/null ||
    { fail "gc --idle did not remove"; return; }
  assert_eq "[]" "$(sx list --json)" "idle session gone" || return
  assert_eq "" "$(ls -A "$ROOT/@sessions/@names" 2>/dev/null)" "name released"
}

check_profile_file() {
  local id out
  id=$(uniq_name prof)
  printf '{"rootfs": "%s", "env": {"FROM_PROFILE": "p", "OVERRIDE": "profile"}, "hostname": "prof", "writable_layer": false}' \
    "$WORK/rootfs" >"$WORK/profile.json"
  "$SANDSHIM_BIN" --root "$ROOT" session create "$id" --profile "$WORK/profile.json" --workspace "$WORK" \
    --env OVERRIDE=flag >/dev/null || { fail "create from a profile"; return; }
  out=$("$SANDSHIM_BIN" --root "$ROOT" session exec "$id" -- sh -c 'echo $FROM_PROFILE-$OVERRIDE-$(hostname); touch /x 2>/dev/null || echo ro')
  "$SANDSHIM_BIN" --root "$ROOT" session delete "$id" >/dev/null
  assert_eq "p-flag-prof
ro" "$out" "profile defaults, flag wins, read-only root" || return
  echo '{"memroy": "1g"}' >"$WORK/bad.json"
  "$SANDSHIM_BIN" --root "$ROOT" session create "$id" --profile "$WORK/bad.json" --rootfs "$WORK/rootfs" --workspace "$WORK" \
    2>"$WORK/err" && { fail "a profile typo was accepted"; return; }
  assert_contains "$(cat "$WORK/err")" "memroy" "the error names the bad key"
}

# Review M7: a session that asks for no limits still has a pids limit and a host memory
# backstop on its cgroup (gVisor: the pids limit is enforced inside, the host gets the
# backstop gvisor/spec_fixups sizes for it).
check_default_limits() { # BACKEND
  local be=$1 id ws pid cg pids mem want_pids=1024
  id=$(uniq_name lim) ws=$WORK/wslim-$id
  # gVisor: the host backstop gvisor/spec_fixups.cc sizes: 64 tasks per process, at most half
  # of kernel.pid_max unless 16 per process needs more.
  if [ "$be" = gvisor ]; then
    local half=$(($(cat /proc/sys/kernel/pid_max) / 2)) least=$((64 + 16 * 1024)) roomy=$((64 + 64 * 1024))
    want_pids=$((half > least ? half : least)); [ "$want_pids" -gt "$roomy" ] && want_pids=$roomy
  fi
  mkdir -p "$ws"
  SX_BE=$be sx create "$id" --rootfs "$WORK/rootfs" --workspace "$ws" >/dev/null || { fail "create"; return; }
  pid=$("$SANDSHIM_BIN" --root "$ROOT" state "sess-$id" 2>/dev/null | jq -r .pid)
  cg=$(awk -F: '$2 == "pids" {print $3}' "/proc/$pid/cgroup" 2>/dev/null)
  pids=$(cat "/sys/fs/cgroup/pids$cg/pids.max" 2>/dev/null)
  cg=$(awk -F: '$2 == "memory" {print $3}' "/proc/$pid/cgroup" 2>/dev/null)
  mem=$(cat "/sys/fs/cgroup/memory$cg/memory.limit_in_bytes" 2>/dev/null)
  SX_BE=$be sx delete "$id" >/dev/null 2>&1
  assert_eq "$want_pids" "$pids" "host pids.max of a session created without --pids" || return
  assert_eq $((4 << 30)) "$mem" "host memory limit of a session created without --memory"
}

backends=${SESSION_BACKEND:-gvisor native}
for be in $backends; do
  command -v runsc >/dev/null || [ "$be" = native ] || continue
  run_check "session on $be: create, exec, env, workspace, layer, isolation, audit, delete" check_session "$be"
  run_check "session on $be: stdout and stderr apart, exec by name" with_session "$be" sx_streams
  run_check "session on $be: stdin passed, a closed stdin reads as empty" with_session "$be" sx_stdin
  run_check "session on $be: a signal is 128+n, a missing command 127" with_session "$be" sx_exit_statuses
  run_check "session on $be: TERM to sandshim reaches the command" with_session "$be" sx_term_forwarded
  run_check "session on $be: --timeout gives 124 and ends the whole tree" with_session "$be" sx_timeout_ends_tree
  run_check "session on $be: --tty gives a terminal and passes input" with_session "$be" sx_tty
  run_check "session on $be: --tty with --timeout gives 124 and ends the tree" with_session "$be" sx_tty_timeout
  run_check "session on $be: --shell carries cd and export over" with_session "$be" sx_shell_carries_state
  run_check "session on $be: --json document keeps the exit status" with_session "$be" sx_json
  run_check "session on $be: the pids limit stops a fork bomb, the session survives" with_session "$be" sx_pids_limit
  run_check "session on $be: a memory hog fails alone" with_session "$be" sx_memory_limit
  run_check "session on $be: inspect; a taken name is refused" with_session "$be" sx_inspect_and_names
  run_check "session on $be: stop leaves nothing to exec in, start brings it back" with_session "$be" sx_stop_start
  run_check "session on $be: metrics per session and by state" with_session "$be" sx_metrics
  run_check "session on $be: gc --idle keeps a used session, removes an idle one, frees its name" with_session "$be" sx_gc_idle
  run_check "session on $be: default pids limit and memory backstop" check_default_limits "$be"
done
run_check "session profile file" check_profile_file
run_check "session bad input leaves nothing" check_bad_input
# After every session above (runsc hands the stdio it is given to the sandbox's user: issue 29).
check_dev_null_still_root() { assert_eq "0:0 crw-rw-rw-" "$(stat -c '%u:%g %A' /dev/null)" "host /dev/null owner and mode"; }
run_check "session: the host's /dev/null is still root's, a device, 0666" check_dev_null_still_root
finish_checks
