#include "shim/session/exec/exec_runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <utility>

#include "shim/core/unique_fd.h"
#include "shim/session/exec/supervise.h"
#include "shim/session/exec/tty_relay.h"

namespace sandshim::session {
namespace {

using Clock = std::chrono::steady_clock;

// stdout and stderr through two pipes, copied to ours (or kept) and counted.
class PipeStreams : public Streams {
 public:
  explicit PipeStreams(size_t capture_limit) : limit_(capture_limit) {}
  Status Open2(bool channel) {
    TRY(OpenPipe(out_r_, out_w_, 0));
    TRY(OpenPipe(err_r_, err_w_, 0));
    if (channel) TRY(OpenPipe(chan_r_, chan_w_, O_NONBLOCK));
    chan_open_ = channel;
    return Ok();
  }
  runtime::ExecStdio Stdio() const override {
    auto s = runtime::ExecStdio::Fds(0, out_w_.get(), err_w_.get());
    if (chan_w_.valid()) s.extra = {chan_w_.get()};
    return s;
  }
  void Started(proc::Running&) override {
    out_w_.Reset();
    err_w_.Reset();
    chan_w_.Reset();
  }
  void Fill(std::vector<pollfd>& fds) override {
    fds.push_back({out_open_ ? out_r_.get() : -1, POLLIN, 0});
    fds.push_back({err_open_ ? err_r_.get() : -1, POLLIN, 0});
    fds.push_back({chan_open_ ? chan_r_.get() : -1, POLLIN, 0});
  }
  // The channel is not waited for: its writer is done when the command exits (Finish).
  bool Open() const override { return out_open_ || err_open_; }
  Status Ready(const pollfd* fds, RunnerOutcome& r) override {
    bool out_broken = false, err_broken = false;
    if (fds[0].revents) out_open_ = Pump(out_r_.get(), 1, &r.bytes_out, &r.out, limit_, &out_broken);
    if (fds[1].revents) err_open_ = Pump(err_r_.get(), 2, &r.bytes_err, &r.err, limit_, &err_broken);
    // Nobody reads what comes next: our end closes, so the command's writes fail as they
    // would into the caller's pipe itself.
    if (out_broken) Close(out_r_, out_open_);
    if (err_broken) Close(err_r_, err_open_);
    broken_ = broken_ || out_broken || err_broken;
    if (fds[2].revents) chan_open_ = ReadChannel(r);
    return Ok();
  }
  // What the command wrote before it exited is in the pipe by now; a background process
  // that kept the descriptor is not waited for.
  void Finish(RunnerOutcome& r) override {
    while (chan_open_ && ReadChannel(r) && !chan_dry_) {}
  }
  bool TakeBrokenPipe() override { return std::exchange(broken_, false); }

 private:
  static void Close(UniqueFd& fd, bool& open) {
    fd.Reset();
    open = false;
  }
  static Status OpenPipe(UniqueFd& r, UniqueFd& w, int read_flags) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) return ErrnoError("pipe");
    r.Reset(p[0]);
    w.Reset(p[1]);
    if (read_flags && ::fcntl(p[0], F_SETFL, read_flags) != 0) return ErrnoError("pipe flags");
    return Ok();
  }
  // false at EOF or error; chan_dry_ when nothing more is buffered now.
  bool ReadChannel(RunnerOutcome& r) {
    std::array<char, 65536> buf;
    ssize_t n = ::read(chan_r_.get(), buf.data(), buf.size());
    chan_dry_ = n < 0 && errno == EAGAIN;
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (n <= 0) return false;
    size_t room = kChannelLimit - std::min(kChannelLimit, r.channel.size());
    if (static_cast<size_t>(n) > room) r.channel_overflow = true;
    r.channel.append(buf.data(), std::min(static_cast<size_t>(n), room));  // the rest is read and dropped
    return true;
  }

  size_t limit_;
  UniqueFd out_r_, out_w_, err_r_, err_w_, chan_r_, chan_w_;
  bool out_open_ = true, err_open_ = true, chan_open_ = false, chan_dry_ = false, broken_ = false;
};

bool WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t w = ::write(fd, s.data() + done, s.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

ExecRunner::ExecRunner(const RunnerOptions& o, std::unique_ptr<Streams> io)
    : o_(o), io_(std::move(io)), signals_(std::make_unique<CaughtSignals>(io_->Signals())), start_(Clock::now()) {}
ExecRunner::~ExecRunner() = default;

Result<std::unique_ptr<ExecRunner>> ExecRunner::Pipes(const RunnerOptions& o) {
  auto io = std::make_unique<PipeStreams>(o.capture_limit);
  TRY(io->Open2(o.channel));
  return std::unique_ptr<ExecRunner>(new ExecRunner(o, std::move(io)));
}

Result<std::unique_ptr<ExecRunner>> ExecRunner::Terminal(const RunnerOptions& o) {
  std::unique_ptr<ExecRunner> r(new ExecRunner(o, TerminalStreams()));
  r->raw_ = std::make_unique<RawMode>(0);
  return r;
}

runtime::ExecStdio ExecRunner::Stdio() const { return io_->Stdio(); }

Result<RunnerOutcome> ExecRunner::Run(Result<std::unique_ptr<proc::Running>> started) {
  // Three failures to start are the command's outcome, as a shell reports them: not there
  // (127), there but not executable (126), and the deadline passed before the sandbox
  // answered (124: a stopped sandbox).
  bool missing = !started && started.error().err_no == ENOENT;
  bool denied = !started && started.error().err_no == EACCES;
  bool late = !started && started.error().err_no == ETIMEDOUT && o_.timeout.count() > 0;
  if (missing || denied || late) {
    RunnerOutcome r;
    r.status = missing ? 127 : denied ? 126 : 124;
    r.timed_out = late;
    std::string line = started.error().msg + "\n";
    r.bytes_err = line.size();
    if (o_.capture_limit > 0) r.err = line.substr(0, o_.capture_limit);
    else WriteAll(2, line);
    r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
    return r;
  }
  auto cmd = TRY(std::move(started));
  io_->Started(*cmd);
  return Supervise(*cmd, *io_, *signals_, o_, start_);
}

}  // namespace sandshim::session
