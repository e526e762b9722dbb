#include "shim/runsc/control.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

#include "shim/core/netns_scope.h"

namespace sandshim::runsc {
namespace json = boost::json;
namespace {

// Answers are a pid or a wait status; anything near this size is not an answer.
constexpr size_t kMaxAnswer = 1 << 20;

}  // namespace

ControlSocket ControlSocketOf(std::string_view protocol) {
  if (protocol == kControlAbstract || protocol == "urpc-20221219") return ControlSocket::kAbstract;
  if (protocol == kControlPath) return ControlSocket::kPath;
  return ControlSocket::kNone;
}

std::filesystem::path ControlSocketPath(const std::filesystem::path& runsc_root, std::string_view sandbox_id) {
  return runsc_root / ("runsc-" + std::string(sandbox_id) + ".sock");
}

Status CheckControlDir(uid_t owner, mode_t mode, uid_t me) {
  if (owner != me)
    return MakeError("runsc root is owned by uid " + std::to_string(owner) + ", not by us: its control sockets are not ours",
                     EPERM);
  if ((mode & 077) != 0) {
    char m[8];
    std::snprintf(m, sizeof m, "%04o", static_cast<unsigned>(mode & 07777));
    return MakeError(std::string("runsc root has mode ") + m + ": others could reach its control sockets", EPERM);
  }
  return Ok();
}

Status CheckControlPeer(pid_t peer, std::optional<uint64_t> peer_start, const proc::ProcessId& sandbox) {
  if (peer != sandbox.pid)
    return MakeError("control socket is held by pid " + std::to_string(peer) + ", not the sandbox's " +
                         std::to_string(sandbox.pid),
                     EPERM);
  if (sandbox.start != 0 && (!peer_start || *peer_start != sandbox.start))
    return MakeError("control socket is held by a later process with the sandbox's pid " + std::to_string(peer), EPERM);
  return Ok();
}

namespace {

// runsc binds "\0runsc-sandbox.<id>\0": abstract, and the trailing NUL is part of the name.
Result<UniqueFd> DialAbstract(const ControlAddress& at) {
  std::string name = "runsc-sandbox." + at.sandbox_id;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (name.size() + 2 > sizeof addr.sun_path) return MakeError("sandbox id too long: " + at.sandbox_id, EINVAL);
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size() + 2);
  UniqueFd s;
  {
    // The name is looked up in the namespace the socket was made in.
    auto ns = TRY(NetnsScope::Enter(at.netns));
    s = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  }
  if (!s.valid()) return ErrnoError("socket");
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0)
    return ErrnoError("connect to sandbox " + at.sandbox_id);
  return s;
}

// "<runsc root>/runsc-<id>.sock", reached through an open descriptor of the root whose owner
// and mode were checked (no path component can be swapped between the check and the
// connect), and named by /proc/self/fd/N/... (a long --root fits in sun_path that way).
Result<UniqueFd> DialPath(const ControlAddress& at) {
  UniqueFd dir(::open(at.runsc_root.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) return ErrnoError("open runsc root " + at.runsc_root.string());
  struct stat st;
  if (::fstat(dir.get(), &st) != 0) return ErrnoError("stat runsc root");
  TRY_CTX(CheckControlDir(st.st_uid, st.st_mode, ::geteuid()), at.runsc_root.string());
  std::string name = "/proc/self/fd/" + std::to_string(dir.get()) + "/" +
                     ControlSocketPath("", at.sandbox_id).filename().string();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (name.size() + 1 > sizeof addr.sun_path) return MakeError("sandbox id too long: " + at.sandbox_id, EINVAL);
  std::memcpy(addr.sun_path, name.data(), name.size());
  UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return ErrnoError("socket");
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return ErrnoError("connect to sandbox " + at.sandbox_id);
  return s;
}

}  // namespace

Result<ControlConnection> ControlConnection::Connect(const ControlAddress& at, const proc::ProcessId& sandbox) {
  if (at.sandbox_id.empty() || at.sandbox_id.find('/') != std::string::npos)
    return MakeError("bad sandbox id \"" + at.sandbox_id + "\"", EINVAL);
  UniqueFd s;
  switch (at.kind) {
    case ControlSocket::kAbstract: s = TRY(DialAbstract(at)); break;
    case ControlSocket::kPath: s = TRY(DialPath(at)); break;
    case ControlSocket::kNone:
      return MakeError("sandbox " + at.sandbox_id + ": its runsc has no control server sandshim speaks", ENOTSUP);
  }
  // Abstract names belong to no one: any local user may bind one that is free (a sandbox
  // that just died leaves its name free). A path socket is guarded by its directory, but a
  // dead sandbox's file may linger. Either way, only the sandbox process itself (it
  // listens, as nobody) gets our descriptors and is believed about exit statuses.
  ucred peer{};
  socklen_t plen = sizeof peer;
  if (::getsockopt(s.get(), SOL_SOCKET, SO_PEERCRED, &peer, &plen) != 0) return ErrnoError("SO_PEERCRED");
  // The start time is read after connecting: the peer's credentials were fixed when it
  // listened, so a process that has that pid now and started when the sandbox did is it.
  auto start = proc::StartTime(peer.pid);
  if (auto ok = CheckControlPeer(peer.pid, start ? std::optional(*start) : std::nullopt, sandbox); !ok)
    return ok.error().Wrap("sandbox " + at.sandbox_id);
  return ControlConnection(std::move(s));
}

