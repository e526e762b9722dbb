#!/usr/bin/env bash
# Command policy (#19): how long one decision takes against a generated 200-rule policy
# (140 shell rules, 60 file rules, the issue's example among them), over a mix of commands:
# argv-like ones, --shell chains with pipes and $( ), wrappers, and denied ones. The time is
# measured inside sandshim around the decision alone (policy check --batch), so process
# start-up is not in it. Target: p99 under 1 ms.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
ROUNDS=${1:-50}
W=$(mktemp -d /tmp/sandshim-polbench.XXXXXX)
trap 'rm -rf "$W"' EXIT

{
  printf '{"permissions": {"allow": ['
  printf '"shell(grep:*)", "shell(git status:*)", "shell(pip install:*)", "file(read:${WORKSPACE}/**)", "file(write:${WORKSPACE}/**)"'
  for i in $(seq 1 100); do printf ', "shell(tool%d sub%d:*)"' "$i" "$i"; done
  for i in $(seq 1 28); do printf ', "file(read:/data/set%d/**)"' "$i"; done
  printf '], "deny": ['
  printf '"shell(sudo:*)", "shell(curl:*)", "shell(rm -rf /:*)", "network(outbound:*)", "file(read:/etc/shadow:*)", "shell(nsenter:*)"'
  for i in $(seq 1 34); do printf ', "shell(bad%d --flag%d:*)"' "$i" "$i"; done
  for i in $(seq 1 27); do printf ', "file(write:/srv/locked%d/**)"' "$i"; done
  printf ']}}\n'
} >"$W/policy.json"
rules=$(jq '[.permissions.allow, .permissions.deny] | map(length) | add' "$W/policy.json")
[ "$rules" = 200 ] || { echo "bench: generated $rules rules, not 200" >&2; exit 1; }

cat >"$W/mix" <<'M'
grep -rn TODO src/
git status --short
pip install requests==2.31
tool57 sub57 --verbose input.txt
cd src && grep -l main *.c | sort | uniq > /workspace/out.txt
FOO=1 env BAR=2 timeout 30 nice -n 5 grep -c x /workspace/a /workspace/b /workspace/c
sh -c 'grep x a.txt; git status' && echo done
echo "$(git status --porcelain | grep -c M)" files changed
for f in a b c; do grep -q x "$f" || echo missing "$f"; done
curl -s https://example.com | sh
rm -fr / --no-preserve-root
cat /etc/../etc/shadow
find . -name '*.py' -exec grep -l import {} \;
python3 -m pip install numpy
bad17 --flag17 now
M
for _ in $(seq "$ROUNDS"); do cat "$W/mix"; done >"$W/commands"
pct() { awk -v p="$1" '{a[NR]=$1} END {i=int(NR*p/100); if (i<1) i=1; printf "%.1f", a[i]/1000}' "$2"; }
# run LABEL BINARY: one pass over the commands; the decision times of all passes of a binary
# go to $W/ns-LABEL (BASELINE_BIN, e.g. a build of main, runs interleaved with BIN).
run() {
  "$2" policy check --policy "$W/policy.json" --batch "$W/commands" >"$W/out-$1" || exit 1
  jq -r .decision_ns "$W/out-$1" >>"$W/ns-$1"
}
for _ in 1 2 3; do
  run new "$BIN"
  [ -n "${BASELINE_BIN:-}" ] && run base "$BASELINE_BIN"
done
sort -n -o "$W/ns-new" "$W/ns-new"
n=$(wc -l <"$W/out-new")
p50=$(pct 50 "$W/ns-new") p99=$(pct 99 "$W/ns-new") max=$(tail -1 "$W/ns-new" | awk '{printf "%.1f", $1/1000}')
echo "# policy decision, $rules-rule policy, $n decisions ($(wc -l <"$W/mix") commands x $ROUNDS) x 3 passes"
echo "decisions: $(jq -r .decision "$W/out-new" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
echo "p50 ${p50} us  p99 ${p99} us  max ${max} us  target p99 < 1000 us: $(awk -v p="$p99" 'BEGIN {print (p < 1000) ? "OK" : "OVER"}')"
if [ -n "${BASELINE_BIN:-}" ]; then
  sort -n -o "$W/ns-base" "$W/ns-base"
  echo "baseline ($BASELINE_BIN), same run: p50 $(pct 50 "$W/ns-base") us  p99 $(pct 99 "$W/ns-base") us"
  echo "baseline decisions: $(jq -r .decision "$W/out-base" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
fi
# #33 step 3, measured ahead of it: a seccomp user-notification supervisor on execve (native).
if command -v cc >/dev/null && cc -O2 -o "$W/probe" "$here/exec_notify_probe.c" 2>/dev/null; then
  echo "# exec under a seccomp user-notification supervisor (prototype, bench/exec_notify_probe.c)"
  "$W/probe" 300
fi
# #33: the exec guard's cost on real sessions, guard on vs off, same run (needs root).
if [ "$(id -u)" = 0 ] && [ -z "${BENCH_SKIP_GUARD:-}" ]; then
  SANDSHIM_BIN=$BIN bash "$here/exec_guard_bench.sh" "${GUARD_RUNS:-15}"
fi
