#include "shim/core/process_run.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shim/core/signal_forwarder.h"

namespace sandshim::process {
namespace {

UniqueFd MemFile(const char* name) { return UniqueFd(::memfd_create(name, MFD_CLOEXEC)); }

std::string ReadAll(int fd) {
  std::string s;
  ::lseek(fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
  return s;
}

Status WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoError("write input");
    done += static_cast<size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return Ok();
}

}  // namespace

std::string Outcome::Describe() const {
  std::string what = timed_out ? "timed out" : status.Describe();
  // The last non-empty line of stderr is the error; earlier lines are usually context.
  std::string tail = err;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (auto nl = tail.rfind('\n'); nl != std::string::npos) tail = tail.substr(nl + 1);
  return tail.empty() ? what : what + ": " + tail;
}

Result<Outcome> Run(const Command& cmd) {
  if (cmd.argv.empty()) return MakeError("spawn: empty command", EINVAL);
  ProcessSpec spec{.exe = cmd.exe, .argv = cmd.argv, .env = cmd.env, .new_session = cmd.new_session};
  spec.sigmask = cmd.sigmask;
  UniqueFd out, err;
  if (cmd.input) {
    UniqueFd in = MemFile("sandshim-input");
    if (!in.valid()) return ErrnoError("memfd_create");
    TRY(WriteAll(in.get(), *cmd.input));
    spec.Give(std::move(in), 0);
  } else if (cmd.capture) {
    spec.Open("/dev/null", O_RDONLY, 0);
  }
  if (cmd.capture) {
    out = MemFile("sandshim-stdout");
    err = MemFile("sandshim-stderr");
    if (!out.valid() || !err.valid()) return ErrnoError("memfd_create");
    spec.Dup(out.get(), 1);
    spec.Dup(err.get(), 2);
  }
  auto child = TRY_CTX(Spawn(spec), "start " + cmd.argv[0]);
  std::optional<SignalForwarder> fwd;
  if (cmd.forward_signals) fwd.emplace(child.pid());
  Outcome o;
  std::optional<Clock::time_point> deadline;
  if (cmd.timeout) deadline = Clock::now() + *cmd.timeout;
  auto status = TRY(child.Wait(deadline, cmd.reap));
  if (!status) {
    o.timed_out = true;
    status = TRY(child.Kill());
  }
  o.status = *status;
  if (cmd.capture) {
    o.out = ReadAll(out.get());
    o.err = ReadAll(err.get());
  }
  return o;
}

}  // namespace sandshim::process
