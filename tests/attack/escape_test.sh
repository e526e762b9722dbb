#!/usr/bin/env bash
# The escape probe (probes/escape_probe.sh: ids, caps, seccomp and the syscalls docker's
# profile refuses, masked paths, /dev, mounts, env, fds, network) run as a container's init
# and as an exec, with the same docker-defaults bundle, under runc (the reference: "at least
# as strong as runc with docker's defaults") and under sandshim on gVisor and native; and in
# sessions (plain exec, a credential context). Each check compares a probe line with runc's.
# Positive controls: runc with the spec's seccomp filter removed (the syscall checks must see
# keyctl and unshare(CLONE_NEWUSER) work there), raw runsc with the same spec (the Sentry's
# /dev/fuse and /dev/net/tun are there as devices).
# Known, not fixed: on gVisor an exec (sandshim exec, session exec, docker exec) runs with no
# seccomp filter (runsc applies linux.seccomp to the init only; docs/EXEC_SECCOMP.md). Those
# checks SKIP with that reason unless ESCAPE_STRICT=1, which makes them fail.
# Env: CHECK_FILTER=ERE, SANDSHIM_TEST_RUNSC (the runsc under test), ESCAPE_STRICT,
# ESCAPE_KEEP=DIR (the probes' outputs copied there).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib/image.sh"
require_root
require_cmds jq python3
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
RUNC=${RUNC:-/usr/sbin/runc}
[ -x "$RUNC" ] || skip_all "runc not found: $RUNC"
RUNSC=${SANDSHIM_TEST_RUNSC:-$(command -v runsc)}
PROBE=$HERE/probes/escape_probe.sh
# python3 with ctypes (python3-minimal has none): the syscall lines need it
IMAGE_SPEC="debootstrap:bookworm+curl,python3,ca-certificates"

W=$(mktemp -d /tmp/sandshim-attack-esc.XXXXXX)
chmod 755 "$W"
ROOT=$W/root
install_traps
on_exit 'rm -rf "$W"'
on_exit 'unmount_under "$W"'
on_exit 'for s in $(S session list --json 2>/dev/null | jq -r ".[].id"); do S session delete "$s" >/dev/null 2>&1; done'
on_exit 'for c in $(S list -q 2>/dev/null); do S delete --force "$c" >/dev/null 2>&1; done'
on_exit 'for c in $("$RUNC" --root "$W/runc" list -q 2>/dev/null); do "$RUNC" --root "$W/runc" delete --force "$c"; done'
on_exit 'for c in $("$RUNSC" --root "$W/runsc" list -q 2>/dev/null); do "$RUNSC" --root "$W/runsc" delete --force "$c"; done'
export SANDSHIM_CONFIG=$W/config.json
printf '{"runsc": "%s", "audit_dir": "%s/audit"}\n' "$RUNSC" "$W" >"$SANDSHIM_CONFIG"
S() { "$SANDSHIM_BIN" --root "$ROOT" "$@"; }
# every run's stdin: a file of ours, never a host device (a runsc chowns the stdio it is
# handed to the sandbox's user: /dev/zero was found nobody's after this suite used it)
: >"$W/stdin"

IMAGE=$(S rootfs build "$IMAGE_SPEC" 2>"$W/image.log") || skip_all "rootfs build failed: $(tail -2 "$W/image.log")"
[ -x "$IMAGE/usr/bin/python3" ] || skip_all "no python3 in $IMAGE"

# bundle NAME [weak]: docker's defaults (its capabilities, no NNP, a writable root over an
# overlay of the cached image, /sys/fs/cgroup read-only) with sandshim's default seccomp
# profile (docker's); "weak" drops the seccomp filter (the control).
bundle() {
  local b=$W/b-$1
  mkdir -p "$b"/{rootfs,upper,work}
  mount -t overlay overlay -o "lowerdir=$IMAGE,upperdir=$b/upper,workdir=$b/work" "$b/rootfs" || return 1
  S spec -b "$b" || return 1
  python3 - "$b/config.json" "$PROBE" "${2:-}" <<'PY'
import json, sys
p, probe, weak = sys.argv[1:]
d = json.load(open(p))
caps = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW", "CAP_SETGID",
        "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"]
pr = d["process"]
pr["capabilities"] = {k: caps for k in ("bounding", "effective", "permitted")}
pr.update(noNewPrivileges=False, terminal=False, args=["sleep", "600"], rlimits=[],
          env=["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME=probe", "HOME=/root"])
d["root"] = {"path": "rootfs", "readonly": False}
d["hostname"] = "probe"
d["mounts"] += [{"destination": "/probe.sh", "type": "bind", "source": probe, "options": ["rbind", "ro"]},
                {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["ro", "nosuid", "noexec", "nodev"]}]
