#!/usr/bin/env bash
# Processes inside native containers and sessions against the caller's terminal and keyring,
# the syscalls Docker's default seccomp profile blocks, hooks, and the process settings the
# OCI validation suite checks. Every check first shows with a positive control that its probe
# sees the attack succeed (the same bundle without the seccomp section, --no-new-keyring, the
# probe on the host with a terminal, a createContainer hook, which runs with full privilege
# by design), then records what runc does with Docker's profile on the same bundle, then
# requires sandshim native to block at least as much: from a `sandshim spec` bundle run with
# `--backend native run`, and from a native session (`session create` + `session exec`).
# The probe is tests/attack/probes/process_probe.c, built static into the test rootfs.
set -u
. "$(dirname "$0")/../integration/lib/image.sh"
require_root
require_cmds jq gcc script setpriv
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
SANDSHIM_BIN=$(readlink -f "$SANDSHIM_BIN")
RUNC=$(abs_cmd runc || true)

WORK=$(mktemp -d /tmp/sandshim-attack-proc.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
RUNC_ROOT=$WORK/runc-root
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$SANDSHIM_BIN" --root "$ROOT" session delete "$s" >/dev/null 2>&1; done'
on_exit '"$SANDSHIM_BIN" --root "$ROOT" list -q 2>/dev/null | xargs -r -n1 "$SANDSHIM_BIN" --root "$ROOT" delete --force >/dev/null 2>&1'
on_exit '[ -n "$RUNC" ] && "$RUNC" --root "$RUNC_ROOT" list -q 2>/dev/null | xargs -r -n1 "$RUNC" --root "$RUNC_ROOT" delete --force >/dev/null 2>&1'
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
on_exit 'grep -o "$ROOT/@sessions/[^ ]*/rootfs" /proc/self/mountinfo | xargs -r -n1 umount -l 2>/dev/null'

PROBE=$WORK/probe
gcc -static -O1 -o "$PROBE" "$(dirname "$0")/probes/process_probe.c" || die "cannot build the probe"
B=$WORK/bundle
mkdir -p "$B" "$WORK/ws" && chmod 777 "$WORK/ws"
build_rootfs "$B/rootfs" >/dev/null 2>&1 || die "cannot build the test rootfs"
cp "$PROBE" "$B/rootfs/bin/probe"
# `sandshim spec` defaults (Docker's seccomp profile included), writable root for the hooks.
(cd "$B" && "$SANDSHIM_BIN" spec) || die "sandshim spec"
jq '.process.terminal = false | .root.readonly = false' "$B/config.json" >"$B/c" && mv "$B/c" "$B/config.json"

ss() { "$SANDSHIM_BIN" --root "$ROOT" --backend native "$@"; }
bundle_with() { # NAME JQ
  local d=$WORK/$1
  mkdir -p "$d" && ln -sfn "$B/rootfs" "$d/rootfs"
  jq --arg r "$B/rootfs" "$2 | .root.path = \$r" "$B/config.json" >"$d/config.json"  # runc: no symlink
  echo "$d"
}
native_run() { # NAME JQ [run flags...]: the bundle's output
  local name=$1 jqx=$2; shift 2
  ss run "$@" --bundle "$(bundle_with "$name" "$jqx")" "$(uniq_name "$name")" 2>&1
}
runc_run() { # NAME JQ
  [ -n "$RUNC" ] || { echo "runc not installed"; return; }
  "$RUNC" --root "$RUNC_ROOT" run --bundle "$(bundle_with "$1" "$2")" "$(uniq_name "$1")" 2>&1
}
args() { printf '%s\n' "$@" | jq -R . | jq -cs .; }  # JSON array of the arguments
SESSION=""
session_up() {
  SESSION=$(uniq_name s)
  ss session create "$SESSION" --rootfs "$B/rootfs" --workspace "$WORK/ws" >/dev/null 2>&1
}
session_exec() { "$SANDSHIM_BIN" --root "$ROOT" session exec "$SESSION" -- "$@" 2>&1; }
session_down() { [ -z "$SESSION" ] || "$SANDSHIM_BIN" --root "$ROOT" session delete "$SESSION" >/dev/null 2>&1; SESSION=""; }
# The verdict of one probe line ("unshare reached (ok)" -> "reached").
verdict() { grep -m1 "^$2 " <<<"$1" | awk '{print $2}'; }

LEAKS=("$CHECK_LEAKS" --match "$WORK" --match "-$$-" --root "$ROOT")
no_leaks() { session_down; "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks

SYSCALLS=(unshare io_uring_setup bpf perf_event_open userfaultfd mount)
check_blocked_syscalls() {
  local probe control runc native sess name v
  probe=$(args /bin/probe unshare io_uring bpf perf userfaultfd mount)
  # Positive control: without the profile every call reaches the kernel (EFAULT counts).
  control=$(native_run sys-ctl ".process.args = $probe | del(.linux.seccomp)")
  for name in "${SYSCALLS[@]}"; do
    [ "$(verdict "$control" "$name")" = reached ] || { fail "control: $name did not reach the kernel ($control)"; return 1; }
  done
  runc=$(runc_run sys-runc ".process.args = $probe")
  log "runc with Docker's profile: $(tr '\n' ';' <<<"$runc")"
  native=$(native_run sys-native ".process.args = $probe")
  session_up || { fail "session create"; return 1; }
  sess=$(session_exec /bin/probe unshare io_uring bpf perf userfaultfd mount)
  for name in "${SYSCALLS[@]}"; do
    for v in "native:$native" "session:$sess"; do
      assert_contains "$(grep "^$name " <<<"${v#*:}")" "blocked (EPERM)" "${v%%:*} $name" || return
    done
    if [ "$(verdict "$runc" "$name")" = blocked ]; then
      assert_eq blocked "$(verdict "$native" "$name")" "native blocks what runc blocks: $name" || return
    fi
  done
}

check_caller_keyring() {
  local probe out
  probe=$(args /bin/probe keyctl sshim-canary)
  # The caller has a key in its session keyring (a fresh one: the host's is left alone).
  withkey() { "$PROBE" withkey sshim-canary s3cret-canary "$@"; }
  out=$(withkey "$SANDSHIM_BIN" --root "$ROOT" --backend native run --no-new-keyring \
    --bundle "$(bundle_with key-ctl ".process.args = $probe | del(.linux.seccomp)")" "$(uniq_name keyctl)" 2>&1)
  assert_contains "$out" "keyctl found (s3cret-canary)" "control: no profile, --no-new-keyring: the key is read" || return
  [ -z "$RUNC" ] || log "runc with Docker's profile: $(withkey "$RUNC" --root "$RUNC_ROOT" run \
    --bundle "$(bundle_with key-runc ".process.args = $probe")" "$(uniq_name keyrunc)" 2>&1)"
  # The container's own keyring alone (no profile): the caller's key is out of reach.
  out=$(withkey "$SANDSHIM_BIN" --root "$ROOT" --backend native run \
    --bundle "$(bundle_with key-nosc ".process.args = $probe | del(.linux.seccomp)")" "$(uniq_name keyns)" 2>&1)
  assert_contains "$out" "keyctl reached (ENOKEY)" "own session keyring, no profile" || return
  out=$(withkey "$SANDSHIM_BIN" --root "$ROOT" --backend native run \
    --bundle "$(bundle_with key-native ".process.args = $probe")" "$(uniq_name keyn)" 2>&1)
  assert_contains "$out" "keyctl blocked (EPERM)" "native run" || return
  session_up || { fail "session create"; return 1; }
  out=$(withkey "$SANDSHIM_BIN" --root "$ROOT" session exec "$SESSION" -- /bin/probe keyctl sshim-canary 2>&1)
  assert_contains "$out" "keyctl blocked (EPERM)" "native session" || return
  assert_not_contains "$out" "s3cret" "native session"
}

# Runs a command line with a pty as its controlling terminal; prints its output.
under_pty() { timeout 20 script -qec "$1" /dev/null </dev/null 2>&1 | tr -d '\r'; }

check_ctty() {
  local out
  out=$(under_pty "$PROBE tty")
  assert_ne "tty_nr 0" "$(grep tty_nr <<<"$out")" "control: the probe under a pty has a ctty" || return
  assert_contains "$out" "devtty open (ok)" "control: /dev/tty opens" || return
  [ -z "$RUNC" ] || log "runc: $(under_pty "$RUNC --root $RUNC_ROOT run --bundle $(bundle_with tty-runc '.process.args = ["/bin/probe","tty"]') $(uniq_name ttyr)" | tr '\n' ';')"
  out=$(under_pty "$SANDSHIM_BIN --root $ROOT --backend native run --bundle $(bundle_with tty-n '.process.args = ["/bin/probe","tty"]') $(uniq_name ttyn)")
  assert_contains "$out" "tty_nr 0" "native run: no controlling terminal ($out)" || return
  assert_contains "$out" "devtty open (ENXIO)" "native run: /dev/tty" || return
  session_up || { fail "session create"; return 1; }
  out=$(under_pty "$SANDSHIM_BIN --root $ROOT session exec $SESSION -- /bin/probe tty")
  assert_contains "$out" "tty_nr 0" "native session exec: no controlling terminal ($out)" || return
  assert_contains "$out" "devtty open (ENXIO)" "native session exec: /dev/tty"
}

check_tiocsti() {
  local out inject cmd
  # The command pushes a line into the terminal; the caller's shell then reads it: if the
  # line arrives, a shell at a prompt would have run it.
  # script's stdin stays open meanwhile: at its EOF script ends the terminal's input, which
  # can beat the pushed line to the read.
  inject() { (sleep 4) | timeout 20 script -qec "bash -c '$1; read -t 2 line; echo \"got:\$line\"'" /dev/null 2>&1 | tr -d '\r'; }
  out=$(inject "$PROBE tiocsti INJECTED-CTL")
  assert_contains "$out" "got:INJECTED-CTL" "control: the caller's terminal takes a pushed line" || return
  [ -z "$RUNC" ] || log "runc: $(inject "$RUNC --root $RUNC_ROOT run --bundle $(bundle_with sti-runc '.process.args = ["/bin/probe","tiocsti","INJECTED-R"]') $(uniq_name stir)" | tr '\n' ';')"
  out=$(inject "$SANDSHIM_BIN --root $ROOT --backend native run --bundle $(bundle_with sti-n '.process.args = ["/bin/probe","tiocsti","INJECTED-N"]') $(uniq_name stin)")
  assert_not_contains "$out" "got:INJECTED-N" "native run pushed into the caller's terminal" || return
  assert_not_contains "$out" "tiocsti pushed" "native run" || return
  session_up || { fail "session create"; return 1; }
  out=$(inject "$SANDSHIM_BIN --root $ROOT session exec $SESSION -- /bin/probe tiocsti INJECTED-S")
  assert_not_contains "$out" "got:INJECTED-S" "native session exec pushed into the caller's terminal" || return
  assert_not_contains "$out" "tiocsti pushed" "native session exec"
}

check_hook_privileges() {
  local hooks out cc sc proc
  # createContainer (host path, runs before the process is finalised: full privilege, by
  # design and as in runc) is the control; startContainer must have the process's own.
  hooks='.hooks = {"createContainer": [{"path": "'"$PROBE"'", "args": ["probe", "status"]}],
                   "startContainer": [{"path": "/bin/probe", "args": ["probe", "status"]}]}
         | .process.args = ["/bin/probe", "status"]'
  [ -z "$RUNC" ] || log "runc (createContainer, startContainer, process): $(runc_run hook-runc "$hooks" | tr '\n\t' '; ')"
  out=$(native_run hook-n "$hooks")
  cc=$(sed -n 1,3p <<<"$out" | tr -d '\t'); sc=$(sed -n 4,6p <<<"$out" | tr -d '\t'); proc=$(sed -n 7,9p <<<"$out" | tr -d '\t')
  assert_contains "$cc" "CapEff:000001ff" "control: createContainer hook has every capability ($out)" || return
  assert_contains "$cc" "Seccomp:0" "control: createContainer hook" || return
  assert_eq "$proc" "$sc" "startContainer hook has the process's CapEff/NoNewPrivs/Seccomp" || return
  assert_contains "$sc" "CapEff:0000000020000420" "startContainer hook capabilities" || return
  assert_contains "$sc" "NoNewPrivs:1" "startContainer hook NoNewPrivs" || return
  assert_contains "$sc" "Seccomp:2" "startContainer hook seccomp"
}

check_session_host_uid() {
  local pid uid out
  session_up || { fail "session create"; return 1; }
  "$SANDSHIM_BIN" --root "$ROOT" session exec "$SESSION" -- /bin/probe sleep "m11-$$" >/dev/null 2>&1 &
  # The probe itself, not the `session exec` whose argv names it.
  wait_until 15 pgrep -f "^/bin/probe sleep m11-$$" >/dev/null
  pid=$(pgrep -f "^/bin/probe sleep m11-$$" | head -1)
  [ -n "$pid" ] || { fail "no session process found"; return 1; }
  uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
  # Control: host uid 1000 reads the environment of a uid-1000 process of its own.
  setpriv --reuid 1000 --regid 1000 --clear-groups env M11_CONTROL=1 sleep 5 &
  local own=$!
  wait_until 5 grep -q M11_CONTROL "/proc/$own/environ"
  out=$(setpriv --reuid 1000 --regid 1000 --clear-groups cat "/proc/$own/environ" 2>&1 | tr '\0' ' ')
  kill "$own"
  assert_contains "$out" "M11_CONTROL=1" "control: host uid 1000 reads the environ of another uid-1000 process" || return
  out=$(setpriv --reuid 1000 --regid 1000 --clear-groups cat "/proc/$pid/environ" 2>&1 | tr '\0' ' ')
  kill "$pid" 2>/dev/null
  wait
  if [ "$uid" = 1000 ]; then
    case $out in *PATH=*) skip "session processes run as host uid 1000, whose users read their environ: no user namespace here (idmapped mounts unavailable? see the create warning)"; return ;; esac
  fi
  assert_ne 1000 "$uid" "host uid of a session process" || return
  assert_not_contains "$out" "PATH=" "host uid 1000 reads a session process's environ"
}

# M11 for every network mode: root in a native session on --network proxy or host (whose
# netns the host's userns owns) is not host root either. The attack: root in the session
# appends to a root-owned 0644 host file bound in read-write, and reads its uid_map. Control:
# the same commands as root under a plain `unshare` that lacks a user namespace (what these
# sessions were before) write the file and read the identity map.
check_session_userns_by_network() {
  local v=$WORK/victim net out
  mkdir -p "$v" && chmod 755 "$v" && echo original >"$v/owned" && chmod 644 "$v/owned"
  local attack='cat /proc/self/uid_map; echo pwned >> /victim/owned && echo WROTE'
  out=$(unshare --mount --pid --fork --mount-proc sh -c "${attack//\/victim/$v}" 2>&1)
  assert_contains "$out" "WROTE" "control: root without a user namespace writes the root-owned file" || return
  assert_contains "$(head -1 <<<"$out" | tr -s ' ')" " 0 0 4294967295" "control: identity uid_map" || return
  echo original >"$v/owned"
  for net in proxy host; do
    SESSION=$(uniq_name "u$net")
    ss session create "$SESSION" --rootfs "$B/rootfs" --workspace "$WORK/ws" --network "$net" --user 0:0 \
      --mount "$v:/victim" >/dev/null 2>&1 || { fail "session create --network $net"; return 1; }
    out=$(session_exec sh -c "id -u; $attack")
    session_down
    assert_eq 0 "$(head -1 <<<"$out")" "--network $net: uid inside" || return
    assert_not_contains "$(sed -n 2p <<<"$out" | tr -s ' ')" " 0 0 " "--network $net: uid 0 maps to host 0" || return
    assert_not_contains "$out" "WROTE" "--network $net: root in the session wrote a root-owned host file" || return
    assert_eq original "$(cat "$v/owned")" "--network $net: the root-owned host file" || return
  done
}

check_oom_score_adj() {
  local out
  out=$(native_run oom-ctl '.process.args = ["cat", "/proc/self/oom_score_adj"]')
  assert_eq 0 "$out" "control: the default score" || return
  [ -z "$RUNC" ] || log "runc: $(runc_run oom-runc '.process.oomScoreAdj = 123 | .process.args = ["cat", "/proc/self/oom_score_adj"]')"
  out=$(native_run oom-n '.process.oomScoreAdj = 123 | .process.args = ["cat", "/proc/self/oom_score_adj"]')
  assert_eq 123 "$out" "oomScoreAdj applied"
}

check_caps_fail_create() {
  local id rc=0 out bad
  id=$(uniq_name capok)
  ss create --bundle "$(bundle_with cap-ok '.process.args = ["true"]')" "$id" >/dev/null 2>&1 ||
    { fail "control: create with consistent capabilities"; return 1; }
  ss delete --force "$id"
  # Effective but neither permitted nor in the bounding set: cannot be set.
  bad='.process.capabilities = {"bounding":["CAP_KILL"],"permitted":["CAP_KILL"],"effective":["CAP_KILL","CAP_SYS_ADMIN"]}
       | .process.args = ["echo", "must-not-run"]'
  if [ -n "$RUNC" ]; then
    "$RUNC" --root "$RUNC_ROOT" create --bundle "$(bundle_with cap-runc "$bad")" "$(uniq_name capr)" >/dev/null 2>&1 || rc=$?
    log "runc create with an impossible capability set: exit $rc"
    "$RUNC" --root "$RUNC_ROOT" list -q | xargs -r -n1 "$RUNC" --root "$RUNC_ROOT" delete --force
    rc=0
  fi
  id=$(uniq_name capbad)
  out=$(ss create --bundle "$(bundle_with cap-bad "$bad")" "$id" 2>&1) || rc=$?
  assert_ne 0 "$rc" "create with a capability that cannot be set" || return
  assert_contains "$out" "capabilit" "the error names the capabilities" || return
  ss state "$id" >/dev/null 2>&1 && { fail "the failed create left a container"; return 1; }
  return 0
}

check_start_after_exec() {
  local id pid before after
  id=$(uniq_name exec)
  ss create --bundle "$(bundle_with exec '.process.args = ["sleep", "30"]')" "$id" || { fail "create"; return 1; }
  pid=$(ss state "$id" | jq -r .pid)
  before=$(cat "/proc/$pid/comm")
  ss start "$id" || { fail "start"; return 1; }
  after=$(cat "/proc/$pid/comm")
  ss delete --force "$id"
  assert_ne sleep "$before" "control: before start the pid is sandshim's init" || return
  assert_eq sleep "$after" "right after start returns the pid runs the workload"
}

check_namespaces_by_path() {
  local u sleeper want out
  # A pid and a mount namespace made by unshare, joined by path (OCI validation's ns_path).
  unshare -pmf --mount-proc --propagation private sleep 30 &
  u=$!
  wait_until 5 pgrep -P "$u" >/dev/null
  sleeper=$(pgrep -P "$u" | head -1)
  [ -n "$sleeper" ] || { fail "no process in the unshare'd namespaces"; return 1; }
  want=$(readlink "/proc/$sleeper/ns/pid" "/proc/$sleeper/ns/mnt" | tr '\n' ' ')
  # Control: without the paths the container has namespaces of its own.
  out=$(native_run nsown '.process.args = ["sh", "-c", "readlink /proc/self/ns/pid; readlink /proc/self/ns/mnt"]' | tr '\n' ' ')
  assert_ne "$want" "$out" "control: own namespaces" || { kill -KILL "$sleeper"; wait "$u"; return 1; }
  out=$(native_run nspath '.linux.namespaces = [.linux.namespaces[] | if .type == "pid" then {type: "pid", path: "/proc/'"$sleeper"'/ns/pid"}
      elif .type == "mount" then {type: "mount", path: "/proc/'"$sleeper"'/ns/mnt"} else . end]
    | .process.args = ["sh", "-c", "readlink /proc/self/ns/pid; readlink /proc/self/ns/mnt"]' | tr '\n' ' ')
  kill -KILL "$sleeper" 2>/dev/null  # the namespace's init: only KILL reaches it from outside
  wait "$u" 2>/dev/null
  assert_eq "$want" "$out" "the unshare'd pid and mount namespaces"
}

run_check "syscalls Docker's profile blocks: unshare, io_uring, bpf, perf, userfaultfd, mount" check_blocked_syscalls
run_check "the caller's session keyring is out of reach" check_caller_keyring
run_check "no controlling terminal of the caller's (tty_nr, /dev/tty)" check_ctty
run_check "TIOCSTI cannot push into the caller's terminal" check_tiocsti
run_check "startContainer hooks run with the process's privileges" check_hook_privileges
run_check "a session process is not a real host uid" check_session_host_uid
run_check "root in a proxy- or host-network session is not host root" check_session_userns_by_network
run_check "oomScoreAdj is applied" check_oom_score_adj
run_check "a capability that cannot be set fails create" check_caps_fail_create
run_check "start returns after the workload's exec" check_start_after_exec
run_check "pid and mount namespaces joined by path" check_namespaces_by_path
finish_checks
