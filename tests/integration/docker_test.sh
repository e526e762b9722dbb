#!/usr/bin/env bash
# Real-client checks: a private dockerd (on a private containerd) runs containers with
# `--runtime=RUNTIME_NAME`, and every check asserts on what the docker CLI reports.
#
#   tests/integration/docker_test.sh RUNTIME_NAME
#
# Runtimes registered in the private daemon.json (pick one as RUNTIME_NAME):
#   sandshim    $SANDSHIM_BIN (default <repo>/build/sandshim) + $SANDSHIM_ARGS
#   runc        /usr/sbin/runc  (registered as "runc-bin": dockerd reserves "runc")
#   crun        /usr/bin/crun
#   runsc       $TEST_RUNSC (lib/common.sh: SANDSHIM_TEST_RUNSC, default /usr/bin/runsc)
#   runsc-host  the same with --network=host
#   any NAME    with RUNTIME_PATH=/abs/binary [RUNTIME_ARGS="--flag ..."]
#   sandshim-gvisor  $SANDSHIM_BIN --backend gvisor (used by the fallback checks)
# SANDSHIM_BROKEN_RUNSC=missing|failing: sandshim's config names a runsc that is missing
#   or cannot boot (lib/broken_runsc.sh), so `auto` must fall back to native; adds checks
#   that it did and said so, and that --backend gvisor refuses and leaves nothing.
# Env: CHECK_FILTER=ERE runs only matching checks; KEEP_WORK=1 keeps the work dir.
# Exit: 0 all passed, 1 something failed, 77 skipped (not root / dockerd cannot start).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/daemons.sh
. "$HERE/lib/daemons.sh"
# shellcheck source=lib/image.sh
. "$HERE/lib/image.sh"
# shellcheck source=lib/broken_runsc.sh
. "$HERE/lib/broken_runsc.sh"
# shellcheck source=lib/clients.sh
. "$HERE/lib/clients.sh"
# shellcheck source=lib/docker_daily.sh
. "$HERE/lib/docker_daily.sh"

