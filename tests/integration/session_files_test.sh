#!/usr/bin/env bash
# #35: session files and cp on both backends (files and trees, tar streams, the workspace and
# the writable layer), hostile paths and a hostile session's tar never reaching the host (each
# with its positive control), and a workspace made by root that just works.
# SESSION_BACKEND=gvisor|native (default: both).
set -u
. "$(dirname "$0")/lib/image.sh"
require_root
require_cmds jq python3
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"

WORK=$(mktemp -d /tmp/sandshim-files.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'for s in $("$SANDSHIM_BIN" --root "$ROOT" session list --json 2>/dev/null | jq -r ".[].id"); do "$SANDSHIM_BIN" --root "$ROOT" session delete --force "$s" >/dev/null 2>&1; done'
build_rootfs "$WORK/rootfs" >/dev/null 2>&1 || die "rootfs"
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
LEAKS=("$CHECK_LEAKS" --match "$WORK" --match "-$$-" --root "$ROOT")
no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks
# A file of the host's that no session may read: the positive controls show it is reachable
# by a naive host-side resolution of the same names.
HOST_SECRET=$WORK/host-secret
echo "host-only-$$" >"$HOST_SECRET"; chmod 644 "$HOST_SECRET"

FX_ID="" FX_BE="" FX_WS=""
fx() { "$SANDSHIM_BIN" --root "$ROOT" --backend "$FX_BE" session "$@"; }
# with_session BACKEND CHECK: a session around a workspace root made (as a new user would:
# mkdir, owner root, 0755), CHECK, then delete.
with_session() {
  local rc=0
  FX_BE=$1 FX_ID=$(uniq_name f)
  FX_WS=$WORK/ws-$FX_ID
  mkdir -p "$FX_WS"
  fx create "$FX_ID" --rootfs "$WORK/rootfs" --workspace "$FX_WS" --memory 512m >/dev/null || { fail "create"; return; }
  "$2" || rc=$?
  fx delete "$FX_ID" >/dev/null 2>&1
  return $rc
}

# The README's first session step, in a root-made workspace: the session's user (1000)
# writes it, and the file is the workspace owner's on the host.
fx_workspace_just_works() {
  assert_eq "0 755" "$(stat -c '%u %a' "$FX_WS")" "the workspace is root's (the control)" || return
  fx exec "$FX_ID" -- sh -c 'echo hi > /workspace/out.txt' || { fail "the session user cannot write a root-made workspace"; return; }
  assert_eq hi "$(cat "$FX_WS/out.txt")" "the write is on the host" || return
  assert_eq "0:0" "$(stat -c '%u:%g' "$FX_WS/out.txt")" "owned by the workspace's owner" || return
  assert_eq "1000" "$(fx exec "$FX_ID" -- stat -c %u /workspace/out.txt)" "the session sees it as its user's" || return
  assert_eq "1000" "$(fx exec "$FX_ID" -- id -u)" "the session's user is still 1000"
}

# Another owner (4242): what the session writes is 4242's on the host.
fx_workspace_other_owner() {
  local ws=$WORK/ws4242-$$ id=$(uniq_name o)
  mkdir -p "$ws" && chown 4242:4343 "$ws" && chmod 700 "$ws"
  fx create "$id" --rootfs "$WORK/rootfs" --workspace "$ws" >/dev/null || { fail "create"; return; }
  fx exec "$id" -- sh -c 'mkdir -p /workspace/d && echo x > /workspace/d/f' || { fail "write"; fx delete "$id"; return; }
  assert_eq "4242:4343 4242:4343" "$(stat -c '%u:%g' "$ws/d" "$ws/d/f" | tr '\n' ' ' | sed 's/ $//')" "owned by the workspace's owner"
  local rc=$?
  fx delete "$id" >/dev/null || { fail "delete"; return; }
  return $rc
}

fx_files_roundtrip() {
  local got
  printf 'line1\nline2\n' | fx files write "$FX_ID" notes/a.txt || { fail "files write (relative, parent made)"; return; }
  assert_eq "line1 line2" "$(tr '\n' ' ' <"$FX_WS/notes/a.txt" | sed 's/ $//')" "written into the workspace" || return
  assert_eq "line1 line2" "$(fx files read "$FX_ID" /workspace/notes/a.txt | tr '\n' ' ' | sed 's/ $//')" "read back" || return
  got=$(fx files ls --json "$FX_ID" /workspace/notes)
  assert_eq '[{"name":"a.txt","type":"file","size":12}]' "$(jq -c 'map({name, type, size})' <<<"$got")" "ls --json" || return
  # The writable layer (outside the workspace; gVisor keeps it in the Sentry's memory).
  echo layer | fx files write -u 0 "$FX_ID" /etc/sandshim-files-test || { fail "write into the layer"; return; }
  assert_eq layer "$(fx exec "$FX_ID" -- cat /etc/sandshim-files-test)" "the layer write is the session's" || return
  [ ! -e "$WORK/rootfs/etc/sandshim-files-test" ] || { fail "the base rootfs was written"; return; }
  assert_eq layer "$(fx files read "$FX_ID" /etc/sandshim-files-test)" "read from the layer" || return
  fx files rm "$FX_ID" notes/a.txt || { fail "rm"; return; }
  [ ! -e "$FX_WS/notes/a.txt" ] || { fail "rm left the file"; return; }
  local rc=0 err
  err=$(fx files read "$FX_ID" /nope 2>&1 >/dev/null) || rc=$?
  [ "$rc" -ne 0 ] || { fail "reading a missing file succeeded"; return; }
  assert_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one-line error: $err" || return
  assert_contains "$err" "No such file" "the error says why"
}

fx_cp_trees() {
  local src=$WORK/src-$FX_ID out=$WORK/out-$FX_ID
  mkdir -p "$src/deep/er" "$out"
  for i in $(seq 1 1000); do echo "$i" >"$src/deep/f$i"; done
  head -c 100000000 /dev/urandom >"$src/big"
  ln -s f1 "$src/deep/link"
  printf 'sp ace' >"$src/deep/er/-n a:me"
  fx cp "$src" "$FX_ID:/tmp/tree" || { fail "cp in (a tree to a new name)"; return; }
  assert_eq 1004 "$(fx exec "$FX_ID" -- find /tmp/tree/deep | wc -l)" "every entry in" || return
  fx cp "$FX_ID:/tmp/tree" "$out" || { fail "cp out (into an existing directory)"; return; }
  diff -r --no-dereference "$src" "$out/tree" >/dev/null || { fail "the tree came back different"; return; }
  fx cp "$src/big" "$FX_ID:/workspace/" || { fail "cp in a 100 MB file into a directory"; return; }
  cmp -s "$src/big" "$FX_WS/big" || { fail "the big file differs"; return; }
  fx cp "$FX_ID:/workspace/big" "$out/big2" || { fail "cp out a file to a new name"; return; }
  cmp -s "$src/big" "$out/big2" || { fail "the big file out differs"; return; }
  # Tar streams both ways.
  tar -C "$src" -cf - deep/er | fx cp - "$FX_ID:/workspace" || { fail "cp - ID:DIR"; return; }
  assert_eq "sp ace" "$(cat "$FX_WS/deep/er/-n a:me")" "the stream landed" || return
  assert_contains "$(fx cp "$FX_ID:/workspace/deep" - | tar -tf -)" "./deep/er/-n a:me" "cp ID:PATH - is a tar stream" || return
  assert_eq "" "$(find "$out" "$WORK" -maxdepth 1 -name '.sandshim-cp.*')" "no temporary directory left"
}

# Names that would reach the host if resolved on the host: .., absolute, a symlink pointing out.
fx_hostile_paths() {
  ln -s "$HOST_SECRET" "$FX_WS/link-out"
  ln -s ../../../../../../../.. "$FX_WS/up"
  # Positive controls: resolved on the host, each name reaches the host's file.
  assert_eq "host-only-$$" "$(cat "$FX_WS/link-out")" "control: the link reaches the host file on the host" || return
  assert_eq "host-only-$$" "$(cat "$FX_WS/up$HOST_SECRET")" "control: .. reaches it on the host" || return
  local name out
  for name in /workspace/link-out "/workspace/up$HOST_SECRET" "../../../../..$HOST_SECRET" "$HOST_SECRET"; do
    out=$(fx files read "$FX_ID" "$name" 2>&1)
    assert_not_contains "$out" "host-only-$$" "files read $name" || return
    out=$(fx cp "$FX_ID:$name" - 2>/dev/null | tar -xOf - 2>/dev/null)
    assert_not_contains "$out" "host-only-$$" "cp $name -" || return
  done
  # Writes through the same names land in the session, never on the host.
  echo pwned | fx files write -u 0 "$FX_ID" "/workspace/up$HOST_SECRET" 2>/dev/null
  echo pwned | fx files write "$FX_ID" /workspace/link-out 2>/dev/null
  assert_eq "host-only-$$" "$(cat "$HOST_SECRET")" "the host file is untouched" || return
  # cp out of the link gives the link, not what it names on the host.
  fx cp "$FX_ID:/workspace/link-out" "$WORK/got-$FX_ID" || { fail "cp out a link"; return; }
  [ -L "$WORK/got-$FX_ID" ] || { fail "the link was followed"; return; }
  rm -f "$WORK/got-$FX_ID"
  # Modes the tenant chose: inside, a world-writable set-ID directory and a set-user-ID file
  # (the control: ls inside shows them); out on the host, masked to 0775.
  fx exec "$FX_ID" -- sh -c 'mkdir -p /tmp/m/d && chmod 6777 /tmp/m/d && echo x >/tmp/m/f && chmod 4777 /tmp/m/f' ||
    { fail "chmod inside"; return; }
  assert_contains "$(fx exec "$FX_ID" -- ls -ld /tmp/m/d)" "drwsrwsrwx" "control: the directory's mode inside" || return
  fx cp "$FX_ID:/tmp/m" "$WORK/modes-$FX_ID" || { fail "cp out the modes"; return; }
  local dmode fmode
  dmode=$(stat -c %a "$WORK/modes-$FX_ID/d"); fmode=$(stat -c %a "$WORK/modes-$FX_ID/f")
  rm -rf "$WORK/modes-$FX_ID"
  assert_eq 775 "$dmode" "a copied-out directory's mode" && assert_eq 775 "$fmode" "a copied-out file's mode"
}

# A session can replace its own tar: what comes out is unpacked beneath the destination only.
fx_hostile_session_tar() {
  local dest=$WORK/dest-$FX_ID
  mkdir -p "$dest"
  python3 - "$WORK/evil-$FX_ID.tar" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w") as t:
    for name in ("./x/ok", "./x/../../escaped-$$".replace("$$", "E")):
        data = b"evil\n"; i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))
