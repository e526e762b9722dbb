#include "shim/core/spawn.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cstdio>

#include "shim/core/unique_fd.h"

namespace sandshim::spawn {
namespace bp = boost::process;
namespace {

volatile sig_atomic_t g_forward_pid = 0;

void Forward(int sig) {
  if (g_forward_pid > 0) ::kill(g_forward_pid, sig);
}

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};
static_assert(std::size(kForwarded) == 7, "SignalForwarder::old_ holds one action per forwarded signal");

}  // namespace

SignalForwarder::SignalForwarder(pid_t pid) {
  g_forward_pid = pid;
  struct sigaction sa {};
  sa.sa_handler = Forward;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < std::size(kForwarded); ++i) ::sigaction(kForwarded[i], &sa, &old_[i]);
}

SignalForwarder::~SignalForwarder() {
  for (size_t i = 0; i < std::size(kForwarded); ++i) ::sigaction(kForwarded[i], &old_[i], nullptr);
  g_forward_pid = 0;
}

namespace {

// A memory file the child writes its output to; read back after it exits.
struct Capture {
  FILE* f = nullptr;
  Capture() {
    int fd = ::memfd_create("sandshim-capture", MFD_CLOEXEC);
    if (fd >= 0) f = ::fdopen(fd, "w+");
  }
  ~Capture() {
    if (f) std::fclose(f);
  }
  std::string Read() const {
    std::string s;
    if (!f) return s;
    ::lseek(::fileno(f), 0, SEEK_SET);
    char buf[4096];
    ssize_t n;
    while ((n = ::read(::fileno(f), buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
    return s;
  }
};

// Waits for pid without Boost (whose wait_for relies on SIGCHLD being blockable), polling so
// that a timeout can be enforced. Returns the raw wait status, or nullopt on timeout.
// As a subreaper we inherit runsc's sandbox and gofer when runsc exits before them; runsc
// delete then polls them with kill(pid, 0), to which an unreaped zombie looks alive (5 s
// timeouts, measured). Reap every other child that has exited, without touching pid.
void ReapOthers(pid_t pid) {
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0 || info.si_pid == pid) return;
    ::waitpid(info.si_pid, nullptr, WNOHANG);
  }
}

std::optional<int> WaitPid(pid_t pid, std::optional<std::chrono::milliseconds> timeout) {
  if (!timeout) {
    // Block: any child that ends wakes us; the others are reaped on the way (see ReapOthers).
    for (;;) {
      int status = 0;
      pid_t r = ::waitpid(-1, &status, 0);
      if (r == pid) return status;
      if (r < 0 && errno == ECHILD) return 0;
    }
  }
  auto deadline = std::chrono::steady_clock::now() + timeout.value_or(std::chrono::hours(24 * 365));
  useconds_t sleep_us = 200;
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return 0;
    ReapOthers(pid);
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    ::usleep(sleep_us);
    sleep_us = std::min<useconds_t>(sleep_us * 2, 5000);
  }
}

}  // namespace

std::string Resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  auto found = bp::search_path(name);
  if (!found.empty()) return found.string();
  // Callers such as podman's cleanup run us with a bare PATH: look where Debian installs.
  for (const char* dir : {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}) {
    std::string cand = std::string(dir) + "/" + name;
    if (::access(cand.c_str(), X_OK) == 0) return cand;
  }
  return name;
}

std::string Outcome::Describe() const {
  std::string what = timed_out      ? "timed out"
                     : term_signal ? "killed by signal " + std::to_string(term_signal)
                                   : "exit status " + std::to_string(exit_code);
  // The last non-empty line of stderr is the error; earlier lines are usually context.
  std::string tail = err;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (auto nl = tail.rfind('\n'); nl != std::string::npos) tail = tail.substr(nl + 1);
  return tail.empty() ? what : what + ": " + tail;
}

Result<Outcome> Run(const Command& cmd) {
  if (cmd.argv.empty()) return MakeError("spawn: empty command", EINVAL);
  std::vector<std::string> args(cmd.argv.begin() + 1, cmd.argv.end());
  Capture out, err;
  Outcome o;
  try {
    std::error_code ec;
    bp::child c;
    if (cmd.capture) {
      if (!out.f || !err.f) return ErrnoError("memfd_create");
      c = bp::child(bp::exe = Resolve(cmd.argv[0]), bp::args = args, bp::std_out > out.f, bp::std_err > err.f,
                    bp::std_in < bp::null, ec);
    } else {
      auto setsid_if_asked = bp::extend::on_exec_setup = [&cmd](auto&) {
        if (cmd.new_session) ::setsid();
      };
      c = bp::child(bp::exe = Resolve(cmd.argv[0]), bp::args = args, setsid_if_asked, ec);
    }
    if (ec) return MakeError("start " + cmd.argv[0] + ": " + ec.message(), ec.value());
    pid_t pid = c.id();
    c.detach();  // we reap it ourselves below
    std::optional<SignalForwarder> fwd;
    if (cmd.forward_signals) fwd.emplace(pid);
    auto status = WaitPid(pid, cmd.timeout);
    if (!status) {
      ::kill(pid, SIGKILL);
      status = WaitPid(pid, std::nullopt);
      o.timed_out = true;
    }
    if (WIFSIGNALED(*status)) o.term_signal = WTERMSIG(*status);
    else o.exit_code = WEXITSTATUS(*status);
  } catch (const std::exception& e) {
    return MakeError("start " + cmd.argv[0] + ": " + e.what(), EIO);
  }
  if (cmd.capture) {
    o.out = out.Read();
    o.err = err.Read();
  }
  return o;
}

Error Replace(const std::vector<std::string>& argv) {
  if (argv.empty()) return MakeError("spawn: empty command", EINVAL);
  std::string exe = Resolve(argv[0]);
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  ::execv(exe.c_str(), cargv.data());
  return ErrnoError("exec " + exe);
}

Result<pid_t> Start(const std::vector<std::string>& argv) {
  if (argv.empty()) return MakeError("spawn: empty command", EINVAL);
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  try {
    std::error_code ec;
    // Started to outlive us: its own session, so our caller's job signals do not reach it.
    bp::child c(bp::exe = Resolve(argv[0]), bp::args = args, bp::extend::on_exec_setup = [](auto&) { ::setsid(); },
                ec);
    if (ec) return MakeError("start " + argv[0] + ": " + ec.message(), ec.value());
    pid_t pid = c.id();
    c.detach();
    return pid;
  } catch (const std::exception& e) {
    return MakeError("start " + argv[0] + ": " + e.what(), EIO);
  }
}

}  // namespace sandshim::spawn
