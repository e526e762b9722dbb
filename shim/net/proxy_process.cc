#include "shim/net/proxy_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstring>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/proc.h"
#include "shim/linux/netns.h"
#include "shim/net/policy_file.h"
#include "shim/net/proxy_server.h"
#include "shim/net/relay.h"
#include "shim/net/relay_privdrop.h"
#include "shim/net/relay_seccomp.h"
#include "shim/net/secret_control.h"

namespace sandshim::net {

namespace asio = boost::asio;

static Result<UniqueFd> Listen(const std::string& spec) {
  auto colon = spec.rfind(':');
  if (colon == std::string::npos) return MakeError("--listen '" + spec + "': expected ADDR:PORT", EINVAL);
  auto addr = TRY_CTX(ParseAddress(spec.substr(0, colon)), "--listen");
  int port = std::atoi(spec.c_str() + colon + 1);
  if (port < 0 || port > 65535) return MakeError("--listen '" + spec + "': bad port", EINVAL);
  // Asio's endpoint lays out the sockaddr for either family; the socket itself is made by
  // hand so that it can be created inside another network namespace and handed over.
  asio::ip::tcp::endpoint ep(addr, static_cast<uint16_t>(port));
  UniqueFd fd(::socket(addr.is_v4() ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoError("socket");
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd.get(), ep.data(), static_cast<socklen_t>(ep.size())) != 0) return ErrnoError("bind " + spec);
  if (::listen(fd.get(), 1024) != 0) return ErrnoError("listen " + spec);
  return fd;
}

static std::string BoundAddress(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  char host[INET6_ADDRSTRLEN] = {};
  uint16_t port = 0;
  if (ss.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&ss);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
  ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
  return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
}

Result<std::string> ResolveUpstream(const std::string& flag, const std::string& file_text, bool have_file) {
  if (!have_file) return flag;
  if (!flag.empty()) return MakeError("--proxy and --proxy-file (or SANDSHIM_PROXY_UPSTREAM) both given", EINVAL);
  std::string url = file_text.substr(0, file_text.find('\n'));
  while (!url.empty() && (url.back() == '\r' || url.back() == ' ' || url.back() == '\t')) url.pop_back();
  if (url.empty()) return MakeError("--proxy-file: empty", EINVAL);
  return url;
}

// Everything secrets need, read while still root: the rules, the CA, the trust store.
static Result<std::shared_ptr<InterceptShared>> LoadSecrets(const ProxyProcessOptions& o) {
  if (o.secrets_file.empty()) return std::shared_ptr<InterceptShared>();
  if (o.secrets_socket.empty() || o.secrets_ca_key.empty() || o.secrets_ca_cert.empty())
    return MakeError("--secrets needs --secrets-socket, --secrets-ca-key and --secrets-ca-cert", EINVAL);
  auto sh = std::make_shared<InterceptShared>();
  auto rules = TRY(ParseSecretRules(TRY_CTX(fs::ReadFile(o.secrets_file), "--secrets")));
  sh->book = TRY(SecretBook::Make(rules));
  auto key = TRY_CTX(fs::ReadFile(o.secrets_ca_key), "--secrets-ca-key");
  auto made = LeafMinter::Load(key, TRY_CTX(fs::ReadFile(o.secrets_ca_cert), "--secrets-ca-cert"));
  Wipe(key.data(), key.size());
  sh->minter = TRY(std::move(made));
  sh->origin_tls = TRY(MakeOriginTls(o.secrets_trust));
  sh->max_header_bytes = o.max_header_bytes;
  sh->idle_timeout = std::chrono::seconds(o.idle_timeout_s);
  return sh;
}

static Result<ProxyOptions> BuildOptions(const ProxyProcessOptions& o) {
  ProxyOptions p;
  std::vector<std::string> allow = o.allow_domains, deny = o.deny_domains, cidrs = o.allow_cidrs;
  p.addresses.allow_private = o.allow_private;
  std::string file_text;
  if (!o.upstream_file.empty()) file_text = TRY_CTX(fs::ReadFile(o.upstream_file), "--proxy-file");
  std::string upstream = TRY(ResolveUpstream(o.upstream, file_text, !o.upstream_file.empty()));
  if (!o.policy_file.empty()) {
    auto pol = TRY(LoadPolicy(o.policy_file));
    auto extra = pol.EffectiveAllow();
    allow.insert(allow.end(), extra.begin(), extra.end());
    deny.insert(deny.end(), pol.blocked_domains.begin(), pol.blocked_domains.end());
    cidrs.insert(cidrs.end(), pol.allow_cidrs.begin(), pol.allow_cidrs.end());
    p.addresses.allow_private = p.addresses.allow_private || pol.allow_private;
    if (upstream.empty()) upstream = pol.upstream_proxy;  // the command line wins
  }
  p.rules = TRY(DomainRules::Make(allow, deny));
  for (const auto& c : cidrs) p.addresses.allow.push_back(TRY_CTX(ParseCidr(c), "--allow-cidr"));
  p.addresses.host_addresses = HostAddresses();
  if (!upstream.empty()) p.upstream = TRY(ParseProxyUrl(upstream));
  if (allow.empty()) log::Warn("proxy: no allow rules: every destination will be refused");
  p.session = o.session;
  // Opened now, as root: the relay cannot reach into the session directory after its drop.
  if (!o.contexts_file.empty()) p.contexts = TRY(ContextEgress::Open(o.contexts_file));
  if (!o.bound_context.empty() && !p.contexts) return MakeError("--bound-context needs --contexts-file", EINVAL);
  p.bound_context = o.bound_context;
  if (o.context_paths && !p.contexts) return MakeError("--context-paths needs --contexts-file", EINVAL);
  p.context_paths = o.context_paths;
  p.max_connections = o.max_connections;
  p.max_header_bytes = o.max_header_bytes;
  p.idle_timeout = std::chrono::seconds(o.idle_timeout_s);
  if (o.relay_mode != "copy" && o.relay_mode != "splice")
    return MakeError("--relay-mode must be copy or splice", EINVAL);
  p.splice = o.relay_mode == "splice";
  p.secrets = TRY(LoadSecrets(o));
  return p;
}

// splice(2) into a socket the peer has closed raises SIGPIPE; the error return is enough.
// Every tunnel holds two sockets and two pipes: lift the soft descriptor limit to the hard one.
static void PrepareProcess() {
  ::signal(SIGPIPE, SIG_IGN);
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }
}

