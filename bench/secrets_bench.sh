#!/usr/bin/env bash
# Secrets (issue #17): what injection costs over plain proxying, and TLS interception's
# throughput, each against the direct connection in the same run. One origin (Python, HTTP and
# HTTPS with its own CA) on the host's loopback; two `sandshim proxy` processes in front of it:
#   plain   the usual proxy: absolute-form HTTP forwarding, CONNECT as an opaque tunnel;
#   secrets the same with one secret for bench.test (header template), so HTTP requests get
#           the value put in and HTTPS CONNECTs are intercepted (session CA leaf to the client,
#           verified TLS to the origin).
# The client is the same Python for every path, one new connection per request.
#   REQUESTS (default 200) per latency series; BULK_BYTES (default 256 MiB) per transfer; ROUNDS (3).
#   OLD_SANDSHIM_BIN: an older build, run beside the new one as a third "secrets" proxy with the
#   same rules and value, interleaved in the same rounds: injection's cost, old against new.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SANDSHIM_BIN=${SANDSHIM_BIN:-$here/../build/sandshim}
REQUESTS=${REQUESTS:-200}
BULK_BYTES=${BULK_BYTES:-268435456}
ROUNDS=${ROUNDS:-3}
W=$(mktemp -d /tmp/sandshim-secbench.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
trap "exit 143" TERM INT
py() { python3 "$here/secrets_bench.py" "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Certificates: the origin's CA and server certificate; the proxy's "session" CA.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=bench origin CA" \
  -keyout "$W/oca.key" -out "$W/oca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=bench.test" -addext "subjectAltName=DNS:bench.test" \
  -keyout "$W/srv.key" -out "$W/srv.csr" 2>/dev/null
openssl x509 -req -in "$W/srv.csr" -CA "$W/oca.pem" -CAkey "$W/oca.key" -CAcreateserial -days 1 \
  -extfile <(printf 'subjectAltName=DNS:bench.test\n') -out "$W/srv.pem" 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=bench session CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" \
  -keyout "$W/sca.key" -out "$W/sca.pem" 2>/dev/null
cat "$W/oca.pem" "$W/sca.pem" >"$W/client-trust.pem"  # the client trusts both (direct, tunnel, intercepted)
head -c 40 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$W/value"
HP=$(free_port) SP=$(free_port)
# Plain HTTP injection is opt-in (scheme=http, the port named); older builds ignore "schemes".
echo '[{"name":"BENCH","hosts":["bench.test:'"$HP"'","bench.test:'"$SP"'"],"schemes":["http","https"],"header":"Authorization: Bearer {}","placeholder":"sshim-secret-0123456789abcdef0123456789abcdef"}]' >"$W/rules.json"
OLD=${OLD_SANDSHIM_BIN:-}
python3 "$here/secrets_bench.py" origin "$HP" & PIDS+=($!)
python3 "$here/secrets_bench.py" origin "$SP" "$W/srv.pem" "$W/srv.key" & PIDS+=($!)
COMMON=(--allow-domain bench.test --resolve bench.test=127.0.0.1 --allow-cidr 127.0.0.1/32)
"$SANDSHIM_BIN" proxy --listen 127.0.0.1:0 --pid-file "$W/plain.pid" "${COMMON[@]}" --audit "$W/plain.audit" 2>"$W/plain.log" &
PIDS+=($!)
"$SANDSHIM_BIN" proxy --listen 127.0.0.1:0 --pid-file "$W/sec.pid" "${COMMON[@]}" --audit "$W/sec.audit" \
  --secrets "$W/rules.json" --secrets-socket "$W/control.sock" --secrets-ca-key "$W/sca.key" \
  --secrets-ca-cert "$W/sca.pem" --secrets-trust "$W/oca.pem" 2>"$W/sec.log" &
PIDS+=($!)
if [ -n "$OLD" ]; then
  "$OLD" proxy --listen 127.0.0.1:0 --pid-file "$W/old.pid" "${COMMON[@]}" --audit "$W/old.audit" \
    --secrets "$W/rules.json" --secrets-socket "$W/old.sock" --secrets-ca-key "$W/sca.key" \
    --secrets-ca-cert "$W/sca.pem" --secrets-trust "$W/oca.pem" 2>"$W/old.log" &
  PIDS+=($!)
fi
for _ in $(seq 50); do [ -s "$W/plain.pid" ] && [ -s "$W/sec.pid" ] && [ -S "$W/control.sock" ] && break; sleep 0.1; done
py set "$W/control.sock" BENCH "$W/value" || { cat "$W/sec.log"; exit 1; }
if [ -n "$OLD" ]; then
  for _ in $(seq 50); do [ -s "$W/old.pid" ] && [ -S "$W/old.sock" ] && break; sleep 0.1; done
  py set "$W/old.sock" BENCH "$W/value" || { cat "$W/old.log"; exit 1; }
  OLDP=127.0.0.1:$(jq -r .listen "$W/old.pid" | sed 's/.*://')
fi
PLAIN=127.0.0.1:$(jq -r .listen "$W/plain.pid" | sed 's/.*://')
SEC=127.0.0.1:$(jq -r .listen "$W/sec.pid" | sed 's/.*://')
T=$W/client-trust.pem

lat() { py latency "$1" "$REQUESTS" "$T" ${2:+"$2"} | median; }
declare -A L
for scheme in http https; do
  port=$HP
  [ $scheme = https ] && port=$SP
  url=$scheme://bench.test:$port/small
  py latency "$url" 10 "$T" "$SEC" >/dev/null  # warm: the leaf is minted on first use
  [ -z "$OLD" ] || py latency "$url" 10 "$T" "$OLDP" >/dev/null
  for r in $(seq "$ROUNDS"); do  # interleaved, so machine noise hits every path alike
    L[$scheme-direct]+="$(lat "$url") " L[$scheme-plain]+="$(lat "$url" "$PLAIN") " L[$scheme-secret]+="$(lat "$url" "$SEC") "
    [ -z "$OLD" ] || L[$scheme-old]+="$(lat "$url" "$OLDP") "
  done
done
best() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -n | head -1; }
grep -q '"decision":"inject"' "$W/sec.audit" || { echo "secrets_bench: no injection happened"; exit 1; }
declare -A B
for r in $(seq "$ROUNDS"); do
  B[direct]+="$(py bulk "https://bench.test:$SP/big" "$BULK_BYTES" "$T") "
  B[tunnel]+="$(py bulk "https://bench.test:$SP/big" "$BULK_BYTES" "$T" "$PLAIN") "
  B[intercept]+="$(py bulk "https://bench.test:$SP/big" "$BULK_BYTES" "$T" "$SEC") "
done
med() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | median; }

