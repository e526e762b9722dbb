#!/usr/bin/env bash
# What the OCI runtime-tools validation suite checks, as shell checks against one runtime
# driven through the runc command line: lifecycle and `state` (runtime.md), then one check
# per part of config.json that runtimetest verifies inside the container, then the verbs
# programs drive (kill, ps, pause, features, list, --log). Every check passes on runc, so
# vs_runc.sh runs this file with runc first and then sandshim, and prints both columns.
#
#   tests/integration/oci_test.sh runc|sandshim|PATH    (SANDSHIM_ARGS picks the backend)
#
# Checks a runtime cannot do by design say so in their name ("[gVisor: ...]") and skip on
# that backend with the reason; docs/OCI.md lists them.
set -u
. "$(dirname "$0")/lib/image.sh"
require_root
require_cmds jq python3 ip
[ $# -eq 1 ] || die "usage: $0 RUNTIME"
resolve_runtime "$1"
[ -x "$RT_BIN" ] || skip_all "runtime not found: $1"
# gVisor is sandshim's default backend; only "--backend native" leaves it.
GVISOR=0
case ${RT_BIN##*/} in sandshim*) case " ${RT_ARGS[*]} " in *" --backend native "* | *" --backend=native "*) ;; *) GVISOR=1 ;; esac ;; esac

WORK=$(mktemp -d /tmp/sandshim-it.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'rt list -q 2>/dev/null | xargs -r -n1 "$RT_BIN" --root "$ROOT" "${RT_ARGS[@]}" delete --force >/dev/null 2>&1'
on_exit 'remove_cgroup_parent "$WORK" all'
rt() { "$RT_BIN" --root "$ROOT" "${RT_ARGS[@]}" "$@"; }
B=$WORK/bundle
make_bundle "$B" true >/dev/null || die "cannot build the test bundle"
CGP=$(cgroup_parent_for "$WORK")

# bundle_with NAME JQ: a bundle sharing the rootfs, with $WORK/NAME.out bound rw at /out
# (hooks and the container leave their evidence there).
bundle_with() {
  local d=$WORK/$1
  mkdir -p "$d" "$d.out" && chmod 777 "$d.out"
  jq --arg out "$d.out" --arg root "$B/rootfs" '.root.path = $root | .mounts += [{"destination":"/out","type":"bind","source":$out,"options":["rbind","rw"]}]
    | .linux.cgroupsPath = "/'"$CGP"'/\(.hostname)-'"$1"'"' "$B/config.json" | jq "$2" >"$d/config.json"
  echo "$d"
}
# run_spec NAME JQ: `run` a container from that bundle; OUT, ERR, RC as capture leaves them.
run_spec() { capture rt run --bundle "$(bundle_with "$1" "$2")" "$(uniq_name "$1")"; }
status_of() { rt state "$1" 2>/dev/null | jq -r .status; }
is_status() { [ "$(status_of "$1")" = "$2" ]; }
wait_status() { wait_until "${3:-10}" is_status "$1" "$2"; }
# An id whose container is gone at the end of the check, whatever happened.
new_id() { local id; id=$(uniq_name "$1"); echo "$id"; }
gone() { rt delete --force "$1" >/dev/null 2>&1; true; }
gvisor_skip() { [ "$GVISOR" = 1 ] && { skip "$1"; return 0; }; return 1; }

LEAKS=("$CHECK_LEAKS" --match "$WORK" --root "$ROOT")
no_leaks() {
  local ids
  ids=$(rt list -q 2>/dev/null)
  [ -z "$ids" ] || { echo "$ids" | xargs -r -n1 "$RT_BIN" --root "$ROOT" "${RT_ARGS[@]}" delete --force >/dev/null 2>&1; fail "containers left: $ids"; return 1; }
  "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"
}
AFTER_CHECK_HOOK=no_leaks

# ---- lifecycle and state (runtime.md) ----

check_create_state() {
  local id b st
  id=$(new_id created)
  b=$(bundle_with created '.process.args = ["sh","-c","touch /out/started; exec sleep 1000"] | .annotations = {"org.example.k":"v"}')
  rt create --bundle "$b" "$id" || { fail "create"; return; }
  st=$(rt state "$id")
  gone "$id"
  assert_eq created "$(jq -r .status <<<"$st")" "status" || return
  assert_eq "$id" "$(jq -r .id <<<"$st")" "id" || return
  assert_eq "$b" "$(jq -r .bundle <<<"$st")" "bundle (absolute)" || return
  [ "$(jq -r '.pid // 0' <<<"$st")" -gt 0 ] || { fail "pid > 0: $st"; return; }
  [[ "$(jq -r .ociVersion <<<"$st")" =~ ^1\.[0-9]+\.[0-9]+ ]] || { fail "ociVersion: $st"; return; }
  assert_eq v "$(jq -r '.annotations["org.example.k"]' <<<"$st")" "annotations from config.json" || return
  [ ! -e "$b.out/started" ] || fail "the user process ran before start"
}

check_start_running_stopped() {
  local id b
  id=$(new_id start)
  # A file to wait for, not a fifo: gVisor's gofer cannot open a fifo on a bind mount.
  b=$(bundle_with start '.process.args = ["sh","-c","touch /out/started; while [ ! -e /out/go ]; do sleep 0.1; done"]')
  rt create --bundle "$b" "$id" || { fail "create"; return; }
  rt start "$id" || { gone "$id"; fail "start"; return; }
  wait_until 10 test -e "$b.out/started" || { gone "$id"; fail "the process did not run after start"; return; }
  assert_eq running "$(status_of "$id")" "status after start" || { gone "$id"; return; }
  capture rt start "$id"
  [ "$RC" -ne 0 ] || { gone "$id"; fail "a second start succeeded"; return; }
  touch "$b.out/go"
  wait_status "$id" stopped || { gone "$id"; fail "not stopped after exit: $(status_of "$id")"; return; }
  rt delete "$id" || { fail "delete of a stopped container"; return; }
  capture rt state "$id"
  [ "$RC" -ne 0 ] && [ -n "$ERR" ] || fail "state after delete: rc=$RC err=$ERR"
}

check_kill_created() {
  local id
  id=$(new_id killc)
  rt create --bundle "$(bundle_with killc '.process.args = ["sleep","1000"]')" "$id" || { fail "create"; return; }
  rt kill "$id" KILL || { gone "$id"; fail "kill of a created container"; return; }
  wait_status "$id" stopped || { gone "$id"; fail "status after kill: $(status_of "$id")"; return; }
  rt delete "$id" || fail "delete after kill"
}

check_kill_stopped_fails() {
  local id
  id=$(new_id kills)
  rt create --bundle "$(bundle_with kills '.process.args = ["true"]')" "$id" || { fail "create"; return; }
  rt start "$id"
  wait_status "$id" stopped || { gone "$id"; fail "not stopped"; return; }
  capture rt kill "$id" TERM
  gone "$id"
  [ "$RC" -ne 0 ] || fail "kill of a stopped container succeeded"
}

check_delete_running_needs_force() {
  local id
  id=$(new_id delr)
  rt run -d --bundle "$(bundle_with delr '.process.args = ["sleep","1000"]')" "$id" </dev/null >/dev/null ||
    { fail "run -d"; return; }
  capture rt delete "$id"
  [ "$RC" -ne 0 ] || { fail "delete of a running container succeeded"; return; }
  assert_eq running "$(status_of "$id")" "still running after a refused delete" || { gone "$id"; return; }
  rt delete --force "$id" || { fail "delete --force"; return; }
  capture rt state "$id"
  [ "$RC" -ne 0 ] || fail "state after delete --force succeeded"
}

check_duplicate_id() {
  local id b
  id=$(new_id dup)
  b=$(bundle_with dup '.process.args = ["sleep","1000"]')
  rt create --bundle "$b" "$id" || { fail "create"; return; }
  capture rt create --bundle "$b" "$id"
  local st; st=$(status_of "$id")
  gone "$id"
  [ "$RC" -ne 0 ] || { fail "a second create with the same id succeeded"; return; }
  assert_eq created "$st" "the first container after the refused create"
}

# create_fails NAME: config.json is already broken in $WORK/NAME; create must fail with an
# error and leave no container.
create_fails() {
  local id=$1
  # Files, not a pipe: a create that wrongly succeeds leaves an init holding its stdout.
  rt create --bundle "$WORK/$2" "$id" </dev/null >"$WORK/create.out" 2>"$WORK/create.err"
  RC=$? ERR=$(cat "$WORK/create.err")
  [ "$RC" -ne 0 ] || { gone "$id"; fail "create succeeded"; return; }
  [ -n "$ERR" ] || { fail "no error on stderr"; return; }
  capture rt state "$id"
  [ "$RC" -ne 0 ] || { gone "$id"; fail "state finds a container after the failed create"; return; }
  assert_eq "" "$(rt list -q 2>/dev/null)" "list after the failed create"
}
check_missing_config() {
  mkdir -p "$WORK/noconf/rootfs"
  create_fails "$(new_id noconf)" noconf
}
check_invalid_config() {
  bundle_with badjson . >/dev/null && echo '{"ociVersion": "1.0.2", "process": ' >"$WORK/badjson/config.json"
  create_fails "$(new_id badjson)" badjson
}

# A config runtime-tools expects to be refused at create (process_rlimits_fail,
# process_capabilities_fail): an error, and no container.
check_bad_field() { # NAME JQ
  bundle_with "$1" "$2" >/dev/null
  create_fails "$(new_id "$1")" "$1"
}

check_delete_created() {
  local id
  id=$(new_id delc)
  rt create --bundle "$(bundle_with delc '.process.args = ["sleep","1000"]')" "$id" || { fail "create"; return; }
  local pid; pid=$(rt state "$id" | jq -r .pid)
  rt delete "$id" || { gone "$id"; fail "delete of a created container"; return; }
  wait_until 5 sh -c "! kill -0 $pid" || fail "the container's pid $pid outlived delete"
}

check_kill_default_term() {
  local id b
  id=$(new_id term)
  b=$(bundle_with term '.process.args = ["sh","-c","trap \"echo TERM > /out/sig; exit 0\" TERM; touch /out/ready; while :; do sleep 0.1; done"]')
  rt run -d --bundle "$b" "$id" </dev/null >/dev/null || { fail "run -d"; return; }
  wait_until 10 test -e "$b.out/ready" || { gone "$id"; fail "not ready"; return; }
  rt kill "$id"
  wait_status "$id" stopped; local st; st=$(status_of "$id")
  gone "$id"
  assert_eq TERM "$(cat "$b.out/sig" 2>/dev/null)" "kill without a signal sends SIGTERM" || return
  assert_eq stopped "$st" "status after TERM"
}

check_pid_file() {
  local id
  id=$(new_id pidf)
  rt create --pid-file "$WORK/pidf.pid" --bundle "$(bundle_with pidf '.process.args = ["sleep","1000"]')" "$id" ||
    { fail "create"; return; }
  local want got
  want=$(rt state "$id" | jq -r .pid)
  got=$(cat "$WORK/pidf.pid" 2>/dev/null)
  gone "$id"
  assert_eq "$want" "$got" "pid file against state's pid"
}

# A console socket receiver: accepts one connection, takes the pty master from SCM_RIGHTS,
# and copies what the container writes into FILE until EOF.
console_receiver() { # SOCKET FILE
  python3 - "$1" "$2" <<'PY' &
import array, os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
c, _ = s.accept()
fds = array.array("i")
msg, anc, _, _ = c.recvmsg(1024, socket.CMSG_LEN(fds.itemsize))
fds.frombytes(anc[0][2][:fds.itemsize])
out = open(sys.argv[2], "wb")
while True:
    try:
        b = os.read(fds[0], 4096)
    except OSError:
        break
    if not b:
        break
    out.write(b); out.flush()
PY
}
check_console_socket() {
  local id sock=$WORK/console.sock out=$WORK/console.out rpid
  id=$(new_id tty)
  console_receiver "$sock" "$out"; rpid=$!
  wait_until 5 test -S "$sock" || { kill "$rpid"; fail "receiver did not listen"; return; }
  rt create --console-socket "$sock" --bundle "$(bundle_with tty '.process.terminal = true
      | .process.args = ["sh","-c","test -t 0 && test -t 1 && test -t 2 && echo TTY-OK"]')" "$id" ||
    { kill "$rpid"; fail "create with --console-socket"; return; }
  rt start "$id"
  wait_until 10 grep -q TTY-OK "$out"; local seen=$?
  gone "$id"; kill "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null
  [ "$seen" -eq 0 ] || fail "container output on the pty: $(head -c 200 "$out" 2>/dev/null)"
}

check_hooks() {
  local id b log want ns_hooks=1
  [ "$1" = runtime ] && ns_hooks=0
  [ "$ns_hooks" = 1 ] && gvisor_skip "runsc does not run createContainer/startContainer hooks (they would run inside the sandbox, which has no host binaries)" && return "$EXIT_SKIP"
  id=$(new_id "hooks$1")
  b=$(bundle_with "hooks$1" '.process.args = ["sh","-c","echo process >> /out/hooks.log"]')
  log=$b.out/hooks.log
  # Host-side hooks and createContainer log the state they get on stdin; startContainer runs
  # in the container, where the log is /out.
  hook() { jq -n --arg n "$1" --arg f "$2" '{path:"/bin/sh", args:["sh","-c","s=$(cat); echo \"'"$1"' $s\" >> '"$2"'"]}'; }
  jq --argjson pre "$(hook prestart "$log")" --argjson cr "$(hook createRuntime "$log")" \
     --argjson cc "$(hook createContainer "$log")" --argjson sc "$(hook startContainer /out/hooks.log)" \
     --argjson ps "$(hook poststart "$log")" --argjson pst "$(hook poststop "$log")" \
     '.hooks = {prestart:[$pre], createRuntime:[$cr], createContainer:[$cc], startContainer:[$sc], poststart:[$ps], poststop:[$pst]}' \
     "$b/config.json" >"$b/c.json" && mv "$b/c.json" "$b/config.json"
  rt create --bundle "$b" "$id" || { fail "create"; return; }
  rt start "$id"
  wait_status "$id" stopped; rt delete "$id"
  # poststart runs in the runtime once the start is signalled, so it races startContainer and
  # the process (runc too); it must still come after createContainer and before poststop.
  local all got
  all=$(awk '{print $1}' "$log" 2>/dev/null | tr '\n' ' ')
  got=$(grep -v '^poststart ' "$log" 2>/dev/null | awk '{print $1}' | tr '\n' ' ')
  if [ "$ns_hooks" = 1 ]; then
    assert_eq "prestart createRuntime createContainer startContainer process poststop" "${got% }" "hooks in order: $all" || return
  else
    got=$(tr ' ' '\n' <<<"${got% }" | grep -Ev '^(createContainer|startContainer)$' | tr '\n' ' ')
    assert_eq "prestart createRuntime process poststop" "${got% }" "runtime hooks in order: $all" || return
  fi
  [[ "$all" =~ createRuntime\ .*poststart\ .*poststop ]] || { fail "poststart between createRuntime and poststop: $all"; return; }
  local st; st=$(grep '^prestart ' "$log" | cut -d' ' -f2-)
  assert_eq "$id" "$(jq -r .id <<<"$st")" "state.id given to prestart" || return
  assert_eq "$b" "$(jq -r .bundle <<<"$st")" "state.bundle given to prestart" || return
  [ "$(jq -r '.pid // 0' <<<"$st")" -gt 0 ] || { fail "state.pid given to prestart: $st"; return; }
  [[ "$(jq -r .status <<<"$st")" =~ ^(creating|created)$ ]] || { fail "state.status given to prestart: $st"; return; }
  assert_eq stopped "$(grep '^poststop ' "$log" | cut -d' ' -f2- | jq -r .status)" "state.status given to poststop"
}

# A hook starts with every signal deliverable, under `run` too (which holds the ones it
# forwards until its forwarder is in place: a hook must not inherit that); the process too.
check_hook_signal_mask() {
  local b log=$WORK/sigblk-$RANDOM
  b=$(bundle_with sigmask '.process.args = ["grep","-e","^SigBlk:","-e","^Name:","/proc/self/status"]')
  # awk, not sh: dash empties its signal mask when it starts, which would hide the runtime's.
  jq --arg f "$log" --arg awk "$(command -v awk)" \
    '.hooks = {prestart: [{path: $awk, args: ["awk", "-v", "f=\($f)", "/^SigBlk:/ {print > f}", "/proc/self/status"]}]}' \
    "$b/config.json" >"$b/c.json" && mv "$b/c.json" "$b/config.json"
  capture rt run --bundle "$b" "$(uniq_name sigmask)" </dev/null
  assert_eq 0 "$RC" "run with a prestart hook ($ERR)" || return
  assert_eq "0000000000000000" "$(awk '{print $2}' "$log" 2>/dev/null)" "the prestart hook's blocked signals" || return
  [ "$GVISOR" = 1 ] && return 0  # the Sentry's /proc/PID/status has no SigBlk line
  assert_eq "0000000000000000" "$(awk '/^SigBlk:/ {print $2}' <<<"$OUT")" "the process's blocked signals"
}

# runtime-spec config.md#posix-platform-hooks, as runtime-tools' poststart_fail, poststop_fail
# and hooks_stdin read it: after a failing poststart or poststop hook the rest still run;
# prestart reads status "created"; poststop's state carries the config's annotations (and
# none of the runtime's own). One hook runner serves both backends (issue #34).
check_hooks_after_failure() {
  local id b log
  id=$(new_id hookrest)
  b=$(bundle_with hookrest '.process.args = ["sleep","1000"]')
  log=$b.out/rest.log
  jq --arg log "$log" '.annotations = {"org.test.hooks": "v"}
    | .hooks = {prestart: [{path:"/bin/sh", args:["sh","-c","echo prestart $(cat) >> \($log)"]}],
                poststart: [{path:"/bin/false"}, {path:"/bin/sh", args:["sh","-c","echo poststart2 >> \($log)"]}],
                poststop: [{path:"/bin/false"}, {path:"/bin/sh", args:["sh","-c","echo poststop $(cat) >> \($log)"]}]}' \
    "$b/config.json" >"$b/c.json" && mv "$b/c.json" "$b/config.json"
  rt create --bundle "$b" "$id" </dev/null >/dev/null 2>&1 || { fail "create"; return; }
  rt start "$id" >/dev/null 2>&1
  wait_until 10 grep -q poststart2 "$log"
  rt delete --force "$id" >/dev/null 2>&1
  grep -q '^poststart2' "$log" || { fail "the poststart hook after a failing one did not run: $(cat "$log")"; return; }
  local pre post
  pre=$(grep '^prestart ' "$log" | cut -d' ' -f2-)
  post=$(grep '^poststop ' "$log" | cut -d' ' -f2-)
  [ -n "$post" ] || { fail "the poststop hook after a failing one did not run"; return; }
  assert_eq created "$(jq -r .status <<<"$pre")" "prestart state.status" || return
  assert_eq '{"org.test.hooks":"v"}' "$(jq -c .annotations <<<"$post")" "poststop state.annotations"
}

# runtime-tools' linux_masked_paths / linux_readonly_paths: a path naming a device node. runc
# masks it (a /dev/null bind); it must never stop the container from starting.
check_masked_device_node() {
  rm -f "$B/rootfs/masked-device" "$B/rootfs/ro-device"
  mknod "$B/rootfs/masked-device" c 1 3 && mknod "$B/rootfs/ro-device" c 1 3 || { fail "mknod"; return; }
  run_spec maskdev '.linux.maskedPaths = ["/masked-device"] | .linux.readonlyPaths = ["/ro-device"] | .process.args = ["echo","started"]'
  rm -f "$B/rootfs/masked-device" "$B/rootfs/ro-device"
  assert_eq 0 "$RC" "run with a masked and a read-only device node ($ERR)" || return
  assert_contains "$OUT" started "the process ran"
}

# runtime.md: a failing prestart hook fails create and the container goes (nothing left).
check_prestart_failure() {
  bundle_with hookfail '.hooks = {prestart: [{path: "/bin/false"}]} | .process.args = ["sleep","1000"]' >/dev/null
  create_fails "$(new_id hookfail)" hookfail
}

# runtime.md: a failing poststart hook is only a warning, the container runs on (runc 1.1
# runs poststart hooks at create and fails it: its own column shows that).
check_poststart_failure() {
  local b id
  id=$(new_id hookwarn)
  b=$(bundle_with hookwarn '.hooks = {poststart: [{path: "/bin/false"}]} | .process.args = ["sh","-c","touch /out/ran; sleep 1000"]')
  rt create --bundle "$b" "$id" </dev/null >/dev/null 2>&1 || { fail "create with a failing poststart hook"; return; }
  rt start "$id" >/dev/null 2>&1
  wait_until 10 test -e "$b.out/ran"; local ran=$?
  gone "$id"
  [ "$ran" -eq 0 ] || fail "the process did not run after a failing poststart hook"
}

check_terminal_needs_console_socket() {
  bundle_with ttynosock '.process.terminal = true | .process.args = ["true"]' >/dev/null
  create_fails "$(new_id ttynosock)" ttynosock
}

# ---- config.json applied, as runtimetest checks it from inside ----

check_process() {
  run_spec proc '.process.args = ["sh","-c","echo \"$FOO|$(pwd)|$(umask)\"; grep -E \"^(Uid|Gid|Groups):\" /proc/self/status"]
    | .process.env += ["FOO=bar baz"] | .process.cwd = "/home/user"
    | .process.user = {uid: 1000, gid: 1000, additionalGids: [5, 7], umask: 18}
    | .process.apparmorProfile = "" | .process.selinuxLabel = ""'
  assert_eq 0 "$RC" "exit: $ERR" || return
  assert_contains "$OUT" "bar baz|/home/user|0022" "env, cwd and umask" || return
  assert_contains "$OUT" "$(printf 'Uid:\t1000\t1000\t1000\t1000')" "uid" || return
  assert_contains "$OUT" "$(printf 'Gid:\t1000\t1000\t1000\t1000')" "gid" || return
  [[ "$OUT" =~ Groups:[[:space:]]+5[[:space:]]+7 ]] || fail "additionalGids: $OUT"
}

check_exit_status() {
  run_spec exitst '.process.args = ["sh","-c","exit 42"]'
  assert_eq 42 "$RC" "run's exit status is the process's"
}

check_rlimits() {
  run_spec rlim '.process.rlimits = [{type:"RLIMIT_NOFILE",soft:321,hard:654},{type:"RLIMIT_NPROC",soft:111,hard:222}]
    | .process.args = ["sh","-c","echo $(ulimit -Sn) $(ulimit -Hn) $(ulimit -Su) $(ulimit -Hu)"]'
  assert_eq "321 654 111 222" "$OUT" "RLIMIT_NOFILE and RLIMIT_NPROC soft/hard ($ERR)"
}

check_no_new_privileges() {
  gvisor_skip "gVisor's /proc/self/status has no NoNewPrivs line (runsc sets no_new_privs on the sandbox; the shell cannot call prctl)" && return "$EXIT_SKIP"
  run_spec nnp '.process.noNewPrivileges = true | .process.args = ["grep","NoNewPrivs","/proc/self/status"]'
  [[ "$OUT" =~ NoNewPrivs:[[:space:]]+1 ]] || fail "NoNewPrivs: $OUT $ERR"
}

check_capabilities() {
  # CAP_CHOWN (0) + CAP_KILL (5) bounding/permitted/inheritable; ambient CAP_KILL (needs it
  # in permitted and inheritable). A root process's exec makes effective = permitted on
  # Linux; gVisor keeps the spec's effective set. gVisor shows no CapAmb line.
  run_spec caps '.process.capabilities = {bounding:["CAP_CHOWN","CAP_KILL"], permitted:["CAP_CHOWN","CAP_KILL"],
      inheritable:["CAP_CHOWN","CAP_KILL"], effective:["CAP_KILL"], ambient:["CAP_KILL"]}
    | .process.args = ["grep","^Cap","/proc/self/status"]'
  assert_eq 0 "$RC" "exit: $ERR" || return
  local want
  for want in "CapInh:	0000000000000021" "CapPrm:	0000000000000021" "CapBnd:	0000000000000021"; do
    assert_contains "$OUT" "$want" "capability set" || return
  done
  [[ "$OUT" =~ CapEff:$'\t'00000000000000(20|21) ]] || { fail "CapEff holds CAP_KILL, within permitted: $OUT"; return; }
  [[ "$OUT" != *CapAmb* ]] || assert_contains "$OUT" "CapAmb:	0000000000000020" "ambient set"
}

check_hostname() {
  run_spec uts '.hostname = "oci-host" | .process.args = ["hostname"]'
  assert_eq oci-host "$OUT" "hostname ($ERR)"
}

# runc 1.1 ignores domainname (its own column shows it); runtime-tools checks it.
check_domainname() {
  gvisor_skip "gVisor has no /proc/sys/kernel/domainname to read it from" && return "$EXIT_SKIP"
  run_spec domain '.domainname = "oci.example" | .process.args = ["cat","/proc/sys/kernel/domainname"]'
  assert_eq oci.example "$OUT" "domainname ($ERR)"
}

check_root_readonly() {
  run_spec rootro '.root.readonly = true | .process.args = ["sh","-c","touch /rofile 2>&1; echo rc=$?; touch /out/rw && echo out-rw"]'
  assert_contains "$OUT" "rc=1" "write to a readonly root" || return
  assert_contains "$OUT" "out-rw" "a rw mount under a readonly root"
}

check_mounts() {
  run_spec mnts '.mounts += [
      {destination:"/mnt/t", type:"tmpfs", source:"tmpfs", options:["nosuid","nodev","mode=750","size=1m"]},
      {destination:"/mnt/t/inner", type:"tmpfs", source:"tmpfs", options:["size=2m"]},
      {destination:"/mnt/ro", type:"bind", source:"'"$B"'/rootfs/etc", options:["rbind","ro"]}]
    | .process.args = ["sh","-c","df -k /mnt/t /mnt/t/inner | tail -n +2 | while read f k r; do echo size=$k; done; stat -c %a /mnt/t; cat /mnt/ro/passwd >/dev/null && echo ro-read; touch /mnt/ro/x 2>/dev/null || echo ro-denied; grep -E \" /mnt/(t|ro)\" /proc/self/mountinfo"]'
  assert_eq 0 "$RC" "exit: $ERR" || return
  assert_contains "$OUT" "size=1024" "tmpfs size=1m" || return
  assert_contains "$OUT" "size=2048" "nested tmpfs (mount order)" || return
  assert_contains "$OUT" "$(printf '\n750\n')" "tmpfs mode" || return
  assert_contains "$OUT" "ro-read" "bind mount readable" || return
  assert_contains "$OUT" "ro-denied" "bind mount read-only"
}

check_mount_flags() {
  gvisor_skip "gVisor's mountinfo shows per-mount flags as rw/ro only" && return "$EXIT_SKIP"
  run_spec mntfl '.mounts += [{destination:"/mnt/t", type:"tmpfs", source:"tmpfs", options:["nosuid","nodev","noexec"]}]
    | .process.args = ["grep"," /mnt/t ","/proc/self/mountinfo"]'
  [[ "$OUT" =~ nosuid,nodev,noexec ]] || fail "tmpfs nosuid,nodev,noexec in mountinfo: $OUT $ERR"
}

check_masked_readonly_paths() {
  touch "$B/rootfs/home/user/.profile"
  run_spec masked '.linux.maskedPaths = ["/etc/hostname","/etc/passwd-missing","/home/user"] | .linux.readonlyPaths = ["/proc/sys","/home"]
    | .process.args = ["sh","-c","echo hostname=$(cat /etc/hostname | wc -c); echo user=$(ls -A /home/user | wc -l); echo 1 > /proc/sys/kernel/domainname 2>/dev/null || echo sys-ro; touch /home/x 2>/dev/null || echo home-ro"]'
  assert_contains "$OUT" "hostname=0" "masked file reads empty" || return
  assert_contains "$OUT" "user=0" "masked directory is empty" || return
  assert_contains "$OUT" "sys-ro" "readonly /proc/sys" || return
  assert_contains "$OUT" "home-ro" "readonly /home"
}

# A masked or read-only path that is a symlink in the image is resolved inside the rootfs: a
# link to "../../../etc" must never put the host's /etc over the container's.
check_masked_symlink_stays_inside() {
  local host_root
  host_root=$(head -1 /etc/passwd)
  [ "$host_root" != "$(head -1 "$B/rootfs/etc/passwd")" ] || { skip "host and image /etc/passwd start alike: no control"; return; }
  ln -sfn ../../../../etc "$B/rootfs/lnk-etc"
  # Control: followed on the host, the link is the host's /etc.
  [ "$(readlink -f "$B/rootfs/lnk-etc")" = /etc ] || { rm -f "$B/rootfs/lnk-etc"; fail "control: the link does not reach the host's /etc"; return; }
  run_spec rolink '.linux.readonlyPaths = ["/lnk-etc"] | .linux.maskedPaths = ["/lnk-etc/hostname"]
    | .process.args = ["sh","-c","head -1 /etc/passwd; echo hostname=$(cat /etc/hostname | wc -c)"]'
  rm -f "$B/rootfs/lnk-etc"
  assert_not_contains "$OUT" "$host_root" "the host's /etc/passwd in the container ($ERR)" || return
  assert_contains "$OUT" "root:x:0:0:root:/root:/bin/sh" "the image's /etc/passwd" || return
  assert_contains "$OUT" "hostname=0" "the masked path behind the link"
}

# runtime-tools' linux_rootfs_propagation: the propagation of the container's "/" as
# mountinfo's optional fields show it (shared:N for shared, none for private; slave is not
# checked: on a host whose / is private, a slave of it shows nothing either).
check_rootfs_propagation() {
  gvisor_skip "gVisor's mountinfo has no propagation fields (the Sentry's mounts are private)" && return "$EXIT_SKIP"
  run_spec propshared '.linux.rootfsPropagation = "shared" | .process.args = ["sh","-c","grep -E \"^[0-9]+ [0-9]+ [0-9:]+ [^ ]+ / \" /proc/self/mountinfo"]'
  [[ "$OUT" =~ shared:[0-9]+ ]] || { fail "rootfsPropagation shared: $OUT $ERR"; return; }
  run_spec propprivate '.linux.rootfsPropagation = "private" | .process.args = ["sh","-c","grep -E \"^[0-9]+ [0-9]+ [0-9:]+ [^ ]+ / \" /proc/self/mountinfo"]'
  [ -n "$OUT" ] || { fail "no / in mountinfo: $ERR"; return; }
  [[ ! "$OUT" =~ (master|shared):[0-9]+ ]] || fail "rootfsPropagation private: $OUT"
}

check_sysctl() {
  gvisor_skip "runsc does not apply linux.sysctl (its /proc/sys is the Sentry's own)" && return "$EXIT_SKIP"
  run_spec sysctl '.linux.sysctl = {"net.ipv4.ip_forward":"1","kernel.shmmax":"123456789"}
    | .process.args = ["sh","-c","cat /proc/sys/net/ipv4/ip_forward /proc/sys/kernel/shmmax"]'
  assert_eq "$(printf '1\n123456789')" "$OUT" "sysctl values ($ERR)"
}

check_devices() {
  gvisor_skip "runsc does not create linux.devices (gVisor's /dev has its own fixed set)" && return "$EXIT_SKIP"
  run_spec devs '.linux.devices = [{path:"/dev/oci-null",type:"c",major:1,minor:3,fileMode:438,uid:1000,gid:1000},
      {path:"/dev/oci-loop",type:"b",major:7,minor:200,fileMode:384,uid:0,gid:0}]
    | .linux.resources.devices = [{allow:false,access:"rwm"},{allow:true,type:"c",major:1,minor:3,access:"rwm"}]
    | .process.args = ["sh","-c","stat -c \"%n %F %t:%T %a %u:%g\" /dev/oci-null /dev/oci-loop; echo x > /dev/oci-null && echo write-ok"]'
  assert_contains "$OUT" "/dev/oci-null character special file 1:3 666 1000:1000" "char device" || return
  assert_contains "$OUT" "/dev/oci-loop block special file 7:c8 600 0:0" "block device" || return
  assert_contains "$OUT" "write-ok" "the allowed device is usable"
}