// The listener, made inside --netns when one is named (its descriptor kept in ns_fd: the
// namespace watch and the privilege drop below go by it).
static Result<UniqueFd> OpenListener(const ProxyProcessOptions& o, UniqueFd& ns_fd) {
  if (o.netns.empty()) return Listen(o.listen);
  UniqueFd listener;
  ns_fd = TRY(OpenNetns(o.netns));
  TRY_CTX(InNetns(ns_fd.get(),
                  [&]() -> Status {
                    listener = TRY(Listen(o.listen));
                    return Ok();
                  }),
          "listen in " + o.netns);
  return listener;
}

// The system's resolver, or in front of it the fixed answers of --resolve (a test seam).
static Result<std::unique_ptr<Resolver>> MakeResolver(asio::io_context& io, const ProxyProcessOptions& o) {
  std::unique_ptr<Resolver> resolver = MakeSystemResolver(io);
  if (o.resolve.empty()) return resolver;
  auto fixed = std::make_unique<StaticResolver>(std::move(resolver));
  for (const auto& r : o.resolve) TRY(fixed->Add(r));
  return std::unique_ptr<Resolver>(std::move(fixed));
}

// A relay lives exactly as long as its namespace file: once the file is unmounted or
// removed (session deleted, gc), nothing can reach the listener any more, so it stops the
// loop. Checked every 500 ms.
class NetnsLifeWatch {
 public:
  NetnsLifeWatch(asio::io_context& io, std::string path) : io_(io), timer_(io), path_(std::move(path)) {}

  // Set up while root: after the privilege drop the netns file's 0700 directory cannot be
  // searched any more, and the inotify watch is what still sees the file go.
  Status Start(int ns_fd) {
    ::fstat(ns_fd, &ns_st_);
    dir_watch_ = TRY(NetnsDirWatch::Open(path_));
    Arm();
    return Ok();
  }

