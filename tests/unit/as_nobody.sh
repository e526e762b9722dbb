#!/usr/bin/env bash
# ctest's unit_unprivileged: the whole unit binary again as nobody (65534, no groups), so a
# unit test that starts to need root fails here instead of passing only because CI is root.
# Cases that inherently need root say "(root only)" and return early for another user.
# Skips (77) with a reason when not run as root, or when nobody cannot reach the binary or
# the fake runsc (a checkout under a 0700 home).
set -euo pipefail
bin=$1 src=$2
[ "$(id -u)" -eq 0 ] || { echo "unit_unprivileged: skipped: needs root to switch to nobody"; exit 77; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
if ! as_nobody test -x "$bin" -a -x "$src/tests/fakes/fake-runsc.sh"; then
  echo "unit_unprivileged: skipped: nobody cannot execute $bin or $src/tests/fakes/fake-runsc.sh"
  exit 77
fi
cd /tmp  # ctest's working directory (build/) may not be nobody's to use
as_nobody "$bin"