check_default_devices() {
  run_spec defdev '.process.args = ["sh","-c","for d in null zero full random urandom tty ptmx; do stat -c \"%n %F %t:%T %a\" /dev/$d; done;
      for l in fd stdin stdout stderr; do readlink /dev/$l; done; stat -c \"%n %F\" /dev/shm /dev/pts; head -c 4 /dev/zero | wc -c"]'
  assert_eq 0 "$RC" "exit: $ERR" || return
  local want
  for want in "/dev/null character special file 1:3 666" "/dev/zero character special file 1:5 666" \
      "/dev/full character special file 1:7 666" "/dev/random character special file 1:8 666" \
      "/dev/urandom character special file 1:9 666" "/dev/tty character special file 5:0 666" \
      "/proc/self/fd" "/proc/self/fd/0" "/proc/self/fd/1" "/proc/self/fd/2" "/dev/shm directory" "/dev/pts directory"; do
    assert_contains "$OUT" "$want" "default device" || return
  done
  [[ "$OUT" =~ /dev/ptmx\ (character\ special\ file\ 5:2|symbolic\ link) ]] || fail "/dev/ptmx: $OUT"
}

check_pid_namespace() {
  run_spec nspid '.process.args = ["sh","-c","echo $$"]'
  assert_eq 1 "$OUT" "pid in a new pid namespace ($ERR)"
}

