#include "shim/net/secret_control.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "shim/core/log.h"

namespace sandshim::net {

namespace asio = boost::asio;
using local = asio::local::stream_protocol;

static constexpr size_t kMaxRequest = kMaxSecretBytes + 1024;

// A unix socket address for path. sun_path holds 107 bytes and a session directory under a
// deep state root with a long id is longer: then the socket is named through an O_PATH handle
// on its directory (/proc/self/fd/N/NAME), which the caller keeps open for the bind or connect.
struct SocketAddress {
  sockaddr_un addr{};
  UniqueFd dir;
};

static Result<SocketAddress> Address(const std::filesystem::path& path) {
  SocketAddress a;
  a.addr.sun_family = AF_UNIX;
  std::string name = path.string();
  if (name.size() >= sizeof a.addr.sun_path) {
    a.dir.Reset(::open(path.parent_path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!a.dir.valid()) return ErrnoError("open " + path.parent_path().string());
    name = "/proc/self/fd/" + std::to_string(a.dir.get()) + "/" + path.filename().string();
    if (name.size() >= sizeof a.addr.sun_path) return MakeError("secret socket name too long: " + path.string(), ENAMETOOLONG);
  }
  std::memcpy(a.addr.sun_path, name.c_str(), name.size());
  return a;
}

Result<UniqueFd> ListenSecretControl(const std::filesystem::path& path) {
  auto a = TRY(Address(path));
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoError("secret socket");
  ::unlink(path.c_str());
  // Made 0600 from the start (umask), not chmod'ed after: no moment where others may connect.
  mode_t old = ::umask(0177);
  int rc = ::bind(fd.get(), reinterpret_cast<sockaddr*>(&a.addr), sizeof a.addr);
  ::umask(old);
  if (rc != 0) return ErrnoError("bind " + path.string());
  if (::listen(fd.get(), 16) != 0) return ErrnoError("listen " + path.string());
  return fd;
}

std::string HandleSecretRequest(std::string_view req, SecretBook& book) {
  auto nl = req.find('\n');
  std::string_view verb = req.substr(0, nl);
  std::string_view rest = nl == std::string_view::npos ? std::string_view() : req.substr(nl + 1);
  auto nl2 = rest.find('\n');
  std::string_view name = rest.substr(0, nl2);
  auto answer = [](Status s) { return s ? std::string("ok\n") : "error: " + s.error().msg + "\n"; };
  if (verb == "rm" && nl2 == std::string_view::npos) return answer(book.Remove(name));
  if (verb == "forget" && nl2 == std::string_view::npos) {
    book.Forget(name);
    return "ok\n";
  }
  if (verb == "declare") {
    auto specs = ParseSecretRules(rest);
    if (!specs) return answer(specs.error());
    for (const auto& s : *specs)
      if (s.context.empty()) return "error: only a context's secret can be declared at run time\n";
    for (const auto& s : *specs)
      if (auto d = book.Declare(s); !d) return answer(d);
    return "ok\n";
  }
  if (verb == "set" && nl2 != std::string_view::npos) {
    auto value = CheckedValue(name, rest.substr(nl2 + 1));
    if (!value) return answer(value.error());
    return answer(book.Set(name, std::move(*value)));
  }
  return "error: malformed request\n";
}

namespace {

struct ControlConn : std::enable_shared_from_this<ControlConn> {
  local::socket sock;
  SecretBook& book;
  std::string in, out;
  char buf[4096];
  ControlConn(local::socket s, SecretBook& b) : sock(std::move(s)), book(b) {}
  ~ControlConn() {
    Wipe(in.data(), in.size());
    Wipe(buf, sizeof buf);
  }
  void Read() {
    sock.async_read_some(asio::buffer(buf), [self = shared_from_this()](boost::system::error_code ec, size_t n) {
      if (!ec) {
        self->in.append(self->buf, n);
        if (self->in.size() > kMaxRequest) return self->Answer("error: request too large\n");
        return self->Read();
      }
      if (ec != asio::error::eof) return;
      self->Answer(HandleSecretRequest(self->in, self->book));
    });
  }
  void Answer(std::string text) {
    out = std::move(text);
    asio::async_write(sock, asio::buffer(out), [self = shared_from_this()](boost::system::error_code, size_t) {});
  }
};

void Accept(std::shared_ptr<local::acceptor> acc, SecretBook& book) {
  acc->async_accept([acc, &book](boost::system::error_code ec, local::socket s) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      ucred cred{};
      socklen_t len = sizeof cred;
      // Root only: the socket is 0600 in a 0700 directory; this is the second lock.
      if (::getsockopt(s.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == 0)
        std::make_shared<ControlConn>(std::move(s), book)->Read();
      else
        log::Warn("proxy: secret socket: refused a peer that is not root");
    }
    Accept(acc, book);
  });
}

Status Request(const std::filesystem::path& path, const std::string& req) {
  auto a = TRY(Address(path));
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoError("secret socket");
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a.addr), sizeof a.addr) != 0)
    return ErrnoError("the session's proxy (" + path.string() + ")");
  for (size_t off = 0; off < req.size();) {
    ssize_t n = ::write(fd.get(), req.data() + off, req.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoError("send to the session's proxy");
    off += static_cast<size_t>(n);
  }
  ::shutdown(fd.get(), SHUT_WR);
  std::string answer;
  char buf[512];
  while (answer.size() < 4096) {
    pollfd p{fd.get(), POLLIN, 0};
    int r = ::poll(&p, 1, 5000);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return MakeError("the session's proxy did not answer", ETIMEDOUT);
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<size_t>(n));
  }
  if (answer == "ok\n") return Ok();
  while (!answer.empty() && answer.back() == '\n') answer.pop_back();
  if (answer.starts_with("error: ")) return MakeError(answer.substr(7), EINVAL);
  return MakeError("the session's proxy gave no answer", EIO);
}

}  // namespace

void ServeSecretControl(asio::io_context& io, UniqueFd listener, SecretBook& book) {
  auto acc = std::make_shared<local::acceptor>(io);
  acc->assign(local(), listener.release());
  Accept(acc, book);
}

Status SendSecret(const std::filesystem::path& socket, std::string_view name, std::string_view value) {
  std::string req;
  req.reserve(name.size() + value.size() + 8);  // one buffer, wiped below: no stray copy
  req.append("set\n").append(name).append("\n");
  req.append(value);
  auto s = Request(socket, req);
  Wipe(req.data(), req.size());
  return s;
}

Status RemoveSecret(const std::filesystem::path& socket, std::string_view name) {
  return Request(socket, "rm\n" + std::string(name));
}

Status DeclareSecrets(const std::filesystem::path& socket, const std::vector<SecretRuleSpec>& specs) {
  return Request(socket, "declare\n" + FormatSecretRules(specs));
}

Status ForgetSecrets(const std::filesystem::path& socket, std::string_view context) {
  return Request(socket, "forget\n" + std::string(context));
}

}  // namespace sandshim::net
