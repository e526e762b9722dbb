# Sourced by secrets_test.sh: attacks on "the code never reads a value" against two real origin
# servers from Debian besides the recording one -- Python's stdlib wsgiref (CGI/WSGI header
# folding: X_Request_Id is X-Request-Id) and Node's http (WHATWG URL paths: /v1/%2e%2e/echo
# is /echo) -- each over plain HTTP and HTTPS, each with the CORS and request-id middleware
# behaviour that reflects request headers, and an /echo path that quotes every header. Every
# attack has its positive control: the same request with a harmless marker IS reflected, or
# the same injection in scope DOES reach the echo. One `session exec` runs all cases (curl);
# the output is split per case on the host and grepped for the canary values.

WSGI_HTTP=8081 WSGI_HTTPS=8444 NODE_HTTP=8082 NODE_HTTPS=8445

write_attack_origins() {
  cat >"$WORK/wsgi_origin.py" <<'PY'
import ssl, sys
from wsgiref.simple_server import make_server, WSGIRequestHandler
def app(env, start):
    h = [("Content-Type", "text/plain")]
    # What CORS and request-id middleware do, reading the WSGI environ (HTTP_ + upper case, - -> _).
    if env.get("HTTP_ORIGIN"): h.append(("Access-Control-Allow-Origin", env["HTTP_ORIGIN"]))
    if env.get("HTTP_ACCESS_CONTROL_REQUEST_HEADERS"):
        h.append(("Access-Control-Allow-Headers", env["HTTP_ACCESS_CONTROL_REQUEST_HEADERS"]))
    if env.get("HTTP_X_REQUEST_ID"): h.append(("X-Request-Id", env["HTTP_X_REQUEST_ID"]))
    body = "WSGI-OK %s %s\n" % (env["REQUEST_METHOD"], env["PATH_INFO"])
    if "/echo" in env["PATH_INFO"]:  # a debug endpoint: every request header as the app sees it
        body += "".join("%s=%s\n" % (k, v) for k, v in sorted(env.items()) if k.startswith("HTTP_"))
    start("200 OK", h)
    return [body.encode("latin-1")]
class Quiet(WSGIRequestHandler):
    def log_message(self, *a): pass
srv = make_server(sys.argv[1], int(sys.argv[2]), app, handler_class=Quiet)
if len(sys.argv) > 3:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
  cat >"$WORK/node_origin.js" <<'JS'
const http = require("http"), https = require("https"), fs = require("fs");
const [bind, port, cert, key] = process.argv.slice(2);
function app(req, res) {
  const h = { "content-type": "text/plain" };  // express cors({origin: true}) and a request-id middleware
  if (req.headers["origin"]) h["access-control-allow-origin"] = req.headers["origin"];
  if (req.headers["access-control-request-headers"]) h["access-control-allow-headers"] = req.headers["access-control-request-headers"];
  if (req.headers["x-request-id"]) h["x-request-id"] = req.headers["x-request-id"];
  const path = new URL(req.url, "http://x").pathname;  // what routers match: dot segments resolved
  let body = "NODE-OK " + req.method + " " + path + "\n";
  if (path.includes("/echo")) for (const [k, v] of Object.entries(req.headers)) body += k + "=" + v + "\n";
  res.writeHead(200, h);
  res.end(body);
}
const srv = cert ? https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, app) : http.createServer(app);
srv.listen(+port, bind);
JS
}

