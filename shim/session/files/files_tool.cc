#include "shim/session/files/files_tool.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "shim/session/store/audit.h"

namespace sandshim::session {

static Result<UniqueFd> EmptyPipeEnd(bool read_end) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return MakeError("pipe", errno);
  UniqueFd r(p[0]), w(p[1]);
  return read_end ? std::move(r) : std::move(w);  // the other end closes: EOF / EPIPE
}

Result<ToolRun> StartFilesTool(Sessions& s, const SessionRecord& r, const std::vector<std::string>& argv,
                               const FilesOptions& o, int in_fd, int out_fd, std::string what) {
  ToolRun t{.cmd = nullptr, .err = UniqueFd(::memfd_create("sandshim-files-err", MFD_CLOEXEC)), .what = std::move(what)};
  if (!t.err.valid()) return MakeError("memfd_create", errno);
  UniqueFd in, out;
  if (in_fd < 0) in = TRY(EmptyPipeEnd(true));
  if (out_fd < 0) {
    out.Reset(::dup(t.err.get()));  // discarded output lands with stderr; only the first line is read
    if (!out.valid()) return MakeError("dup", errno);
  }
  auto io = runtime::ExecStdio::Fds(in.valid() ? in.get() : in_fd, out.valid() ? out.get() : out_fd, t.err.get());
  t.cmd = TRY(s.StartTool(r, argv, o.user, io));
  return t;
}

static std::string FirstLine(int fd) {
  std::string buf(4096, '\0');
  ssize_t n = ::pread(fd, buf.data(), buf.size(), 0);
  buf.resize(n > 0 ? static_cast<size_t>(n) : 0);
  auto nl = buf.find('\n');
  return nl == std::string::npos ? buf : buf.substr(0, nl);
}

Status FinishFilesTool(const SessionRecord& r, ToolRun& t) {
  auto ws = t.cmd->Reap();
  int code = ws ? proc::ExitCode(*ws) : -1;
  (void)AppendAudit(r.audit, "files", {{"session", r.id}, {"op", t.what}, {"exit", code}});
  if (!ws) return ws.error().Wrap(t.what);
  if (code == 0) return {};
  std::string line = FirstLine(t.err.get());
  if (line.empty()) line = "exit status " + std::to_string(code);
  int err = line.find("No such file") != std::string::npos ? ENOENT : EIO;
  return MakeError(t.what + ": " + line, err);
}

void AbandonFilesTool(ToolRun& t) {
  if (!t.cmd) return;
  (void)t.cmd->KillTree(SIGKILL);
  (void)t.cmd->Reap();
}

}  // namespace sandshim::session
