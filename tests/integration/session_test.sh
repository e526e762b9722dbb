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
    --proxy http://127.0.0.1:3128 --memory 256m --pids 100 >/dev/null || return $(fail "create $a")
  ss create "$b" --rootfs "$WORK/rootfs" --workspace "$ws" >/dev/null || return $(fail "create $b")
  assert_eq "$be" "$(ss list --json | jq -r --arg a "$a" '.[] | select(.id == $a) | .backend')" "backend in list" || return
  out=$(ss exec "$a" -- sh -c 'echo "$GREETING|$SECRET_FROM_CALLER|$HTTPS_PROXY|$no_proxy|$(id -u)|$(pwd)"; exit 5') || rc=$?
  assert_eq 5 "$rc" "exit status" || return
  assert_eq "hi||http://127.0.0.1:3128|localhost,127.0.0.1,::1|1000|/workspace" "$out" "environment, user, cwd" || return
  ss exec "$a" -- sh -c 'echo from-sandbox > /workspace/result.txt' || return $(fail "workspace write")
  assert_eq from-sandbox "$(cat "$ws/result.txt")" "workspace write visible on the host" || return
  # The writable layer: root may change /bin in a's layer; the shared base and b never see it.
  ss exec -u 0 "$a" -- sh -c 'echo layer > /bin/evil' || return $(fail "write into the layer")
  assert_eq layer "$(ss exec "$a" -- cat /bin/evil)" "the layer keeps a's write" || return
  [ ! -e "$WORK/rootfs/bin/evil" ] || return $(fail "the base rootfs was changed")
  out=$(ss exec "$b" -- sh -c 'cat /bin/evil 2>&1; echo rc=$?')
  assert_contains "$out" "rc=1" "b does not see a's layer" || return
  # Isolation: b cannot see a's processes or a's /tmp.
  ss exec "$a" -- sh -c 'echo secret > /tmp/a-only; (sleep 1234 &) ; true' || return $(fail "exec in a")
  out=$(ss exec "$b" -- sh -c 'ls /tmp/a-only 2>&1; ps')
  assert_contains "$out" "No such file" "a's /tmp from b" || return
  assert_not_contains "$out" "sleep 1234" "a's processes from b" || return
  ss exec "$a" -- false; rc=$?
  assert_eq 1 "$rc" "false gives 1" || return
  # Audit: create, each exec with exit status and byte counts; never an env value.
  assert_eq 5 "$(jq -s 'map(select(.event == "exec"))[0].exit' "$WORK/audit/$a.jsonl")" "audit exit status" || return
  assert_eq true "$(jq -s 'map(select(.event == "exec"))[0].bytes_out > 0' "$WORK/audit/$a.jsonl")" "audit bytes out" || return
  grep -q '"GREETING"' "$WORK/audit/$a.jsonl" || return $(fail "audit lacks the env key")
  ! grep -q 'hi\b\|leak' "$WORK/audit/$a.jsonl" || return $(fail "an env value reached the audit log")
  ss delete "$a" "$b" || return $(fail "delete")
  assert_eq delete "$(tail -1 "$WORK/audit/$a.jsonl" | jq -r .event)" "audit delete line" || return
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
  assert_eq "" "$(find "$ROOT/@sessions" -mindepth 1 ! -type d 2>/dev/null)" "nothing left behind"
}

