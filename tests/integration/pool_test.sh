#!/usr/bin/env bash
# Warm pools (docs/POOL.md): pre-booted members claimed by `session create --pool`, with the
# session's id, name, env and a new workspace bound at claim time; misses served cold (an
# existing workspace, an empty pool, a burst bigger than the pool); nothing of one tenant in
# the next; gc for dead and stale members; SIGKILL at every claim and refill crash point.
set -u
. "$(dirname "$0")/lib/image.sh"
require_root
require_cmds jq flock
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
command -v runsc >/dev/null || skip_all "runsc not installed"

WORK=$(make_workdir)
ROOT=$WORK/root
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'for p in $(ls "$ROOT/@pool" 2>/dev/null); do "$SANDSHIM_BIN" --root "$ROOT" pool drain "$p" --delete >/dev/null 2>&1; done'
on_exit 'for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$SANDSHIM_BIN" --root "$ROOT" session delete "$s" >/dev/null 2>&1; done'
build_rootfs "$WORK/rootfs" >/dev/null 2>&1 || die "rootfs"
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
LEAKS=("$CHECK_LEAKS" --match "$WORK" --root "$ROOT")
no_leaks() { "${LEAKS[@]}" --wait 10 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
# Whatever a check left (it failed halfway): its sessions deleted and pools drained, by the
# same verbs the checks use, before the leak check judges them.
clean_then_check() {
  local s p
  for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do
    "$SANDSHIM_BIN" --root "$ROOT" session delete "$s" >/dev/null 2>&1
  done
  for p in $(ls "$ROOT/@pool" 2>/dev/null); do "$SANDSHIM_BIN" --root "$ROOT" pool drain "$p" --delete >/dev/null 2>&1; done
  no_leaks
}
AFTER_CHECK_HOOK=clean_then_check

sx() { "$SANDSHIM_BIN" --root "$ROOT" --backend "$BE" "$@"; }

# define_pool NAME SIZE [LOW_WATER] [EXTRA_PROFILE_JSON]: defined and filled.
define_pool() {
  local f=$WORK/$1.pool.json
  printf '{"size": %s, "low_water": %s, "profile": {"rootfs": "%s", "env": {"FROM_POOL": "yes"}%s}}\n' \
    "$2" "${3:-$2}" "$WORK/rootfs" "${4:-}" >"$f"
  sx pool define "$1" "$f" >/dev/null || return 1
  sx pool fill "$1"
}
ready() { sx pool status "$1" --json | jq '.[0].ready'; }
# The background refill is done (the fill lock is free) and the pool is full again.
wait_refilled() { # POOL
  local i
  for i in $(seq 1 150); do
    flock -n "$ROOT/@pool/$1/.fill.lock" true && [ "$(ready "$1")" = "$(sx pool status "$1" --json | jq '.[0].size')" ] && return 0
    sleep 0.2
  done
  fail "pool $1 not refilled: $(sx pool status "$1" --json)"
}
end_pool() { # POOL: its sessions deleted, the pool drained and removed
  local s
  # Claimed sessions, and cold misses whose new workspace the pool's parent holds.
  for s in $(sx session list --json | jq -r --arg p "$1" --arg w "$ROOT/@pool/$1/" \
    '.[] | select(.profile.pool == $p or (.workspace | startswith($w))) | .id'); do sx session delete "$s" >/dev/null; done
  sx pool drain "$1" --delete
}

check_claim_binds() {
  local p=bind-$BE ws=$WORK/ws-bind-$BE id=b-$BE out j
  define_pool "$p" 2 || { fail "define/fill"; return; }
  assert_eq 2 "$(ready "$p")" "members ready after fill" || return
  j=$(sx session create --pool "$p" --name "nm-$id" --env GREETING=hi --workspace "$ws" "$id" --json) || { fail "claim"; return; }
  assert_eq true "$(jq .pool.claimed <<<"$j")" "served by a member: $j" || return
  out=$(sx session exec "nm-$id" -- sh -c 'echo "$GREETING|$FROM_POOL|$(id -u)|$(pwd)"; echo w > /workspace/f') || { fail "exec by name"; return; }
  assert_eq "hi|yes|1000|/workspace" "$out" "env bound at claim, the pool's env, user, cwd" || return
  assert_eq w "$(cat "$ws/f")" "the new workspace is the sandbox's /workspace" || return
  assert_eq "$ws" "$(sx session inspect "$id" --json | jq -r .workspace)" "record names the workspace" || return
  assert_eq claim "$(jq -sr 'map(select(.event=="claim"))[0].event' "$WORK/audit/$id.jsonl")" "audit line for the claim" || return
  ! grep -q '"hi"' "$WORK/audit/$id.jsonl" || { fail "an env value reached the audit"; return; }
  # No --workspace: the member's own, renamed to <workspace_parent>/<id>.
  j=$(sx session create --pool "$p" "$id-2" --json) || { fail "claim without workspace"; return; }
  assert_eq true "$(jq .pool.claimed <<<"$j")" "second member claimed" || return
  assert_eq "$ROOT/@pool/$p/workspaces/$id-2" "$(jq -r .workspace <<<"$j")" "member's own workspace" || return
  sx session exec "$id-2" -- true || { fail "exec in the second"; return; }
  # A claimed session is a session: stop and start keep its workspace and bound env.
  sx session stop "$id" >/dev/null && sx session start "$id" >/dev/null || { fail "stop/start a claimed session"; return; }
  assert_eq "hi|w" "$(sx session exec "$id" -- sh -c 'echo "$GREETING|$(cat /workspace/f)"')" "after a restart" || return
  wait_refilled "$p" || return
  assert_eq 2 "$(sx pool status "$p" --json | jq '.[0].claims')" "claims counted" || return
  assert_contains "$(sx metrics)" "sandshim_pool_claims_total{pool=\"$p\"} 2" "metrics" || return
  sx session delete "$id" "$id-2" >/dev/null || { fail "delete"; return; }
  end_pool "$p"
}

# A canary of one tenant, in every place a session can write, never reaches a later one.
check_canary() {
  local p=canary-$BE i out
  define_pool "$p" 2 || { fail "define/fill"; return; }
  sx session create --pool "$p" can-a-$BE >/dev/null || { fail "claim a"; return; }
  sx session exec can-a-$BE -- sh -c 'echo CANARY > /workspace/c; echo CANARY > /tmp/c; echo CANARY > /home/user/c' &&
    sx session exec -u 0 can-a-$BE -- sh -c 'echo CANARY > /c' || { fail "canary write"; return; }
  # Positive control: the same probe sees the canary where it was written.
  out=$(sx session exec can-a-$BE -- sh -c 'cat /workspace/c /tmp/c /c /home/user/c 2>/dev/null; ls / /workspace /tmp')
  assert_eq 4 "$(grep -c CANARY <<<"$out")" "probe sees a's canaries" || return
  sx session delete can-a-$BE >/dev/null
  for i in 1 2 3; do
    sx session create --pool "$p" "can-$i-$BE" >/dev/null || { fail "claim $i"; return; }
    out=$(sx session exec "can-$i-$BE" -- sh -c 'cat /workspace/c /tmp/c /c /home/user/c 2>/dev/null; ls / /workspace /tmp')
    assert_not_contains "$out" CANARY "claim $i sees a's canary" || return
    sx session delete "can-$i-$BE" >/dev/null
  done
  wait_refilled "$p" || return
  end_pool "$p"
}

# An existing workspace (docs/POOL.md): gVisor binds it below the member's shared parent at
# claim time; native serves it cold (its workspace is idmapped). Either way the session sees the
# files at /workspace, writes land in the directory with the user's ids, nothing of the previous
# tenant is there, and delete leaves the directory and no mount behind.
check_existing_claim() {
  local p=exist-$BE ws=$WORK/ws-exist-$BE id=ex-$BE j out
  define_pool "$p" 2 0 || { fail "define/fill"; return; }
  sx session create --pool "$p" "exprev-$BE" >/dev/null &&
    sx session exec "exprev-$BE" -- sh -c 'echo CANARY > /workspace/c; echo CANARY > /tmp/c' || { fail "previous tenant"; return; }
  sx session delete "exprev-$BE" >/dev/null || { fail "delete previous"; return; }
  mkdir -p "$ws" && chown 1000:1000 "$ws" && echo old > "$ws/keep" && chown 1000:1000 "$ws/keep"
  j=$(sx session create --pool "$p" --workspace "$ws" --env K=v "$id" --json) || { fail "claim: $j"; return; }
  if [ "$BE" = native ]; then
    assert_eq false "$(jq .pool.claimed <<<"$j")" "native: an existing workspace is served cold" || return
    assert_contains "$(jq -r .pool.miss <<<"$j")" "native" "the miss says why" || return
  else
    assert_eq true "$(jq .pool.claimed <<<"$j")" "gVisor: the existing workspace is claimed: $j" || return
    [ -L "$ROOT/@sessions/$id/wsroot/ws" ] && { fail "bind target is a link"; return; }
    grep -q " $ROOT/@sessions/$id/wsroot/ws " /proc/self/mountinfo || { fail "positive control: no bind at wsroot/ws"; return; }
  fi
  out=$(sx session exec "$id" -- sh -c 'echo "$(cat /workspace/keep)|$K|$(pwd)|$(cd && pwd)"; echo new > /workspace/new; cat /workspace/c /tmp/c 2>/dev/null; ls /workspace') ||
    { fail "exec: $out"; return; }
  assert_eq "old|v|/workspace|/workspace" "$(head -1 <<<"$out")" "files, env, cwd and HOME as a cold session's" || return
  assert_not_contains "$out" CANARY "the previous tenant's canary" || return
  assert_eq new "$(cat "$ws/new")" "a write inside lands in the existing directory" || return
  assert_eq "1000:1000" "$(stat -c %u:%g "$ws/new")" "with the session user's ids" || return
  assert_eq "$ws" "$(sx session inspect "$id" --json | jq -r .workspace)" "record names the workspace" || return
  sx session delete "$id" >/dev/null || { fail "delete"; return; }
  assert_eq "old|new" "$(cat "$ws/keep")|$(cat "$ws/new")" "delete keeps the workspace's files" || return
  ! grep -q "$ROOT/" /proc/self/mountinfo || ! grep "$ROOT/" /proc/self/mountinfo | grep -q "wsroot/ws " ||
    { fail "a workspace bind stays: $(grep "$ROOT/" /proc/self/mountinfo | grep wsroot)"; return; }
  rm -rf "$ws"
  end_pool "$p"
}

# Existing workspace, empty pool, a workspace on another filesystem: cold, never an error.
check_misses_cold() {
  local p=miss-$BE ws=$WORK/ws-existing-$BE j
  define_pool "$p" 1 0 || { fail "define/fill"; return; }
  mkdir -p "$ws" && chown 1000:1000 "$ws" && echo old > "$ws/keep"
  j=$(sx session create --pool "$p" --workspace "$ws" --env K=v miss1-$BE --json) || { fail "existing workspace"; return; }
  if [ "$BE" = native ]; then
    assert_eq false "$(jq .pool.claimed <<<"$j")" "existing workspace is a miss on native" || return
    assert_contains "$(jq -r .pool.miss <<<"$j")" "existing workspace" "the miss says why" || return
  else
    assert_eq true "$(jq .pool.claimed <<<"$j")" "existing workspace claimed on gVisor: $j" || return
  fi
  assert_eq "old|v|yes" "$(sx session exec miss1-$BE -- sh -c 'echo "$(cat /workspace/keep)|$K|$FROM_POOL"')" "cold session has the workspace, env and profile" || return
  sx session create --pool "$p" miss2-$BE >/dev/null || { fail "claim the one member"; return; }
  j=$(sx session create --pool "$p" --workspace /dev/shm/sandshim-pool-$$-x miss3-$BE --json) || { fail "other fs"; return; }
  assert_contains "$(jq -r .pool.miss <<<"$j")" "not on the pool's filesystem" "another filesystem is a miss" || return
  # Its workspace is a mount point while it lives (workspace_guard.h): the session goes first.
  sx session delete miss3-$BE >/dev/null && rmdir /dev/shm/sandshim-pool-$$-x || { fail "miss3's workspace left"; return; }
  assert_eq 2 "$(sx pool status "$p" --json | jq '.[0].misses')" "misses counted" || return
  sx session create --pool nosuch x-$BE 2>"$WORK/err" && { fail "an unknown pool was accepted"; return; }
  assert_contains "$(cat "$WORK/err")" "pool nosuch does not exist" "unknown pool: one clear line" || return
  sx session create --pool "$p" --memory 1g x-$BE 2>"$WORK/err" && { fail "--memory with --pool accepted"; return; }
  assert_eq "" "$(ls "$ROOT/@sessions" | grep -v '^@' | grep -c "^x-" | grep -v 0)" "bad input left no session" || return
  end_pool "$p"
}

# A proxy-mode pool: the claim restarts the member's relay with the session's own rules, id
# and audit file (pool_egress.h). The relay answers inside the sandbox and names the rule.
check_proxy_claim() {
  local p=proxy-$BE id=px-$BE out pid j
  define_pool "$p" 1 0 ',"network": "proxy", "allow_domains": ["pool-rule.test"]' || { fail "define/fill"; return; }
  sx session create --pool "$p" --allow-domain claim-rule.test "$id" --json >"$WORK/px.json" || { fail "claim"; return; }
  assert_eq true "$(jq .pool.claimed "$WORK/px.json")" "claimed" || return
  pid=$(jq -r .pid "$ROOT/@sessions/$id/relay.pid") || { fail "no relay pid file in the session"; return; }
  out=$(tr '\0' ' ' <"/proc/$pid/cmdline")
  assert_contains "$out" "--allow-domain claim-rule.test" "the claim's rule reaches the relay" || return
  assert_contains "$out" "--allow-domain pool-rule.test" "the pool's rule stays" || return
  assert_contains "$out" "--session $id" "the relay audits under the session's id" || return
  out=$(sx session exec "$id" -- sh -c 'h=${http_proxy#http://}; printf "GET http://elsewhere.test/ HTTP/1.0\r\n\r\n" | nc -w 5 ${h%:*} ${h##*:} | head -1')
  assert_contains "$out" "403" "the session's relay refuses an unlisted host from inside" || return
  grep -q "\"session\":\"$id\".*\"decision\":\"deny\"" "$WORK/audit/$id.jsonl" || { fail "no relay audit line for the session"; return; }
  sx session delete "$id" >/dev/null || { fail "delete"; return; }
  # Secrets need the session CA in the sandbox from boot: a claim with them is served cold.
  j=$(TOKVAL=s3cr3t-value sx session create --pool "$p" --allow-domain api.test --secret TOK:host=api.test --secret-env TOK=TOKVAL "$id-s" --json) ||
    { fail "claim with a secret"; return; }
  assert_eq false "$(jq .pool.claimed <<<"$j")" "a claim with secrets is a miss" || return
  assert_contains "$(jq -r .pool.miss <<<"$j")" "secrets" "the miss says why" || return
  assert_contains "$(sx session exec "$id-s" -- sh -c 'echo $TOK')" "sshim-secret-" "the cold session has the placeholder" || return
  sx session delete "$id-s" >/dev/null || { fail "delete the secret session"; return; }
  end_pool "$p"
}

# A claim binds the command policy (#19): judged at every exec of the claimed session.
check_policy_claim() {
  local p=policy-$BE id=pol-$BE j rc
  define_pool "$p" 1 0 || { fail "define/fill"; return; }
  echo '{"permissions": {"allow": ["shell(echo:*)"], "deny": ["shell(rm:*)"]}}' >"$WORK/policy.json"
  echo '{"permissions": {"allow": [' >"$WORK/bad-policy.json"
  sx session create --pool "$p" --policy "$WORK/bad-policy.json" bad-$id 2>"$WORK/err" && { fail "a bad policy was accepted"; return; }
  assert_contains "$(cat "$WORK/err")" "--policy" "bad policy: a clear line" || return
  assert_eq 1 "$(ready "$p")" "a refused claim took no member" || return
  j=$(sx session create --pool "$p" --policy "$WORK/policy.json" "$id" --json) || { fail "claim with a policy"; return; }
  assert_eq true "$(jq .pool.claimed <<<"$j")" "served by a member" || return
  assert_eq ok "$(sx session exec "$id" -- echo ok)" "an allowed command runs" || return
  sx session exec "$id" -- rm -f /workspace/x >/dev/null 2>&1; rc=$?
  assert_eq 77 "$rc" "a denied command is refused" || return
  sx session exec "$id" -- ls / >/dev/null 2>&1; rc=$?
  assert_eq 78 "$rc" "an unlisted command asks" || return
  sx session delete "$id" >/dev/null || { fail "delete"; return; }
  end_pool "$p"
}

# A burst of N parallel claims against a pool of SIZE: N sessions, no error, misses cold.
check_burst() { # N SIZE PARALLEL
  local n=$1 size=$2 par=$3 p=burst-$BE claimed
  define_pool "$p" "$size" 0 || { fail "define/fill"; return; }
  seq 1 "$n" | xargs -P "$par" -I{} "$SANDSHIM_BIN" --root "$ROOT" --backend "$BE" session create --pool "$p" \
    "burst-{}-$BE" --json >"$WORK/burst.out" 2>"$WORK/burst.err"
  assert_eq "" "$(cat "$WORK/burst.err")" "no error in the burst" || return
  assert_eq "$n" "$(jq -s length "$WORK/burst.out")" "every create answered" || return
  claimed=$(jq -s 'map(select(.pool.claimed)) | length' "$WORK/burst.out")
  # The refills the misses start serve part of the burst too.
  [ "$claimed" -ge "$size" ] || { fail "only $claimed of the pool's $size members claimed"; return; }
  assert_eq "$((n - claimed))" "$(jq -s 'map(select(.pool.claimed | not)) | length' "$WORK/burst.out")" "the rest served cold" || return
  log "burst on $BE: $claimed of $n claimed, $((n - claimed)) cold"
  assert_eq "$n" "$(sx session list --json | jq --arg b "$BE" '[.[] | select(.id | endswith("-" + $b)) | select(.id | startswith("burst-"))] | length')" "$n sessions" || return
  seq 1 "$n" | xargs -P "$par" -I{} "$SANDSHIM_BIN" --root "$ROOT" --backend "$BE" session exec "burst-{}-$BE" -- true ||
    { fail "an exec in the burst's sessions"; return; }
  seq 1 "$n" | xargs -P "$par" -I{} "$SANDSHIM_BIN" --root "$ROOT" session delete "burst-{}-$BE" || { fail "delete"; return; }
  end_pool "$p"
}

# gc: a member whose sandbox died, members of an older definition, a member workspace
# whose member is gone.
check_gc() {
  local p=gc-$BE m pid
  define_pool "$p" 2 || { fail "define/fill"; return; }
  m=$(ls "$ROOT/@pool/$p/members" | head -1)
  pid=$(jq -r .init.pid "$ROOT/sess-$m/state.json" 2>/dev/null)
  [ -n "$pid" ] && [ "$pid" != null ] || { fail "no sandbox pid for $m"; return; }
  kill -9 "$pid"
  mkdir "$ROOT/@pool/$p/workspaces/.member-m-000000000000"
  sx pool gc >"$WORK/gc.out" || { fail "pool gc: $(cat "$WORK/gc.out")"; return; }
  assert_contains "$(cat "$WORK/gc.out")" "member $m" "gc names the dead member" || return
  [ ! -e "$ROOT/@pool/$p/members/$m" ] || { fail "dead member still there"; return; }
  [ ! -e "$ROOT/@pool/$p/workspaces/.member-m-000000000000" ] || { fail "orphan workspace kept"; return; }
  assert_eq 1 "$(ready "$p")" "the live member stays" || return
  # A new definition: the old member is never handed out, fill replaces it.
  define_pool "$p" 1 1 ',"memory": "256m"' || { fail "redefine/fill"; return; }
  assert_eq 1 "$(ls "$ROOT/@pool/$p/members" | wc -l)" "stale member drained" || return
  sx session create --pool "$p" gc-c-$BE --json >"$WORK/gc.json" || { fail "claim"; return; }
  assert_eq 256m "$(jq -r .profile.memory "$WORK/gc.json" | sed 's/268435456/256m/')" "claimed member has the new profile" || return
  sx session delete gc-c-$BE >/dev/null
  end_pool "$p"
}

# SIGKILL at each claim point: gc undoes the claim, the member is never reused, nothing stays.
check_claim_crash() { # POINT [existing]
  local p=crash-$BE id=crash-$BE ws=$WORK/ws-crash-$BE rc=0
  define_pool "$p" 1 0 || { fail "define/fill"; return; }
  [ "${2:-}" = existing ] && { mkdir -p "$ws" && echo mine > "$ws/keep"; }
  SANDSHIM_FAULT=$1 sx session create --pool "$p" --name "nm-$id" --workspace "$ws" "$id" >/dev/null 2>&1 || rc=$?
  assert_eq 137 "$rc" "killed at $1" || return
  # Positive control: the crash left a claim behind for gc to undo.
  assert_eq 1 "$(ls "$ROOT/@pool/$p/claims" | wc -l)" "intent left by the crash" || return
  # `session gc` (what cron runs) covers pools as `pool gc` does.
  if [ "$1" = pool.claim.before-record ]; then sx session gc >"$WORK/gc.out"; else sx pool gc >"$WORK/gc.out"; fi ||
    { fail "gc: $(cat "$WORK/gc.out")"; return; }
  assert_eq 0 "$(ls "$ROOT/@pool/$p/claims" | wc -l)" "intent undone" || return
  [ ! -e "$ROOT/@sessions/$id" ] || { fail "half-claimed session dir stays"; return; }
  [ ! -e "$ROOT/@sessions/@names/nm-$id" ] || { fail "name stays"; return; }
  if [ "${2:-}" = existing ]; then
    assert_eq mine "$(cat "$ws/keep")" "the existing workspace is kept" || return
    ! grep "$ROOT/" /proc/self/mountinfo | grep -q "wsroot/ws " || { fail "the workspace bind stays"; return; }
  else
    [ ! -e "$ws" ] || { fail "workspace $ws stays"; return; }
  fi
  assert_eq 0 "$(ls "$ROOT/@pool/$p/members" | wc -l)" "the member is gone, never reused" || return
  sx session create --pool "$p" --workspace "$ws" "$id" >/dev/null || { fail "create after gc"; return; }
  sx session delete "$id" >/dev/null
  rm -rf "$ws"
  end_pool "$p"
}

check_fill_crash() { # POINT
  local p=fcrash-$BE rc=0
  printf '{"size": 1, "profile": {"rootfs": "%s"}}\n' "$WORK/rootfs" >"$WORK/f.json"
  sx pool define "$p" "$WORK/f.json" >/dev/null
  SANDSHIM_FAULT=$1 sx pool fill "$p" 2>/dev/null || rc=$?
  assert_eq 137 "$rc" "killed at $1" || return
  assert_eq 1 "$(ls -a "$ROOT/@pool/$p/workspaces" | grep -c '^\.member-')" "positive control: a member workspace was left" || return
  sx pool gc >"$WORK/gc.out" || { fail "pool gc: $(cat "$WORK/gc.out")"; return; }
  assert_eq 0 "$(ls "$ROOT/@pool/$p/members" | wc -l)" "half-made member removed" || return
  assert_eq 0 "$(ls -a "$ROOT/@pool/$p/workspaces" | grep -c '^\.member-')" "its workspace removed" || return
  sx pool fill "$p" || { fail "fill after gc"; return; }
  assert_eq 1 "$(ready "$p")" "the pool fills again" || return
  end_pool "$p"
}

# The refill outlives the claim: none of the caller's fds, environment or terminal.
check_refill_detached() {
  local p=detach-$BE pid i
  define_pool "$p" 1 || { fail "define/fill"; return; }
  exec 7>"$WORK/held-fd"
  CALLER_SECRET=leak sx session create --pool "$p" det-$BE >/dev/null || { exec 7>&-; fail "claim"; return; }
  exec 7>&-
  for i in $(seq 1 50); do pid=$(pgrep -f "pool fill $p\$" | head -1); [ -n "$pid" ] && break; sleep 0.05; done
  [ -n "$pid" ] || { fail "no refill process seen"; return; }
  ! tr '\0' '\n' <"/proc/$pid/environ" | grep -q CALLER_SECRET || { fail "caller env in the refill"; return; }
  ! ls -l "/proc/$pid/fd" | grep -q held-fd || { fail "caller fd in the refill"; return; }
  assert_eq "$pid" "$(ps -o sid= -p "$pid" | tr -d ' ')" "refill leads its own session" || return
  wait_refilled "$p" || return
  sx session delete det-$BE >/dev/null
  end_pool "$p"
}

# Red team: a pool's workspaces belong to the session's user on the host (uid 1000: the first
# account of a Debian host, `debian` on its cloud images). With the default workspace parent
# traversable (0711), that local user read every claimed tenant's workspace (its path is in
# any gofer's /proc/PID/mountinfo) and planted files into members not yet claimed. Positive
# control: the same uid writes a directory it owns below a 0711 directory.
check_local_user_workspaces() {
  local p=lu-$BE-$$ ws owner member out
  define_pool "$p" 2 >/dev/null || return $(fail "define")
  sx session create --pool "$p" lu-$BE-$$ >/dev/null || return $(fail "claim")
  sx session exec lu-$BE-$$ -- sh -c 'echo tenant-private > /workspace/notes' || return $(fail "exec")
  ws=$(sx session inspect --json lu-$BE-$$ | jq -r .workspace)
  owner=$(stat -c %u "$ws")
  mkdir -p "$WORK/ctl-$BE/ws" && chmod 711 "$WORK/ctl-$BE" && chown "$owner" "$WORK/ctl-$BE/ws"
  setpriv --reuid="$owner" --regid="$owner" --clear-groups sh -c "echo x > $WORK/ctl-$BE/ws/f" ||
    return $(fail "control: uid $owner cannot write its own directory below a 0711 one")
  out=$(setpriv --reuid="$owner" --regid="$owner" --clear-groups cat "$ws/notes" 2>&1)
  assert_not_contains "$out" tenant-private "host uid $owner reads the claimed workspace $ws" || return
  for member in "$(dirname "$ws")"/.member-*; do
    [ -d "$member" ] || continue
    setpriv --reuid="$owner" --regid="$owner" --clear-groups sh -c "echo planted > '$member/planted'" 2>/dev/null &&
      return $(fail "host uid $owner planted a file in the unclaimed member workspace $member")
  done
  sx session delete lu-$BE-$$ >/dev/null
  end_pool "$p" >/dev/null
}

for BE in ${POOL_BACKENDS:-gvisor native}; do
  run_check "pool on $BE: the session user's host uid reaches no pooled workspace" check_local_user_workspaces
  run_check "pool on $BE: claim binds id, name, env, a new workspace; audit, counters" check_claim_binds
  run_check "pool on $BE: a canary of one session is in no later one" check_canary
  run_check "pool on $BE: misses (existing workspace, empty pool, other fs) are created cold" check_misses_cold
  run_check "pool on $BE: an existing workspace (gVisor: claimed, bound below the shared parent; native: cold)" check_existing_claim
  run_check "pool on $BE: gc removes dead members, orphan workspaces; a new definition drains the old" check_gc
  run_check "pool on $BE: a claim binds the command policy" check_policy_claim
done
BE=gvisor run_check "pool on gvisor, proxy network: the claim binds the session's egress rules" check_proxy_claim
BE=native run_check "pool on native: a burst of 50 claims against a pool of 10" check_burst 50 10 8
BE=gvisor run_check "pool on gvisor: a burst of 12 claims against a pool of 4" check_burst 12 4 4
BE=gvisor
for point in pool.claim.after-intent pool.claim.after-rebase pool.claim.after-rename pool.claim.after-bind pool.claim.before-record; do
  run_check "pool crash at $point: gc undoes the claim" check_claim_crash "$point"
done
for point in pool.claim.after-bind pool.claim.before-record; do
  run_check "pool crash at $point, existing workspace: gc unmounts it, its files stay" check_claim_crash "$point" existing
done
for point in pool.fill.after-workspace pool.fill.before-marker; do
  run_check "pool crash at $point: gc removes the half-made member" check_fill_crash "$point"
done
run_check "pool refill keeps none of the caller's fds, env or session" check_refill_detached
finish_checks