[ $# -eq 1 ] || { echo "usage: $0 RUNTIME_NAME" >&2; exit 2; }
RT=$1
[ "$RT" = runc ] && RT=runc-bin
IMG=$TEST_IMAGE
# shellcheck disable=SC2034 # read by lib/clients.sh
CLIENT=docker
# dockerd says so on every run: our private daemon runs with --ip-forward=false.
CAPTURE_IGNORE='IPv4 forwarding is disabled'

# --------------------------------------------------------------------------- setup

register_runtimes() {
  # shellcheck disable=SC2086 # the *_ARGS variables are deliberately word-split
  add_docker_runtime sandshim "$SANDSHIM_BIN" $SANDSHIM_ARGS
  add_docker_runtime sandshim-gvisor "$SANDSHIM_BIN" --backend gvisor
  add_docker_runtime runc-bin /usr/sbin/runc
  add_docker_runtime crun /usr/bin/crun
  add_docker_runtime runsc "$TEST_RUNSC"
  add_docker_runtime runsc-host "$TEST_RUNSC" --network=host
  if [ -n "${RUNTIME_PATH:-}" ]; then
    # shellcheck disable=SC2086
    add_docker_runtime "$RT" "$RUNTIME_PATH" ${RUNTIME_ARGS:-}
  fi
}

runtime_binary() { jq -r --arg n "$RT" '.[$n].path // empty' <<<"$DAEMON_RUNTIMES_JSON"; }

setup() {
  require_root
  require_cmds jq ip timeout "$DOCKERD_BIN" "$CONTAINERD_BIN" "$DOCKER_CLI"
  register_runtimes
  local bin
  bin=$(runtime_binary)
  [ -n "$bin" ] || { echo "unknown runtime '$1'; set RUNTIME_PATH to register it" >&2; exit 2; }
  [ -x "$bin" ] || skip_all "runtime binary for '$RT' not found: $bin"

  WORK=$(make_workdir)
  install_traps
  on_exit '[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$WORK"'
  # dockerd 20.10 hands every runtime the same --root: <exec-root>/runtime-runc.
  leaks_init "$WORK/d" "$WORK/d/exec/runtime-runc"
  # Before the daemons start: they pass the config on to every sandshim they run.
  [ -z "${SANDSHIM_BROKEN_RUNSC:-}" ] || break_runsc "$WORK/broken-runsc" "$SANDSHIM_BROKEN_RUNSC" ||
    die "cannot set up the broken runsc"
  on_exit 'stop_daemons "$WORK/d"'
  start_daemons "$WORK/d" || skip_all "private dockerd/containerd cannot start (see above)"
  log "runtime $RT -> $bin; daemons in $WORK/d; bridge $BRIDGE_NAME $BRIDGE_IP"

  build_rootfs "$WORK/rootfs" && import_docker_image "$WORK/rootfs" ||
    die "cannot build/import the test image"
  # dockerd creates its cgroup parent on the first container start; let a throwaway
  # container (docker's built-in runc) do that before the baseline is recorded.
  dk run --rm "$IMG" true >/dev/null 2>&1 || log "warm-up container failed"
  # The first --network host container makes dockerd mount its "default" (host) netns
  # handle under the exec root, where it stays until the daemon stops: docker's, not a leak.
  dk run --rm --network host "$IMG" true >/dev/null 2>&1 || log "host-network warm-up failed"
  leaks_baseline
  AFTER_CHECK_HOOK=client_after_check
}

# --------------------------------------------------------------------------- helpers

# Docker CLI with a hard timeout; T overrides the default per call.
dk() { timeout "${T:-60}" "${DOCKER_CMD[@]}" "$@"; }

drun() { capture dk run --rm --runtime "$RT" "$@"; }
client_run() { drun "$IMG" "$@"; }
client_run_as() { drun --user "$1" "$IMG" "${@:2}"; }

# Starts a detached container; its name is left in CN.
dstart() {
  CN=$(uniq_name it)
  capture dk run -d --name "$CN" --runtime "$RT" "$@"
  [ "$RC" -eq 0 ] || fail "docker run -d failed ($RC): $ERR"
}

# Creates a container (not started); its name is left in CN.
dcreate() {
  CN=$(uniq_name it)
  capture dk create --name "$CN" --runtime "$RT" "$@"
  [ "$RC" -eq 0 ] || fail "docker create failed ($RC): $ERR"
}

drm() { dk rm -f "$@" >/dev/null 2>&1; true; }

# dstart on runc (the last --runtime wins): the control side of checks that pair containers.
dstart_control() { dstart --runtime runc-bin "$@"; }

inspect() { dk inspect -f "$2" "$1" 2>/dev/null; }

# wait_log NAME TEXT [SECS]: until the container's output contains TEXT.
wait_log() {
  wait_until "${3:-20}" sh -c '"$@" 2>&1 | grep -q -- "$0"' "$2" timeout 10 "${DOCKER_CMD[@]}" logs "$1"
}

client_leftovers() { dk ps -aq; }
client_remove() { drm "$@"; }

# --------------------------------------------------------------------------- checks

# check_echo, check_exit_code, check_missing_command: lib/clients.sh.

check_kill_137() {
  dstart "$IMG" sleep 300 || return 1
  local rc=0
  dk kill "$CN" >/dev/null || rc=1
  local code
  code=$(dk wait "$CN")
  drm "$CN"
  assert_eq 0 "$rc" "docker kill status" && assert_eq 137 "$code" "docker wait exit code"
}

check_init() {
  # docker bind-mounts /sbin/docker-init (no image has it): the lookup at create must see it.
  drun --init "$IMG" sh -c 'echo init-ok; cat /proc/1/cmdline | tr "\\0" " "'
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_contains "$OUT" init-ok "stdout" &&
    assert_contains "$OUT" docker-init "pid 1 is docker-init"
}

check_env() {
  drun -e SANDSHIM_FOO='bar baz' "$IMG" sh -c 'echo "$SANDSHIM_FOO"'
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq 'bar baz' "$OUT" "env value"
}

check_workdir() {
  drun -w /tmp "$IMG" pwd
  assert_eq /tmp "$OUT" "existing workdir ($ERR)" || return 1
  # A workdir missing from the image must be created.
  drun -w /srv/new/dir "$IMG" pwd
  assert_eq /srv/new/dir "$OUT" "created workdir ($ERR)"
}

check_user() {
  drun --user 1000 "$IMG" sh -c 'echo $(id -u):$(id -g):$(id -un)'
  assert_eq 1000:1000:user "$OUT" "uid:gid:name for --user 1000 ($ERR)" || return 1
  drun --user nobody "$IMG" id -u
  assert_eq 65534 "$OUT" "uid for --user nobody ($ERR)" || return 1
  # The user must really lack root powers: root-owned 0700 dir is not readable.
  drun --user 1000 "$IMG" ls /root
  assert_ne 0 "$RC" "uid 1000 could list /root"
}

check_volume_rw() {
  local h=$WORK/vol-rw
  mkdir -p "$h" && echo from-host >"$h/in"
  drun -v "$h:/data" "$IMG" sh -c 'cat /data/in && echo from-container >/data/out'
  assert_eq 0 "$RC" "exit status ($ERR)" || return 1
  assert_eq from-host "$OUT" "host file read in container" || return 1
  assert_eq from-container "$(cat "$h/out" 2>/dev/null)" "container file seen on host"
}

check_volume_ro() {
  local h=$WORK/vol-ro
  mkdir -p "$h" && echo from-host >"$h/in"
  drun -v "$h:/data:ro" "$IMG" sh -c 'cat /data/in; echo x >/data/out'
  assert_ne 0 "$RC" "write to :ro volume succeeded" || return 1
  assert_eq from-host "$OUT" "ro volume readable" || return 1
  [ ! -e "$h/out" ] || fail "file appeared on host through a :ro volume"
}

check_read_only_rootfs() {
  drun --read-only "$IMG" sh -c 'cat /etc/hostname >/dev/null && echo readable; touch /newfile'
  assert_ne 0 "$RC" "touch on --read-only rootfs succeeded" || return 1
  assert_eq readable "$OUT" "rootfs still readable"
}

check_tmpfs() {
  drun --read-only --tmpfs /x "$IMG" sh -c 'echo in-tmpfs >/x/f && cat /x/f && grep " /x " /proc/mounts'
  assert_eq 0 "$RC" "exit status ($ERR)" || return 1
  assert_contains "$OUT" in-tmpfs "file written to tmpfs" || return 1
  assert_contains "$OUT" " /x tmpfs " "/proc/mounts entry"
}

check_detached_exec_stop_rm() {
  dstart "$IMG" sleep 300 || return 1
  capture dk exec "$CN" sh -c 'echo in-exec; exit 5'
  local ex_out=$OUT ex_rc=$RC ex_err=$ERR
  capture dk exec -e X=1 -w /tmp -u 1000 "$CN" sh -c 'echo $X:$(pwd):$(id -u)'
  local ex2=$OUT
  local running
  running=$(inspect "$CN" '{{.State.Running}}')
  T=30 dk stop -t 2 "$CN" >/dev/null
  local after_stop
  after_stop=$(inspect "$CN" '{{.State.Running}}')
  capture dk rm "$CN"
  local rm_rc=$RC
  drm "$CN"
  assert_eq true "$running" "running after docker run -d" || return 1
  assert_eq in-exec "$ex_out" "exec stdout ($ex_err)" || return 1
  assert_eq 5 "$ex_rc" "exec exit status" || return 1
  assert_eq 1:/tmp:1000 "$ex2" "exec -e/-w/-u" || return 1
  assert_eq false "$after_stop" "running after docker stop" || return 1
  assert_eq 0 "$rm_rc" "docker rm status ($ERR)" || return 1
  [ -z "$(dk ps -aq --filter "name=^/$CN\$")" ] || fail "container still listed after rm"
}

# docker cp writes and reads the container's rootfs on the host. runsc mounts a tmpfs of its
# own over an empty image /tmp, so under raw runsc both directions missed /tmp.
check_cp_both_ways() {
  dstart "$IMG" sleep 300 || return 1
  echo copied-in >"$WORK/cp-in.txt"
  capture dk cp "$WORK/cp-in.txt" "$CN:/tmp/cp-in.txt"
  local in_rc=$RC in_err=$ERR
  capture dk exec "$CN" cat /tmp/cp-in.txt
  local seen=$OUT seen_err=$ERR
  dk exec "$CN" sh -c 'echo written-inside >/tmp/cp-out.txt; echo etc-inside >/etc/cp-out.txt; echo data >/written' >/dev/null 2>&1
  rm -f "$WORK/cp-out.txt" "$WORK/cp-etc.txt" "$WORK/cp-written.txt"
  # docker diff and cp read the rootfs on the host: the writes must be there, on every runsc
  # (2024's default --overlay2=root:self kept them in a .gvisor.filestore inside the sandbox).
  capture dk diff "$CN"
  local diff=$OUT
  capture dk cp "$CN:/written" "$WORK/cp-written.txt"
  local w_rc=$RC w_err=$ERR
  capture dk cp "$CN:/tmp/cp-out.txt" "$WORK/cp-out.txt"
  local out_rc=$RC out_err=$ERR
  capture dk cp "$CN:/etc/cp-out.txt" "$WORK/cp-etc.txt"
  local etc_rc=$RC
  drm "$CN"
  assert_eq 0 "$in_rc" "docker cp in ($in_err)" || return 1
  assert_eq copied-in "$seen" "the copied file inside ($seen_err)" || return 1
  assert_eq 0 "$out_rc" "docker cp out of /tmp ($out_err)" || return 1
  assert_eq written-inside "$(cat "$WORK/cp-out.txt" 2>/dev/null)" "file written in /tmp, copied out" || return 1
  assert_eq 0 "$etc_rc" "docker cp out of /etc" || return 1
  assert_eq etc-inside "$(cat "$WORK/cp-etc.txt" 2>/dev/null)" "file written in /etc, copied out" || return 1
  assert_contains "$diff" "A /written" "docker diff lists the written file" || return 1
  [[ "$diff" != *gvisor.filestore* ]] || return $(fail "docker diff shows a gVisor filestore: $diff")
  assert_eq 0 "$w_rc" "docker cp out of a path written in / ($w_err)" || return 1
  assert_eq data "$(cat "$WORK/cp-written.txt" 2>/dev/null)" "file written in /, copied out"
}

# --read-only covers /tmp too, as under runc (runsc's own tmpfs there was writable).
check_read_only_tmp() {
  drun --read-only "$IMG" sh -c 'echo x >/tmp/f'
  assert_eq 1 "$RC" "writing /tmp of a --read-only container (stderr: $ERR)" &&
    assert_contains "$ERR" "Read-only file system" "error"
}

check_exec_tty() {
  # docker exec -t used to hang (the console socket was never answered) and wedge the shim,
  # so docker rm -f hung too.
  dstart "$IMG" sleep 300 || return 1
  local t0 t1 rm_rc
  t0=$(now_ms)
  T=10 capture dk exec -t "$CN" sh -c 'test -t 1 && echo hi-tty'
  t1=$(now_ms)
  T=20 dk rm -f "$CN" >/dev/null 2>&1
  rm_rc=$?
  [ "$rm_rc" -eq 0 ] || drm "$CN"
  OUT=$(printf '%s' "$OUT" | tr -d '\r')
  assert_eq 0 "$RC" "docker exec -t status after $((t1 - t0)) ms ($ERR)" || return 1
  assert_eq hi-tty "$OUT" "stdout on a tty" || return 1
  assert_eq 0 "$rm_rc" "docker rm -f status (124: it hung)"
}

check_stop_trapped_term() {
  dstart "$IMG" sh -c 'trap "echo got-term; exit 0" TERM; echo ready; sleep 300 & wait' || return 1
  wait_log "$CN" ready || { drm "$CN"; fail "container never printed ready"; return 1; }
  local t0 t1 code logs
  t0=$(now_ms)
  T=30 dk stop -t 20 "$CN" >/dev/null
  t1=$(now_ms)
  code=$(inspect "$CN" '{{.State.ExitCode}}')
  logs=$(dk logs "$CN" 2>&1)
  drm "$CN"
  [ $((t1 - t0)) -lt 5000 ] || { fail "docker stop took $((t1 - t0)) ms"; return 1; }
  assert_eq 0 "$code" "exit code after SIGTERM handler" && assert_contains "$logs" got-term "trap output"
}

check_tty() {
  drun -t "$IMG" sh -c 'test -t 0 && test -t 1 && echo both-tty; ls /dev/pts; tty || true'
  OUT=$(printf '%s' "$OUT" | tr -d '\r')
  assert_eq 0 "$RC" "exit status ($ERR)" || return 1
  assert_contains "$OUT" both-tty "test -t 0/1" || return 1
  # ttyname() is informative only: gVisor answers "not a tty" although isatty() holds.
  log "tty: $(echo $OUT)"
}

check_stdin() {
  capture sh -c 'printf "hi-stdin\nline2\n" | "$@"' sh timeout 60 "${DOCKER_CMD[@]}" \
    run --rm -i --runtime "$RT" "$IMG" cat
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq "hi-stdin
line2" "$OUT" "echoed stdin"
}

check_signal_usr1() {
  dstart "$IMG" sh -c 'trap "echo got-usr1; exit 7" USR1; echo ready; sleep 300 & wait' || return 1
  wait_log "$CN" ready || { drm "$CN"; fail "container never printed ready"; return 1; }
  dk kill -s USR1 "$CN" >/dev/null
  local code logs
  code=$(T=20 dk wait "$CN")
  logs=$(dk logs "$CN" 2>&1)
  drm "$CN"
  assert_contains "$logs" got-usr1 "USR1 trap output" && assert_eq 7 "$code" "exit code from USR1 handler"
}

# Path of a container's cgroup file in the v1 hierarchy, if the runtime created one.
host_cgroup_file() { # ID CONTROLLER FILE
  find "/sys/fs/cgroup/$2" -maxdepth 6 -type d -name "$1*" 2>/dev/null | head -n1 | sed "s|\$|/$3|"
}

check_memory_limit() {
  # dd touches its whole 128 MB buffer: fine unconstrained, must die under 64m (no swap).
  local hog='dd if=/dev/zero of=/dev/null bs=128M count=2 2>/dev/null && echo survived'
  drun "$IMG" sh -c "$hog"
  assert_contains "$OUT" survived "control run without limit ($RC, $ERR)" || return 1
  dstart --memory 64m --memory-swap 64m "$IMG" sh -c "sleep 1; $hog" || return 1
  local id cg limit code oom logs
  id=$(inspect "$CN" '{{.Id}}')
  cg=$(host_cgroup_file "$id" memory memory.limit_in_bytes)
  limit=$(cat "$cg" 2>/dev/null || echo none)
  code=$(T=60 dk wait "$CN")
  oom=$(inspect "$CN" '{{.State.OOMKilled}}')
  logs=$(dk logs "$CN" 2>&1)
  drm "$CN"
  assert_not_contains "$logs" survived "hog survived 64m (exit $code, host cgroup limit $limit)" || return 1
  assert_ne 0 "$code" "exit code of killed hog" || return 1
  log "memory: exit=$code OOMKilled=$oom host memory.limit_in_bytes=$limit"
}

check_pids_limit() {
  # Each background sleep is a process; 40 of them cannot fit under 20.
  local forks='for i in $(seq 40); do sleep 5 & done; wait; echo forked-all'
  drun "$IMG" sh -c "$forks"
  assert_contains "$OUT" forked-all "control run without limit ($ERR)" || return 1
  assert_not_contains "$ERR" fork "control run without limit" || return 1
  drun --pids-limit 20 "$IMG" sh -c "$forks 2>&1"
  assert_contains "$OUT$ERR" "fork" "no fork failure under --pids-limit 20 (exit $RC)"
}

check_pids_limit_host() {
  # The host cgroup must carry a limit too (it stayed "max" under gVisor). runc writes the
  # container's limit; gVisor's host cgroup also counts the Sentry's threads and ptrace stubs
  # (~8 host tasks per guest process), so sandshim writes a larger backstop there.
  dstart --pids-limit 64 "$IMG" sleep 300 || return 1
  local id cg max
  id=$(inspect "$CN" '{{.Id}}')
  cg=$(host_cgroup_file "$id" pids pids.max)
  max=$(cat "$cg" 2>/dev/null || echo none)
  drm "$CN"
  log "host pids.max: $max ($cg)"
  case "$max" in '' | *[!0-9]*) fail "host pids.max is '$max', not a number"; return 1 ;; esac
  [ "$max" -ge 64 ] || { fail "host pids.max $max below the container's 64"; return 1; }
  gvisor_runtime || assert_eq 64 "$max" "host pids.max"
}

