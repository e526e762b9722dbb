#!/usr/bin/env bash
# Two platforms on one host, and local users, against sandshim's host side (issue #34):
# cgroups shared across state roots (N1), host paths handed in as rootfs, workspace, --mount
# source or pool workspace_parent (N6, N7), the shared cached base written by a session (N5),
# and the errors a local user or a typo gets (N8-N10). Every check first shows, with a positive
# control, that its probe sees the attack work (a cgroup sandshim did make is killed on delete;
# a plain directory is accepted where its symlinked twin is refused; root can read the state
# the local user is refused), then that sandshim blocks it. The local user is nobody (65534).
# Env: CHECK_FILTER=ERE runs only matching checks.
set -u
HERE=$(cd "$(dirname "$0")/../integration" && pwd)
. "$HERE/lib/image.sh"
. "$HERE/lib/daemons.sh"
require_root
require_cmds jq setpriv timeout cc
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
S=$(readlink -f "$SANDSHIM_BIN")

WORK=$(mktemp -d /tmp/sandshim-atk-hostside.XXXXXX)
chmod 755 "$WORK"
R1=$WORK/root1
R2=$WORK/root2
TAG=hs$$
install_traps
on_exit 'rm -rf "$WORK"'
for r in "$WORK/root1" "$WORK/root2"; do
  on_exit "for s in \$(\"$S\" --root $r session list --json 2>/dev/null | jq -r '.[].id'); do \"$S\" --root $r session delete \"\$s\" >/dev/null 2>&1; done"
  on_exit "\"$S\" --root $r list -q 2>/dev/null | xargs -r -n1 \"$S\" --root $r delete --force >/dev/null 2>&1"
done
on_exit 'for d in /sys/fs/cgroup/*/'"$TAG"'-* /sys/fs/cgroup/'"$TAG"'-*; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done; true'
build_rootfs "$WORK/rootfs" >/dev/null 2>&1 || die "rootfs"
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
mkdir -p "$WORK/ws"
LEAKS=("$CHECK_LEAKS" --match "$WORK" --root "$R1" --root "$R2")
no_leaks() { "${LEAKS[@]}" --wait 5 --quiet >/dev/null || fail "leaks: $("${LEAKS[@]}" | tr '\n' ' ')"; }
AFTER_CHECK_HOOK=no_leaks
as_nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }

# v1 hierarchies holding pids and memory (or the unified one): where a victim is put.
victim_cgroup_dirs() { # NAME
  local d
  for d in /sys/fs/cgroup/pids /sys/fs/cgroup/memory; do [ -d "$d" ] && echo "$d/$1"; done
  [ -f /sys/fs/cgroup/cgroup.controllers ] && echo "/sys/fs/cgroup/$1"
}
# A sleep in cgroup NAME (made here), in the background; its pid in VICTIM.
start_victim() { # NAME
  local d
  for d in $(victim_cgroup_dirs "$1"); do mkdir -p "$d"; done
  sh -c 'for d in '"$(victim_cgroup_dirs "$1" | tr '\n' ' ')"'; do echo $$ >"$d/cgroup.procs"; done; exec sleep 300' >/dev/null 2>&1 &
  VICTIM=$!  # a child of this shell (a $(...) subshell would orphan it)
}
# PID is listed in every one of NAME's victim cgroups (a loaded machine runs the sh late).
in_cgroup() { # PID NAME
  local d
  for d in $(victim_cgroup_dirs "$2"); do wait_until 10 grep -qx "$1" "$d/cgroup.procs" || return 1; done
}
stop_victim() { # PID NAME
  kill -9 "$1" 2>/dev/null; wait "$1" 2>/dev/null
  local d
  for d in $(victim_cgroup_dirs "$2"); do rmdir "$d" 2>/dev/null; done
  true
}
bundle_in() { # DIR JQ
  mkdir -p "$1"
  make_bundle "$1" sleep 300 >/dev/null || return 1
  jq "$2" "$1/config.json" >"$1/c" && mv "$1/c" "$1/config.json"
}

check_refused_create_leaves_cgroup() {
  # Control: a cgroup sandshim made (the container's own) and a victim that joined it after:
  # delete --force kills it. The probe sees a kill when there is one.
  local own=$TAG-own victim=$TAG-victim vpid cpid rc
  bundle_in "$WORK/b1" ".linux.cgroupsPath = \"/$own\"" || return $(fail "bundle")
  "$S" --root "$R1" --backend native create --bundle "$WORK/b1" "$own" || return $(fail "control create")
  start_victim "$own"; cpid=$VICTIM
  in_cgroup "$cpid" "$own" || { stop_victim "$cpid" "$own"; return $(fail "control: the victim never joined $own"); }
  "$S" --root "$R1" delete --force "$own"
  sleep 0.3
  kill -0 "$cpid" 2>/dev/null && { stop_victim "$cpid" "$own"; return $(fail "control: the victim in sandshim's own cgroup survived delete"); }
  wait "$cpid" 2>/dev/null
  # Attack: create naming someone else's cgroup, with a process in it.
  start_victim "$victim"; vpid=$VICTIM
  in_cgroup "$vpid" "$victim" || { stop_victim "$vpid" "$victim"; return $(fail "the victim never joined $victim"); }
  bundle_in "$WORK/b2" ".linux.cgroupsPath = \"/$victim\"" || return $(fail "bundle")
  OUT=$("$S" --root "$R1" --backend native create --bundle "$WORK/b2" "$victim" 2>&1); rc=$?
  sleep 0.3
  local alive=yes d gone=""
  kill -0 "$vpid" 2>/dev/null || alive=no
  for d in $(victim_cgroup_dirs "$victim"); do [ -d "$d" ] || gone="$gone $d"; done
  stop_victim "$vpid" "$victim"
  assert_ne 0 "$rc" "create naming a busy cgroup" || return
  assert_contains "$OUT" "existing cgroup with processes" "refusal" || return
  assert_eq yes "$alive" "victim alive after the refused create" || return
  assert_eq "" "$gone" "victim's cgroups still there"
}

