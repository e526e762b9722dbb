#!/usr/bin/env bash
# #33: what the exec guard costs (exec-guard/, deny rules at execve), guard on against guard
# off (SANDSHIM_TEST_NO_EXEC_GUARD=1) in the same session, runs interleaved, on each backend:
#   1. a session exec of `true` (the guard's own start, one traced exec)
#   2. one process start inside the sandbox: an exec running 200 fork+exec of /bin/true, less
#      the exec of 1., over 200 (every start is a seccomp stop and a judged argv)
# Targets (#33): exec <= 1.10x, process start <= 1.20x. The policy: the 40 shell deny rules of
# policy_bench.sh's 200-rule policy. Medians; the machine is shared, so the load is printed.
# Usage: bench/exec_guard_bench.sh [RUNS]  (default 15; BACKENDS="gvisor native";
#   SANDSHIM_TEST_RUNSC=/path/to/runsc for another runsc; BASELINE_BIN=/path/to/old/sandshim
#   for an older build's guard beside ours, interleaved; EXEC_ONLY=1 times 1. only, so more runs
#   fit: the exec's ratio is the one a busy host blurs most)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/integration/lib/image.sh"
. "$here/lib.sh"
require_root
RUNS=${1:-15}
BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
[ -x "$BIN" ] || die "build sandshim first (scripts/build.sh)"
W=$(mktemp -d /tmp/sandshim-gbench.XXXXXX)
R=$(mktemp -d /run/sandshim-gbench.XXXXXX)
chmod 755 "$W" "$R"
mkdir -p "$W/ws" && chmod 777 "$W/ws"
RUNSC=${SANDSHIM_TEST_RUNSC:-runsc}
export SANDSHIM_CONFIG=$W/config.json
jq -n --arg a "$W/audit" --arg r "$RUNSC" '{audit_dir: $a, runsc: $r}' >"$SANDSHIM_CONFIG"
install_traps
on_exit 'rm -rf "$W" "$R"'
on_exit 'for r in "$R"/ss*; do for s in $("$BIN" --root "$r" session list --json 2>/dev/null | jq -r ".[].id"); do "$BIN" --root "$r" session delete "$s" >/dev/null 2>&1; done; done'
build_rootfs "$W/rootfs" >/dev/null 2>&1 || die "rootfs"
{
  printf '{"permissions": {"allow": ["shell(sh:*)"], "deny": ["shell(sudo:*)", "shell(curl:*)", "shell(rm -rf /:*)", "shell(nsenter:*)"'
  for i in $(seq 1 36); do printf ', "shell(bad%d --flag%d:*)"' "$i" "$i"; done
  printf ']}}\n'
} >"$W/policy.json"
LOOP="for i in $(seq -s ' ' 200); do /bin/true; done"

echo "# exec guard (#33), $RUNS runs each, medians, guard on vs off interleaved (host: $(nproc) cores, $(uptime | sed 's/.*load/load/'))"
echo "# $("$RUNSC" --version </dev/zero 2>&1 | head -1) ($(command -v "$RUNSC"))"
per_start() { echo "scale=4; ($1 - $2) / 200" | bc; }
# BASELINE_BIN (e.g. a build of main): its own session beside ours, its runs interleaved with
# ours, reported below ours; its guard-on exec is then also put beside ours against the guard-
# off times of both sessions pooled (the same code path), which differ run to run on a busy host.
BINS=("$BIN")
[ -n "${BASELINE_BIN:-}" ] && BINS+=("$BASELINE_BIN")
med() { printf '%s\n' $1 | median; }
for be in ${BACKENDS:-gvisor native}; do
  declare -A T=()
  live=()
  for k in "${!BINS[@]}"; do
    if "${BINS[$k]}" --root "$R/ss$k" --backend "$be" session create "g-$be" --rootfs "$W/rootfs" --workspace "$W/ws" --policy "$W/policy.json" >/dev/null; then
      live+=("$k")
    else
      echo "$be: session create failed (${BINS[$k]})"
    fi
  done
  for ((i = 0; i < RUNS; i++)); do
    for k in "${live[@]}"; do
      SS=("${BINS[$k]}" --root "$R/ss$k" --backend "$be")
      T[$k,on]+="$(time_runs 1 "${SS[@]}" session exec "g-$be" -- true) "
      T[$k,off]+="$(SANDSHIM_TEST_NO_EXEC_GUARD=1 time_runs 1 "${SS[@]}" session exec "g-$be" -- true) "
      [ -n "${EXEC_ONLY:-}" ] && continue
      T[$k,lon]+="$(time_runs 1 "${SS[@]}" session exec "g-$be" -- sh -c "$LOOP") "
      T[$k,loff]+="$(SANDSHIM_TEST_NO_EXEC_GUARD=1 time_runs 1 "${SS[@]}" session exec "g-$be" -- sh -c "$LOOP") "
    done
  done
  for k in "${live[@]}"; do
    tag=$([ "$k" = 0 ] && echo "$be" || echo "$be baseline")
    e_on=$(med "${T[$k,on]}") e_off=$(med "${T[$k,off]}") l_on=$(med "${T[$k,lon]:-}") l_off=$(med "${T[$k,loff]:-}")
    report "$tag: session exec true" "guard off" "$e_off" "$e_on" 1.10
    [ -n "${EXEC_ONLY:-}" ] && continue
    report "$tag: process start (200 in one exec)" "guard off" "$(per_start "$l_off" "$e_off")" "$(per_start "$l_on" "$e_on")" 1.20
  done
  if [ "${#live[@]}" = 2 ]; then
    pooled=$(med "${T[0,off]} ${T[1,off]}")
    report "$be: exec, guard off pooled" "guard off (both)" "$pooled" "$(med "${T[0,on]}")" 1.10
    report "$be baseline: exec, guard off pooled" "guard off (both)" "$pooled" "$(med "${T[1,on]}")" 1.10
  fi
  for k in "${live[@]}"; do "${BINS[$k]}" --root "$R/ss$k" session delete "g-$be" >/dev/null 2>&1; done
  unset T
done
echo "# after: $(uptime | sed 's/.*load/load/')"
