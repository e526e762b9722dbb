#include "shim/net/relay.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>

#include "shim/core/fs.h"
#include "shim/core/process.h"
#include "shim/core/unique_fd.h"
#include "shim/linux/netns.h"

namespace sandshim::net {

namespace json = boost::json;

std::vector<std::string> RelayArgv(const RelayOptions& o, int ready_fd) {
  std::vector<std::string> argv{"sandshim",       "proxy", "--netns",   o.netns.string(),
                                "--listen",       o.host + ":" + std::to_string(o.port),
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
  constexpr int kReadyFd = 3;
  sigset_t none;
  sigemptyset(&none);
  // Until it is listening the relay belongs to its creator: if the creator dies, so does it.
  process::ProcessSpec spec{
      .exe = o.exe.string(), .argv = RelayArgv(o, kReadyFd), .new_session = true, .sigmask = none, .pdeathsig = SIGKILL};
  spec.Dup(devnull.get(), 0);
  spec.Dup(devnull.get(), 1);
  spec.Dup(err_fd.get(), 2);
  spec.Dup(ready_w.get(), kReadyFd);
  auto child = TRY_CTX(process::Spawn(spec), "start relay");
  ready_w.Reset();
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
    auto st = child.Kill();
    (void)fs::RemoveAll(o.pid_file);
    std::string why = st ? st->Describe() : st.error().msg;
    return MakeError("start relay in " + o.netns.string() + ": not ready (" + why + ")" + Tail(o.log_file), EIO);
  }
  RelayHandle h;
  h.listen = line.substr(6, line.find('\n') - 6);
  h.port = static_cast<uint16_t>(std::atoi(h.listen.c_str() + h.listen.rfind(':') + 1));
  // It outlives us (the session owns it through the pid file); the subreaper above reaps it.
  h.process.pid = child.Release();
  auto start = proc::StartTime(h.process.pid);
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
    return ErrnoError("pidfd_open " + std::to_string(p.pid));
  }
  if (!proc::IsAlive(p)) {
    reap();
    return Ok();
  }
  auto signal = [&](int sig) { return PidfdSignal(pidfd.get(), sig) == 0 || errno == ESRCH; };
  if (!signal(SIGTERM)) return ErrnoError("signal relay " + std::to_string(p.pid));
  // The pidfd turns readable when the relay has exited (a zombie counts): 3 s for TERM,
  // then 3 s for KILL.
  for (int sig : {0, SIGKILL}) {
    if (sig) signal(sig);
    pollfd pfd{pidfd.get(), POLLIN, 0};
    int n;
    while ((n = ::poll(&pfd, 1, 3000)) < 0 && errno == EINTR) {
    }
    if (n > 0) {
      reap();
      return Ok();
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
