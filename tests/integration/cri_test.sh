#!/usr/bin/env bash
# Kubernetes pods through containerd's CRI: what kubelet does (RunPodSandbox,
# CreateContainer, StartContainer, ExecSync, Exec, ContainerStatus, logs, StopPodSandbox,
# RemovePodSandbox) with our own CRI client (cri/cri_client.py) on a private containerd
# whose runtime handler `sandshim` is the runc v2 shim with BinaryName = sandshim.
#
#   tests/integration/cri_test.sh          # SANDSHIM_BIN; SANDSHIM_ARGS picks the backend
#
# With --backend gvisor every container of a pod must run in the pod's one gVisor sandbox
# (runsc's multi-container support); with --backend native the containers join the pod's
# namespaces. A `runc` handler pod runs first as the control. After every check nothing
# may be left: processes, mounts, cgroups, runtime state, CNI network namespaces.
# Exit: 0 all passed, 1 something failed, 77 skipped (not root / containerd won't start).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cri/containerd_cri.sh
. "$HERE/cri/containerd_cri.sh"
# shellcheck source=cri/pause_image.sh
. "$HERE/cri/pause_image.sh"

IMG=docker.io/$TEST_IMAGE
SANDSHIM_ARGS=${SANDSHIM_ARGS:---backend gvisor}
LOOP_PODS=${LOOP_PODS:-20}

setup() {
  require_root
  require_cmds jq timeout "$CONTAINERD_BIN" "$CTR_BIN" containerd-shim-runc-v2 "$CRI_PYTHON"
  "$CRI_PYTHON" -c 'import grpc' 2>/dev/null || skip_all "python3-grpcio is not installed"
  [ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] && [ -x /usr/lib/cni/loopback ] ||
    skip_all "containernetworking-plugins are not installed"
  resolve_runtime sandshim
  [ -x "$RT_BIN" ] || skip_all "sandshim binary not found: $RT_BIN"
  WORK=$(make_workdir)
  install_traps
  on_exit '[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$WORK"'
  leaks_init "$WORK/d" "$WORK/d/runc-root" "$WORK/d/sandshim-root"
  WRAPPER=$(runtime_wrapper "$WORK/bin")
  CGROUP_PARENT=$(cgroup_parent_for "$WORK/d")
  on_exit 'stop_cri_containerd "$WORK/d"'
  netns_snapshot >"$WORK/netns.pre"
  start_cri_containerd "$WORK/d" "$WRAPPER" || skip_all "private containerd with CRI cannot start (see above)"
  log "sandshim as $WRAPPER (${RT_BIN} ${RT_ARGS[*]:-}); containerd in $WORK/d, bridge $CRI_BRIDGE"
  build_rootfs "$WORK/rootfs" && build_oci_archive "$WORK/rootfs" "$WORK/image.tar" "$IMG" &&
    build_pause_archive "$WORK/rootfs" "$WORK/pause.tar" "$PAUSE_IMAGE" || die "cannot build the test images"
  local t
  for t in image pause; do
    timeout 120 "${CTR_CMD[@]}" -n k8s.io images import "$WORK/$t.tar" >/dev/null || die "ctr import $t failed"
  done
  mkdir -p "$WORK/logs"
  # A first pod (runc) creates the cgroup parent before the baseline, so it is not a leak.
  local pod
  pod=$(run_pod warmup runc) && remove_pod "$pod" || log "warm-up pod failed"
  leaks_baseline
  AFTER_CHECK_HOOK=after_check
}

# ------------------------------------------------------------------------- helpers

# Network namespaces the CRI plugin made (containerd names them cni-<uuid>; podman's are
# netns-<uuid> and must not count).
netns_snapshot() { ls /run/netns 2>/dev/null | grep '^cni-' | sort; }

# Network and IPC shared by the pod (NamespaceMode POD=0). Containers are created without
# their own namespace options, so containerd gives them the pause container's PID namespace
# by path (what kubelet asks for with shareProcessNamespace): on gVisor sandshim gives each
# its own instead (runsc/pod.h UnsharePidNamespace), which check_stop_container relies on.
pod_config() { # NAME [ANNOTATIONS-JSON]
  jq -n --arg n "$1" --arg uid "$(uniq_name uid)" --arg logs "$WORK/logs/$1" --arg cg "/$CGROUP_PARENT" \
    --argjson ann "${2:-"{}"}" \
    '{metadata: {name: $n, uid: $uid, namespace: "sandshim-test", attempt: 0}, hostname: $n,
      log_directory: $logs, annotations: $ann,
      linux: {cgroup_parent: $cg, security_context: {namespace_options: {network: 0, pid: 1, ipc: 0}}}}'
}

