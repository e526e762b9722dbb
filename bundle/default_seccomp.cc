#include "bundle/default_seccomp.h"

#include <algorithm>
#include <sstream>

namespace sandshim::bundle {
namespace json = boost::json;
namespace {

// Always allowed: what ordinary programs need, and nothing that reaches a kernel subsystem
// an unprivileged container has no business with (mount, namespaces, keyrings, bpf, perf,
// userfaultfd, io_uring, module loading, clock setting, reboot, ...: they fall to EPERM).
// Names a libseccomp does not know on this machine are skipped when the filter is loaded.
constexpr const char* kAllowed =
    "accept accept4 access adjtimex alarm bind brk capget capset chdir chmod chown chown32 "
    "clock_adjtime clock_adjtime64 clock_getres clock_getres_time64 clock_gettime clock_gettime64 "
    "clock_nanosleep clock_nanosleep_time64 close close_range connect copy_file_range creat dup dup2 dup3 "
    "epoll_create epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait epoll_pwait2 epoll_wait epoll_wait_old "
    "eventfd eventfd2 execve execveat exit exit_group faccessat faccessat2 fadvise64 fadvise64_64 fallocate "
    "fanotify_mark fchdir fchmod fchmodat fchown fchown32 fchownat fcntl fcntl64 fdatasync fgetxattr flistxattr "
    "flock fork fremovexattr fsetxattr fstat fstat64 fstatat64 fstatfs fstatfs64 fsync ftruncate ftruncate64 "
    "futex futex_time64 futex_waitv futimesat getcpu getcwd getdents getdents64 getegid getegid32 geteuid "
    "geteuid32 getgid getgid32 getgroups getgroups32 getitimer getpeername getpgid getpgrp getpid getppid "
    "getpriority getrandom getresgid getresgid32 getresuid getresuid32 getrlimit get_robust_list getrusage "
    "getsid getsockname getsockopt get_thread_area gettid gettimeofday getuid getuid32 getxattr "
    "inotify_add_watch inotify_init inotify_init1 inotify_rm_watch io_cancel ioctl io_destroy io_getevents "
    "io_pgetevents io_pgetevents_time64 ioprio_get ioprio_set io_setup io_submit ipc kill "
    "landlock_add_rule landlock_create_ruleset landlock_restrict_self lchown lchown32 lgetxattr link linkat "
    "listen listxattr llistxattr _llseek lremovexattr lseek lsetxattr lstat lstat64 madvise membarrier "
    "memfd_create memfd_secret mincore mkdir mkdirat mknod mknodat mlock mlock2 mlockall mmap mmap2 mprotect "
    "mq_getsetattr mq_notify mq_open mq_timedreceive mq_timedreceive_time64 mq_timedsend mq_timedsend_time64 "
    "mq_unlink mremap msgctl msgget msgrcv msgsnd msync munlock munlockall munmap name_to_handle_at nanosleep "
    "newfstatat _newselect open openat openat2 pause pidfd_open pidfd_send_signal pipe pipe2 pkey_alloc "
    "pkey_free pkey_mprotect poll ppoll ppoll_time64 prctl pread64 preadv preadv2 prlimit64 process_mrelease "
    "pselect6 pselect6_time64 pwrite64 pwritev pwritev2 read readahead readlink readlinkat readv recv recvfrom "
    "recvmmsg recvmmsg_time64 recvmsg remap_file_pages removexattr rename renameat renameat2 restart_syscall "
    "rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo rt_sigreturn rt_sigsuspend "
    "rt_sigtimedwait rt_sigtimedwait_time64 rt_tgsigqueueinfo sched_getaffinity sched_getattr sched_getparam "
    "sched_get_priority_max sched_get_priority_min sched_getscheduler sched_rr_get_interval "
    "sched_rr_get_interval_time64 sched_setaffinity sched_setattr sched_setparam sched_setscheduler sched_yield "
    "seccomp select semctl semget semop semtimedop semtimedop_time64 send sendfile sendfile64 sendmmsg sendmsg "
    "sendto setfsgid setfsgid32 setfsuid setfsuid32 setgid setgid32 setgroups setgroups32 setitimer setpgid "
    "setpriority setregid setregid32 setresgid setresgid32 setresuid setresuid32 setreuid setreuid32 setrlimit "
    "set_robust_list setsid setsockopt set_thread_area set_tid_address setuid setuid32 setxattr shmat shmctl "
    "shmdt shmget shutdown sigaltstack signalfd signalfd4 sigprocmask sigreturn socketcall socketpair splice "
    "stat stat64 statfs statfs64 statx symlink symlinkat sync sync_file_range syncfs sysinfo tee tgkill time "
    "timer_create timer_delete timer_getoverrun timer_gettime timer_gettime64 timer_settime timer_settime64 "
    "timerfd_create timerfd_gettime timerfd_gettime64 timerfd_settime timerfd_settime64 times tkill truncate "
    "truncate64 ugetrlimit umask uname unlink unlinkat utime utimensat utimensat_time64 utimes vfork vmsplice "
    "wait4 waitid waitpid write writev "
    // Docker allows these from kernel 4.8 on (seccomp is checked again after ptrace then).
    "process_vm_readv process_vm_writev ptrace";

// Allowed only when the process keeps the capability (Docker: "includes": {"caps": [...]}).
struct CapRule {
  const char* cap;
  const char* names;
};
constexpr CapRule kByCapability[] = {
    {"CAP_DAC_READ_SEARCH", "open_by_handle_at"},
    {"CAP_SYS_ADMIN",
     "bpf clone clone3 fanotify_init fsconfig fsmount fsopen fspick lookup_dcookie mount mount_setattr move_mount "
     "open_tree perf_event_open quotactl quotactl_fd setdomainname sethostname setns syslog umount umount2 unshare"},
    {"CAP_SYS_BOOT", "reboot"},
    {"CAP_SYS_CHROOT", "chroot"},
    {"CAP_SYS_MODULE", "delete_module init_module finit_module"},
    {"CAP_SYS_PACCT", "acct"},
    {"CAP_SYS_PTRACE", "kcmp pidfd_getfd process_madvise process_vm_readv process_vm_writev ptrace"},
    {"CAP_SYS_RAWIO", "iopl ioperm"},
    {"CAP_SYS_TIME", "settimeofday stime clock_settime clock_settime64"},
    {"CAP_SYS_TTY_CONFIG", "vhangup"},
    {"CAP_SYS_NICE", "get_mempolicy mbind set_mempolicy set_mempolicy_home_node"},
    {"CAP_SYSLOG", "syslog"},
    {"CAP_BPF", "bpf"},
    {"CAP_PERFMON", "perf_event_open"},
};

// Every CLONE_NEW* flag: clone without CAP_SYS_ADMIN may not make namespaces.
constexpr uint64_t kCloneNamespaceFlags = 0x7E020000;  // NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
constexpr int kAfVsock = 40;

json::array Names(const char* words) {
  json::array out;
  std::istringstream in(words);
  for (std::string w; in >> w;) out.emplace_back(w);
  return out;
}

json::object Allow(const char* names) { return {{"names", Names(names)}, {"action", "SCMP_ACT_ALLOW"}}; }

json::object AllowIf(const char* names, unsigned index, uint64_t value, uint64_t value_two, const char* op) {
  json::object arg{{"index", index}, {"value", value}, {"op", op}};
  if (value_two) arg["valueTwo"] = value_two;
  return {{"names", Names(names)}, {"action", "SCMP_ACT_ALLOW"}, {"args", json::array{arg}}};
}

// The architectures of this machine's native ABI and its compat ABIs (Docker's archMap).
json::array Architectures() {
#if defined(__x86_64__)
  return {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"};
#elif defined(__aarch64__)
  return {"SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"};
#else
  return {};
#endif
}

// Architecture-specific allowances (Docker: "includes": {"arches": [...]}).
void AddArchRules(json::array& rules) {
#if defined(__x86_64__)
  rules.push_back(Allow("arch_prctl modify_ldt"));
#elif defined(__aarch64__)
  rules.push_back(Allow("arm_fadvise64_64 arm_sync_file_range sync_file_range2 breakpoint cacheflush set_tls"));
#endif
}

}  // namespace

json::object DefaultSeccomp(const std::vector<std::string>& bounding) {
  auto has = [&](std::string_view cap) { return std::find(bounding.begin(), bounding.end(), cap) != bounding.end(); };
  json::array rules;
  rules.push_back(Allow(kAllowed));
  rules.push_back(AllowIf("socket", 0, kAfVsock, 0, "SCMP_CMP_NE"));
  // personality: PER_LINUX, PER_LINUX32, UNAME26, UNAME26|PER_LINUX32, and the query (0xffffffff).
  for (uint64_t persona : {0x0ull, 0x8ull, 0x20000ull, 0x20008ull, 0xffffffffull})
    rules.push_back(AllowIf("personality", 0, persona, 0, "SCMP_CMP_EQ"));
  AddArchRules(rules);
  for (const auto& r : kByCapability)
    if (has(r.cap)) rules.push_back(Allow(r.names));
  if (!has("CAP_SYS_ADMIN")) {
    // flags & kCloneNamespaceFlags == 0 (libseccomp: arg & value == valueTwo).
    rules.push_back(AllowIf("clone", 0, kCloneNamespaceFlags, 0, "SCMP_CMP_MASKED_EQ"));
    // clone3 passes its flags in memory, out of seccomp's reach: ENOSYS makes glibc (2.34+)
    // fall back to clone, whose flags the rule above checks.
    rules.push_back({{"names", json::array{"clone3"}}, {"action", "SCMP_ACT_ERRNO"}, {"errnoRet", 38}});
  }
  return {{"defaultAction", "SCMP_ACT_ERRNO"},
          {"defaultErrnoRet", 1},
          {"architectures", Architectures()},
          {"syscalls", std::move(rules)}};
}

}  // namespace sandshim::bundle
