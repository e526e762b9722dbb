// Inside the proxy server (proxy_server.h), shared by its three files only: the server's
// state and one client connection's. A connection's steps live where their job is:
// proxy_server.cc the request (head, gate, resolve, connect, answer, audit line),
// upstream.cc the CONNECT through an upstream proxy, tunnel.cc the bytes both ways.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "shim/net/proxy_server.h"
#include "shim/net/request_gate.h"
#include "shim/net/tunnel_dir.h"

namespace sandshim::net {

// The server: its options, resolver and audit log, the listener, the open connections' count.
struct ProxyServer::Impl : std::enable_shared_from_this<Impl> {
  boost::asio::io_context& io;
  ProxyOptions opts;
  std::unique_ptr<Resolver> resolver;
  AuditLog audit;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor;
  boost::asio::steady_timer retry;
  size_t active = 0;
  bool accepting = false;

  Impl(boost::asio::io_context& i, ProxyOptions o, std::unique_ptr<Resolver> r, AuditLog a)
      : io(i), opts(std::move(o)), resolver(std::move(r)), audit(std::move(a)), retry(i) {
    if (opts.secrets) opts.secrets->audit = &audit;
  }
  void Accept();
};

// One client connection, from the request head to the end of the relay.
class ProxyConn : public std::enable_shared_from_this<ProxyConn> {
 public:
  using tcp = boost::asio::ip::tcp;
  using error_code = boost::system::error_code;
  using Clock = std::chrono::steady_clock;

  ProxyConn(std::shared_ptr<ProxyServer::Impl> srv, tcp::socket s, bool counted);
  ~ProxyConn();
  void Start();
  // The connection limit is hit: answer 503 without reading the request.
  void Refuse503();

 private:
  // proxy_server.cc
  void ReadPathLine();
  void ReadHead();
  void OnHead(error_code ec);
  std::optional<Asker> WhoAsks(std::string_view proxy_authorization);
  void OnResolved(Result<Addresses> r);
  void ConnectNext(size_t i);
  void OnConnected();
  void Reply(int status, const std::string& reason, const std::string& decision, const std::string& rule);
  void Drain();
  void Close();
  void Finish();
  // upstream.cc
  void ConnectUpstream();
  void UpstreamConnect();
  // tunnel.cc
  void StartTunnel();
  void ArmIdle();
  void Pump(bool up);

  std::shared_ptr<ProxyServer::Impl> srv_;
  boost::beast::tcp_stream client_, dst_;
  boost::beast::flat_buffer buf_, upbuf_;
  std::string path_context_;  // the context the connection's path line named (context_paths)
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> parser_;
  std::optional<boost::beast::http::response_parser<boost::beast::http::empty_body>> up_parser_;
  boost::asio::steady_timer timer_;
  bool counted_;
  bool finished_ = false;
  Verdict verdict_;  // the request gate's: where to, and (plain HTTP) the head with values in
  Addresses addrs_;
  std::string last_error_ = "no address", reason_;
  std::string out_, pending_up_, pending_down_;
  AuditRecord rec_;
  Clock::time_point t0_, last_;
  TunnelDir up_, down_;
  char scratch_[4096];
};

}  // namespace sandshim::net