# Exec semantics: separate streams, stdin, signals, timeout that ends the whole tree,
# persistent shell, --json; then names, stop/start, inspect, limits, gc --idle, metrics.
check_exec_and_lifecycle() { # BACKEND
  local be=$1 ws=$WORK/wsx-$1 id out rc=0
  ss() { "$SANDSHIM_BIN" --root "$ROOT" --backend "$be" session "$@"; }
  mkdir -p "$ws" && chmod 777 "$ws"
  id=$(uniq_name x)
  ss create "$id" --name "name-$id" --rootfs "$WORK/rootfs" --workspace "$ws" --memory 64m --pids 40 >/dev/null ||
    return $(fail "create")
  ss exec "name-$id" -- sh -c 'echo to-out; echo to-err >&2' >"$WORK/o" 2>"$WORK/e" || return $(fail "exec by name")
  assert_eq to-out "$(cat "$WORK/o")" "stdout alone" || return
  assert_eq to-err "$(cat "$WORK/e")" "stderr alone" || return
  assert_eq piped "$(echo piped | ss exec "$id" -- cat)" "stdin passed through" || return
  assert_eq end "$(ss exec "$id" -- sh -c 'cat; echo end' <&-)" "a closed stdin reads as empty" || return
  ss exec "$id" -- sh -c 'kill -TERM $$'; rc=$?
  assert_eq 143 "$rc" "a signal is 128+n" || return
  ss exec "$id" -- nonexistent-command 2>"$WORK/e"; rc=$?
  assert_eq 127 "$rc" "a command that is not there is 127" || return
  # A TERM sent to sandshim reaches the command (gVisor: through the sandbox), which ends.
  "$SANDSHIM_BIN" --root "$ROOT" --backend "$be" session exec "$id" -- sleep 1004 &
  local runner=$!
  sleep 2
  kill -TERM "$runner"
  wait "$runner"; rc=$?
  assert_eq 143 "$rc" "TERM forwarded to the command" || return
  out=$(ss exec "$id" -- ps)
  assert_not_contains "$out" "sleep 1004" "the command that got TERM is gone" || return
  local t0=$SECONDS
  ss exec --timeout 2s "$id" -- sh -c 'sleep 1001 & sleep 1002 & sleep 1003'; rc=$?
  assert_eq 124 "$rc" "timeout exit status" || return
  [ $((SECONDS - t0)) -lt 15 ] || return $(fail "timeout took $((SECONDS - t0)) s")
  out=$(ss exec "$id" -- ps)
  assert_not_contains "$out" "sleep 100" "the whole tree of the timed-out exec is gone" || return
  out=$(echo typed-in | ss exec -t "$id" -- sh -c '[ -t 0 ] && [ -t 1 ] && echo has-tty; read x; echo got=$x')
  assert_contains "$out" "has-tty" "--tty gives a terminal" || return
  assert_contains "$out" "got=typed-in" "--tty passes input" || return
  ss exec --shell "$id" -- 'mkdir -p /tmp/deep && cd /tmp/deep && export CARRIED=yes' || return $(fail "shell 1")
  assert_eq "/tmp/deep yes" "$(ss exec --shell "$id" -- 'echo $(pwd) $CARRIED')" "cd and export carry over" || return
  out=$(ss exec --json "$id" -- sh -c 'echo o; echo e >&2; exit 3'); rc=$?
  assert_eq 3 "$rc" "--json keeps the exit status" || return
  assert_eq 'o
|e
|3' "$(echo "$out" | jq -r '.stdout + "|" + .stderr + "|" + (.exit|tostring)')" "--json document" || return
  # Limits: a fork bomb stops at the pids limit and the session survives it.
  ss exec --timeout 20s "$id" -- sh -c 'i=0; while [ $i -lt 100 ]; do sleep 30 & i=$((i+1)); done 2>/dev/null; wait' >/dev/null 2>&1
  assert_eq alive "$(ss exec "$id" -- echo alive)" "session survives hitting the pids limit" || return
  # A memory hog fails alone (native: the cgroup's OOM killer; gVisor: RLIMIT_AS inside).
  ss exec --timeout 60s "$id" -- sh -c 'x=$(head -c 200000000 /dev/zero | tr "\0" a); echo ${#x}' >/dev/null 2>&1 &&
    return $(fail "a 200 MB allocation succeeded under --memory 64m")
  assert_eq alive "$(ss exec "$id" -- echo alive)" "session survives a memory hog" || return
  # Inspect, stop (no process left), start.
  assert_eq "$be" "$(ss inspect --json "$id" | jq -r .backend)" "inspect backend" || return
  assert_eq "name-$id" "$(ss inspect --json "$id" | jq -r .name)" "inspect name" || return
  ss create "$(uniq_name dup)" --name "name-$id" --rootfs "$WORK/rootfs" --workspace "$ws" 2>"$WORK/err" &&
    return $(fail "a duplicate name was accepted")
  assert_contains "$(cat "$WORK/err")" "taken" "duplicate name error" || return
  ss stop "$id" >/dev/null || return $(fail "stop")
  assert_eq stopped "$(ss list --json | jq -r --arg i "$id" '.[] | select(.id == $i) | .status')" "stopped status" || return
  ss exec "$id" -- true 2>/dev/null && return $(fail "exec in a stopped session worked")
  ss start "$id" >/dev/null || return $(fail "start")
  assert_eq again "$(ss exec "$id" -- echo again)" "exec after start" || return
  out=$("$SANDSHIM_BIN" --root "$ROOT" metrics)
  assert_contains "$out" "sandshim_session_execs_total{session=\"$id\",backend=\"$be\"}" "metrics per session" || return
  assert_contains "$out" "sandshim_sessions{state=\"running\",backend=\"$be\"}" "metrics by state" || return
  # gc --idle: a session used just now survives a long TTL and goes with a short one.
  ss gc --idle 1h --json | jq -e '.removed | length == 0' >/dev/null || return $(fail "gc --idle 1h removed something")
  sleep 1
  ss gc --idle 500ms --json | jq -e --arg i "$id" '.removed | any(contains($i))' >/dev/null || return $(fail "gc --idle did not remove")
  assert_eq "[]" "$(ss list --json)" "idle session gone" || return
  assert_eq "" "$(ls -A "$ROOT/@sessions/@names" 2>/dev/null)" "name released"
}