 private:
  void Arm() {
    timer_.expires_after(std::chrono::milliseconds(500));
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      if (FileGone()) {
        log::Info("proxy: network namespace " + path_ + " is gone, exiting");
        io_.stop();
        return;
      }
      Arm();
    });
  }

  bool FileGone() {
    struct stat st {};
    // After the privilege drop stat fails with EACCES (0700 session directory): then only
    // the inotify watch can tell. errno is saved before dir_watch_.Gone() reads (and sets EAGAIN).
    int r = ::stat(path_.c_str(), &st), err = r == 0 ? 0 : errno;
    return (r != 0 && err != EACCES) || dir_watch_.Gone() ||
           (r == 0 && (st.st_ino != ns_st_.st_ino || st.st_dev != ns_st_.st_dev));
  }

  asio::io_context& io_;
  asio::steady_timer timer_;
  std::string path_;
  struct stat ns_st_ {};
  NetnsDirWatch dir_watch_;
};

// A relay (root, --netns) has now done everything privileged; it drops root before it
// reports ready, so a failed drop is a failed start and no sandbox byte is ever parsed as root.
// Still single-threaded here: the resolver's thread starts with the first lookup.
static Status DropRootIfRelay(const ProxyProcessOptions& o, const UniqueFd& ns_fd) {
  if (!ns_fd.valid() || ::geteuid() != 0) return Ok();
  uid_t uid = RelayUidFor(o.netns);
  TRY_CTX(DropRelayPrivileges(uid, uid), "relay: drop privileges");
  TRY(LoadRelaySeccomp());
  return Ok();
}

// Recorded in the pid file: from here on the relay outlives its creator (see relay.h).
// This must come before "ready": the creator exits as soon as it reads it, and a
// death signal still armed then would kill the relay it just started.
static void ReportReady(int ready_fd, const std::string& bound) {
  if (ready_fd < 0) return;
  ::prctl(PR_SET_PDEATHSIG, 0);
  std::string line = "ready " + bound + "\n";
  (void)!::write(ready_fd, line.data(), line.size());
  ::close(ready_fd);
}

// Remove the pid file only while it still names this process.
static void RemoveOwnPidFile(const std::string& pid_file) {
  if (pid_file.empty()) return;
  auto text = fs::ReadFile(pid_file);
  if (text) {
    auto h = ParsePidFile(*text);
    if (h && h->process.pid == ::getpid()) ::unlink(pid_file.c_str());
  }
}

Status RunProxy(const ProxyProcessOptions& o) {
  PrepareProcess();
  auto popts = TRY(BuildOptions(o));
  AuditLog audit;
  if (!o.audit_file.empty()) audit = TRY(AuditLog::Open(o.audit_file));
  UniqueFd ns_fd;
  UniqueFd listener = TRY(OpenListener(o, ns_fd));
  std::string bound = BoundAddress(listener.get());

  asio::io_context io(1);
  std::unique_ptr<Resolver> resolver = TRY(MakeResolver(io, o));
  // Values live in this process only: no core dump, no ptrace or /proc/PID/mem by anyone
  // but root; the control socket is made while root, in the session's private directory.
  UniqueFd secret_listener;
  auto secrets = popts.secrets;
  if (secrets) {
    ::prctl(PR_SET_DUMPABLE, 0);
    secret_listener = TRY_CTX(ListenSecretControl(o.secrets_socket), "--secrets-socket");
  }
  ProxyServer server(io, std::move(popts), std::move(resolver), std::move(audit));
  if (secrets) ServeSecretControl(io, std::move(secret_listener), secrets->book);
  TRY(server.Serve(std::move(listener)));

  asio::signal_set signals(io, SIGTERM, SIGINT, SIGHUP);
  signals.async_wait([&](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    log::Debug("proxy: signal " + std::to_string(sig) + ", stopping");
    io.stop();
  });
  NetnsLifeWatch watch(io, o.netns);
  if (ns_fd.valid()) TRY(watch.Start(ns_fd.get()));

  if (!o.pid_file.empty()) TRY(fs::WriteFileAtomic(o.pid_file, FormatPidFile(proc::Self(), bound), 0644));
  TRY(DropRootIfRelay(o, ns_fd));
  ReportReady(o.ready_fd, bound);
  log::Debug("proxy: listening on " + bound + (o.netns.empty() ? "" : " in " + o.netns));
  io.run();
  RemoveOwnPidFile(o.pid_file);
  return Ok();
}

}  // namespace sandshim::net
