#!/usr/bin/env bash
# A change that should not change speed (#30, the architecture moves), measured: this build
# against an older sandshim in the same run, interleaved (the order alternates per round),
# gVisor backend, each binary on its own state root:
#   1. session create + first exec        (a cold session)
#   2. session exec true                   (a running session)
#   3. pool claim + first exec             (a ready member; the refill idle before each claim)
#   4. context create, a spare ready; exec true in a named context
# Usage: SANDSHIM_OLD_BIN=<older sandshim> bench/old_vs_new_bench.sh [RUNS]  (default 10; medians)
#   SANDSHIM_TEST_RUNSC=PATH: the runsc both binaries use (default: runsc in PATH).
#   LIMIT=1.05: the new/old ratio each line is held to.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/integration/lib/image.sh"
. "$here/lib.sh"
require_root
RUNS=${1:-10}
LIMIT=${LIMIT:-1.05}
BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
OLD=${SANDSHIM_OLD_BIN:-}
[ -x "$BIN" ] || die "build sandshim first (scripts/build.sh)"
[ -x "$OLD" ] || die "SANDSHIM_OLD_BIN: an older sandshim to compare with"
W=$(mktemp -d /tmp/sandshim-ovn.XXXXXX)
R=$(mktemp -d /run/sandshim-ovn.XXXXXX)
chmod 755 "$W" "$R"
# A workspace per binary: two state roots sharing one workspace stack two nosuid guards
# (workspace_guard.h keeps a registry per root), and one outlives both sessions.
mkdir -p "$W/ws-NEW" "$W/ws-OLDB" && chmod 777 "$W/ws-NEW" "$W/ws-OLDB"
export SANDSHIM_CONFIG=$W/config.json
jq -n --arg a "$W/audit" --arg r "${SANDSHIM_TEST_RUNSC:-runsc}" '{audit_dir: $a, runsc: $r}' >"$SANDSHIM_CONFIG"
NEW=("$BIN" --root "$R/new" --backend gvisor)
OLDB=("$OLD" --root "$R/old" --backend gvisor)
install_traps
on_exit 'rm -rf "$W" "$R"'
for b in NEW OLDB; do
  on_exit "for s in \$(\"\${$b[@]}\" session list --json 2>/dev/null | jq -r '.[].id'); do \"\${$b[@]}\" session delete \"\$s\" >/dev/null 2>&1; done"
  on_exit "\"\${$b[@]}\" pool drain vs --delete >/dev/null 2>&1"
done
build_rootfs "$W/rootfs" >/dev/null 2>&1 || die "rootfs"
echo "# this build vs $OLD, $RUNS rounds, medians (host: $(nproc) cores, $(uptime | sed 's/.*load/load/'))"

ms_since() { echo "scale=3; ($(date +%s%N) - $1) / 1000000" | bc; }
# both F: runs F NEW >>new-file and F OLDB >>old-file in an order that alternates by round.
both() {
  local f=$1 i=$2
  if ((i % 2)); then "$f" OLDB "$i" >>"$W/$f.old"; "$f" NEW "$i" >>"$W/$f.new"
  else "$f" NEW "$i" >>"$W/$f.new"; "$f" OLDB "$i" >>"$W/$f.old"; fi
}
line() { report "$2" "old" "$(median <"$W/$1.old")" "$(median <"$W/$1.new")" "$LIMIT"; }

cold() { # B I: create + first exec, ms; then the session deleted (untimed)
  local -n B=$1
  local t0=$(date +%s%N)
  "${B[@]}" session create "c$2" --rootfs "$W/rootfs" --workspace "$W/ws-$1" >/dev/null &&
    "${B[@]}" session exec "c$2" -- true >/dev/null || echo "bench: cold $1 $2 failed" >&2
  ms_since "$t0"
  "${B[@]}" session delete "c$2" >/dev/null 2>&1
}
for b in NEW OLDB; do
  declare -n B=$b
  "${B[@]}" session create ex --rootfs "$W/rootfs" --workspace "$W/ws-$b" --network proxy --context-spares 1 >/dev/null ||
    die "session ex ($b)"
  "${B[@]}" session context create ex c0 --user 2000 >/dev/null || die "context c0 ($b)"
  printf '{"size": 2, "low_water": 1, "profile": {"rootfs": "%s"}}\n' "$W/rootfs" >"$W/pool.json"
  "${B[@]}" pool define vs "$W/pool.json" >/dev/null || die "pool define ($b)"
  "${B[@]}" pool fill vs >/dev/null || die "pool fill ($b)"
  unset -n B
done
exec_true() { local -n B=$1; time_runs 1 "${B[@]}" session exec ex -- true; }
ctx_exec() { local -n B=$1; time_runs 1 "${B[@]}" session exec --context c0 ex -- true; }
refill_idle() { # B: the pool's refill done and a member ready
  local -n B=$1
  local w root=${B[2]}
  for ((w = 0; w < 300; w++)); do
    flock -n "$root/@pool/vs/.fill.lock" true && [ "$("${B[@]}" pool status vs --json | jq '.[0].ready')" -ge 1 ] && return 0
    sleep 0.1
  done
  die "refill of $1 did not finish"
}
claim() {
  local -n B=$1
  refill_idle "$1"
  local t0=$(date +%s%N)
  "${B[@]}" session create --pool vs --workspace "$W/pws-$1-$2" "p$2" >/dev/null &&
    "${B[@]}" session exec "p$2" -- true >/dev/null || echo "bench: claim $1 $2 failed" >&2
  ms_since "$t0"
  "${B[@]}" session delete "p$2" >/dev/null 2>&1
}
spare_wait() {
  local -n B=$1
  local w
  for ((w = 0; w < 300; w++)); do
    [ "$("${B[@]}" session inspect ex --json | jq .spare_contexts.ready)" = 1 ] && return 0
    sleep 0.1
  done
  die "no spare ready in 30 s ($1)"
}
ctx_create() {
  local -n B=$1
  spare_wait "$1"
  local t0=$(date +%s%N)
  "${B[@]}" session context create ex "k$2" --user 2000 >/dev/null || echo "bench: context create $1 $2 failed" >&2
  ms_since "$t0"
}
for ((i = 0; i < RUNS; i++)); do
  both cold "$i"
  both claim "$i"
  both ctx_create "$i"
  for j in 0 1 2; do both exec_true "$((3 * i + j))"; both ctx_exec "$((3 * i + j))"; done
done
line cold "session create + first exec"
line exec_true "session exec true"
line claim "pool claim + first exec"
line ctx_create "context create, spare ready"
line ctx_exec "exec true in a context"
