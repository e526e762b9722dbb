// The filtering proxy: HTTP CONNECT tunnels and absolute-form plain-HTTP forwarding, one
// single-threaded io_context. Per connection:
//   1. read the request head (Beast; limit --max-header-bytes -> 431, malformed -> 400);
//   2. the request gate (request_gate.h, pure; the TLS interceptor calls the same one): who
//      asks (context credentials), domain rules on the requested host and port (deny wins;
//      403 names the rule), and for plain HTTP the body's framing and the secrets;
//   3. resolve once, check every address against the address policy (any refused -> 403),
//      connect to a checked address: the connection is pinned to what was checked and the
//      name is never resolved again for it, so DNS rebinding cannot switch it;
//      or, with an upstream proxy, CONNECT through it (the upstream resolves and is trusted
//      with the address check; IP-literal destinations are still checked here);
//   4. relay bytes both ways through a 1 MiB buffer (or splice(2) through a pipe);
//   5. one audit line when the connection ends.
// Plain HTTP is rewritten to origin form with hop-by-hop and Proxy-* headers removed and
// "Connection: close" added, so the origin closes after one response; anything further the
// client sends on that connection can only reach the same checked destination.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"
#include "shim/net/address_policy.h"
#include "shim/net/audit.h"
#include "shim/net/context_egress.h"
#include "shim/net/domain_rules.h"
#include "shim/net/resolver.h"
#include "shim/net/tls_intercept.h"
#include "shim/net/upstream_url.h"

namespace sandshim::net {

struct ProxyOptions {
  DomainRules rules;
  AddressPolicy addresses;
  UpstreamProxy upstream;
  std::string session;
  // The session's credential contexts (context_egress.h); null: every request is the session's.
  std::shared_ptr<ContextEgress> contexts;
  // Native: the one context whose namespace reaches this relay (docs/CONTEXTS.md): the
  // connection's path names the context, so another context's credentials replayed here are
  // refused (403 "context-path"). Empty: the credentials alone say who asks (gVisor, where
  // every context reaches the one session relay).
  std::string bound_context;
  // gVisor: a connection may start with a context's path line (context_egress.h), which binds
  // it to that context as bound_context binds a whole relay.
  bool context_paths = false;
  size_t max_connections = 512;
  size_t max_header_bytes = 16 * 1024;
  std::chrono::milliseconds header_timeout{30'000};
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds idle_timeout{600'000};
  bool splice = false;  // relay tunnels with splice(2) instead of read/send (see PumpCopy)
  // Secrets (secret_book.h): injected into plain HTTP heads; CONNECTs to their hosts are
  // intercepted (tls_intercept.h). Null: none. Its audit pointer is set by the server.
  std::shared_ptr<InterceptShared> secrets;
};

class ProxyServer {
 public:
  ProxyServer(boost::asio::io_context& io, ProxyOptions opts, std::unique_ptr<Resolver> resolver, AuditLog audit);
  ~ProxyServer();
  // Starts accepting on a bound, listening TCP socket (created by the caller, possibly
  // inside another network namespace).
  Status Serve(UniqueFd listener);
  // Stops accepting; open connections finish on their own.
  void StopAccepting();
  size_t active() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace sandshim::net
