// The trace loop (guard.h): every stop of every tracee is answered here, so that a traced
// tree behaves as an untraced one would — signals delivered as they came, stops kept
// (PTRACE_LISTEN), new processes let go at their first stop — except for the execs refused.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <unordered_set>

#include "exec-guard/guard.h"

namespace sandshim::guard {
namespace json = boost::json;
namespace {

bool IsStopSignal(int sig) { return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU; }

// A /proc file whole, by read(2): no stream (the guard starts on every exec: no locale, no
// stream code to load, fewer traps into the Sentry).
std::string ProcFile(pid_t pid, const char* name) {
  std::string path = "/proc/" + std::to_string(pid) + "/" + name, out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

// The NUL-separated argv (a last argument without its NUL kept, as getline kept it).
std::vector<std::string> Cmdline(pid_t pid) {
  std::string all = ProcFile(pid, "cmdline");
  std::vector<std::string> out;
  for (size_t at = 0; at < all.size();) {
    size_t nul = std::min(all.find('\0', at), all.size());
    out.emplace_back(all, at, nul - at);
    at = nul + 1;
  }
  return out;
}

// The argv of a process (before an exec: the image that asked for it).
json::array ArgvOf(pid_t pid) {
  json::array out;
  for (auto& a : Cmdline(pid)) out.emplace_back(a);
  return out;
}

pid_t ParentOf(pid_t pid) {
  std::string status = ProcFile(pid, "status");
  size_t at = status.find("\nPPid:");  // never the first line (Name: is)
  return at == std::string::npos ? 0 : static_cast<pid_t>(std::atoi(status.c_str() + at + 6));
}

void WriteAll(int fd, const std::string& s) {
  for (size_t done = 0; done < s.size();) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a full audit pipe drops the line (the exec is refused all the same)
    done += static_cast<size_t>(n);
  }
}

void OnExec(pid_t pid, const TraceOptions& o) {
  policy::ExecFacts e;
  std::string file;
  std::optional<policy::Verdict> v;
  if (!ReadExec(pid, e, file)) {
    v = policy::Verdict{policy::Decision::kDeny, "", e.path, "the exec's path or argv could not be read"};
  } else {
    e.identity = IdentityOf(*o.identities, file);
    // A dynamic loader's program operand, as the loader opens it: from the caller's cwd.
    e.identity_of = [&o, pid](const std::string& path) {
      return IdentityOf(*o.identities, path.front() == '/' ? path : "/proc/" + std::to_string(pid) + "/cwd/" + path);
    };
    v = policy::JudgeExecve(*o.rules, e);
  }
  if (!v) return;
  // A file that is not there fails as the kernel would fail it (ENOENT: a shell goes on down
  // its PATH, and nothing ran, so nothing is audited); one made in between is refused all the same.
  struct stat st;
  bool absent = !file.empty() && ::stat(file.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
  if (!FailSyscall(pid, absent ? ENOENT : EPERM)) ::kill(pid, SIGKILL);  // refused either way
  if (!absent) ReportRefusal(o, pid, e, *v, false);
}

// The exec event (PTRACE_EVENT_EXEC): the new image is loaded and none of it has run. Judged
// is what the kernel really started, whatever path string led there: /proc/PID/exe (for a #!
// script, its interpreter: polred2 F7), by its content's identity, with the argv the new image
// got (the interpreter's line in front of a script's). The path seen at the execve stop may
// have been swapped since (F10) or named the tracer's /proc/self (F8); this file cannot be.
// A refusal here is a SIGKILL before the first instruction (the exec itself went through).
void OnLoaded(pid_t pid, const TraceOptions& o) {
  std::string exe = "/proc/" + std::to_string(pid) + "/exe";
  char buf[4096];
  ssize_t n = ::readlink(exe.c_str(), buf, sizeof buf);
  policy::ExecFacts e{.path = n > 0 ? std::string(buf, static_cast<size_t>(n)) : exe, .argv = Cmdline(pid),
                      .identity = IdentityOf(*o.identities, exe), .identity_of = {}};
  e.identity_of = [&o, pid](const std::string& path) {
    return IdentityOf(*o.identities, path.front() == '/' ? path : "/proc/" + std::to_string(pid) + "/cwd/" + path);
  };
  std::optional<policy::Verdict> v = policy::JudgeExecve(*o.rules, e);
  if (!v) return;
  ::kill(pid, SIGKILL);
  ReportRefusal(o, pid, e, *v, true);
}

}  // namespace

void ReportRefusal(const TraceOptions& o, pid_t pid, const policy::ExecFacts& e, const policy::Verdict& v, bool loaded) {
  json::array argv;
  for (const auto& a : e.argv) argv.emplace_back(a);
  // Once loaded, the image that asked is gone: "from" is then the parent's argv.
  json::object line{{"decision", "deny"}, {"rule", v.rule},   {"command", v.command}, {"reason", v.reason},
                    {"path", e.path},     {"argv", argv},     {"identity", e.identity},
                    {"pid", pid},         {"from", ArgvOf(loaded ? ParentOf(pid) : pid)},
                    {"stage", loaded ? "loaded" : "execve"}};
  if (o.audit_fd >= 0) WriteAll(o.audit_fd, json::serialize(line) + "\n");
  WriteAll(2, "sandshim: exec of " + (v.command.empty() ? e.path : v.command) + (loaded ? " killed" : " refused") +
                  (v.rule.empty() ? ": " + v.reason : " by " + v.rule) + "\n");
}

void TraceAll(pid_t top, const TraceOptions& o) {
  std::unordered_set<pid_t> seen{top};
  bool top_execed = false;
  for (;;) {
    int st = 0;
    pid_t p = ::waitpid(-1, &st, __WALL);
    if (p < 0) {
      if (errno == EINTR) continue;
      return;  // no tracee left
    }
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
      seen.erase(p);
      if (p == top && o.top_ended) o.top_ended(st);  // what it left running stays traced
      continue;
    }
    if (!WIFSTOPPED(st)) continue;
    int sig = WSTOPSIG(st), ev = st >> 16;
    bool known = !seen.insert(p).second;
    if (ev == PTRACE_EVENT_SECCOMP) {
      OnExec(p, o);
      ::ptrace(PTRACE_CONT, p, 0, 0);
    } else if (ev == PTRACE_EVENT_STOP) {
      // A new tracee's first stop (let go), or a group-stop (kept, still traced).
      if (!known || !IsStopSignal(sig) || ::ptrace(PTRACE_LISTEN, p, 0, 0) != 0) ::ptrace(PTRACE_CONT, p, 0, 0);
    } else if (ev == PTRACE_EVENT_EXEC) {
      if (p == top && !top_execed && o.top_execed) o.top_execed();
      top_execed = top_execed || p == top;
      OnLoaded(p, o);
      ::ptrace(PTRACE_CONT, p, 0, 0);
    } else if (ev) {
      ::ptrace(PTRACE_CONT, p, 0, 0);  // fork, vfork, clone: the child reports on its own
    } else {
      ::ptrace(PTRACE_CONT, p, 0, sig);  // a signal, delivered as it came
    }
  }
}

}  // namespace sandshim::guard
