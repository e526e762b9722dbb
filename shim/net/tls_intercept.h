// A CONNECT to a host some secret is for: instead of an opaque tunnel, the proxy speaks TLS
// on both sides so that it can put the secret's value into the request.
//   1. TLS to the origin (already connected to a checked, pinned address), verified against
//      the proxy's trust store for the requested name (SNI + host check); a failure answers
//      the CONNECT with 502 ("tls-verify") and nothing reaches the client's TLS;
//   2. "200 Connection established", then TLS to the client with a leaf for the name minted
//      by the session CA;
//   3. one request head read (size and time limits as for plain HTTP), judged by the request
//      gate (request_gate.h, the same function plain HTTP goes through; 403 inside TLS when
//      refused), the inject audit lines and the rewritten head written by origin_writer.h,
//      and its Content-Length body to the origin ("Connection: close": one request per
//      connection, as for plain HTTP);
//   4. the answer back until the origin closes; one audit line for the connection.
#pragma once

#include <chrono>
#include <memory>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include "shim/net/audit.h"
#include "shim/net/http_request.h"
#include "shim/net/secret_book.h"
#include "shim/net/session_ca.h"

namespace sandshim::net {

struct InterceptShared {
  SecretBook book;
  LeafMinter minter;
  std::unique_ptr<boost::asio::ssl::context> origin_tls;  // verify_peer against the trust store
  AuditLog* audit = nullptr;
  size_t max_header_bytes = 16 * 1024;
  std::chrono::milliseconds header_timeout{30'000}, handshake_timeout{10'000}, idle_timeout{600'000};
};

// The client context for origins: TLS 1.2+, peer verification against trust_file (a PEM
// bundle) or, when empty, the system's default paths.
Result<std::unique_ptr<boost::asio::ssl::context>> MakeOriginTls(const std::string& trust_file);

// Takes over both sockets; rec is the connection's audit record so far (client, host, rule...).
// hold: kept alive as long as the interception runs (the proxy's connection slot).
void InterceptTls(std::shared_ptr<InterceptShared> shared, boost::asio::ip::tcp::socket client,
                  boost::asio::ip::tcp::socket origin, Target target, AuditRecord rec, std::shared_ptr<void> hold);

}  // namespace sandshim::net
