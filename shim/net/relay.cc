#include "shim/net/relay.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <thread>

#include "shim/core/fs.h"
#include "shim/core/unique_fd.h"
#include "shim/net/netns.h"

namespace sandshim::net {

namespace json = boost::json;
using namespace std::chrono_literals;

std::vector<std::string> RelayArgv(const RelayOptions& o, int ready_fd) {
  std::vector<std::string> argv{"sandshim",       "proxy", "--netns",   o.netns.string(),
                                "--listen",       "127.0.0.1:" + std::to_string(o.port),
                                "--pid-file",     o.pid_file.string(),
                                "--ready-fd",     std::to_string(ready_fd)};
  argv.insert(argv.end(), o.proxy_args.begin(), o.proxy_args.end());
  return argv;
}

std::string FormatPidFile(const proc::ProcessId& p, const std::string& listen) {
  return json::serialize(json::object{{"pid", p.pid}, {"start", p.start}, {"listen", listen}}) + "\n";
}

Result<RelayHandle> ParsePidFile(const std::string& text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec || !v.is_object()) return MakeError("relay pid file: not a JSON object", EINVAL);
  const auto& o = v.get_object();
  RelayHandle h;
  try {
    h.process.pid = static_cast<pid_t>(o.at("pid").to_number<int64_t>());
    h.process.start = o.at("start").to_number<uint64_t>();
    h.listen = std::string(o.at("listen").as_string());
  } catch (const std::exception& e) {
    return MakeError(std::string("relay pid file: ") + e.what(), EINVAL);
  }
  if (h.process.pid <= 0) return MakeError("relay pid file: bad pid", EINVAL);
  auto colon = h.listen.rfind(':');
  if (colon != std::string::npos) h.port = static_cast<uint16_t>(std::atoi(h.listen.c_str() + colon + 1));
  return h;
}

static std::string Tail(const std::filesystem::path& file) {
  if (file.empty()) return "";
  auto t = fs::ReadFile(file);
  if (!t || t->empty()) return "";
  std::string s = *t;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  auto nl = s.rfind('\n');
  return ": " + (nl == std::string::npos ? s : s.substr(nl + 1));
}

