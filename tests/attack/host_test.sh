#!/usr/bin/env bash
# Unprivileged local users and sandboxed code against the host side of sandshim: gVisor
# control sockets (S1), the state directory (M1), backend selection by annotation (M4) and
# the egress proxy (M2, M8). Every check first shows, with a positive control, that it sees
# the attack succeed (raw runsc, a world-readable file, the opt-in config, the request sent
# without the proxy), then that sandshim blocks it. The attacker is a fresh uid with no
# passwd entry and no groups (setpriv), as a tenant of a shared host would be.
set -u
HERE=$(cd "$(dirname "$0")/../integration" && pwd)
. "$HERE/lib/daemons.sh"
. "$HERE/lib/image.sh"
. "$HERE/lib/podman.sh"
require_root
require_cmds jq python3 setpriv nsenter timeout runsc
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
S=$(readlink -f "$SANDSHIM_BIN")

WORK=$(mktemp -d /tmp/sandshim-atk-host.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'for s in $("$S" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$S" --root "$ROOT" session delete "$s" >/dev/null 2>&1; done'
on_exit 'grep -o "$WORK/[^ ]*" /proc/self/mountinfo | sort -r | xargs -r -n1 umount -l 2>/dev/null'
build_rootfs "$WORK/rootfs" >/dev/null 2>&1 || die "rootfs"
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
# A uid nobody has: no passwd entry, no groups, no files.
ATK=$((50000 + RANDOM % 10000))
while getent passwd "$ATK" >/dev/null; do ATK=$((ATK + 1)); done
PY=/usr/bin/python3  # not a per-user shim: the attacker runs it too
as_user() { setpriv --reuid="$ATK" --regid="$ATK" --clear-groups "$@"; }
LEAKS=("$CHECK_LEAKS" --match "$WORK" --root "$ROOT")
no_leaks() { bg_stop; "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks

# The review's S1 call, read-only: containerManager.Processes on the sandbox's abstract
# control socket. Prints the answer, or "connect-failed <errno>".
cat >"$WORK/s1.py" <<'EOF'
import json, socket, sys
cid = sys.argv[1]
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(b"\0runsc-sandbox." + cid.encode() + b"\0")
except OSError as e:
    print("connect-failed", e.errno); sys.exit(3)
s.sendall(json.dumps({"method": "containerManager.Processes", "arg": cid}).encode())
print(s.recv(65536).decode(errors="replace"))
EOF
chmod 644 "$WORK/s1.py"

# The runsc id of the sandbox whose runsc command line names PATTERN (our root or bundle).
sandbox_id_naming() { # PATTERN
  local p
  for p in $(pgrep -f "[r]unsc-sandbox.*$1" 2>/dev/null; pgrep -f "runsc.*boot.*$1" 2>/dev/null); do
    tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | tail -1
    return 0
  done
  return 1
}

# The attack against one sandbox: its socket must not be in the host namespace, a local
# user's call must fail, and (so the negative is not vacuous) the socket must exist in the
# control namespace sandshim made for it, where root still reaches it.
assert_control_unreachable() { # RUNSC_ID SEARCH_DIR
  local id=$1 ns out
  [ -n "$id" ] || return $(fail "no sandbox found")
  if grep -q "runsc-sandbox\.$id" /proc/net/unix; then return $(fail "@runsc-sandbox.$id is in the host netns"); fi
  out=$(as_user "$PY" "$WORK/s1.py" "$id" 2>&1)
  assert_contains "$out" "connect-failed" "uid $ATK's call to $id" || return
  # The root's shared one (<root>/@control/netns), or an older container's own.
  ns=$(find "$2" \( -path '*/@control/netns' -o -name control.netns \) 2>/dev/null | head -1)
  [ -n "$ns" ] || return $(fail "no control namespace under $2")
  nsenter --net="$ns" grep -q "runsc-sandbox\.$id" /proc/net/unix || return $(fail "socket not in $ns")
  out=$(nsenter --net="$ns" "$PY" "$WORK/s1.py" "$id" 2>&1)
  assert_contains "$out" '"success":true' "root inside the control namespace (the sandbox is alive)"
}

bundle_for() { # DIR ARGS_JSON [ANNOTATIONS_JSON]
  mkdir -p "$1" && (cd "$1" && "$S" spec >/dev/null) || return 1
  jq --arg r "$WORK/rootfs" --argjson a "$2" --argjson an "${3:-{\}}" \
    '.process.terminal=false | .root.path=$r | .process.args=$a | .annotations=$an' \
    "$1/config.json" >"$1/c" && mv "$1/c" "$1/config.json"
}

# ----------------------------------------------------------------------------- S1

check_s1_positive_raw_runsc() {
  local b=$WORK/raw-bundle id=rawatk$$ out raw=(runsc --root "$WORK/raw-root" --network=none)
  bundle_for "$b" '["sleep","300"]' || return $(fail "bundle")
  "${raw[@]}" create --bundle "$b" "$id" </dev/null >/dev/null 2>&1 && "${raw[@]}" start "$id" >/dev/null 2>&1
  local rc=$?
  chown root:root /dev/null  # raw runsc chowns the stdio it is given
  out=$(as_user "$PY" "$WORK/s1.py" "$id" 2>&1)
  "${raw[@]}" delete --force "$id" >/dev/null 2>&1
  [ $rc -eq 0 ] || return $(fail "raw runsc create/start")
  grep -q "runsc-sandbox\.$id" /proc/net/unix && return $(fail "raw sandbox socket still listed after delete")
  assert_contains "$out" '"success":true' "uid $ATK drives a raw runsc sandbox (positive control)"
}

check_s1_session() {
  local s=s1-$$ id rc=0
  "$S" --root "$ROOT" --backend gvisor session create "$s" --rootfs "$WORK/rootfs" --workspace "$WORK/rootfs/tmp" \
    >/dev/null || return $(fail "session create")
  "$S" --root "$ROOT" session exec "$s" -- true || return $(fail "session exec")
  id=$(sandbox_id_naming "$ROOT")
  assert_control_unreachable "$id" "$ROOT" || rc=1
  "$S" --root "$ROOT" session exec "$s" -- true || { rc=1; fail "session exec after the attack"; }
  "$S" --root "$ROOT" session delete "$s" || return $(fail "delete")
  return $rc
}

# S1 with one control namespace per --root (#14 bench: making one per container cost ~2 ms):
# two sandboxes share <root>/@control/netns, each still out of a local user's reach; it stays
# while a container holds it and goes with the last; gc removes it after a create killed
# while holding it, and unmounts an older container's own control.netns whose journal is gone.
ctl_mounts() { grep -c " $ROOT/@control/netns " /proc/self/mountinfo; }
check_s1_shared_control_netns() {
  local a=sh1-$$ b=sh2-$$ ida idb rc=0 legacy=$ROOT/legacy-$$
  for s in "$a" "$b"; do
    "$S" --root "$ROOT" --backend gvisor session create "$s" --rootfs "$WORK/rootfs" --workspace "$WORK/rootfs/tmp" \
      >/dev/null || return $(fail "session create $s")
  done
  assert_eq 1 "$(ctl_mounts)" "control namespaces mounted for two sessions" || rc=1
  assert_eq 700 "$(stat -c %a "$ROOT/@control")" "mode of $ROOT/@control" || rc=1
  ida=$(ls "$ROOT/@control/users" | head -1); idb=$(ls "$ROOT/@control/users" | tail -1)
  [ "$ida" != "$idb" ] || { rc=1; fail "one hold for two sessions: $(ls "$ROOT/@control/users")"; }
  assert_control_unreachable "$ida" "$ROOT" || rc=1
  assert_control_unreachable "$idb" "$ROOT" || rc=1
  "$S" --root "$ROOT" session delete "$a" || { rc=1; fail "delete $a"; }
  assert_eq 1 "$(ctl_mounts)" "control namespace kept while $b holds it" || rc=1
  "$S" --root "$ROOT" session exec "$b" -- true || { rc=1; fail "session exec in $b after $a's delete"; }
  "$S" --root "$ROOT" session delete "$b" || { rc=1; fail "delete $b"; }
  assert_eq 0 "$(ctl_mounts)" "control namespaces left after the last delete" || rc=1
  [ ! -e "$ROOT/@control" ] || { rc=1; fail "$ROOT/@control left after the last delete"; }
  # A create killed right after its journal entry and its hold: gc undoes it, the namespace goes.
  bundle_for "$WORK/crash-bundle" '["sleep","300"]' || return $(fail "bundle")
  SANDSHIM_FAULT=create.after-journal "$S" --root "$ROOT" --backend gvisor create --bundle "$WORK/crash-bundle" \
    crash-$$ </dev/null >/dev/null 2>&1
  assert_eq 1 "$(ctl_mounts)" "control namespace held by the killed create (positive control for gc)" || rc=1
  "$S" --root "$ROOT" gc >/dev/null || { rc=1; fail "gc"; }
  assert_eq 0 "$(ctl_mounts)" "control namespaces left after gc of a killed create" || rc=1
  # An older container's own namespace in a directory whose journal is gone.
  mkdir -p "$legacy" && chmod 700 "$legacy" && : >"$legacy/.lock"  # a record directory, as StateStore makes it
  "$S" proxy --create-netns "$legacy/control.netns" || return $(fail "make a legacy control.netns")
  "$S" --root "$ROOT" gc >/dev/null 2>&1
  if grep -q " $legacy/control.netns " /proc/self/mountinfo; then
    umount -l "$legacy/control.netns"; rc=1; fail "gc left $legacy/control.netns mounted"
  fi
  [ ! -e "$legacy" ] || { rm -rf "$legacy"; rc=1; fail "gc left $legacy"; }
  return $rc
}

check_s1_run() {
  local b=$WORK/run-bundle id rc=0 pid
  bundle_for "$b" '["sleep","300"]' || return $(fail "bundle")
  "$S" --root "$ROOT" --backend gvisor run --bundle "$b" run-$$ </dev/null >/dev/null 2>&1 &
  pid=$!
  wait_until 20 sh -c "pgrep -f '[r]unsc-sandbox.*$ROOT' >/dev/null" || { kill $pid; return $(fail "no sandbox"); }
  id=$(sandbox_id_naming "$ROOT")
  assert_control_unreachable "$id" "$ROOT" || rc=1
  "$S" --root "$ROOT" kill run-$$ KILL >/dev/null 2>&1
  wait $pid
  "$S" --root "$ROOT" delete --force run-$$ >/dev/null 2>&1
  return $rc
}

check_s1_docker() {
  local c id rc=0
  c=$(timeout 60 "${DOCKER_CMD[@]}" run -d --runtime sandshim-gvisor "$TEST_IMAGE" sleep 300) ||
    return $(fail "docker run")
  id=$(sandbox_id_naming "$WORK/d")
  assert_control_unreachable "$id" "$WORK/d" || rc=1
  timeout 60 "${DOCKER_CMD[@]}" rm -f "$c" >/dev/null
  return $rc
}

# docker --network host: the spec names no network namespace, so runsc would start the
# sandbox in its own (the control namespace); sandshim gives it the host's by path.
check_s1_docker_host_network() {
  local c id rc=0 inside
  c=$(timeout 60 "${DOCKER_CMD[@]}" run -d --network host --runtime sandshim-gvisor "$TEST_IMAGE" sleep 300) ||
    return $(fail "docker run --network host")
  id=$(sandbox_id_naming "$WORK/d")
  assert_control_unreachable "$id" "$WORK/d" || rc=1
  inside=$(timeout 60 "${DOCKER_CMD[@]}" exec "$c" cat /proc/net/dev 2>&1 | grep -c ':')
  [ "$inside" -gt 1 ] || { rc=1; fail "the container sees only lo: it is not on the host network"; }
  timeout 60 "${DOCKER_CMD[@]}" rm -f "$c" >/dev/null
  return $rc
}

check_s1_podman() {
  local P=$WORK/p id rc=0
  mkdir -p "$P/bin"
  write_wrapper "$P/bin/sandshim-gvisor" "$S" --backend gvisor "--root=$P/rtroot"
  podman_isolated "$P" "$P/bin/sandshim-gvisor"
  podman_pin_overlay_home "$P"
  timeout 120 "${PODMAN[@]}" load -q -i "$WORK/image.tar" >/dev/null 2>&1 || return $(skip "podman cannot load an image here")
  timeout 60 "${PODMAN[@]}" run -d --pull never --name pm-$$ "$TEST_IMAGE" sleep 300 >/dev/null || return $(fail "podman run")
  id=$(sandbox_id_naming "$P/rtroot")
  assert_control_unreachable "$id" "$P/rtroot" || rc=1
  timeout 60 "${PODMAN[@]}" rm -af -t 0 >/dev/null 2>&1
  timeout 60 "${PODMAN[@]}" system reset -f >/dev/null 2>&1 || true
  podman_teardown "$P"
  return $rc
}

check_s1_ctr() {
  local id rc=0
  timeout 60 "${CTR_CMD[@]}" -n atk run -d --runtime io.containerd.runc.v2 --runc-binary "$WORK/bin/sandshim-gvisor" \
    --runc-root "$WORK/d/ctr-root" "$TEST_IMAGE" ctr-$$ sleep 300 >/dev/null || return $(fail "ctr run")
  id=$(sandbox_id_naming "$WORK/d/ctr-root")
  assert_control_unreachable "$id" "$WORK/d/ctr-root" || rc=1
  timeout 30 "${CTR_CMD[@]}" -n atk task kill -s KILL ctr-$$ >/dev/null 2>&1
  sleep 1
  timeout 30 "${CTR_CMD[@]}" -n atk task delete -f ctr-$$ >/dev/null 2>&1
  timeout 30 "${CTR_CMD[@]}" -n atk container delete ctr-$$ >/dev/null 2>&1
  return $rc
}

# ----------------------------------------------------------------------------- M1

check_m1_state_private() {
  local canary=sk-canary-$$ be out
  # Positive control: the same user reads a 0644 file in a 0755 directory.
  mkdir -p "$WORK/open" && chmod 755 "$WORK/open" && echo "$canary" >"$WORK/open/f" && chmod 644 "$WORK/open/f"
  assert_contains "$(as_user cat "$WORK/open/f" 2>&1)" "$canary" "positive control: a world-readable file" || return
  rm -rf "$WORK/open"
  for be in gvisor native; do
    "$S" --root "$ROOT" --backend $be session create m1-$be-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/rootfs/tmp" \
      --env OPENAI_API_KEY=$canary >/dev/null || return $(fail "create $be")
    "$S" --root "$ROOT" session exec m1-$be-$$ -- true || return $(fail "exec $be")
  done
  grep -rqs "$canary" "$ROOT" || return $(fail "the canary is not in the state at all (nothing to find)")
  # As the user: nothing under the state root or the audit dir is listed or read, by
  # name (ids are visible in ps) or by search.
  out=$(as_user find "$ROOT" "$WORK/audit" 2>/dev/null)
  assert_eq "$(printf '%s\n%s' "$ROOT" "$WORK/audit")" "$out" "what uid $ATK can list" || return
  for f in "$ROOT/@sessions/m1-gvisor-$$/bundle/config.json" "$ROOT/sess-m1-gvisor-$$/bundle/config.json" \
    "$ROOT/@sessions/m1-native-$$/bundle/config.json" "$ROOT/sess-m1-gvisor-$$/state.json"; do
    [ -e "$f" ] || return $(fail "expected file missing: $f")
    as_user cat "$f" >/dev/null 2>&1 && return $(fail "uid $ATK read $f")
  done
  out=$(as_user grep -rs "$canary" "$ROOT" "$WORK/audit")
  assert_eq "" "$out" "canary seen by uid $ATK" || return
  "$S" --root "$ROOT" session delete m1-gvisor-$$ m1-native-$$ || return $(fail "delete")
}

# ----------------------------------------------------------------------------- M9

# Session A may write /srv-like shared/, which holds session B's --mount source shared/sub.
# A swaps sub for a symlink to a host directory; B's next start must not bind that.
check_m9_bind_source_swap() {
  local sh=$WORK/shared out
  mkdir -p "$sh/sub" "$WORK/secret-dir" && echo HOST-SECRET >"$WORK/secret-dir/shadow" && chmod 777 "$sh"
  "$S" --root "$ROOT" --backend native session create m9a-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/rootfs/tmp"     --mount "$sh:/shared" >/dev/null || return $(fail "create a")
  "$S" --root "$ROOT" --backend native session create m9b-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/rootfs/tmp"     --mount "$sh/sub:/data" >/dev/null || return $(fail "create b")
  "$S" --root "$ROOT" session exec m9a-$$ -- sh -c "rm -r /shared/sub && ln -s $WORK/secret-dir /shared/sub" ||
    return $(fail "the swap from inside a")
  # Positive control: the path B was created with now leads to the host directory.
  assert_eq HOST-SECRET "$(cat "$sh/sub/shadow" 2>&1)" "positive control: the swapped path resolves to the host dir" || return
  "$S" --root "$ROOT" session stop m9b-$$ >/dev/null || return $(fail "stop b")
  out=$("$S" --root "$ROOT" session start m9b-$$ 2>&1) && {
    out=$("$S" --root "$ROOT" session exec m9b-$$ -- cat /data/shadow 2>&1)
    assert_not_contains "$out" HOST-SECRET "b after restart" || return
  }
  assert_contains "$out" "bind source" "b's start refuses the swapped source" || return
  "$S" --root "$ROOT" session delete m9a-$$ m9b-$$ || return $(fail "delete")
}

# ----------------------------------------------------------------------------- M4

check_m4_annotation_downgrade() {
  local b=$WORK/m4-bundle out host
  host=$(uname -r)
  bundle_for "$b" '["uname","-r"]' '{"dev.sandshim.backend":"native"}' || return $(fail "bundle")
  # Positive control: the operator's opt-in lets the annotation choose native.
  echo "{\"audit_dir\": \"$WORK/audit\", \"allow_annotation_downgrade\": true}" >"$WORK/optin.json"
  out=$(SANDSHIM_CONFIG=$WORK/optin.json "$S" --root "$ROOT" run --bundle "$b" m4a-$$ </dev/null 2>&1)
  assert_eq "$host" "$out" "with allow_annotation_downgrade the annotation picks native" || return
  out=$("$S" --root "$ROOT" run --bundle "$b" m4b-$$ </dev/null 2>&1)
  assert_eq 4.4.0 "$out" "default config: the annotation cannot leave gVisor" || return
  "$S" --root "$ROOT" delete --force m4a-$$ >/dev/null 2>&1
  "$S" --root "$ROOT" delete --force m4b-$$ >/dev/null 2>&1
  return 0
}

# ----------------------------------------------------------------------------- M2 / M8

# A raw origin that ignores Connection: close and serves every head it gets, answering
# with the Host it saw; one line per head in its log.
cat >"$WORK/origin.py" <<'EOF'
import socket, sys, threading
port, log = int(sys.argv[1]), sys.argv[2]
def serve(c):
    buf = b""
    while True:
        d = c.recv(65536)
        if not d: break
        buf += d
        while b"\r\n\r\n" in buf:
            head, buf = buf.split(b"\r\n\r\n", 1)
            lines = head.decode("latin1").split("\r\n")
            host = next((l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("host:")), "")
            n = next((int(l.split(":", 1)[1]) for l in lines[1:] if l.lower().startswith("content-length:")), 0)
            buf = buf[n:]
            with open(log, "a") as f: f.write("%s host=%s\n" % (lines[0], host))
            out = ("host=%s" % host).encode()
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(out), out))
    c.close()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port)); s.listen(16)
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
# Sends one string (with \r\n escapes) and prints everything until close or 3 s of quiet.
cat >"$WORK/send.py" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin1"))
out = b""
try:
    while True:
        d = s.recv(65536)
        if not d: break
        out += d
