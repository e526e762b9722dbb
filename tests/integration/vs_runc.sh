#!/usr/bin/env bash
# The native backend must pass at least every real-client check that runc passes on the
# same machine in the same run. This runs one client suite twice, first with the host's
# runc and then with sandshim (SANDSHIM_ARGS, default "--backend native"), streams both
# outputs, and ends with a side-by-side table.
#
#   tests/integration/vs_runc.sh docker|ctr|podman|oci
#
# VS_RUNC_SKIP_OK=1: a sandshim skip (a backend's documented limit, named in the check) is
# shown but not counted as worse (the oci suites on gVisor).
# Exit: 1 if sandshim failed any check (a check runc also fails is marked, not excused:
# our suites expect sandshim to pass everything); 0 otherwise; 77 if sandshim's run was
# skipped. runc's own failures are reported but do not fail the run: it is the reference.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 docker|ctr|podman|oci" >&2; exit 2; }
client=$1
case $client in docker | ctr | podman | oci) ;; *) echo "vs_runc: unknown client '$client'" >&2; exit 2 ;; esac
export SANDSHIM_ARGS=${SANDSHIM_ARGS:---backend native}

tmp=$(mktemp -d /tmp/sandshim-vsrunc.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

run_one() { # LABEL RUNTIME
  echo "# ---- $client checks with $1"
  local t0=$SECONDS rc=0
  CHECK_RESULTS_FILE=$tmp/$1.tsv bash "$HERE/${client}_test.sh" "$2" || rc=$?
  echo "# ---- $1: exit $rc in $((SECONDS - t0))s"
  return $rc
}

touch "$tmp/runc.tsv" "$tmp/sandshim.tsv"
run_one runc runc
runc_rc=$?
run_one sandshim sandshim
sandshim_rc=$?

verdict() { awk -F'\t' -v n="$2" '$2 == n { v = $1 } END { print (v == "" ? "-" : v) }' "$tmp/$1.tsv"; }

# Table in the order the checks ran (runc's list first, then any sandshim-only checks).
echo "# check | runc | sandshim ($SANDSHIM_ARGS)"
worse=0
while IFS= read -r name; do
  r=$(verdict runc "$name")
  s=$(verdict sandshim "$name")
  mark=""
  if [ "$r" = pass ] && [ "$s" = skip ] && [ -n "${VS_RUNC_SKIP_OK:-}" ]; then
    mark="  (a gap the check names and its skip reason explains; docs/OCI.md)"
  elif [ "$r" = pass ] && [ "$s" != pass ]; then
    mark="  <-- runc passes, sandshim does not"; worse=$((worse + 1))
  fi
  echo "# $name | $r | $s$mark"
done < <(cut -f2 "$tmp/runc.tsv" "$tmp/sandshim.tsv" | awk '!seen[$0]++')

summary() { awk -F'\t' '{ n[$1]++ } END { printf "%d passed, %d failed", n["pass"], n["fail"] }' "$tmp/$1.tsv"; }
echo "# runc: $(summary runc) (exit $runc_rc); sandshim: $(summary sandshim) (exit $sandshim_rc)"
echo "# checks runc passes and sandshim does not: $worse"
[ "$sandshim_rc" -eq 77 ] && exit 77
[ "$worse" -eq 0 ] && [ "$sandshim_rc" -eq 0 ] && exit 0
exit 1
