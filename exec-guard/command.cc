// The command's start (guard.h StartCommand). The child shares the tracer's memory
// (rawsys::SpawnVm without CLONE_VFORK: the tracer must seize it before it execs), so no copy
// of the tracer's address space is made, the costly part of a fork in the Sentry. Until its
// exec the child runs on its own stack, reads only what the tracer set up before the clone
// (g_plan) and makes raw syscalls: errno, the heap and libc's locks are the tracer's bytes. It
// waits on a futex until it is seized: nothing of the command runs untraced. What fails
// before the exec is left in g_plan for the tracer to say (SayStartFailure).
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ctx-helper/clone_vm.h"
#include "exec-guard/guard.h"

namespace sandshim::guard {
namespace {

using rawsys::Sys;

// Everything the child needs, written by the tracer before the clone.
struct Plan {
  const char* file = nullptr;  // the command's file (Resolve), or null: try each candidate
  const char* const* candidates = nullptr;  // PATH's entries + name, null-terminated (execvp's walk)
  char** argv = nullptr;
  char** envp = nullptr;
  char** sh_argv = nullptr;  // {"sh", file, args...}: a file with no #! (ENOEXEC), as execvp runs it
  const sigset_t* mask = nullptr;
  int go = 0;  // futex: 1 seized, exec; 2 not traced, end
  int stage = 0, err = 0;  // what failed before the exec: kFilter or kExec, and its errno
};
constexpr int kFilter = 1, kExec = 2;
Plan g_plan;
std::string g_file;
std::vector<std::string> g_candidates;
std::vector<const char*> g_candidate_ptrs;
std::vector<char*> g_sh_argv;
alignas(16) char g_stack[64 * 1024];
// TRACEEXEC: every exec is judged again once loaded (tracer.cc OnLoaded); children inherit these.
long g_options = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                 PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL;

std::vector<std::string> PathDirs() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  std::vector<std::string> out;
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    out.push_back(end == at ? std::string(".") : dirs.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// The command's file, found on PATH as execvp would find it, but by stat: each execve the
// command tries is a stop for the tracer, a cost worth a trap or two in the Sentry.
std::string Resolve(const char* name) {
  if (std::strchr(name, '/')) return name;
  for (const auto& dir : PathDirs()) {
    std::string file = dir + "/" + name;
    struct stat st;
    if (::stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(file.c_str(), X_OK) == 0) return file;
  }
  return "";
}

void Prepare(char** cmd, const sigset_t* mask) {
  g_file = Resolve(cmd[0]);
  g_candidates.clear();
  if (g_file.empty() && cmd[0][0] != '\0')
    for (const auto& dir : PathDirs()) g_candidates.push_back(dir + "/" + cmd[0]);
  g_candidate_ptrs.clear();
  for (const auto& c : g_candidates) g_candidate_ptrs.push_back(c.c_str());
  g_candidate_ptrs.push_back(nullptr);
  g_sh_argv = {const_cast<char*>("sh"), g_file.data()};
  for (int i = 1; cmd[i - 1]; ++i) g_sh_argv.push_back(cmd[i]);  // ends with cmd's null
  g_plan = Plan{.file = g_file.empty() ? nullptr : g_file.c_str(), .candidates = g_candidate_ptrs.data(), .argv = cmd,
                .envp = environ, .sh_argv = g_sh_argv.data(), .mask = mask};
}

[[noreturn]] void Fail(int stage, long err, int code) {
  g_plan.err = static_cast<int>(err);
  __atomic_store_n(&g_plan.stage, stage, __ATOMIC_RELEASE);
  for (;;) Sys(__NR_exit_group, code);
}

long Exec(const char* file, char** argv) {
  return -Sys(__NR_execve, reinterpret_cast<long>(file), reinterpret_cast<long>(argv), reinterpret_cast<long>(g_plan.envp));
}

// execvp's walk down PATH, for a name Resolve found no executable file for.
long ExecOnPath() {
  long err = ENOENT;
  bool denied = false;
  for (const char* const* c = g_plan.candidates; *c; ++c) {
    long e = Exec(*c, g_plan.argv);
    if (e == EACCES) denied = true;
    else if (e != ENOENT && e != ENOTDIR && e != ESTALE && e != ENODEV && e != ETIMEDOUT) return e;
  }
  return denied ? EACCES : err;
}

[[noreturn]] void CommandChild() {
  while (__atomic_load_n(&g_plan.go, __ATOMIC_ACQUIRE) == 0)
    Sys(__NR_futex, reinterpret_cast<long>(&g_plan.go), FUTEX_WAIT_PRIVATE, 0, 0);
  if (g_plan.go != 1) Fail(0, 0, 125);  // not traced: nothing runs
  Sys(__NR_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(g_plan.mask), 0, 8);
  if (int err = InstallExecFilter(); err != 0) Fail(kFilter, err, 125);
  long err;
  if (!g_plan.file) {
    err = ExecOnPath();
  } else if ((err = Exec(g_plan.file, g_plan.argv)) == ENOEXEC) {
    Exec("/bin/sh", g_plan.sh_argv);  // no #!: sh reads it, as execvp does
    err = ENOEXEC;
  }
  Fail(kExec, err, err == ENOENT ? 127 : 126);
}

void Release(int go) {
  __atomic_store_n(&g_plan.go, go, __ATOMIC_RELEASE);
  Sys(__NR_futex, reinterpret_cast<long>(&g_plan.go), FUTEX_WAKE_PRIVATE, 1);
}

}  // namespace

pid_t StartCommand(char** cmd, const sigset_t* mask, const std::function<void(const std::string&)>& say) {
  Prepare(cmd, mask);
  long pid = rawsys::SpawnVm(CommandChild, g_stack + sizeof g_stack, false);
  if (pid < 0) {
    say(std::string("cannot start the command: ") + std::strerror(static_cast<int>(-pid)));
    return -1;
  }
  // Without EXITKILL (a Sentry that lacks it) a tracer's death still fails closed: the
  // filter's execs find no tracer and fail (ENOSYS); the tree just keeps running.
  if (::ptrace(PTRACE_SEIZE, pid, 0, g_options) != 0 &&
      (errno != EINVAL || (g_options &= ~PTRACE_O_EXITKILL, ::ptrace(PTRACE_SEIZE, pid, 0, g_options) != 0))) {
    say(std::string("cannot trace the command: ") + std::strerror(errno));
    Release(2);
    ::waitpid(static_cast<pid_t>(pid), nullptr, __WALL);
    return -1;
  }
  Release(1);
  return static_cast<pid_t>(pid);
}

void SayStartFailure(const char* name, const std::function<void(const std::string&)>& say) {
  int stage = __atomic_load_n(&g_plan.stage, __ATOMIC_ACQUIRE);
  if (stage == kFilter) say(std::string("cannot install the exec filter: ") + std::strerror(g_plan.err));
  if (stage == kExec) say(std::string(name) + ": " + std::strerror(g_plan.err));
}

}  // namespace sandshim::guard
