#!/usr/bin/env bash
# The main job, from a fresh machine: install what is needed, build sandshim, and run a
# command inside a gVisor sandbox through it — directly, then through a private docker
# daemon with `docker run --runtime=sandshim`. The proof is gVisor's own kernel: its boot
# log in dmesg ("Starting gVisor...") and its kernel version (4.4.0) from uname. Last, a
# session: a sandbox around a workspace made by root, a command in gVisor writing a file
# there, the file on the host (the workspace owner's), and the session deleted.
# Every step that takes a while shows progress (apt's lines, cmake's [NN%]).
# Usage: scripts/demo.sh [--no-docker]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "demo.sh: run as root (sandboxes need it)" >&2; exit 1; }
bash scripts/install-deps.sh
echo "== building sandshim (a few minutes on a fresh machine)"
# cmake's [NN%] lines, each percentage once, so a long build is never silent.
bash scripts/build.sh 2>&1 | awk '/^\[ *[0-9]+%\]/ { p = substr($0, 1, 6); if (p != last) { print "build: " p; last = p; fflush() } next }
                              /[Ee]rror/ { print; fflush() }'
BIN=$PWD/build/sandshim
. tests/integration/lib/image.sh
W=$(mktemp -d /tmp/sandshim-demo.XXXXXX)
chmod 755 "$W"
cleanup() {
  "$BIN" --root "$W/root" session delete --force demo-session >/dev/null 2>&1 || true
  "$BIN" --root "$W/root" list -q 2>/dev/null | xargs -r -n1 "$BIN" --root "$W/root" delete --force >/dev/null 2>&1 || true
  [ "${DEMO_DAEMONS:-0}" = 1 ] && stop_daemons "$W/d" >/dev/null 2>&1
  rm -rf "$W"
}
trap cleanup EXIT

echo "== 1. sandshim run (runc command line, gVisor underneath)"
make_bundle "$W/bundle" sh -c 'echo "kernel: $(uname -sr)"; dmesg | head -3' >/dev/null
"$BIN" --root "$W/root" run --bundle "$W/bundle" demo
echo

if [ "${1:-}" != --no-docker ]; then
  echo "== 2. docker run --runtime=sandshim (private dockerd + containerd, stopped afterwards)"
  . tests/integration/lib/daemons.sh
  add_docker_runtime sandshim "$BIN"
  DEMO_DAEMONS=1
  start_daemons "$W/d" >/dev/null || { echo "demo.sh: could not start dockerd" >&2; exit 1; }
  build_rootfs "$W/rootfs" >/dev/null 2>&1
  import_docker_image "$W/rootfs"
  DOCKER run --rm --runtime=sandshim --cap-add SYSLOG "$TEST_IMAGE" sh -c 'echo "kernel: $(uname -sr)"; dmesg | head -3; ip -o -4 addr show eth0 | awk "{print \"eth0:\", \$4}"'
fi

echo
echo "== 3. a session: a sandbox around a workspace, commands in gVisor, files on the host"
export SANDSHIM_CONFIG=$W/config.json  # the demo's audit log stays in its work directory
echo "{\"audit_dir\": \"$W/audit\"}" >"$SANDSHIM_CONFIG"
[ -d "$W/rootfs" ] || build_rootfs "$W/rootfs" >/dev/null 2>&1
mkdir -p "$W/ws"  # made by root, as a platform would: the session's user writes it anyway
S() { echo "\$ sandshim session $(printf '%q ' "$@")" | sed "s|$W|\$W|g"; "$BIN" --root "$W/root" --backend gvisor session "$@"; }
S create demo-session --rootfs "$W/rootfs" --workspace "$W/ws" --memory 256m
S exec demo-session -- sh -c 'echo "written by uid $(id -u) on $(uname -sr)" > /workspace/hello.txt'
echo "on the host: $W/ws/hello.txt (owner $(stat -c %U "$W/ws/hello.txt")): $(cat "$W/ws/hello.txt")" | sed "s|$W|\$W|g"
S files ls demo-session /workspace
S delete demo-session
echo "session deleted; the workspace stays: $(ls "$W/ws")"