check_update_cpus() {
  # gVisor refused update; the sandbox lives in the container's host cgroups, so a CPU quota
  # written there bounds it as runc's is bounded.
  dstart "$IMG" sleep 300 || return 1
  local id cg quota
  id=$(inspect "$CN" '{{.Id}}')
  capture dk update --cpus 0.5 "$CN"
  cg=$(host_cgroup_file "$id" cpu cpu.cfs_quota_us)
  quota=$(cat "$cg" 2>/dev/null || echo none)
  drm "$CN"
  assert_eq 0 "$RC" "docker update status ($ERR)" || return 1
  assert_eq 50000 "$quota" "host cpu.cfs_quota_us ($cg)"
}

check_run_cpus() {
  # run --cpus 0.5: the CFS quota on the container's host cgroup (the sandbox's, on gVisor).
  dstart --cpus 0.5 "$IMG" sleep 300 || return 1
  local id cg quota
  id=$(inspect "$CN" '{{.Id}}')
  cg=$(host_cgroup_file "$id" cpu cpu.cfs_quota_us)
  quota=$(cat "$cg" 2>/dev/null || echo none)
  drm "$CN"
  assert_eq 50000 "$quota" "host cpu.cfs_quota_us ($cg)"
}

# Interface names from /proc/net/dev (works without sysfs or iproute2).

