#!/usr/bin/env bash
# What gVisor's own network stack (netstack, the default for `--network proxy` sessions) costs
# against runsc's host stack (hostinet, `--network-stack hostinet`), measured in this one run,
# alternating the two so load drifts hit both alike:
#   1. proxy session create + first exec (true)
#   2. exec latency (true)
#   3. a bulk HTTP fetch through the relay: SIZE MiB from an origin on the host's loopback,
#      read inside the sandbox with nc (busybox wget fails on hostinet, see docs/DOCKER.md);
#      busybox nc's small reads into a pipe bound this on the ptrace platform (measured here,
#      2 busy cores: 7-8 MiB/s on both stacks), so it compares the stacks, not the relay's peak
# Usage: bench/session_netstack_bench.sh [RUNS] [SIZE_MIB]   (defaults 9 and 64; medians)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/integration/lib/image.sh"
. "$here/lib.sh"
require_root
RUNS=${1:-9}
SIZE=${2:-64}
BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
[ -x "$BIN" ] || die "build sandshim first (scripts/build.sh)"
W=$(mktemp -d /tmp/sandshim-nsbench.XXXXXX)
R=$(mktemp -d /run/sandshim-nsbench.XXXXXX)
chmod 755 "$W" "$R"
mkdir -p "$W/ws" "$W/www" && chmod 777 "$W/ws"
export SANDSHIM_CONFIG=$W/config.json
echo "{\"audit_dir\": \"$W/audit\"}" >"$SANDSHIM_CONFIG"
SS=("$BIN" --root "$R/ss" --backend gvisor)
install_traps
on_exit 'rm -rf "$W" "$R"'
on_exit 'for s in $("${SS[@]}" session list --json 2>/dev/null | jq -r ".[].id"); do "${SS[@]}" session delete "$s" >/dev/null 2>&1; done'
build_rootfs "$W/rootfs" >/dev/null 2>&1 || die "rootfs"
head -c $((SIZE << 20)) /dev/zero >"$W/www/big"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$W/www" >/dev/null 2>&1 &
ORIGIN=$!
on_exit 'kill $ORIGIN 2>/dev/null'
wait_until 10 curl -sf --noproxy '*' -o /dev/null "http://127.0.0.1:$PORT/big" || die "origin not up"

# The origin is on the host's loopback, which the relay refuses unless a CIDR allows it.
EGRESS=(--network proxy --allow-domain big.test --egress-resolve big.test=127.0.0.1 --allow-cidr 127.0.0.1/32)
stack_args() { [ "$1" = netstack ] && return; echo --network-stack "$1"; }
create_exec() { # ID STACK
  # shellcheck disable=SC2046 # stack_args prints nothing or two words
  "${SS[@]}" session create "$1" --rootfs "$W/rootfs" --workspace "$W/ws" "${EGRESS[@]}" $(stack_args "$2") &&
    "${SS[@]}" session exec "$1" -- true
}
FETCH="printf 'GET http://big.test:$PORT/big HTTP/1.0\r\n\r\n' | nc 10.200.0.1 3128 | wc -c"
fetch() { # ID: fails unless the whole body (and a head) came through
  local n
  n=$("${SS[@]}" session exec "$1" -- sh -c "$FETCH") && [ "$n" -gt $((SIZE << 20)) ]
}

echo "# proxy sessions on gVisor, netstack vs hostinet: $RUNS runs each, medians (host: $(nproc) cores, $(uptime | sed 's/.*load/load/'))"
declare -A cyc ex bulk
for ((i = 0; i < RUNS; i++)); do
  for s in hostinet netstack; do
    cyc[$s]+="$(time_runs 1 create_exec "$s$i" "$s") "
    "${SS[@]}" session delete "$s$i" >/dev/null 2>&1
  done
done
for s in hostinet netstack; do create_exec "warm-$s" "$s" >/dev/null 2>&1 || die "session warm-$s"; done
for ((i = 0; i < RUNS; i++)); do
  for s in hostinet netstack; do
    ex[$s]+="$(time_runs 1 "${SS[@]}" session exec "warm-$s" -- true) "
    t0=$(date +%s%N)
    fetch "warm-$s" || die "$s: the fetch through the relay failed"
    t1=$(date +%s%N)
    bulk[$s]+="$(echo "scale=3; ($t1 - $t0) / 1000000" | bc) "
  done
done
med() { printf '%s\n' $1 | median; }
report "proxy session create+exec" "hostinet" "$(med "${cyc[hostinet]}")" "$(med "${cyc[netstack]}")"
report "proxy session exec (true)" "hostinet" "$(med "${ex[hostinet]}")" "$(med "${ex[netstack]}")"
report "fetch ${SIZE} MiB via relay" "hostinet" "$(med "${bulk[hostinet]}")" "$(med "${bulk[netstack]}")"
for s in hostinet netstack; do
  printf '%-34s %s: %.0f MiB/s\n' "fetch throughput" "$s" "$(echo "scale=3; $SIZE * 1000 / $(med "${bulk[$s]}")" | bc)"
done
