# shellcheck shell=bash
# Test image and bundle builders. There is no registry access, so the only image is
# one we assemble from the static busybox on the host.
#
#   build_rootfs DIR                       # busybox rootfs with users root/1000/nobody
#   import_docker_image ROOTFS [REF]       # `docker import` into the private dockerd
#   save_docker_image REF TAR              # docker-archive tar for ctr/podman
#   make_bundle BUNDLE_DIR ARG...          # OCI bundle (runc spec + our rootfs)

# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

BUSYBOX=${BUSYBOX:-/bin/busybox}
TEST_IMAGE=${TEST_IMAGE:-sandshim-test/busybox:latest}
RUNC_FOR_SPEC=${RUNC_FOR_SPEC:-runc}

build_rootfs() { # DIR
  local r=$1
  mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,root,home/user,proc,sys,dev,run,var/tmp}
  cp "$BUSYBOX" "$r/bin/busybox"
  # Symlinks are resolved inside the container, so point them at /bin/busybox
  # relative to the container root (what --install -s does when run via chroot).
  chroot "$r" /bin/busybox --install -s /bin || return 1
  chmod 1777 "$r/tmp" "$r/var/tmp"
  chown 1000:1000 "$r/home/user"
  cat >"$r/etc/passwd" <<'P'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:user:/home/user:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
P
  cat >"$r/etc/group" <<'G'
root:x:0:
user:x:1000:
nogroup:x:65534:
G
  # Placeholders so runtimes that bind-mount over these find a target.
  : >"$r/etc/hosts"; : >"$r/etc/resolv.conf"; echo sandshim-test >"$r/etc/hostname"
}

import_docker_image() { # ROOTFS [REF]
  local ref=${2:-$TEST_IMAGE}
  tar -C "$1" -c . |
    timeout 120 "${DOCKER_CMD[@]}" import -c 'CMD ["/bin/sh"]' -c 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' - "$ref" >/dev/null
}

save_docker_image() { # REF TAR
  timeout 120 "${DOCKER_CMD[@]}" save -o "$2" "$1"
}

# make_bundle DIR ARG...: a plain OCI bundle for driving a runtime binary directly.
# The rootfs is built (not copied from an image) so no daemon is needed.
make_bundle() {
  local b=$1; shift
  mkdir -p "$b"
  [ -x "$b/rootfs/bin/busybox" ] || build_rootfs "$b/rootfs" || return 1
  rm -f "$b/config.json"
  (cd "$b" && "$RUNC_FOR_SPEC" spec) || return 1
  local args
  args=$(printf '%s\n' "$@" | jq -R . | jq -s .)
  jq --argjson a "$args" '
      .process.args = $a
    | .process.terminal = false
    | .root.path = "rootfs"
    | .root.readonly = false
    | .hostname = "sandshim-test"' "$b/config.json" >"$b/config.json.new" &&
    mv "$b/config.json.new" "$b/config.json"
}
