#!/usr/bin/env bash
# #35: the README's session lines (between the readme-check markers) work as written, in
# order, from the repository's root, with sandshim in PATH: each line's exit status is 0, or
# the number its comment starts with ("# 124, ..."). The lines use fixed names (conv42,
# /srv/ws/conv42): the suite skips rather than touch a session or workspace someone has.
set -u
. "$(dirname "$0")/lib/common.sh"
require_root
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BINDIR=$(mktemp -d /tmp/sandshim-readme.XXXXXX)
ln -s "$SANDSHIM_BIN" "$BINDIR/sandshim"
install_traps
on_exit 'rm -rf "$BINDIR"'
"$SANDSHIM_BIN" session inspect conv42 >/dev/null 2>&1 && skip_all "a session conv42 exists"
[ -e /srv/ws/conv42 ] && skip_all "/srv/ws/conv42 exists"
on_exit '"$SANDSHIM_BIN" session delete --force conv42 >/dev/null 2>&1; rm -rf /srv/ws/conv42'

check_readme_lines() {
  local lines line expect rc n=0
  lines=$(sed -n '/<!-- readme-check: begin -->/,/<!-- readme-check: end -->/p' "$REPO/README.md" | sed -n 's/^    //p')
  [ -n "$lines" ] || { fail "no lines between the markers"; return; }
  while IFS= read -r line; do
    n=$((n + 1))
    expect=$(printf '%s' "$line" | sed -n 's/.*#  *\([0-9][0-9]*\)[ ,].*/\1/p')
    rc=0
    (cd "$REPO" && PATH=$BINDIR:$PATH bash -c "$line") >/dev/null 2>"$BINDIR/err" </dev/null || rc=$?
    [ "$rc" = "${expect:-0}" ] || { fail "line $n: exit $rc (expected ${expect:-0}): $line: $(tail -1 "$BINDIR/err")"; return; }
  done <<<"$lines"
  [ "$n" -ge 5 ] || fail "only $n lines"
}

run_check "README session lines, as written, in order" check_readme_lines
finish_checks
