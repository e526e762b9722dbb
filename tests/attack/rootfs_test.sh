#!/usr/bin/env bash
# Hostile images and archives, and an unprivileged local user, against the rootfs cache
# (security review 2026-11: H3, H4, H5, M10, M13). Every check first shows the attack
# working without sandshim's defence (plain tar, a path read, a python copy of the old chmod),
# then that sandshim stops it. The local user is a fresh uid with no groups (setpriv).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../integration/lib/image.sh
. "$HERE/../integration/lib/image.sh"
require_root
require_cmds jq tar python3 setpriv setcap getcap zstd
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"

WORK=$(mktemp -d /tmp/sandshim-attack-rootfs.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
# A path none of whose directories exist: sandshim creates all of them (and must close them).
CACHE=$WORK/var/lib/sandshim/rootfs
export SANDSHIM_ROOTFS_CACHE=$CACHE
ATTACKER=$((40000 + RANDOM))
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'for s in $(S session list --json 2>/dev/null | jq -r ".[].id"); do S session delete "$s" >/dev/null 2>&1; done'
S() { "$SANDSHIM_BIN" --root "$ROOT" "$@"; }
# Through sh: setpriv's own exec of a path below a 0700 dir succeeded here where the user's own exec fails.
as_user() { setpriv --reuid="$ATTACKER" --regid="$ATTACKER" --clear-groups sh -c 'exec "$@"' sh "$@"; }
LEAKS=("$CHECK_LEAKS" --match "$WORK" --root "$ROOT")
no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks
mode() { stat -c %a "$1"; }
no_tmp_left() { # the cache holds no build remains
  assert_eq "" "$(find "$CACHE" -maxdepth 1 -name '.tmp-*' 2>/dev/null)" "no temp build dirs left"
}

# H3: setuid-root `id`, a file-cap copy, a 0666 char node (c 1 3: harmless if it leaked), /tmp 1777.
check_privileged_bits() {
  local src=$WORK/h3 ctl=$WORK/h3-ctl p out
  mkdir -p "$src/tmp" "$ctl" && chmod 1777 "$src/tmp" && chmod 755 "$ctl"
  cp /usr/bin/id "$src/id" && chmod 4755 "$src/id"
  cp /usr/bin/id "$src/capid" && setcap cap_setuid+ep "$src/capid" || return $(fail "setcap")
  mknod -m 666 "$src/node" c 1 3
  tar --numeric-owner --owner=0 --group=0 --xattrs --xattrs-include='security.capability' \
    -C "$src" -cf "$WORK/h3.tar" . || return $(fail "tar")
  # Positive control: the same archive unpacked by plain tar into a 0755 dir is host root.
  tar --xattrs --xattrs-include='*' -xpf "$WORK/h3.tar" -C "$ctl" || return $(fail "tar -x")
  assert_eq 0 "$(as_user "$ctl/id" -u)" "control: the user runs the setuid copy as euid 0" || return
  assert_contains "$(getcap "$ctl/capid")" "cap_setuid" "control: file caps kept by plain tar" || return
  [ -c "$ctl/node" ] && as_user sh -c "echo x > $ctl/node" || return $(fail "control: device node usable")
  # sandshim: a fresh cache nobody else can enter, and nothing privileged in the entry.
  p=$(S rootfs build "tar:$WORK/h3.tar" 2>"$WORK/err") || return $(fail "build: $(tail -n 2 "$WORK/err")")
  local d
  for d in "$WORK/var" "$WORK/var/lib" "$WORK/var/lib/sandshim" "$CACHE" "$(dirname "$p")"; do
    assert_eq 700 "$(mode "$d")" "$d made 0700" || return
  done
  out=$(as_user ls "$CACHE" 2>&1) && return $(fail "the user listed the cache: $out")
  out=$(as_user "$p/id" -u 2>&1) && return $(fail "the user ran the cached id: $out")
  assert_eq 0 "$(as_user find "$CACHE" -type f 2>/dev/null | wc -l)" "find as the user reads nothing" || return
  assert_eq 755 "$(mode "$p/id")" "setuid bit stripped" || return
  assert_eq "" "$(getcap "$p/capid")" "file caps stripped" || return
  [ -e "$p/node" ] && return $(fail "device node kept")
  assert_eq 1777 "$(mode "$p/tmp")" "/tmp keeps 1777 (harmless behind 0700)" || return
  # Trusted source, asked for explicitly: kept, under another key, recorded.
  out=$(S rootfs build --keep-privileged --json "tar:$WORK/h3.tar") || return $(fail "--keep-privileged build")
  assert_eq true "$(jq -r .keep_privileged <<<"$out")" "--keep-privileged recorded" || return
  assert_eq 4755 "$(mode "$(jq -r .path <<<"$out")/id")" "--keep-privileged keeps setuid" || return
  assert_ne "$(dirname "$p")" "$(dirname "$(jq -r .path <<<"$out")")" "--keep-privileged is another key" || return
  no_tmp_left
}

# The backends still start from a 0700 cache: root runs their setup.
check_sessions_start() {
  local ws=$WORK/ws be id out backends=native
  command -v runsc >/dev/null && backends="gvisor native"
  mkdir -p "$ws" && chmod 777 "$ws"
  for be in $backends; do
    id=$(uniq_name att)
    S --backend "$be" session create "$id" --image busybox --workspace "$ws" >/dev/null 2>"$WORK/err" ||
      return $(fail "$be: create: $(tail -n 2 "$WORK/err")")
    out=$(S session exec "$id" -- /bin/sh -c 'echo ok-$(id -u)' 2>&1)
    S session delete "$id" >/dev/null 2>&1
    assert_eq ok-1000 "$out" "$be session from the 0700 cache" || return
  done
  assert_eq 700 "$(mode "$CACHE")" "cache still 0700"
}

# H4: evil.tar = legit index.json first, then the attacker's layout and index.json.
check_two_index() {
  local l=$WORK/h4l e=$WORK/h4e out p
  build_rootfs "$l/root" >/dev/null 2>&1 && build_rootfs "$e/root" >/dev/null 2>&1 || return $(fail "build_rootfs")
  echo LEGIT-IMAGE >"$l/root/IMAGE" && echo ATTACKER-IMAGE >"$e/root/IMAGE"
  build_oci_archive "$l/root" "$WORK/legit.tar" && build_oci_archive "$e/root" "$WORK/e.tar" || return $(fail "oci archives")
  mkdir -p "$l/x" "$e/x" && tar -C "$l/x" -xf "$WORK/legit.tar" && tar -C "$e/x" -xf "$WORK/e.tar"
  (cd "$l/x" && tar -cf "$WORK/evil.tar" index.json) && (cd "$e/x" && tar -rf "$WORK/evil.tar" oci-layout blobs index.json)
  # Positive control: the first index.json (the old key's) is the legit one, plain tar keeps the attacker's.
  assert_eq "$(jq -r '.manifests[0].digest' "$l/x/index.json")" \
    "$(tar -xOf "$WORK/evil.tar" index.json | jq -rs '.[0].manifests[0].digest')" "control: first index.json is legit" || return
  mkdir -p "$WORK/h4plain" && tar -C "$WORK/h4plain" -xf "$WORK/evil.tar"
  assert_eq "$(jq -r '.manifests[0].digest' "$e/x/index.json")" "$(jq -r '.manifests[0].digest' "$WORK/h4plain/index.json")" \
    "control: the extracted index.json is the attacker's" || return
  # sandshim: the evil archive is refused; the legit one builds its own, legit tree.
  out=$(S rootfs build --json "oci-archive:$WORK/evil.tar" 2>&1) && return $(fail "evil archive accepted: $out")
  assert_contains "$out" "twice" "evil archive refused for its second index.json" || return
  out=$(S rootfs build --json "oci-archive:$WORK/legit.tar") || return $(fail "legit build")
  assert_eq false "$(jq -r .reused <<<"$out")" "legit build is not a reuse" || return
  p=$(jq -r .path <<<"$out")
  assert_eq LEGIT-IMAGE "$(cat "$p/IMAGE")" "legit tree" || return
  no_tmp_left
}

# H5: the old RemoveTreeAt chmod'ed by name, following a symlink swapped in for a 0077 dir.
check_rm_never_chmods_through_links() {
  local target=$WORK/h5-target out key p
  echo secret >"$target" && chmod 600 "$target"
  # Positive control: what the old code did after its stat said "directory, mode 0077".
  mkdir -p "$WORK/h5ctl" && ln -s "$target" "$WORK/h5ctl/d1"
  python3 -c 'import os, sys; os.chmod(sys.argv[1], 0o077 | 0o700)' "$WORK/h5ctl/d1"
  assert_eq 777 "$(mode "$target")" "control: the old chmod changed the outside file" || return
  chmod 600 "$target"
  # sandshim: an entry whose tree has 0077 dirs and links named like them; rm and gc leave the target alone.
  printf x >"$WORK/h5.txt" && tar -C "$WORK" -cf "$WORK/h5.tar" h5.txt
  out=$(S rootfs build --json "tar:$WORK/h5.tar") || return $(fail "build")
  key=$(jq -r .key <<<"$out") && p=$(jq -r .path <<<"$out")
  mkdir -p "$p/tmp/a" && local i
  for i in $(seq 200); do mkdir -m 0077 "$p/tmp/a/d$i"; ln -s "$target" "$p/tmp/a/l$i"; done
  # A swapper exchanging dN and lN while rm walks (what the user would run), for good measure.
  python3 - "$p/tmp/a" <<'PY' &
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
d = sys.argv[1]; end = time.time() + 10
while time.time() < end and os.path.isdir(d):
    for i in range(1, 201):
        libc.renameat2(-100, f"{d}/d{i}".encode(), -100, f"{d}/l{i}".encode(), 2)
PY
  local swapper=$!
  S rootfs rm "$key" >/dev/null 2>"$WORK/err" || { kill "$swapper" 2>/dev/null; wait "$swapper"; return $(fail "rm: $(cat "$WORK/err")"); }
  kill "$swapper" 2>/dev/null; wait "$swapper" 2>/dev/null
  [ -e "$p" ] && return $(fail "entry still there")
  assert_eq 600 "$(mode "$target")" "outside file's mode unchanged" || return
  assert_eq secret "$(cat "$target")" "outside file intact" || return
  no_tmp_left
}

# M10: a layout whose blob is a symlink to a root-only file, or to /dev/zero.
make_link_layout() { # TARGET OUT
  local x=$WORK/m10x d
  rm -rf "$x" && mkdir -p "$x/blobs/sha256"
  d=$(printf x | sha256sum | cut -c1-64)
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":1}]}' \
    "$d" >"$x/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$x/oci-layout"
  ln -s "$1" "$x/blobs/sha256/$d"
  tar -C "$x" -cf "$2" .
}

check_layout_links() {
  local secret=$WORK/m10-secret size sum rc t0 out
  head -c 1234 /dev/urandom >"$secret" && chmod 600 "$secret"
  size=$(stat -c %s "$secret") && sum=$(sha256sum "$secret" | cut -c1-64)
  make_link_layout "$secret" "$WORK/m10a.tar"
  make_link_layout /dev/zero "$WORK/m10b.tar"
  # Positive control: unpacked by plain tar, reading the blob by path reads the secret / /dev/zero.
  mkdir -p "$WORK/m10ctl" && tar -C "$WORK/m10ctl" -xf "$WORK/m10a.tar"
  assert_eq "$sum" "$(sha256sum "$WORK"/m10ctl/blobs/sha256/* | cut -c1-64)" "control: the blob path reads the secret" || return
  rm -rf "$WORK/m10ctl" && mkdir -p "$WORK/m10ctl" && tar -C "$WORK/m10ctl" -xf "$WORK/m10b.tar"
  rc=0; timeout 2 cat "$WORK"/m10ctl/blobs/sha256/* >/dev/null || rc=$?
  assert_eq 124 "$rc" "control: the /dev/zero blob reads forever" || return
  # sandshim: refused, without the secret's size or hash.
  out=$(S rootfs build "oci-archive:$WORK/m10a.tar" 2>&1) && return $(fail "accepted: $out")
  assert_contains "$out" "refused entry" "secret link refused" || return
  assert_not_contains "$out" "$size" "no size of the secret" || return
  assert_not_contains "$out" "$sum" "no hash of the secret" || return
  t0=$(now_ms); rc=0
  timeout 20 "$SANDSHIM_BIN" --root "$ROOT" rootfs build "oci-archive:$WORK/m10b.tar" >/dev/null 2>&1 || rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || return $(fail "/dev/zero blob: rc=$rc (124: hung)")
  log "/dev/zero blob refused in $(($(now_ms) - t0)) ms"
  no_tmp_left
}

# M13: a zstd bomb (1 GiB of zeros in a few KB) under a small budget; a 100 GiB sparse file
# under the default one (apparent size counts).
check_bombs() {
  local out before
  (cd "$WORK" && truncate -s 1G zeros && tar -cf - zeros | zstd -q -3 >"$WORK/bomb.tar.zst"; rm -f zeros)
  (cd "$WORK" && truncate -s 100G sparse && tar -S -cf "$WORK/sparse.tar" sparse; rm -f sparse)
  # Positive control: tiny archives that would write 1 GiB and 100 GiB.
  assert_eq 1 "$(($(stat -c %s "$WORK/bomb.tar.zst") < 1048576))" "control: bomb under 1 MiB" || return
  assert_contains "$(zstd -dc "$WORK/bomb.tar.zst" | tar -tvf -)" "1073741824" "control: bomb holds 1 GiB" || return
  assert_contains "$(tar -tvf "$WORK/sparse.tar")" "107374182400" "control: sparse file of 100 GiB" || return
  before=$(S rootfs list --json | jq length)
  out=$(SANDSHIM_ROOTFS_MAX_BYTES=64m S rootfs build "tar:$WORK/bomb.tar.zst" 2>&1) && return $(fail "bomb accepted")
  assert_contains "$out" "SANDSHIM_ROOTFS_MAX_BYTES" "bomb stopped by the byte budget" || return
  out=$(S rootfs build "tar:$WORK/sparse.tar" 2>&1) && return $(fail "sparse bomb accepted")
  assert_contains "$out" "limit" "sparse bomb stopped by the default budget" || return
  mkdir -p "$WORK/many" && touch "$WORK"/many/f{1..10} && tar -C "$WORK/many" -cf "$WORK/many.tar" .
  out=$(SANDSHIM_ROOTFS_MAX_ENTRIES=5 S rootfs build "tar:$WORK/many.tar" 2>&1) && return $(fail "entry budget ignored")
  assert_contains "$out" "SANDSHIM_ROOTFS_MAX_ENTRIES" "entry budget" || return
  assert_eq "$before" "$(S rootfs list --json | jq length)" "nothing added to the cache" || return
  no_tmp_left  # builds write only below the cache: nothing else to look for
}

run_check "H3: no setuid, caps or devices in a 0700 cache the user cannot enter" check_privileged_bits
run_check "H3: gVisor and native sessions start from the 0700 cache" check_sessions_start
run_check "H4: two index.json cannot poison the legit image's key" check_two_index
run_check "H5: rootfs rm never chmods through a symlink" check_rm_never_chmods_through_links
run_check "M10: layout blobs that are links: no oracle, no hang" check_layout_links
run_check "M13: zstd and sparse bombs stop on the budget, nothing left" check_bombs
finish_checks
