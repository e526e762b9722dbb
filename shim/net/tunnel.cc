// The bytes of an allowed connection, both ways, until both sides are done or it is idle
// too long: non-blocking reads and writes (or splice(2)) through a TunnelDir per direction.
#include <sys/socket.h>

#include <boost/asio/post.hpp>

#include "shim/net/proxy_conn.h"

namespace sandshim::net {

namespace asio = boost::asio;
using tcp = ProxyConn::tcp;
using error_code = ProxyConn::error_code;
using Clock = ProxyConn::Clock;

void ProxyConn::StartTunnel() {
  for (auto* d : {&up_, &down_})
    if (srv_->opts.splice && !d->OpenPipe()) return Finish();
  error_code ignored;
  client_.socket().native_non_blocking(true, ignored);
  dst_.socket().native_non_blocking(true, ignored);
  last_ = Clock::now();
  ArmIdle();
  Pump(true);
  Pump(false);
}

void ProxyConn::ArmIdle() {
  auto idle = srv_->opts.idle_timeout;
  timer_.expires_at(last_ + idle);
  timer_.async_wait([self = shared_from_this()](error_code ec) {
    if (ec || self->finished_) return;
    if (Clock::now() - self->last_ >= self->srv_->opts.idle_timeout) {
      self->rec_.reason = "idle timeout";
      return self->Finish();
    }
    self->ArmIdle();
  });
}

// Moves bytes src -> held (a pipe or a buffer) -> dst until a socket would block, then
// waits for that socket. A bounded number of rounds per call keeps one busy tunnel from
// starving the others on this single thread.
void ProxyConn::Pump(bool up) {
  if (finished_) return;
  TunnelDir& d = up ? up_ : down_;
  tcp::socket& src = up ? client_.socket() : dst_.socket();
  tcp::socket& dst = up ? dst_.socket() : client_.socket();
  auto self = shared_from_this();
  auto wait = [&](tcp::socket& s, tcp::socket::wait_type w) {
    s.async_wait(w, [self, up](error_code ec) {
      if (ec) return self->Finish();
      self->Pump(up);
    });
  };
  for (int round = 0; round < 64; ++round) {
    if (d.held == 0 && !d.eof && d.limit && *d.limit == 0) {
      // The request is complete: the client is not read again. No half-close towards
      // the origin (some take it for an abort); its answer ends the connection.
      d.done = true;
      if (up_.done && down_.done) Finish();
      return;
    }
    if (d.held == 0 && !d.eof) {
      ssize_t n = d.Fill(src.native_handle(), srv_->opts.splice);
      if (n > 0) {
        if (d.limit) *d.limit -= static_cast<uint64_t>(n);
        d.held = static_cast<size_t>(n);
      } else if (n == 0) {
        d.eof = true;
      } else if (errno == EAGAIN) {
        return wait(src, tcp::socket::wait_read);
      } else if (errno != EINTR) {
        return Finish();
      }
    }
    if (d.held > 0) {
      ssize_t n = d.Drain(dst.native_handle(), srv_->opts.splice);
      if (n > 0) {
        d.held -= static_cast<size_t>(n);
        d.bytes += static_cast<uint64_t>(n);
        last_ = Clock::now();
        continue;
      }
      if (n < 0 && errno == EAGAIN) return wait(dst, tcp::socket::wait_write);
      if (n < 0 && errno == EINTR) continue;
      return Finish();
    }
    if (d.eof) {
      // Half-close: the other side learns that this one is done sending, and may still answer.
      ::shutdown(dst.native_handle(), SHUT_WR);
      d.done = true;
      if (up_.done && down_.done) Finish();
      return;
    }
  }
  asio::post(srv_->io, [self, up] { self->Pump(up); });
}

}  // namespace sandshim::net
