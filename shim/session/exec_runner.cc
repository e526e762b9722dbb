#include "shim/session/exec_runner.h"

#include <fcntl.h>
#include <unistd.h>

#include "shim/core/unique_fd.h"
#include "shim/session/supervise.h"

namespace sandshim::session {
namespace {

// stdout and stderr through two pipes, copied to ours (or kept) and counted.
class PipeStreams : public Streams {
 public:
  explicit PipeStreams(size_t capture_limit) : limit_(capture_limit) {}
  Status Open2() {
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return ErrnoError("pipe");
    out_r_.Reset(out[0]);
    out_w_.Reset(out[1]);
    if (::pipe2(err, O_CLOEXEC) != 0) return ErrnoError("pipe");
    err_r_.Reset(err[0]);
    err_w_.Reset(err[1]);
    return Ok();
  }
  void InChild() override {
    ::dup2(out_w_.get(), 1);  // dup2 leaves the copies inheritable
    ::dup2(err_w_.get(), 2);
  }
  void AddStdio(spawn::Launch& l) override {
    l.Dup(out_w_.get(), 1);
    l.Dup(err_w_.get(), 2);
  }
  std::optional<std::array<int, 3>> ChildStdio() const override {
    return std::array<int, 3>{0, out_w_.get(), err_w_.get()};
  }
  void AfterFork() override {
    out_w_.Reset();
    err_w_.Reset();
  }
  void Fill(std::vector<pollfd>& fds) override {
    fds.push_back({out_open_ ? out_r_.get() : -1, POLLIN, 0});
    fds.push_back({err_open_ ? err_r_.get() : -1, POLLIN, 0});
  }
  bool Open() const override { return out_open_ || err_open_; }
  Status Ready(const pollfd* fds, RunnerOutcome& r) override {
    if (fds[0].revents) out_open_ = Pump(out_r_.get(), 1, &r.bytes_out, &r.out, limit_);
    if (fds[1].revents) err_open_ = Pump(err_r_.get(), 2, &r.bytes_err, &r.err, limit_);
    return Ok();
  }

 private:
  size_t limit_;
  UniqueFd out_r_, out_w_, err_r_, err_w_;
  bool out_open_ = true, err_open_ = true;
};

}  // namespace

Result<RunnerOutcome> RunChild(CommandSide side, const RunnerOptions& o,
                               const std::function<void(proc::Running&)>& on_timeout) {
  PipeStreams io(o.capture_limit);
  TRY(io.Open2());
  return Supervise(side, io, o, on_timeout);
}

}  // namespace sandshim::session
