#include "shim/net/tls_intercept.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "shim/core/log.h"
#include "shim/net/beast_head.h"
#include "shim/net/domain_rules.h"
#include "shim/net/origin_writer.h"
#include "shim/net/request_gate.h"

namespace sandshim::net {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace http = boost::beast::http;
using asio::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;

Result<std::unique_ptr<ssl::context>> MakeOriginTls(const std::string& trust_file) {
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  error_code ec;
  if (trust_file.empty()) ctx->set_default_verify_paths(ec);
  else ctx->load_verify_file(trust_file, ec);
  if (ec) return MakeError("trust store " + (trust_file.empty() ? std::string("(system)") : trust_file) + ": " + ec.message(), EINVAL);
  ctx->set_verify_mode(ssl::verify_peer);
  return ctx;
}

namespace {

class Interceptor : public std::enable_shared_from_this<Interceptor> {
 public:
  Interceptor(std::shared_ptr<InterceptShared> sh, tcp::socket client, tcp::socket origin, Target t, AuditRecord rec)
      : sh_(std::move(sh)),
        plain_(std::move(client)),
        origin_(std::move(origin), *sh_->origin_tls),
        timer_(plain_.get_executor()),
        target_(std::move(t)),
        rec_(std::move(rec)),
        t0_(Clock::now()) {}

  ~Interceptor() {
    Wipe(head_.data(), head_.size());
    for (auto& [k, v] : v_.headers) Wipe(v.data(), v.size());
  }
  std::shared_ptr<void> hold;

  void Start() {
    SSL* s = origin_.native_handle();
    X509_VERIFY_PARAM* param = SSL_get0_param(s);
    if (IsIpLiteral(target_.host)) {
      X509_VERIFY_PARAM_set1_ip_asc(param, target_.host.c_str());
    } else {
      SSL_set_tlsext_host_name(s, target_.host.c_str());
      X509_VERIFY_PARAM_set1_host(param, target_.host.c_str(), 0);
    }
    Deadline(sh_->handshake_timeout);
    origin_.async_handshake(ssl::stream_base::client, [self = shared_from_this()](error_code ec) {
      if (ec) return self->OriginRefused(ec);
      self->Established();
    });
  }

 private:
  // Closes everything when the current step takes too long.
  void Deadline(std::chrono::milliseconds d) {
    timer_.expires_after(d);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (ec) return;
      if (self->rec_.reason.empty()) self->rec_.reason = "timeout";
      self->Finish();
    });
  }

  void OriginRefused(error_code ec) {
    long v = SSL_get_verify_result(origin_.native_handle());
    std::string why = v != X509_V_OK ? std::string("certificate not trusted: ") + X509_verify_cert_error_string(v)
                                     : "TLS handshake: " + ec.message();
    rec_.decision = "error";
    rec_.rule = "tls-verify";
    rec_.status = 502;
    rec_.reason = Authority(target_.host, target_.port) + ": " + why;
    out_ = RefusalResponse(502, rec_.rule, rec_.reason);
    asio::async_write(plain_, asio::buffer(out_), [self = shared_from_this()](error_code, size_t) { self->Finish(); });
  }

  void Established() {
    auto leaf = sh_->minter.ContextFor(target_.host);
    if (!leaf) {
      rec_.reason = leaf.error().msg;
      return Finish();
    }
    leaf_ = *leaf;
    out_ = "HTTP/1.1 200 Connection established\r\n\r\n";
    asio::async_write(plain_, asio::buffer(out_), [self = shared_from_this()](error_code ec, size_t) {
      if (ec) return self->Finish();
      self->client_.emplace(std::move(self->plain_), *self->leaf_);
      self->client_->async_handshake(ssl::stream_base::server, [self](error_code ec2) {
        if (ec2) {
          self->rec_.reason = "client TLS handshake: " + ec2.message();
          return self->Finish();
        }
        self->ReadHead();
      });
    });
  }