# run_pod NAME HANDLER [ANNOTATIONS-JSON]: prints the pod id; the config stays in $WORK/pods/ID.json.
run_pod() {
  local cfg out id
  cfg=$(pod_config "$1" "${3:-}")
  out=$(cri_call RunPodSandbox "$(jq -n --argjson c "$cfg" --arg h "$2" '{config: $c, runtime_handler: $h}')") || return 1
  id=$(jq -r .pod_sandbox_id <<<"$out")
  mkdir -p "$WORK/pods" && echo "$cfg" >"$WORK/pods/$id.json"
  echo "$id"
}

# run_container POD NAME CMD...: created and started; prints the container id.
run_container() {
  local pod=$1 name=$2 req out id
  shift 2
  req=$(jq -n --arg p "$pod" --arg n "$name" --arg img "$IMG" --argjson sb "$(cat "$WORK/pods/$pod.json")" \
    --argjson cmd "$(printf '%s\n' "$@" | jq -R . | jq -s .)" \
    '{pod_sandbox_id: $p, sandbox_config: $sb,
      config: {metadata: {name: $n}, image: {image: $img}, command: $cmd, log_path: ($n + ".log")}}')
  out=$(cri_call CreateContainer "$req") || return 1
  id=$(jq -r .container_id <<<"$out")
  cri_call StartContainer "$(jq -n --arg c "$id" '{container_id: $c}')" >/dev/null || return 1
  echo "$id"
}

remove_pod() { # POD
  local req
  req=$(jq -n --arg p "$1" '{pod_sandbox_id: $p}')
  cri_call StopPodSandbox "$req" >/dev/null && cri_call RemovePodSandbox "$req" >/dev/null
}

exec_sync() { # CONTAINER CMD...: sets OUT (stdout), RC (the command's exit code)
  local c=$1 ans
  shift
  ans=$(cri_call ExecSync "$(jq -n --arg c "$c" --argjson cmd "$(printf '%s\n' "$@" | jq -R . | jq -s .)" \
    '{container_id: $c, cmd: $cmd, timeout: 60}')") || { OUT=""; RC=255; return 0; }
  OUT=$(jq -r '.stdout // ""' <<<"$ans")
  RC=$(jq -r '.exit_code // 0' <<<"$ans")
}

container_field() { # CONTAINER JQ-PATH
  cri_call ContainerStatus "$(jq -n --arg c "$1" '{container_id: $c}')" | jq -r "$2"
}

# Polls ContainerStatus until STATE (0 created, 1 running, 2 exited) or SECS pass.
wait_container_state() { # CONTAINER STATE [SECS]
  local deadline=$((SECONDS + ${3:-20}))
  until [ "$(container_field "$1" '.status.state // 0')" = "$2" ]; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.5
  done
}

# gVisor sandboxes (the runsc-sandbox process) that run under our sandshim root.
count_sandboxes() {
  local n=0 d cmd
  for d in /proc/[0-9]*; do
    cmd=$( (tr '\0' ' ' <"$d/cmdline") 2>/dev/null) || continue
    # runsc names its sandbox in argv[0]; comm stays the binary's name.
    case $cmd in "runsc-sandbox "*"$WORK/d/sandshim-root"*) n=$((n + 1)) ;; esac
  done
  echo "$n"
}

# Every check removes its pods; anything left is removed here and is a failure, and so is
# anything a pod left behind (processes, mounts, cgroups, state, CNI netns).
after_check() {
  local left msg="" p
  left=$(cri_call ListPodSandbox | jq -r '.items[]?.id' 2>/dev/null)
  if [ -n "$left" ]; then
    for p in $left; do remove_pod "$p" || true; done
    msg="pods left behind: $(echo $left)"
  fi
  local ns
  ns=$(comm -13 "$WORK/netns.pre" <(netns_snapshot))
  [ -z "$ns" ] || msg="${msg:+$msg; }network namespaces left: $(echo $ns)"
  leaks_since_baseline || msg="${msg:+$msg; }$REASON"
  [ -z "$msg" ] || fail "$msg"
}

