// sandshim-guard: see guard.h. Three processes, each with one job:
//   guard  (the exec's process)  passes signals to the command, ends as the command ended
//   tracer (the guard's child)   starts the command, traces it and all it starts until no
//                                tracee is left; tells the guard the command's pid and status
//   command (the tracer's child) installs the exec filter, execs CMD (command.cc)
// The tracer shares the guard's memory (clone(CLONE_VM) onto a stack of its own, no copy of
// the address space: the costly part of a fork in the Sentry). Both run from then on, so the
// guard, once the tracer is started, keeps to raw syscalls and a few libc calls that cannot
// fail (errno, the heap and libc's locks are the tracer's from then on) and never returns
// through libc's exit; what the tracer reads (the rules, the identities) is static.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ctx-helper/clone_vm.h"
#include "exec-guard/guard.h"

using namespace sandshim;

namespace {

pid_t g_command = 0;
sigset_t g_mask;  // the exec's signal mask, the command's again
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGTSTP, SIGALRM};

void Say(const std::string& s) {
  std::string line = "sandshim-guard: " + s + "\n";
  (void)!::write(2, line.data(), line.size());
}

void Forward(int sig) {
  if (g_command > 0) rawsys::Sys(__NR_kill, g_command, sig);
}
void Ignore(int) {}

bool WriteInt(int fd, int v) { return ::write(fd, &v, sizeof v) == sizeof v; }
// The guard's (raw: see above).
bool ReadInt(int fd, int& v) {
  for (;;) {
    long n = rawsys::Sys(__NR_read, fd, reinterpret_cast<long>(&v), sizeof v);
    if (n == -EINTR) continue;
    return n == sizeof v;
  }
}
[[noreturn]] void Exit(int code) {
  for (;;) rawsys::Sys(__NR_exit_group, code);
}

// The tracer: the command's pid, then its wait status, on `report`; then on until no tracee is left.
// `o.identities` is filled here.
[[noreturn]] void RunTracer(char** cmd, int report, guard::TraceOptions o) {
  pid_t pid = guard::StartCommand(cmd, &g_mask, Say);
  // Signals are the guard's to pass on: a terminal's INT, QUIT or TSTP must not end or stop
  // the tracer (the command, started above, keeps the default dispositions).
  for (int sig : kForwarded) ::signal(sig, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);  // a closed stderr or audit pipe must not end the tracing
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (!WriteInt(report, pid) || pid < 0) ::_exit(125);
  // Not dumpable once the command's exec is through (StartCommand: its first exec is a
  // stop), before anything of it runs: no one without CAP_SYS_PTRACE reads or writes our
  // memory (the guard's too: it is the same). Not before: until then the command shares it,
  // and a tracer without CAP_SYS_PTRACE could not read an undumpable tracee's argv.
  o.top_execed = [] { ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); };
  o.top_ended = [report, cmd](int st) {
    guard::SayStartFailure(cmd[0], Say);
    WriteInt(report, st);
    ::close(report);
  };
  // The identities, found while the command installs its filter and comes to its first exec
  // (a stop, which waits for TraceAll below): the two overlap, and nothing of the command has
  // run yet that could move a file under us.
  *o.identities = guard::FindIdentities(policy::DeniedPrograms(*o.rules));
  guard::TraceAll(pid, o);
  ::_exit(0);
}

// The guard ends as the command did: its code, or its fatal signal raised on ourselves
// (setrlimit, signal, sigprocmask: libc's, which cannot fail here).
[[noreturn]] void ExitAs(int st) {
  if (WIFSIGNALED(st)) {
    int sig = WTERMSIG(st);
    rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
    ::signal(sig, SIG_DFL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    ::sigprocmask(SIG_UNBLOCK, &s, nullptr);
    rawsys::Sys(__NR_kill, rawsys::Sys(__NR_getpid), sig);
    Exit(128 + sig);
  }
  Exit(WIFEXITED(st) ? WEXITSTATUS(st) : 125);
}

// What the tracer reads, static: it outlives the guard (whose stack the tracer must not rely on).
policy::Policy g_rules;
std::vector<guard::Identity> g_ids;
struct TracerArgs {
  char** cmd;
  int report[2];
  int audit_fd;
} g_tracer;
[[noreturn]] void TracerMain() {
  ::close(g_tracer.report[0]);
  RunTracer(g_tracer.cmd, g_tracer.report[1], {.rules = &g_rules, .identities = &g_ids, .audit_fd = g_tracer.audit_fd});
}

// The tracer's stack: the main thread's default size, a guard page under it.
void* TracerStackTop() {
  constexpr size_t kSize = 8 << 20, kPage = 4096;
  void* p = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  ::mprotect(p, kPage, PROT_NONE);
  return static_cast<char*>(p) + kSize;
}

// Argument index of CMD, or -1 (said).
int ParseArgs(int argc, char** argv, int& audit_fd) {
  g_rules.unmatched = policy::Decision::kAllow;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") { ++i; break; }
    if (i + 1 >= argc) break;
    if (a == "--audit-fd") {
      audit_fd = std::atoi(argv[++i]);
    } else if (auto s = policy::AddGuardRule(g_rules, a, argv[++i]); !s) {
      Say(s.error().msg);
      return -1;
    }
  }
  if (i >= argc) {
    Say("usage: sandshim-guard [--rule shell(...)]... [--block MANAGER:PKG]... [--audit-fd N] -- CMD [ARG]...");
    return -1;
  }
  return i;
}

}  // namespace

int main(int argc, char** argv) {
  int audit_fd = -1, i = ParseArgs(argc, argv, audit_fd);
  if (i < 0) return 125;
  if (audit_fd >= 0 && (::fcntl(audit_fd, F_SETFD, FD_CLOEXEC) != 0 || ::fcntl(audit_fd, F_SETFL, O_NONBLOCK) != 0))
    audit_fd = -1;
  // Signals wait until the guard can pass them on (the tracer and the command unblock them).
  sigset_t fwd;
  sigemptyset(&fwd);
  for (int sig : kForwarded) sigaddset(&fwd, sig);
  ::sigprocmask(SIG_BLOCK, &fwd, &g_mask);
  void* stack = TracerStackTop();
  if (!stack || ::pipe2(g_tracer.report, O_CLOEXEC) != 0) return 125;
  g_tracer.cmd = argv + i;
  g_tracer.audit_fd = audit_fd;
  // From here on: raw syscalls (see the top of this file). The tracer makes the shared memory
  // undumpable once the command's exec went through (RunTracer).
  long tracer = rawsys::SpawnVm(TracerMain, stack, false);
  rawsys::Sys(__NR_close, g_tracer.report[1]);
  if (audit_fd >= 0) rawsys::Sys(__NR_close, audit_fd);
  int pid = -1, st = 0;
  if (tracer < 0 || !ReadInt(g_tracer.report[0], pid) || pid < 0) Exit(125);
  g_command = pid;
  struct sigaction sa {};
  sa.sa_handler = Forward;
  sa.sa_flags = SA_RESTART;
  for (int sig : kForwarded) ::sigaction(sig, &sa, nullptr);
  sa.sa_handler = Ignore;
  ::sigaction(SIGPIPE, &sa, nullptr);
  ::sigprocmask(SIG_SETMASK, &g_mask, nullptr);
  // No status: the tracer died before the command did, and EXITKILL ended the command.
  ExitAs(ReadInt(g_tracer.report[0], st) ? st : W_EXITCODE(0, SIGKILL));
}
