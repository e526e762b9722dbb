#!/bin/sh
# escape_probe.sh: what a process inside a container can see and do, one "key: value" line
# per probe, sorted, so two runs (runc with docker's defaults, sandshim on a backend) diff.
# POSIX sh + coreutils/busybox; the syscall probes need python3 (ctypes), else "no-python".
# Values that differ between any two runs by nature (pids, addresses) are summarised.
# Arguments: host addresses to try to reach (ip or ip:port; port 22 and 80 if none).
# Nothing is changed that outlives the probe: every attempt that succeeds is undone.
LC_ALL=C; export LC_ALL
out() { printf '%s: %s\n' "$1" "$2"; }
names() { for f in "$1"/* "$1"/.[!.]*; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s ' "${f##*/}"; fi; done; }
st() { sed -n "s/^$1:[[:space:]]*//p" /proc/self/status | head -n 1; }

out id "$(id 2>/dev/null)"
for k in CapEff CapPrm CapInh CapBnd CapAmb NoNewPrivs Seccomp; do out "status.$k" "$(st "$k")"; done
out oom_score_adj "$(cat /proc/self/oom_score_adj 2>&1)"
out rlimits "$(awk -F '  +' '/^Max/ { sub(/^Max /, "", $1); gsub(/ /, "_", $1); printf "%s=%s/%s,", $1, $2, $3 }' /proc/self/limits)"
out hostname "$(hostname 2>&1)"
out domainname "$(cat /proc/sys/kernel/domainname 2>&1)"
out core_pattern "$(cat /proc/sys/kernel/core_pattern 2>&1)"

# masked: readable content means not masked (a /dev/null bind reads 0 bytes, a tmpfs is empty)
for p in /proc/kcore /proc/keys /proc/timer_list /proc/sched_debug /proc/latency_stats /proc/timer_stats \
         /proc/scsi /sys/firmware /proc/acpi /sys/devices/virtual/powercap; do
  if [ -d "$p" ]; then v="dir entries=$(names "$p" | wc -w)"
  elif [ -e "$p" ]; then v="bytes=$(head -c 64 "$p" 2>/dev/null | wc -c)"
  else v=absent; fi
  out "masked.$p" "$v"
done
# read-only: opening for write (nothing written) must fail
for p in /proc/sys/kernel/hostname /proc/sysrq-trigger /proc/irq/default_smp_affinity /proc/bus \
         /sys/kernel/uevent_helper /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/cgroup.subtree_control \
         /proc/sys/kernel/core_pattern /sys/class/net; do
  if [ ! -e "$p" ]; then out "ro.$p" absent; continue; fi
  if [ -d "$p" ]; then
    if mkdir "$p/.probe_w" 2>/dev/null; then rmdir "$p/.probe_w"; out "ro.$p" WRITABLE; else out "ro.$p" refused; fi
  elif ( : >>"$p" ) 2>/dev/null; then out "ro.$p" WRITABLE; else out "ro.$p" refused; fi
done
if mkdir /sys/fs/cgroup/.probe_cg 2>/dev/null; then rmdir /sys/fs/cgroup/.probe_cg; out cgroup.mkdir WRITABLE; else out cgroup.mkdir refused; fi
if ( : >/.probe_rootfs_w ) 2>/dev/null; then rm -f /.probe_rootfs_w; out rootfs.write yes; else out rootfs.write no; fi
out dev "$(names /dev)"
# the value written is the one there: a write that works changes nothing
h=$(cat /proc/sys/kernel/hostname 2>/dev/null)
if [ -n "$h" ] && ( printf '%s\n' "$h" >/proc/sys/kernel/hostname ) 2>/dev/null; then out proc.sys.hostname.write WRITTEN; else out proc.sys.hostname.write refused; fi
for d in /dev/fuse /dev/net/tun /dev/kvm /dev/mem; do
  # a device node that opens is the device; anything else (absent, an empty file bound over it) is not
  if [ ! -e "$d" ]; then out "dev.open.$d" absent; elif [ ! -c "$d" ]; then out "dev.open.$d" "not a device"
  elif ( : <"$d" ) 2>/dev/null; then out "dev.open.$d" OPENED; else out "dev.open.$d" refused; fi
