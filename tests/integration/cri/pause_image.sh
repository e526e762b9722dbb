# shellcheck shell=bash
# The pod sandbox ("pause") image, built locally: there is no registry to pull
# registry.k8s.io/pause from. The test busybox rootfs whose command sleeps until killed
# (containerd stops a sandbox with SIGKILL, so no signal handling is needed).
#
#   build_pause_archive ROOTFS TAR REF

# shellcheck source=../lib/image.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/image.sh"

build_pause_archive() { # ROOTFS TAR REF
  build_oci_archive "$1" "$2" "$3" \
    '{"Env": ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"], "Entrypoint": ["/bin/sleep"], "Cmd": ["2147483647"]}'
}