  void ReadHead() {
    Deadline(sh_->header_timeout);
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(sh_->max_header_bytes));
    parser_->eager(false);
    http::async_read_header(*client_, buf_, *parser_, [self = shared_from_this()](error_code ec, size_t) {
      if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == ssl::error::stream_truncated)
        return self->Finish();
      if (ec == http::error::header_limit) return self->Refuse(431, "error", "max-header-bytes", "request head too large");
      if (ec) return self->Refuse(400, "error", "malformed", "malformed request: " + ec.message());
      self->OnHead();
    });
  }

  void OnHead() {
    auto head = HeadOf(*parser_);
    rec_.method = head.method;
    v_ = GateTlsRequest(head, target_, Asker{rec_.context, nullptr}, &sh_->book);
    for (auto& [k, v] : head.headers) Wipe(v.data(), v.size());
    if (v_.refused()) return Refuse(v_.status, v_.decision, v_.rule, v_.reason);
    AuditInjections(*sh_->audit, rec_, v_);
    rec_.path = AuditPath(v_.target.origin_form);
    left_ = v_.body;
    head_ = WriteOriginHead(rec_.method, v_, 443);
    auto extra = buf_.data();
    std::string_view buffered(static_cast<const char*>(extra.data()), extra.size());
    auto [forward, dropped] = SplitAfterHead(buffered, left_);
    head_.append(forward);
    left_ -= forward.size();
    buf_.consume(buf_.size());
    timer_.cancel();
    asio::async_write(origin_, asio::buffer(head_), [self = shared_from_this()](error_code ec, size_t n) {
      Wipe(self->head_.data(), self->head_.size());
      if (ec) return self->Finish();
      self->rec_.bytes_up += n;
      self->rec_.decision = "allow";
      self->rec_.status = 200;
      self->Idle();
      self->PumpUp();
      self->PumpDown();
    });
  }

  void Idle() {
    last_ = Clock::now();
    timer_.expires_after(sh_->idle_timeout);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (ec) return;
      if (Clock::now() - self->last_ >= self->sh_->idle_timeout) {
        self->rec_.reason = "idle timeout";
        return self->Finish();
      }
      self->Idle();
    });
  }

  // The request body, and nothing after it (it was not checked).
  void PumpUp() {
    if (left_ == 0 || finished_) return;
    size_t want = static_cast<size_t>(std::min<uint64_t>(left_, sizeof up_));
    client_->async_read_some(asio::buffer(up_, want), [self = shared_from_this()](error_code ec, size_t n) {
      if (ec) return;  // the answer may still come
      self->left_ -= n;
      self->last_ = Clock::now();
      asio::async_write(self->origin_, asio::buffer(self->up_, n), [self](error_code ec2, size_t m) {
        if (ec2) return self->Finish();
        self->rec_.bytes_up += m;
        self->PumpUp();
      });
    });
  }

  void PumpDown() {
    origin_.async_read_some(asio::buffer(down_), [self = shared_from_this()](error_code ec, size_t n) {
      if (ec) return self->CloseClient();  // eof or truncation: the origin is done
      self->last_ = Clock::now();
      asio::async_write(*self->client_, asio::buffer(self->down_, n), [self](error_code ec2, size_t m) {
        if (ec2) return self->Finish();
        self->rec_.bytes_down += m;
        self->PumpDown();
      });
    });
  }

  void CloseClient() {
    if (finished_) return;
    timer_.expires_after(std::chrono::seconds(2));
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->Finish();
    });
    client_->async_shutdown([self = shared_from_this()](error_code) { self->Finish(); });
  }

  void Refuse(int status, const std::string& decision, const std::string& rule, const std::string& reason) {
    rec_.status = status;
    rec_.decision = decision;
    rec_.rule = rule;
    rec_.reason = reason;
    out_ = RefusalResponse(status, rule, reason);
    timer_.expires_after(std::chrono::seconds(5));
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->Finish();
    });
    asio::async_write(*client_, asio::buffer(out_), [self = shared_from_this()](error_code, size_t) { self->CloseClient(); });
  }

  void Finish() {
    if (finished_) return;
    finished_ = true;
    timer_.cancel();
    error_code ignored;
    origin_.lowest_layer().close(ignored);
    if (client_) client_->lowest_layer().close(ignored);
    plain_.close(ignored);
    if (rec_.decision.empty()) rec_.decision = "error";
    rec_.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0_).count();
    sh_->audit->Write(rec_);
    log::Debug("proxy: intercepted " + rec_.method + " " + Authority(rec_.host, rec_.port) + " " + rec_.decision);
  }

  std::shared_ptr<InterceptShared> sh_;
  tcp::socket plain_;
  ssl::stream<tcp::socket> origin_;
  std::optional<ssl::stream<tcp::socket>> client_;
  std::shared_ptr<ssl::context> leaf_;
  asio::steady_timer timer_;
  Target target_;
  AuditRecord rec_;
  boost::beast::flat_buffer buf_;
  std::optional<http::request_parser<http::empty_body>> parser_;
  std::string out_, head_;
  Verdict v_;  // the request gate's for the one request read
  uint64_t left_ = 0;
  bool finished_ = false;
  Clock::time_point t0_, last_;
  char up_[16384], down_[65536];
};

}  // namespace

void InterceptTls(std::shared_ptr<InterceptShared> shared, tcp::socket client, tcp::socket origin, Target target,
                  AuditRecord rec, std::shared_ptr<void> hold) {
  auto i = std::make_shared<Interceptor>(std::move(shared), std::move(client), std::move(origin), std::move(target),
                                         std::move(rec));
  i->hold = std::move(hold);
  i->Start();
}

}  // namespace sandshim::net