except socket.timeout:
    pass
sys.stdout.write(out.decode("latin1"))
EOF

# Background helpers of one check, ended by the check itself (the leak check follows it).
BG=()
bg_stop() { local p; for p in "${BG[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; BG=(); }

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_proxy() { # PORT ARGS... (audit to $WORK/audit-<port>.jsonl)
  local port=$1; shift
  "$S" proxy --listen 127.0.0.1:"$port" --audit "$WORK/audit-$port.jsonl" "$@" >/dev/null 2>&1 &
  BG+=($!)
  wait_until 10 "$PY" -c "import socket; socket.create_connection(('127.0.0.1',$port))"
}

check_m2_host_binding_and_pipelining() {
  local op pp req out log=$WORK/origin.log
  op=$(free_port); pp=$(free_port)
  "$PY" "$WORK/origin.py" "$op" "$log" & BG+=($!)
  wait_until 10 "$PY" -c "import socket; socket.create_connection(('127.0.0.1',$op))" || return $(fail "origin")
  start_proxy "$pp" --allow-domain allowed.test --resolve allowed.test=127.0.0.1 --allow-cidr 127.0.0.1/32 ||
    return $(fail "proxy")
  req="GET http://allowed.test:$op/a HTTP/1.1\r\nHost: attacker.example\r\n\r\nGET http://denied.test:$op/d HTTP/1.1\r\nHost: denied.test\r\n\r\nGET /e HTTP/1.1\r\nHost: evil.example\r\n\r\n"
  # Positive control: sent straight to the origin, all three heads arrive as written.
  out=$("$PY" "$WORK/send.py" "$op" "$req")
  assert_contains "$out" "host=attacker.example" "positive control: Host reaches the origin" || return
  assert_contains "$(cat "$log")" "host=denied.test" "positive control: pipelined heads are served" || return
  : >"$log"
  out=$("$PY" "$WORK/send.py" "$pp" "$req")
  assert_contains "$out" "host=allowed.test:$op" "the origin sees the checked authority" || return
  assert_eq "GET /a HTTP/1.1 host=allowed.test:$op" "$(cat "$log")" "what reached the origin" || return
  # A chunked body (its end needs parsing) is refused, not tunnelled.
  out=$("$PY" "$WORK/send.py" "$pp" "POST http://allowed.test:$op/p HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET http://denied.test/ HTTP/1.1\r\n\r\n")
  assert_contains "$out" "411" "chunked request body" || return
  assert_not_contains "$(cat "$log")" "denied" "after a chunked body" || return
  # A denied first head is refused and audited as such.
  out=$("$PY" "$WORK/send.py" "$pp" "GET http://denied.test:$op/x HTTP/1.1\r\nHost: allowed.test\r\n\r\n")
  assert_contains "$out" "403" "denied name with an allowed Host" || return
  wait_until 10 grep -q '"decision":"deny"' "$WORK/audit-$pp.jsonl" || return $(fail "no deny line in the audit")
}

check_m8_metadata_and_literals() {
  local p1 p2 up out log=$WORK/upstream.log
  p1=$(free_port); p2=$(free_port); up=$(free_port)
  # Positive control: --allow-cidr naming the metadata address does open it (so the refusal
  # below is the metadata rule, not something else).
  start_proxy "$p1" --allow-domain imds.test --allow-private --resolve imds.test=fd00:ec2::254 \
    --allow-cidr fd00:ec2::254/128 || return $(fail "proxy 1")
  out=$("$PY" "$WORK/send.py" "$p1" "GET http://imds.test/ HTTP/1.1\r\n\r\n")
  assert_not_contains "$out" "403" "metadata named by --allow-cidr" || return
  start_proxy "$p2" --allow-domain imds.test --allow-domain alibaba.test --allow-private \
    --resolve imds.test=fd00:ec2::254 --resolve alibaba.test=100.100.100.200 || return $(fail "proxy 2")
  for h in imds.test alibaba.test; do
    out=$("$PY" "$WORK/send.py" "$p2" "GET http://$h/ HTTP/1.1\r\n\r\n")
    assert_contains "$out" "cloud metadata" "$h with --allow-private" || return
  done
  # Non-canonical IPv4 with '*' and an upstream that would resolve names itself.
  "$PY" "$WORK/origin.py" "$up" "$log" & BG+=($!)
  wait_until 10 "$PY" -c "import socket; socket.create_connection(('127.0.0.1',$up))" || return $(fail "upstream")
  local p3; p3=$(free_port)
  start_proxy "$p3" --allow-domain '*' --proxy "http://127.0.0.1:$up" || return $(fail "proxy 3")
  # Positive control: a name does reach the upstream (the log would show a literal too).
  "$PY" "$WORK/send.py" "$p3" "GET http://example.test/ HTTP/1.1\r\n\r\n" >/dev/null
  assert_contains "$(cat "$log" 2>/dev/null)" "example.test" "positive control: names go upstream" || return
  for lit in 2130706433 0x7f.1 127.1 0177.0.0.1 2852039166; do
    out=$("$PY" "$WORK/send.py" "$p3" "GET http://$lit/ HTTP/1.1\r\n\r\n")
    assert_contains "$out" "403" "$lit through '*'" || return
  done
  assert_not_contains "$(cat "$log")" "2130706433" "upstream log" || return
  assert_not_contains "$(cat "$log")" "127.1" "upstream log"
}

# ----------------------------------------------------------------------------- run

run_check "S1 positive control: a local user drives a raw runsc sandbox's control socket" check_s1_positive_raw_runsc
run_check "S1: sandshim gVisor session, control socket unreachable to a local user" check_s1_session
run_check "S1: sandshim run, control socket unreachable to a local user" check_s1_run
run_check "S1: one control netns per root, shared, private, removed with the last container and by gc" check_s1_shared_control_netns
run_check "M1: state root, audit and --env canary unreadable to a local user" check_m1_state_private
run_check "M9: a --mount source swapped for a symlink is not bound at the next start" check_m9_bind_source_swap
run_check "M4: dev.sandshim.backend=native stays on gVisor unless the config allows downgrades" check_m4_annotation_downgrade
run_check "M2: plain HTTP bound to the checked Host, one checked request per connection" check_m2_host_binding_and_pipelining
# M12: the session relay parses sandbox-written HTTP; it must do so without root and under
# its seccomp allow-list (relay_seccomp.h). Reads Uid, CapEff, CapBnd, NoNewPrivs and Seccomp
# (2: a filter) from /proc/<pid>/status of every relay thread.
status_fields() { awk '/^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):/{printf "%s=%s ", $1, $2}' "$1"; }
check_m12_relay_unprivileged() {
  local s=m12-$$ pid t f rc=0
  # Positive control: the same probe on this root shell shows uid 0 and a full effective set.
  f=$(status_fields /proc/$$/status)
  case "$f" in *"Uid:=0 "*"CapEff:=0000000000000000 "*) return $(fail "probe misreads a root process: $f") ;; esac
  case "$f" in *"Uid:=0 "*"Seccomp:=0 "*) ;; *) return $(fail "control: test shell not uid 0 without seccomp: $f") ;; esac
  "$S" --root "$ROOT" --backend native session create "$s" --rootfs "$WORK/rootfs" --workspace "$WORK/rootfs/tmp" \
    --network proxy --allow-domain example.test --pids 64 >/dev/null || return $(fail "session create")
  pid=$(pgrep -f "proxy .*--netns [^ ]*$ROOT" | head -1)
  [ -n "$pid" ] || { "$S" --root "$ROOT" session delete "$s" >/dev/null; return $(fail "no relay process found"); }
  for t in /proc/$pid/task/*; do
    f=$(status_fields "$t/status")
    case "$f" in
      # Not 0, and not nobody (65534, whom every local user's nobody could signal: N2).
      "Uid:=65534 "*|"Uid:=0 "*) rc=1; fail "relay thread $t runs as $f" ;;
      "Uid:="*" CapEff:=0000000000000000 CapBnd:=0000000000000000 NoNewPrivs:=1 Seccomp:=2 ") ;;
      *) rc=1; fail "relay thread $t still privileged: $f" ;;
    esac
  done
  # Charged to the session: the relay's memory and pids cgroups are a child of the
  # sandbox's, so its tasks count in the session's pids.current. Control: this shell's pids
  # cgroup is not below the sandbox's (the probe tells the two apart).
  local init sb mine relay_cg tasks cur
  init=$(jq -r .init.pid "$ROOT/sess-$s/state.json")
  sb=$(awk -F: '$2 ~ /(^|,)pids(,|$)/ {print $3}' "/proc/$init/cgroup")
  mine=$(awk -F: '$2 ~ /(^|,)pids(,|$)/ {print $3}' /proc/$$/cgroup)
  case "$mine/" in "$sb/"*) rc=1; fail "control: the test shell is inside the sandbox's pids cgroup $sb" ;; esac
  for c in pids memory; do
    relay_cg=$(awk -F: -v c="$c" '$2 ~ "(^|,)" c "(,|$)" {print $3}' "/proc/$pid/cgroup")
    [ "$relay_cg" = "$sb/relay" ] || [ "$c" = memory ] || { rc=1; fail "relay $c cgroup $relay_cg, not $sb/relay"; }
    case "$relay_cg" in */relay) ;; *) rc=1; fail "relay $c cgroup $relay_cg is not the session's relay child" ;; esac
  done
  tasks=$(ls /proc/$pid/task | wc -l)
  cur=$(cat "/sys/fs/cgroup/pids$sb/pids.current" 2>/dev/null || cat "/sys/fs/cgroup$sb/pids.current")
  [ "${cur:-0}" -gt "$tasks" ] || { rc=1; fail "session pids.current $cur does not count the relay's $tasks tasks and the sandbox"; }
  "$S" --root "$ROOT" session exec "$s" -- true || { rc=1; fail "session exec"; }
  "$S" --root "$ROOT" session delete "$s" || return $(fail "delete")
  return $rc
}

