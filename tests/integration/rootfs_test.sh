#!/usr/bin/env bash
# The rootfs builder end to end: each source kind builds a cached rootfs, a session on each
# backend runs a command in it, a second build reuses the cache, concurrent builds do the
# work once, a hostile tarball is refused without touching the host, and `rootfs gc` keeps
# what a live session uses.
#   ROOTFS_BACKENDS="gvisor native" (default: both)   which backends run the sessions
#   ROOTFS_DEBOOTSTRAP=0   skip debootstrap:bookworm (~40 s here with a near mirror; needs apt's)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/daemons.sh
. "$HERE/lib/daemons.sh"
# shellcheck source=lib/image.sh
. "$HERE/lib/image.sh"
require_root
require_cmds jq tar python3
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"

WORK=$(mktemp -d /tmp/sandshim-rootfs.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
CACHE=$WORK/cache
export SANDSHIM_ROOTFS_CACHE=$CACHE
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'for s in $(S session list --json 2>/dev/null | jq -r ".[].id"); do S session delete "$s" >/dev/null 2>&1; done'
S() { "$SANDSHIM_BIN" --root "$ROOT" "$@"; }
LEAKS=("$CHECK_LEAKS" --match "$WORK" --root "$ROOT")
no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks

BACKENDS=${ROOTFS_BACKENDS:-gvisor native}
command -v runsc >/dev/null || BACKENDS=${BACKENDS//gvisor/}
declare -A BUILT  # source -> rootfs path

build() { # SOURCE [EXTRA...]: builds, records the path, checks the JSON
  local out
  out=$(S rootfs build "$@" --json 2>"$WORK/err") || { REASON="build $1: $(tail -n 3 "$WORK/err")"; return 1; }
  [ -s "$WORK/err" ] && { REASON="--json build wrote to stderr: $(head -c 200 "$WORK/err")"; return 1; }
  BUILT[$1]=$(jq -r .path <<<"$out")
  LAST_JSON=$out
  [ -x "${BUILT[$1]}/bin/sh" ] || [ -L "${BUILT[$1]}/bin/sh" ] || { REASON="no /bin/sh in ${BUILT[$1]}"; return 1; }
}

# A session on each backend runs a command in the rootfs, then goes away. The session names
# its base by source (`--image`): it must reuse the entry just built, not build again.
sessions_run() { # SOURCE
  local path=${BUILT[$1]} be id ws=$WORK/ws out before
  mkdir -p "$ws" && chmod 777 "$ws"
  before=$(S rootfs list --json | jq length)
  for be in $BACKENDS; do
    id=$(uniq_name rfs)
    DOCKER_HOST=unix://${DOCKER_SOCK:-/nonexistent} S --backend "$be" session create "$id" --image "$1" \
      --workspace "$ws" >/dev/null 2>"$WORK/err" || return $(fail "$1 on $be: create: $(tail -n 2 "$WORK/err")")
    assert_eq "$path" "$(S session inspect --json "$id" | jq -r .rootfs)" "$1: --image reuses the built rootfs" ||
      { S session delete "$id" >/dev/null 2>&1; return 1; }
    out=$(S session exec "$id" -- /bin/sh -c 'echo ok-$(id -u)' 2>&1)
    S session delete "$id" >/dev/null 2>&1
    assert_eq "ok-1000" "$out" "$1: command in a $be session" || return
    log "$1: session on $be ran a command"
  done
  assert_eq "$before" "$(S rootfs list --json | jq length)" "$1: sessions built nothing new"
}

check_source() { # SOURCE [EXTRA...]
  local t0 t1 t2 first second
  t0=$(now_ms)
  build "$@" || return 1
  t1=$(now_ms)
  first=$LAST_JSON
  assert_eq false "$(jq -r .reused <<<"$first")" "$1: first build is a build" || return
  build "$@" || return 1
  t2=$(now_ms)
  second=$LAST_JSON
  assert_eq true "$(jq -r .reused <<<"$second")" "$1: second build reuses" || return
  assert_eq "$(jq -r .key <<<"$first")" "$(jq -r .key <<<"$second")" "$1: same key" || return
  log "$1: first build $((t1 - t0)) ms, reused $((t2 - t1)) ms"
  # Small images build in about the time a process starts; a real build must dwarf reuse.
  if [ $((t1 - t0)) -gt 5000 ] && [ $(((t2 - t1) * 10)) -gt $((t1 - t0)) ]; then
    return $(fail "$1: reuse took $((t2 - t1)) ms after a $((t1 - t0)) ms build")
  fi
  echo "$1 first_ms=$((t1 - t0)) reused_ms=$((t2 - t1))" >>"${ROOTFS_TIMES:-/dev/null}"
  sessions_run "$1"
}

check_busybox() { check_source busybox; }

check_tar() {
  [ -n "${BUILT[busybox]:-}" ] || build busybox || return 1
  tar -C "${BUILT[busybox]}" --numeric-owner -czf "$WORK/root.tar.gz" . || return $(fail "tar")
  check_source "tar:$WORK/root.tar.gz"
}

check_oci_archive() {
  build_rootfs "$WORK/src" >/dev/null 2>&1 || return $(fail "build_rootfs")
  build_oci_archive "$WORK/src" "$WORK/img.tar" || return $(fail "build_oci_archive")
  check_source "oci-archive:$WORK/img.tar" || return
  assert_eq '["/bin/sh"]' "$(jq -c .config.cmd <<<"$LAST_JSON")" "image Cmd kept"
}

DOCKER_READY=""
start_docker() {
  [ -n "$DOCKER_READY" ] && return 0
  command -v skopeo >/dev/null || return $(skip "no skopeo")
  # Outside WORK: the daemons are not leftovers of the checks the leak hook scopes to WORK.
  DDIR=$(mktemp -d /tmp/sandshim-rootfs-d.XXXXXX)
  on_exit 'stop_daemons "$DDIR"'
  start_daemons "$DDIR" >/dev/null 2>&1 || return $(skip "private dockerd did not start")
  [ -d "$WORK/src" ] || build_rootfs "$WORK/src" >/dev/null 2>&1
  import_docker_image "$WORK/src" || return $(fail "docker import")
  DOCKER_READY=1
}

check_docker() {
  start_docker || return
  check_source "docker:$TEST_IMAGE" --docker-host "unix://$DOCKER_SOCK" || return
  assert_eq '"PATH=/usr/sbin:/usr/bin:/sbin:/bin"' "$(jq -c '.config.env[0]' <<<"$LAST_JSON")" "image Env kept"
}

check_oci() {
  start_docker || return
  timeout 120 skopeo copy -q --src-daemon-host "unix://$DOCKER_SOCK" "docker-daemon:$TEST_IMAGE" \
    "oci:$WORK/oci:latest" >/dev/null 2>"$WORK/err" || return $(fail "skopeo copy: $(tail -n 2 "$WORK/err")")
  check_source "oci:$WORK/oci:latest"
}

check_debootstrap() {
  [ "${ROOTFS_DEBOOTSTRAP:-1}" = 1 ] || return $(skip "ROOTFS_DEBOOTSTRAP=0")
  command -v debootstrap >/dev/null || return $(skip "no debootstrap")
  check_source debootstrap:bookworm
}

# Every escape kind in one tarball each: refused, no entry, no temp dir, canary unchanged.
check_malicious() {
  local canary=$WORK/canary kind rc
  echo original >"$canary"
  for kind in dotdot absolute symlink-then-write symlink-up hardlink-out; do
    python3 - "$WORK/evil-$kind.tar" "$kind" "$canary" <<'PY' || return $(fail "python tar $kind")
import io, sys, tarfile
out, kind, canary = sys.argv[1:]
with tarfile.open(out, "w") as t:
    def add(name, data=b"pwned", **kw):
        i = tarfile.TarInfo(name)
        for k, v in kw.items(): setattr(i, k, v)
        if i.type == tarfile.REGTYPE: i.size = len(data)
        t.addfile(i, io.BytesIO(data) if i.type == tarfile.REGTYPE else None)
    add("bin/", type=tarfile.DIRTYPE, mode=0o755)
    if kind == "dotdot": add("../../../../../../.." + canary)
    if kind == "absolute": add(canary)
    if kind == "symlink-then-write":
        add("esc", type=tarfile.SYMTYPE, linkname=canary.rsplit("/", 1)[0])
        add("esc/canary")
    if kind == "symlink-up": add("up", type=tarfile.SYMTYPE, linkname="../../../../../..")
    if kind == "hardlink-out": add("h", type=tarfile.LNKTYPE, linkname=canary)
PY
    rc=0
    S rootfs build "tar:$WORK/evil-$kind.tar" 2>"$WORK/err" >/dev/null || rc=$?
    [ "$rc" -ne 0 ] || return $(fail "$kind: accepted")
    assert_contains "$(cat "$WORK/err")" "refused entry" "$kind: refusal names the entry" || return
    assert_eq original "$(cat "$canary")" "$kind: canary unchanged" || return
    assert_eq 1 "$(stat -c %h "$canary")" "$kind: canary not linked" || return
  done
  assert_eq "" "$(ls -A "$CACHE" | grep -v '^\.locks$' | grep -E '^\.tmp-' || true)" "no temp dirs left" || return
}

check_concurrent() {
  printf 'x' >"$WORK/c.txt"
  tar -C "$WORK" -cf "$WORK/conc.tar" c.txt
  local i pids=()
  for i in 1 2 3 4; do
    S rootfs build "tar:$WORK/conc.tar" --json >"$WORK/out-conc.$i" 2>&1 &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || return $(fail "a concurrent build failed")
  done
  assert_eq 1 "$(cat "$WORK"/out-conc.* | jq -r 'select(.reused == false) | .key' | wc -l)" "built once" || return
  assert_eq 1 "$(cat "$WORK"/out-conc.* | jq -r .key | sort -u | wc -l)" "one key" || return
}

check_gc() {
  [ -n "${BUILT[busybox]:-}" ] || build busybox || return 1
  local id ws=$WORK/ws out keep
  mkdir -p "$ws" && chmod 777 "$ws"
  keep=$(S rootfs list --json | jq -r --arg p "${BUILT[busybox]}" '.[] | select(.path == $p) | .key')
  id=$(uniq_name gc)
  S --backend native session create "$id" --rootfs "${BUILT[busybox]}" --workspace "$ws" >/dev/null ||
    return $(fail "session create")
  assert_eq true "$(S rootfs list --json | jq -r --arg k "$keep" '.[] | select(.key == $k) | .in_use')" "in use" ||
    { S session delete "$id" >/dev/null; return 1; }
  S rootfs rm "$keep" >/dev/null 2>&1 && { S session delete "$id" >/dev/null; return $(fail "rm of an in-use rootfs"); }
  out=$(S rootfs gc --json) || { S session delete "$id" >/dev/null; return $(fail "gc: $out"); }
  assert_eq "[\"$keep\"]" "$(jq -c .kept <<<"$out")" "gc keeps the one in use" ||
    { S session delete "$id" >/dev/null; return 1; }
  assert_eq 1 "$(S rootfs list --json | jq length)" "gc removed the unused ones" ||
    { S session delete "$id" >/dev/null; return 1; }
  S session exec "$id" -- /bin/true || { S session delete "$id" >/dev/null; return $(fail "session broke after gc"); }
  S session delete "$id" >/dev/null || return $(fail "session delete")
  S rootfs gc >/dev/null || return $(fail "gc")
  assert_eq 0 "$(S rootfs list --json | jq length)" "unused after delete: removed"
}

run_check "busybox: build, reuse, sessions" check_busybox
run_check "tar: build, reuse, sessions" check_tar
run_check "oci-archive: build, reuse, sessions" check_oci_archive
run_check "docker (private dockerd): build, reuse, sessions" check_docker
run_check "oci (skopeo from docker): build, reuse, sessions" check_oci
run_check "debootstrap: build, reuse, sessions" check_debootstrap
run_check "hostile tarballs refused, host untouched" check_malicious
run_check "concurrent builds of one source do the work once" check_concurrent
run_check "gc keeps what a session uses" check_gc
finish_checks