check_network_none() {
  drun --network none "$IMG" sh -c "$IFACES_CMD"
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq "lo " "$OUT" "interfaces"
}

# An httpd on the bridge address (only containers and this host can reach it), serving
# index.html = served-by-host; its pid is left in HTTPD_PID.
start_bridge_httpd() { # PORT
  local www=$WORK/www
  mkdir -p "$www" && echo served-by-host >"$www/index.html"
  "$BUSYBOX" httpd -f -p "$BRIDGE_IP:$1" -h "$www" &
  HTTPD_PID=$!
  wait_until 5 timeout 2 "$BUSYBOX" wget -q -O /dev/null "http://$BRIDGE_IP:$1/" ||
    log "httpd readiness probe failed; trying anyway"
}
stop_bridge_httpd() { kill "$HTTPD_PID" 2>/dev/null; wait "$HTTPD_PID" 2>/dev/null; }

check_network_bridge() {
  start_bridge_httpd 18080
  # busybox wget, the everyday client: under runsc's host stack (hostinet) it failed here
  # with "error getting response: Resource temporarily unavailable"; gVisor's own stack
  # (netstack) serves it like the host kernel does.
  drun "$IMG" sh -c "$IFACES_CMD; echo; wget -q -O - http://$BRIDGE_IP:18080/index.html"
  stop_bridge_httpd
  assert_eq 0 "$RC" "exit status ($ERR)" || return 1
  assert_contains "$OUT" eth0 "interfaces" || return 1
  assert_contains "$OUT" served-by-host "HTTP body from the host"
}

