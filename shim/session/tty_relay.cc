#include "shim/session/tty_relay.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <cstring>

#include "shim/core/scope_exit.h"
#include "shim/core/unique_fd.h"
#include "shim/session/supervise.h"

namespace sandshim::session {
namespace {

Result<UniqueFd> Listen(const std::filesystem::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof addr.sun_path) return MakeError("console socket path too long: " + path.string());
  std::strcpy(addr.sun_path, path.c_str());
  UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return ErrnoError("socket");
  ::unlink(path.c_str());
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return ErrnoError("bind " + path.string());
  if (::listen(s.get(), 1) != 0) return ErrnoError("listen");
  return s;
}

// The pty master sent over SCM_RIGHTS on a connection of the listener.
Result<UniqueFd> ReceiveMaster(int listener) {
  UniqueFd conn(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn.valid()) return ErrnoError("accept console");
  char byte[256];
  iovec iov{byte, sizeof byte};
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctl;
  msg.msg_controllen = sizeof ctl;
  if (::recvmsg(conn.get(), &msg, MSG_CMSG_CLOEXEC) < 0) return ErrnoError("receive console");
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
      return UniqueFd(fd);
    }
  return MakeError("console socket: no pty master received", EPROTO);
}

void CopyWindowSize(int from, int to) {
  winsize ws{};
  if (::ioctl(from, TIOCGWINSZ, &ws) == 0) ::ioctl(to, TIOCSWINSZ, &ws);
}

// Our stdin to the pty master, the master to our stdout; the master arrives over the console
// socket or is ours from the start (host pty).
class TtyStreams : public Streams {
 public:
  Status ListenOn(const std::filesystem::path& socket) {
    listener_ = TRY(Listen(socket));
    return Ok();
  }
  Status OpenHostPty() {
    master_.Reset(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (!master_.valid() || ::grantpt(master_.get()) != 0 || ::unlockpt(master_.get()) != 0) return ErrnoError("open pty");
    const char* name = ::ptsname(master_.get());
    if (!name) return ErrnoError("ptsname");
    slave_path_ = name;
    CopyWindowSize(0, master_.get());
    return Ok();
  }
  void InChild() override {
    if (slave_path_.empty()) return;
    ::setsid();  // the pty becomes the controlling terminal of the command's side
    int slave = ::open(slave_path_.c_str(), O_RDWR);
    if (slave < 0) ::_exit(125);
    ::ioctl(slave, TIOCSCTTY, 0);
    for (int fd : {0, 1, 2}) ::dup2(slave, fd);
    if (slave > 2) ::close(slave);
  }
  void AddStdio(spawn::Launch& l) override {
    if (slave_path_.empty()) return;
    l.new_session = true;
    l.Open(slave_path_, O_RDWR, 0);  // without O_NOCTTY: the session's controlling terminal
    l.Dup(0, 1);
    l.Dup(0, 2);
  }
  void Fill(std::vector<pollfd>& fds) override {
    fds.push_back({master_.valid() ? -1 : listener_.get(), POLLIN, 0});
    fds.push_back({master_.valid() && master_open_ ? master_.get() : -1, POLLIN, 0});
    fds.push_back({master_.valid() && stdin_open_ ? 0 : -1, POLLIN, 0});
  }
  bool Open() const override { return master_.valid() && master_open_; }
  Status Ready(const pollfd* fds, RunnerOutcome& r) override {
    if (fds[0].revents) {
      master_ = TRY(ReceiveMaster(listener_.get()));
      CopyWindowSize(0, master_.get());
    }
    if (fds[1].revents) master_open_ = Pump(master_.get(), 1, &r.bytes_out);
    if (fds[2].revents) stdin_open_ = Pump(0, master_.get(), nullptr);
    return Ok();
  }
  std::vector<int> Signals() const override { return {SIGWINCH}; }
  void OnSignal(int) override {
    if (master_.valid()) CopyWindowSize(0, master_.get());
  }

 private:
  UniqueFd listener_, master_;
  std::string slave_path_;
  bool master_open_ = true, stdin_open_ = true;
};

}  // namespace

Result<RunnerOutcome> RunChildWithTty(CommandSide side,
                                      const std::optional<std::filesystem::path>& console_socket,
                                      const RunnerOptions& o, const std::function<void(proc::Running&)>& on_timeout) {
  TtyStreams io;
  ScopeExit unlink_socket([&] {
    if (console_socket) ::unlink(console_socket->c_str());
  });
  if (console_socket) TRY(io.ListenOn(*console_socket));
  else TRY(io.OpenHostPty());
  // Our terminal in raw mode while the command owns the keyboard; restored on every path.
  termios saved{};
  bool raw = ::isatty(0) && ::tcgetattr(0, &saved) == 0;
  if (raw) {
    termios t = saved;
    ::cfmakeraw(&t);
    ::tcsetattr(0, TCSANOW, &t);
  }
  ScopeExit restore_tty([&] {
    if (raw) ::tcsetattr(0, TCSANOW, &saved);
  });
  return Supervise(side, io, o, on_timeout);
}

}  // namespace sandshim::session
