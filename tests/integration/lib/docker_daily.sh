# shellcheck shell=bash
# The docker verbs and flags users reach for every day (issue #15), one check each, for
# docker_test.sh and podman_test.sh (each defines dk, drun, dstart, dcreate, drm, inspect,
# wait_log, gvisor_runtime, dstart_control (a detached container on runc, the control),
# DOCKER_CMD, IMG, WORK: podman's are thin wrappers of pm/prun/pstart). runc runs the same
# checks as the positive control, beside sandshim in the same run (vs_runc.sh).
# What gVisor cannot do is asserted as what it does instead, and written up in docs/DOCKER.md.

check_attach() {
  # attach sees what the container writes after it attached, and returns its exit code.
  dstart "$IMG" sh -c 'sleep 2; echo attached-out; exit 4' || return 1
  T=30 capture dk attach --no-stdin "$CN"
  local a_rc=$RC a_out=$OUT a_err=$ERR code
  code=$(T=20 dk wait "$CN")
  drm "$CN"
  assert_contains "$a_out" attached-out "output after attaching ($a_err)" || return 1
  assert_eq 4 "$code" "wait: the exit code" || return 1
  # podman 4.3's attach exits 0 whatever the container's code (with runc too).
  [ "${CLIENT:-docker}" = podman ] || assert_eq 4 "$a_rc" "docker attach returns the exit code"
}

check_restart_on_failure() {
  # on-failure:2 restarts a failing container twice, then leaves it exited with its code.
  local h=$WORK/restart-$RANDOM
  mkdir -p "$h"
  dstart --restart on-failure:2 -v "$h:/r" "$IMG" sh -c 'echo run >>/r/runs; exit 3' || return 1
  wait_until 40 sh -c '[ "$(wc -l <"$0/runs" 2>/dev/null)" -ge 3 ]' "$h"
  wait_until 20 sh -c '[ "$("$@")" = false ]' timeout 10 "${DOCKER_CMD[@]}" inspect -f '{{.State.Running}}' "$CN"
  sleep 1
  local count code runs
  count=$(inspect "$CN" '{{.RestartCount}}')
  code=$(inspect "$CN" '{{.State.ExitCode}}')
  runs=$(wc -l <"$h/runs" 2>/dev/null)
  drm "$CN"
  assert_eq 2 "$count" "RestartCount" && assert_eq 3 "$runs" "runs of the command" &&
    assert_eq 3 "$code" "exit code after the last restart"
}

check_stats_no_stream() {
  dstart "$IMG" sh -c 'dd if=/dev/zero of=/dev/null bs=1M count=1 2>/dev/null; sleep 300' || return 1
  sleep 1
  T=60 capture dk stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.PIDs}}' "$CN"
  drm "$CN"
  log "stats: $OUT"
  assert_eq 0 "$RC" "docker stats --no-stream ($ERR)" && assert_contains "$OUT" "$CN " "its line" &&
    assert_contains "$OUT" " / " "memory usage / limit" && assert_not_contains "$OUT" "0B / 0B" "a real memory figure"
}

check_logs_follow() {
  # logs -f prints what comes later and ends when the container does.
  dstart "$IMG" sh -c 'echo first; sleep 2; echo second' || return 1
  T=30 capture dk logs -f "$CN"
  drm "$CN"
  assert_eq 0 "$RC" "docker logs -f ends with the container ($ERR)" &&
    assert_eq "first
second" "$OUT" "both lines, in order"
}

check_ulimit_nofile() {
  # ULIMIT_EXTRA: podman drops containers.conf's pinned default_ulimits once --ulimit is given
  # and asks for an NPROC this host's root may not set (lib/podman.sh), so podman pins it again.
  drun ${ULIMIT_EXTRA[@]+"${ULIMIT_EXTRA[@]}"} --ulimit nofile=1024:2048 "$IMG" sh -c 'echo $(ulimit -Sn):$(ulimit -Hn)'
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq 1024:2048 "$OUT" "soft:hard RLIMIT_NOFILE"
}