# On gVisor the bridge namespace belongs to netstack: the host kernel sees no address on the
# container's side of the veth (runsc moved it into the sandbox), as `runsc state` says.
check_network_bridge_netstack() {
  gvisor_runtime || { echo "not gVisor: nothing to check"; return 0; }
  dstart "$IMG" sleep 300 || return 1
  local id state
  id=$(inspect "$CN" '{{.Id}}')
  state=$(timeout 20 "$SANDSHIM_BIN" --root "$WORK/d/exec/runtime-runc/moby" state "$id" 2>&1)
  drm "$CN"
  assert_eq sandbox "$(jq -r '.annotations["dev.sandshim.runsc.network"]' <<<"$state")" \
    "runsc network mode in the state's annotations ($state)"
}

check_network_container_to_container() {
  dstart "$IMG" sh -c 'mkdir /w && echo served-by-container >/w/i.html && exec httpd -f -p 8080 -h /w' || return 1
  local ip
  ip=$(inspect "$CN" '{{.NetworkSettings.IPAddress}}')
  wait_until 10 timeout 2 "$BUSYBOX" wget -q -O /dev/null "http://$ip:8080/i.html" ||
    log "container httpd readiness probe failed; trying anyway"
  local server=$CN
  drun "$IMG" wget -q -O - "http://$ip:8080/i.html"
  drm "$server"
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_contains "$OUT" served-by-container "HTTP body"
}

