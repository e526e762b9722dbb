#!/usr/bin/env bash
# Native backend benchmark: `run` of /bin/true on the same busybox bundle with
# sandshim --backend native, crun and runc, interleaved, medians of RUNS (default 20).
# Targets (#34): sandshim at most crun (1.0x), and faster than runc.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# crun refuses this host's hybrid cgroup layout (v1 controllers + an empty unified mount).
# All three runtimes are measured in one private mount namespace without the unified mount.
if [ -z "${NATIVE_BENCH_INNER:-}" ] && grep -q ' /sys/fs/cgroup/unified ' /proc/self/mountinfo; then
  exec env NATIVE_BENCH_INNER=1 unshare -m --propagation private bash -c 'umount /sys/fs/cgroup/unified && exec bash "$0" "$@"' "$0" "$@"
fi
. "$here/../tests/integration/lib/image.sh"
. "$here/lib.sh"
require_root
RUNS=${1:-20}
BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
W=$(mktemp -d /tmp/sandshim-nbench.XXXXXX)
R=$(mktemp -d /run/sandshim-nbench.XXXXXX)
chmod 755 "$W"
install_traps
on_exit 'rm -rf "$W" "$R"'
make_bundle "$W/b" /bin/true >/dev/null || die "bundle"
# A private cgroup per run (runc and crun create one too) and no terminal.
jq '.process.terminal = false' "$W/b/config.json" >"$W/c" && mv "$W/c" "$W/b/config.json"
echo "# native run of /bin/true, $RUNS runs each, medians (host: $(nproc) cores; crun $(crun --version | head -1 | awk '{print $3}'), runc $(runc --version | head -1 | awk '{print $3}'))"
ss_t=() crun_t=() runc_t=()
"$BIN" --root "$R/ss" --backend native run --bundle "$W/b" warm >/dev/null 2>&1
crun --root "$R/crun" run --bundle "$W/b" warm <"$BENCH_NULL" >/dev/null 2>&1
runc --root "$R/runc" run --bundle "$W/b" warm <"$BENCH_NULL" >/dev/null 2>&1
# Each comparison in its own interleaved loop, the pair's order alternating per round: a run
# right after runc's pays part of runc's teardown (the same sandshim binary measured 23.7 ms in
# the slot after runc, 17.1 ms in the next one), and a three-way rotation still put sandshim
# after runc two rounds in three (crun one in three): the crun ratio must not carry runc's
# teardown. Against crun: ss_t/crun_t; against runc: ss2_t/runc_t.
ss2_t=()
run_ss() { ss_t+=("$(time_runs 1 "$BIN" --root "$R/ss" --backend native run --bundle "$W/b" "s$1")"); }
run_ss2() { ss2_t+=("$(time_runs 1 "$BIN" --root "$R/ss" --backend native run --bundle "$W/b" "t$1")"); }
run_crun() { crun_t+=("$(time_runs 1 crun --root "$R/crun" run --bundle "$W/b" "c$1")"); }
run_runc() { runc_t+=("$(time_runs 1 runc --root "$R/runc" run --bundle "$W/b" "r$1")"); }
for ((i = 0; i < RUNS; i++)); do
  if ((i % 2)); then run_crun "$i"; run_ss "$i"; else run_ss "$i"; run_crun "$i"; fi
done
for ((i = 0; i < RUNS; i++)); do
  if ((i % 2)); then run_runc "$i"; run_ss2 "$i"; else run_ss2 "$i"; run_runc "$i"; fi
done
ss_m=$(printf '%s\n' "${ss_t[@]}" | median)
crun_m=$(printf '%s\n' "${crun_t[@]}" | median)
runc_m=$(printf '%s\n' "${runc_t[@]}" | median)
report "native run (true)" "crun run" "$crun_m" "$ss_m" 1.00
ss2_m=$(printf '%s\n' "${ss2_t[@]}" | median)
report "native run (true)" "runc run" "$runc_m" "$ss2_m" 1.00
