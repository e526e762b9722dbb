#include "shim/gvisor/pod_waiter.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <algorithm>
#include <chrono>
#include <thread>

#include "shim/core/fs.h"
#include "shim/runsc/control.h"

namespace sandshim::runtime::pod {
namespace {

std::filesystem::path FifoOf(const std::filesystem::path& state_dir) { return state_dir / "pod-start.fifo"; }

// A killed sandbox (or a record gone before start) ends the container as SIGKILL would.
constexpr int kKilled = 128 + SIGKILL;

// The forked child: nothing of the parent's but stdio and the FIFO's read end (moved to fd
// 3), default signals, its own session.
constexpr int kFifoFd = 3;
void BecomeWaiter(int fifo_fd) {
  if (fifo_fd != kFifoFd) ::dup2(fifo_fd, kFifoFd);
  ::syscall(SYS_close_range, kFifoFd + 1u, ~0u, 0u);  // the state lock above all: create must not hold it
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE, SIGUSR1, SIGUSR2}) ::signal(sig, SIG_DFL);
  ::setsid();  // a signal to create's process group is not one to the container
}

// Blocks until start writes to the FIFO; false if the container or its sandbox went away.
bool AwaitStart(const std::filesystem::path& state_dir, const WaiterTarget& t) {
  UniqueFd fifo(kFifoFd);
  for (;;) {
    pollfd p{fifo.get(), POLLIN, 0};
    int n = ::poll(&p, 1, 1000);
    if (n > 0 && (p.revents & (POLLIN | POLLHUP))) return true;
    if (!fs::Exists(state_dir / "state.json") && !fs::Exists(FifoOf(state_dir))) return false;
    if (!proc::IsAlive(t.sandbox)) return false;
  }
}

// The sandbox's control server, retried while the sandbox lives: a failed connect is not
// the container's exit (the container would read "stopped" while it runs). A sandbox whose
// runsc has no control server sandshim speaks is waited for as a whole.
Result<runsc::ControlConnection> ConnectWhileAlive(const WaiterTarget& t) {
  auto delay = std::chrono::milliseconds(20);
  for (;;) {
    auto conn = runsc::ControlConnection::Connect(t.control, t.sandbox);
    if (conn || t.control.kind == runsc::ControlSocket::kNone || !proc::IsAlive(t.sandbox)) return conn;
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(1000));
  }
}

[[noreturn]] void RunWaiter(const std::filesystem::path& state_dir, const WaiterTarget& t, int fifo_fd) {
  BecomeWaiter(fifo_fd);
  if (!AwaitStart(state_dir, t)) ::_exit(kKilled);
  auto conn = ConnectWhileAlive(t);
  if (!conn) {
    while (proc::IsAlive(t.sandbox)) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ::_exit(kKilled);  // the sandbox died, and the container with it
  }
  auto answer = conn->Call("containerManager.Wait", boost::json::value(t.container_runsc_id));
  if (!answer) ::_exit(kKilled);  // the sandbox died, and the container with it
  boost::system::error_code ec;
  auto status = answer->to_number<uint32_t>(ec);  // the sandbox is not trusted: no throwing conversions
  ::_exit(ec ? kKilled : ExitCodeOf(status));
}

}  // namespace

int ExitCodeOf(uint32_t ws) {
  int s = static_cast<int>(ws);
  if (WIFEXITED(s)) return WEXITSTATUS(s);
  if (WIFSIGNALED(s)) return 128 + WTERMSIG(s);
  return kKilled;
}

Result<proc::ProcessId> StartWaiter(const std::filesystem::path& state_dir, const WaiterTarget& t) {
  auto fifo = FifoOf(state_dir);
  ::unlink(fifo.c_str());
  if (::mkfifo(fifo.c_str(), 0600) != 0) return ErrnoError("mkfifo " + fifo.string());
  // The read end is opened here, before the fork, and kept by the waiter: start's open of
  // the write end then finds a reader whenever the waiter lives. Opened by the child itself,
  // a start soon after create raced it on a loaded host (ENXIO: "no reader").
  UniqueFd reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!reader.valid()) return ErrnoError("open " + fifo.string());
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("fork the pod container's waiter");
  if (pid == 0) RunWaiter(state_dir, t, reader.get());
  auto start = proc::StartTime(pid);
  return proc::ProcessId{pid, start ? *start : 0};
}

Status ReleaseWaiter(const std::filesystem::path& state_dir) {
  auto fifo = FifoOf(state_dir);
  // Non-blocking: with the waiter gone (killed before start) there is no reader: ENXIO.
  UniqueFd w(::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
  if (!w.valid()) return ErrnoError("open " + fifo.string());
  char one = 1;
  if (::write(w.get(), &one, 1) != 1) return ErrnoError("write " + fifo.string());
  return Ok();
}

Result<std::array<UniqueFd, 3>> WaiterStdio(pid_t waiter) {
  std::array<UniqueFd, 3> out;
  for (int fd = 0; fd < 3; ++fd) {
    auto path = "/proc/" + std::to_string(waiter) + "/fd/" + std::to_string(fd);
    out[fd] = UniqueFd(::open(path.c_str(), (fd == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC));
    if (!out[fd].valid()) return ErrnoError("reopen the container's stdio " + path);
  }
  return out;
}

}  // namespace sandshim::runtime::pod