check_two_roots_same_session() {
  local id=coll-$$ p1 cg1 rc
  "$S" --root "$R1" --backend native session create "$id" --rootfs "$WORK/rootfs" --workspace "$WORK/ws" >/dev/null ||
    return $(fail "session create under root 1")
  p1=$("$S" --root "$R1" state "sess-$id" | jq -r .pid)
  cg1=$(awk -F: '$2 ~ /pids/ || $2 == "" {print $3; exit}' "/proc/$p1/cgroup")
  # Control: a create that does name root 1's session cgroup is what killed it before the fix;
  # now refused, and the session lives on (the same refusal a shared name would meet).
  bundle_in "$WORK/b3" ".linux.cgroupsPath = \"$cg1\"" || return $(fail "bundle")
  OUT=$("$S" --root "$R2" --backend native create --bundle "$WORK/b3" probe-$$ 2>&1); rc=$?
  assert_ne 0 "$rc" "control: a create naming root 1's session cgroup is refused" || return
  kill -0 "$p1" 2>/dev/null || return $(fail "control: root 1's session died from a refused create")
  # Attack: the same session id under a second root.
  "$S" --root "$R2" --backend native session create "$id" --rootfs "$WORK/rootfs" --workspace "$WORK/ws" >/dev/null 2>"$WORK/err" ||
    return $(fail "session create under root 2: $(cat "$WORK/err")")
  local p2 cg2 out1
  p2=$("$S" --root "$R2" state "sess-$id" | jq -r .pid)
  cg2=$(awk -F: '$2 ~ /pids/ || $2 == "" {print $3; exit}' "/proc/$p2/cgroup")
  out1=$(timeout 30 "$S" --root "$R1" session exec "$id" -- echo alive 2>&1)
  "$S" --root "$R2" session delete "$id" >/dev/null
  "$S" --root "$R1" session delete "$id" >/dev/null
  log "root 1 cgroup $cg1, root 2 cgroup $cg2"
  assert_ne "$cg1" "$cg2" "the two roots' session cgroups" || return
  assert_eq alive "$out1" "root 1's session after root 2's create"
}

# session create with these extra flags under root 1; prints the error (rc kept).
try_session() { # BACKEND ID FLAG...
  local be=$1 id=$2; shift 2
  OUT=$("$S" --root "$R1" --backend "$be" session create "$id" "$@" 2>&1); RC=$?
}
drop_session() { "$S" --root "$R1" session delete "$1" >/dev/null 2>&1; true; }

check_rootfs_host_root() {
  # Control: a symlink to an ordinary rootfs is followed and accepted, so a refusal below is
  # about where the link leads.
  ln -sfn "$WORK/rootfs" "$WORK/rootfs-link"
  ln -sfn / "$WORK/slash"
  local had_ws=no be
  [ -e /workspace ] && had_ws=yes
  try_session native ok-$$ --rootfs "$WORK/rootfs-link" --workspace "$WORK/ws"
  drop_session ok-$$
  assert_eq 0 "$RC" "control: a symlink to a real rootfs ($OUT)" || return
  for be in native gvisor; do
    for r in / "$WORK/slash"; do
      try_session $be root-$$ --rootfs "$r" --workspace "$WORK/ws"
      drop_session root-$$
      assert_ne 0 "$RC" "$be session --rootfs $r" || return
      assert_contains "$OUT" "host's /" "$be --rootfs $r: the reason" || return
      assert_eq 1 "$(printf '%s\n' "$OUT" | wc -l)" "one-line error" || return
    done
    # The OCI side: a bundle whose rootfs is a symlink to /.
    mkdir -p "$WORK/bslash"
    cp "$WORK/b1/config.json" "$WORK/bslash/" 2>/dev/null || { bundle_in "$WORK/bslash" . || return $(fail bundle); rm -rf "$WORK/bslash/rootfs"; }
    rm -rf "$WORK/bslash/rootfs"; ln -sfn / "$WORK/bslash/rootfs"
    jq 'del(.linux.cgroupsPath)' "$WORK/bslash/config.json" >"$WORK/bslash/c" && mv "$WORK/bslash/c" "$WORK/bslash/config.json"
    OUT=$("$S" --root "$R1" --backend $be create --bundle "$WORK/bslash" slash-$$ 2>&1); RC=$?
    "$S" --root "$R1" delete --force slash-$$ >/dev/null 2>&1
    assert_ne 0 "$RC" "$be create with rootfs -> /" || return
    assert_contains "$OUT" "host's /" "$be create: the reason" || return
  done
  [ $had_ws = yes ] || [ ! -e /workspace ] || { rmdir /workspace 2>/dev/null; return $(fail "a /workspace appeared in the host's /"); }
}