check_cap_drop_add() {
  # CAP_CHOWN: root may chown by default (positive control), not after --cap-drop CHOWN.
  drun "$IMG" sh -c 'touch /f && chown 1000 /f && echo chowned'
  assert_eq chowned "$OUT" "chown as root by default ($ERR)" || return 1
  drun --cap-drop CHOWN "$IMG" sh -c 'touch /f && chown 1000 /f && echo chowned'
  assert_ne 0 "$RC" "chown without CAP_CHOWN succeeded" || return 1
  # CAP_NET_ADMIN (bit 12) is outside docker's default set; --cap-add puts it in CapEff.
  local eff='printf "%d\n" $(( (0x$(sed -n "s/^CapEff:\t//p" /proc/self/status) >> 12) & 1 ))'
  drun "$IMG" sh -c "$eff"
  assert_eq 0 "$OUT" "NET_ADMIN by default ($ERR)" || return 1
  drun --cap-add NET_ADMIN "$IMG" sh -c "$eff"
  assert_eq 1 "$OUT" "NET_ADMIN after --cap-add ($ERR)"
}

check_ipc_modes() {
  # private: a fresh IPC namespace (a host shm segment is not there); host: the host's, where
  # runc shows it. gVisor keeps IPC in the Sentry: --ipc host runs but sees its own.
  local key=$((0x5ad5))
  python3 - "$key" <<'EOF' &
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
shmid = libc.shmget(int(sys.argv[1]), 4096, 0o1600)
time.sleep(20)
libc.shmctl(shmid, 0, None)  # IPC_RMID
EOF
  local py=$!
  sleep 1
  local seg='cat /proc/sysvipc/shm 2>/dev/null | awk "NR>1 {print \$1}" | grep -c "^'"$key"'$"'
  drun --ipc private "$IMG" sh -c "$seg"
  local private=$OUT private_rc=$RC
  drun --ipc host "$IMG" sh -c "$seg"
  local host=$OUT host_rc=$RC host_err=$ERR
  kill "$py" 2>/dev/null; wait "$py" 2>/dev/null
  assert_eq 0 "$private" "host segment seen with --ipc private (rc $private_rc)" || return 1
  [ "$host_rc" -eq 0 ] || [ "$host_rc" -eq 1 ] || { fail "--ipc host failed ($host_rc): $host_err"; return 1; }
  if gvisor_runtime; then assert_eq 0 "$host" "gVisor: --ipc host is the sandbox's own"; else
    assert_eq 1 "$host" "--ipc host sees the host segment"; fi
}

check_ipc_container() {
  # --ipc container:NAME (NAME --ipc shareable) shares NAME's /dev/shm: a file NAME put there
  # is the joiner's, and what the joiner writes NAME sees.
  dstart --ipc shareable "$IMG" sh -c 'echo from-owner >/dev/shm/owned; echo ready; sleep 300' || return 1
  wait_log "$CN" ready || { drm "$CN"; fail "container never printed ready"; return 1; }
  drun --ipc "container:$CN" "$IMG" sh -c 'cat /dev/shm/owned; echo from-joiner >/dev/shm/joined'
  local j_out=$OUT j_rc=$RC j_err=$ERR
  capture dk exec "$CN" cat /dev/shm/joined
  local back=$OUT
  drm "$CN"
  assert_eq 0 "$j_rc" "exit status of the joiner ($j_err)" || return 1
  assert_eq from-owner "$j_out" "NAME's /dev/shm file seen by the joiner" &&
    assert_eq from-joiner "$back" "the joiner's file seen by NAME"
}

check_pid_host() {
  # runc: the host's pid namespace (pid 1 is the host's init). gVisor: the Sentry's own pid
  # namespace whatever is asked, so the container's shell is pid 1 and no host process shows.
  drun --pid host "$IMG" sh -c 'echo $$; cat /proc/1/comm; exit 0'
  assert_eq 0 "$RC" "exit status ($ERR)" || return 1
  if gvisor_runtime; then
    assert_eq "1
sh" "$OUT" "gVisor: pid namespace of the sandbox's own"
  else
    assert_ne 1 "$(head -n1 <<<"$OUT")" "the shell is not pid 1 in the host's namespace"
  fi
}