echo "per-request latency, median of $REQUESTS new connections (best of $ROUNDS series), ms:"
for scheme in http https; do
  d=$(best "${L[$scheme-direct]}") p=$(best "${L[$scheme-plain]}") s=$(best "${L[$scheme-secret]}")
  printf '  %-5s direct %7.3f  proxy %7.3f  proxy+secret %7.3f  injection adds %+7.3f ms over the proxy (%.2fx), %+7.3f over direct\n' \
    "$scheme" "$d" "$p" "$s" "$(echo "$s - $p" | bc)" "$(echo "scale=3; $s / $p" | bc)" "$(echo "$s - $d" | bc)"
  [ -z "$OLD" ] || { o=$(best "${L[$scheme-old]}")
    printf '  %-5s old build: proxy+secret %7.3f, injection adds %+7.3f ms; new minus old %+7.3f ms\n' \
      "$scheme" "$o" "$(echo "$o - $p" | bc)" "$(echo "$s - $o" | bc)"; }
done
[ -z "$OLD" ] || grep -q '"decision":"inject"' "$W/old.audit" || { echo "secrets_bench: the old build injected nothing"; exit 1; }
d=$(med "${B[direct]}") t=$(med "${B[tunnel]}") i=$(med "${B[intercept]}")
printf 'HTTPS download %d MiB, median of %d (MB/s): direct %.1f  opaque tunnel %.1f (%.3fx)  intercepted %.1f (%.3fx of direct, %.3fx of tunnel)\n' \
  "$((BULK_BYTES >> 20))" "$ROUNDS" "$d" "$t" "$(echo "scale=3; $t / $d" | bc)" "$i" "$(echo "scale=3; $i / $d" | bc)" \
  "$(echo "scale=3; $i / $t" | bc)"
echo "  (the origin and the client are Python on the same $(nproc) cores: ratios, not absolute numbers)"
echo "injection audit lines: $(grep -c '"decision":"inject"' "$W/sec.audit"); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