check_sources_into_system_dirs() {
  mkdir -p "$WORK/ws2" "$WORK/src"
  ln -sfn "$WORK/ws2" "$WORK/ws-link"
  ln -sfn /etc "$WORK/etc-link"
  ln -sfn /var/lib "$WORK/varlib-link"
  # Control: links to ordinary directories are followed and accepted (workspace and --mount).
  try_session native lk-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws-link" --mount "$WORK/ws-link:/data"
  local got
  got=$("$S" --root "$R1" session list --json | jq -r ".[] | select(.id==\"lk-$$\") | .workspace")
  drop_session lk-$$
  assert_eq 0 "$RC" "control: links to ordinary directories ($OUT)" || return
  assert_eq "$WORK/ws2" "$got" "control: the workspace recorded resolved" || return
  local be
  for be in native gvisor; do
    try_session $be etc-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/etc-link"
    drop_session etc-$$
    assert_ne 0 "$RC" "$be --workspace -> /etc" || return
    assert_contains "$OUT" "host directory /etc" "$be workspace: the reason" || return
    try_session $be etc-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" --mount "$WORK/varlib-link:/x"
    drop_session etc-$$
    assert_ne 0 "$RC" "$be --mount -> /var/lib" || return
    assert_contains "$OUT" "/var/lib" "$be --mount: the reason" || return
  done
  try_session native etc-$$ --rootfs "$WORK/rootfs" --workspace /etc
  drop_session etc-$$
  assert_ne 0 "$RC" "--workspace /etc itself" || return
}

check_pool_paths() {
  mkdir -p "$WORK/pooltarget"
  ln -sfn "$WORK/pooltarget" "$WORK/pool-link"
  # Control: a pool whose workspace_parent is a real directory is defined.
  echo "{\"size\":1,\"workspace_parent\":\"$WORK/pooltarget\",\"profile\":{\"rootfs\":\"$WORK/rootfs\"}}" >"$WORK/p-ok.json"
  OUT=$("$S" --root "$R1" --backend native pool define pk-$$ "$WORK/p-ok.json" 2>&1) || return $(fail "control: pool define: $OUT")
  # Attack 1: workspace_parent through a symlink.
  echo "{\"size\":1,\"workspace_parent\":\"$WORK/pool-link\",\"profile\":{\"rootfs\":\"$WORK/rootfs\"}}" >"$WORK/p-bad.json"
  OUT=$("$S" --root "$R1" --backend native pool define pb-$$ "$WORK/p-bad.json" 2>&1); RC=$?
  assert_ne 0 "$RC" "pool define, workspace_parent through a symlink" || return
  assert_contains "$OUT" "symlink" "the reason" || return
  # Attack 2: a claim whose workspace is a link to /etc: refused outright, no cold create.
  ln -sfn /etc "$WORK/etc-link"
  OUT=$("$S" --root "$R1" --backend native session create --pool pk-$$ --workspace "$WORK/etc-link" cl-$$ 2>&1); RC=$?
  local made
  made=$("$S" --root "$R1" session list --json | jq -r ".[] | select(.id==\"cl-$$\") | .id")
  drop_session cl-$$
  "$S" --root "$R1" pool drain --delete pk-$$ >/dev/null 2>&1
  "$S" --root "$R1" pool drain --delete pb-$$ >/dev/null 2>&1
  assert_ne 0 "$RC" "claim with --workspace -> /etc" || return
  assert_eq "" "$made" "no session made (no cold create)" || return
  assert_eq "" "$(ls -A "$WORK/pooltarget" | grep -v '^\.member-' )" "nothing in the pool's parent"
}

# Every file and directory of the tree, with mode, size, owner and mtime: equal = untouched.
tree_sum() { find "$1" -printf '%P %M %s %U %T@\n' | sort | md5sum | cut -d' ' -f1; }

check_base_untouched_gvisor() {
  mkdir -p "$WORK/src"
  cp -a "$WORK/rootfs" "$WORK/ctlroot"
  # Control: an OCI create (gVisor) with a mount destination its rootfs lacks makes it in
  # that rootfs (as runc does): the probe sees the write.
  mkdir -p "$WORK/bctl"; bundle_in "$WORK/bctl" "del(.linux.cgroupsPath) | .root.path = \"$WORK/ctlroot\" | .mounts += [{destination:\"/made-by-mount\",type:\"bind\",source:\"$WORK/src\",options:[\"rbind\"]}]" || return $(fail bundle)
  local before after
  before=$(tree_sum "$WORK/ctlroot")
  "$S" --root "$R1" --backend gvisor create --bundle "$WORK/bctl" ctl-$$ >/dev/null 2>&1
  "$S" --root "$R1" delete --force ctl-$$ >/dev/null 2>&1
  after=$(tree_sum "$WORK/ctlroot")
  assert_ne "$before" "$after" "control: the gVisor create wrote its rootfs (/made-by-mount)" || return
  # Attack: a gVisor session (a --mount whose destination the base lacks, a write inside,
  # stop/start) must leave the shared base byte-identical.
  before=$(tree_sum "$WORK/rootfs")
  "$S" --root "$R1" --backend gvisor session create gb-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" \
    --mount "$WORK/src:/data-$$" >/dev/null 2>"$WORK/err" || return $(fail "session create: $(cat "$WORK/err")")
  timeout 60 "$S" --root "$R1" session exec gb-$$ -- sh -c "touch /etc/x /data-$$/y; mkdir /newdir" >/dev/null 2>&1
  "$S" --root "$R1" session stop gb-$$ >/dev/null 2>&1
  "$S" --root "$R1" session start gb-$$ >/dev/null 2>&1
  drop_session gb-$$
  after=$(tree_sum "$WORK/rootfs")
  rm -f "$WORK/src/y"
  [ "$before" = "$after" ] || ls -la "$WORK/rootfs" >&2
  assert_eq "$before" "$after" "the base's tree after a gVisor session"
}

