#include "shim/session/exec/tty_relay.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <utility>

namespace sandshim::session {
namespace {

void CopyWindowSize(int from, int to) {
  winsize ws{};
  if (::ioctl(from, TIOCGWINSZ, &ws) == 0) ::ioctl(to, TIOCSWINSZ, &ws);
}

// Our stdin to the pty master, the master to our stdout.
class TtyStreams : public Streams {
 public:
  runtime::ExecStdio Stdio() const override { return runtime::ExecStdio::Terminal(); }
  void Started(proc::Running& cmd) override {
    master_ = cmd.TerminalMaster();  // the handle owns it and outlives the loop
    if (master_ >= 0) CopyWindowSize(0, master_);
  }
  void Fill(std::vector<pollfd>& fds) override {
    fds.push_back({master_ >= 0 && master_open_ ? master_ : -1, POLLIN, 0});
    fds.push_back({master_ >= 0 && stdin_open_ ? 0 : -1, POLLIN, 0});
  }
  bool Open() const override { return master_ >= 0 && master_open_; }
  Status Ready(const pollfd* fds, RunnerOutcome& r) override {
    bool broken = false;  // our reader left: Supervise passes SIGPIPE on, as with pipes
    if (fds[0].revents) master_open_ = Pump(master_, 1, &r.bytes_out, nullptr, 0, &broken);
    broken_ = broken_ || broken;
    if (fds[1].revents) stdin_open_ = Pump(0, master_, nullptr);
    return Ok();
  }
  bool TakeBrokenPipe() override { return std::exchange(broken_, false); }
  std::vector<int> Signals() const override { return {SIGWINCH}; }
  void OnSignal(int) override {
    if (master_ >= 0) CopyWindowSize(0, master_);
  }

 private:
  int master_ = -1;
  bool master_open_ = true, stdin_open_ = true, broken_ = false;
};

}  // namespace

std::unique_ptr<Streams> TerminalStreams() { return std::make_unique<TtyStreams>(); }

RawMode::RawMode(int fd) : fd_(fd) {
  raw_ = ::isatty(fd) && ::tcgetattr(fd, &saved_) == 0;
  if (!raw_) return;
  termios t = saved_;
  ::cfmakeraw(&t);
  ::tcsetattr(fd, TCSANOW, &t);
}

RawMode::~RawMode() {
  if (raw_) ::tcsetattr(fd_, TCSANOW, &saved_);
}

}  // namespace sandshim::session
