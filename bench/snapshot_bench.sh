#!/usr/bin/env bash
# Pause/resume benchmark (issue #35), all in this one run on the gVisor backend: a session
# brought to the same point two ways, running, with 32 MiB of random data in its /tmp (the sandbox's
# memory) and one exec answered:
#   cold:   session create + exec that makes the data (the state that costs to build: ~1 s
#           of /dev/urandom inside gVisor, as imports or a warm cache would)
#   resume: session resume of that session paused there + exec that reads a byte of it
# and the pause itself, the snapshot's size, and the host memory the sandbox held before the
# pause (PSS of every process of the sandbox; none after it). Medians of RUNS; ratios only.
# What a session exec started does not survive a restore (gVisor kills it; docs/SESSIONS.md),
# so a warm interpreter is not the point measured here.
# Usage: bench/snapshot_bench.sh [RUNS]   (default 5)
#   SANDSHIM_TEST_RUNSC=/path/to/runsc: the runsc (its config's "runsc"); it must be one whose
#   snapshots work (sandshim doctor), e.g. Debian 13's from scripts/fetch-runsc-trixie.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/integration/lib/image.sh"
. "$here/lib.sh"
require_root
RUNS=${1:-5}
BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
[ -x "$BIN" ] || die "build sandshim first (scripts/build.sh)"
W=$(mktemp -d /tmp/sandshim-snbench.XXXXXX)
R=$(mktemp -d /run/sandshim-snbench.XXXXXX)
chmod 755 "$W" "$R"
RUNSC=${SANDSHIM_TEST_RUNSC:-runsc}
export SANDSHIM_CONFIG=$W/config.json
jq -n --arg a "$W/audit" --arg r "$RUNSC" '{audit_dir: $a, runsc: $r}' >"$SANDSHIM_CONFIG"
SS=("$BIN" --root "$R/ss" --backend gvisor)
install_traps
on_exit 'rm -rf "$W" "$R"'
on_exit 'for s in $("${SS[@]}" session list --json 2>/dev/null | jq -r ".[].id"); do "${SS[@]}" session delete "$s" >/dev/null 2>&1; done'
build_rootfs "$W/rootfs" >/dev/null 2>&1 || die "rootfs"

cold_cycle() { # ID
  mkdir -p "$W/ws-$1" && chown 1000:1000 "$W/ws-$1" &&
    "${SS[@]}" session create "$1" --rootfs "$W/rootfs" --workspace "$W/ws-$1" --memory 512m &&
    "${SS[@]}" session exec "$1" -- sh -c 'head -c 33554432 /dev/urandom >/tmp/data'
}
resume_cycle() { "${SS[@]}" session resume "$1" && "${SS[@]}" session exec "$1" -- head -c 1 /tmp/data; }
pss_of() { # CONTAINER_ID: KiB of every process whose command line names the container's state dir
  local p kb total=0
  for p in $(pgrep -f "$R/ss/$1/"); do
    kb=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null) || continue
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}

echo "# sandshim pause/resume benchmark, $RUNS runs, medians (host: $(nproc) cores, $(uptime | sed 's/.*load/load/'))"
echo "# $("$RUNSC" --version <"$BENCH_NULL" 2>&1 | head -1) ($(command -v "$RUNSC"))"
"$BIN" doctor --json | jq -r '.[] | select(.area == "gvisor") | .detail' | grep -q "snapshots work" ||
  die "this runsc's snapshots do not work (sandshim doctor)"
cold_t=() pause_t=() resume_t=() bytes=() pss=()
for ((i = 0; i < RUNS; i++)); do
  cold_t+=("$(time_runs 1 cold_cycle "s$i")")
  pss+=("$(pss_of "sess-s$i")")
  pause_t+=("$(time_runs 1 "${SS[@]}" session pause "s$i")")
  [ "$(pss_of "sess-s$i")" = 0 ] || echo "bench: s$i still holds memory after pause" >&2
  bytes+=("$(jq -r 'select(.event == "pause") | .snapshot_bytes' "$W/audit/s$i.jsonl" | tail -1)")
  resume_t+=("$(time_runs 1 resume_cycle "s$i")")
  [ "$("${SS[@]}" session exec "s$i" -- sh -c 'wc -c </tmp/data' 2>/dev/null)" = 33554432 ] || echo "bench: s$i lost its /tmp" >&2
  "${SS[@]}" session delete "s$i" >/dev/null 2>&1
done
cold=$(printf '%s\n' "${cold_t[@]}" | median)
resume=$(printf '%s\n' "${resume_t[@]}" | median)
printf '%-46s %9.1f ms\n' "cold create + exec (32 MiB into /tmp)" "$cold"
printf '%-46s %9.1f ms  ratio to cold %.2f\n' "resume + exec (the data is there)" "$resume" \
  "$(echo "scale=3; $resume / $cold" | bc)"
printf '%-46s %9.1f ms\n' "pause (checkpoint to disk, sandbox ended)" "$(printf '%s\n' "${pause_t[@]}" | median)"
printf '%-46s %9.1f MiB on disk, %.1f MiB PSS held before the pause, 0 after\n' "snapshot" \
  "$(echo "scale=2; $(printf '%s\n' "${bytes[@]}" | median) / 1048576" | bc)" \
  "$(echo "scale=2; $(printf '%s\n' "${pss[@]}" | median) / 1024" | bc)"