check_cli_errors() {
  # Control: root reads the state nobody is refused (a session exists to be listed).
  "$S" --root "$R1" --backend native session create cli-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" >/dev/null ||
    return $(fail "session create")
  local rows
  rows=$("$S" --root "$R1" session list --json | jq length)
  assert_eq 1 "$rows" "control: root lists the session" || { drop_session cli-$$; return 1; }
  local v
  for v in "session list" "pool status" "list" "session exec cli-$$ -- true" "pool fill p"; do
    OUT=$(as_nobody "$S" --root "$R1" $v 2>&1); RC=$?
    assert_ne 0 "$RC" "nobody: $v status" || { drop_session cli-$$; return 1; }
    assert_contains "$OUT" "permission denied" "nobody: $v" || { drop_session cli-$$; return 1; }
  done
  drop_session cli-$$
  # Host config values of the wrong type.
  echo '{"audit_dir": 5}' >"$WORK/badconfig.json"
  OUT=$(SANDSHIM_CONFIG=$WORK/badconfig.json "$S" --root "$R1" session list 2>&1); RC=$?
  assert_ne 0 "$RC" "config audit_dir: 5" || return
  assert_contains "$OUT" "audit_dir must be a string" "config error" || return
  # An empty id, and ids with a newline or an escape: one line, nothing made.
  OUT=$("$S" --root "$R1" --backend native session create "" --rootfs "$WORK/rootfs" --workspace "$WORK/ws" 2>&1); RC=$?
  assert_ne 0 "$RC" "empty session id" || return
  assert_eq 0 "$("$S" --root "$R1" session list --json | jq length)" "no session made" || return
  for id in "$(printf 'a\nb')" "$(printf 'a\033[31mb')"; do
    OUT=$("$S" --root "$R1" --backend native session create "$id" --rootfs "$WORK/rootfs" --workspace "$WORK/ws" 2>&1); RC=$?
    assert_ne 0 "$RC" "bad id" || return
    assert_eq 1 "$(printf '%s\n' "$OUT" | wc -l)" "one line for a bad id" || return
    assert_not_contains "$OUT" "$(printf '\033')" "no raw escape" || return
  done
}

check_gvisor_exec_caps() {
  # A spec whose effective set is not empty and whose ambient set is: after an execve(2) a
  # uid 1000 process would hold nothing (runc); a gVisor direct exec must not keep more.
  local id=cap-$$ root_eff user_eff
  bundle_in "$WORK/bcap" 'del(.linux.cgroupsPath) | .process.capabilities.ambient = [] | .process.args = ["sleep","60"]' || return $(fail bundle)
  "$S" --root "$R1" --backend gvisor run -d --bundle "$WORK/bcap" "$id" >/dev/null 2>"$WORK/err" || return $(fail "run: $(cat "$WORK/err")")
  exec_as() { # UID
    jq -n --argjson u "$1" '{args:["grep","CapEff","/proc/self/status"],cwd:"/",user:{uid:$u,gid:$u},env:["PATH=/bin"]}' >"$WORK/cap.json"
    timeout 60 "$S" --root "$R1" exec --process "$WORK/cap.json" "$id" | awk '{print $2}'
  }
  # Control: uid 0 keeps its effective set (the probe reads a non-zero mask where there is one).
  root_eff=$(exec_as 0)
  user_eff=$(exec_as 1000)
  "$S" --root "$R1" delete --force "$id" >/dev/null 2>&1
  log "CapEff: uid 0 $root_eff, uid 1000 $user_eff"
  assert_ne 0000000000000000 "${root_eff:-0000000000000000}" "control: uid 0's effective set" || return
  assert_eq 0000000000000000 "$user_eff" "uid 1000's effective set (direct exec, no ambient)" || return
  # A session's spec is runc spec's: three ambient capabilities, none inheritable; after an
  # execve its user (1000) holds none, and a direct exec must not hold more (red team: on
  # 2022's runsc it kept KILL and killed root's processes).
  "$S" --root "$R1" --backend gvisor session create cap-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" >/dev/null 2>"$WORK/err" ||
    return $(fail "session create: $(cat "$WORK/err")")
  root_eff=$("$S" --root "$R1" session exec -u 0 cap-$$ -- grep CapEff /proc/self/status | awk '{print $2}')
  user_eff=$("$S" --root "$R1" session exec cap-$$ -- grep CapEff /proc/self/status | awk '{print $2}')
  drop_session cap-$$
  log "session CapEff: -u 0 $root_eff, the session's user $user_eff"
  assert_ne 0000000000000000 "${root_eff:-0000000000000000}" "control: the session's root holds its set" || return
  assert_eq 0000000000000000 "$user_eff" "the session's user's effective set (direct exec)"
}