check_publish_port() {
  # -p 127.0.0.1::8080: a user connects to the published host port. The private dockerd runs
  # --iptables=false (it must not touch the host's firewall; lib/daemons.sh) with the
  # userland proxy on, so docker-proxy listens on that host port and forwards to the
  # container's bridge address, where the runtime's network stack (netstack on gVisor) answers.
  dstart -p 127.0.0.1::8080 "$IMG" sh -c 'mkdir /w && echo published >/w/i.html && exec httpd -f -p 8080 -h /w' || return 1
  local mapping url
  mapping=$(dk port "$CN" 8080 | head -n1)
  url="http://$mapping/i.html"
  wait_until 10 timeout 2 "$BUSYBOX" wget -q -O /dev/null "$url"
  capture timeout 10 "$BUSYBOX" wget -q -O - "$url"
  drm "$CN"
  # the proxy ends with the container: nothing listens on the port any more.
  local after
  after=$(timeout 5 "$BUSYBOX" wget -q -O - "$url" 2>/dev/null)
  case $mapping in 127.0.0.1:[0-9]*) ;; *) fail "docker port: '$mapping', not 127.0.0.1:PORT"; return 1 ;; esac
  assert_contains "$OUT" published "HTTP to the published host port $mapping ($ERR)" &&
    assert_eq "" "$after" "an answer on $mapping after rm -f"
}

check_env_file_hostname() {
  printf 'A=one\n# comment\nB=two words\n' >"$WORK/env-file"
  drun --env-file "$WORK/env-file" --hostname box-$$ "$IMG" sh -c 'echo "$A|$B|$(hostname)"'
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq "one|two words|box-$$" "$OUT" "env file values and hostname"
}

check_export_commit() {
  dstart "$IMG" sh -c 'echo made-inside >/made; sleep 300' || return 1
  wait_until 10 sh -c '"$@" >/dev/null 2>&1' timeout 10 "${DOCKER_CMD[@]}" exec "$CN" test -e /made
  T=60 capture dk export "$CN" -o "$WORK/export.tar"
  local exp_rc=$RC exp_err=$ERR
  local img
  img=$(uniq_name committed)
  T=60 capture dk commit "$CN" "$img:1"
  local c_rc=$RC c_err=$ERR
  drm "$CN"
  assert_eq 0 "$exp_rc" "docker export ($exp_err)" || return 1
  assert_eq made-inside "$(tar -xOf "$WORK/export.tar" made 2>/dev/null)" "the file in the export" || return 1
  assert_eq 0 "$c_rc" "docker commit ($c_err)" || return 1
  drun "$img:1" cat /made
  dk rmi -f "$img:1" >/dev/null 2>&1
  assert_eq made-inside "$OUT" "the file in the committed image ($ERR)"
}

check_wait_rename() {
  dstart "$IMG" sh -c 'sleep 2; exit 6' || return 1
  local new
  new=$(uniq_name renamed)
  capture dk rename "$CN" "$new"
  local ren_rc=$RC ren_err=$ERR
  local code
  code=$(T=30 dk wait "$new")
  drm "$new"
  drm "$CN" # podman rm stops at the first name it does not know: one at a time
  assert_eq 0 "$ren_rc" "docker rename ($ren_err)" && assert_eq 6 "$code" "docker wait on the new name"
}

check_device_fuse() {
  # --device passes a host device node; gVisor implements /dev/fuse itself.
  [ -c /dev/fuse ] || { echo "no /dev/fuse here: nothing to check"; return 0; }
  drun --device /dev/fuse "$IMG" sh -c 'test -c /dev/fuse && echo char-device'
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq char-device "$OUT" "/dev/fuse inside"
}

# --- verbs both clients share (run_client_parity_checks: docker_test.sh and podman_test.sh)

