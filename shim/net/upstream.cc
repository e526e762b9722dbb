// The CONNECT through an upstream proxy (--proxy): the proxy is reached, asked for a tunnel
// to the target the gate allowed (the upstream resolves the name), and its 2xx answer read;
// from there the connection goes on as a direct one would (OnConnected).
#include <boost/asio/write.hpp>

#include "shim/net/http_request.h"
#include "shim/net/proxy_conn.h"

namespace sandshim::net {

namespace asio = boost::asio;
using tcp = ProxyConn::tcp;
using error_code = ProxyConn::error_code;
namespace http = boost::beast::http;

void ProxyConn::ConnectUpstream() {
  const auto& up = srv_->opts.upstream;
  auto connect = [self = shared_from_this()](Result<Addresses> r) {
    if (!r) return self->Reply(502, "upstream proxy: " + r.error().msg, "error", "upstream");
    self->rec_.address = "upstream " + Authority((*r)[0].to_string(), self->srv_->opts.upstream.port);
    self->dst_.expires_after(self->srv_->opts.connect_timeout);
    self->dst_.async_connect(tcp::endpoint((*r)[0], self->srv_->opts.upstream.port),
                             [self](error_code ec) {
                               if (ec) return self->Reply(502, "upstream proxy: " + ec.message(), "error", "upstream");
                               self->UpstreamConnect();
                             });
  };
  auto a = ParseAddress(up.host);
  if (a) return connect(Addresses{*a});
  srv_->resolver->Resolve(up.host, connect);
}

void ProxyConn::UpstreamConnect() {
  std::string auth = Authority(verdict_.target.host, verdict_.target.port);
  out_ = "CONNECT " + auth + " HTTP/1.1\r\nHost: " + auth + "\r\n";
  if (!srv_->opts.upstream.authorization.empty())
    out_ += "Proxy-Authorization: " + srv_->opts.upstream.authorization + "\r\n";
  out_ += "\r\n";
  asio::async_write(dst_, asio::buffer(out_), [self = shared_from_this()](error_code ec, size_t) {
    if (ec) return self->Reply(502, "upstream proxy: " + ec.message(), "error", "upstream");
    self->up_parser_.emplace();
    self->up_parser_->header_limit(static_cast<uint32_t>(self->srv_->opts.max_header_bytes));
    self->up_parser_->skip(true);
    http::async_read_header(self->dst_, self->upbuf_, *self->up_parser_, [self](error_code ec2, size_t) {
      if (ec2) return self->Reply(502, "upstream proxy: " + ec2.message(), "error", "upstream");
      int st = self->up_parser_->get().result_int();
      if (st / 100 != 2)
        return self->Reply(502, "upstream proxy answered " + std::to_string(st), "error", "upstream");
      self->OnConnected();
    });
  });
}

}  // namespace sandshim::net