check_pool_stopped_member() {
  echo "{\"size\":1,\"low_water\":0,\"profile\":{\"rootfs\":\"$WORK/rootfs\"}}" >"$WORK/p-g.json"
  "$S" --root "$R1" --backend gvisor pool define pg-$$ "$WORK/p-g.json" >/dev/null || return $(fail "pool define")
  "$S" --root "$R1" --backend gvisor pool fill pg-$$ >/dev/null 2>"$WORK/err" || return $(fail "pool fill: $(cat "$WORK/err")")
  local cid pid
  cid=$("$S" --root "$R1" list -q | grep '^sess-m-' | head -1)
  pid=$("$S" --root "$R1" state "$cid" | jq -r .pid)
  # The member stopped as an attacker who can signal it would: host nobody on a runsc that
  # runs the sandbox as nobody (2022's), root otherwise (2024's runs it as host root, which
  # nobody cannot signal: check_sandbox_not_nobodys). The claim must notice either way.
  kill -STOP "$pid" || { "$S" --root "$R1" pool drain --delete pg-$$ >/dev/null 2>&1; return $(fail "control: could not stop the sandbox"); }
  grep -q '^State:.*T' "/proc/$pid/status" || log "sandbox $pid not stopped: $(grep ^State "/proc/$pid/status")"
  OUT=$(timeout 120 "$S" --root "$R1" --backend gvisor session create --pool pg-$$ --json --workspace "$WORK/ws" cl2-$$ 2>&1); RC=$?
  local claimed exec_out
  claimed=$(printf '%s\n' "$OUT" | jq -r '.pool.claimed' 2>/dev/null)
  exec_out=$(timeout 30 "$S" --root "$R1" session exec cl2-$$ -- echo alive 2>&1)
  kill -CONT "$pid" 2>/dev/null
  drop_session cl2-$$
  "$S" --root "$R1" pool drain --delete pg-$$ >/dev/null 2>&1
  assert_eq 0 "$RC" "claim status ($OUT)" || return
  assert_eq false "$claimed" "a stopped member is not handed out" || return
  assert_contains "$OUT" "stopped" "the miss names it" || return
  assert_eq alive "$exec_out" "the cold session answers"
}

# A tenant who owns a workspace file may chmod it 4755; a workspace made by root is written as
# root (workspace_owner.h): the host would hold a set-user-ID root program (red team, 2026-11-28).
check_workspace_setuid() {
  printf '#include <stdio.h>\n#include <unistd.h>\nint main(void){printf("euid=%%d\\n",(int)geteuid());return 0;}\n' >"$WORK/euid.c"
  cc -o "$WORK/euid" "$WORK/euid.c" || return $(fail "cc")
  # Control: the same program, set-user-ID root on a plain host path, gives nobody euid 0.
  mkdir -p "$WORK/ctl" && cp "$WORK/euid" "$WORK/ctl/euid" && chmod 4755 "$WORK/ctl/euid" && chmod 755 "$WORK/ctl"
  assert_eq euid=0 "$(as_nobody "$WORK/ctl/euid")" "control: a set-user-ID root file runs as root" || return
  local be ws live after mounts
  for be in native gvisor; do
    ws=$WORK/wsuid-$be
    mkdir -p "$ws" && cp "$WORK/euid" "$ws/payload"  # root's, as a platform makes it
    "$S" --root "$R1" --backend $be session create su-$be-$$ --rootfs "$WORK/rootfs" --workspace "$ws" >/dev/null 2>"$WORK/err" ||
      return $(fail "$be session create: $(cat "$WORK/err")")
    "$S" --root "$R1" session exec su-$be-$$ -- sh -c 'cat /workspace/payload >/workspace/rootme && chmod 4755 /workspace/rootme' ||
      { drop_session su-$be-$$; return $(fail "$be: the tenant's chmod"); }
    # The bit is on the host (the attack got that far), owned by root: only the mount holds.
    live=$(stat -c '%A %U' "$ws/rootme")
    assert_eq "-rwsr-xr-x root" "$live" "$be: the tenant's file on the host while the session lives" ||
      { drop_session su-$be-$$; return 1; }
    # gVisor's gofer may still hold it open for writing (ETXTBSY): never euid 0 either way.
    OUT=$(as_nobody "$ws/rootme" 2>&1)
    drop_session su-$be-$$
    after=$(stat -c '%A' "$ws/rootme")
    mounts=$(awk -v p="$ws" '$5 == p' /proc/self/mountinfo | wc -l)
    log "$be: while live nobody ran it: $OUT; after delete: $after, $mounts mounts at the workspace"
    assert_not_contains "$OUT" "euid=0" "$be: nobody runs the tenant's set-user-ID file as root while the session lives" || return
    assert_eq -rwxr-xr-x "$after" "$be: the bit is gone after delete" || return
    assert_eq 0 "$mounts" "$be: the workspace's guard mount is gone after delete" || return
    assert_eq euid=65534 "$(as_nobody "$ws/rootme")" "$be: after delete nobody runs it as nobody" || return
  done
}

# Two state roots (two platforms, or a test beside production) sharing one workspace: each
# session needs the workspace nosuid while it lives, and nothing may stay after both. With a
# guard registry per root, the second root stacked its own guard over the first's; the first's
# delete found its mount covered and left it, under nobody's record, for good.
check_two_roots_share_workspace_guard() {
  local ws=$WORK/ws-shared mounts_live mounts_mid opts_mid mounts_after
  mkdir -p "$ws" && chmod 777 "$ws"
  "$S" --root "$R1" --backend gvisor session create wg1-$$ --rootfs "$WORK/rootfs" --workspace "$ws" >/dev/null 2>"$WORK/err" ||
    return $(fail "root 1 session create: $(cat "$WORK/err")")
  "$S" --root "$R2" --backend gvisor session create wg2-$$ --rootfs "$WORK/rootfs" --workspace "$ws" >/dev/null 2>"$WORK/err" ||
    { drop_session wg1-$$; return $(fail "root 2 session create: $(cat "$WORK/err")"); }
  # Control: the count sees the guard while the sessions live (a leak would be seen the same way).
  mounts_live=$(awk -v p="$ws" '$5 == p' /proc/self/mountinfo | wc -l)
  drop_session wg1-$$
  mounts_mid=$(awk -v p="$ws" '$5 == p' /proc/self/mountinfo | wc -l)
  opts_mid=$(findmnt -no OPTIONS --target "$ws" 2>/dev/null)
  "$S" --root "$R2" session delete wg2-$$ >/dev/null 2>&1
  mounts_after=$(awk -v p="$ws" '$5 == p' /proc/self/mountinfo | wc -l)
  log "guard mounts at the shared workspace: both live $mounts_live, root 2's alone $mounts_mid ($opts_mid), none live $mounts_after"
  [ "$mounts_live" -ge 1 ] || return $(fail "control: no guard mount seen while both sessions live")
  assert_contains "$opts_mid" "nosuid" "root 2's session keeps its nosuid workspace after root 1's delete" || return
  assert_eq 0 "$mounts_after" "no guard mount left at the workspace after both deletes"
}