check_network_host() {
  start_bridge_httpd 18081
  # The host's network: the host's interfaces (the test bridge among them) are there. gVisor
  # can only give it through the host stack (hostinet), where busybox wget fails (see
  # docs/DOCKER.md): a raw request through nc tests the network rather than wget.
  drun --network host "$IMG" sh -c "$IFACES_CMD; echo; printf 'GET /index.html HTTP/1.0\r\n\r\n' | timeout 10 nc $BRIDGE_IP 18081"
  stop_bridge_httpd
  assert_eq 0 "$RC" "exit status ($ERR)" || return 1
  assert_contains "$OUT" "$BRIDGE_NAME" "the host's interfaces" || return 1
  assert_contains "$OUT" served-by-host "HTTP body from the host"
}

check_restart() {
  dstart "$IMG" sh -c 'echo start >>/starts; echo "starts=$(wc -l </starts)"; trap "exit 0" TERM; sleep 300 & wait' || return 1
  wait_log "$CN" starts=1 || { drm "$CN"; fail "first start not logged"; return 1; }
  T=60 capture dk restart -t 5 "$CN"
  local rrc=$RC rerr=$ERR
  wait_log "$CN" starts=2
  local logs running
  logs=$(dk logs "$CN" 2>&1)
  running=$(inspect "$CN" '{{.State.Running}}')
  drm "$CN"
  assert_eq 0 "$rrc" "docker restart status ($rerr)" || return 1
  assert_contains "$logs" starts=2 "second start (same rootfs) logged" || return 1
  assert_eq true "$running" "running after restart"
}