# ------------------------------------------------------------------------- checks

HTTPD_CMD=(sh -c 'mkdir -p /www && echo hello-from-web >/www/index.html && echo web-up && exec httpd -f -p 8080 -h /www')
CLIENT_CMD=(sh -c 'echo client-started; echo to-stderr >&2; exec sleep 100000')
# busybox wget's non-blocking reads fail on gVisor's host network stack (ARCHITECTURE.md),
# which pods ran on before netstack: nc is a blocking client (check_netstack_pod uses wget).
FETCH_CMD=(sh -c 'printf "GET / HTTP/1.0\r\n\r\n" | nc 127.0.0.1 8080')

# Two containers in one pod: the second reaches the first on localhost, ExecSync, status and
# logs work. HANDLER runc is the control.
two_container_pod() { # HANDLER
  local pod web client sandboxes
  pod=$(run_pod "two-$1" "$1") || { fail "RunPodSandbox failed"; return; }
  web=$(run_container "$pod" web "${HTTPD_CMD[@]}") || { fail "web container failed"; return; }
  client=$(run_container "$pod" client "${CLIENT_CMD[@]}") || { fail "client container failed"; return; }
  wait_container_state "$client" 1 || { fail "client never RUNNING"; return; }
  local i
  for i in $(seq 1 20); do
    exec_sync "$client" "${FETCH_CMD[@]}"
    case $OUT in *hello-from-web*) break ;; esac
    sleep 0.5
  done
  assert_contains "$OUT" hello-from-web "client -> web on localhost" || return
  exec_sync "$client" sh -c 'echo out; exit 7'
  assert_eq 7 "$RC" "ExecSync exit code" || return
  assert_eq out "$OUT" "ExecSync stdout" || return
  sandboxes=$(count_sandboxes)
  if [ "$1" = sandshim ] && [[ "$SANDSHIM_ARGS" == *gvisor* ]]; then
    assert_eq 1 "$sandboxes" "runsc-sandbox processes for the pod" || return
  fi
  local log
  log=$(cat "$WORK/logs/two-$1/client.log" 2>/dev/null)
  assert_contains "$log" " stdout F client-started" "client log (CRI format)" || return
  assert_contains "$log" " stderr F to-stderr" "client stderr in the log" || return
  remove_pod "$pod" || fail "stop/remove pod failed"
}

check_runc_control() { two_container_pod runc; }
check_two_containers() { two_container_pod sandshim; }

# An app container that exits is reported with its exit code; removing it leaves the pod's
# sandbox (and its other containers) running; a new container can join afterwards.
check_app_exit_and_remove() {
  local pod keep short again
  pod=$(run_pod exit-pod sandshim) || { fail "RunPodSandbox failed"; return; }
  keep=$(run_container "$pod" keep "${CLIENT_CMD[@]}") || { fail "keep container failed"; return; }
  short=$(run_container "$pod" short sh -c 'echo bye; exit 3') || { fail "short container failed"; return; }
  wait_container_state "$short" 2 30 || { fail "short container never EXITED"; return; }
  assert_eq 3 "$(container_field "$short" .status.exit_code)" "exit code of the exited container" || return
  cri_call RemoveContainer "$(jq -n --arg c "$short" '{container_id: $c}')" >/dev/null ||
    { fail "RemoveContainer failed"; return; }
  exec_sync "$keep" echo still-here
  assert_eq still-here "$OUT" "the other container after RemoveContainer" || return
  again=$(run_container "$pod" again "${CLIENT_CMD[@]}") || { fail "a new container in the pod failed"; return; }
  exec_sync "$again" echo joined
  assert_eq joined "$OUT" "ExecSync in the new container" || return
  remove_pod "$pod" || fail "stop/remove pod failed"
}