# A fork bomb against --pids 64 (gVisor): the limit is the sandbox's RLIMIT_NPROC, and the host
# cgroup's backstop must leave the Sentry room for its own tasks (the ptrace platform needs
# ~55 host tasks per guest process under a bomb): at 16 per process the sandbox died.
check_fork_bomb_keeps_sandbox() {
  "$S" --root "$R1" --backend gvisor session create fb-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" --pids 64 >/dev/null 2>"$WORK/err" ||
    return $(fail "session create: $(cat "$WORK/err")")
  timeout 60 "$S" --root "$R1" session exec --timeout 4s fb-$$ -- sh -c 'f(){ f | f & }; f; sleep 30' >"$WORK/fb.out" 2>&1
  local hit state root_ok
  hit=$(grep -c "can't fork" "$WORK/fb.out")
  state=$("$S" --root "$R1" session list --json | jq -r --arg s fb-$$ '.[] | select(.id == $s) | .status')
  # The session's root is not held by the user's RLIMIT_NPROC: the platform can still act.
  root_ok=$("$S" --root "$R1" session exec -u 0 fb-$$ -- echo root-ok 2>&1)
  drop_session fb-$$
  log "fork bomb: $hit refused forks; session $state; root exec: $root_ok"
  [ "${hit:-0}" -gt 0 ] || return $(fail "control: the bomb never reached the limit")
  assert_eq running "$state" "the session after the bomb" || return
  assert_eq root-ok "$root_ok" "a root exec after the bomb"
}

# A native session's writable layer is bounded by the session's memory, whatever the state
# root is on (red team: 300 MB written past --memory 128m onto the host's disk).
check_native_layer_bounded() {
  "$S" --root "$R1" --backend native session create lay-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" --memory 64m >/dev/null 2>"$WORK/err" ||
    return $(fail "session create: $(cat "$WORK/err")")
  "$S" --root "$R1" session exec -u 0 lay-$$ -- dd if=/dev/zero of=/fill bs=1M count=200 >/dev/null 2>&1
  local kb alive
  kb=$(du -sk "$R1/@sessions/lay-$$/layer" | cut -f1)
  alive=$("$S" --root "$R1" session exec lay-$$ -- echo alive 2>&1)
  drop_session lay-$$
  log "native layer after writing 200 MB under --memory 64m: $kb KiB"
  [ "$kb" -gt 10240 ] || return $(fail "control: the write never reached the layer ($kb KiB)")
  [ "$kb" -le 33792 ] || return $(fail "the layer holds $kb KiB, past half the session's 64 MiB")
  assert_eq alive "$alive" "the session after the fill"
}

# gVisor's /tmp is the sandbox's memory: the default one is at most half of --memory, so a
# tenant filling it gets ENOSPC instead of killing the sandbox (red team: 256m /tmp, 128m).
check_gvisor_tmp_fill() {
  "$S" --root "$R1" --backend gvisor session create tf-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" --memory 128m >/dev/null 2>"$WORK/err" ||
    return $(fail "session create: $(cat "$WORK/err")")
  local out alive
  out=$("$S" --root "$R1" session exec tf-$$ -- dd if=/dev/zero of=/tmp/fill bs=1M count=300 2>&1)
  alive=$("$S" --root "$R1" session exec tf-$$ -- echo alive 2>&1)
  drop_session tf-$$
  log "/tmp fill under --memory 128m: $(printf '%s' "$out" | tr '\n' ' ')"
  assert_contains "$out" "records out" "control: the write ran" || return
  assert_not_contains "$out" "300+0 records out" "the write stopped short of 300 MB" || return
  assert_eq alive "$alive" "the session after filling /tmp"
}

check_exec_on_stopped_sandbox() {
  "$S" --root "$R1" --backend gvisor session create st-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" >/dev/null 2>"$WORK/err" ||
    return $(fail "session create: $(cat "$WORK/err")")
  local pid t0 rc_timeout ms_timeout rc_term ms_term
  pid=$("$S" --root "$R1" state sess-st-$$ | jq -r .pid)
  kill -STOP "$pid"
  # Control: the sandbox really is stopped (nothing it serves can answer).
  grep -q '^State:.*T' "/proc/$pid/status" || { kill -CONT "$pid"; drop_session st-$$; return $(fail "control: sandbox $pid not stopped"); }
  t0=$(now_ms)
  timeout 30 "$S" --root "$R1" session exec --timeout 2s st-$$ -- echo alive >/dev/null 2>"$WORK/err"; rc_timeout=$?
  ms_timeout=$(($(now_ms) - t0)); t0=$(now_ms)
  # What a caller's own deadline does (timeout(1) sends TERM after 2 s; KILL 20 s later).
  timeout -k 20 2 "$S" --root "$R1" session exec st-$$ -- echo alive >/dev/null 2>&1; rc_term=$?
  ms_term=$(($(now_ms) - t0))
  kill -CONT "$pid"
  OUT=$("$S" --root "$R1" session exec st-$$ -- echo alive 2>&1)
  drop_session st-$$
  log "stopped sandbox: --timeout 2s ended after $ms_timeout ms (rc $rc_timeout), TERM after $ms_term ms (rc $rc_term)"
  assert_eq 124 "$rc_timeout" "--timeout against a stopped sandbox ($(cat "$WORK/err"))" || return
  [ "$ms_timeout" -lt 6000 ] || return $(fail "--timeout 2s took $ms_timeout ms")
  assert_eq 124 "$rc_term" "TERM while waiting on a stopped sandbox (124: timeout(1) did not need its KILL)" || return
  [ "$ms_term" -lt 6000 ] || return $(fail "TERM took $ms_term ms to end the exec")
  assert_eq alive "$OUT" "the session answers once continued"
}

