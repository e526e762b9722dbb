#!/usr/bin/env bash
# sandshim driven directly, as containerd's shim and people do: the runc command line over
# real runsc, on a busybox bundle. Every check ends with no container, no runsc process of
# ours and no state file left (the after-check hook asserts it).
set -u
. "$(dirname "$0")/lib/image.sh"

require_root
require_cmds runsc jq python3 ip
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"

WORK=$(mktemp -d /tmp/sandshim-it.XXXXXX)
chmod 755 "$WORK"  # runsc's sandbox helpers run unprivileged and must read the bundle
ROOT=$WORK/root
LOG=$WORK/log.json
install_traps
on_exit 'rm -rf "$WORK"'
on_exit '"$SANDSHIM_BIN" --root "$ROOT" list -q 2>/dev/null | xargs -r -n1 "$SANDSHIM_BIN" --root "$ROOT" delete --force >/dev/null 2>&1'

ss() { "$SANDSHIM_BIN" --root "$ROOT" --log "$LOG" --log-format json "$@"; }
B=$WORK/bundle
make_bundle "$B" sh -c 'echo hi' || die "cannot build the test bundle"

# bundle_with NAME JQ-FILTER: a copy of the bundle's config with changes, same rootfs.
bundle_with() {
  local d=$WORK/$1
  mkdir -p "$d"
  ln -sfn "$B/rootfs" "$d/rootfs"
  jq "$2" "$B/config.json" >"$d/config.json"
  echo "$d"
}

# Leaks are scoped to what this suite made (its work dir holds the root and the bundles).
no_leaks() {
  local ids
  ids=$(ss list -q 2>/dev/null)
  [ -z "$ids" ] || { echo "$ids" | xargs -r -n1 "$SANDSHIM_BIN" --root "$ROOT" delete --force >/dev/null 2>&1; fail "containers left: $ids"; return 1; }
  local leaks=("$CHECK_LEAKS" --match "$WORK" --root "$ROOT")
  "${leaks[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${leaks[@]}" | tr '\n' ' ')"
}
AFTER_CHECK_HOOK=no_leaks

check_version() {
  local v
  v=$("$SANDSHIM_BIN" --version)
  assert_eq 3 "$(echo "$v" | wc -l)" "version lines" || return
  assert_contains "$v" "sandshim version" "version" || return
  assert_contains "$v" "spec: 1.0" "spec line"
}

check_run_in_gvisor() {
  local b out rc=0
  b=$(bundle_with run '.process.args = ["sh","-c","uname -r; dmesg | head -1; exit 3"]')
  out=$(ss run --bundle "$b" "$(uniq_name run)" 2>&1) || rc=$?
  assert_eq 3 "$rc" "exit code" || return
  assert_contains "$out" "4.4.0" "gVisor's kernel version" || return
  assert_contains "$out" "gVisor" "gVisor boot banner in dmesg"
}

check_lifecycle() {
  local id b pid st
  id=$(uniq_name life)
  b=$(bundle_with life '.process.args = ["sleep","1000"]')
  ss create --bundle "$b" --pid-file "$WORK/$id.pid" "$id" || return $(fail "create failed")
  pid=$(cat "$WORK/$id.pid")
  [ -d "/proc/$pid" ] || return $(fail "pid $pid from pid-file not alive")
  st=$(ss state "$id")
  assert_eq created "$(jq -r .status <<<"$st")" "status after create" || return
  assert_eq "$pid" "$(jq -r .pid <<<"$st")" "state pid" || return
  assert_eq gvisor "$(jq -r '.annotations["dev.sandshim.backend"]' <<<"$st")" "backend annotation" || return
  ss start "$id" || return $(fail "start failed")
  assert_eq running "$(ss state "$id" | jq -r .status)" "status after start" || return
  assert_eq "[$pid]" "$(ss ps --format json "$id")" "ps json" || return
  assert_contains "$(ss list --format json)" "\"$id\"" "list json" || return
  ss kill "$id" SIGKILL || return $(fail "kill failed")
  wait_until 10 sh -c "[ \"\$($SANDSHIM_BIN --root $ROOT state $id | jq -r .status)\" = stopped ]" ||
    return $(fail "not stopped after kill")
  assert_eq 0 "$(ss state "$id" | jq -r .pid)" "stopped pid" || return
  ss delete "$id" || return $(fail "delete failed")
  ss state "$id" 2>/dev/null && return $(fail "state after delete succeeded")
  return 0
}