check_stop_untrapped_init() {
  # pid 1 with no SIGTERM handler (sleep). Linux never delivers a default-action signal to a
  # pid namespace's init from outside: stop waits out -t 2 and SIGKILLs it (137). gVisor's
  # Sentry delivers it: 143 at once (docs/DOCKER.md says why sandshim cannot emulate Linux).
  dstart "$IMG" sleep 300 || return 1
  local t0 t1 code
  t0=$(now_ms)
  T=30 dk stop -t 2 "$CN" >/dev/null 2>&1
  t1=$(now_ms)
  code=$(inspect "$CN" '{{.State.ExitCode}}')
  drm "$CN"
  log "stop -t 2 of an untrapped init: exit $code after $((t1 - t0)) ms"
  if gvisor_runtime; then
    assert_eq 143 "$code" "gVisor: SIGTERM reaches the init (documented)"
    return
  fi
  assert_eq 137 "$code" "exit code (SIGKILL after the timeout)" || return 1
  [ $((t1 - t0)) -ge 1800 ] || fail "stop returned after $((t1 - t0)) ms, before its 2 s timeout"
}

check_kill_term_untrapped_init() {
  # kill -s TERM of that init: dropped by Linux (still running); gVisor delivers it (143).
  dstart "$IMG" sleep 300 || return 1
  capture dk kill -s TERM "$CN"
  local k_rc=$RC k_err=$ERR running code
  sleep 2
  running=$(inspect "$CN" '{{.State.Running}}')
  code=$(inspect "$CN" '{{.State.ExitCode}}')
  drm "$CN"
  assert_eq 0 "$k_rc" "kill -s TERM status ($k_err)" || return 1
  if gvisor_runtime; then
    assert_eq false "$running" "gVisor: the init dies of SIGTERM (documented)" &&
      assert_eq 143 "$code" "gVisor: exit code"
    return
  fi
  assert_eq true "$running" "the init survives SIGTERM it does not handle"
}

check_kill_signals() {
  # Several signals to an init that traps them: each runs its handler, INT ends it with 9.
  dstart "$IMG" sh -c 'trap "echo got-hup" HUP; trap "echo got-usr2" USR2; trap "exit 9" INT; echo ready; while :; do sleep 1; done' || return 1
  wait_log "$CN" ready || { drm "$CN"; fail "container never printed ready"; return 1; }
  dk kill -s HUP "$CN" >/dev/null 2>&1
  wait_log "$CN" got-hup 10
  dk kill -s USR2 "$CN" >/dev/null 2>&1
  wait_log "$CN" got-usr2 10
  dk kill -s INT "$CN" >/dev/null 2>&1
  local code logs
  code=$(T=20 dk wait "$CN")
  logs=$(dk logs "$CN" 2>&1)
  drm "$CN"
  assert_contains "$logs" got-hup "HUP handler" && assert_contains "$logs" got-usr2 "USR2 handler" &&
    assert_eq 9 "$code" "exit code from the INT handler"
}

check_exec_flags() {
  # exec -u/-w/-e, -i (stdin reaches the process), -d (runs on after exec returns).
  dstart "$IMG" sleep 300 || return 1
  capture dk exec -u 1000 -w /tmp -e X=from-exec "$CN" sh -c 'echo "$X:$(pwd):$(id -u)"'
  local f_out=$OUT f_rc=$RC f_err=$ERR
  capture sh -c 'printf "via-exec-stdin\n" | "$@"' sh timeout 60 "${DOCKER_CMD[@]}" exec -i "$CN" cat
  local i_out=$OUT i_err=$ERR
  capture dk exec -d "$CN" sh -c 'sleep 1; echo detached >/exec-d'
  local d_rc=$RC d_err=$ERR
  wait_until 15 sh -c '"$@" >/dev/null 2>&1' sh timeout 10 "${DOCKER_CMD[@]}" exec "$CN" test -s /exec-d
  capture dk exec "$CN" cat /exec-d
  local d_out=$OUT
  drm "$CN"
  assert_eq 0 "$f_rc" "exec -u -w -e status ($f_err)" &&
    assert_eq from-exec:/tmp:1000 "$f_out" "env:cwd:uid of the exec" || return 1
  assert_eq via-exec-stdin "$i_out" "exec -i stdin ($i_err)" || return 1
  assert_eq 0 "$d_rc" "exec -d status ($d_err)" && assert_eq detached "$d_out" "what exec -d wrote"
}