# The v1 pids and memory cgroups (or the unified one) of PID, one "hierarchy:path" a line.
# The unified line only on a cgroup2-only host (victim_cgroup_dirs's choice).
pid_cgroups() {
  local v2=0
  [ -f /sys/fs/cgroup/cgroup.controllers ] && v2=1
  awk -F: -v v2=$v2 '$2 == "pids" || $2 == "memory" || ($2 == "" && v2) {print $2 ":" $3}' "/proc/$1/cgroup" 2>/dev/null
}

# Review N4: a detached gVisor exec leaves a host process standing for the command (the
# keeper and its guardian when the control server takes the exec; a background runsc exec
# when not, e.g. a process without capabilities). Each must count against the container's
# pids and memory limits, not its caller's.
check_exec_keeper_cgroup() {
  local id=ek-$$ caller=$TAG-caller cg=$TAG-ctr vpid
  bundle_in "$WORK/bek" ".linux.cgroupsPath = \"/$cg\" | .linux.resources.pids = {limit: 50}" || return $(fail bundle)
  "$S" --root "$R1" --backend gvisor create --bundle "$WORK/bek" "$id" >/dev/null 2>"$WORK/err" || return $(fail "create: $(cat "$WORK/err")")
  "$S" --root "$R1" start "$id" || { "$S" --root "$R1" delete --force "$id"; return $(fail start); }
  # With capabilities: the control server's exec, a keeper; without: runsc exec.
  echo '{"args":["sleep","30"],"cwd":"/","user":{"uid":0,"gid":0},"env":["PATH=/bin"],"capabilities":{"bounding":[],"effective":[],"permitted":[]}}' >"$WORK/proc-keeper.json"
  echo '{"args":["sleep","30"],"cwd":"/","user":{"uid":0,"gid":0},"env":["PATH=/bin"]}' >"$WORK/proc-runsc.json"
  local d
  for d in $(victim_cgroup_dirs "$caller"); do mkdir -p "$d"; done
  # The caller in pids and memory cgroups of its own; its children land there (the control:
  # the probe sees a caller's child in the caller's cgroups).
  (for d in $(victim_cgroup_dirs "$caller"); do echo $BASHPID >"$d/cgroup.procs"; done
   sleep 30 & echo $! >"$WORK/victim.pid"
   for k in keeper runsc; do
     "$S" --root "$R1" exec --detach --pid-file "$WORK/$k.pid" --process "$WORK/proc-$k.json" "$id"
   done)
  vpid=$(cat "$WORK/victim.pid")
  local want_c want_v kp gp rp got_c got_k got_g got_r
  want_c=$(pid_cgroups "$("$S" --root "$R1" state "$id" | jq -r .pid)")
  got_c=$(pid_cgroups "$vpid")
  kp=$(cat "$WORK/keeper.pid" 2>/dev/null); rp=$(cat "$WORK/runsc.pid" 2>/dev/null)
  gp=$(pgrep -P "$kp" | head -1)
  got_k=$(pid_cgroups "$kp"); got_g=$(pid_cgroups "$gp"); got_r=$(pid_cgroups "$rp")
  local kcmd rcmd
  kcmd=$(tr '\0' ' ' <"/proc/$kp/cmdline" 2>/dev/null); rcmd=$(tr '\0' ' ' <"/proc/$rp/cmdline" 2>/dev/null)
  kill "$vpid" 2>/dev/null
  "$S" --root "$R1" delete --force "$id" >/dev/null 2>&1
  wait_until 10 sh -c "! kill -0 $kp 2>/dev/null && ! kill -0 $rp 2>/dev/null"
  for d in $(victim_cgroup_dirs "$caller"); do rmdir "$d" 2>/dev/null; done
  log "container: $(echo $want_c); caller's child: $(echo $got_c)"
  log "keeper $kp (${kcmd:0:40}...): $(echo $got_k); guardian $gp: $(echo $got_g); runsc exec $rp: $(echo $got_r)"
  [ -n "$got_c" ] && ! echo "$got_c" | grep -qv ":/$caller\$" ||
    return $(fail "control: the caller's child is not in the caller's cgroups: $(echo $got_c)")
  [ -n "$gp" ] || return $(fail "no guardian under keeper $kp (the control server did not take the exec?)")
  assert_contains "$rcmd" " exec --process" "control: the second exec went through runsc exec" || return
  assert_eq "$want_c" "$got_k" "the keeper's cgroups" || return
  assert_eq "$want_c" "$got_g" "the guardian's cgroups" || return
  assert_eq "$want_c" "$got_r" "the background runsc exec's cgroups"
}