check_hooks_see_the_container() {
  # Each hook appends "<kind> <its stdin state>" to a file. runsc used to run them with its
  # derived id (sshim-...) and the private bundle in the state dir.
  local id b out=$WORK/hooks.out hook=$WORK/hook.sh kind line
  printf '#!/bin/sh\nprintf "%%s %%s\\n" "$1" "$(cat)" >>%s\n' "$out" >"$hook"
  chmod 755 "$hook"
  : >"$out"
  id=$(uniq_name hooks)
  local h="{path: \"$hook\", args: [\"hook\", \"KIND\"]}"
  b=$(bundle_with hooks ".process.args = [\"sleep\",\"1000\"] | .hooks = {
      prestart: [${h/KIND/prestart}], createRuntime: [${h/KIND/createRuntime}],
      poststart: [${h/KIND/poststart}], poststop: [${h/KIND/poststop}]}")
  ss create --bundle "$b" "$id" || return $(fail "create failed: $(tail -c 300 "$LOG")")
  ss start "$id" || { ss delete --force "$id"; return $(fail "start failed"); }
  ss delete --force "$id" || return $(fail "delete failed")
  for kind in prestart createRuntime poststart poststop; do
    line=$(grep "^$kind " "$out" | head -n1)
    [ -n "$line" ] || return $(fail "$kind hook did not run: $(cat "$out")")
    line=${line#"$kind "}
    assert_eq "$id" "$(jq -r .id <<<"$line")" "$kind state id" || return
    assert_eq "$b" "$(jq -r .bundle <<<"$line")" "$kind state bundle" || return
  done
  assert_eq 4 "$(wc -l <"$out")" "hook runs (each once)" || return
  assert_eq stopped "$(grep '^poststop ' "$out" | cut -d' ' -f2- | jq -r .status)" "poststop status"
}

check_exec() {
  local id b out rc=0 epid
  id=$(uniq_name exec)
  b=$(bundle_with exec '.process.args = ["sleep","1000"] | .process.env += ["SECRET_FROM_SPEC=1"]')
  ss run -d --bundle "$b" "$id" || return $(fail "run -d failed")
  out=$(ss exec --env FOO=bar --cwd /tmp --user 1000:1000 "$id" sh -c 'echo $FOO $(pwd) $(id -u):$(id -g) $SECRET_FROM_SPEC; exit 7') || rc=$?
  assert_eq 7 "$rc" "exec exit code" || return
  assert_eq "bar /tmp 1000:1000 1" "$out" "exec env, cwd, user" || return
  # An id-like argument with "detach" in it must survive (this runsc drops such args).
  out=$(ss exec "$id" echo x-detach-y) || return $(fail "exec with detach word failed")
  assert_eq "x-detach-y" "$out" "argument containing detach" || return
  ss exec -d --pid-file "$WORK/e.pid" "$id" sleep 30 || return $(fail "exec -d failed")
  epid=$(cat "$WORK/e.pid")
  [ -d "/proc/$epid" ] || return $(fail "detached exec pid not alive")
  assert_contains "$(ss ps "$id")" "sleep" "ps table shows the exec'd sleep" || return
  printf '{"args":["sh","-c","exit 4"],"cwd":"/","env":["PATH=/bin"],"user":{"uid":0,"gid":0}}' >"$WORK/p.json"
  rc=0; ss exec --process "$WORK/p.json" "$id" || rc=$?
  assert_eq 4 "$rc" "exec --process exit code" || return
  ss delete --force "$id" || return $(fail "delete --force failed")
  kill -9 "$epid" 2>/dev/null; wait "$epid" 2>/dev/null
  return 0
}

check_kill_signals() {
  local id b
  id=$(uniq_name sig)
  b=$(bundle_with sig '.process.args = ["sh","-c","trap \"echo got-usr1 > /tmp/usr1\" USR1; while true; do sleep 0.1; done"]')
  ss run -d --bundle "$b" "$id" || return $(fail "run -d failed")
  sleep 0.5
  ss kill "$id" USR1 || return $(fail "kill USR1 failed")
  wait_until 5 "$SANDSHIM_BIN" --root "$ROOT" exec "$id" test -f /tmp/usr1 || return $(fail "USR1 not delivered")
  ss kill --all "$id" 9 || return $(fail "kill --all 9 failed")
  wait_until 10 sh -c "[ \"\$($SANDSHIM_BIN --root $ROOT state $id | jq -r .status)\" = stopped ]" || return $(fail "not stopped")
  ss kill "$id" TERM 2>"$WORK/err" && return $(fail "kill of a stopped container succeeded")
  assert_contains "$(cat "$WORK/err")" "not running" "kill of stopped container" || return
  ss kill "$id" NOSUCHSIG 2>/dev/null && return $(fail "bad signal accepted")
  ss delete "$id"
}

check_pause_resume() {
  local id b
  id=$(uniq_name pause)
  b=$(bundle_with pause '.process.args = ["sleep","1000"]')
  ss run -d --bundle "$b" "$id" || return $(fail "run -d failed")
  ss pause "$id" || return $(fail "pause failed")
  assert_eq paused "$(ss state "$id" | jq -r .status)" "status after pause" || return
  ss resume "$id" || return $(fail "resume failed")
  assert_eq running "$(ss state "$id" | jq -r .status)" "status after resume" || return
  ss delete --force "$id"
}

check_delete_running_needs_force() {
  local id b
  id=$(uniq_name del)
  b=$(bundle_with del '.process.args = ["sleep","1000"]')
  ss run -d --bundle "$b" "$id" || return $(fail "run -d failed")
  ss delete "$id" 2>"$WORK/err" && return $(fail "delete of running container succeeded")
  assert_contains "$(cat "$WORK/err")" "not stopped" "error text" || return
  ss delete --force "$id" || return $(fail "delete --force failed")
  ss delete "$id" 2>"$WORK/err" && return $(fail "second delete succeeded")
  assert_contains "$(cat "$WORK/err")" "does not exist" "containerd's not-found phrase"
}

# Bad input: one clear line on stderr, an error line in the JSON log, exit non-zero, and
# nothing left behind (the hook checks the state dir and processes).
bad_input() { # WHAT EXPECTED-TEXT ARGS...
  local what=$1 want=$2 rc=0; shift 2
  : >"$LOG"
  ss "$@" 2>"$WORK/err" >/dev/null || rc=$?
  [ "$rc" -ne 0 ] || { fail "$what: exit 0"; return 1; }
  assert_eq 1 "$(wc -l <"$WORK/err")" "$what: stderr lines" || return
  assert_contains "$(cat "$WORK/err")" "$want" "$what: stderr" || return
  assert_eq error "$(tail -n1 "$LOG" | jq -r .level)" "$what: log level" || return
  assert_contains "$(tail -n1 "$LOG" | jq -r .msg)" "$want" "$what: log msg"
}

check_bad_input() {
  local b
  bad_input "bad id" "invalid container id" create --bundle "$B" "../escape" || return
  bad_input "missing bundle" "No such file" create --bundle "$WORK/nope" "$(uniq_name bad)" || return
  mkdir -p "$WORK/broken" && echo '{"ociVersion": ' >"$WORK/broken/config.json"
  bad_input "broken json" "invalid JSON" create --bundle "$WORK/broken" "$(uniq_name bad)" || return
  b=$(bundle_with norootfs '.root.path = "/nonexistent-rootfs"')
  bad_input "missing rootfs" "root.path" create --bundle "$b" "$(uniq_name bad)" || return
  b=$(bundle_with noargs '.process.args = []')
  bad_input "no args" "process.args" run --bundle "$b" "$(uniq_name bad)" || return
  bad_input "unknown container" "does not exist" start "$(uniq_name ghost)" || return
  [ -z "$(ls -A "$ROOT" 2>/dev/null | grep -v '^@runsc$')" ] || fail "state left: $(ls -A "$ROOT")"
}

check_missing_command() {
  local id b
  for cmd in /no/such/command no-such-command; do
    id=$(uniq_name nocmd)
    b=$(bundle_with nocmd '.process.args = ["'"$cmd"'"]')
    # Like runc, the command is looked up at create (in the rootfs), so docker and podman can
    # report 127; runsc alone would only notice at start, with the sandbox already up.
    ss create --bundle "$b" "$id" 2>"$WORK/err" && return $(fail "create of a missing command succeeded")
    grep -q -e 'executable file not found' -e 'no such file or directory' "$WORK/err" ||
      return $(fail "error lacks docker's not-found phrase: $(cat "$WORK/err")")
    ss state "$id" >/dev/null 2>&1 && return $(fail "a record was left")
  done
  return 0
}

check_network_modes() {
  local out b ns=sandshim-it-$$
  # A new, empty network namespace: loopback only.
  b=$(bundle_with netnone '.process.args = ["sh","-c","ip -o link | cut -d: -f2"]')
  out=$(ss run --bundle "$b" "$(uniq_name net)") || return $(fail "run (new netns) failed")
  assert_eq "lo" "$(echo $out)" "interfaces in a new netns" || return
  # A network namespace path (what docker and CNI give): its interfaces are the container's.
  ip netns add "$ns" || return $(fail "ip netns add")
  ip link add "sshim$$a" type veth peer name sshimtest0 netns "$ns" &&
    ip -n "$ns" addr add 10.231.0.2/24 dev sshimtest0 && ip -n "$ns" link set sshimtest0 up &&
    ip -n "$ns" link set lo up || { ip netns del "$ns"; return $(fail "veth setup"); }
  b=$(bundle_with netpath '.process.args = ["sh","-c","ip -o addr"] | (.linux.namespaces[] | select(.type=="network")) += {"path":"/var/run/netns/'"$ns"'"}')
  out=$(ss run --bundle "$b" "$(uniq_name net)" 2>&1); local rc=$?
  ip netns del "$ns"
  assert_eq 0 "$rc" "run in a netns path: $out" || return
  assert_contains "$out" "10.231.0.2" "the netns's address inside the container"
}

check_console_socket() {
  local id b sock=$WORK/console.sock out
  id=$(uniq_name tty)
  b=$(bundle_with tty '.process.terminal = true | .process.args = ["sh","-c","test -t 0 && test -t 1 && echo IS-A-TTY; echo TTY-OK"]')
  python3 "$REPO_ROOT/tests/helpers/recvtty.py" "$sock" >"$WORK/tty.out" &
  local recv=$!
  wait_until 5 test -S "$sock" || return $(fail "recvtty did not listen")
  ss create --bundle "$b" --console-socket "$sock" "$id" || { kill $recv; return $(fail "create with console socket failed"); }
  ss start "$id" || return $(fail "start failed")
  wait_until 10 grep -q TTY-OK "$WORK/tty.out"; kill $recv 2>/dev/null; wait $recv 2>/dev/null
  out=$(cat "$WORK/tty.out")
  ss delete --force "$id"
  assert_contains "$out" "IS-A-TTY" "stdin and stdout are a terminal inside" || return
  assert_contains "$out" "TTY-OK" "output over the pty"
}

check_stdout_file_not_truncated() {
  local b
  b=$(bundle_with trunc '.process.args = ["echo","from-container"]')
  echo "before" >"$WORK/out.txt"
  ss run --bundle "$b" "$(uniq_name trunc)" 1>>"$WORK/out.txt" || return $(fail "run failed")
  # With a plain > redirection (not append) runsc would truncate; we open in append mode.
  exec 3>"$WORK/out2.txt"; echo "before" >&3
  ss run --bundle "$b" "$(uniq_name trunc)" 1>&3 || return $(fail "run failed")
  exec 3>&-
  assert_eq "before from-container" "$(echo $(cat "$WORK/out.txt"))" "appended output" || return
  assert_eq "before from-container" "$(echo $(cat "$WORK/out2.txt"))" "output file kept what was there" || return
  # exec (the sandbox's control server): the Sentry wrote a handed host file from offset 0,
  # over what the caller's shell had written before (as runc does: after it).
  local id=$(uniq_name trunc)
  b=$(bundle_with trunc-exec '.process.args = ["sleep","30"]')
  ss run -d --bundle "$b" "$id" </dev/null >/dev/null 2>&1 || return $(fail "run -d failed")
  { echo before; ss exec "$id" echo from-exec; echo after; } >"$WORK/out3.txt"
  ss delete --force "$id" >/dev/null 2>&1
  assert_eq "before from-exec after" "$(echo $(cat "$WORK/out3.txt"))" "exec's output after what the shell wrote"
}

check_dev_null_owner() {
  local b before after
  b=$(bundle_with devnull '.process.args = ["true"]')
  before=$(stat -c %u:%g /dev/null)
  ss run --bundle "$b" "$(uniq_name devnull)" </dev/null >/dev/null 2>/dev/null || return $(fail "run failed")
  after=$(stat -c %u:%g /dev/null)
  [ "$after" = "$before" ] || { chown "$before" /dev/null; fail "/dev/null owner changed: $before -> $after"; return 1; }
}

check_gc_after_killed_run() {
  local id b pid
  id=$(uniq_name gc)
  b=$(bundle_with gc '.process.args = ["sleep","1000"]')
  "$SANDSHIM_BIN" --root "$ROOT" run --bundle "$b" "$id" &
  pid=$!
  wait_until 10 sh -c "pgrep -f '[r]unsc-sandbox.*$ROOT' >/dev/null" || return $(fail "sandbox never started")
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  local report
  report=$(ss gc --json) || return $(fail "gc failed: $report")
  assert_contains "$report" "container $id" "gc report" || return
  assert_eq '{"removed":[],"errors":[]}' "$(ss gc --json)" "second gc removes nothing"
}

check_features_and_spec() {
  ss features | jq -e '.linux.namespaces | index("network")' >/dev/null || return $(fail "features JSON")
  mkdir -p "$WORK/spec" && ss spec --bundle "$WORK/spec" || return $(fail "spec failed")
  assert_eq "rootfs" "$(jq -r .root.path "$WORK/spec/config.json")" "spec root" || return
  ss spec --bundle "$WORK/spec" 2>/dev/null && return $(fail "spec overwrote config.json")
  return 0
}

# glibc (2.34+) starts processes with clone3 and falls back to clone on ENOSYS, which docker's
# profile (and ours) answers; runsc answers every errno rule with EPERM, on which glibc gives
# up: posix_spawn and system() failed in every container. Control: raw runsc, same bundle.
# The control server of a sandbox (docs/RUNSC.md): an exec goes through it on every runsc that
# has one the probe can speak (no runsc process: `runsc exec` would show in the process list),
# and no other local user can reach it. 2024's runsc listens on a path socket in the runsc
# root, sandshim's root:root 0700 @runsc; 2022's on an abstract name in a root-only netns.
check_control_socket() {
  local id b sock out rc=0 probe
  id=$(uniq_name ctl)
  b=$(bundle_with ctl '.process.args = ["sleep","1000"]')
  ss run -d --bundle "$b" "$id" || return $(fail "run -d failed")
  probe=$(ls -t "${SANDSHIM_CACHE:-/run/sandshim/cache}"/runsc-probe-*.json 2>/dev/null | xargs -r grep -l "\"$(readlink -f "$TEST_RUNSC")\"" | head -1)
  [ -n "$probe" ] || return $(fail "no probe verdict for $TEST_RUNSC")
  local control; control=$(jq -r .control "$probe")
  assert_ne "" "$control" "the probe found a control server ($(jq -r '.notes|join("; ")' "$probe"))" || return
  # Direct exec: 127 for a missing command (runsc exec says 128), and no runsc exec process.
  ss exec "$id" /no/such/command 2>/dev/null || rc=$?
  assert_eq 127 "$rc" "missing command through the control server" || return
  out=$(ss exec "$id" sh -c 'sleep 0.3; echo direct' & sleep 0.15; pgrep -f "runsc.* exec .*$WORK" || true; wait)
  assert_eq direct "$out" "exec with no runsc exec process" || return
  if [ "$control" = urpc-path ]; then
    assert_eq "0:0 700" "$(stat -c '%u:%g %a' "$ROOT/@runsc")" "runsc root owner and mode" || return
    sock=$(ls "$ROOT"/@runsc/runsc-*.sock 2>/dev/null | head -1)
    [ -S "$sock" ] || return $(fail "no path socket in $ROOT/@runsc")
    local dial='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("connected")'
    # Positive control: root reaches it (so the refusal below is the directory's doing).
    assert_eq connected "$(python3 -c "$dial" "$sock" 2>&1)" "root connects" || return
    out=$(setpriv --reuid 65534 --regid 65534 --clear-groups python3 -c "$dial" "$sock" 2>&1) &&
      return $(fail "nobody connected to the control socket")
    assert_contains "$out" "Permission denied" "nobody is refused" || return
    # A runsc root others may enter is refused before any connect (control.cc CheckControlDir).
    chmod 711 "$ROOT/@runsc"
    : >"$LOG"
    ss --debug exec "$id" true; rc=$?
    chmod 700 "$ROOT/@runsc"
    out=$(cat "$LOG")
    assert_eq 0 "$rc" "exec still works (through runsc exec)" || return
    assert_contains "$out" "mode 0711" "the open runsc root is not dialled" || return
  fi
  ss delete --force "$id" || return $(fail "delete --force failed")
}

# A runc-verb container's writes land in its bundle's rootfs on every runsc (2024's default
# --overlay2=root:self would keep them inside the sandbox; sandshim passes --overlay2=none).
check_rootfs_writes_reach_the_bundle() {
  local id b
  id=$(uniq_name wr)
  b=$(bundle_with wr '.process.args = ["sh","-c","echo data > /written-'"$id"'"]')
  ss run --bundle "$b" "$id" || return $(fail "run failed")
  assert_eq data "$(cat "$B/rootfs/written-$id" 2>&1)" "write visible in the bundle's rootfs" || return
  rm -f "$B/rootfs/written-$id"
  [ -z "$(ls -a "$B/rootfs" | grep '^\.gvisor\.filestore')" ] || return $(fail "a gVisor filestore in the rootfs")
}

check_glibc_spawn_under_seccomp() {
  gcc -O2 -static -o "$B/rootfs/spawn_probe" "$(dirname "$0")/lib/spawn_probe.c" || return $(fail "gcc -static: spawn_probe")
  local b out
  b=$(bundle_with spawn '.process.args = ["/spawn_probe"] | .linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
      "syscalls": [{"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}')
  # (stdin from a pipe: raw runsc hands a host /dev/null to the sandbox's user, chowning it.)
  out=$(: | "$TEST_RUNSC" --root "$WORK/raw" --network=none --oci-seccomp run --bundle "$b" "$(uniq_name rawspawn)" 2>&1)
  "$TEST_RUNSC" --root "$WORK/raw" list -q 2>/dev/null </dev/zero | xargs -r -n1 "$TEST_RUNSC" --root "$WORK/raw" delete -force >/dev/null 2>&1 </dev/zero
  assert_contains "$out" "posix_spawn: Operation not permitted" "control: raw runsc's EPERM for clone3" || return
  out=$(: | ss run --bundle "$b" "$(uniq_name spawn)" 2>&1)
  assert_eq spawn-ok "$out" "posix_spawn and system() in a container under the profile"
}

run_check "version has three lines" check_version
run_check "run prints gVisor's kernel and keeps the exit code" check_run_in_gvisor
run_check "create/start/state/ps/kill/delete" check_lifecycle
run_check "hooks get the container's id and bundle" check_hooks_see_the_container
run_check "exec: args, env/cwd/user, detach, --process" check_exec
run_check "kill: names, numbers, --all, stopped" check_kill_signals
run_check "pause and resume" check_pause_resume
run_check "delete of a running container needs --force" check_delete_running_needs_force
run_check "bad input: one line, JSON log, nothing left" check_bad_input
run_check "missing command: docker's 127 phrase, no leak" check_missing_command
run_check "network: new netns is loopback only, netns path joined" check_network_modes
run_check "console socket gives a pty" check_console_socket
run_check "stdout files are not truncated" check_stdout_file_not_truncated
run_check "host /dev/null keeps its owner" check_dev_null_owner
run_check "gc cleans a killed foreground run; twice is a no-op" check_gc_after_killed_run
run_check "features and spec" check_features_and_spec
run_check "glibc's posix_spawn and system() under a clone3-ENOSYS seccomp profile" check_glibc_spawn_under_seccomp
run_check "control server: direct exec, 127, unreachable for other users" check_control_socket
run_check "rootfs writes reach the bundle (no runsc overlay)" check_rootfs_writes_reach_the_bundle
finish_checks
