# shellcheck shell=bash
# Test image and bundle builders. There is no registry access, so the only image is
# one we assemble from the static busybox on the host.
#
#   build_rootfs DIR                       # busybox rootfs with users root/1000/nobody
#   import_docker_image ROOTFS [REF]       # `docker import` into the private dockerd
#   save_docker_image REF TAR              # docker-archive tar from the private dockerd
#   build_oci_archive ROOTFS TAR [REF]     # OCI image archive, no daemon needed
#   make_bundle BUNDLE_DIR ARG...          # OCI bundle (runc spec + our rootfs)

# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

BUSYBOX=${BUSYBOX:-/bin/busybox}
TEST_IMAGE=${TEST_IMAGE:-sandshim-test/busybox:latest}
RUNC_FOR_SPEC=${RUNC_FOR_SPEC:-runc}
# A Debian image with the tools attacks go through (git, curl, python3), built by sandshim's
# rootfs builder with debootstrap and cached by it (one spec, so suites share the cache entry).
DEBIAN_TOOLS_IMAGE="debootstrap:bookworm+git,curl,ca-certificates,python3-minimal"

build_rootfs() { # DIR
  local r=$1
  mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,root,home/user,proc,sys,dev,run,var/tmp}
  cp "$BUSYBOX" "$r/bin/busybox"
  # Symlinks are resolved inside the container, so point them at /bin/busybox
  # relative to the container root (what --install -s does when run via chroot).
  chroot "$r" /bin/busybox --install -s /bin || return 1
  chmod 1777 "$r/tmp" "$r/var/tmp"
  chmod 700 "$r/root"
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

_blob() { # FILE DIR: moves FILE into DIR/blobs/sha256 by digest, prints "digest size"
  local sum size
  sum=$(sha256sum "$1" | cut -d' ' -f1)
  size=$(stat -c %s "$1")
  mv "$1" "$2/blobs/sha256/$sum"
  echo "sha256:$sum $size"
}

# build_oci_archive ROOTFS TAR [REF [CONFIG]]: a one-layer OCI image archive (oci-layout +
# index.json) that `ctr images import` and `podman load` both accept, so those tests
# do not need a dockerd. REF is recorded under both annotation names in use. CONFIG is
# the image's run config as JSON (default: PATH and /bin/sh).
build_oci_archive() {
  local rootfs=$1 out=$2 ref=${3:-docker.io/$TEST_IMAGE}
  local run_config=${4:-'{"Env": ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"], "Cmd": ["/bin/sh"]}'}
  local d layer cfg man
  d=$(mktemp -d) || return 1
  mkdir -p "$d/blobs/sha256"
  tar -C "$rootfs" --numeric-owner --sort=name -cf "$d/layer.tar" . || { rm -rf "$d"; return 1; }
  layer=$(_blob "$d/layer.tar" "$d")
  jq -n --arg diff "${layer% *}" --argjson run "$run_config" '{
      architecture: "amd64", os: "linux", config: $run,
      rootfs: {type: "layers", diff_ids: [$diff]}}' >"$d/config.json"
  cfg=$(_blob "$d/config.json" "$d")
  jq -n --arg cd "${cfg% *}" --argjson cs "${cfg#* }" --arg ld "${layer% *}" --argjson ls "${layer#* }" '{
      schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $cd, size: $cs},
      layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $ld, size: $ls}]}' >"$d/manifest.json"
  man=$(_blob "$d/manifest.json" "$d")
  jq -n --arg md "${man% *}" --argjson ms "${man#* }" --arg ref "$ref" '{
      schemaVersion: 2,
      manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $md, size: $ms,
        annotations: {"io.containerd.image.name": $ref, "org.opencontainers.image.ref.name": $ref}}]}' >"$d/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$d/oci-layout"
  tar -C "$d" -cf "$out" oci-layout index.json blobs
  local rc=$?
  rm -rf "$d"
  return $rc
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
