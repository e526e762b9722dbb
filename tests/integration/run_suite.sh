#!/usr/bin/env bash
# Entry point ctest uses for the integration suites: run_suite.sh SUITE SANDSHIM_BINARY.
# Each suite needs root and real tools and exits 77 (skip) without them.
set -u
suite=$1
export SANDSHIM_BIN=$2
here=$(cd "$(dirname "$0")" && pwd)
# A runsc to test against that is not there is a failure, not a skip: the *_2024 entries
# would pass by testing nothing (scripts/install-deps.sh fetches it).
if [ -n "${SANDSHIM_TEST_RUNSC:-}" ] && [ ! -x "$SANDSHIM_TEST_RUNSC" ]; then
  echo "run_suite: SANDSHIM_TEST_RUNSC=$SANDSHIM_TEST_RUNSC is not an executable (run scripts/install-deps.sh)" >&2
  exit 1
fi
# shellcheck source=lib/common.sh
. "$here/lib/common.sh"  # SANDSHIM_TEST_RUNSC: SANDSHIM_BIN becomes a wrapper (common.sh)
# Against another runsc, the client suites run sandshim's column only: runc's (the reference)
# does not depend on runsc and already ran in the plain entry; this halves the *_2024 time.
# runsc fchowns the stdio it is handed to the sandbox's user: a runsc given the host's
# /dev/null (or /dev/zero...) leaves it owned by nobody for every program on the host. Each
# suite is checked for that after it ends, so the one that did it is named (and fails).
host_nodes="/dev/null /dev/zero /dev/full /dev/random /dev/urandom"
nodes_owner() { stat -c %n=%u:%g:%a $host_nodes; }
nodes_before=$(nodes_owner)
run_checked() {
  "$@"
  local rc=$? n
  for n in $host_nodes; do
    [ "$(stat -c %u:%g:%a "$n")" != 0:0:666 ] || continue
    echo "run_suite: $suite left the host's $n as uid:gid:mode $(stat -c %u:%g:%a "$n") (restored)" >&2
    chown root:root "$n" && chmod 666 "$n"
    # Blamed only if it was right when the suite began.
    [[ $'\n'$nodes_before$'\n' != *$'\n'$n=0:0:666$'\n'* ]] || [ "$rc" -ne 0 ] || rc=1
  done
  exit "$rc"
}
if [ -n "${SANDSHIM_TEST_RUNSC:-}" ]; then
  case $suite in
    docker | ctr | podman) SANDSHIM_ARGS="--backend gvisor" run_checked bash "$here/${suite}_test.sh" sandshim ;;
    # the policy's gVisor half (the exec guard depends on the Sentry's ptrace): native ran already
    policy) SESSION_BACKEND=gvisor run_checked bash "$here/policy_test.sh" ;;
  esac
fi
case $suite in
  runsc_lifecycle) run_checked bash "$here/runsc_lifecycle_test.sh" ;;
  fault) run_checked bash "$here/../fault/fault_test.sh" ;;
  fault_native) FAULT_BACKEND=native run_checked bash "$here/../fault/fault_test.sh" ;;
  stress) WORKERS=${WORKERS:-32} ROUNDS=${ROUNDS:-1} SOAK=${SOAK:-30} run_checked bash "$here/../fault/stress_test.sh" ;;
  native) run_checked bash "$here/native_test.sh" ;;
  session) run_checked bash "$here/session_test.sh" ;;
  session_files) run_checked bash "$here/session_files_test.sh" ;;
  snapshot) run_checked bash "$here/snapshot_test.sh" ;;
  python_client) run_checked python3 "$here/../../python/tests/test_client.py" ;;
  readme) run_checked bash "$here/readme_test.sh" ;;
  policy) run_checked bash "$here/policy_test.sh" ;;
  policy_shells) run_checked bash "$here/policy_shells_test.sh" ;;
  pool) run_checked bash "$here/pool_test.sh" ;;
  contexts) run_checked bash "$here/contexts_test.sh" ;;
  session_from_code) run_checked python3 "$here/session_from_code_test.py" ;;
  rootfs) run_checked bash "$here/rootfs_test.sh" ;;
  egress) run_checked bash "$here/egress_test.sh" ;;
  # The client suites run runc first, on the same machine in the same run, then sandshim on
  # one backend, and fail if sandshim misses a check (table at the end: runc next to sandshim;
  # what gVisor does instead of runc is asserted in the check and listed in docs/DOCKER.md).
  docker) SANDSHIM_ARGS="--backend gvisor" run_checked bash "$here/vs_runc.sh" docker ;;
  docker_native) SANDSHIM_ARGS="--backend native" run_checked bash "$here/vs_runc.sh" docker ;;
  # auto mode on a host where gVisor cannot run (lib/broken_runsc.sh): must fall back.
  docker_fallback) SANDSHIM_ARGS="" SANDSHIM_BROKEN_RUNSC=failing run_checked bash "$here/docker_test.sh" sandshim ;;
  ctr) SANDSHIM_ARGS="--backend gvisor" run_checked bash "$here/vs_runc.sh" ctr ;;
  ctr_native) SANDSHIM_ARGS="--backend native" run_checked bash "$here/vs_runc.sh" ctr ;;
  ctr_fallback) SANDSHIM_ARGS="" SANDSHIM_BROKEN_RUNSC=missing run_checked bash "$here/ctr_test.sh" "$SANDSHIM_BIN" ;;
  # Kubernetes pods through containerd's CRI (cri_test.sh): gVisor, one sandbox per pod; native.
  cri) SANDSHIM_ARGS="--backend gvisor" run_checked bash "$here/cri_test.sh" ;;
  cri_native) SANDSHIM_ARGS="--backend native" run_checked bash "$here/cri_test.sh" ;;
  podman) SANDSHIM_ARGS="--backend gvisor" run_checked bash "$here/vs_runc.sh" podman ;;
  podman_native) SANDSHIM_ARGS="--backend native" run_checked bash "$here/vs_runc.sh" podman ;;
  # runtime-tools validation cases (oci_test.sh), runc's column beside sandshim's.
  oci) VS_RUNC_SKIP_OK=1 SANDSHIM_ARGS="--backend gvisor" run_checked bash "$here/vs_runc.sh" oci ;;
  oci_native) SANDSHIM_ARGS="--backend native" run_checked bash "$here/vs_runc.sh" oci ;;
  # tests/attack: one script per attack surface (attack_native_mounts -> native_mounts_test.sh).
  attack_*) run_checked bash "$here/../attack/${suite#attack_}_test.sh" ;;
  secrets) run_checked bash "$here/secrets_test.sh" ;;
  *) echo "run_suite: unknown suite $suite" >&2; exit 2 ;;
esac
