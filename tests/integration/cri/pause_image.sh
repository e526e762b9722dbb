# shellcheck shell=bash
# The pod sandbox ("pause") image, built locally: there is no registry to pull
# registry.k8s.io/pause from. The test busybox rootfs whose command sleeps until killed
# (containerd stops a sandbox with SIGKILL, so no signal handling is needed).
#
#   build_pause_archive ROOTFS TAR REF

# shellcheck source=../lib/image.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/image.sh"

build_pause_archive() {
  local rootfs=$1 out=$2 ref=$3 d layer cfg man
  d=$(mktemp -d) || return 1
  mkdir -p "$d/blobs/sha256"
  tar -C "$rootfs" --numeric-owner --sort=name -cf "$d/layer.tar" . || { rm -rf "$d"; return 1; }
  layer=$(_blob "$d/layer.tar" "$d")
  jq -n --arg diff "${layer% *}" '{architecture: "amd64", os: "linux",
      config: {Env: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"], Entrypoint: ["/bin/sleep"], Cmd: ["2147483647"]},
      rootfs: {type: "layers", diff_ids: [$diff]}}' >"$d/config.json"
  cfg=$(_blob "$d/config.json" "$d")
  jq -n --arg cd "${cfg% *}" --argjson cs "${cfg#* }" --arg ld "${layer% *}" --argjson ls "${layer#* }" '{
      schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $cd, size: $cs},
      layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $ld, size: $ls}]}' >"$d/manifest.json"
  man=$(_blob "$d/manifest.json" "$d")
  jq -n --arg md "${man% *}" --argjson ms "${man#* }" --arg ref "$ref" '{schemaVersion: 2,
      manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $md, size: $ms,
        annotations: {"io.containerd.image.name": $ref, "org.opencontainers.image.ref.name": $ref}}]}' >"$d/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$d/oci-layout"
  tar -C "$d" -cf "$out" oci-layout index.json blobs
  local rc=$?
  rm -rf "$d"
  return $rc
}
