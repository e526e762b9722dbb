#!/usr/bin/env bash
# Debian 13's runsc (the trixie build, 0.0~20240729.0-4+b7) for the test matrix, unpacked to
# /var/cache/sandshim-test/runsc-trixie/usr/bin/runsc. Never installed system-wide: the
# system's runsc (Debian 12's 0.0~20221219) stays what it is. The suites' _2024 entries name
# the unpacked binary through SANDSHIM_TEST_RUNSC (tests/integration/lib/common.sh).
#
# Fetched from Debian's archive through an apt list of the project's own (sources list, lists
# and cache under the same directory; the archive keyring the system has), by exact version:
# sid's rebuild of the same source (-7+b1, Go 1.26) panics in the Sentry intermittently, the
# trixie build (Go 1.24) does not (docs/RUNSC.md). Idempotent: a second run does nothing.
set -euo pipefail

VERSION='0.0~20240729.0-4+b7'
BASE=${SANDSHIM_TEST_CACHE:-/var/cache/sandshim-test}  # overridable to test this script
APT="$BASE/apt-trixie"
DEST="$BASE/runsc-trixie"
STAMP="$DEST/.version"

if [ -x "$DEST/usr/bin/runsc" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$VERSION" ]; then
  echo "fetch-runsc-trixie: $VERSION already at $DEST"
  exit 0
fi
deb="$APT/runsc_${VERSION}_amd64.deb"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "fetch-runsc-trixie: $keyring missing (apt-get install debian-archive-keyring)" >&2; exit 1; }
mkdir -p "$APT/lists/partial" "$APT/cache" "$APT/archives/partial"
echo "deb [signed-by=$keyring] http://deb.debian.org/debian trixie main" >"$APT/sources.list"
opts=(-o Dir::Etc::sourcelist="$APT/sources.list" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$APT/lists"
  -o Dir::Cache="$APT/cache" -o APT::Get::List-Cleanup=0)
if [ ! -s "$deb" ]; then
  apt-get "${opts[@]}" update -qq
  (cd "$APT" && apt-get "${opts[@]}" download "runsc=$VERSION" -qq)
fi
got=$(dpkg-deb -f "$deb" Version)
[ "$got" = "$VERSION" ] || { echo "fetch-runsc-trixie: $deb is $got, not $VERSION" >&2; exit 1; }
rm -rf "$DEST.new"
mkdir -p "$DEST.new"
dpkg-deb -x "$deb" "$DEST.new"
echo "$VERSION" >"$DEST.new/.version"
rm -rf "$DEST"
mv "$DEST.new" "$DEST"
"$DEST/usr/bin/runsc" --version | head -1
echo "fetch-runsc-trixie: unpacked to $DEST"
