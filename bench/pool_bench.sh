#!/usr/bin/env bash
# Warm pool benchmark (issue #20), all in this one run on the gVisor backend:
#   1. claim + first exec, new workspace    vs  cold session create + first exec
#   2. claim + first exec, existing workspace (gVisor: bound below the member's shared parent, docs/POOL.md)
#   3. idle memory: a pool member vs an idle cold session (PSS of every process of the sandbox)
#   4. (#35, where `sandshim doctor` says snapshots work) claim + first exec from a pool whose
#      members are restored from a snapshot (warm state: 32 MiB of random data in /tmp) vs the
#      plain pool's claim + first exec, interleaved (goal: within 1.5x)
# Claims are sequential; before each, the background refill is idle (steady state: the claim
# does not share the CPU with a gVisor boot). p50 and p99 over RUNS claims.
# Usage: bench/pool_bench.sh [RUNS] [IDLE]   (defaults 30 and 5)
#   SANDSHIM_TEST_RUNSC=/path/to/runsc: the runsc (its config's "runsc"), e.g. Debian 13's
#   BENCH_SKIP_IDLE=1: without part 3
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/integration/lib/image.sh"
. "$here/lib.sh"
require_root
RUNS=${1:-30}
IDLE=${2:-5}
BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
[ -x "$BIN" ] || die "build sandshim first (scripts/build.sh)"
W=$(mktemp -d /tmp/sandshim-pbench.XXXXXX)
R=$(mktemp -d /run/sandshim-pbench.XXXXXX)
chmod 755 "$W" "$R"
export SANDSHIM_CONFIG=$W/config.json
RUNSC=${SANDSHIM_TEST_RUNSC:-runsc}
jq -n --arg a "$W/audit" --arg r "$RUNSC" '{audit_dir: $a, runsc: $r}' >"$SANDSHIM_CONFIG"
SS=("$BIN" --root "$R/ss" --backend gvisor)
install_traps
on_exit 'rm -rf "$W" "$R"'
on_exit 'for s in $("${SS[@]}" session list --json 2>/dev/null | jq -r ".[].id"); do "${SS[@]}" session delete "$s" >/dev/null 2>&1; done'
on_exit '"${SS[@]}" pool drain bench --delete >/dev/null 2>&1'
on_exit '"${SS[@]}" pool drain sbench --delete >/dev/null 2>&1; "${SS[@]}" session snapshot --rm warm >/dev/null 2>&1'
build_rootfs "$W/rootfs" >/dev/null 2>&1 || die "rootfs"

pct() { # P: percentile of stdin (nearest rank)
  sort -n | awk -v p="$1" '{a[NR]=$1} END {r=int((p*NR+99)/100); if (r<1) r=1; if (r>NR) r=NR; print a[r]}'
}
refill_idle() { # [POOL]
  local i p=${1:-bench}
  for i in $(seq 1 300); do
    flock -n "$R/ss/@pool/$p/.fill.lock" true && [ "$("${SS[@]}" pool status "$p" --json | jq '.[0].ready')" -ge 1 ] && return 0
    sleep 0.1
  done
  die "refill did not finish"
}

echo "# sandshim warm pool benchmark, $RUNS runs each (host: $(nproc) cores, $(uptime | sed 's/.*load/load/'))"
printf '{"size": 4, "low_water": 2, "profile": {"rootfs": "%s"}}\n' "$W/rootfs" >"$W/pool.json"
"${SS[@]}" pool define bench "$W/pool.json" >/dev/null || die "pool define"
"${SS[@]}" pool fill bench || die "pool fill"

cold_cycle() { mkdir -p "$W/ws-$1" && chown 1000:1000 "$W/ws-$1" && "${SS[@]}" session create "$1" --rootfs "$W/rootfs" --workspace "$W/ws-$1" && "${SS[@]}" session exec "$1" -- true; }
claim_cycle() { "${SS[@]}" session create --pool bench --workspace "$R/ws-$1" "$1" && "${SS[@]}" session exec "$1" -- true; }
existing_cycle() { "${SS[@]}" session create --pool bench --workspace "$W/ws-existing" "$1" && "${SS[@]}" session exec "$1" -- true; }
mkdir -p "$W/ws-existing" && chown 1000:1000 "$W/ws-existing"
cold_t=() claim_t=() exist_t=()
for ((i = 0; i < RUNS; i++)); do
  cold_t+=("$(time_runs 1 cold_cycle "c$i")")
  "${SS[@]}" session delete "c$i" >/dev/null 2>&1
  refill_idle
  claim_t+=("$(time_runs 1 claim_cycle "p$i")")
  "${SS[@]}" session delete "p$i" >/dev/null 2>&1
  refill_idle
  exist_t+=("$(time_runs 1 existing_cycle "e$i")")
  "${SS[@]}" session delete "e$i" >/dev/null 2>&1
done
cold50=$(printf '%s\n' "${cold_t[@]}" | pct 50) cold99=$(printf '%s\n' "${cold_t[@]}" | pct 99)
claim50=$(printf '%s\n' "${claim_t[@]}" | pct 50) claim99=$(printf '%s\n' "${claim_t[@]}" | pct 99)
exist50=$(printf '%s\n' "${exist_t[@]}" | pct 50) exist99=$(printf '%s\n' "${exist_t[@]}" | pct 99)
st=$("${SS[@]}" pool status bench --json)
printf '%-44s p50 %8.1f ms  p99 %8.1f ms\n' "cold session create + first exec" "$cold50" "$cold99"
printf '%-44s p50 %8.1f ms  p99 %8.1f ms  %s  %.1fx faster than cold (goal >= 7x)\n' \
  "claim + first exec, new workspace" "$claim50" "$claim99" \
  "$([ "$(echo "$claim50 <= 25 && $claim99 <= 60" | bc)" = 1 ] && echo "OK (<= 25/60 ms)" || echo "OVER (> 25/60 ms)")" \
  "$(echo "scale=2; $cold50 / $claim50" | bc)"
