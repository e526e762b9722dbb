#!/usr/bin/env bash
# What a seccomp filter installed by a stub inside the sandbox would cost a gVisor exec
# (docs/EXEC_SECCOMP.md): one container per runsc, `sandshim exec ID true` against
# `sandshim exec ID /stub/proto_stub /stub/filter.bpf true`, N rounds, the pair's order
# alternating, ratio in the same run. The prototype stub is static glibc (a libc-free one, like
# ctx-helper/run, starts ~1.5 ms cheaper in the Sentry); the filter is docker's allow-list
# without its argument conditions (same order of size: ~300 instructions).
# Usage: exec_seccomp_bench.sh SANDSHIM [N] [RUNSC...]   (root; a python3 image in the cache)
set -u
S=${1:?sandshim binary}; N=${2:-20}; shift 2 || shift $#
RUNSCS=("$@"); [ ${#RUNSCS[@]} -gt 0 ] || RUNSCS=(/usr/bin/runsc /var/cache/sandshim-test/runsc-trixie/usr/bin/runsc)
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/exec-seccomp-bench.XXXXXX); trap 'umount "$W"/b/rootfs 2>/dev/null; rm -rf "$W"' EXIT
IMAGE=$("$S" rootfs build "debootstrap:bookworm+curl,python3,ca-certificates") || exit 1
mkdir -p "$W/stub"
: >"$W/stdin"  # stdin of every run: never a host device (a runsc chowns the stdio it is handed)
"$S" spec -b "$W" && python3 - "$W/config.json" "$W/names.h" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = sorted({n for s in d["linux"]["seccomp"]["syscalls"] if s["action"] == "SCMP_ACT_ALLOW" and not s.get("args") for n in s["names"]})
open(sys.argv[2], "w").write("static const char* kNames[] = {" + ",".join(f'"{n}"' for n in names) + "};\n")
PY
gcc -O2 -I"$W" -o "$W/export" "$HERE/proto_export.c" -lseccomp && "$W/export" "$W/stub/filter.bpf" || exit 1
gcc -O2 -static -o "$W/stub/proto_stub" "$HERE/proto_stub.c" || exit 1
for runsc in "${RUNSCS[@]}"; do
  b=$W/b; mkdir -p "$b"/{rootfs,upper,work}
  mount -t overlay overlay -o "lowerdir=$IMAGE,upperdir=$b/upper,workdir=$b/work" "$b/rootfs"
  "$S" spec -b "$b"
  jq --arg s "$W/stub" '.process.args = ["sleep", "600"] | .process.terminal = false | .root.readonly = false
     | .mounts += [{"destination": "/stub", "type": "bind", "source": $s, "options": ["rbind", "ro"]}]' \
     "$b/config.json" >"$b/c" && mv "$b/c" "$b/config.json"
  echo "{\"runsc\": \"$runsc\"}" >"$W/cfg.json"
  X() { SANDSHIM_CONFIG=$W/cfg.json "$S" --root "$W/root" "$@"; }
  (cd "$b" && X --backend gvisor create --bundle "$b" bench <"$W/stdin" >"$W/init.log" 2>&1) && X start bench || exit 1
  echo "$runsc: plain $(X exec bench grep Seccomp: /proc/self/status <"$W/stdin" | tr -s '\t ' ' '), stub $(X exec bench /stub/proto_stub /stub/filter.bpf grep Seccomp: /proc/self/status <"$W/stdin" | tr -s '\t ' ' ')"
  tp=0 ts=0
  for _ in $(seq "$N"); do
    a=$(date +%s%N); X exec bench true <"$W/stdin"; m=$(date +%s%N); X exec bench /stub/proto_stub /stub/filter.bpf true <"$W/stdin"; e=$(date +%s%N)
    tp=$((tp + m - a)) ts=$((ts + e - m))
    a=$(date +%s%N); X exec bench /stub/proto_stub /stub/filter.bpf true <"$W/stdin"; m=$(date +%s%N); X exec bench true <"$W/stdin"; e=$(date +%s%N)
    ts=$((ts + m - a)) tp=$((tp + e - m))
  done
  echo "$runsc: exec true $((tp / 2 / N / 1000)) us, through the stub $((ts / 2 / N / 1000)) us, ratio $(echo "scale=3; $ts / $tp" | bc)"
  X delete --force bench; umount "$b/rootfs"; rm -rf "$b"
done
