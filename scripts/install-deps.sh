#!/usr/bin/env bash
# Installs everything sandshim needs to build and test, from Debian's packages only.
# Idempotent: a second run installs nothing and exits quickly.
set -euo pipefail

BUILD_PKGS=(build-essential cmake pkg-config ccache
  libboost1.81-dev libboost-json1.81-dev
  libspdlog-dev libfmt-dev doctest-dev libseccomp-dev libcli11-dev
  libarchive-dev libssl-dev libcap-dev libzstd-dev zlib1g-dev
  liblzma-dev libbz2-dev libxml2-dev nettle-dev libacl1-dev liblz4-dev)
# Real parts the integration tests and the main job drive.
RUNTIME_PKGS=(runsc runc crun docker.io containerd podman skopeo busybox-static
  iproute2 iptables procps psmisc jq util-linux bc python3 debootstrap zstd
  curl  # egress_test.sh: plain HTTP and CONNECT through the proxy
  debian-archive-keyring  # fetch-runsc-trixie.sh: Debian 13's runsc for the test matrix
  containernetworking-plugins python3-grpcio)  # cri_test.sh: pod networks (bridge, host-local, loopback), the CRI client

missing=()
for p in "${BUILD_PKGS[@]}" "${RUNTIME_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Debian 13's runsc beside the system's, for the suites' _2024 entries (never installed).
fetch_runsc_2024() { bash "$(dirname "$0")/fetch-runsc-trixie.sh"; }
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: everything already installed"
  fetch_runsc_2024
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Debian's docker.io/containerd/podman units must not start daemons on the host: tests run
# private instances. policy-rc.d makes invoke-rc.d skip service starts during install.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; created_policy=1; fi
trap '[ "$created_policy" = 1 ] && rm -f "$policy"' EXIT
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fetch_runsc_2024
echo "install-deps: done"