Status ControlConnection::Send(std::string_view method, const json::value& arg, std::span<const int> fds) {
  std::string data = json::serialize(json::object{{"method", method}, {"arg", arg}});
  size_t sent = 0;
  std::vector<char> ctl(fds.empty() ? 0 : CMSG_SPACE(sizeof(int) * fds.size()));
  while (sent < data.size()) {
    iovec iov{data.data() + sent, data.size() - sent};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (sent == 0 && !fds.empty()) {
      msg.msg_control = ctl.data();
      msg.msg_controllen = ctl.size();
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoError("send " + std::string(method));
    sent += static_cast<size_t>(n);
  }
  return Ok();
}

// A caller that blocks the ending signals to read them from a signalfd (session exec, the
// runtime's exec) would never see them while it waits on a sandbox that does not answer
// (one stopped by SIGSTOP: issue #34 N3). Such a signal stays pending, so the wait checks.
static bool EndingSignalPending() {
  sigset_t pending;
  if (::sigpending(&pending) != 0) return false;
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT})
    if (sigismember(&pending, sig) == 1) return true;
  return false;
}

// Waits until the connection has bytes, a blocked ending signal is pending, or the deadline.
static Status AwaitAnswer(int fd, std::optional<std::chrono::steady_clock::time_point> deadline) {
  constexpr int kSliceMs = 200;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, kSliceMs);
    if (r > 0) return Ok();
    if (r < 0 && errno != EINTR) return ErrnoError("wait for the sandbox's answer");
    if (EndingSignalPending())
      return MakeError("interrupted while waiting for the sandbox to answer (is it stopped?)", ECANCELED);
    if (deadline && std::chrono::steady_clock::now() >= *deadline)
      return MakeError("the sandbox did not answer in time (is it stopped?)", ETIMEDOUT);
  }
}

Result<json::value> ControlConnection::Receive() {
  json::stream_parser p;
  size_t total = 0;
  char buf[4096];
  while (!p.done()) {
    TRY(AwaitAnswer(fd_.get(), deadline_));
    ssize_t n = ::read(fd_.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read sandbox answer");
    if (n == 0) return MakeError("sandbox closed the control connection", EPIPE);
    total += static_cast<size_t>(n);
    if (total > kMaxAnswer) return MakeError("sandbox answer too large", EPROTO);
    boost::system::error_code ec;
    size_t used = p.write_some(buf, static_cast<size_t>(n), ec);
    if (ec) return MakeError("sandbox answer: " + ec.message(), EPROTO);
    // One answer per call: bytes after it would be a protocol error.
    if (p.done() && used != static_cast<size_t>(n)) return MakeError("sandbox answer: trailing data", EPROTO);
  }
  return ParseControlAnswer(p.release());
}

Result<json::value> ControlConnection::Call(std::string_view method, const json::value& arg, std::span<const int> fds) {
  TRY(Send(method, arg, fds));
  return Receive();
}

Status SignalInSandbox(const ControlAddress& at, std::string_view cid, const proc::ProcessId& sandbox, pid_t pid,
                       int sig) {
  auto conn = TRY(ControlConnection::Connect(at, sandbox));
  // A signal is forwarded while the caller is ending or timing out: a stopped sandbox must
  // not hold it there.
  conn.SetDeadline(std::chrono::seconds(5));
  TRY(conn.Call("containerManager.Signal", json::object{{"CID", cid}, {"Signo", sig}, {"PID", pid}, {"Mode", 0}}));
  return Ok();
}

Result<json::value> ParseControlAnswer(const json::value& answer) {
  const auto* o = answer.if_object();
  if (!o) return MakeError("sandbox answer is not an object", EPROTO);
  const auto* ok = o->if_contains("success");
  if (!ok || !ok->is_bool()) return MakeError("sandbox answer without success", EPROTO);
  if (!ok->get_bool()) {
    const auto* err = o->if_contains("err");
    std::string msg = err && err->is_string() ? std::string(err->get_string()) : "unknown error";
    return MakeError("sandbox: " + msg, EIO);
  }
  const auto* r = o->if_contains("result");
  return r ? *r : json::value(nullptr);
}

}  // namespace sandshim::runsc