# StopContainer on the pod's FIRST app container: it ends (EXITED), the later one goes on.
# (Were they in one PID namespace inside gVisor, the first would be its init, and its death
# would SIGKILL the second.)
check_stop_container() {
  local pod a b
  pod=$(run_pod stop-pod sandshim) || { fail "RunPodSandbox failed"; return; }
  a=$(run_container "$pod" a "${CLIENT_CMD[@]}") || { fail "container a failed"; return; }
  b=$(run_container "$pod" b "${CLIENT_CMD[@]}") || { fail "container b failed"; return; }
  cri_call StopContainer "$(jq -n --arg c "$a" '{container_id: $c, timeout: 2}')" >/dev/null ||
    { fail "StopContainer failed"; return; }
  wait_container_state "$a" 2 30 || { fail "stopped container not EXITED"; return; }
  exec_sync "$b" echo alive
  assert_eq alive "$OUT" "the pod's other container after StopContainer" || return
  remove_pod "$pod" || fail "stop/remove pod failed"
}

check_streaming_exec() {
  local pod c out
  pod=$(run_pod stream-pod sandshim) || { fail "RunPodSandbox failed"; return; }
  c=$(run_container "$pod" c "${CLIENT_CMD[@]}") || { fail "container failed"; return; }
  out=$(cri_exec_stream "$c" sh -c 'echo streamed-out; echo streamed-err >&2; exit 5' 2>&1)
  local rc=$?
  assert_contains "$out" streamed-out "streaming Exec stdout" || return
  assert_contains "$out" streamed-err "streaming Exec stderr" || return
  assert_eq 5 "$rc" "streaming Exec exit code" || return
  remove_pod "$pod" || fail "stop/remove pod failed"
}

# The runsc network mode sandshim chose for a pod's sandbox (its state's annotation).
pod_runsc_network() { # POD
  timeout 20 "$SANDSHIM_BIN" --root "$SANDSHIM_ROOT/k8s.io" state "$1" 2>/dev/null |
    jq -r '.annotations["dev.sandshim.runsc.network"] // "none recorded"'
}

# A pod runs on gVisor's own network stack (netstack; docs/KUBERNETES.md): busybox wget,
# whose non-blocking reads fail on the host stack, between its containers on localhost and from
# the host to the pod IP. A pod may ask for the host stack with the pod annotation
# dev.sandshim.network-stack=hostinet (passed on by the handler's pod_annotations).
check_netstack_pod() {
  local hostinet pod client ip i inside from_host hostinet_net pod_net
  hostinet=$(run_pod hostinet-pod sandshim '{"dev.sandshim.network-stack": "hostinet"}') ||
    { fail "RunPodSandbox (hostinet) failed"; return; }
  hostinet_net=$(pod_runsc_network "$hostinet")
  remove_pod "$hostinet" || { fail "stop/remove the hostinet pod failed"; return; }
  pod=$(run_pod netstack-pod sandshim) || { fail "RunPodSandbox failed"; return; }
  pod_net=$(pod_runsc_network "$pod")
  run_container "$pod" web "${HTTPD_CMD[@]}" >/dev/null || { fail "web container failed"; return; }
  client=$(run_container "$pod" client "${CLIENT_CMD[@]}") || { fail "client container failed"; return; }
  wait_container_state "$client" 1 || { fail "client never RUNNING"; return; }
  for i in $(seq 1 20); do
    exec_sync "$client" wget -q -O - http://127.0.0.1:8080/
    case $OUT in *hello-from-web*) break ;; esac
    sleep 0.5
  done
  inside=$OUT
  ip=$(cri_call PodSandboxStatus "$(jq -n --arg p "$pod" '{pod_sandbox_id: $p}')" | jq -r '.status.network.ip // empty')
  from_host=$(timeout 10 "$BUSYBOX" wget -q -O - "http://$ip:8080/" 2>&1)
  remove_pod "$pod" || { fail "stop/remove pod failed"; return; }
  log "runsc network: pod $pod_net, pod annotated hostinet $hostinet_net; pod IP $ip"
  assert_contains "$inside" hello-from-web "busybox wget client -> web on localhost" || return
  assert_contains "$from_host" hello-from-web "busybox wget from the host to the pod IP $ip" || return
  [[ "$SANDSHIM_ARGS" == *gvisor* ]] || return 0
  assert_eq sandbox "$pod_net" "runsc network of a pod" &&
    assert_eq host "$hostinet_net" "runsc network of a pod annotated hostinet"
}