start_attack_origins() { # in the origin host namespace, on good.test's address
  local srv=$WORK/tls/trusted/srv
  write_attack_origins
  ip netns exec "$TH" python3 "$WORK/wsgi_origin.py" "$GOOD" $WSGI_HTTP >>"$WORK/origin/server.log" 2>&1 &
  ip netns exec "$TH" python3 "$WORK/wsgi_origin.py" "$GOOD" $WSGI_HTTPS "$srv.pem" "$srv.key" >>"$WORK/origin/server.log" 2>&1 &
  ip netns exec "$TH" node "$WORK/node_origin.js" "$GOOD" $NODE_HTTP >>"$WORK/origin/server.log" 2>&1 &
  ip netns exec "$TH" node "$WORK/node_origin.js" "$GOOD" $NODE_HTTPS "$srv.pem" "$srv.key" >>"$WORK/origin/server.log" 2>&1 &
  local p
  for p in $WSGI_HTTP $NODE_HTTP; do
    wait_until 10 curl -sf --noproxy '*' "http://$GOOD:$p/up" -o /dev/null || die "origin :$p not up"
  done
  for p in $WSGI_HTTPS $NODE_HTTPS; do
    wait_until 10 curl -sf --noproxy '*' --cacert "$WORK/tls/trusted/ca.pem" --resolve "good.test:$p:$GOOD" \
      "https://good.test:$p/up" -o /dev/null || die "origin :$p not up"
  done
}

