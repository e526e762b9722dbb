#!/usr/bin/env bash
# Session benchmarks (issue: sessions for agent platforms), all measured in this one run on
# the gVisor backend, against raw runsc driven by hand on an equivalent bundle (the bundle
# sandshim wrote for a session, with the flags sandshim chose):
#   1. session create + first exec   vs  runsc create + start + exec
#   2. exec latency                  vs  runsc exec into the same kind of sandbox
#   3. 50 sessions created and left idle: create throughput, memory per session (PSS of
#      every process of the sandbox), and how many sandshim processes stay resident (0).
# Usage: bench/session_bench.sh [RUNS] [IDLE]   (defaults 15 and 50; medians reported)
#   SANDSHIM_TEST_RUNSC=/path/to/runsc: the runsc for both sandshim (its config's "runsc") and
#   the raw column (default: runsc in PATH), e.g. Debian 13's from scripts/fetch-runsc-trixie.sh.
#   Only the first two parts: BENCH_SKIP_IDLE=1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/integration/lib/image.sh"
. "$here/lib.sh"
require_root
RUNS=${1:-15}
IDLE=${2:-50}
BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
[ -x "$BIN" ] || die "build sandshim first (scripts/build.sh)"
W=$(mktemp -d /tmp/sandshim-sbench.XXXXXX)
R=$(mktemp -d /run/sandshim-sbench.XXXXXX)
chmod 755 "$W" "$R"
mkdir -p "$W/ws" && chmod 777 "$W/ws"
RUNSC=${SANDSHIM_TEST_RUNSC:-runsc}
export SANDSHIM_CONFIG=$W/config.json
jq -n --arg a "$W/audit" --arg r "$RUNSC" '{audit_dir: $a, runsc: $r}' >"$SANDSHIM_CONFIG"
SS=("$BIN" --root "$R/ss" --backend gvisor)
RAW=()  # set once we know sandshim's flags
P=sbraw$$-  # raw container ids: raw runsc leaves cgroups named after them, removed at exit
install_traps
on_exit 'rm -rf "$W" "$R"'
# Raw runsc exec chowns the stdio it is handed to the container's user: given our /dev/null,
# it would leave the host's /dev/null owned by "nobody". Its owner is put back at exit.
DEVNULL_OWNER=$(stat -c %u:%g /dev/null)
on_exit 'chown "$DEVNULL_OWNER" /dev/null'
on_exit 'for s in $("${SS[@]}" session list --json 2>/dev/null | jq -r ".[].id"); do "${SS[@]}" session delete "$s" >/dev/null 2>&1; done'
on_exit 'find /sys/fs/cgroup -depth -type d -name "$P*" -exec rmdir {} + 2>/dev/null'
on_exit '[ ${#RAW[@]} -gt 0 ] && "${RAW[@]}" list --quiet 2>/dev/null | xargs -r -n1 "${RAW[@]}" delete --force >/dev/null 2>&1'
build_rootfs "$W/rootfs" >/dev/null 2>&1 || die "rootfs"

echo "# sandshim session benchmarks, $RUNS runs each, medians (host: $(nproc) cores, $(uptime | sed 's/.*load/load/'))"
echo "# $("$RUNSC" --version </dev/zero 2>&1 | head -1) ($(command -v "$RUNSC"))"

# The equivalent raw bundle: the session's own config.json, run with the flags sandshim chose.
"${SS[@]}" session create warm --rootfs "$W/rootfs" --workspace "$W/ws" >/dev/null || die "session create"
mkdir -p "$W/raw" && cp "$R/ss/@sessions/warm/bundle/config.json" "$W/raw/config.json"
mapfile -t FLAGS < <(jq -r '.backend_data.flags[]' "$R/ss/sess-warm/state.json")
RAW=("$RUNSC" --root "$R/raw" "${FLAGS[@]}")
echo "# raw runsc flags (as sandshim chose them): ${FLAGS[*]}"

raw_cycle() { "${RAW[@]}" create --bundle "$W/raw" "$1" && "${RAW[@]}" start "$1" && "${RAW[@]}" exec "$1" true; }
ss_cycle() { "${SS[@]}" session create "$1" --rootfs "$W/rootfs" --workspace "$W/ws" && "${SS[@]}" session exec "$1" -- true; }
raw_t=() ss_t=()
for ((i = 0; i < RUNS; i++)); do
  raw_t+=("$(time_runs 1 raw_cycle "$P$i")")
  "${RAW[@]}" delete --force "$P$i" >/dev/null 2>&1
  ss_t+=("$(time_runs 1 ss_cycle "s$i")")
  "${SS[@]}" session delete "s$i" >/dev/null 2>&1
done
report "session create + first exec" "runsc create+start+exec" "$(printf '%s\n' "${raw_t[@]}" | median)" \
  "$(printf '%s\n' "${ss_t[@]}" | median)" 1.10

raw_cycle "${P}exec" <"$BENCH_NULL" >"$BENCH_NULL" 2>&1
raw_t=() ss_t=()
for ((i = 0; i < RUNS * 2; i++)); do
  raw_t+=("$(time_runs 1 "${RAW[@]}" exec "${P}exec" true)")
  ss_t+=("$(time_runs 1 "${SS[@]}" session exec warm -- true)")
done
# Issue 29: at most 0.3x raw runsc exec of the same runsc (the control server, no runsc start).
report "session exec (true)" "runsc exec" "$(printf '%s\n' "${raw_t[@]}" | median)" \
  "$(printf '%s\n' "${ss_t[@]}" | median)" 0.30
"${RAW[@]}" delete --force "${P}exec" >/dev/null 2>&1
"${SS[@]}" session delete warm >/dev/null 2>&1
[ -n "${BENCH_SKIP_IDLE:-}" ] && exit 0

# PSS (KiB) of every process whose command line mentions DIR.
pss_under() {
  local total=0 p kb
  for p in $(pgrep -f -- "$1"); do
    kb=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null) || continue
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}
t0=$(date +%s%N)
for ((i = 0; i < IDLE; i++)); do
  "${SS[@]}" session create "idle$i" --rootfs "$W/rootfs" --workspace "$W/ws" >/dev/null || die "idle session $i"
done
t1=$(date +%s%N)
sleep 2
secs=$(echo "scale=2; ($t1 - $t0) / 1000000000" | bc)
pss=$(pss_under "$R/ss")
resident=$(pgrep -c -f -- "^[^ ]*sandshim .*$R/ss" || true)
printf '%-34s %d sessions in %s s (%.1f/s), PSS %.1f MiB per session, sandshim processes resident: %d\n' \
  "idle sessions" "$IDLE" "$secs" "$(echo "scale=2; $IDLE / $secs" | bc)" "$(echo "scale=2; $pss / 1024 / $IDLE" | bc)" \
  "$resident"
for ((i = 0; i < 10; i++)); do raw_cycle "${P}idle$i" <"$BENCH_NULL" >"$BENCH_NULL" 2>&1; done
sleep 2
raw_pss=$(pss_under "$R/raw")
printf '%-34s 10 raw runsc sandboxes: PSS %.1f MiB per sandbox\n' "raw runsc idle" "$(echo "scale=2; $raw_pss / 1024 / 10" | bc)"
