#!/usr/bin/env bash
# Concurrency and soak.
#   WORKERS parallel workers (default 32) each run ROUNDS (default 2) of
#   run -d -> exec -> list -> delete --force on their own containers and session create ->
#   exec -> list -> delete on their own sessions (odd workers on the native backend), while
#   the lists must stay consistent; then SOAK (default 50) sequential create/start/exec/delete cycles, with
#   sandshim's peak RSS and open fds compared between the first and last cycles.
# The documented long run: WORKERS=32 ROUNDS=5 SOAK=2000 (see docs/CRASH_SAFETY.md).
set -u
. "$(dirname "$0")/../integration/lib/image.sh"
require_root
require_cmds runsc jq
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
WORKERS=${WORKERS:-32} ROUNDS=${ROUNDS:-2} SOAK=${SOAK:-50}

WORK=$(mktemp -d /tmp/sshim-stress.XXXXXX)
chmod 755 "$WORK"
ROOT=/run/sshim-stress-$$
install_traps
on_exit 'rm -rf "$WORK" "$ROOT"'
on_exit '"$SANDSHIM_BIN" --root "$ROOT" list -q 2>/dev/null | xargs -r -n1 "$SANDSHIM_BIN" --root "$ROOT" delete --force >/dev/null 2>&1'
ss() { "$SANDSHIM_BIN" --root "$ROOT" "$@"; }
make_bundle "$WORK/b" sleep 1000 >/dev/null || die "bundle"
TAG=sshimst$$  # in every session id: the native sessions' cgroups are named after it
mkdir -p "$WORK/ws" && chmod 777 "$WORK/ws"
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
on_exit 'for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$SANDSHIM_BIN" --root "$ROOT" session delete "$s" >/dev/null 2>&1; done'
LEAKS=("$CHECK_LEAKS" --match "$ROOT" --match "$WORK" --match "$TAG" --root "$ROOT")

worker() { # N: prints one line per failure
  local n=$1 r id
  for ((r = 0; r < ROUNDS; r++)); do
    id=w$n-r$r
    ss run -d --bundle "$WORK/b" "$id" >/dev/null 2>"$WORK/w$n.err" || { echo "w$n: run -d: $(cat "$WORK/w$n.err")"; continue; }
    [ "$(ss exec "$id" echo ok 2>&1)" = ok ] || echo "w$n: exec failed"
    ss list --format json 2>/dev/null | jq -e 'type == "array"' >/dev/null || echo "w$n: list inconsistent"
    ss state "$id" 2>/dev/null | jq -e '.status == "running"' >/dev/null || echo "w$n: state not running"
    ss delete --force "$id" 2>"$WORK/w$n.err" || echo "w$n: delete: $(cat "$WORK/w$n.err")"
    id=$TAG-w$n-r$r
    local be=gvisor
    [ $((n % 2)) -eq 1 ] && be=native
    ss --backend "$be" session create "$id" --rootfs "$WORK/b/rootfs" --workspace "$WORK/ws" >/dev/null 2>"$WORK/w$n.err" ||
      { echo "w$n: session create ($be): $(cat "$WORK/w$n.err")"; continue; }
    [ "$(ss session exec "$id" -- echo ok 2>&1)" = ok ] || echo "w$n: session exec failed ($be)"
    ss session list --json 2>/dev/null | jq -e 'type == "array"' >/dev/null || echo "w$n: session list inconsistent"
    ss session delete "$id" 2>"$WORK/w$n.err" || echo "w$n: session delete: $(cat "$WORK/w$n.err")"
  done
}

check_concurrency() {
  local i t0=$SECONDS
  for ((i = 0; i < WORKERS; i++)); do worker "$i" >"$WORK/fail.$i" & done
  wait
  local failures
  failures=$(cat "$WORK"/fail.* 2>/dev/null)
  log "concurrency: $WORKERS workers x $ROUNDS rounds in $((SECONDS - t0)) s, $(printf '%s' "$failures" | grep -c .) failures"
  [ -z "$failures" ] || { fail "$(echo "$failures" | head -5 | tr '\n' ';')"; return 1; }
  assert_eq "" "$(ss list -q)" "containers left" || return
  assert_eq "[]" "$(ss session list --json)" "sessions left"
}

# sandshim's peak RSS (KiB) for a state call, the fds the sandbox process holds on the host,
# and the fds the container's init sees inside gVisor (0, 1, 2 expected: nothing leaked in).
measure() { # ID
  local rss pid host_fds inner_fds
  rss=$( { /usr/bin/time -f '%M' "$SANDSHIM_BIN" --root "$ROOT" state "$1" >/dev/null; } 2>&1 | tail -1)
  pid=$(ss state "$1" | jq -r .pid)
  host_fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
  inner_fds=$(ss exec "$1" ls /proc/1/fd | wc -w)
  echo "$rss $host_fds $inner_fds"
}

check_soak() {
  local i id first="" last t0=$SECONDS fails=0
  for ((i = 0; i < SOAK; i++)); do
    id=soak$i
    if ! ss create --bundle "$WORK/b" "$id" || ! ss start "$id" || [ "$(ss exec "$id" echo ok)" != ok ]; then
      fails=$((fails + 1))
    fi
    [ "$i" -eq 0 ] && first=$(measure "$id")
    [ "$i" -eq $((SOAK - 1)) ] && last=$(measure "$id")
    # Progress for long runs: cycles, seconds, failures, runsc processes on the host.
    [ $((i % 100)) -eq 99 ] && log "soak progress: $((i + 1)) cycles, $((SECONDS - t0)) s, $fails failures, $(pgrep -c -f '[r]unsc-sandbox') sandboxes alive"
    ss delete --force "$id" || fails=$((fails + 1))
  done
  log "soak: $SOAK cycles in $((SECONDS - t0)) s, $fails failures; (sandshim RSS KiB, sandbox host fds, init fds) first: $first last: $last"
  assert_eq 0 "$fails" "soak failures" || return
  local a b
  read -r -a a <<<"$first"; read -r -a b <<<"$last"
  [ "${b[0]}" -le $((a[0] + 1024)) ] || { fail "sandshim RSS grew: ${a[0]} -> ${b[0]} KiB"; return 1; }
  assert_eq "${a[1]}" "${b[1]}" "sandbox host fds, first vs last cycle" || return
  assert_eq 3 "${b[2]}" "fds the container's init holds inside the sandbox" || return
  assert_eq "" "$(ls -A "$ROOT/@runsc" 2>/dev/null)" "runsc state left"
}

no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks
run_check "concurrency: $WORKERS workers x $ROUNDS rounds" check_concurrency
run_check "soak: $SOAK create/start/exec/delete cycles" check_soak
finish_checks