# PortForward (kubectl port-forward): containerd enters the pod's network namespace on the
# host and dials localhost:PORT there (docs/KUBERNETES.md). A runc pod (the control) and a
# sandshim pod annotated dev.sandshim.network-stack=hostinet answer through it; so does a
# default sandshim pod on native. On gVisor a default pod runs netstack: its listener lives in
# the Sentry, nothing listens in the host kernel's namespace, and the dial is refused.
pf_fetch() { # POD: PF_OUT (the answer), PF_ERR (the stream's error channel and stderr)
  local i
  for i in $(seq 1 10); do
    PF_ERR=$(printf 'GET / HTTP/1.0\r\n\r\n' | cri_port_forward "$1" 8080 2>&1 >"$WORK/pf.out")
    PF_OUT=$(cat "$WORK/pf.out")
    case $PF_OUT in *hello-from-web*) return 0 ;; esac
    sleep 0.5
  done
}

check_port_forward() {
  local kind pod web i up out_runc out_hostinet out_netstack err_netstack
  for kind in runc hostinet netstack; do
    case $kind in
      runc) pod=$(run_pod pf-runc runc) ;;
      hostinet) pod=$(run_pod pf-hostinet sandshim '{"dev.sandshim.network-stack": "hostinet"}') ;;
      *) pod=$(run_pod pf-netstack sandshim) ;;
    esac || { fail "RunPodSandbox ($kind) failed"; return; }
    web=$(run_container "$pod" web "${HTTPD_CMD[@]}") || { fail "web container ($kind) failed"; return; }
    # Serving inside first: a refusal below is port-forward's, not a server still starting
    # (nc: busybox wget fails on the host stack, check_netstack_pod).
    up=""
    for i in $(seq 1 20); do
      exec_sync "$web" "${FETCH_CMD[@]}"
      case $OUT in *hello-from-web*) up=1 && break ;; esac
      sleep 0.5
    done
    pf_fetch "$pod"
    remove_pod "$pod" || { fail "stop/remove the $kind pod failed"; return; }
    [ -n "$up" ] || { fail "$kind pod: the web server never answered inside"; return; }
    printf -v "out_$kind" '%s' "$PF_OUT"
    [ "$kind" = netstack ] && err_netstack=$PF_ERR
  done
  assert_contains "$out_runc" hello-from-web "port-forward to a runc pod" || return
  assert_contains "$out_hostinet" hello-from-web "port-forward to a sandshim pod annotated hostinet" || return
  if [[ "$SANDSHIM_ARGS" == *gvisor* ]]; then
    assert_eq "" "$out_netstack" "gVisor netstack pod: an answer through port-forward (docs/KUBERNETES.md says refused)" &&
      assert_contains "$err_netstack" "connection refused" "gVisor netstack pod: port-forward's error"
    return
  fi
  assert_contains "$out_netstack" hello-from-web "port-forward to a sandshim pod"
}

check_loop() {
  local i pod c
  for i in $(seq 1 "$LOOP_PODS"); do
    pod=$(run_pod "loop-$i" sandshim) || { fail "pod $i: RunPodSandbox failed"; return; }
    c=$(run_container "$pod" c sh -c 'echo hi; exec sleep 100000') || { fail "pod $i: container failed"; return; }
    exec_sync "$c" echo "pod-$i"
    assert_eq "pod-$i" "$OUT" "pod $i ExecSync" || return
    remove_pod "$pod" || { fail "pod $i: stop/remove failed"; return; }
  done
}

setup
run_check "runc control: two containers, localhost, ExecSync, logs" check_runc_control
run_check "sandshim ($SANDSHIM_ARGS): two containers in one pod" check_two_containers
run_check "sandshim: app container exits, is removed, pod lives on" check_app_exit_and_remove
run_check "sandshim: StopContainer leaves the pod running" check_stop_container
run_check "sandshim: streaming Exec" check_streaming_exec
run_check "sandshim: a pod on netstack (hostinet by annotation)" check_netstack_pod
run_check "PortForward: runc, sandshim hostinet, sandshim default pod" check_port_forward
run_check "sandshim: $LOOP_PODS pods created and removed" check_loop
finish_checks
