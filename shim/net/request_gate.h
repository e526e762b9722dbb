// The request gate: one pure, socket-free decision per request head, for both transports
// (plain HTTP and CONNECT as the proxy reads them, proxy_server.cc; a request inside an
// intercepted TLS connection, tls_intercept.cc). Given who asks (the context and its domain
// rules), the parsed head and the secrets, the verdict is either a refusal (status, rule,
// reason: the transport writes it with RefusalResponse and audits it) or what to forward:
// the destination, the headers with the values in, the injected secrets' names and the
// body's length. A guard added here holds on both transports; the transports only move bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shim/net/domain_rules.h"
#include "shim/net/http_request.h"
#include "shim/net/secret_book.h"

namespace sandshim::net {

// A request head as parsed (Beast, in the transports), without sockets.
struct RequestHead {
  std::string method, target;
  HeaderList headers;
  bool transfer_encoding = false;
  std::optional<uint64_t> content_length;
};

// Who asks: the context its proxy credentials (or its connection's path) named.
struct Asker {
  std::string context;
  const DomainRules* rules = nullptr;  // never null when gating a proxy request
};

struct Verdict {
  int status = 0;  // 0: forward; otherwise refuse with this status
  std::string decision, rule, reason;
  Target target;           // host, port and (plain HTTP, TLS) origin form
  bool connect = false;    // a CONNECT: tunnel or intercept, no head to forward yet
  bool intercept = false;  // a CONNECT to a host some secret may go to over TLS
  HeaderList headers;      // what goes to the origin, values in (wipe after writing)
  std::vector<std::string> injected;
  uint64_t body = 0;  // request body bytes to forward after the head
  bool refused() const { return status != 0; }
};

// A request as the proxy reads it: CONNECT host:port, or an absolute-form http:// request.
Verdict GateProxyRequest(const RequestHead& head, const Asker& who, const SecretBook* secrets);
// A request read inside an intercepted TLS connection to `to` (allowed when its CONNECT was).
Verdict GateTlsRequest(const RequestHead& head, const Target& to, const Asker& who, const SecretBook* secrets);

}  // namespace sandshim::net