# The cases, run inside: "=== NAME" then curl's headers and body. $TOKEN: a placeholder
# secret (X-Token, http+https on the test ports); SCOPED: a template (X-Api-Key) for
# POST /v1/ over HTTPS only.
attack_script() {
  cat <<'SH'
c() { name=$1; shift; echo "=== $name"; curl -s -D- --max-time 10 --path-as-is "$@" 2>&1; echo; }
for b in http://good.test:8081 https://good.test:8444 http://good.test:8082 https://good.test:8445; do
  s=${b##*:}
  c "ctl-origin-$s" -H "Origin: mk-origin-$s" "$b/cors"
  c "ctl-acrh-$s" -X OPTIONS -H "Access-Control-Request-Headers: mk-acrh-$s" "$b/cors"
  c "ctl-acrh_-$s" -X OPTIONS -H "Access_Control_Request_Headers: mk-acrhu-$s" "$b/cors"
  c "ctl-xrid_-$s" -H "X_Request_Id: mk-xrid-$s" "$b/rid"
  for h in Origin ORIGIN Access-Control-Request-Headers Access_Control_Request_Headers ACCESS_CONTROL_REQUEST_HEADERS \
           Access.Control.Request.Headers access~control~request~headers X-Request-Id X_Request_Id x.request.id X_REQUEST_ID; do
    c "atk-$h-$s" -X OPTIONS -H "$h: $TOKEN" "$b/cors"
  done
  J="-H Content-Type:application/json -d x"  # (a form body may carry _method: refused for a method-scoped secret)
  c "ctl-scope-$s" -X POST $J "$b/v1/echo"
  for p in /echo /v1/../echo /v1/%2e%2e/echo /v1/..%2fecho /v1/..%2Fecho /v1/..\;/echo /v1/.%2e/echo //v1/../echo; do
    c "scope-POST-$p-$s" -X POST $J "$b$p"
  done
  c "scope-GET-/v1/echo-$s" "$b/v1/echo"
  c "scope-override-header-$s" -X POST $J -H "X-HTTP-Method-Override: GET" "$b/v1/echo"
  c "scope-override-query-$s" -X POST $J "$b/v1/echo?_method=GET"
  # _method as PHP and Laravel decode query keys, and in a form body (red team 2026-11-29).
  c "scope-override-dotquery-$s" -X POST $J "$b/v1/echo?.method=GET"
  c "scope-override-encquery-$s" -X POST $J "$b/v1/echo?a=1&%5F%6Dethod=GET"
  c "scope-override-form-$s" -X POST -d _method=GET "$b/v1/echo"
  c "scope-override-path-$s" -X POST $J -H "X-Original-URL: /admin" "$b/v1/echo"
  c "scope-placeholder-$s" -X GET -H "X-Api-Key: $SCOPED" "$b/echo"
done
SH
}

split_cases() { # FILE DIR: one file per "=== NAME" block
  mkdir -p "$2"
  awk -v d="$2" '/^=== /{n=substr($0, 5); gsub(/[^A-Za-z0-9._~-]/, "_", n); if (f) close(f); f=d "/" n; next}
                f{print > f}' "$1"
}

check_reflection_attacks() { # BACKEND: header spellings against wsgiref and Node, HTTP and HTTPS
  local BE=$1 id d s f leaks="" bad=""
  backend_ok "$BE" || return $(skip "no runsc")
  session_for "$BE" || return $(fail "$REASON")
  id=$SID d=$WORK/attacks-$BE
  attack_script >"$WORK/ws-$id/attacks.sh"
  inside "$id" sh /workspace/attacks.sh >"$WORK/attacks-$BE.out" 2>&1
  rm -f "$WORK/ws-$id/attacks.sh"
  split_cases "$WORK/attacks-$BE.out" "$d"
  for s in $WSGI_HTTP $WSGI_HTTPS $NODE_HTTP $NODE_HTTPS; do
    # Positive controls: each server reflects Origin and the preflight's headers; wsgiref folds '_'.
    grep -qi "^Access-Control-Allow-Origin: mk-origin-$s" "$d/ctl-origin-$s" || bad+=" ctl-origin-$s"
    grep -qi "^Access-Control-Allow-Headers: mk-acrh-$s" "$d/ctl-acrh-$s" || bad+=" ctl-acrh-$s"
    if [ "$s" = $WSGI_HTTP ] || [ "$s" = $WSGI_HTTPS ]; then
      grep -qi "^Access-Control-Allow-Headers: mk-acrhu-$s" "$d/ctl-acrh_-$s" || bad+=" ctl-acrh_-$s"
      grep -qi "^X-Request-Id: mk-xrid-$s" "$d/ctl-xrid_-$s" || bad+=" ctl-xrid_-$s"
    fi
    for f in "$d"/atk-*-"$s"; do
      seen token "$f" && leaks+=" ${f##*/}"
      grep -q "secret-reflection" "$f" || bad+=" ${f##*/}(not refused)"
    done
  done
  [ -z "$bad" ] || return $(fail "$BE: controls or refusals missing:$bad")
  [ -z "$leaks" ] || fail "$BE: TOKEN's value came back:$leaks"
}

check_scope_attacks() { # BACKEND: a POST /v1/ secret never reaches another path or method (run after the above)
  local BE=$1 d s f leaks="" bad=""
  d=$WORK/attacks-$BE
  backend_ok "$BE" || return $(skip "no runsc")
  [ -d "$d" ] || return $(fail "$BE: the attack run did not happen")
  for s in $WSGI_HTTPS $NODE_HTTPS; do  # control: in scope, over TLS, the echo shows SCOPED's value
    seen scoped "$d/ctl-scope-$s" || bad+=" ctl-scope-$s"
  done
  for s in $WSGI_HTTP $NODE_HTTP; do  # TLS by default: not into plain HTTP, even in scope
    grep -q "OK POST /v1/echo" "$d/ctl-scope-$s" || bad+=" reach-$s"
    seen scoped "$d/ctl-scope-$s" && leaks+=" plain-http-$s"
  done
  for f in "$d"/scope-*; do
    seen scoped "$f" && leaks+=" ${f##*/}"
  done
  for s in $WSGI_HTTPS $NODE_HTTPS; do
    grep -q "secret-scope" "$d/scope-placeholder-$s" || bad+=" scope-placeholder-$s(not refused)"
    for o in header query dotquery encquery form path; do
      grep -q "secret-scope" "$d/scope-override-$o-$s" || bad+=" override-$o-$s(not refused)"
    done
  done
  [ -z "$bad" ] || return $(fail "$BE: controls or refusals missing:$bad")
  [ -z "$leaks" ] || fail "$BE: SCOPED's value reached an echo outside its scope:$leaks"
}