check_namespaces_new() {
  gvisor_skip "gVisor has no /proc/self/ns links; the sandbox's host namespaces are the sandbox's own" && return "$EXIT_SKIP"
  run_spec nsnew '.process.args = ["sh","-c","for n in uts ipc net mnt; do readlink /proc/self/ns/$n; done"]'
  assert_eq 0 "$RC" "exit: $ERR" || return
  local ns
  for ns in uts ipc net mnt; do
    assert_not_contains "$OUT" "$(readlink /proc/self/ns/$ns)" "new $ns namespace" || return
  done
}

check_namespace_path() {
  local ns
  ns=sandshim-oci-$$-$RANDOM
  ip netns add "$ns" || { fail "ip netns add"; return; }
  local ino id b host inside
  ino=$(stat -L -c %i "/var/run/netns/$ns")
  id=$(new_id nspath)
  b=$(bundle_with nspath '(.linux.namespaces |= map(if .type == "network" then .path = "/var/run/netns/'"$ns"'" else . end))
    | .process.args = ["sh","-c","readlink /proc/self/ns/net > /out/ns; sleep 1000"]')
  rt run -d --bundle "$b" "$id" </dev/null >/dev/null
  wait_until 10 test -s "$b.out/ns"
  host=$(readlink "/proc/$(rt state "$id" | jq -r .pid)/ns/net")
  inside=$(cat "$b.out/ns" 2>/dev/null)
  gone "$id"; ip netns del "$ns"
  assert_eq "net:[$ino]" "$host" "the container's pid, seen from the host, is in the named netns" || return
  [ "$GVISOR" = 1 ] || assert_eq "net:[$ino]" "$inside" "the process's own netns"
}

# runtime-tools' linux_ns_itype: no "mount" in linux.namespaces means the runtime's own mount
# namespace. The container starts there, sees its rootfs (and its /out bind), and leaves the
# namespace's mount table as it found it. Run in a copy of the host's mount namespace
# (unshare -m): runc 1.1 makes "/" a recursive slave there and leaves every mount of the
# container in it, which must not happen to the host's own.
check_no_mount_namespace() {
  gvisor_skip "the sandbox's processes are in the Sentry's namespaces, never the runtime's" && return "$EXIT_SKIP"
  local b id out
  b=$(bundle_with nomnt '(.linux.namespaces |= map(select(.type != "mount"))) | del(.linux.maskedPaths, .linux.readonlyPaths)
    | .process.args = ["sh","-c","readlink /proc/self/ns/mnt; test -x /bin/busybox && test -d /out && echo seen > /out/seen"]')
  id=$(new_id nomnt)
  out=$(unshare -m --propagation unchanged bash -c '
    sort /proc/self/mountinfo >"$1.before"
    readlink /proc/self/ns/mnt
    "${@:3}" run --bundle "$1" "$2" </dev/null; echo "rc=$?"
    "${@:3}" delete --force "$2" >/dev/null 2>&1
    sort /proc/self/mountinfo | diff "$1.before" - | grep "^[<>]"; true' _ "$b" "$id" "$RT_BIN" --root "$ROOT" "${RT_ARGS[@]}" 2>&1)
  local runner inside
  runner=$(sed -n 1p <<<"$out")
  inside=$(sed -n 2p <<<"$out")
  assert_contains "$out" "rc=0" "run exits 0: $out" || return
  assert_eq "$runner" "$inside" "the container's mount namespace is the runtime's" || return
  assert_eq seen "$(cat "$b.out/seen" 2>/dev/null)" "the container wrote through its /out bind" || return
  local diffs
  diffs=$(grep '^[<>]' <<<"$out")
  [ -z "$diffs" ] || fail "the runtime's mount table changed: $(head -c 400 <<<"$diffs")"
}

# runtime-tools' linux_ns_path for the others: join a uts and an ipc namespace held by a
# process of ours; the container sees that namespace's hostname.
check_uts_ipc_path() {
  gvisor_skip "runsc gives the sandbox the Sentry's own UTS and IPC namespaces; a path is not joined (hostname reads '?')" && return "$EXIT_SKIP"
  local holder name=ocijoin-$RANDOM
  unshare --uts --ipc sh -c "hostname $name; exec sleep 1000" </dev/null >/dev/null 2>&1 &
  holder=$!
  wait_until 5 test "$(readlink /proc/$holder/ns/uts)" != "$(readlink /proc/self/ns/uts)"
  sleep 0.2
  run_spec nsuts 'del(.hostname) | (.linux.namespaces |= map(if .type == "uts" or .type == "ipc" then .path = "/proc/'"$holder"'/ns/\(.type)" else . end))
    | .process.args = ["hostname"]'
  kill "$holder"; wait "$holder" 2>/dev/null
  assert_eq "$name" "$OUT" "hostname of the joined uts namespace ($ERR)"
}

check_user_namespace() {
  gvisor_skip "runsc ignores linux.uidMappings/gidMappings (the Sentry's user namespace maps everything)" && return "$EXIT_SKIP"
  run_spec userns '.linux.namespaces += [{type:"user"}]
    | .linux.uidMappings = [{containerID:0,hostID:100000,size:65536}] | .linux.gidMappings = [{containerID:0,hostID:200000,size:65536}]
    | .process.args = ["sh","-c","cat /proc/self/uid_map /proc/self/gid_map"]'
  assert_eq 0 "$RC" "exit: $ERR" || return
  [[ "$OUT" =~ ^[[:space:]]*0[[:space:]]+100000[[:space:]]+65536 ]] || { fail "uid_map: $OUT"; return; }
  [[ "$OUT" =~ $'\n'[[:space:]]*0[[:space:]]+200000[[:space:]]+65536 ]] || fail "gid_map: $OUT"
}

# cgroup_file CONTROLLER FILE SUBPATH: the file in the v1 hierarchy, or in cgroup2.
cgroup_file() {
  local f
  for f in "/sys/fs/cgroup/$1/$3/$2" "/sys/fs/cgroup/$3/$2" "/sys/fs/cgroup/unified/$3/$2"; do
    [ -e "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}
check_cgroup_resources() {
  local id b sub
  id=$(new_id cg)
  b=$(bundle_with cg '.linux.resources.memory = {limit: 67108864} | .linux.resources.pids = {limit: 77}
    | .linux.resources.cpu = {shares: 512} | .process.args = ["sleep","1000"]')
  sub=$(jq -r .linux.cgroupsPath "$b/config.json")
  rt create --bundle "$b" "$id" || { fail "create"; return; }
  local mem pids cpu
  mem=$(cat "$(cgroup_file memory memory.limit_in_bytes "$sub")" 2>/dev/null)
  pids=$(cat "$(cgroup_file pids pids.max "$sub")" 2>/dev/null)
  cpu=$(cat "$(cgroup_file cpu cpu.shares "$sub")" 2>/dev/null)
  gone "$id"
  assert_eq 67108864 "$mem" "memory.limit_in_bytes in $sub" || return
  assert_eq 512 "$cpu" "cpu.shares" || return
  if [ "$GVISOR" = 1 ]; then
    [ "$pids" -ge 77 ] || fail "pids.max: the sandbox's backstop is at least the limit: $pids"
  else
    assert_eq 77 "$pids" "pids.max"
  fi
}

# The host view (state pid) everywhere; the process's own view where it is the host's.
check_cgroup_cpu_blkio() {
  local id b sub
  id=$(new_id cg2)
  b=$(bundle_with cg2 '.linux.resources.cpu = {quota: 20000, period: 100000, cpus: "0", mems: "0"}
    | .linux.resources.memory = {limit: 134217728, reservation: 67108864}
    | .process.args = ["sleep","1000"]')
  sub=$(jq -r .linux.cgroupsPath "$b/config.json")
  rt create --bundle "$b" "$id" || { fail "create"; return; }
  local quota period cpus mems resv
  quota=$(cat "$(cgroup_file cpu cpu.cfs_quota_us "$sub")" 2>/dev/null)
  period=$(cat "$(cgroup_file cpu cpu.cfs_period_us "$sub")" 2>/dev/null)
  cpus=$(cat "$(cgroup_file cpuset cpuset.cpus "$sub")" 2>/dev/null)
  mems=$(cat "$(cgroup_file cpuset cpuset.mems "$sub")" 2>/dev/null)
  resv=$(cat "$(cgroup_file memory memory.soft_limit_in_bytes "$sub")" 2>/dev/null)
  gone "$id"
  assert_eq "20000 100000" "$quota $period" "cpu quota and period" || return
  assert_eq "0 0" "$cpus $mems" "cpuset cpus and mems" || return
  assert_eq 67108864 "$resv" "memory reservation"
}

# This kernel's I/O scheduler (BFQ) offers blkio.bfq.weight, not blkio.weight.
check_cgroup_blkio() {
  local id b sub weight rbps dev
  dev=$(cat /sys/block/vd[a-z]/dev /sys/block/sd[a-z]/dev /sys/block/nvme*/dev 2>/dev/null | head -1)
  [ -n "$dev" ] || { skip "no disk to throttle"; return; }
  id=$(new_id blkio)
  b=$(bundle_with blkio '.linux.resources.blockIO = {weight: 300, throttleReadBpsDevice: [{major: '"${dev%:*}"', minor: '"${dev#*:}"', rate: 1048576}]}
    | .process.args = ["sleep","1000"]')
  sub=$(jq -r .linux.cgroupsPath "$b/config.json")
  rt create --bundle "$b" "$id" || { fail "create"; return; }
  weight=$(cat "$(cgroup_file blkio blkio.weight "$sub")" 2>/dev/null || cat "$(cgroup_file blkio blkio.bfq.weight "$sub")" 2>/dev/null)
  rbps=$(cat "$(cgroup_file blkio blkio.throttle.read_bps_device "$sub")" 2>/dev/null)
  gone "$id"
  assert_contains "$weight" 300 "blkio weight" || return
  assert_eq "$dev 1048576" "$rbps" "blkio read bps throttle"
}

check_oom_score_adj() {
  local id b host inside
  id=$(new_id oom)
  b=$(bundle_with oom '.process.oomScoreAdj = 345 | .process.args = ["sh","-c","cat /proc/self/oom_score_adj > /out/oom; sleep 1000"]')
  rt run -d --bundle "$b" "$id" </dev/null >/dev/null
  wait_until 10 test -s "$b.out/oom"
  host=$(cat "/proc/$(rt state "$id" | jq -r .pid)/oom_score_adj")
  inside=$(cat "$b.out/oom" 2>/dev/null)
  gone "$id"
  assert_eq 345 "$host" "oom_score_adj of the container's pid on the host" || return
  [ "$GVISOR" = 1 ] || assert_eq 345 "$inside" "the process's own oom_score_adj"
}

check_seccomp_errno() {
  run_spec seccomp '.linux.seccomp = {defaultAction:"SCMP_ACT_ALLOW", architectures:["SCMP_ARCH_X86_64"],
      syscalls:[{names:["mkdir","mkdirat"], action:"SCMP_ACT_ERRNO", errnoRet:13}]}
    | .process.args = ["sh","-c","mkdir /tmp/oci-sc 2>&1; echo rc=$?; touch /tmp/oci-ok && echo touch-ok"]'
  assert_contains "$OUT" "rc=1" "mkdir denied" || return
  assert_contains "$OUT" "touch-ok" "other syscalls allowed" || return
  [ "$1" = any ] && return
  gvisor_skip "runsc (2022) returns EPERM for SCMP_ACT_ERRNO whatever errnoRet says: $(head -1 <<<"$OUT")" && return "$EXIT_SKIP"
  assert_contains "$OUT" "Permission denied" "mkdir returns errnoRet (EACCES)"
}

# ---- verbs driven by programs ----

check_kill_signals() {
  local id b
  id=$(new_id sig)
  b=$(bundle_with sig '.process.args = ["sh","-c","trap \"echo USR1 >> /out/sig\" USR1; trap \"echo USR2 >> /out/sig\" USR2; trap \"echo TERM >> /out/sig; exit 0\" TERM; touch /out/ready; while :; do sleep 0.1; done"]')
  rt run -d --bundle "$b" "$id" </dev/null >/dev/null || { fail "run -d"; return; }
  wait_until 10 test -e "$b.out/ready" || { gone "$id"; fail "not ready"; return; }
  rt kill "$id" USR1 && wait_until 5 grep -q USR1 "$b.out/sig" &&
    rt kill "$id" SIGUSR2 && wait_until 5 grep -q USR2 "$b.out/sig" &&
    rt kill "$id" 15 && wait_status "$id" stopped
  local rc=$?
  local got; got=$(tr '\n' ' ' <"$b.out/sig" 2>/dev/null)
  gone "$id"
  [ "$rc" -eq 0 ] || { fail "signals by name, SIG-name and number: got '$got'"; return; }
  assert_eq "USR1 USR2 TERM " "$got" "signals delivered"
}

check_ps() {
  local id out
  id=$(new_id ps)
  rt run -d --bundle "$(bundle_with ps '.process.args = ["sleep","1000"]')" "$id" </dev/null >/dev/null || { fail "run -d"; return; }
  out=$(rt ps --format json "$id"); local rc=$?
  local table; table=$(rt ps "$id")
  gone "$id"
  assert_eq 0 "$rc" "ps --format json" || return
  [ "$(jq 'length' <<<"$out")" -ge 1 ] && jq -e 'all(.[]; type == "number")' <<<"$out" >/dev/null ||
    { fail "ps json is an array of pids: $out"; return; }
  assert_contains "$table" "PID" "ps table header" || return
  assert_contains "$table" "sleep" "ps table lists the process"
}

check_pause_resume() {
  local id
  id=$(new_id pause)
  rt run -d --bundle "$(bundle_with pause '.process.args = ["sleep","1000"]')" "$id" </dev/null >/dev/null || { fail "run -d"; return; }
  rt pause "$id" || { gone "$id"; fail "pause"; return; }
  local st; st=$(status_of "$id")
  rt resume "$id" || { gone "$id"; fail "resume"; return; }
  local st2; st2=$(status_of "$id")
  gone "$id"
  assert_eq paused "$st" "status after pause" || return
  assert_eq running "$st2" "status after resume"
}

check_features() {
  local f
  f=$(rt features) || { fail "features"; return; }
  jq -e '(.ociVersionMin | type == "string") and (.ociVersionMax | type == "string")
    and (.hooks | index("prestart") != null) and (.mountOptions | type == "array")
    and (.linux.namespaces | index("pid") != null) and (.linux.capabilities | type == "array")' <<<"$f" >/dev/null ||
    fail "features shape: $(head -c 300 <<<"$f")"
}

check_list_json() {
  local id b out
  id=$(new_id list)
  b=$(bundle_with list '.process.args = ["sleep","1000"]')
  rt create --bundle "$b" "$id" || { fail "create"; return; }
  out=$(rt list --format json)
  local q; q=$(rt list -q)
  gone "$id"
  assert_eq "$id" "$q" "list -q" || return
  jq -e --arg id "$id" --arg b "$b" 'map(select(.id == $id)) | length == 1 and .[0].status == "created"
    and .[0].bundle == $b and .[0].pid > 0' <<<"$out" >/dev/null || fail "list json: $out"
}

check_log_json() {
  local log=$WORK/rt.log
  capture rt --log "$log" --log-format json state "no-such-$$"
  [ "$RC" -ne 0 ] || { fail "state of a missing container succeeded"; return; }
  [ -n "$ERR" ] || { fail "no error on stderr"; return; }
  jq -se 'map(select(.level == "error" and (.msg | type == "string"))) | length >= 1' "$log" >/dev/null ||
    fail "no JSON error line in --log: $(head -c 300 "$log" 2>/dev/null)"
}

run_check "create: status created, state fields, process not started" check_create_state
run_check "start: running, second start fails, exit: stopped, delete, state fails" check_start_running_stopped
run_check "kill a created container" check_kill_created
run_check "kill a stopped container fails" check_kill_stopped_fails
run_check "delete a running container needs --force" check_delete_running_needs_force
run_check "create with an existing id fails, first intact" check_duplicate_id
run_check "create without config.json fails, leaves nothing" check_missing_config
run_check "create with invalid config.json fails, leaves nothing" check_invalid_config
run_check "delete a created container ends its process" check_delete_created
run_check "kill without a signal sends SIGTERM" check_kill_default_term
run_check "create with an unknown rlimit type fails" check_bad_field badrlim '.process.rlimits = [{type:"RLIMIT_BOGUS",soft:1,hard:1}]'
run_check "create with an unknown capability fails" check_bad_field badcap '.process.capabilities.bounding += ["CAP_BOGUS"]'
run_check "create with a relative root.path outside the bundle missing fails" check_bad_field badroot '.root.path = "no-such-rootfs"'
run_check "a failing prestart hook fails create, leaves nothing" check_prestart_failure
run_check "a failing poststart hook does not stop the container" check_poststart_failure
run_check "hooks: the rest run after a failing poststart/poststop one; prestart sees created; poststop has the annotations" check_hooks_after_failure
run_check "create with process.terminal and no --console-socket fails" check_terminal_needs_console_socket
run_check "--pid-file holds the state pid" check_pid_file
run_check "--console-socket with process.terminal" check_console_socket
run_check "hooks: runtime hooks in order with the state on stdin" check_hooks runtime
run_check "hooks and the process start with no signal blocked, under run too" check_hook_signal_mask
run_check "hooks: createContainer and startContainer in order [gVisor: not run by runsc]" check_hooks all
run_check "process: args env cwd uid gid additionalGids umask" check_process
run_check "run exits with the process's status" check_exit_status
run_check "process.rlimits" check_rlimits
run_check "process.noNewPrivileges [gVisor: not in /proc/self/status]" check_no_new_privileges
run_check "process.capabilities: five sets" check_capabilities
run_check "hostname" check_hostname
run_check "domainname [gVisor: no /proc/sys/kernel/domainname]" check_domainname
run_check "root.readonly" check_root_readonly
run_check "mounts: tmpfs size/mode, nested order, bind ro" check_mounts
run_check "mounts: nosuid,nodev,noexec in mountinfo [gVisor: flags not shown]" check_mount_flags
run_check "linux.maskedPaths and readonlyPaths" check_masked_readonly_paths
run_check "masked and read-only paths naming a device node: the container starts" check_masked_device_node
run_check "maskedPaths/readonlyPaths through an image symlink stay inside the rootfs" check_masked_symlink_stays_inside
run_check "linux.rootfsPropagation shared and private [gVisor: no propagation fields]" check_rootfs_propagation
run_check "linux.sysctl [gVisor: not applied by runsc]" check_sysctl
run_check "linux.devices: char and block, mode uid gid [gVisor: not created by runsc]" check_devices
run_check "default devices and /dev links" check_default_devices
run_check "namespaces: new pid namespace" check_pid_namespace
run_check "namespaces: new uts ipc net mnt [gVisor: no /proc/self/ns]" check_namespaces_new
run_check "namespaces: no mount namespace: the runtime's, its mount table unchanged [gVisor: the Sentry's namespaces]" check_no_mount_namespace
run_check "namespaces: join a network namespace by path" check_namespace_path
run_check "namespaces: join uts and ipc namespaces by path [gVisor: not joined by runsc]" check_uts_ipc_path
run_check "user namespace with uid/gid mappings [gVisor: ignored by runsc]" check_user_namespace
run_check "cgroupsPath: memory pids cpu limits in the cgroup files" check_cgroup_resources
run_check "cgroupsPath: cpu quota/period, cpuset, memory reservation" check_cgroup_cpu_blkio
run_check "cgroupsPath: blkio weight and throttle" check_cgroup_blkio
run_check "process.oomScoreAdj" check_oom_score_adj
run_check "seccomp: a denied syscall fails, others run" check_seccomp_errno any
run_check "seccomp: a denied syscall returns errnoRet [gVisor: runsc returns EPERM]" check_seccomp_errno errnoRet
run_check "kill by name, SIG-name and number" check_kill_signals
run_check "ps: json pids and table" check_ps
run_check "pause and resume" check_pause_resume
run_check "features document" check_features
run_check "list --format json and -q" check_list_json
run_check "--log --log-format json carries the error" check_log_json
finish_checks
