#!/usr/bin/env bash
# Which host uid a runsc runs its sandbox process (the Sentry) as, asked of the binary
# itself (issue #34 item 2; docs/RUNSC.md, "The sandbox's host uid"). Root only.
#   sentry_uid.sh RUNSC
# Four raw `runsc create`s of a sleeping busybox container, each deleted at once:
#   plain:    the spec as `runsc spec` writes it, plus a network namespace
#   userns:   plus a user namespace mapping ids 0..65535 to host 0x7E000000.. (where runsc
#             honours it, the image's root-owned files read as nobody's inside)
#   idmapped: the same on the rootfs seen through an idmapped mount (on-disk 0 = 0x7E000000),
#             with --overlay2=root:memory (runsc, host root, cannot create its filestore
#             file through the idmapped mount: EOVERFLOW)
#   rootless: the plain spec with --rootless
# and prints the sandbox's Uid line (real, effective, saved, fs), or runsc's error.
# stdio is never /dev/null (runsc would chown the host's node): a file of our own.
# PROBE_FLAGS: more runsc flags for every create (after --network=none, so they win), e.g.
# --network=host or --debug --debug-log=DIR/.
set -u
RUNSC=${1:?runsc binary}
HERE=$(cd "$(dirname "$0")/../../integration" && pwd)
. "$HERE/lib/image.sh"
W=$(mktemp -d /tmp/sentry-uid.XXXXXX)
chmod 755 "$W"  # the gofer of a user-namespaced sandbox walks to the rootfs as the mapped root
trap 'umount "$W/idroot" 2>/dev/null; rm -rf "$W"' EXIT
build_rootfs "$W/rootfs" >/dev/null 2>&1 || { echo "rootfs failed" >&2; exit 1; }
: >"$W/stdio"
probe() { # NAME JQ-EDIT [runsc flags...]
  local name=$1 edit=$2; shift 2
  mkdir -p "$W/$name" && ln -s "${ROOTFS:-$W/rootfs}" "$W/$name/rootfs"
  (cd "$W/$name" && "$RUNSC" spec <"$W/stdio" >>"$W/stdio" 2>&1)
  jq '.process.args=["sleep","60"] | .process.terminal=false | .linux.namespaces += [{"type":"network"}] | '"$edit" \
    "$W/$name/config.json" >"$W/c" && mv "$W/c" "$W/$name/config.json"
  local id=uidprobe-$name-$$ pid
  if "$RUNSC" --root "$W/root" --network=none ${PROBE_FLAGS:-} "$@" create --bundle "$W/$name" "$id" <"$W/stdio" >>"$W/stdio" 2>"$W/err"; then
    pid=$("$RUNSC" --root "$W/root" state "$id" <"$W/stdio" 2>/dev/null | jq -r .pid)
    echo "$name: sandbox $pid $(grep '^Uid:' "/proc/$pid/status" | tr -s '\t' ' ')"
  else
    echo "$name: create refused: $(tail -1 "$W/err")"
  fi
  "$RUNSC" --root "$W/root" delete -force "$id" <"$W/stdio" >>"$W/stdio" 2>&1
}
probe plain .
USERNS='.linux.namespaces += [{"type":"user"}] | .linux.uidMappings=[{"containerID":0,"hostID":2113929216,"size":65536}] | .linux.gidMappings=.linux.uidMappings'
probe userns "$USERNS"
cc -o "$W/idmap_bind" "$(dirname "$0")/idmap_bind.c" && mkdir "$W/idroot" &&
  "$W/idmap_bind" 2113929216 "$W/rootfs" "$W/idroot" &&
  ROOTFS=$W/idroot probe idmapped "$USERNS" --overlay2=root:memory
probe rootless . --rootless
