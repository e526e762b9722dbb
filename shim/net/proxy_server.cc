#include "shim/net/proxy_server.h"

#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "ctx-helper/wire.h"
#include "shim/core/log.h"
#include "shim/net/beast_head.h"
#include "shim/net/http_request.h"
#include "shim/net/origin_writer.h"
#include "shim/net/proxy_conn.h"
#include "shim/net/request_gate.h"

namespace sandshim::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;

namespace {

std::string EndpointText(const tcp::socket& s) {
  error_code ec;
  auto ep = s.remote_endpoint(ec);
  return ec ? "" : Authority(ep.address().to_string(), ep.port());
}

}  // namespace

ProxyConn::ProxyConn(std::shared_ptr<ProxyServer::Impl> srv, tcp::socket s, bool counted)
    : srv_(std::move(srv)), client_(std::move(s)), dst_(srv_->io), upbuf_(), timer_(srv_->io), counted_(counted) {
  t0_ = Clock::now();
  rec_.session = srv_->opts.session;
  rec_.client = EndpointText(client_.socket());
  if (counted_) ++srv_->active;
}

ProxyConn::~ProxyConn() {
  for (auto& [k, v] : verdict_.headers) Wipe(v.data(), v.size());  // refused after the gate
  if (counted_) --srv_->active;
}

void ProxyConn::Start() {
  client_.expires_after(srv_->opts.header_timeout);
  if (srv_->opts.context_paths && srv_->opts.contexts) return ReadPathLine();
  ReadHead();
}

// gVisor: the context's outside half starts the connection with its path line; anything
// else is a request as it is (a process in the sandbox's root namespace: no context's).
void ProxyConn::ReadPathLine() {
  auto have = std::string_view(static_cast<const char*>(buf_.data().data()), buf_.size());
  auto prefix = ctx::kPathLinePrefix.substr(0, std::min(have.size(), ctx::kPathLinePrefix.size()));
  if (have.substr(0, prefix.size()) != prefix) return ReadHead();
  if (auto eol = have.find("\r\n"); have.size() >= ctx::kPathLinePrefix.size() && eol != std::string_view::npos) {
    auto who = srv_->opts.contexts->ContextOfPath(have.substr(ctx::kPathLinePrefix.size(), eol - ctx::kPathLinePrefix.size()));
    buf_.consume(eol + 2);
    if (!who) return Reply(403, "the connection's context path names no context of this session", "deny", "context-path");
    path_context_ = *who;
    return ReadHead();
  }
  if (have.size() > 128) return Reply(400, "malformed context path line", "error", "malformed");
  client_.async_read_some(buf_.prepare(256), [self = shared_from_this()](error_code ec, size_t n) {
    if (ec) return self->Close();
    self->buf_.commit(n);
    self->ReadPathLine();
  });
}

void ProxyConn::ReadHead() {
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(srv_->opts.max_header_bytes));
  parser_->eager(false);
  http::async_read_header(client_, buf_, *parser_,
                          [self = shared_from_this()](error_code ec, size_t) { self->OnHead(ec); });
}

// The connection limit is hit: answer 503 without reading the request.
void ProxyConn::Refuse503() {
  rec_.decision = "error";
  rec_.rule = "max-connections";
  Reply(503, "too many connections (limit " + std::to_string(srv_->opts.max_connections) + ")", "error",
        "max-connections");
}

void ProxyConn::OnHead(error_code ec) {
  if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset) {
    return Close();  // opened and closed without a request: nothing to decide or audit
  }
  if (ec == http::error::header_limit)
    return Reply(431, "request head exceeds " + std::to_string(srv_->opts.max_header_bytes) + " bytes", "error",
                 "max-header-bytes");
  if (ec == beast::error::timeout) return Reply(408, "no complete request head in time", "error", "header-timeout");
  if (ec) return Reply(400, "malformed request: " + ec.message(), "error", "malformed");
  auto head = HeadOf(*parser_);
  rec_.method = head.method;
  // Where it asks to go, for the audit line of any refusal, the credentials' included (the gate parses it again).
  auto t = head.method == "CONNECT" ? ParseConnectTarget(head.target) : ParseAbsoluteTarget(head.target);
  if (!t) return Reply(400, t.error().msg, "error", "malformed");
  rec_.host = t->host;
  rec_.port = t->port;
  auto who = WhoAsks(std::string_view(parser_->get()[http::field::proxy_authorization]));
  if (!who) return;
  verdict_ = GateProxyRequest(head, *who, srv_->opts.secrets ? &srv_->opts.secrets->book : nullptr);
  for (auto& [k, v] : head.headers) Wipe(v.data(), v.size());
  rec_.host = verdict_.target.host;
  rec_.port = verdict_.target.port;
  if (verdict_.refused()) return Reply(verdict_.status, verdict_.reason, verdict_.decision, verdict_.rule);
  rec_.rule = verdict_.rule;
  reason_ = verdict_.reason;
  const auto& host = verdict_.target.host;
  up_.limit = verdict_.connect ? std::nullopt : std::optional<uint64_t>(verdict_.body);
  if (IsIpLiteral(host)) {
    // An IP literal needs no resolution, and is checked even when an upstream proxy
    // resolves names: the address is known here.
    auto a = ParseAddress(host);
    if (!a) return Reply(400, a.error().msg, "error", "malformed");
    return OnResolved(Addresses{*a});
  }
  if (!srv_->opts.upstream.empty()) return ConnectUpstream();
  srv_->resolver->Resolve(host, [self = shared_from_this()](Result<Addresses> r) { self->OnResolved(std::move(r)); });
}

