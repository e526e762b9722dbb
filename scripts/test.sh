#!/usr/bin/env bash
# The test command: installs what the tests need (Debian packages only), builds, and runs
# every test — unit tests (no root) and integration suites against real runsc, dockerd,
# containerd and podman (root; they skip with a reason otherwise) — then checks that nothing
# leaked. Usage: scripts/test.sh [ctest args...], e.g. scripts/test.sh -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then
  bash scripts/install-deps.sh
fi
bash scripts/build.sh
before=$(mktemp)
trap 'rm -f "$before"' EXIT
bash scripts/check-leaks.sh --snapshot "$before" >/dev/null 2>&1 || true
rc=0
(cd build && ctest --output-on-failure --timeout 1800 -j2 "$@") || rc=$?
if ! bash scripts/check-leaks.sh --since-snapshot "$before" --wait 10; then
  echo "test.sh: the test run leaked (see above)" >&2
  rc=1
fi
exit "$rc"