d["linux"].pop("cgroupsPath", None)
if weak: d["linux"].pop("seccomp")
json.dump(d, open(p, "w"), indent=1)
PY
}

# probe_run NAME RUNTIME-ARGV...: the probe as init (NAME.init) and as an exec (NAME.exec) of
# one container; the runtime speaks runc's CLI (runc, raw runsc, sandshim).
probe_run() {
  local name=$1; shift
  local b=$W/b-$name id=esc-$name-$$
  (cd "$b" && "$@" create --bundle "$b" "$id" <"$W/stdin" >"$W/$name.create" 2>&1) || return $(fail "$name: create: $(tail -2 "$W/$name.create")")
  "$@" start "$id" || return $(fail "$name: start")
  "$@" exec "$id" sh /probe.sh <"$W/stdin" >"$W/$name.exec" 2>"$W/$name.exec.err"
  "$@" delete --force "$id" >/dev/null 2>&1
  # the init: the same bundle, the probe as its process
  jq '.process.args = ["sh", "/probe.sh"]' "$b/config.json" >"$b/c.json" && mv "$b/c.json" "$b/config.json"
  (cd "$b" && "$@" run --bundle "$b" "$id-i" <"$W/stdin" >"$W/$name.init" 2>"$W/$name.init.err")
  "$@" delete --force "$id-i" >/dev/null 2>&1
  umount "$b/rootfs"
  [ -s "$W/$name.init" ] && [ -s "$W/$name.exec" ] || fail "$name: no probe output: $(head -c 300 "$W/$name.exec.err" "$W/$name.init.err")"
}
line() { awk -v k="$2: " 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }' "$W/$1"; } # FILE KEY

# The syscalls docker's profile refuses (as the probe calls them; runc's column is the reference).
SYSCALLS="keyctl add_key request_key bpf perf_event_open io_uring_setup userfaultfd kexec_load open_by_handle_at init_module syslog_read personality_bad setns unshare_user unshare_ns mount_tmpfs"

# same_as_runc WHAT FILE: every syscall line and the seccomp mode as runc's (from runc.FILE's mode)
same_as_runc() {
  local what=$1 f=$2 k bad=""
  local mode=${f##*.}
  [ "$(line "$f" status.Seccomp)" = "$(line "runc.$mode" status.Seccomp)" ] ||
    bad="Seccomp $(line "$f" status.Seccomp) (runc $(line "runc.$mode" status.Seccomp))"
  for k in $SYSCALLS; do
    [ "$(line "$f" "sys.$k")" = "$(line "runc.$mode" "sys.$k")" ] || bad="$bad $k=$(line "$f" "sys.$k") (runc $(line "runc.$mode" "sys.$k"))"
  done
  [ -z "$bad" ] || fail "$what: weaker than runc: $bad"
}

known_gap() { # CHECK-FUNCTION ARGS...: a known gVisor exec gap skips unless ESCAPE_STRICT=1
  "$@" && return 0
  [ "${ESCAPE_STRICT:-0}" = 1 ] && return 1
  skip "known gap (docs/EXEC_SECCOMP.md): $REASON"
}

check_reference() {
  bundle runc && probe_run runc "$RUNC" --root "$W/runc" || return
  [ "$(line runc.init status.Seccomp)" = 2 ] && [ "$(line runc.exec status.Seccomp)" = 2 ] || fail "runc: no filter"
}
check_control() {
  bundle weak weak && probe_run weak "$RUNC" --root "$W/runc" || return
  assert_eq allowed "$(line weak.exec sys.keyctl)" "control: keyctl without the filter" || return
  assert_eq allowed "$(line weak.exec sys.unshare_user)" "control: unshare(CLONE_NEWUSER) without the filter"
}
check_backend() { # BACKEND MODE
  [ -s "$W/$1.$2" ] || { bundle "$1" && probe_run "$1" "$SANDSHIM_BIN" --root "$ROOT" --backend "$1"; } || return
  same_as_runc "sandshim $1 $2" "$1.$2"
}
check_devices_control() {
  bundle runsc && probe_run runsc "$RUNSC" --root "$W/runsc" --network=none || return
  assert_eq OPENED "$(line runsc.exec dev.open./dev/fuse)" "raw runsc: /dev/fuse" || return
  assert_eq OPENED "$(line runsc.exec dev.open./dev/net/tun)" "raw runsc: /dev/net/tun"
}
check_devices() { # MODE
  local d
  for d in /dev/fuse /dev/net/tun; do
    case $(line "gvisor.$1" "dev.open.$d") in OPENED) return $(fail "sandshim gvisor $1: $d is the Sentry's device (runc: $(line "runc.$1" "dev.open.$d"))") ;; esac
  done
}
# What names sandshim's or runsc's state, the host's sockets or other roots in a mount table.
# A bind's root= field is its source's path inside the source's filesystem: on Linux (runc,
# native) it names the host directory bound (docker's volumes show /var/lib/docker/volumes/…,
# a native session's context home and trusted tools their directory under the state root), so
# with ROOTS_OK=1 only the other fields are judged. gVisor shows root=/ for every bind.
HOSTISH='/run/sandshim|/var/lib/sandshim|/var/log/sandshim|runsc|[.]sock|/run/containerd|/var/run/docker'
check_leaks() { # FILE: nothing of the host or the caller in the probe's view
  local f=$1 v
  v=$(line "$f" env.leaks); [ -z "$v" ] || return $(fail "$f: caller's env: $v")
  v=$(grep -E '^mount[.]' "$W/$f"); [ "${ROOTS_OK:-0}" = 0 ] || v=$(sed 's/ root=[^ ]*//' <<<"$v")
  v=$(grep -E "$HOSTISH|$ROOT" <<<"$v"); [ -z "$v" ] || return $(fail "$f: host state in mountinfo: $v")
  v=$(grep -E '^fd[.][0-9]+:' "$W/$f" | grep -vE '^fd[.][012]:'); [ -z "$v" ] || return $(fail "$f: inherited fds: $v")
  v=$(line "$f" procs.hostish); [ "$v" = none ] || return $(fail "$f: host processes: $v")
  v=$(line "$f" sockets); [ -z "${v// /}" ] || fail "$f: sockets: $v"
}
session_probe() { # BACKEND: s-B (plain exec) and c-B (a context's exec), the caller's env set
  local sid=esc-$1-$$ ws=$W/ws-$1
  mkdir -p "$ws" && cp "$PROBE" "$ws/.probe.sh" && chmod 755 "$ws"
  export SSH_AUTH_SOCK=/tmp/caller-agent.sock GITHUB_TOKEN=caller-token SANDSHIM_CALLER_CANARY=1
  S --backend "$1" session create "$sid" --rootfs "$IMAGE" --workspace "$ws" >/dev/null || return $(fail "session create $1")
  S session exec "$sid" -- sh /workspace/.probe.sh <"$W/stdin" >"$W/s-$1" 2>/dev/null
  S session context create "$sid" plat >/dev/null || return $(fail "context create $1")
  S session exec --context plat "$sid" -- sh /workspace/.probe.sh <"$W/stdin" >"$W/c-$1" 2>/dev/null
  S session delete "$sid" >/dev/null
  unset SSH_AUTH_SOCK GITHUB_TOKEN SANDSHIM_CALLER_CANARY
}
check_session() { # BACKEND KIND(s|c)
  [ -s "$W/s-$1" ] || session_probe "$1" || return
  check_leaks "$2-$1" || return
  [ "$(line "$2-$1" status.Seccomp)" = 2 ] || fail "session $1 ($2): Seccomp $(line "$2-$1" status.Seccomp), runc's execs 2"
}