// Which context asks, and with which rules (Proxy-* never goes upstream); nullopt: refused.
std::optional<Asker> ProxyConn::WhoAsks(std::string_view proxy_authorization) {
  Asker a{"", &srv_->opts.rules};
  if (!srv_->opts.contexts) return a;
  auto who = srv_->opts.contexts->Identify(proxy_authorization);
  if (!who) return Reply(407, who.error().msg, "deny", "context-credentials"), std::nullopt;
  const auto& bound = path_context_.empty() ? srv_->opts.bound_context : path_context_;
  if (!bound.empty() && who->context != bound) {
    rec_.context = bound;  // who asks is the path's context, whatever it sent
    Reply(403, "credentials of context " + who->context + " used from context " + bound, "deny", "context-path");
    return std::nullopt;
  }
  rec_.context = a.context = who->context;
  if (who->rules) a.rules = who->rules;
  return a;
}

void ProxyConn::OnResolved(Result<Addresses> r) {
  if (!r) return Reply(502, r.error().msg, "error", "resolve");
  // Every address must pass: a name that mixes public and internal addresses is refused
  // whole rather than filtered, since it is either misconfigured or an attack.
  for (const auto& a : *r) {
    auto d = srv_->opts.addresses.Check(a);
    if (!d.allowed) {
      rec_.address = a.to_string();
      return Reply(403, verdict_.target.host + " resolves to " + d.reason, "deny", d.rule);
    }
  }
  if (!srv_->opts.upstream.empty()) return ConnectUpstream();
  addrs_ = std::move(*r);
  ConnectNext(0);
}

// Connects to the checked addresses in turn; the endpoint comes from the checked list,
// never from a new lookup: this is the pin.
void ProxyConn::ConnectNext(size_t i) {
  if (i >= addrs_.size()) return Reply(502, "cannot connect to " + Authority(verdict_.target.host, verdict_.target.port) + ": " + last_error_, "error", "connect");
  tcp::endpoint ep(addrs_[i], verdict_.target.port);
  rec_.address = addrs_[i].to_string();
  dst_.expires_after(srv_->opts.connect_timeout);
  dst_.async_connect(ep, [self = shared_from_this(), i](error_code ec) {
    if (ec) {
      self->last_error_ = self->rec_.address + ": " + ec.message();
      self->dst_.close();
      return self->ConnectNext(i + 1);
    }
    self->OnConnected();
  });
}

void ProxyConn::OnConnected() {
  dst_.expires_never();
  client_.expires_never();
  error_code ignored;
  dst_.socket().set_option(tcp::no_delay(true), ignored);
  client_.socket().set_option(tcp::no_delay(true), ignored);
  if (verdict_.intercept) {
    // From here the interceptor owns both sockets; this object stays alive (and counted
    // against --max-connections) as long as it does.
    finished_ = true;
    timer_.cancel();
    return InterceptTls(srv_->opts.secrets, client_.release_socket(), dst_.release_socket(), verdict_.target, rec_,
                        shared_from_this());
  }
  rec_.status = 200;
  rec_.decision = "allow";
  std::string to_dst;
  if (verdict_.connect) {
    out_ = "HTTP/1.1 200 Connection established\r\n\r\n";
  } else {
    out_.clear();
    to_dst = WriteOriginHead(rec_.method, verdict_, 80);
    AuditInjections(srv_->audit, rec_, verdict_);
  }
  // Bytes the client sent after its head (a TLS ClientHello, a request body) go first;
  // for plain HTTP only the body: a pipelined request after it was not checked.
  auto extra = buf_.data();
  std::string_view buffered(static_cast<const char*>(extra.data()), extra.size());
  auto [forward, dropped] = SplitAfterHead(buffered, up_.limit.value_or(buffered.size()));
  to_dst.append(forward);
  if (up_.limit) *up_.limit -= forward.size();
  if (!dropped.empty())
    reason_ += (reason_.empty() ? "" : "; ") + std::to_string(dropped.size()) +
               " bytes after the request not forwarded (one request per connection)";
  buf_.consume(buf_.size());
  auto from_up = upbuf_.data();
  pending_down_.assign(static_cast<const char*>(from_up.data()), from_up.size());
  pending_up_ = std::move(to_dst);
  auto self = shared_from_this();
  auto after_client = [self](error_code ec, size_t) {
    if (ec) return self->Finish();
    asio::async_write(self->dst_, asio::buffer(self->pending_up_), [self](error_code ec2, size_t n) {
      Wipe(self->pending_up_.data(), self->pending_up_.size());  // it may hold a secret's value
      if (ec2) return self->Finish();
      self->up_.bytes += n;
      self->StartTunnel();
    });
  };
  out_ += pending_down_;
  down_.bytes += pending_down_.size();
  if (out_.empty()) return after_client({}, 0);
  asio::async_write(client_, asio::buffer(out_), after_client);
}

