#!/usr/bin/env bash
# Session pause and resume (#35, docs/SESSIONS.md "Pause and resume"). Where the runsc can
# restore what it checkpoints (both Debian 12's and 13's, measured), a paused session has no
# process left on the host and its snapshot is root's alone; resume brings back its kernel
# (clock, init tree), /tmp and the writable layer (what execs started: 2024's restore kills
# it, 2022's keeps it); a crash in either verb leaves what gc cleans. Where it cannot (here: a
# runsc whose restore fails, a wrapper), pause refuses with one line and the session works
# on. doctor must say which, from its probe. Bad input: one line, non-zero, nothing left.
set -u
. "$(dirname "$0")/lib/image.sh"
require_root
require_cmds jq pgrep flock
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"

# What the runsc under test is known to do (docs/RUNSC.md: both tested versions restore a
# session); the probe must find the same.
SNAPSHOTS=${EXPECT_SNAPSHOTS:-yes}

WORK=$(mktemp -d /tmp/sandshim-snap.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$SANDSHIM_BIN" --root "$ROOT" session delete --force "$s" >/dev/null 2>&1; done'
build_rootfs "$WORK/rootfs" >/dev/null 2>&1 || die "rootfs"
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
on_exit 'grep -o "$ROOT/@sessions/[^ ]*" /proc/self/mountinfo | sort -r | xargs -r -n1 umount -l 2>/dev/null'
leaks_init "$WORK" "$ROOT"
leaks_baseline
AFTER_CHECK_HOOK=leaks_since_baseline

ss() { "$SANDSHIM_BIN" --root "$ROOT" --backend "${BE:-gvisor}" session "$@"; }
# Host processes of the sandboxes under our root (sandbox, gofer): one session at a time.
runsc_procs() { pgrep -f -- "$ROOT/@runsc" | wc -l; }
no_runsc_procs() { [ "$(runsc_procs)" -eq 0 ]; }
new_session() { # ID: a gVisor session with its own workspace
  mkdir -p "$WORK/ws-$1" && chmod 777 "$WORK/ws-$1"
  ss create "$1" --rootfs "$WORK/rootfs" --workspace "$WORK/ws-$1" --memory 128m >/dev/null
}
# A process holding state in memory: its counter only ever lives in the shell, /tmp/count is
# its report, and its pid is in /tmp/holder.pid (a file in the sandbox's memory).
start_holder() { # ID
  ss exec "$1" -- sh -c 'sh -c '"'"'echo $$ >/tmp/holder.pid; n=0; while :; do n=$((n+1)); echo $n >/tmp/count; sleep 0.2; done'"'"' >/dev/null 2>&1 &'
}
count_of() { ss exec "$1" -- cat /tmp/count; }
one_line() { # FILE WHAT
  [ "$(wc -l <"$1")" -eq 1 ] || { fail "$2: not one line: $(head -c 300 "$1")"; return 1; }
}

check_doctor() {
  local detail
  detail=$("$SANDSHIM_BIN" doctor --json | jq -r '.[] | select(.area == "gvisor") | .detail')
  if [ "$SNAPSHOTS" = yes ]; then assert_contains "$detail" "snapshots work" "doctor on this runsc"
  else assert_contains "$detail" "snapshots do not work" "doctor on this runsc"; fi
}

# What survives is the sandbox's kernel: its clock, the init's process tree, every file in its
# memory (/tmp, the writable layer). What does not: a process a `session exec` started, which
# gVisor's restore kills (its caller is gone; docs/SESSIONS.md), checked here as documented.
check_pause_resume() {
  local s up1 up2 c1 rc=0 t0
  s=$(uniq_name p)
  new_session "$s" || { fail "create"; return; }
  start_holder "$s" || { fail "start the holder"; return; }
  ss exec "$s" -- sh -c 'echo in-memory > /tmp/tmpfs-marker' || { fail "write /tmp"; return; }
  ss exec -u 0 "$s" -- sh -c 'echo kept > /etc/layer-marker' || { fail "write the layer"; return; }
  sleep 2
  up1=$(ss exec "$s" -- cut -d. -f1 /proc/uptime)
  [ "${up1:-0}" -ge 2 ] || { fail "uptime before pause: $up1"; return; }
  [ "$(runsc_procs)" -gt 0 ] || { fail "positive control: no runsc process of the session before pause"; return; }
  t0=$(now_ms)
  assert_eq "$s	paused" "$(ss pause "$s")" "pause" || return
  log "pause took $(($(now_ms) - t0)) ms"
  wait_until 10 no_runsc_procs || { fail "runsc processes after pause: $(pgrep -af -- "$ROOT/@runsc" | head -3)"; return; }
  assert_eq paused "$(ss list --json | jq -r --arg s "$s" '.[] | select(.id == $s) | .status')" "list says paused" || return
  assert_eq "700 root" "$(stat -c '%a %U' "$ROOT/@sessions/$s/snapshot")" "the snapshot is root's alone" || return
  ss exec "$s" -- true 2>"$WORK/err" && { fail "exec into a paused session worked"; return; }
  one_line "$WORK/err" "exec into a paused session" || return
  assert_contains "$(cat "$WORK/err")" "is paused (session resume $s)" "exec into a paused session" || return
  t0=$(now_ms)
  assert_eq "$s	running" "$(ss resume "$s")" "resume" || return
  log "resume took $(($(now_ms) - t0)) ms"
  [ "$(runsc_procs)" -gt 0 ] || { fail "no runsc process after resume"; return; }
  # A fresh boot would count from 0: the restored kernel goes on from before the pause.
  up2=$(ss exec "$s" -- cut -d. -f1 /proc/uptime)
  [ "${up2:-0}" -ge "$up1" ] || { fail "the sandbox was booted afresh: uptime $up1 s before, $up2 s after"; return; }
  assert_eq in-memory "$(ss exec "$s" -- cat /tmp/tmpfs-marker)" "/tmp (in the sandbox's memory)" || return
  assert_eq kept "$(ss exec "$s" -- cat /etc/layer-marker)" "the writable layer" || return
  # An exec's process: 2024's restore kills it, 2022's keeps it; kept, it must go on counting.
  if ss exec "$s" -- ps -o args | grep -q "n=0"; then
    c1=$(count_of "$s"); sleep 1
    [ "$(count_of "$s")" -gt "$c1" ] || { fail "an exec'd process came back stuck"; return; }
    log "this runsc keeps the processes execs started across a restore"
  fi
  ss exec "$s" -- sh -c 'echo after > /workspace/out' || rc=$?
  assert_eq 0 "$rc" "exec after resume" || return
  assert_eq after "$(cat "$WORK/ws-$s/out")" "the workspace after resume" || return
  [ ! -e "$ROOT/@sessions/$s/snapshot" ] || { fail "the snapshot outlived the resume"; return; }
  assert_eq "pause resume" "$(jq -r 'select(.event == "pause" or .event == "resume") | .event' "$WORK/audit/$s.jsonl" | xargs)" "audit" || return
  ss delete "$s" || fail "delete"
}

# Fork: a snapshot of a running session (which runs on), two sessions restored from it with
# the source's flags and their own workspaces: each has the snapshot's /tmp and then its own.
check_fork() {
  local s f1 f2 f snap
  s=$(uniq_name src); f1=$(uniq_name fa); f2=$(uniq_name fb); snap=$(uniq_name snap)
  new_session "$s" && ss exec "$s" -- sh -c 'echo warm > /tmp/state' || { fail "create"; return; }
  assert_eq "$snap	$s	running" "$(ss snapshot "$s" "$snap")" "snapshot" || return
  assert_eq "700 root" "$(stat -c '%a %U' "$ROOT/@snapshots/$snap")" "the snapshot is root's alone" || return
  assert_eq "$snap $s" "$(ss snapshot --list --json | jq -r --arg n "$snap" '.[] | select(.name == $n and .bytes > 0) | "\(.name) \(.source)"')" "snapshot --list" || return
  ss snapshot "$s" "$snap" 2>/dev/null && { fail "a taken snapshot name was accepted"; return; }
  for f in "$f1" "$f2"; do
    mkdir -p "$WORK/ws-$f" && chmod 777 "$WORK/ws-$f"
    ss create "$f" --rootfs "$WORK/rootfs" --workspace "$WORK/ws-$f" --memory 128m --from-snapshot "$snap" >/dev/null ||
      { fail "create $f from the snapshot"; return; }
    assert_eq warm "$(ss exec "$f" -- cat /tmp/state)" "$f has the snapshot's /tmp" || return
    ss exec "$f" -- sh -c "echo $f > /tmp/state; echo $f > /workspace/who" || { fail "exec in $f"; return; }
    assert_eq "$f" "$(cat "$WORK/ws-$f/who")" "$f's own workspace" || return
  done
  assert_eq warm "$(ss exec "$s" -- cat /tmp/state)" "the source keeps its own /tmp" || return
  assert_eq "$f1" "$(ss exec "$f1" -- cat /tmp/state)" "a fork keeps its own /tmp" || return
  ss create "$(uniq_name g)" --rootfs "$WORK/rootfs" --workspace "$WORK/ws-$f1" --from-snapshot "nope-$$" 2>"$WORK/err" &&
    { fail "an unknown snapshot was accepted"; return; }
  one_line "$WORK/err" "unknown snapshot" && assert_contains "$(cat "$WORK/err")" "snapshot nope-$$ does not exist" "unknown snapshot" || return
  ss delete "$s" "$f1" "$f2" || { fail "delete"; return; }
  ss snapshot --rm "$snap" || { fail "snapshot --rm"; return; }
  [ ! -e "$ROOT/@snapshots/$snap" ] || { fail "the snapshot outlived --rm"; return; }
  ! ss snapshot --list | grep -q "^$snap	" || fail "listed after --rm"
}

# A pool whose members are restored from a snapshot (pool file "from_snapshot"): a claim hands
# out the warm state; a claim the members cannot serve (an existing workspace: members keep the
# source's plain layout) is a restore too; the snapshot cannot be removed under the pool;
# `pool drain --delete` leaves nothing, and then the snapshot goes.
check_snapshot_pool() {
  local s snap p c1 c2 out
  s=$(uniq_name ps); snap=$(uniq_name psnap); p=$(uniq_name pool); c1=$(uniq_name pc); c2=$(uniq_name pd)
  px() { "$SANDSHIM_BIN" --root "$ROOT" --backend gvisor pool "$@"; }
  new_session "$s" && ss exec "$s" -- sh -c 'echo warm > /tmp/state' || { fail "create the source"; return; }
  ss snapshot "$s" "$snap" >/dev/null && ss delete "$s" || { fail "snapshot the source"; return; }
  printf '{"size": 2, "low_water": 1, "profile": {"rootfs": "%s", "memory": "128m"}, "from_snapshot": "nope-%s"}\n' \
    "$WORK/rootfs" "$$" >"$WORK/pool-$p.json"
  px define "$p" "$WORK/pool-$p.json" 2>"$WORK/err" && { fail "a pool from an unknown snapshot was defined"; return; }
  one_line "$WORK/err" "unknown snapshot" && assert_contains "$(cat "$WORK/err")" "snapshot nope-$$ does not exist" "pool define" || return
  printf '{"size": 2, "low_water": 1, "profile": {"rootfs": "%s", "memory": "128m"}, "from_snapshot": "%s"}\n' \
    "$WORK/rootfs" "$snap" >"$WORK/pool-$p.json"
  px define "$p" "$WORK/pool-$p.json" >/dev/null && px fill "$p" || { fail "define and fill"; return; }
  assert_eq "2 $snap" "$(px status "$p" --json | jq -r '.[0] | "\(.ready) \(.from_snapshot)"')" "two members ready" || return
  # A member is restored, not booted: its /tmp holds the source's file before any claim.
  out=$(ss create --pool "$p" --json "$c1") || { fail "claim"; return; }
  assert_eq true "$(jq -r .pool.claimed <<<"$out")" "claimed from a member" || return
  assert_eq warm "$(ss exec "$c1" -- cat /tmp/state)" "the claim has the warm state" || return
  ss exec "$c1" -- sh -c "echo $c1 > /tmp/state; echo $c1 > /workspace/who" || { fail "exec in the claim"; return; }
  assert_eq "$c1" "$(cat "$(jq -r .workspace <<<"$out")/who")" "the claim's own workspace on the host" || return
  mkdir -p "$WORK/ws-$c2" && chmod 777 "$WORK/ws-$c2"
  out=$(ss create --pool "$p" --workspace "$WORK/ws-$c2" --json "$c2") || { fail "claim with an existing workspace"; return; }
  assert_eq false "$(jq -r .pool.claimed <<<"$out")" "an existing workspace is a miss" || return
  assert_eq warm "$(ss exec "$c2" -- cat /tmp/state)" "the miss is restored from the snapshot too" || return
  assert_eq "$c1" "$(ss exec "$c1" -- cat /tmp/state)" "each claim its own /tmp" || return
  ss snapshot --rm "$snap" 2>"$WORK/err" && { fail "the snapshot was removed under its pool"; return; }
  one_line "$WORK/err" "snapshot --rm under a pool" && assert_contains "$(cat "$WORK/err")" "is used by pool $p" "snapshot --rm" || return
  ss delete "$c1" "$c2" || { fail "delete the claims"; return; }
  flock "$ROOT/@pool/$p/.fill.lock" true  # a refill the claims started
  px drain "$p" --delete || { fail "pool drain --delete"; return; }
  [ ! -e "$ROOT/@pool/$p" ] || { fail "the pool outlived drain --delete"; return; }
  wait_until 10 no_runsc_procs || { fail "sandbox processes after drain: $(pgrep -af -- "$ROOT/@runsc" | head -3)"; return; }
  ss snapshot --rm "$snap" || fail "snapshot --rm after the pool is gone"
}

# Credential contexts across pause/resume (docs/CONTEXTS.md): the image carries the session's
# container only; each context's container ends at pause and runs again at resume as it was
# made. Its identity must be what it was: user, --env, HOME and what is in it, proxy
# credentials, secret placeholder, and the relay's guard on that placeholder (the default
# context carrying it is refused, `secret-context`). No context value in a host process's
# environ while paused or after. Control: the default context is a different identity.
ctx_identity() { ss exec --context plat "$1" -- sh -c 'id -u; echo "$K"; echo "$HOME"; cat "$HOME/h"; echo "$T"; env | grep -i _proxy= | sort'; }
host_environ_has() { grep -l -a -F -e "$1" /proc/[0-9]*/environ 2>/dev/null | grep -v "/proc/$$/" | grep -q .; }
guard_rule() { # ID PLACEHOLDER: the relay's rule for the default context carrying it
  ss exec "$1" -- sh -c "wget -q -O- --header 'X: $2' http://t.test/ 2>&1" >/dev/null
  sleep 0.3
  jq -r 'select(.event == "egress" and .context == "default") | .rule' "$WORK/audit/$1.jsonl" | tail -1
}
check_pause_contexts() {
  local s canary=envcanary-$$ before after ph t0 pid
  s=$(uniq_name x)
  printf 'sess-v-%s\n' $$ >"$WORK/sv"; printf 'ctx-v-%s\n' $$ >"$WORK/cv"; chmod 600 "$WORK/sv" "$WORK/cv"
  mkdir -p "$WORK/ws-$s" && chmod 777 "$WORK/ws-$s"
  ss create "$s" --rootfs "$WORK/rootfs" --workspace "$WORK/ws-$s" --memory 128m --network proxy --allow-private \
    --allow-domain t.test --egress-resolve t.test=127.0.0.1 --secret "S:host=t.test" --secret-file "S=$WORK/sv" >/dev/null ||
    { fail "create"; return; }
  K=$canary ss context create "$s" plat --env K --user 1001 --allow-domain t.test \
    --secret "T:host=t.test:80,scheme=http" --secret-file "T=$WORK/cv" >/dev/null || { fail "context create"; return; }
  ss exec --context plat "$s" -- sh -c 'echo home-kept > $HOME/h' || { fail "write the context's HOME"; return; }
  before=$(ctx_identity "$s")
  assert_contains "$before" "1001
$canary
/home/context
home-kept
sshim-secret-" "the context's identity before" || return
  assert_not_contains "$(ss exec "$s" -- sh -c 'id -u; echo "K=$K"; echo "$HOME"')" "$canary" "control: the default context is another identity" || return
  ph=$(ss exec --context plat "$s" -- sh -c 'echo $T')
  assert_eq secret-context "$(guard_rule "$s" "$ph")" "control: the guard before the pause" || return
  env "SNAPCANARY=$canary" sleep 30 & pid=$!
  wait_until 5 host_environ_has "$canary"; local seen=$?
  kill "$pid"; wait "$pid" 2>/dev/null
  assert_eq 0 "$seen" "positive control: the environ scan sees a host process holding the value" || return
  t0=$(now_ms)
  assert_eq "$s	paused" "$(ss pause "$s")" "pause with contexts" || return
  log "pause with a context took $(($(now_ms) - t0)) ms"
  wait_until 10 no_runsc_procs || { fail "runsc processes after pause: $(pgrep -af -- "$ROOT/@runsc" | head -3)"; return; }
  assert_eq "700 root" "$(stat -c '%a %U' "$ROOT/@sessions/$s/snapshot")" "the snapshot is root's alone" || return
  ! host_environ_has "$canary" || { fail "a host process holds the context's value while paused"; return; }
  t0=$(now_ms)
  assert_eq "$s	running" "$(ss resume "$s")" "resume with contexts" || return
  log "resume with a context took $(($(now_ms) - t0)) ms"
  assert_eq "default running
plat running" "$(ss context list "$s" --json | jq -r '.[] | "\(.name) \(.status)"')" "contexts after resume" || return
  after=$(ctx_identity "$s")
  assert_eq "$before" "$after" "the context's identity after resume" || return
  assert_eq secret-context "$(guard_rule "$s" "$ph")" "the guard on the context's placeholder after resume" || return
  ss exec "$s" -- sh -c 'echo after > /workspace/out' && assert_eq after "$(cat "$WORK/ws-$s/out")" "the default context after resume" || return
  ! host_environ_has "$canary" || { fail "a host process holds the context's value after resume"; return; }
  ss delete "$s" || fail "delete"
}

# A context claimed from a spare (its container and path key made before it had a name) comes
# back as itself too: its env, and the relay still knows its connections as its own (egress
# audit: context "plat"; control: the default context's are "default").
egress_context_of() { # ID CONTEXT-FLAG...: the relay's name for the context a request came from
  local s=$1; shift
  ss exec "$@" "$s" -- sh -c 'wget -q -O- http://t.test/ 2>&1' >/dev/null
  sleep 0.3
  jq -r 'select(.event == "egress") | .context' "$WORK/audit/$s.jsonl" | tail -1
}
check_pause_spare_context() {
  local s
  s=$(uniq_name y)
  mkdir -p "$WORK/ws-$s" && chmod 777 "$WORK/ws-$s"
  ss create "$s" --rootfs "$WORK/rootfs" --workspace "$WORK/ws-$s" --memory 128m --network proxy --allow-private \
    --allow-domain t.test --egress-resolve t.test=127.0.0.1 --context-spares 2 >/dev/null || { fail "create"; return; }
  K=spare-env ss context create "$s" plat --env K --user 1001 --allow-domain t.test >/dev/null || { fail "context create"; return; }
  assert_eq "true" "$(jq -r 'select(.event == "context-create" and .context == "plat") | .spare' "$WORK/audit/$s.jsonl")" "claimed from a spare" || return
  assert_eq plat "$(egress_context_of "$s" --context plat)" "the relay knows the context before" || return
  assert_eq default "$(egress_context_of "$s")" "control: and the default context as default" || return
  ss pause "$s" >/dev/null && ss resume "$s" >/dev/null || { fail "pause and resume"; return; }
  assert_eq "1001 spare-env" "$(ss exec --context plat "$s" -- sh -c 'echo $(id -u) $K')" "its user and env after resume" || return
  assert_eq plat "$(egress_context_of "$s" --context plat)" "the relay knows the context after resume" || return
  assert_eq default "$(egress_context_of "$s")" "and the default context after resume" || return
  ss delete "$s" || fail "delete"
}

check_paused_delete() {
  local s
  s=$(uniq_name d)
  new_session "$s" && ss pause "$s" >/dev/null || { fail "create and pause"; return; }
  ss delete "$s" || { fail "delete of a paused session"; return; }
  [ ! -e "$ROOT/@sessions/$s" ] || fail "its directory outlived it"
}

check_stop_start_paused() {
  local s
  s=$(uniq_name t)
  new_session "$s" && start_holder "$s" && ss pause "$s" >/dev/null || { fail "create and pause"; return; }
  assert_eq "$s	running" "$(ss start "$s")" "start resumes a paused session" || return
  ss exec "$s" -- test -e /tmp/holder.pid || { fail "start of a paused session lost its state"; return; }
  ss pause "$s" >/dev/null && ss stop "$s" >/dev/null || { fail "pause then stop"; return; }
  [ ! -e "$ROOT/@sessions/$s/snapshot" ] || { fail "stop kept the snapshot"; return; }
  ss start "$s" >/dev/null && ss exec "$s" -- true || { fail "a fresh start after stop"; return; }
  ss delete "$s" || fail "delete"
}

# A crash (SIGKILL at a crash point) in either verb: gc removes what it left, the session
# then works (a pause that died after the checkpoint ended the sandbox: start boots it anew).
check_crashes() {
  local s rc=0 out
  s=$(uniq_name c)
  new_session "$s" || { fail "create"; return; }
  SANDSHIM_FAULT=session.pause.after-checkpoint ss pause "$s" >/dev/null 2>&1 || rc=$?
  assert_eq 137 "$rc" "killed mid-pause" || return
  out=$(ss gc)
  assert_contains "$out" "snapshot and sandbox of a pause that did not finish" "gc after a pause that died" || return
  [ ! -e "$ROOT/@sessions/$s/snapshot" ] || { fail "gc left the snapshot"; return; }
  ss start "$s" >/dev/null && ss exec "$s" -- true || { fail "start after a pause that died"; return; }
  start_holder "$s" && ss pause "$s" >/dev/null || { fail "pause"; return; }
  rc=0
  SANDSHIM_FAULT=session.resume.after-restore ss resume "$s" >/dev/null 2>&1 || rc=$?
  assert_eq 137 "$rc" "killed mid-resume" || return
  assert_eq paused "$(ss list --json | jq -r --arg s "$s" '.[] | select(.id == $s) | .status')" "still paused" || return
  [ "$(runsc_procs)" -gt 0 ] || { fail "positive control: the half-resumed sandbox runs"; return; }
  out=$(ss gc)
  assert_contains "$out" "sandbox of a resume that did not finish" "gc after a resume that died" || return
  wait_until 10 no_runsc_procs || { fail "gc left the half-resumed sandbox"; return; }
  ss resume "$s" >/dev/null && ss exec "$s" -- test -e /tmp/holder.pid || { fail "resume after a resume that died"; return; }
  ss delete "$s" || fail "delete"
}

# The same crashes with a context: a pause that died removes the contexts as stop does (gc),
# a resume that died has its context containers ended with its sandbox; the next resume
# brings the context back.
check_crashes_contexts() {
  local s rc=0 out
  s=$(uniq_name cc)
  new_session "$s" && ss context create "$s" plat >/dev/null || { fail "create"; return; }
  SANDSHIM_FAULT=session.pause.after-contexts ss pause "$s" >/dev/null 2>&1 || rc=$?
  assert_eq 137 "$rc" "killed mid-pause" || return
  out=$(ss gc)
  assert_contains "$out" "snapshot and sandbox of a pause that did not finish" "gc after a pause that died" || return
  assert_eq "" "$(ss context list "$s" --json | jq -r '.[] | select(.name == "plat") | .name')" "the contexts went as at stop" || return
  wait_until 10 no_runsc_procs || { fail "gc left sandbox processes"; return; }
  ss start "$s" >/dev/null && ss context create "$s" plat >/dev/null && ss pause "$s" >/dev/null || { fail "start, context, pause"; return; }
  rc=0
  SANDSHIM_FAULT=session.resume.after-contexts ss resume "$s" >/dev/null 2>&1 || rc=$?
  assert_eq 137 "$rc" "killed mid-resume" || return
  out=$(ss gc)
  assert_contains "$out" "sandbox of a resume that did not finish" "gc after a resume that died" || return
  wait_until 10 no_runsc_procs || { fail "gc left the half-resumed sandbox: $(pgrep -af -- "$ROOT/@runsc" | head -3)"; return; }
  ss resume "$s" >/dev/null && ss exec --context plat "$s" -- true || { fail "resume after a resume that died"; return; }
  ss delete "$s" || fail "delete"
}

# A snapshot that died leaves .tmp-NAME: gc removes it, but never while a snapshot is being
# made (it holds the snapshots directory's lock shared; control: gc then leaves it).
check_gc_tmp() {
  local d=$ROOT/@snapshots/.tmp-dead-$$ out
  mkdir -p "$d/image" && echo x >"$d/image/pages"
  flock -s "$ROOT/@snapshots" "$SANDSHIM_BIN" --root "$ROOT" session gc >/dev/null
  [ -d "$d" ] || { fail "gc removed a .tmp- a live snapshot may own"; return; }
  out=$(ss gc)
  assert_contains "$out" ".tmp-dead-$$" "gc says what it removed" || return
  [ ! -e "$d" ] || fail "gc left the .tmp- of a snapshot that died"
}

# A runsc that cannot restore: the real one behind a wrapper that fails `restore` (and
# nothing else). The probe finds it out; pause refuses before anything changes.
check_refused() {
  local s c1 c2 cfg=$WORK/config-norestore.json w=$WORK/runsc-norestore
  printf '#!/bin/sh\nfor a in "$@"; do [ "$a" = restore ] && { echo "restore disabled by the test" >&2; exit 1; }; done\nexec %q "$@"\n' \
    "$TEST_RUNSC" >"$w" && chmod 755 "$w"
  jq -n --arg a "$WORK/audit" --arg r "$w" --arg c "$WORK/cache" '{audit_dir: $a, runsc: $r, cache_dir: $c}' >"$cfg"
  s=$(uniq_name r)
  SANDSHIM_CONFIG=$cfg new_session "$s" && SANDSHIM_CONFIG=$cfg start_holder "$s" || { fail "create"; return; }
  sleep 1
  c1=$(SANDSHIM_CONFIG=$cfg count_of "$s")
  SANDSHIM_CONFIG=$cfg ss pause "$s" >/dev/null 2>"$WORK/err" && { fail "pause worked on a runsc that cannot restore"; return; }
  one_line "$WORK/err" "refused pause" || return
  assert_contains "$(cat "$WORK/err")" "cannot pause: this runsc cannot checkpoint and restore a sandbox (probed: restore: " "refused pause" || return
  assert_eq running "$(ss list --json | jq -r --arg s "$s" '.[] | select(.id == $s) | .status')" "still running" || return
  [ ! -e "$ROOT/@sessions/$s/snapshot" ] || { fail "a refused pause left a snapshot"; return; }
  sleep 1
  c2=$(SANDSHIM_CONFIG=$cfg count_of "$s")
  [ "${c2:-0}" -gt "${c1:-0}" ] || { fail "the holder stopped: $c1 then $c2"; return; }
  SANDSHIM_CONFIG=$cfg ss delete "$s" || fail "delete"
}

check_bad_input() {
  local s rc=0
  s=$(uniq_name b)
  ss pause "nope-$$" 2>"$WORK/err" && { fail "pause of an unknown session"; return; }
  one_line "$WORK/err" "unknown session" && assert_contains "$(cat "$WORK/err")" "does not exist" "unknown session" || return
  new_session "$s" || { fail "create"; return; }
  ss resume "$s" 2>"$WORK/err" || rc=$?
  [ "$rc" -ne 0 ] || { fail "resume of a running session"; return; }
  one_line "$WORK/err" "resume of a running session" || return
  assert_contains "$(cat "$WORK/err")" "not paused" "resume of a running session" || return
  ss stop "$s" >/dev/null && ! ss pause "$s" 2>/dev/null || { fail "pause of a stopped session"; return; }
  [ ! -e "$ROOT/@sessions/$s/snapshot" ] || { fail "a refused pause left a snapshot"; return; }
  ss delete "$s" || fail "delete"
}

check_native_refused() {
  local s
  s=$(uniq_name n)
  mkdir -p "$WORK/ws-$s" && chmod 777 "$WORK/ws-$s"
  BE=native ss create "$s" --rootfs "$WORK/rootfs" --workspace "$WORK/ws-$s" >/dev/null || { fail "native create"; return; }
  BE=native ss pause "$s" 2>"$WORK/err" && { fail "pause of a native session"; return; }
  one_line "$WORK/err" "native pause" || return
  assert_contains "$(cat "$WORK/err")" "native backend cannot checkpoint" "native pause" || return
  BE=native ss exec "$s" -- true || { fail "the native session after the refusal"; return; }
  BE=native ss delete "$s" || fail "delete"
}

run_check "snapshot: doctor says whether this runsc's snapshots work ($SNAPSHOTS)" check_doctor
if [ "$SNAPSHOTS" = yes ]; then
  run_check "snapshot: pause ends every host process, resume brings back the kernel, /tmp, the layer" check_pause_resume
  run_check "snapshot: pause/resume keeps a credential context's identity, secrets guard included" check_pause_contexts
  run_check "snapshot: a context claimed from a spare comes back as itself, egress identity included" check_pause_spare_context
  run_check "snapshot: a paused session deletes" check_paused_delete
  run_check "snapshot: fork, two sessions from one snapshot, each its own" check_fork
  run_check "snapshot: start resumes a paused session; stop drops the snapshot" check_stop_start_paused
  run_check "snapshot: a pool restored from a snapshot hands out the warm state; drain --delete cleans up" check_snapshot_pool
  run_check "snapshot: a crash mid-pause or mid-resume, then gc: nothing left, the session works" check_crashes
  run_check "snapshot: the same crashes with a context, then gc" check_crashes_contexts
  run_check "snapshot: gc removes a dead snapshot's .tmp-, not a live one's" check_gc_tmp
fi
run_check "snapshot: pause refused up front where the runsc cannot restore, the session runs on" check_refused
run_check "snapshot: bad input is one line, non-zero, nothing left" check_bad_input
run_check "snapshot: a native session's pause is refused" check_native_refused
check_dev_null() { assert_eq "0:0 crw-rw-rw-" "$(stat -c '%u:%g %A' /dev/null)" "host /dev/null owner and mode"; }
run_check "snapshot: the host's /dev/null is still root's" check_dev_null
AFTER_CHECK_HOOK=""
run_check "snapshot: nothing left since the start" leaks_since_start
finish_checks
