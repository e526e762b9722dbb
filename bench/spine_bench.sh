#!/usr/bin/env bash
# Spine benchmarks (issue: OCI runtime over runsc), all measured in this one run:
#   1. `docker run --rm IMAGE true`: sandshim vs runsc registered directly (--network=host)
#   2. `run` of a bundle: sandshim run vs runsc run (same flags sandshim picks)
#   3. exec latency into a running container: sandshim exec vs runsc exec
#   4. what netstack costs in docker's bridge: `docker run --rm true` and a 64 MiB download
#      from the host over the bridge, sandshim (netstack) vs sandshim with the host stack
# Interleaves the contenders run by run so drift on a busy machine hits both alike.
# Usage: bench/spine_bench.sh [RUNS]   (default 20; medians reported)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/integration/lib/daemons.sh"
. "$here/../tests/integration/lib/image.sh"
. "$here/lib.sh"
require_root
RUNS=${1:-20}
BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
[ -x "$BIN" ] || die "build sandshim first (scripts/build.sh)"
command -v bc >/dev/null || die "bc missing (scripts/install-deps.sh installs it)"
W=$(mktemp -d /tmp/sandshim-bench.XXXXXX)
# State roots live on tmpfs as in production (runc's /run/runc, docker's /run/docker).
R=$(mktemp -d /run/sandshim-bench.XXXXXX)
chmod 755 "$W" "$R"
install_traps
on_exit 'rm -rf "$W" "$R"'

echo "# sandshim spine benchmarks, $RUNS runs each, medians (host: $(nproc) cores, runsc $(runsc --version | head -1 | awk '{print $3}'))"

# --- 2 and 3 first: no daemons needed -------------------------------------------
make_bundle "$W/b" true >/dev/null || die "bundle"
PLATFORM=$(jq -r .platform "$(ls -t /run/sandshim/cache/runsc-probe-*.json 2>/dev/null | head -1)" 2>/dev/null || echo ptrace)
RAW=(runsc --root "$R/raw" --network=none --platform="$PLATFORM")
SS=("$BIN" --root "$R/ss")
"${SS[@]}" run --bundle "$W/b" warmup >/dev/null 2>&1  # the first call probes runsc once
raw_t=() ss_t=()
for ((i = 0; i < RUNS; i++)); do
  raw_t+=("$(time_runs 1 "${RAW[@]}" run --bundle "$W/b" "raw$i")")
  ss_t+=("$(time_runs 1 "${SS[@]}" run --bundle "$W/b" "ss$i")")
done
raw_m=$(printf '%s\n' "${raw_t[@]}" | median); ss_m=$(printf '%s\n' "${ss_t[@]}" | median)
report "run of a bundle (true)" "runsc run" "$raw_m" "$ss_m" "" 10

jq '.process.args = ["sleep","1000"]' "$W/b/config.json" >"$W/b/c.json" && mv "$W/b/c.json" "$W/b/config.json"
"${RAW[@]}" run --detach --bundle "$W/b" rawexec <"$BENCH_NULL" >"$BENCH_NULL" 2>&1
"${SS[@]}" run --detach --bundle "$W/b" ssexec >/dev/null 2>&1
on_exit '"${RAW[@]}" delete --force rawexec >/dev/null 2>&1; "${SS[@]}" delete --force ssexec >/dev/null 2>&1'
raw_t=() ss_t=()
for ((i = 0; i < RUNS; i++)); do
  raw_t+=("$(time_runs 1 "${RAW[@]}" exec rawexec true)")
  ss_t+=("$(time_runs 1 "${SS[@]}" exec ssexec true)")
done
raw_m=$(printf '%s\n' "${raw_t[@]}" | median); ss_m=$(printf '%s\n' "${ss_t[@]}" | median)
report "exec latency (true)" "runsc exec" "$raw_m" "$ss_m" "" 5
"${RAW[@]}" delete --force rawexec >/dev/null 2>&1; "${SS[@]}" delete --force ssexec >/dev/null 2>&1

# --- 1: docker ---------------------------------------------------------------------
add_docker_runtime sandshim "$BIN"
add_docker_runtime runsc-host /usr/bin/runsc --network=host
add_docker_runtime sandshim-hostinet "$BIN" --runsc-flag=--network=host
on_exit 'stop_daemons "$W/d"'
start_daemons "$W/d" || die "cannot start private dockerd"
build_rootfs "$W/rootfs" >/dev/null 2>&1 && import_docker_image "$W/rootfs" || die "image"
for rt in sandshim runsc-host sandshim-hostinet; do timeout 60 "${DOCKER_CMD[@]}" run --rm --runtime=$rt "$TEST_IMAGE" true >/dev/null 2>&1; done
raw_t=() ss_t=()
for ((i = 0; i < RUNS; i++)); do
  raw_t+=("$(time_runs 1 timeout 60 "${DOCKER_CMD[@]}" run --rm --runtime=runsc-host "$TEST_IMAGE" true)")
  ss_t+=("$(time_runs 1 timeout 60 "${DOCKER_CMD[@]}" run --rm --runtime=sandshim "$TEST_IMAGE" true)")
done
raw_m=$(printf '%s\n' "${raw_t[@]}" | median); ss_m=$(printf '%s\n' "${ss_t[@]}" | median)
report "docker run --rm true" "runsc (--network=host)" "$raw_m" "$ss_m" 1.05

# --- 4: netstack -------------------------------------------------------------------
hi_t=() ns_t=()
for ((i = 0; i < RUNS; i++)); do
  hi_t+=("$(time_runs 1 timeout 60 "${DOCKER_CMD[@]}" run --rm --runtime=sandshim-hostinet "$TEST_IMAGE" true)")
  ns_t+=("$(time_runs 1 timeout 60 "${DOCKER_CMD[@]}" run --rm --runtime=sandshim "$TEST_IMAGE" true)")
done
hi_m=$(printf '%s\n' "${hi_t[@]}" | median); ns_m=$(printf '%s\n' "${ns_t[@]}" | median)
report "docker run --rm true (netstack)" "sandshim hostinet" "$hi_m" "$ns_m"
# Throughput: 64 MiB from an httpd on the bridge address, read with nc (busybox wget fails
# under hostinet, see docs/DOCKER.md), inside one container per stack, timed inside.
mkdir -p "$W/www" && head -c 67108864 /dev/zero >"$W/www/big"
/bin/busybox httpd -f -p "$BRIDGE_IP:18099" -h "$W/www" & httpd=$!
on_exit 'kill $httpd 2>/dev/null'
# busybox date has no %N here: /proc/uptime (centiseconds) brackets the transfer.
fetch='t0=$(cut -d" " -f1 /proc/uptime); printf "GET /big HTTP/1.0\r\n\r\n" | nc '"$BRIDGE_IP"' 18099 | wc -c >/dev/null; t1=$(cut -d" " -f1 /proc/uptime); awk "BEGIN{print ($t1 - $t0) * 1000}"'
hi_t=() ns_t=()
for ((i = 0; i < (RUNS + 1) / 2; i++)); do
  hi_t+=("$(timeout 120 "${DOCKER_CMD[@]}" run --rm --runtime=sandshim-hostinet "$TEST_IMAGE" sh -c "$fetch")")
  ns_t+=("$(timeout 120 "${DOCKER_CMD[@]}" run --rm --runtime=sandshim "$TEST_IMAGE" sh -c "$fetch")")
done
hi_m=$(printf '%s\n' "${hi_t[@]}" | median); ns_m=$(printf '%s\n' "${ns_t[@]}" | median)
report "64 MiB over the bridge (netstack)" "sandshim hostinet" "$hi_m" "$ns_m"