done
if ( head -c 1 /dev/kmsg >/dev/null ) 2>/dev/null; then out dev.kmsg.read YES; else out dev.kmsg.read refused; fi
out dmesg "$(dmesg 2>/dev/null | head -n 1 | wc -c)"
if mknod /tmp/.probe_mem c 1 1 2>/dev/null; then
  if ( head -c 1 /tmp/.probe_mem >/dev/null ) 2>/dev/null; then out mknod.mem "made, READABLE"; else out mknod.mem "made, open refused"; fi
  rm -f /tmp/.probe_mem
else out mknod.mem refused; fi

# mounts: every mount point with its type and source; and what names host things
out mounts.count "$(wc -l </proc/self/mountinfo)"
awk '{ s = ""; for (i = 7; i <= NF; i++) if ($i == "-") { s = $(i+1) " " $(i+2); break }
       print "mount." $5 ": " s " root=" $4 " " $6 }' /proc/self/mountinfo | sort
out mounts.hostish "$(grep -E '/var/lib/sandshim|/run/sandshim|/tmp/|runsc|/work/|\.sock|docker|containerd|/root|/home' /proc/self/mountinfo | wc -l)"
out sockets "$(find / -xdev -type s 2>/dev/null | head -n 5 | tr '\n' ' ') $(ls /var/run/docker.sock /run/docker.sock /run/containerd/containerd.sock 2>/dev/null | tr '\n' ' ')"

# processes
n=0; host=""
for d in /proc/[0-9]*; do
  n=$((n + 1))
  c=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null | cut -c 1-40)
  case $c in *dockerd* | *containerd* | *systemd* | *sshd* | *runsc* | *sandshim* | *cron*) host="$host [$c]" ;; esac
