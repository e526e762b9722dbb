#!/usr/bin/env bash
# Egress relay + proxy against a direct loopback connection, measured in the same run:
#   bulk: one BULK_BYTES transfer per round (default 1 GiB), MB/s, median of ROUNDS
#   setup: CONNECTS x (TCP connect [+ CONNECT handshake] + 1-byte round trip), median ms
# The proxied path is the real one a session uses: a client inside a private network
# namespace -> the relay's 127.0.0.1:3128 in that namespace -> sandshim's filtering proxy
# (rules, resolution via --resolve, address check, audit) -> the sink on the host's
# loopback. The direct path is the same client on the host -> the same sink.
# Acceptance (issue #7): throughput >= 80% of direct; added setup latency < 1 ms median.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SANDSHIM_BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
BULK_BYTES=${BULK_BYTES:-1073741824}
ROUNDS=${ROUNDS:-5}
CONNECTS=${CONNECTS:-200}
RELAY_MODE=${RELAY_MODE:-copy}   # the proxy's --relay-mode: copy or splice
[ "$(id -u)" -eq 0 ] || { echo "egress_bench: needs root (network namespaces)"; exit 77; }
W=$(mktemp -d /tmp/sandshim-egbench.XXXXXX)
NS=$W/netns
SINK_PORT=$((20000 + RANDOM % 20000))
cleanup() {
  "$SANDSHIM_BIN" proxy --stop --pid-file "$W/relay.pid" >/dev/null 2>&1
  "$SANDSHIM_BIN" proxy --remove-netns "$NS" >/dev/null 2>&1
  [ -n "${SINK:-}" ] && kill "$SINK" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
py() { python3 "$here/egress_bench.py" "$@"; }
python3 "$here/egress_bench.py" sink "$SINK_PORT" & SINK=$!
"$SANDSHIM_BIN" proxy --create-netns "$NS" || exit 1
"$SANDSHIM_BIN" proxy --detach --netns "$NS" --listen 127.0.0.1:3128 --pid-file "$W/relay.pid" \
  --allow-domain bench.test --resolve bench.test=127.0.0.1 --allow-cidr 127.0.0.1/32 \
  --audit "$W/audit.log" --session bench --relay-mode "${RELAY_MODE:-copy}" >/dev/null || exit 1
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $SINK_PORT))" 2>/dev/null && break; sleep 0.1; done
inns() { nsenter --net="$NS" "$@"; }

RELAY=$(jq -r .pid "$W/relay.pid")
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # utime + stime
direct_bulk=() relay_bulk=() relay_ticks=0 sink_direct=0 sink_relay=0
for ((r = 0; r < ROUNDS; r++)); do  # interleaved, so machine noise hits both paths alike
  s0=$(ticks "$SINK")
  direct_bulk+=("$(py bulk 127.0.0.1 "$SINK_PORT" "$BULK_BYTES")")
  s1=$(ticks "$SINK") r0=$(ticks "$RELAY")
  relay_bulk+=("$(inns python3 "$here/egress_bench.py" bulk 127.0.0.1 "$SINK_PORT" "$BULK_BYTES" 127.0.0.1:3128)")
  relay_ticks=$((relay_ticks + $(ticks "$RELAY") - r0))
  sink_direct=$((sink_direct + s1 - s0)) sink_relay=$((sink_relay + $(ticks "$SINK") - s1))
done
hz=$(getconf CLK_TCK)
gib=$(echo "scale=3; $BULK_BYTES * $ROUNDS / 1073741824" | bc)
db=$(printf '%s\n' "${direct_bulk[@]}" | median)
rb=$(printf '%s\n' "${relay_bulk[@]}" | median)

dc=$(py connect 127.0.0.1 "$SINK_PORT" "$CONNECTS" | median)
rc=$(inns python3 "$here/egress_bench.py" connect 127.0.0.1 "$SINK_PORT" "$CONNECTS" 127.0.0.1:3128 | median)
dc2=$(py connect 127.0.0.1 "$SINK_PORT" "$CONNECTS" | median)
rc2=$(inns python3 "$here/egress_bench.py" connect 127.0.0.1 "$SINK_PORT" "$CONNECTS" 127.0.0.1:3128 | median)
dcm=$(printf '%s\n%s\n' "$dc" "$dc2" | sort -n | head -1)
rcm=$(printf '%s\n%s\n' "$rc" "$rc2" | sort -n | head -1)

ratio=$(echo "scale=3; $rb / $db" | bc)
added=$(echo "scale=3; $rcm - $dcm" | bc)
bv=$([ "$(echo "$ratio >= 0.80" | bc)" = 1 ] && echo OK || echo UNDER)
lv=$([ "$(echo "$added < 1.0" | bc)" = 1 ] && echo OK || echo OVER)
lines=$(wc -l <"$W/audit.log")
echo "bulk $((BULK_BYTES >> 20)) MiB x $ROUNDS (MB/s) direct: ${direct_bulk[*]}"
echo "bulk $((BULK_BYTES >> 20)) MiB x $ROUNDS (MB/s) relay:  ${relay_bulk[*]}"
printf 'bulk throughput     direct %8.1f MB/s  relay+proxy %8.1f MB/s  ratio %.3f  %s (>= 0.80)\n' "$db" "$rb" "$ratio" "$bv"
printf 'connection setup    direct %8.3f ms    relay+proxy %8.3f ms    added %+.3f ms  %s (< 1 ms), median of %d (best of 2 runs)\n' \
  "$dcm" "$rcm" "$added" "$lv" "$CONNECTS"
printf 'CPU per GiB         relay+proxy process %.2f s; sink %.2f s direct, %.2f s via relay\n' \
  "$(echo "scale=3; $relay_ticks / $hz / $gib" | bc)" "$(echo "scale=3; $sink_direct / $hz / $gib" | bc)" \
  "$(echo "scale=3; $sink_relay / $hz / $gib" | bc)"
echo "cores: $(nproc)"
echo "relay mode: $RELAY_MODE; load average at the end: $(cut -d" " -f1-3 /proc/loadavg)"
echo "audit lines written: $lines (one per proxied connection)"
