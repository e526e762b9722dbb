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
if [ -n "${SANDSHIM_TEST_RUNSC:-}" ]; then
  case $suite in
    docker | ctr | podman) SANDSHIM_ARGS="--backend gvisor" exec bash "$here/${suite}_test.sh" sandshim ;;
    # the policy's gVisor half (the exec guard depends on the Sentry's ptrace): native ran already
    policy) SESSION_BACKEND=gvisor exec bash "$here/policy_test.sh" ;;
  esac
fi
case $suite in
  runsc_lifecycle) exec bash "$here/runsc_lifecycle_test.sh" ;;
  fault) exec bash "$here/../fault/fault_test.sh" ;;
  fault_native) FAULT_BACKEND=native exec bash "$here/../fault/fault_test.sh" ;;
  stress) WORKERS=${WORKERS:-32} ROUNDS=${ROUNDS:-1} SOAK=${SOAK:-30} exec bash "$here/../fault/stress_test.sh" ;;
  native) exec bash "$here/native_test.sh" ;;
  session) exec bash "$here/session_test.sh" ;;
  session_files) exec bash "$here/session_files_test.sh" ;;
  snapshot) exec bash "$here/snapshot_test.sh" ;;
  python_client) exec python3 "$here/../../python/tests/test_client.py" ;;
  readme) exec bash "$here/readme_test.sh" ;;
  policy) exec bash "$here/policy_test.sh" ;;
  policy_shells) exec bash "$here/policy_shells_test.sh" ;;
  pool) exec bash "$here/pool_test.sh" ;;
  contexts) exec bash "$here/contexts_test.sh" ;;
  session_from_code) exec python3 "$here/session_from_code_test.py" ;;
  rootfs) exec bash "$here/rootfs_test.sh" ;;
  egress) exec bash "$here/egress_test.sh" ;;
  # The client suites run runc first, on the same machine in the same run, then sandshim on
  # one backend, and fail if sandshim misses a check (table at the end: runc next to sandshim;
  # what gVisor does instead of runc is asserted in the check and listed in docs/DOCKER.md).
  docker) SANDSHIM_ARGS="--backend gvisor" exec bash "$here/vs_runc.sh" docker ;;
  docker_native) SANDSHIM_ARGS="--backend native" exec bash "$here/vs_runc.sh" docker ;;
  # auto mode on a host where gVisor cannot run (lib/broken_runsc.sh): must fall back.
  docker_fallback) SANDSHIM_ARGS="" SANDSHIM_BROKEN_RUNSC=failing exec bash "$here/docker_test.sh" sandshim ;;
  ctr) SANDSHIM_ARGS="--backend gvisor" exec bash "$here/vs_runc.sh" ctr ;;
  ctr_native) SANDSHIM_ARGS="--backend native" exec bash "$here/vs_runc.sh" ctr ;;
  ctr_fallback) SANDSHIM_ARGS="" SANDSHIM_BROKEN_RUNSC=missing exec bash "$here/ctr_test.sh" "$SANDSHIM_BIN" ;;
  # Kubernetes pods through containerd's CRI (cri_test.sh): gVisor, one sandbox per pod; native.
  cri) SANDSHIM_ARGS="--backend gvisor" exec bash "$here/cri_test.sh" ;;
  cri_native) SANDSHIM_ARGS="--backend native" exec bash "$here/cri_test.sh" ;;
  podman) SANDSHIM_ARGS="--backend gvisor" exec bash "$here/vs_runc.sh" podman ;;
  podman_native) SANDSHIM_ARGS="--backend native" exec bash "$here/vs_runc.sh" podman ;;
  # runtime-tools validation cases (oci_test.sh), runc's column beside sandshim's.
  oci) VS_RUNC_SKIP_OK=1 SANDSHIM_ARGS="--backend gvisor" exec bash "$here/vs_runc.sh" oci ;;
  oci_native) SANDSHIM_ARGS="--backend native" exec bash "$here/vs_runc.sh" oci ;;
  # tests/attack: one script per attack surface (attack_native_mounts -> native_mounts_test.sh).
  attack_*) exec bash "$here/../attack/${suite#attack_}_test.sh" ;;
  secrets) exec bash "$here/secrets_test.sh" ;;
  *) echo "run_suite: unknown suite $suite" >&2; exit 2 ;;
esac