check_relay_not_nobodys() {
  # Control: nobody can signal a process of nobody's (kill -0 answers for it).
  setpriv --reuid 65534 --regid 65534 --clear-groups sleep 30 & local np=$!
  sleep 0.2
  as_nobody kill -0 "$np" || { kill "$np"; return $(fail "control: nobody could not signal its own process"); }
  kill "$np"; wait "$np" 2>/dev/null
  "$S" --root "$R1" --backend native session create rl-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" \
    --network proxy --allow-domain example.test >/dev/null 2>"$WORK/err" || return $(fail "session create: $(cat "$WORK/err")")
  local pid uid
  pid=$(pgrep -f "proxy .*--netns [^ ]*$R1" | head -1)
  uid=$(awk '/^Uid:/{print $2}' "/proc/$pid/status" 2>/dev/null)
  OUT=$(as_nobody kill -STOP "$pid" 2>&1); RC=$?
  kill -CONT "$pid" 2>/dev/null
  drop_session rl-$$
  log "relay $pid runs as uid $uid"
  [ -n "$pid" ] || return $(fail "no relay found")
  assert_ne 65534 "$uid" "the relay's uid" || return
  assert_ne 0 "$RC" "nobody's SIGSTOP of the relay"
}

# Issue #34 item 2 (N2): the Sentry's host uid. 2022's runsc runs it as host nobody (its
# user namespace maps nobody to nobody, hard-coded in createSandboxProcess; `create` refuses
# --rootless and ignores a spec's user namespace unless --network=host), so host nobody can
# stop every session: open there (docs/RUNSC.md, "The sandbox's host uid"). 2024's runsc
# (directfs) runs it in the caller's user namespace as root, which nobody cannot signal.
check_sandbox_not_nobodys() {
  # Control: nobody's SIGSTOP lands on a process nobody owns (the probe sees the attack work).
  setpriv --reuid 65534 --regid 65534 --clear-groups sleep 30 & local np=$!
  wait_until 5 grep -q '^Uid:.*65534' "/proc/$np/status"
  as_nobody kill -STOP "$np"; local crc=$?
  wait_until 5 grep -q '^State:.*T' "/proc/$np/status"; local cst=$?
  kill -9 "$np"; wait "$np" 2>/dev/null
  assert_eq 00 "$crc$cst" "control: nobody stops a process of nobody's (kill rc, stopped state)" || return
  "$S" --root "$R1" --backend gvisor session create sn-$$ --rootfs "$WORK/rootfs" --workspace "$WORK/ws" >/dev/null 2>"$WORK/err" ||
    return $(fail "session create: $(cat "$WORK/err")")
  local pid uid rc stopped out
  pid=$("$S" --root "$R1" state sess-sn-$$ | jq -r .pid)
  uid=$(awk '/^Uid:/{print $2}' "/proc/$pid/status" 2>/dev/null)
  as_nobody kill -STOP "$pid" 2>/dev/null; rc=$?
  stopped=$(grep -c '^State:.*T' "/proc/$pid/status" 2>/dev/null)
  kill -CONT "$pid" 2>/dev/null
  out=$(timeout 60 "$S" --root "$R1" session exec sn-$$ -- echo alive 2>&1)
  drop_session sn-$$
  log "sandbox $pid runs as host uid $uid; nobody's SIGSTOP rc $rc, stopped $stopped"
  [ -n "$uid" ] || return $(fail "no sandbox process for sess-sn-$$")
  assert_eq alive "$out" "the session answers after the attempt" || return
  [ "$uid" != 65534 ] || { skip "N2 open on this runsc: it runs the sandbox as host nobody, who stopped it (rc $rc); no flag or spec moves it (docs/RUNSC.md)"; return; }
  assert_ne 0 "$rc" "nobody's SIGSTOP of the sandbox (uid $uid)" || return
  assert_eq 0 "$stopped" "the sandbox was not stopped"
}

run_check "cgroups: a refused create leaves someone else's cgroup and processes alone (N1, L7)" check_refused_create_leaves_cgroup
run_check "cgroups: one session id under two state roots, both live (N1)" check_two_roots_same_session
run_check "rootfs: / or a symlink to it refused, sessions and OCI, both backends (N6)" check_rootfs_host_root
run_check "workspace and --mount: links into host system directories refused, both backends (N7)" check_sources_into_system_dirs
run_check "pools: workspace_parent through a link refused; a claim's refused workspace is no cold create (N7)" check_pool_paths
run_check "gVisor: the shared base stays byte-identical through a session with --mount (N5)" check_base_untouched_gvisor
run_check "CLI: nobody is told permission denied; wrong config types, empty and control-character ids refused in one line (N8-N10)" check_cli_errors
run_check "gVisor: a uid 1000 direct exec has no effective capabilities, uid 0 keeps its own (N11)" check_gvisor_exec_caps
run_check "pools: a SIGSTOPped member is not handed out; the claim goes cold (N2)" check_pool_stopped_member
run_check "workspace: a tenant's chmod 4755 is never a set-user-ID root program on the host, both backends" check_workspace_setuid
run_check "workspace: two state roots sharing a workspace share one guard; nothing stays after both (2026-11-29)" check_two_roots_share_workspace_guard
run_check "gVisor: a fork bomb against --pids 64 leaves the sandbox running" check_fork_bomb_keeps_sandbox
run_check "native: the writable layer holds at most half the session's memory, and the session answers" check_native_layer_bounded
run_check "gVisor: filling /tmp under --memory 128m gives ENOSPC, the session answers" check_gvisor_tmp_fill
run_check "gVisor: session exec against a SIGSTOPped sandbox ends at its --timeout and on TERM (N3)" check_exec_on_stopped_sandbox
run_check "gVisor: a detached exec's keeper is in the container's cgroup, not the caller's (N4)" check_exec_keeper_cgroup
run_check "relays: not nobody's, so host nobody cannot stop them (N2)" check_relay_not_nobodys
run_check "gVisor: the sandbox is not nobody's, so host nobody cannot stop it (N2)" check_sandbox_not_nobodys
finish_checks
