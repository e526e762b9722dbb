// #33, measured before it is built: can an in-sandbox tracer refuse an exec by its final argv,
// on gVisor (which has no seccomp user notification) as on Linux, and what does it cost?
// The child is seized (PTRACE_SEIZE with TRACESECCOMP|TRACEFORK|TRACEVFORK|TRACECLONE|EXITKILL),
// installs a filter that returns SECCOMP_RET_TRACE for execve/execveat, and runs N fork+exec
// of /bin/true; at each seccomp stop the tracer reads argv[0] (process_vm_readv, else
// /proc/PID/mem) and lets it run, or skips it with -EPERM (orig_rax = -1, rax = -EPERM through
// PTRACE_SETREGS) when argv[0]'s name is the denied one. It also checks that a signal the child
// sends itself is delivered (re-injected) and that the child's exit code comes through.
// Printed: what held, and ns per fork+exec without and with the tracer, same run.
// Build: cc -O2 -static -o exec_trace_probe exec_trace_probe.c   Run: ./exec_trace_probe [N]
// (inside a sandbox: copy it into the workspace and `sandshim session exec ID -- /workspace/...`).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int InstallFilter(void) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
  };
  struct sock_fprog prog = {sizeof f / sizeof f[0], f};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int vm_ok = 0, mem_ok = 0, setregs_ok = 0, stops = 0;

static int ReadMem(pid_t pid, uint64_t addr, void* out, size_t n) {
  struct iovec local = {out, n}, remote = {(void*)addr, n};
  if (process_vm_readv(pid, &local, 1, &remote, 1, 0) > 0) { vm_ok++; return 0; }
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int ok = pread(fd, out, n, (off_t)addr) > 0;
  close(fd);
  if (ok) mem_ok++;
  return ok ? 0 : -1;
}

static int Denied(pid_t pid, const char* denied) {
  struct user_regs_struct r;
  if (ptrace(PTRACE_GETREGS, pid, 0, &r) != 0) return 1;  // fail closed
  uint64_t argvp = r.orig_rax == __NR_execve ? r.rsi : r.rdx, a0 = 0;
  char name[256] = "";
  if (ReadMem(pid, argvp, &a0, sizeof a0) != 0 || !a0 || ReadMem(pid, a0, name, sizeof name - 1) != 0) return 1;
  name[sizeof name - 1] = 0;
  const char* base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
  return strcmp(base, denied) == 0;
}

static void Refuse(pid_t pid) {
  struct user_regs_struct r;
  if (ptrace(PTRACE_GETREGS, pid, 0, &r) != 0) { kill(pid, SIGKILL); return; }
  r.orig_rax = (uint64_t)-1;
  r.rax = (uint64_t)-EPERM;
  if (ptrace(PTRACE_SETREGS, pid, 0, &r) == 0) setregs_ok++;
  else kill(pid, SIGKILL);
}

// Until no tracee is left; returns the top's wait status.
static int Trace(pid_t top, const char* denied) {
  pid_t seen[4096];
  int nseen = 0, top_status = -1;
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, __WALL);
    if (p < 0) { if (errno == EINTR) continue; break; }
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
      if (p == top) top_status = st;
      continue;
    }
    if (!WIFSTOPPED(st)) continue;
    int sig = WSTOPSIG(st), ev = st >> 16, known = 0;
    for (int i = 0; i < nseen && !known; ++i) known = seen[i] == p;
    if (!known && nseen < 4096) seen[nseen++] = p;
    if (ev == PTRACE_EVENT_SECCOMP) {
      stops++;
      if (Denied(p, denied)) Refuse(p);
      ptrace(PTRACE_CONT, p, 0, 0);
    } else if (ev == PTRACE_EVENT_STOP) {
      // A new tracee's first stop, or a group-stop (kept stopped, still traced).
      if (known && (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)) ptrace(PTRACE_LISTEN, p, 0, 0);
      else ptrace(PTRACE_CONT, p, 0, 0);
    } else if (ev) {
      ptrace(PTRACE_CONT, p, 0, 0);  // fork, vfork, clone
    } else {
      ptrace(PTRACE_CONT, p, 0, sig);  // a signal: delivered as it came
    }
  }
  return top_status;
}

static long Execs(int n) {
  long t0 = Now();
  for (int i = 0; i < n; ++i) {
    pid_t p = fork();
    if (p == 0) {
      execl("/bin/true", "true", (char*)NULL);
      _exit(127);
    }
    waitpid(p, NULL, 0);
  }
  return (Now() - t0) / n;
}

static volatile sig_atomic_t got_usr1 = 0;
static void OnUsr1(int s) { (void)s; got_usr1 = 1; }

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200, rounds = 3;
  long plain = 0, traced = 0;
  int denied_ok = 0, signal_ok = 0, exit_ok = 0, seize_ok = 0, filter_ok = 0;
  for (int r = 0; r < rounds; ++r) {
    plain += Execs(n);
    int go[2], res[2];
    if (pipe(go) != 0 || pipe(res) != 0) return 1;
    pid_t child = fork();
    if (child == 0) {
      char c;
      if (read(go[0], &c, 1) != 1) _exit(2);
      int fok = InstallFilter() == 0;
      long ns = fok ? Execs(n) : 0;
      int ok = execl("/bin/true", "deniedcmd", (char*)NULL) == -1 && errno == EPERM;
      signal(SIGUSR1, OnUsr1);
      raise(SIGUSR1);
      int sok = got_usr1;
      if (write(res[1], &ns, sizeof ns) < 0 || write(res[1], &ok, sizeof ok) < 0 || write(res[1], &sok, sizeof sok) < 0 ||
          write(res[1], &fok, sizeof fok) < 0)
        _exit(3);
      _exit(7);
    }
    long opts = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL;
    if (ptrace(PTRACE_SEIZE, child, 0, opts) == 0) seize_ok++;
    else fprintf(stderr, "PTRACE_SEIZE: %s\n", strerror(errno));
    if (write(go[1], "g", 1) != 1) return 1;
    int st = Trace(child, "deniedcmd");
    exit_ok += WIFEXITED(st) && WEXITSTATUS(st) == 7;
    long ns = 0;
    int ok = 0, sok = 0, fok = 0;
    if (read(res[0], &ns, sizeof ns) != sizeof ns || read(res[0], &ok, sizeof ok) != sizeof ok ||
        read(res[0], &sok, sizeof sok) != sizeof sok || read(res[0], &fok, sizeof fok) != sizeof fok)
      return 1;
    traced += ns;
    denied_ok += ok;
    signal_ok += sok;
    filter_ok += fok;
    close(go[0]); close(go[1]); close(res[0]); close(res[1]);
  }
  printf("seize %d/%d, RET_TRACE filter %d/%d, seccomp stops %d, argv read: process_vm_readv %d /proc/PID/mem %d, "
         "SETREGS skip %d; denied argv refused with EPERM %d/%d, signal delivered %d/%d, exit code kept %d/%d\n",
         seize_ok, rounds, filter_ok, rounds, stops, vm_ok, mem_ok, setregs_ok, denied_ok, rounds, signal_ok, rounds,
         exit_ok, rounds);
  printf("fork+exec /bin/true: %ld ns plain, %ld ns traced (+%.1f%%)\n", plain / rounds, traced / rounds,
         100.0 * (traced - plain) / plain);
  return denied_ok == rounds && signal_ok == rounds && exit_ok == rounds ? 0 : 1;
}
