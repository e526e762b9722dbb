#include "shim/session/exec/supervise.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>

namespace sandshim::session {
namespace {

using Clock = std::chrono::steady_clock;

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

CaughtSignals::CaughtSignals(const std::vector<int>& extra) {
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&mask, s);
  for (int s : extra) sigaddset(&mask, s);
  ::sigprocmask(SIG_BLOCK, &mask, &old_);
  fd_.Reset(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
}

CaughtSignals::~CaughtSignals() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }

bool Pump(int from, int to, uint64_t* count, std::string* keep, size_t limit, bool* broken) {
  std::array<char, 65536> buf;
  ssize_t n = ::read(from, buf.data(), buf.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  if (count) *count += static_cast<uint64_t>(n);
  if (keep && limit > 0) {
    if (keep->size() < limit) keep->append(buf.data(), std::min(static_cast<size_t>(n), limit - keep->size()));
    return true;
  }
  // A closed stdout of ours (EBADF) must not stop the command; a reader that left (EPIPE)
  // is the caller's `| head`: the supervisor passes that on (Supervise).
  if (!WriteAll(to, buf.data(), static_cast<size_t>(n)) && errno == EPIPE && broken) *broken = true;
  return true;
}

namespace {

// SIGPIPE ignored while the loop runs (the command has started: nothing of ours inherits it),
// so a reader of ours that goes away is an EPIPE we act on, not our death with the command
// left writing into a pipe nobody reads (the Sentry does not raise SIGPIPE for it).
class PipeSignalIgnored {
 public:
  PipeSignalIgnored() {
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ign, &old_);
  }
  ~PipeSignalIgnored() { ::sigaction(SIGPIPE, &old_, nullptr); }
  PipeSignalIgnored(const PipeSignalIgnored&) = delete;
  PipeSignalIgnored& operator=(const PipeSignalIgnored&) = delete;

 private:
  struct sigaction old_ {};
};

}  // namespace

Result<RunnerOutcome> Supervise(proc::Running& cmd, Streams& io, const CaughtSignals& sigs, const RunnerOptions& o,
                                Clock::time_point start) {
  RunnerOutcome r;
  PipeSignalIgnored no_sigpipe;
  bool exited = false, piped = false;
  int wstatus = 0;
  // Clock::time_point::max() stands for "not set" (GCC misreads optionals here).
  constexpr auto kNever = Clock::time_point::max();
  auto deadline = o.timeout.count() > 0 ? start + o.timeout : kNever;
  auto drain_until = kNever;
  std::vector<pollfd> fds;
  while (!exited || io.Open()) {
    auto now = Clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      (void)cmd.KillTree(SIGKILL);
      deadline = kNever;
    }
    if (exited && drain_until == kNever) drain_until = now + o.drain;
    if (now >= drain_until) break;  // background processes hold the streams
    auto until = std::min({deadline, drain_until, now + std::chrono::hours(1)});
    int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
    fds = {{exited ? -1 : cmd.WaitFd(), POLLIN, 0}, {sigs.fd(), POLLIN, 0}};
    io.Fill(fds);
    int n = ::poll(fds.data(), fds.size(), wait_ms);
    if (n < 0 && errno != EINTR) return ErrnoError("poll");
    if (n <= 0) continue;
    TRY(io.Ready(fds.data() + 2, r));
    if (io.TakeBrokenPipe() && !exited && !piped) {
      // Our reader left: every process of the command gets the SIGPIPE it would get writing
      // into that pipe itself (a shell pipeline's status: 141); one that ignores it goes on.
      piped = true;
      (void)cmd.KillTree(SIGPIPE);
    }
    if (fds[1].revents) {
      signalfd_siginfo si;
      if (::read(sigs.fd(), &si, sizeof si) == sizeof si) {
        int sig = static_cast<int>(si.ssi_signo);
        auto own = io.Signals();
        if (std::find(own.begin(), own.end(), sig) != own.end()) io.OnSignal(sig);
        else (void)cmd.Signal(sig);
      }
    }
    if (fds[0].revents && !exited) {
      wstatus = TRY(cmd.Reap());
      exited = true;
    }
  }
  if (!exited) wstatus = TRY(cmd.Reap());
  io.Finish(r);
  r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  r.status = r.timed_out ? 124 : proc::ExitCode(wstatus);
  return r;
}

}  // namespace sandshim::session