PY
  fx files write -u 0 "$FX_ID" /tmp/evil.tar <"$WORK/evil-$FX_ID.tar" || { fail "stage the archive"; return; }
  echo x | fx files write "$FX_ID" /workspace/x/ok || { fail "the path to copy"; return; }
  # busybox's sh runs its own tar whatever PATH says: the session replaces /bin/sh itself.
  fx exec -u 0 "$FX_ID" -- /bin/busybox sh -c 'rm /bin/sh && printf "#!/bin/busybox sh\ncat /tmp/evil.tar\n" > /bin/sh && chmod 755 /bin/sh' ||
    { fail "replace the session's sh"; return; }
  # Positive control: the hostile entry does reach the host's side of the stream.
  assert_contains "$(fx cp "$FX_ID:/workspace/x" - | tar -tf -)" "../../escaped-E" "control: the stream carries ../" || return
  local rc=0 err
  err=$(fx cp "$FX_ID:/workspace/x" "$dest" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || { fail "a hostile archive was accepted"; return; }
  assert_contains "$err" ".." "the error names the entry: $err" || return
  assert_eq "" "$(find "$WORK" -name 'escaped-E')" "nothing outside the destination" || return
  assert_eq "" "$(ls -A "$dest")" "nothing half-made in the destination"
}