check_pause_unpause() {
  # The counter lives on a host volume so it can be read while the container is frozen.
  local h=$WORK/pause
  mkdir -p "$h"
  dstart -v "$h:/p" "$IMG" sh -c 'i=0; while :; do i=$((i+1)); echo $i >/p/count; sleep 0.1; done' || return 1
  wait_until 10 test -s "$h/count"
  capture dk pause "$CN"
  if [ "$RC" -ne 0 ]; then
    # Allowed: a runtime without pause support, as long as it says so and the
    # container is unharmed.
    local perr=$ERR state
    state=$(inspect "$CN" '{{.State.Running}}:{{.State.Paused}}')
    drm "$CN"
    [ -n "$perr" ] || { fail "pause failed without an error message"; return 1; }
    assert_eq true:false "$state" "state after failed pause" || return 1
    log "pause unsupported: $perr"
    return 0
  fi
  local paused a b c
  paused=$(inspect "$CN" '{{.State.Paused}}')
  sleep 0.3; a=$(cat "$h/count"); sleep 1; b=$(cat "$h/count")
  capture dk unpause "$CN"
  local urc=$RC uerr=$ERR
  sleep 1; c=$(cat "$h/count")
  drm "$CN"
  assert_eq true "$paused" "Paused after pause" || return 1
  assert_eq "$a" "$b" "counter while paused" || return 1
  assert_eq 0 "$urc" "unpause status ($uerr)" || return 1
  assert_ne "$b" "$c" "counter after unpause"
}

# Under gVisor the container's processes are not host processes: `docker top` (which runs
# the host's ps on the pids the runtime reports) can only show the sandbox that holds them.
gvisor_runtime() {
  case "$RT" in
    runsc*) return 0 ;;
    sandshim)
      [ -n "${SANDSHIM_BROKEN_RUNSC:-}" ] && return 1
      case " ${SANDSHIM_ARGS:-} " in *native*) return 1 ;; esac
      return 0
      ;;
  esac
  return 1
}

check_top() {
  dstart "$IMG" sh -c 'sleep 301 & sleep 302' || return 1
  sleep 1
  capture dk top "$CN"
  drm "$CN"
  assert_eq 0 "$RC" "docker top status ($ERR)" || return 1
  if gvisor_runtime; then
    assert_contains "$OUT" "runsc-sandbox" "the sandbox holding the container's processes"
    return
  fi
  assert_contains "$OUT" "sleep 301" "first process" && assert_contains "$OUT" "sleep 302" "second process"
}

check_exec_not_started() {
  # docker exec of a command that cannot start is an exec error (runc's exec fails before the
  # process exists), which docker reports as 126 for a missing and a non-executable one alike.
  dstart "$IMG" sleep 300 || return 1
  capture dk exec "$CN" no-such-command-xyz
  local m_rc=$RC m_msg="$OUT$ERR"
  capture dk exec "$CN" /etc/passwd
  local p_rc=$RC p_msg="$OUT$ERR"
  drm "$CN"
  assert_eq 126 "$m_rc" "missing command ($m_msg)" && assert_contains "$m_msg" "OCI runtime exec failed" "docker's words" &&
    assert_eq 126 "$p_rc" "not executable ($p_msg)"
}

# --- with SANDSHIM_BROKEN_RUNSC: gVisor cannot run, so `auto` must have used native.

