#!/usr/bin/env bash
# Installs the built sandshim to /usr/local/bin and registers it with docker as runtime
# "sandshim" by merging into /etc/docker/daemon.json (kept otherwise as it was). Reload
# dockerd afterwards (systemctl reload docker, or SIGHUP). No runtimeArgs are needed:
# sandshim picks runsc's network mode and platform itself.
# Usage: scripts/register-runtime.sh [DAEMON_JSON]
set -euo pipefail
cd "$(dirname "$0")/.."
conf=${1:-/etc/docker/daemon.json}
[ -x build/sandshim ] || bash scripts/build.sh
install -m 0755 build/sandshim /usr/local/bin/sandshim
mkdir -p "$(dirname "$conf")"
[ -s "$conf" ] || echo '{}' >"$conf"
tmp=$(mktemp)
jq '.runtimes.sandshim = {"path": "/usr/local/bin/sandshim"}' "$conf" >"$tmp" && mv "$tmp" "$conf"
echo "registered runtime sandshim in $conf; reload dockerd, then: docker run --runtime=sandshim IMAGE CMD"