printf '%-44s p50 %8.1f ms  p99 %8.1f ms  ratio to cold %.2f (goal <= 0.5)\n' \
  "claim + first exec, existing workspace" "$exist50" "$exist99" "$(echo "scale=3; $exist50 / $cold50" | bc)"
echo "# pool counters: claims $(jq '.[0].claims' <<<"$st"), misses $(jq '.[0].misses' <<<"$st"), members made $(jq '.[0].members_made' <<<"$st"), mean refill $(jq '.[0].refill_seconds_total / ([.[0].refills,1]|max)' <<<"$st") s"

# 4. A pool restored from a snapshot against the plain pool, interleaved.
if "$BIN" doctor --json | jq -r '.[] | select(.area == "gvisor") | .detail' | grep -q "snapshots work"; then
  mkdir -p "$W/ws-src" && chown 1000:1000 "$W/ws-src"
  { "${SS[@]}" session create src --rootfs "$W/rootfs" --workspace "$W/ws-src" >/dev/null &&
    "${SS[@]}" session exec src -- sh -c 'head -c 33554432 /dev/urandom >/tmp/data' &&
    "${SS[@]}" session snapshot src warm >/dev/null && "${SS[@]}" session delete src; } || die "the snapshot"
  printf '{"size": 4, "low_water": 2, "profile": {"rootfs": "%s"}, "from_snapshot": "warm"}\n' "$W/rootfs" >"$W/spool.json"
  "${SS[@]}" pool define sbench "$W/spool.json" >/dev/null && "${SS[@]}" pool fill sbench || die "snapshot pool fill"
  sclaim_cycle() { "${SS[@]}" session create --pool sbench --workspace "$R/ws-$1" "$1" && "${SS[@]}" session exec "$1" -- true; }
  plain_t=() snap_t=()
  for ((i = 0; i < RUNS; i++)); do
    refill_idle bench
    plain_t+=("$(time_runs 1 claim_cycle "q$i")")
    "${SS[@]}" session delete "q$i" >/dev/null 2>&1
    refill_idle sbench
    snap_t+=("$(time_runs 1 sclaim_cycle "s$i")")
    [ "$("${SS[@]}" session exec "s$i" -- sh -c 'wc -c </tmp/data')" = 33554432 ] || echo "bench: s$i has no warm state" >&2
    "${SS[@]}" session delete "s$i" >/dev/null 2>&1
  done
  plain50=$(printf '%s\n' "${plain_t[@]}" | pct 50) snap50=$(printf '%s\n' "${snap_t[@]}" | pct 50)
  printf '%-44s p50 %8.1f ms  p99 %8.1f ms\n' "plain pool: claim + first exec" "$plain50" "$(printf '%s\n' "${plain_t[@]}" | pct 99)"
  printf '%-44s p50 %8.1f ms  p99 %8.1f ms  ratio to plain %.2f (goal <= 1.5)\n' \
    "snapshot pool: claim + first exec (warm /tmp)" "$snap50" "$(printf '%s\n' "${snap_t[@]}" | pct 99)" \
    "$(echo "scale=3; $snap50 / $plain50" | bc)"
  echo "# snapshot pool: members made $("${SS[@]}" pool status sbench --json | jq '.[0].members_made'), mean refill $("${SS[@]}" pool status sbench --json | jq '.[0].refill_seconds_total / ([.[0].refills,1]|max)') s (a restore each)"
  flock "$R/ss/@pool/sbench/.fill.lock" true
  "${SS[@]}" pool drain sbench --delete >/dev/null && "${SS[@]}" session snapshot --rm warm >/dev/null
else
  echo "# snapshot pool: skipped, this runsc's snapshots do not work (sandshim doctor)"
fi
[ "${BENCH_SKIP_IDLE:-0}" = 1 ] && exit 0

# Idle memory: PSS of every process whose command line names the container's state dir.
pss_of() { # CONTAINER_ID
  local p kb total=0
  for p in $(pgrep -f "$R/ss/$1/"); do
    kb=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null) || continue
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}
for ((i = 0; i < IDLE; i++)); do mkdir -p "$W/wsi-$i" && "${SS[@]}" session create "idle$i" --rootfs "$W/rootfs" --workspace "$W/wsi-$i" >/dev/null; done
printf '{"size": %d, "low_water": 0, "profile": {"rootfs": "%s"}}\n' "$IDLE" "$W/rootfs" >"$W/pool.json"
"${SS[@]}" pool define bench "$W/pool.json" >/dev/null && "${SS[@]}" pool fill bench || die "fill for idle"
sleep 2
s_pss=0 m_pss=0
for ((i = 0; i < IDLE; i++)); do s_pss=$((s_pss + $(pss_of "sess-idle$i"))); done
for m in $(ls "$R/ss/@pool/bench/members"); do m_pss=$((m_pss + $(pss_of "sess-$m"))); done
printf '%-44s member %.1f MiB  session %.1f MiB  ratio %.2f (goal 1.0)\n' "idle memory (PSS per sandbox, $IDLE each)" \
  "$(echo "scale=2; $m_pss / 1024 / $IDLE" | bc)" "$(echo "scale=2; $s_pss / 1024 / $IDLE" | bc)" "$(echo "scale=3; $m_pss / $s_pss" | bc)"