check_create_start_cp() {
  # create, cp into the created container, start -a, cp out of the stopped one.
  echo copied-in >"$WORK/cs-in"
  dcreate "$IMG" sh -c 'cat /cs-in; echo made-inside >/cs-out' || return 1
  capture dk cp "$WORK/cs-in" "$CN:/cs-in"
  local in_rc=$RC in_err=$ERR
  T=30 capture dk start -a "$CN"
  local s_out=$OUT s_rc=$RC s_err=$ERR
  rm -f "$WORK/cs-out"
  capture dk cp "$CN:/cs-out" "$WORK/cs-out"
  local out_rc=$RC out_err=$ERR
  drm "$CN"
  assert_eq 0 "$in_rc" "cp into the created container ($in_err)" || return 1
  assert_eq 0 "$s_rc" "start -a status ($s_err)" && assert_eq copied-in "$s_out" "the copied file, seen inside" || return 1
  assert_eq 0 "$out_rc" "cp out of the stopped container ($out_err)" &&
    assert_eq made-inside "$(cat "$WORK/cs-out" 2>/dev/null)" "the file copied out"
}

check_rm_force_running() {
  dstart "$IMG" sleep 300 || return 1
  local t0=()
  [ "${CLIENT:-docker}" != podman ] || t0=(-t 0) # podman's rm -f waits out a 10 s stop first
  T=30 capture dk rm -f "${t0[@]}" "$CN"
  local rc=$RC err=$ERR
  dk inspect "$CN" >/dev/null 2>&1 && { drm "$CN"; fail "the container is still there after rm -f"; return 1; }
  assert_eq 0 "$rc" "rm -f of a running container ($err)"
}

check_memory_inside() {
  # a 128 MB buffer dies under --memory 64m (no swap); the control run keeps it.
  local hog='dd if=/dev/zero of=/dev/null bs=128M count=2 2>/dev/null && echo survived'
  drun "$IMG" sh -c "$hog"
  assert_contains "$OUT" survived "control run without limit ($RC, $ERR)" || return 1
  drun --memory 64m --memory-swap 64m "$IMG" sh -c "$hog"
  assert_not_contains "$OUT" survived "hog survived --memory 64m (exit $RC)" && assert_ne 0 "$RC" "exit status of the hog"
}

check_stop_timeout_handler() {
  # stop -t 3 of an init whose TERM handler does not exit: the handler runs, stop waits out
  # the timeout, then SIGKILL (137). Same on gVisor: the init traps TERM, so it is not killed.
  dstart "$IMG" sh -c 'trap "echo got-term" TERM; echo ready; while :; do sleep 1; done' || return 1
  wait_log "$CN" ready || { drm "$CN"; fail "container never printed ready"; return 1; }
  local t0 t1 code logs
  t0=$(now_ms)
  T=30 dk stop -t 3 "$CN" >/dev/null 2>&1
  t1=$(now_ms)
  code=$(inspect "$CN" '{{.State.ExitCode}}')
  logs=$(dk logs "$CN" 2>&1)
  drm "$CN"
  log "stop -t 3 of a TERM-ignoring handler: exit $code after $((t1 - t0)) ms"
  assert_contains "$logs" got-term "the TERM handler ran" && assert_eq 137 "$code" "exit code (SIGKILL after -t 3)" || return 1
  [ $((t1 - t0)) -ge 2800 ] || fail "stop returned after $((t1 - t0)) ms, before its 3 s timeout"
}