run_check "M8: metadata refused with --allow-private; non-canonical IPv4 literals are addresses" check_m8_metadata_and_literals
run_check "M12: the session relay runs without root, capabilities or new privileges, under seccomp, charged to the session" check_m12_relay_unprivileged

# docker and ctr last: they need the private daemons.
if [ "${ATTACK_HOST_DAEMONS:-1}" = 1 ]; then
  AFTER_CHECK_HOOK=""
  mkdir -p "$WORK/bin"
  printf '#!/bin/sh\nexec %q --backend gvisor "$@"\n' "$S" >"$WORK/bin/sandshim-gvisor"
  chmod +x "$WORK/bin/sandshim-gvisor"
  add_docker_runtime sandshim-gvisor "$WORK/bin/sandshim-gvisor"
  on_exit 'stop_daemons "$WORK/d"'
  if start_daemons "$WORK/d" && import_docker_image "$WORK/rootfs" &&
    build_oci_archive "$WORK/rootfs" "$WORK/image.tar" "$TEST_IMAGE" >/dev/null &&
    timeout 120 "${CTR_CMD[@]}" -n atk images import "$WORK/image.tar" >/dev/null; then
    run_check "S1: docker --runtime sandshim, control socket unreachable to a local user" check_s1_docker
    run_check "S1: ctr with sandshim, control socket unreachable to a local user" check_s1_ctr
    run_check "S1: docker --network host, control socket unreachable, host network kept" check_s1_docker_host_network
    command -v podman >/dev/null && run_check "S1: podman with sandshim, control socket unreachable to a local user" check_s1_podman
  else
    log "private dockerd/containerd did not start: docker and ctr checks skipped"
    N_SKIP=$((N_SKIP + 1))
  fi
fi
finish_checks
