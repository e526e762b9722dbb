#!/usr/bin/env bash
# The command policy (#19) on real sessions, gVisor and native: a denied command exits 77
# with one JSON line naming the rule and nothing of it runs (a marker an allowed command
# does make is the positive control); an asked one exits 78 with an approval id, runs after
# `session approve --once` exactly once, for good after --always, never after reject, and
# asks again once its approval expired; sources.json's limits reach the exec; every
# decision is in the audit trail; bad policies fail create and leave nothing.
# SESSION_BACKEND=gvisor|native (default: both).
set -u
. "$(dirname "$0")/lib/image.sh"
require_root
require_cmds jq
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"

WORK=$(mktemp -d /tmp/sandshim-policy.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$SANDSHIM_BIN" --root "$ROOT" session delete "$s" >/dev/null 2>&1; done'
on_exit 'grep -o "$ROOT/@sessions/[^ ]*/rootfs" /proc/self/mountinfo | xargs -r -n1 umount -l 2>/dev/null'
build_rootfs "$WORK/rootfs" >/dev/null 2>&1 || die "rootfs"
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
LEAKS=("$CHECK_LEAKS" --match "$WORK" --match "-$$-" --root "$ROOT")
no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks

# The issue's example, plus sleep and ulimit for the limit checks.
cat >"$WORK/policy.json" <<'P'
{"permissions": {
   "allow": ["shell(grep:*)", "shell(git status:*)", "shell(pip install:*)", "shell(sleep:*)", "shell(ulimit:*)",
             "file(read:${WORKSPACE}/**)", "file(write:${WORKSPACE}/**)"],
   "deny":  ["shell(sudo:*)", "shell(curl:*)", "shell(rm -rf /:*)", "network(outbound:*)",
             "file(read:/etc/shadow:*)", "shell(nsenter:*)"]}}
P
jq '. + {approval_ttl_seconds: 2}' "$WORK/policy.json" >"$WORK/policy-short.json"
cat >"$WORK/policy-cp.json" <<'P'
{"permissions": {"allow": ["shell(cp:*)", "file(write:${WORKSPACE}/**)"], "deny": ["shell(id:*)"]}}
P
cat >"$WORK/sources.json" <<'S'
{"package_managers": {"pip": {"registries": ["https://pypi.org/simple"], "blocked_packages": ["evil-pkg"]}},
 "web_domains": {"allowed": ["docs.python.org"], "blocked": ["evil.example"]},
 "max_execution_time_seconds": 3, "max_memory_mb": 300}
S

PX_ID="" PX_BE="" PX_WS=""
px() { "$SANDSHIM_BIN" --root "$ROOT" --backend "$PX_BE" session "$@"; }
audit() { jq -c "select(.event == \"$1\")" "$WORK/audit/$PX_ID.jsonl"; }

# with_policy_session BACKEND POLICY CHECK: a session under POLICY and sources.json.
with_policy_session() {
  local rc=0
  PX_BE=$1 PX_ID=$(uniq_name p)
  PX_WS=$WORK/ws-$PX_ID
  mkdir -p "$PX_WS" && chmod 777 "$PX_WS" && echo needle >"$PX_WS/seed"
  px create "$PX_ID" --rootfs "$WORK/rootfs" --workspace "$PX_WS" --policy "$2" --sources "$WORK/sources.json" \
    --memory 512m >/dev/null || { fail "create"; return; }
  "$3" || rc=$?
  px delete "$PX_ID" >/dev/null 2>&1
  return $rc
}

# Asks about CMD...: the exit status must be 78; prints the approval id.
expect_ask() {
  local out rc=0
  out=$(px exec "$PX_ID" -- "$@" 2>/dev/null) || rc=$?
  [ "$rc" = 78 ] || { echo "status $rc: $out"; return 1; }
  jq -er 'select(.decision == "ask") | .approval' <<<"$out"
}
# approve_ask CMD...: CMD (an awk program that opens or runs what it names) is asked about
# by the front door (polred2 F5); approved once, it runs: what is tested is the layer below,
# which must hold whatever a human approved.
approve_ask() {
  local id
  id=$(expect_ask "$@") || { echo "not asked: $id"; return 1; }
  px approve "$PX_ID" "$id" --once >/dev/null
}

p_deny() {
  local out rc=0
  # Positive control: an allowed command does make the marker.
  px exec "$PX_ID" -- sh -c 'grep needle /workspace/seed > /workspace/marker-allowed' || { fail "allowed exec failed"; return; }
  [ -s "$PX_WS/marker-allowed" ] || { fail "the allowed command left no marker"; return; }
  out=$(px exec "$PX_ID" -- sh -c 'grep needle /workspace/seed > /workspace/marker-denied; curl http://x' 2>"$WORK/err") || rc=$?
  assert_eq 77 "$rc" "denied exit status" || return
  assert_eq 1 "$(printf '%s\n' "$out" | wc -l)" "one JSON line" || return
  assert_eq "deny shell(curl:*) curl http://x" "$(jq -r '"\(.decision) \(.rule) \(.command)"' <<<"$out")" "the JSON names the rule" || return
  assert_contains "$(cat "$WORK/err")" "denied by shell(curl:*)" "a line for people on stderr" || return
  [ ! -e "$PX_WS/marker-denied" ] || { fail "part of a denied command ran"; return; }
  rc=0; out=$(px exec --shell "$PX_ID" -- 'cd /etc && grep root shadow' 2>/dev/null) || rc=$?
  assert_eq "77 file(read:/etc/shadow:*)" "$rc $(jq -r .rule <<<"$out")" "--shell: a file rule through cd" || return
  rc=0; out=$(px exec "$PX_ID" -- pip install Evil_Pkg==1.0 2>/dev/null) || rc=$?
  assert_eq "77 sources(blocked_packages:pip:evil-pkg)" "$rc $(jq -r .rule <<<"$out")" "a blocked package" || return
  rc=0; out=$(px exec --json "$PX_ID" -- /usr/bin/sudo id 2>/dev/null) || rc=$?
  assert_eq "77 77 shell(sudo:*)" "$rc $(jq -r '"\(.exit) \(.policy.rule)"' <<<"$out")" "--json carries the decision" || return
  assert_eq 4 "$(audit policy | jq -s 'map(select(.decision == "deny")) | length')" "denials audited" || return
  audit policy | jq -se 'any(.[]; .decision == "deny" and .rule == "shell(curl:*)")' >/dev/null || fail "audit lacks the rule"
}

p_once() {
  local id id2
  id=$(expect_ask touch /workspace/t1) || { fail "not asked: $id"; return; }
  [ ! -e "$PX_WS/t1" ] || { fail "an asked command ran"; return; }
  assert_eq "$id" "$(expect_ask touch /workspace/t1)" "asking again names the same approval" || return
  assert_eq pending "$(px approvals --json "$PX_ID" | jq -r --arg id "$id" '.[] | select(.id == $id) | .state')" "listed pending" || return
  px approve "$PX_ID" "$id" --once >/dev/null || { fail "approve --once"; return; }
  px exec "$PX_ID" -- touch /workspace/t1 || { fail "the approved command did not run"; return; }
  [ -e "$PX_WS/t1" ] || { fail "the approved command left no file"; return; }
  rm -f "$PX_WS/t1"
  id2=$(expect_ask touch /workspace/t1) || { fail "once ran twice: $id2"; return; }
  assert_ne "$id" "$id2" "a new approval after the used one" || return
  [ ! -e "$PX_WS/t1" ] || { fail "once ran twice"; return; }
  assert_eq used "$(px approvals --json "$PX_ID" | jq -r --arg id "$id" '.[] | select(.id == $id) | .state')" "listed used" || return
  audit policy | jq -se --arg id "$id" 'any(.[]; .approval == $id and .approved == "once" and .decision == "allow")' >/dev/null ||
    { fail "audit lacks the approved run"; return; }
  audit approval | jq -se --arg id "$id" 'any(.[]; .approval == $id and .state == "once")' >/dev/null ||
    { fail "audit lacks the approval"; return; }
  # Four execs race for one once approval: exactly one runs.
  px approve "$PX_ID" "$id2" --once >/dev/null || { fail "approve the second"; return; }
  local n pids=()
  for n in 1 2 3 4; do
    "$SANDSHIM_BIN" --root "$ROOT" --backend "$PX_BE" session exec "$PX_ID" -- touch "/workspace/t1" \
      >/dev/null 2>&1 && echo ran >>"$WORK/race-$PX_ID" &
    pids+=($!)
  done
  wait "${pids[@]}"
  assert_eq 1 "$(grep -c ran "$WORK/race-$PX_ID" 2>/dev/null)" "racing execs on one once approval"
}

p_always_and_reject() {
  local id out
  id=$(expect_ask touch /workspace/t2) || { fail "not asked: $id"; return; }
  px approve "$PX_ID" "$id" --always >/dev/null || { fail "approve --always"; return; }
  for n in 1 2 3; do
    rm -f "$PX_WS/t2"
    px exec "$PX_ID" -- touch /workspace/t2 || { fail "always: run $n"; return; }
    [ -e "$PX_WS/t2" ] || { fail "always: run $n made no file"; return; }
  done
  expect_ask touch /workspace/other >/dev/null || { fail "always covers only that exact command"; return; }
  id=$(expect_ask touch /workspace/t3) || { fail "not asked: $id"; return; }
  px reject "$PX_ID" "$id" >/dev/null || { fail "reject"; return; }
  out=$(expect_ask touch /workspace/t3) || { fail "a rejected command ran"; return; }
  assert_ne "$id" "$out" "asks anew after a rejection" || return
  [ ! -e "$PX_WS/t3" ] || { fail "a rejected command ran"; return; }
  px approve "$PX_ID" "$id" 2>"$WORK/err" && { fail "a rejected approval was approved"; return; }
  assert_eq 1 "$(wc -l <"$WORK/err")" "one error line" || return
  assert_contains "$(cat "$WORK/err")" "already rejected" "says why"
}

p_expiry() {
  local id
  id=$(expect_ask touch /workspace/t4) || { fail "not asked: $id"; return; }
  sleep 3
  px approve "$PX_ID" "$id" 2>"$WORK/err" && { fail "an expired approval was approved"; return; }
  assert_contains "$(cat "$WORK/err")" "expired" "says it expired" || return
  id=$(expect_ask touch /workspace/t4) || { fail "not asked again: $id"; return; }
  px approve "$PX_ID" "$id" --once >/dev/null || { fail "approve"; return; }
  sleep 3
  expect_ask touch /workspace/t4 >/dev/null || { fail "an expired once approval still ran"; return; }
  [ ! -e "$PX_WS/t4" ] || fail "an expired approval ran"
}

p_limits_and_shell() {
  local rc=0 t0=$SECONDS out
  px exec "$PX_ID" -- sleep 30 || rc=$?
  assert_eq 124 "$rc" "max_execution_time_seconds is the default timeout" || return
  [ $((SECONDS - t0)) -lt 20 ] || { fail "the timeout took $((SECONDS - t0)) s"; return; }
  assert_eq $((300 * 1024)) "$(px exec --shell "$PX_ID" -- 'ulimit -v')" "max_memory_mb is the exec's RLIMIT_AS" || return
  # --shell keeps its state across allowed execs; a chain with a denied part runs nothing.
  px exec --shell "$PX_ID" -- 'cd /workspace && grep needle seed > m1' || { fail "--shell allowed"; return; }
  [ -s "$PX_WS/m1" ] || { fail "the allowed --shell command made no file"; return; }
  rc=0; px exec --shell "$PX_ID" -- 'grep needle seed > m2; curl x' >/dev/null 2>&1 || rc=$?
  assert_eq 77 "$rc" "--shell chain with a denied part" || return
  [ ! -e "$PX_WS/m2" ] || { fail "part of a denied --shell chain ran"; return; }
  # Under a policy the next exec is judged without the carried variables: only those it lets
  # through unasked come back (polred2 F2). Approved once, the export runs; then CI (inert) is
  # carried, the control that the state came back, and XDG_CONFIG_HOME is not. (Without a
  # policy a user's own names carry: session_test's CARRIED.)
  local id script='export XDG_CONFIG_HOME=/workspace/cfg CI=1'
  rc=0; out=$(px exec --shell "$PX_ID" -- "$script" 2>/dev/null) || rc=$?
  assert_eq 78 "$rc" "export of a config path is asked about ($out)" || return
  id=$(jq -er 'select(.decision == "ask") | .approval' <<<"$out") || { fail "no approval id: $out"; return; }
  px approve "$PX_ID" "$id" --once >/dev/null || { fail "approve"; return; }
  px exec --shell "$PX_ID" -- "$script" || { fail "the approved export"; return; }
  assert_eq "[][1]" "$(px exec --shell "$PX_ID" -- 'echo "[$XDG_CONFIG_HOME][$CI]"')" "carried under a policy"
}

# Red team: the persistent shell's saved state (/tmp/.sandshim-shell/env) is sourced by the
# next --shell exec, so whoever writes it runs code the policy never judged. A direct write is
# asked about (the guard); this writes it through a link the policy cannot see, from a loop of
# allowed builtins left running after the exec's own save. Only cp and builtins are allowed;
# `id` is denied. Positive control: `id` itself is refused and makes no marker.
p_shell_state_link() {
  local out
  out=$(px exec "$PX_ID" -- sh -c 'id > /workspace/ran-id' 2>/dev/null); [ $? -eq 77 ] || return $(fail "control: id not denied: $out")
  [ ! -e "$PX_WS/ran-id" ] || return $(fail "control: the denied id ran")
  px exec --shell "$PX_ID" -- 'echo first' >/dev/null || return $(fail "first --shell exec")
  # cp -s makes /workspace/notes -> the state file: a read of the state and a write in the workspace.
  # (The state is now the host's: the file is not there, and cp may fail; the policy must not.)
  local rc=0
  out=$(px exec --shell "$PX_ID" -- 'cp -s /tmp/.sandshim-shell/env /workspace/notes' 2>&1) || rc=$?
  [ $rc -ne 77 ] && [ $rc -ne 78 ] || return $(fail "cp -s refused: $out")
  px exec --shell "$PX_ID" -- 'for a in 1 2 3 4 5 6 7 8 9 0; do for b in 1 2 3 4 5 6 7 8 9 0; do for c in 1 2 3 4 5 6 7 8 9 0; do
      echo "id > /workspace/ran-id" > /workspace/notes; done; done; done </dev/null >/dev/null 2>&1 &' >/dev/null 2>&1
  sleep 2
  px exec --shell "$PX_ID" -- 'echo second' >/dev/null 2>&1
  [ ! -e "$PX_WS/ran-id" ] || return $(fail "a denied command ran through the shell state: $(cat "$PX_WS/ran-id")")
  # The same with a value that would run it if the state were ever evaluated: it stays data.
  px exec --shell "$PX_ID" -- 'export V="\$(id > /workspace/ran-id)"' >/dev/null 2>&1 || return $(fail "export refused")
  assert_eq '$(id > /workspace/ran-id)' "$(px exec --shell "$PX_ID" -- 'echo "$V"')" "the value comes back as data" || return
  [ ! -e "$PX_WS/ran-id" ] || fail "a denied command ran through a carried value"
}

# Red team: the persistent shell's saved state (/tmp/.sandshim-shell/env) is sourced by the
# next --shell exec, so whoever writes it runs code the policy never judged. A direct write is
# asked about (the guard); this writes it through a link the policy cannot see, from a loop of
# allowed builtins left running after the exec's own save. Only cp and builtins are allowed;
# `id` is denied. Positive control: `id` itself is refused and makes no marker.
p_shell_state_link() {
  local out
  out=$(px exec "$PX_ID" -- sh -c 'id > /workspace/ran-id' 2>/dev/null); [ $? -eq 77 ] || return $(fail "control: id not denied: $out")
  [ ! -e "$PX_WS/ran-id" ] || return $(fail "control: the denied id ran")
  px exec --shell "$PX_ID" -- 'echo first' >/dev/null || return $(fail "first --shell exec")
  # cp -s makes /workspace/notes -> the state file: a read of the state and a write in the workspace.
  px exec --shell "$PX_ID" -- 'cp -s /tmp/.sandshim-shell/env /workspace/notes' >/dev/null 2>&1 ||
    return $(fail "cp -s refused: $(px exec --shell "$PX_ID" -- 'cp -s /tmp/.sandshim-shell/env /workspace/notes' 2>&1)")
  px exec --shell "$PX_ID" -- 'for a in 1 2 3 4 5 6 7 8 9 0; do for b in 1 2 3 4 5 6 7 8 9 0; do for c in 1 2 3 4 5 6 7 8 9 0; do
      echo "id > /workspace/ran-id" > /workspace/notes; done; done; done </dev/null >/dev/null 2>&1 &' >/dev/null 2>&1
  sleep 2
  px exec --shell "$PX_ID" -- 'echo second' >/dev/null 2>&1
  [ ! -e "$PX_WS/ran-id" ] || fail "a denied command ran through the shell state: $(cat "$PX_WS/ran-id")"
}

# #33: deny file rules are mounts (a masked path, a read-only bind), so they hold for reads and
# writes the command policy lets through: /proc/self/root, a symlink and a hard link made
# earlier, a directory read whole (approved), an allowed interpreter. Positive control: the same
# session made with SANDSHIM_TEST_NO_POLICY_MOUNTS=1 sees the secret and changes the file.
cat >"$WORK/policy-mounts.json" <<'P'
{"permissions": {"allow": ["shell(cat:*)", "shell(awk:*)", "shell(sh:*)"],
   "deny": ["file(read:${WORKSPACE}/secret.txt)", "file(write:${WORKSPACE}/locked.txt)"]}}
P
# with_mount_session BACKEND OFF CHECK: OFF=1 makes the session without the mounts.
with_mount_session() {
  local rc=0 off=$2
  PX_BE=$1 PX_ID=$(uniq_name m)
  PX_WS=$WORK/ws-$PX_ID
  mkdir -p "$PX_WS" && chmod 777 "$PX_WS"
  echo KEY-S3CRET >"$PX_WS/secret.txt" && echo original >"$PX_WS/locked.txt" && chmod 666 "$PX_WS"/*.txt
  ln -s secret.txt "$PX_WS/soft" && ln "$PX_WS/secret.txt" "$PX_WS/hard" && ln "$PX_WS/locked.txt" "$PX_WS/hardw"
  if [ "$off" = 1 ]; then
    SANDSHIM_TEST_NO_POLICY_MOUNTS=1 px create "$PX_ID" --rootfs "$WORK/rootfs" --workspace "$PX_WS" --policy "$WORK/policy-mounts.json" >/dev/null
  else
    px create "$PX_ID" --rootfs "$WORK/rootfs" --workspace "$PX_WS" --policy "$WORK/policy-mounts.json" >/dev/null
  fi || { fail "create"; return; }
  "$3" "$off" || rc=$?
  px delete "$PX_ID" >/dev/null 2>&1
  return $rc
}

p_file_mounts() {
  local off=$1 want_read=0 want_write=0 n=0 id out
  [ "$off" = 1 ] && want_read=5 want_write=3
  # Reads the command policy lets through (each is allowed: no path it names is denied).
  for cmd in 'cat /proc/self/root/workspace/secret.txt' 'cat /workspace/soft' 'cat /workspace/hard' \
             "awk 'BEGIN{while((getline l < (\"/workspace/sec\" \"ret.txt\"))>0) print l}'"; do
    case $cmd in awk*) approve_ask sh -c "$cmd" || { fail "awk getline: not asked"; return; } ;; esac
    out=$(px exec "$PX_ID" -- sh -c "$cmd" 2>/dev/null)
    case $out in *KEY-S3CRET*) n=$((n + 1)) ;; esac
  done
  # A directory read whole asks; approved, it runs, and still meets the mask.
  id=$(expect_ask grep -r KEY /workspace) || { fail "grep -r of the workspace was not asked: $id"; return; }
  px approve "$PX_ID" "$id" --once >/dev/null || { fail "approve"; return; }
  out=$(px exec "$PX_ID" -- grep -r KEY /workspace 2>/dev/null)
  case $out in *KEY-S3CRET*) n=$((n + 1)) ;; esac
  assert_eq "$want_read" "$n" "reads of the denied file that saw it (of 5)" || return
  n=0
  for cmd in 'echo changed > /proc/self/root/workspace/locked.txt' 'echo changed > /workspace/hardw' \
             "awk 'BEGIN{print \"changed\" > (\"/workspace/lo\" \"cked.txt\")}'"; do
    case $cmd in awk*) approve_ask sh -c "$cmd" || { fail "awk print >: not asked"; return; } ;; esac
    px exec "$PX_ID" -- sh -c "$cmd" >/dev/null 2>&1
    grep -q changed "$PX_WS/locked.txt" && n=$((n + 1))
    echo original >"$PX_WS/locked.txt"
  done
  assert_eq "$want_write" "$n" "writes of the denied file that changed it (of 3)"
}

# #33: deny rules at execve. `id` is denied; sh and awk are allowed (awk programs that run
# something are asked about, and approved here). Each way below reaches id
# past the front door — a script file run by sh (approved: sh FILE asks), `env id` inside it, a
# copy of the busybox binary under another name (busybox-copy: busybox runs argv[1]'s applet
# under a name that starts with its own), awk's system() — and the guard refuses it
# at execve: the marker id would fill stays empty. Positive control: the same execs with
# SANDSHIM_TEST_NO_EXEC_GUARD=1 (test-only, at exec) run id. python3 is not in the test image.
# The script names /bin/id: busybox's sh runs a bare `id` as its own applet, in-process, with
# no exec at all (docs/POLICY.md, limits of the exec guard); dash and bash exec it.
cat >"$WORK/policy-exec.json" <<'P'
{"permissions": {"allow": ["shell(sh:*)", "shell(awk:*)", "shell(sleep:*)", "shell(ps:*)", "shell(kill:*)"],
   "deny": ["shell(id:*)"]}}
P
with_exec_session() {
  local rc=0
  PX_BE=$1 PX_ID=$(uniq_name x)
  PX_WS=$WORK/ws-$PX_ID
  mkdir -p "$PX_WS" && chmod 777 "$PX_WS"
  px create "$PX_ID" --rootfs "${PX_ROOTFS:-$WORK/rootfs}" --workspace "$PX_WS" --policy "$WORK/policy-exec.json" \
    ${PX_USER:+--user "$PX_USER"} >/dev/null ||
    { fail "create"; return; }
  "$2" "${3:-}" || rc=$?
  px delete "$PX_ID" >/dev/null 2>&1
  return $rc
}
gx() { if [ "$GX_OFF" = 1 ]; then SANDSHIM_TEST_NO_EXEC_GUARD=1 px exec "$PX_ID" -- "$@"; else px exec "$PX_ID" -- "$@"; fi; }
# ran_by_guard WAY...: each marker $PX_WS/ran-WAY filled with the guard off (the positive
# control: id ran that way), empty with it on (refused).
ran_by_guard() {
  local way
  for way; do
    if [ "$GX_OFF" = 1 ]; then
      [ -s "$PX_WS/ran-$way" ] || { fail "control: id did not run through $way"; return 1; }
    else
      [ ! -s "$PX_WS/ran-$way" ] || { fail "id ran through $way: $(cat "$PX_WS/ran-$way")"; return 1; }
    fi
  done
}

p_exec_deny() {
  local id n
  GX_OFF=$1
  printf '/bin/id > /workspace/ran-wrapper\n' >"$PX_WS/wrapper.sh"
  printf 'env id > /workspace/ran-env\n' >"$PX_WS/env.sh"
  printf 'cp /bin/busybox /tmp/busybox-copy && /tmp/busybox-copy id > /workspace/ran-copy\n' >"$PX_WS/copy.sh"
  printf 'sh /workspace/wrapper.sh; sh /workspace/env.sh; sh /workspace/copy.sh\n' >"$PX_WS/all.sh"
  id=$(expect_ask sh /workspace/all.sh) || { fail "sh FILE was not asked about: $id"; return; }
  px approve "$PX_ID" "$id" --always >/dev/null || { fail "approve"; return; }
  gx sh /workspace/all.sh >/dev/null 2>&1
  approve_ask awk 'BEGIN { system("id > /workspace/ran-awk") }' || { fail "awk system() was not asked about"; return; }
  gx awk 'BEGIN { system("id > /workspace/ran-awk") }' >/dev/null 2>&1
  ran_by_guard wrapper env copy awk || return
  [ "$GX_OFF" = 1 ] && return
  n=$(audit execve | jq -s 'map(select(.rule == "shell(id:*)" and .decision == "deny" and (.from | length) > 0)) | length')
  [ "$n" -ge 4 ] || { fail "execve refusals audited: $n of 4"; return; }
  audit execve | jq -se 'any(.[]; .exec_argv == ["awk", "BEGIN { system(\"id > /workspace/ran-awk\") }"])' >/dev/null ||
    fail "the audit names the session exec a refusal came from"
}

# Root in the sandbox against the guard's own files (polred2 F12): /.sshim renamed away and a
# guard of its own put in its place would run every later exec unguarded. /.sshim is a
# read-only mount of mount points now: the rename fails (EBUSY), nothing is written in it, and
# id is still refused afterwards. Control: the same root renames a directory of its own at /.
p_exec_tools_pinned() {
  local id
  GX_OFF=0
  printf '%s\n' 'mkdir /pin-a && mv /pin-a /pin-b && echo ok > /workspace/pin-control' \
    'mv /.sshim /.sshim-gone && echo moved > /workspace/pin-moved' \
    'echo x > /.sshim/guard && echo wrote > /workspace/pin-wrote' \
    'mkdir /.sshim/x && echo made > /workspace/pin-made' \
    '/bin/id > /workspace/ran-after' >"$PX_WS/pin.sh"
  id=$(expect_ask sh /workspace/pin.sh) || { fail "sh FILE was not asked about: $id"; return; }
  px approve "$PX_ID" "$id" --always >/dev/null || { fail "approve"; return; }
  gx sh /workspace/pin.sh >/dev/null 2>&1
  [ -s "$PX_WS/pin-control" ] || { fail "control: root could not rename a directory of its own at /"; return; }
  local f
  for f in pin-moved pin-wrote pin-made ran-after; do
    [ ! -s "$PX_WS/$f" ] || { fail "$f: $(cat "$PX_WS/$f")"; return; }
  done
}

# python3's os.system() reaches id through /bin/sh (dash in the Debian image, which execs it):
# refused at execve, audited. Control: the guard off, id runs. The image is the Debian tools
# image (lib/image.sh), built once by sandshim's rootfs builder and cached.
debian_image() {
  [ -n "${DEBIAN_IMAGE:-}" ] || DEBIAN_IMAGE=$("$SANDSHIM_BIN" --root "$ROOT" rootfs build "$DEBIAN_TOOLS_IMAGE" 2>"$WORK/debian-image.log")
  [ -d "$DEBIAN_IMAGE" ]
}
p_exec_python() {
  local code="import os; os.system('id > /workspace/ran-py')" id
  GX_OFF=$1
  id=$(expect_ask python3 -c "$code") || { fail "python3 -c was not asked about: $id"; return; }
  px approve "$PX_ID" "$id" --once >/dev/null || { fail "approve"; return; }
  gx python3 -c "$code" >/dev/null 2>&1
  if [ "$GX_OFF" = 1 ]; then
    [ -s "$PX_WS/ran-py" ] || fail "control: id did not run through os.system"
    return
  fi
  [ ! -s "$PX_WS/ran-py" ] || { fail "id ran through python3's os.system: $(cat "$PX_WS/ran-py")"; return; }
  audit execve | jq -se 'any(.[]; .rule == "shell(id:*)" and .decision == "deny" and .exec_argv[0] == "python3")' >/dev/null ||
    fail "the refusal is audited with the python3 exec it came from: $(audit execve)"
}

# The dynamic loader run directly runs the program it is given (polred RC14): its file and argv[0]
# are not id's. Judged as that program, through its options (--argv0 names argv[0] only).
# Control: the guard off, both run id. The busybox test image is static (no loader): Debian's.
p_exec_loader() {
  local ld=/lib64/ld-linux-x86-64.so.2
  GX_OFF=$1
  approve_ask awk "BEGIN { system(\"$ld /usr/bin/id > /workspace/ran-ld\") }" || { fail "awk system() not asked"; return; }
  gx awk "BEGIN { system(\"$ld /usr/bin/id > /workspace/ran-ld\") }" >/dev/null 2>&1
  approve_ask awk "BEGIN { system(\"$ld --inhibit-cache --argv0 ls /usr/bin/id > /workspace/ran-ldopt\") }" ||
    { fail "awk system() not asked"; return; }
  gx awk "BEGIN { system(\"$ld --inhibit-cache --argv0 ls /usr/bin/id > /workspace/ran-ldopt\") }" >/dev/null 2>&1
  ran_by_guard ld ldopt || return
  [ "$GX_OFF" = 1 ] && return
  audit execve | jq -se --arg ld "$ld" 'any(.[]; .rule == "shell(id:*)" and .path == $ld)' >/dev/null ||
    fail "the loader's refusal is audited with its path: $(audit execve)"
}

p_exec_ordinary() {
  local rc=0 runner t0=$SECONDS
  GX_OFF=0
  local out
  out=$(gx sh -c 'echo hi; exit 7') || rc=$?
  assert_eq "hi 7" "$out $rc" "output and exit code through the guard" || return
  rc=0; gx sh -c 'kill -TERM $$' || rc=$?
  assert_eq 143 "$rc" "a fatal signal is 128+n through the guard" || return
  "$SANDSHIM_BIN" --root "$ROOT" --backend "$PX_BE" session exec "$PX_ID" -- sleep 1004 &
  runner=$!
  sleep 2
  kill -TERM "$runner"
  rc=0; wait "$runner" || rc=$?
  assert_eq 143 "$rc" "TERM to sandshim reaches the command under the guard" || return
  rc=0; t0=$SECONDS
  px exec --timeout 2s "$PX_ID" -- sh -c 'sleep 1001 & sleep 1002' || rc=$?
  assert_eq 124 "$rc" "--timeout under the guard" || return
  [ $((SECONDS - t0)) -lt 20 ] || { fail "the timeout took $((SECONDS - t0)) s"; return; }
  local ps
  ps=$(gx ps)
  assert_not_contains "$ps" "sleep 100" "the timed-out tree is gone" || return
  assert_contains "$ps" "/.sshim/guard" "execs run under the guard"
}

check_bad_policies() {
  local be=$1 rc=0 ws=$WORK/ws-bad id
  mkdir -p "$ws"
  echo '{"permissions": {"allow": ["shel(ls:*)"]}}' >"$WORK/bad.json"
  id=$(uniq_name bad)
  "$SANDSHIM_BIN" --root "$ROOT" --backend "$be" session create "$id" --rootfs "$WORK/rootfs" --workspace "$ws" \
    --policy "$WORK/bad.json" 2>"$WORK/err" || rc=$?
  [ "$rc" -ne 0 ] || { fail "a bad policy was accepted"; return; }
  assert_eq 1 "$(wc -l <"$WORK/err")" "one error line" || return
  assert_contains "$(cat "$WORK/err")" "shel(ls:*)" "names the rule" || return
  rc=0
  "$SANDSHIM_BIN" --root "$ROOT" --backend "$be" session create "$id" --rootfs "$WORK/rootfs" --workspace "$ws" \
    --policy "$WORK/policy.json" --network host 2>"$WORK/err" || rc=$?
  [ "$rc" -ne 0 ] || { fail "network(outbound:*) denied yet the host network was given"; return; }
  assert_contains "$(cat "$WORK/err")" "network(outbound:*)" "says why" || return
  assert_eq "" "$(find "$ROOT/@sessions" -mindepth 1 ! -type d 2>/dev/null)" "nothing left behind"
}

check_policy_verb() {
  local out rc=0
  out=$("$SANDSHIM_BIN" policy check --policy "$WORK/policy.json" --sources "$WORK/sources.json" -- sh -c 'grep x a; eval "$Y"') || rc=$?
  assert_eq "78 ask" "$rc $(jq -r .decision <<<"$out")" "policy check: eval of a variable asks" || return
  rc=0; out=$("$SANDSHIM_BIN" policy check --policy "$WORK/policy.json" -- grep -r x .) || rc=$?
  assert_eq "0 allow" "$rc $(jq -r .decision <<<"$out")" "policy check: allowed"
}

# shellcheck source=tests/integration/policy_exec_paths.sh
. "$(dirname "$0")/policy_exec_paths.sh"

backends=${SESSION_BACKEND:-gvisor native}
for be in $backends; do
  command -v runsc >/dev/null || [ "$be" = native ] || continue
  run_check "policy on $be: denied is 77 + JSON with the rule, and nothing of it runs" with_policy_session "$be" "$WORK/policy.json" p_deny
  run_check "policy on $be: ask is 78 + approval id; approve --once runs it once" with_policy_session "$be" "$WORK/policy.json" p_once
  run_check "policy on $be: --always lasts, reject never runs" with_policy_session "$be" "$WORK/policy.json" p_always_and_reject
  run_check "policy on $be: an expired approval asks again" with_policy_session "$be" "$WORK/policy-short.json" p_expiry
  run_check "policy on $be: sources' timeout and memory limit; --shell chains" with_policy_session "$be" "$WORK/policy.json" p_limits_and_shell
  run_check "policy on $be: the shell state is not a way round the policy (link + loop)" with_policy_session "$be" "$WORK/policy-cp.json" p_shell_state_link
  run_check "policy on $be: bad policies fail create and leave nothing" check_bad_policies "$be"
  run_check "policy on $be: deny file rules are mounts (proc root, links, dir read, interpreter)" with_mount_session "$be" 0 p_file_mounts
  run_check "policy on $be: control: the same without the mounts sees and changes the files" with_mount_session "$be" 1 p_file_mounts
  run_check "policy on $be: deny rules hold at execve (script, env, copied binary, awk system())" with_exec_session "$be" p_exec_deny 0
  run_check "policy on $be: control: the same with the guard off runs id each way" with_exec_session "$be" p_exec_deny 1
  run_check "policy on $be: under the guard: output, exit codes, TERM, --timeout ends the tree" with_exec_session "$be" p_exec_ordinary
  PX_USER=0 run_check "policy on $be: root cannot move the guard's /.sshim away nor write in it" with_exec_session "$be" p_exec_tools_pinned
  if command -v debootstrap >/dev/null && debian_image; then
    PX_ROOTFS=$DEBIAN_IMAGE run_check "policy on $be: a deny rule holds through python3 -c 'os.system(...)'" with_exec_session "$be" p_exec_python 0
    PX_ROOTFS=$DEBIAN_IMAGE run_check "policy on $be: control: python3's os.system runs id with the guard off" with_exec_session "$be" p_exec_python 1
    PX_ROOTFS=$DEBIAN_IMAGE run_check "policy on $be: the dynamic loader run directly is judged as its program" with_exec_session "$be" p_exec_loader 0
    PX_ROOTFS=$DEBIAN_IMAGE run_check "policy on $be: control: the loader runs id with the guard off" with_exec_session "$be" p_exec_loader 1
    for c in shebang procfd race; do  # policy_exec_paths.sh: the file the kernel starts (polred2 F7, F8, F10)
      PX_ROOTFS=$DEBIAN_IMAGE run_check "policy on $be: exec guard judges the started file ($c)" with_exec_session "$be" p_exec_$c 0
      PX_ROOTFS=$DEBIAN_IMAGE run_check "policy on $be: control: $c runs id with the guard off" with_exec_session "$be" p_exec_$c 1
    done
  else
    log "skip: python3 checks (no Debian tools image: $(tail -1 "$WORK/debian-image.log" 2>/dev/null))"
  fi
done
run_check "policy check verb" check_policy_verb
finish_checks