check_restart_always() {
  # --restart always restarts a container that exits 0, until stop; stop leaves it stopped.
  local h=$WORK/always-$RANDOM
  mkdir -p "$h"
  dstart --restart always -v "$h:/r" "$IMG" sh -c 'echo run >>/r/runs; sleep 1; exit 0' || return 1
  wait_until 40 sh -c '[ "$(wc -l <"$0/runs" 2>/dev/null)" -ge 3 ]' "$h"
  local runs count
  runs=$(wc -l <"$h/runs" 2>/dev/null)
  T=30 dk stop -t 2 "$CN" >/dev/null 2>&1
  sleep 3
  local after running
  after=$(wc -l <"$h/runs" 2>/dev/null)
  running=$(inspect "$CN" '{{.State.Running}}')
  count=$(inspect "$CN" '{{.RestartCount}}')
  drm "$CN"
  log "restart always: $runs runs, RestartCount $count"
  [ "${runs:-0}" -ge 3 ] || { fail "ran $runs times, not restarted after exit 0"; return 1; }
  assert_eq false "$running" "running after stop" && assert_eq "$after" "$(wc -l <"$h/runs")" "no run after stop"
}

check_network_container() {
  # --network container:NAME joins NAME's network namespace: NAME's server on 127.0.0.1 is the
  # joiner's localhost. NAME on gVisor: its network is its sandbox's netstack, which another
  # sandbox cannot enter (docs/DOCKER.md); joining a runc container's namespace works everywhere.
  local serve='mkdir /w && echo shared-netns >/w/i.html && exec httpd -f -p 127.0.0.1:8080 -h /w'
  local get="for i in 1 2 3 4 5 6 7 8; do printf 'GET /i.html HTTP/1.0\r\n\r\n' | timeout 5 nc 127.0.0.1 8080 && exit 0; sleep 0.5; done; exit 1"
  dstart "$IMG" sh -c "$serve" || return 1
  local server=$CN
  drun --network "container:$server" "$IMG" sh -c "$get"
  local own_out=$OUT own_rc=$RC own_err=$ERR
  drm "$server"
  dstart_control "$IMG" sh -c "$serve" || return 1
  server=$CN
  drun --network "container:$server" "$IMG" sh -c "$get"
  local ctl_out=$OUT ctl_err=$ERR
  drm "$server"
  assert_contains "$ctl_out" shared-netns "joining a runc container: its localhost server ($ctl_err)" || return 1
  if gvisor_runtime; then
    assert_not_contains "$own_out" shared-netns "gVisor: NAME's network is its sandbox's own (documented)"
    return
  fi
  assert_eq 0 "$own_rc" "exit status ($own_err)" && assert_contains "$own_out" shared-netns "NAME's localhost server"
}

run_client_parity_checks() {
  run_check "stop -t 2 of an init without a TERM handler" check_stop_untrapped_init
  run_check "kill -s TERM of an init without a TERM handler" check_kill_term_untrapped_init
  run_check "kill -s HUP, USR2, INT reach their traps" check_kill_signals
  run_check "exec -u -w -e, exec -i, exec -d" check_exec_flags
  run_check "create, cp in, start -a, cp out" check_create_start_cp
  run_check "rm -f of a running container" check_rm_force_running
  run_check "stop -t 3 of an init whose TERM handler runs on" check_stop_timeout_handler
  run_check "--restart always, until stop" check_restart_always
  run_check "--network container:NAME shares localhost" check_network_container
}

run_docker_daily_checks() {
  run_check "attach: output after attaching, exit code" check_attach
  run_check "--restart on-failure:2 restarts twice" check_restart_on_failure
  run_check "stats --no-stream" check_stats_no_stream
  run_check "logs -f follows to the end" check_logs_follow
  run_check "--ulimit nofile=1024:2048" check_ulimit_nofile
  run_check "--cap-drop CHOWN / --cap-add NET_ADMIN take effect" check_cap_drop_add
  run_check "--ipc private / host" check_ipc_modes
  run_check "--ipc shareable / container:NAME" check_ipc_container
  run_check "--pid host" check_pid_host
  run_check "-p 127.0.0.1::8080: the published host port answers" check_publish_port
  run_check "--env-file, --hostname" check_env_file_hostname
  run_check "export and commit" check_export_commit
  run_check "wait and rename" check_wait_rename
  run_check "--device /dev/fuse" check_device_fuse
}