done
out procs.count "$n"
out procs.hostish "${host:-none}"
if [ -r /proc/1/environ ] && [ "$(wc -c </proc/1/environ)" -gt 0 ]; then out proc1.environ "readable: $(tr '\0' '\n' </proc/1/environ | cut -d= -f1 | sort | tr '\n' ' ')"; else out proc1.environ unreadable; fi
out proc.others.environ "$(for d in /proc/[0-9]*; do [ "$d" = /proc/$$ ] && continue; [ -r "$d/environ" ] && [ -s "$d/environ" ] && echo "${d#/proc/}"; done 2>/dev/null | wc -l) readable"
out env.names "$(env | cut -d= -f1 | sort | tr '\n' ' ')"
out env.leaks "$(env | grep -E '^(SANDSHIM|SSH_|SUDO_|XDG_|DBUS|KUBE|DOCKER|CONTAINERD|GIT_|AWS|GH_|GITHUB)|TOKEN|SECRET|PASSWORD' | cut -d= -f1 | tr '\n' ' ')"
out env.HOME "${HOME:-unset}"
# the shell's own script fd (dash: 10) and the glob's directory fd are the probe's
for f in /proc/self/fd/*; do
  n=${f##*/}; case $n in 0 | 1 | 2) ;; *) l=$(readlink "$f" 2>/dev/null); case $l in */escape_probe.sh | /probe.sh | /proc/*/fd) continue ;; esac ;; esac
  [ -n "$(readlink "$f" 2>/dev/null)" ] && out "fd.$n" "$(readlink "$f" 2>/dev/null)"
done
out setuid "$(find / -xdev -perm -4000 -type f 2>/dev/null | head -n 8 | tr '\n' ' ')"

# network: the default route's gateway, the metadata address, the given host addresses
gw=$(awk '$2 == "00000000" && $3 != "00000000" { g = $3; printf "%d.%d.%d.%d", "0x" substr(g,7,2), "0x" substr(g,5,2), "0x" substr(g,3,2), "0x" substr(g,1,2); exit }' /proc/net/route 2>/dev/null)
out net.gateway "${gw:-none}"
out net.ifaces "$(names /sys/class/net)"

if ! command -v python3 >/dev/null 2>&1; then out python no-python; exit 0; fi
python3 - "$gw" "$@" <<'EOF'
import ctypes, errno, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def out(k, v): print(f"{k}: {v}")
def call(nr, *a):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(x) for x in a])
    return "allowed" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
def in_child(fn):
    # a probe that changes the process (unshare, chroot, mount) runs in a child
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try: v = fn()
        except Exception as e: v = "exc " + type(e).__name__
        os.write(w, str(v).encode()); os._exit(0)
    os.close(w); v = os.read(r, 4096).decode(); os.close(r); os.waitpid(pid, 0)
    return v
# 0/NULL arguments: a syscall the filter lets through fails with EFAULT/EINVAL/EBADF, or works
# (then it is undone); EPERM/ENOSYS come from the filter or a missing capability (runc's
# column says which is the reference).
out("sys.keyctl", call(250, 0, -3, 0))                       # KEYCTL_GET_KEYRING_ID session
out("sys.add_key", call(248, 0, 0, 0, 0, 0))
out("sys.request_key", call(249, 0, 0, 0, 0))
out("sys.bpf", call(321, 0, 0, 0))
out("sys.perf_event_open", call(298, 0, 0, -1, -1, 0))
out("sys.io_uring_setup", call(425, 1, 0))
out("sys.userfaultfd", call(323, 0))
out("sys.kexec_load", call(246, 0, 0, 0, 0))
out("sys.open_by_handle_at", call(304, -1, 0, 0))
out("sys.init_module", call(175, 0, 0, 0))
out("sys.syslog_read", call(103, 3, 0, 0))                   # SYSLOG_ACTION_READ_ALL, NULL buffer
out("sys.personality_bad", call(135, 0x0040000))             # ADDR_NO_RANDOMIZE: docker refuses
out("sys.setns", call(308, -1, 0))
out("sys.clone3", call(435, 0, 0))
out("sys.unshare_user", in_child(lambda: call(272, 0x10000000)))
out("sys.unshare_ns", in_child(lambda: call(272, 0x00020000)))  # CLONE_NEWNS
os.makedirs("/tmp/.probe_mnt", exist_ok=True)
def try_mount():
    s = libc.mount(b"none", b"/tmp/.probe_mnt", b"tmpfs", 0, None)
    if s == 0: libc.umount2(b"/tmp/.probe_mnt", 2); return "tmpfs MOUNTED"
    return errno.errorcode.get(ctypes.get_errno())
out("sys.mount_tmpfs", in_child(try_mount))
def ptrace_other():
    pid = os.fork()
    if pid == 0:
        import time; time.sleep(5); os._exit(0)
    try:
        r = libc.ptrace(ctypes.c_long(16), ctypes.c_long(pid), None, None)  # PTRACE_ATTACH
        v = "allowed" if r == 0 else errno.errorcode.get(ctypes.get_errno())
        if r == 0: os.waitpid(pid, 0); libc.ptrace(ctypes.c_long(17), ctypes.c_long(pid), None, None)
    finally: os.kill(pid, 9); os.waitpid(pid, 0)
    return v
out("sys.ptrace_child", in_child(ptrace_other))
def chroot_escape():
    before = os.stat("/")
    os.makedirs("/tmp/.probe_chroot", exist_ok=True)
    try: os.chroot("/tmp/.probe_chroot")
    except OSError as e: return "chroot " + errno.errorcode.get(e.errno)
    for _ in range(64): os.chdir("..")
    os.chroot(".")
    after = os.stat("/")
    return "ESCAPED" if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino) else "same root"
out("chroot_escape", in_child(chroot_escape))
try: os.rmdir("/tmp/.probe_chroot")
except OSError: pass
try: os.rmdir("/tmp/.probe_mnt")
except OSError: pass
def reach(host, port):
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM); s.settimeout(1.5)
    try: s.connect((host, port)); return "CONNECTED"
    except socket.timeout: return "timeout"
    except OSError as e: return errno.errorcode.get(e.errno, str(e.errno))
    finally: s.close()
out("net.metadata", reach("169.254.169.254", 80))
targets = [t for t in sys.argv[1:] if t]
for t in targets:
    host, _, port = t.rpartition(":") if t.count(":") == 1 else (t, "", "")
    ports = [int(port)] if port else [22, 80]
    for p in ports: out(f"net.{host}:{p}", reach(host, p))
EOF