check_fell_back_to_native() {
  dstart "$IMG" sleep 300 || return 1
  local id kernel state logf warned=0
  id=$(inspect "$CN" '{{.Id}}')
  capture dk exec "$CN" uname -r
  kernel=$OUT
  state=$(timeout 20 "$SANDSHIM_BIN" --root "$WORK/d/exec/runtime-runc/moby" state "$id" 2>&1)
  # containerd keeps the runtime's --log in the task's bundle while the task lives.
  logf=$WORK/d/containerd/state/io.containerd.runtime.v2.task/moby/$id/log.json
  grep -q "$FALLBACK_WARNING" "$logf" 2>/dev/null && warned=1
  drm "$CN"
  assert_host_kernel "$kernel" || return 1
  assert_native_state "$state" || return 1
  assert_eq 1 "$warned" "\"$FALLBACK_WARNING\" in $logf"
}

check_gvisor_refuses() {
  local name
  name=$(uniq_name gv)
  capture dk run --rm --name "$name" --runtime sandshim-gvisor "$IMG" echo must-not-run
  drm "$name"  # docker may keep a container whose create failed; the runtime must not
  log "docker said: $(head -c 400 <<<"$ERR")"
  assert_ne 0 "$RC" "exit status" || return 1
  assert_ne must-not-run "$OUT" "stdout" || return 1
  assert_contains "$ERR" "gVisor cannot run here" "docker's error" &&
    assert_contains "$ERR" "$GVISOR_REFUSAL" "docker's error"
  # after_check then proves no process, cgroup or runtime state was left behind.
}

check_no_leaks_after_shutdown() {
  # shellcheck disable=SC2034 # read by run_check
  AFTER_CHECK_HOOK=""
  # "keep": daemons stopped and unmounted, but our cgroups and dir stay to be judged.
  stop_daemons "$WORK/d" keep
  leaks_since_start
  local rc=$?
  stop_daemons "$WORK/d"
  return $rc
}

# --------------------------------------------------------------------------- main

setup "$@"
run_check "run echo: stdout and exit 0" check_echo
run_check "exit 3 propagates" check_exit_code
run_check "docker kill gives 137" check_kill_137
run_check "missing command gives 127" check_missing_command
run_check "a path that is not executable gives 126" check_not_executable
run_check "docker exec of a command that cannot start: 126" check_exec_not_started
run_check "HOME from the image's passwd when none is given" check_home
run_check "--init runs docker-init as pid 1" check_init
run_check "-e sets env" check_env
run_check "-w sets and creates workdir" check_workdir
run_check "--user 1000 / nobody" check_user
run_check "-v rw volume" check_volume_rw
run_check "-v :ro volume" check_volume_ro
run_check "--read-only rootfs" check_read_only_rootfs
run_check "--tmpfs /x" check_tmpfs
run_check "-d, exec, stop, rm" check_detached_exec_stop_rm
run_check "exec -t returns, rm -f after it" check_exec_tty
run_check "docker cp in and out, /tmp included; docker diff" check_cp_both_ways
run_check "--read-only: /tmp read-only too" check_read_only_tmp
run_check "stop of SIGTERM-trapping process < 5s" check_stop_trapped_term
run_check "-t allocates a pty" check_tty
run_check "-i passes stdin" check_stdin
run_check "kill -s USR1 reaches trap" check_signal_usr1
run_check "--memory 64m enforced" check_memory_limit
run_check "--pids-limit 20 enforced" check_pids_limit
run_check "--pids-limit 64 reaches the host cgroup" check_pids_limit_host
run_check "update --cpus reaches the host cgroup" check_update_cpus
run_check "run --cpus 0.5 reaches the host cgroup" check_run_cpus
run_check "--network none: only lo" check_network_none
run_check "default bridge: busybox wget reaches the host" check_network_bridge
run_check "bridge: gVisor runs its own network stack" check_network_bridge_netstack
run_check "bridge: container to container" check_network_container_to_container
run_check "--network host: host interfaces and bridge" check_network_host
run_check "docker restart" check_restart
run_check "pause/unpause" check_pause_unpause
run_check "docker top" check_top
run_docker_daily_checks
run_client_parity_checks
if [ -n "${SANDSHIM_BROKEN_RUNSC:-}" ]; then
  run_check "auto fell back to native (host kernel, state, warning in --log)" check_fell_back_to_native
  run_check "--backend gvisor refuses clearly and leaves nothing" check_gvisor_refuses
fi
CHECK_FILTER="" run_check "no leaks after daemon shutdown" check_no_leaks_after_shutdown
finish_checks