check_bad_input() {
  local rc=0 err
  err=$("$SANDSHIM_BIN" --root "$ROOT" session cp a b 2>&1) || rc=$?
  [ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || { fail "cp with no session side: $err"; return; }
  err=$("$SANDSHIM_BIN" --root "$ROOT" session files read nosuch /x 2>&1) && { fail "a missing session read"; return; }
  assert_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one line: $err"
}

backends=${SESSION_BACKEND:-gvisor native}
for be in $backends; do
  command -v runsc >/dev/null || [ "$be" = native ] || continue
  run_check "files on $be: a root-made workspace is writable, files are its owner's" with_session "$be" fx_workspace_just_works
  run_check "files on $be: another owner's workspace, writes land as that owner" with_session "$be" fx_workspace_other_owner
  run_check "files on $be: write, read, ls --json, rm; the writable layer" with_session "$be" fx_files_roundtrip
  run_check "files on $be: cp trees (1000 files), a 100 MB file, tar streams" with_session "$be" fx_cp_trees
  run_check "files on $be: .., absolute paths, links out never reach the host" with_session "$be" fx_hostile_paths
  run_check "files on $be: a session's hostile tar lands beneath the destination only" with_session "$be" fx_hostile_session_tar
done
run_check "files: bad input is one line and non-zero" check_bad_input
finish_checks