Result<RelayHandle> StartRelay(const RelayOptions& o) {
  if (o.pid_file.empty()) return MakeError("start relay: a pid file is required (journal it first)", EINVAL);
  if (!IsNetns(o.netns)) return MakeError("start relay: " + o.netns.string() + " is not a network namespace", ENOENT);
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return ErrnoError("start relay: pipe");
  UniqueFd ready_r(p[0]), ready_w(p[1]);
  UniqueFd devnull(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!devnull.valid()) return ErrnoError("start relay: open /dev/null");
  UniqueFd err_fd(o.log_file.empty() ? ::fcntl(devnull.get(), F_DUPFD_CLOEXEC, 0)
                                     : ::open(o.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (!err_fd.valid()) return ErrnoError("start relay: open " + o.log_file.string());
  // Everything the child touches is prepared here: between fork and exec only
  // async-signal-safe calls are allowed (the caller may have threads).
  constexpr int kReadyFd = 3;
  auto args = RelayArgv(o, kReadyFd);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string exe = o.exe.string();
  int fds[3] = {::fcntl(devnull.get(), F_DUPFD_CLOEXEC, 10), ::fcntl(err_fd.get(), F_DUPFD_CLOEXEC, 10),
                ::fcntl(ready_w.get(), F_DUPFD_CLOEXEC, 10)};
  UniqueFd hold0(fds[0]), hold1(fds[1]), hold2(fds[2]);
  if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0) return ErrnoError("start relay: dup");
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("start relay: fork");
  if (pid == 0) {
    // Until it is listening the relay belongs to its creator: if the creator dies, so does it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::setsid();
    sigset_t all;
    sigemptyset(&all);
    ::sigprocmask(SIG_SETMASK, &all, nullptr);
    if (::dup2(fds[0], 0) < 0 || ::dup2(fds[0], 1) < 0 || ::dup2(fds[1], 2) < 0 || ::dup2(fds[2], kReadyFd) < 0)
      ::_exit(127);
    ::syscall(SYS_close_range, kReadyFd + 1, ~0U, 0);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  ready_w.Reset();
  hold2.Reset();
  // Wait for "ready ADDR:PORT\n", or EOF (the relay failed and exited), or the timeout.
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + o.ready_timeout;
  bool ok = false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd pfd{ready_r.get(), POLLIN, 0};
    int r = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    char buf[256];
    ssize_t n = ::read(ready_r.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    line.append(buf, static_cast<size_t>(n));
    if (line.find('\n') != std::string::npos) {
      ok = line.rfind("ready ", 0) == 0;
      break;
    }
  }
  if (!ok) {
    ::kill(pid, SIGKILL);
    int st = 0;
    ::waitpid(pid, &st, 0);
    (void)fs::RemoveAll(o.pid_file);
    std::string why = WIFEXITED(st) ? "exit status " + std::to_string(WEXITSTATUS(st))
                                    : "killed by signal " + std::to_string(WTERMSIG(st));
    return MakeError("start relay in " + o.netns.string() + ": not ready (" + why + ")" + Tail(o.log_file), EIO);
  }
  RelayHandle h;
  h.listen = line.substr(6, line.find('\n') - 6);
  h.port = static_cast<uint16_t>(std::atoi(h.listen.c_str() + h.listen.rfind(':') + 1));
  h.process.pid = pid;
  auto start = proc::StartTime(pid);
  h.process.start = start ? *start : 0;
  return h;
}

static int PidfdOpen(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }
static int PidfdSignal(int fd, int sig) { return static_cast<int>(::syscall(SYS_pidfd_send_signal, fd, sig, nullptr, 0)); }

Status StopRelay(const proc::ProcessId& p) {
  if (p.pid <= 0) return Ok();
  auto reap = [&] { ::waitpid(p.pid, nullptr, WNOHANG); };  // only succeeds if we are its parent
  // A pidfd pins the process: once opened and its start time checked, signals through it
  // cannot reach a different process even if the pid is recycled meanwhile.
  UniqueFd pidfd(PidfdOpen(p.pid));
  if (!pidfd.valid()) {
    if (errno == ESRCH) return Ok();
    if (errno != ENOSYS) return ErrnoError("pidfd_open " + std::to_string(p.pid));
  }
  if (!proc::IsAlive(p)) {
    reap();
    return Ok();
  }
  auto signal = [&](int sig) {
    int r = pidfd.valid() ? PidfdSignal(pidfd.get(), sig) : ::kill(p.pid, sig);
    return r == 0 || errno == ESRCH;
  };
  if (!signal(SIGTERM)) return ErrnoError("signal relay " + std::to_string(p.pid));
  for (int sig : {0, SIGKILL}) {
    if (sig) signal(sig);
    for (int i = 0; i < 300; ++i) {
      reap();
      if (!proc::IsAlive(p)) return Ok();
      std::this_thread::sleep_for(10ms);
    }
  }
  return MakeError("relay " + std::to_string(p.pid) + " still running after SIGKILL", EBUSY);
}

Status StopRelayFromPidFile(const std::filesystem::path& pid_file) {
  auto text = fs::ReadFile(pid_file);
  if (!text) {
    if (!fs::Exists(pid_file)) return Ok();
    return text.error();
  }
  auto h = ParsePidFile(*text);
  // A torn or garbage file cannot name a process to stop: it came from a crash before the
  // atomic rename, so the relay never reported ready and died with its creator.
  if (h) TRY_CTX(StopRelay(h->process), "stop relay");
  return fs::RemoveAll(pid_file);
}

}  // namespace sandshim::net