run_check "reference: runc, docker's defaults, filters its init and its execs" check_reference
run_check "control: runc without the filter lets keyctl and unshare(CLONE_NEWUSER) through" check_control
run_check "native init: the syscalls refused as runc refuses them" check_backend native init
run_check "native exec: the syscalls refused as runc refuses them" check_backend native exec
run_check "gvisor init: the syscalls refused as runc refuses them" check_backend gvisor init
run_check "gvisor exec: the syscalls refused as runc refuses them" known_gap check_backend gvisor exec
run_check "control: raw runsc gives every container the Sentry's /dev/fuse and /dev/net/tun" check_devices_control
run_check "gvisor init: no /dev/fuse, /dev/net/tun (runc with docker's defaults has neither)" check_devices init
run_check "gvisor exec: no /dev/fuse, /dev/net/tun" check_devices exec
run_check "gvisor init and exec: nothing of the host in view (env, mounts, fds, processes, sockets)" eval 'check_leaks gvisor.init && check_leaks gvisor.exec'
run_check "native init and exec: nothing of the host in view" eval 'check_leaks native.init && check_leaks native.exec'
run_check "gvisor session: a context's exec is filtered (the broker forks it), nothing of the caller or host in view" check_session gvisor c
run_check "gvisor session: a plain exec is filtered, nothing of the caller or host in view" known_gap check_session gvisor s
run_check "native session: plain and context execs filtered, nothing of the caller or host in view (binds' roots as runc's)" eval 'ROOTS_OK=1 check_session native s && ROOTS_OK=1 check_session native c'
[ -z "${ESCAPE_KEEP:-}" ] || { mkdir -p "$ESCAPE_KEEP" && cp "$W"/*.init "$W"/*.exec "$W"/s-* "$W"/c-* "$ESCAPE_KEEP"/ 2>/dev/null; }
[ "$(stat -c %U:%a /dev/null)" = root:666 ] || log "LEAK: /dev/null is $(stat -c %U:%a /dev/null)"
finish_checks