void ProxyConn::Reply(int status, const std::string& reason, const std::string& decision, const std::string& rule) {
  rec_.status = status;
  rec_.decision = decision;
  rec_.rule = rule;
  rec_.reason = reason;
  out_ = RefusalResponse(status, rule, reason);
  dst_.close();
  client_.expires_after(std::chrono::seconds(5));
  asio::async_write(client_, asio::buffer(out_), [self = shared_from_this()](error_code ec, size_t) {
    if (ec) return self->Finish();
    // Shut our side, then read until the client closes (bounded by the timer above):
    // closing with unread request bytes queued would send a reset that can destroy the
    // answer before the client reads it.
    error_code ignored;
    self->client_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    self->Drain();
  });
}

void ProxyConn::Drain() {
  client_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](error_code ec, size_t) {
    if (ec) return self->Finish();
    self->Drain();
  });
}

void ProxyConn::Close() {
  finished_ = true;
  error_code ignored;
  client_.socket().close(ignored);
  dst_.socket().close(ignored);
  timer_.cancel();
}

void ProxyConn::Finish() {
  if (finished_) return;
  Close();
  rec_.bytes_up = up_.bytes;
  rec_.bytes_down = down_.bytes;
  rec_.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0_).count();
  if (rec_.decision.empty()) rec_.decision = "error";
  if (rec_.reason.empty()) rec_.reason = reason_;
  srv_->audit.Write(rec_);
  log::Debug("proxy: " + rec_.method + " " + Authority(rec_.host, rec_.port) + " " + rec_.decision + " (" +
             rec_.rule + ")");
}



void ProxyServer::Impl::Accept() {
  if (!accepting) return;
  acceptor->async_accept([self = shared_from_this()](error_code ec, tcp::socket s) {
    if (!self->accepting) return;
    if (ec) {
      // Out of file descriptors (or a transient error): back off instead of spinning.
      log::Warn("proxy: accept: " + ec.message());
      self->retry.expires_after(std::chrono::milliseconds(100));
      self->retry.async_wait([self](error_code e) {
        if (!e) self->Accept();
      });
      return;
    }
    if (self->active >= self->opts.max_connections) {
      std::make_shared<ProxyConn>(self, std::move(s), false)->Refuse503();
    } else {
      std::make_shared<ProxyConn>(self, std::move(s), true)->Start();
    }
    self->Accept();
  });
}

ProxyServer::ProxyServer(asio::io_context& io, ProxyOptions opts, std::unique_ptr<Resolver> resolver, AuditLog audit)
    : impl_(std::make_shared<Impl>(io, std::move(opts), std::move(resolver), std::move(audit))) {}

ProxyServer::~ProxyServer() { StopAccepting(); }

Status ProxyServer::Serve(UniqueFd listener) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0) return ErrnoError("getsockname");
  try {
    impl_->acceptor = std::make_unique<tcp::acceptor>(impl_->io);
    impl_->acceptor->assign(ss.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), listener.release());
  } catch (const boost::system::system_error& e) {
    return MakeError(std::string("proxy: listen socket: ") + e.what(), e.code().value());
  }
  impl_->accepting = true;
  impl_->Accept();
  return Ok();
}

void ProxyServer::StopAccepting() {
  if (!impl_->accepting) return;
  impl_->accepting = false;
  error_code ignored;
  impl_->acceptor->close(ignored);
  impl_->retry.cancel();
}

size_t ProxyServer::active() const { return impl_->active; }

}  // namespace sandshim::net