check_profile_file() {
  local id out
  id=$(uniq_name prof)
  printf '{"rootfs": "%s", "env": {"FROM_PROFILE": "p", "OVERRIDE": "profile"}, "hostname": "prof", "writable_layer": false}' \
    "$WORK/rootfs" >"$WORK/profile.json"
  "$SANDSHIM_BIN" --root "$ROOT" session create "$id" --profile "$WORK/profile.json" --workspace "$WORK" \
    --env OVERRIDE=flag >/dev/null || return $(fail "create from a profile")
  out=$("$SANDSHIM_BIN" --root "$ROOT" session exec "$id" -- sh -c 'echo $FROM_PROFILE-$OVERRIDE-$(hostname); touch /x 2>/dev/null || echo ro')
  "$SANDSHIM_BIN" --root "$ROOT" session delete "$id" >/dev/null
  assert_eq "p-flag-prof
ro" "$out" "profile defaults, flag wins, read-only root" || return
  echo '{"memroy": "1g"}' >"$WORK/bad.json"
  "$SANDSHIM_BIN" --root "$ROOT" session create "$id" --profile "$WORK/bad.json" --rootfs "$WORK/rootfs" --workspace "$WORK" \
    2>"$WORK/err" && return $(fail "a profile typo was accepted")
  assert_contains "$(cat "$WORK/err")" "memroy" "the error names the bad key"
}

backends=${SESSION_BACKEND:-gvisor native}
for be in $backends; do
  command -v runsc >/dev/null || [ "$be" = native ] || continue
  run_check "session on $be: create, exec, env, workspace, layer, isolation, audit, delete" check_session "$be"
  run_check "session on $be: streams, signals, timeout, shell, json, limits, names, stop/start, metrics, gc --idle" \
    check_exec_and_lifecycle "$be"
done
run_check "session profile file" check_profile_file
run_check "session bad input leaves nothing" check_bad_input
finish_checks
