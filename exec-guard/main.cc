// sandshim-guard: see guard.h. Three processes, each with one job:
//   guard  (the exec's process)  passes signals to the command, ends as the command ended
//   tracer (the guard's child)   forks the command, traces it and all it starts until no
//                                tracee is left; tells the guard the command's pid and status
//   command (the tracer's child) installs the exec filter, execs CMD
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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
  if (g_command > 0) ::kill(g_command, sig);
}
void Ignore(int) {}

bool WriteInt(int fd, int v) { return ::write(fd, &v, sizeof v) == sizeof v; }
bool ReadInt(int fd, int& v) {
  for (;;) {
    ssize_t n = ::read(fd, &v, sizeof v);
    if (n < 0 && errno == EINTR) continue;
    return n == sizeof v;
  }
}

// The command's file, found on PATH as execvp would find it, but by stat: each execve the
// command tries is a stop for the tracer, a cost worth a trap or two in the Sentry.
std::string Resolve(const char* name) {
  if (std::strchr(name, '/')) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    std::string file = (end == at ? std::string(".") : dirs.substr(at, end - at)) + "/" + name;
    struct stat st;
    if (::stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(file.c_str(), X_OK) == 0) return file;
    at = end + 1;
  }
  return "";
}

void ExecAsScript(const std::string& file, char** cmd) {
  int n = 0;
  while (cmd[n]) ++n;
  std::vector<char*> argv{const_cast<char*>("sh"), const_cast<char*>(file.c_str())};
  for (int i = 1; i <= n; ++i) argv.push_back(cmd[i]);  // cmd[n] is the terminating null
  ::execv("/bin/sh", argv.data());
  errno = ENOEXEC;
}

// The command, seized before it installs its filter and execs: nothing of it runs untraced.
pid_t StartCommand(char** cmd) {
  int go[2];
  if (::pipe2(go, O_CLOEXEC) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(go[1]);
    char c;
    if (::read(go[0], &c, 1) != 1) ::_exit(125);  // not traced: nothing runs
    ::sigprocmask(SIG_SETMASK, &g_mask, nullptr);
    if (int err = guard::InstallExecFilter(); err != 0) {
      Say(std::string("cannot install the exec filter: ") + std::strerror(err));
      ::_exit(125);
    }
    std::string file = Resolve(cmd[0]);
    if (file.empty()) ::execvp(cmd[0], cmd);  // not on PATH: execvp's own answer (ENOENT)
    ::execv(file.c_str(), cmd);
    if (errno == ENOEXEC) ExecAsScript(file, cmd);  // no #!: sh reads it, as execvp does
    int err = errno;
    Say(std::string(cmd[0]) + ": " + std::strerror(err));
    ::_exit(err == ENOENT ? 127 : 126);
  }
  ::close(go[0]);
  if (pid < 0) return -1;
  long opts = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL;
  // Without EXITKILL (a Sentry that lacks it) a tracer's death still fails closed: the
  // filter's execs find no tracer and fail (ENOSYS); the tree just keeps running.
  if (::ptrace(PTRACE_SEIZE, pid, 0, opts) != 0 && (errno != EINVAL || ::ptrace(PTRACE_SEIZE, pid, 0, opts & ~PTRACE_O_EXITKILL) != 0)) {
    Say(std::string("cannot trace the command: ") + std::strerror(errno));
    ::close(go[1]);
    ::waitpid(pid, nullptr, 0);
    return -1;
  }
  (void)!::write(go[1], "g", 1);
  ::close(go[1]);
  return pid;
}

// The tracer: the command's pid, then its wait status, on `report`; then on until no tracee is left.
[[noreturn]] void RunTracer(char** cmd, int report, guard::TraceOptions o) {
  pid_t pid = StartCommand(cmd);
  // Not dumpable from here on: no one without CAP_SYS_PTRACE reads or writes our memory. Not
  // before: the command, forked while we were, would be as undumpable, and a tracer without
  // CAP_SYS_PTRACE could not seize it.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // Signals are the guard's to pass on: a terminal's INT, QUIT or TSTP must not end or stop
  // the tracer (the command, forked above, keeps the default dispositions).
  for (int sig : kForwarded) ::signal(sig, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);  // a closed stderr or audit pipe must not end the tracing
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (!WriteInt(report, pid) || pid < 0) ::_exit(125);
  o.top_ended = [report](int st) {
    WriteInt(report, st);
    ::close(report);
  };
  guard::TraceAll(pid, o);
  ::_exit(0);
}

// The guard ends as the command did: its code, or its fatal signal raised on ourselves.
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
    ::raise(sig);
    ::_exit(128 + sig);
  }
  ::_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 125);
}

}  // namespace

int main(int argc, char** argv) {
  policy::Policy rules;
  rules.unmatched = policy::Decision::kAllow;
  int audit_fd = -1, i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") { ++i; break; }
    if (i + 1 >= argc) break;
    if (a == "--audit-fd") {
      audit_fd = std::atoi(argv[++i]);
    } else if (auto s = policy::AddGuardRule(rules, a, argv[++i]); !s) {
      Say(s.error().msg);
      return 125;
    }
  }
  if (i >= argc) {
    Say("usage: sandshim-guard [--rule shell(...)]... [--block MANAGER:PKG]... [--audit-fd N] -- CMD [ARG]...");
    return 125;
  }
  if (audit_fd >= 0 && (::fcntl(audit_fd, F_SETFD, FD_CLOEXEC) != 0 || ::fcntl(audit_fd, F_SETFL, O_NONBLOCK) != 0))
    audit_fd = -1;
  auto ids = guard::FindIdentities(policy::DeniedPrograms(rules));
  // Signals wait until the guard can pass them on (the tracer and the command unblock them).
  sigset_t fwd;
  sigemptyset(&fwd);
  for (int sig : kForwarded) sigaddset(&fwd, sig);
  ::sigprocmask(SIG_BLOCK, &fwd, &g_mask);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return 125;
  pid_t tracer = ::fork();
  if (tracer == 0) {
    ::close(report[0]);
    RunTracer(argv + i, report[1], {.rules = &rules, .identities = &ids, .audit_fd = audit_fd});
  }
  ::close(report[1]);
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);  // see RunTracer
  if (audit_fd >= 0) ::close(audit_fd);
  int pid = -1, st = 0;
  if (tracer < 0 || !ReadInt(report[0], pid) || pid < 0) return 125;
  g_command = pid;
  struct sigaction sa {};
  sa.sa_handler = Forward;
  sa.sa_flags = SA_RESTART;
  for (int sig : kForwarded) ::sigaction(sig, &sa, nullptr);
  sa.sa_handler = Ignore;
  ::sigaction(SIGPIPE, &sa, nullptr);
  ::sigprocmask(SIG_SETMASK, &g_mask, nullptr);
  // No status: the tracer died before the command did, and EXITKILL ended the command.
  ExitAs(ReadInt(report[0], st) ? st : W_EXITCODE(0, SIGKILL));
}
