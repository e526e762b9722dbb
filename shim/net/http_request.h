// The pure parts of the proxy's HTTP handling (unit-tested): where a request wants to go,
// and which headers are the proxy's business rather than the origin's. Beast parses the
// request head itself; this only interprets its request target.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::net {

struct Target {
  std::string host;         // normalised (lower case, no brackets, no trailing dot)
  uint16_t port = 0;
  std::string origin_form;  // "/path?query" for plain HTTP; empty for CONNECT
};

// CONNECT's authority form: "host:port" or "[v6]:port"; the port is required.
Result<Target> ParseConnectTarget(std::string_view target);
// A proxy request's absolute form: "http://host[:port][/path][?query]". https:// (and any
// other scheme) is refused: TLS goes through CONNECT.
Result<Target> ParseAbsoluteTarget(std::string_view target);
// Headers that describe the client-to-proxy hop and must not reach the origin: Connection,
// Keep-Alive, Proxy-*, TE, Trailer, Upgrade. Transfer-Encoding stays: the body is relayed
// as the client framed it.
bool IsHopByHop(std::string_view name);
// "host:port" for a Host header or a CONNECT line, bracketing IPv6 literals.
std::string Authority(std::string_view host, uint16_t port);

// The client's headers that may reach the origin, decided before any secret goes in (so an
// injection is never audited for a header that is then dropped): not Host (OriginHead writes
// the checked one), not the hop-by-hop ones, not those the client's Connection header names
// (RFC 9110 7.6.1). A Connection naming Content-Length, Transfer-Encoding or Host is refused:
// dropping the length the proxy framed the body by would let the body reach the origin as a
// second request nobody judged.
Result<std::vector<std::pair<std::string, std::string>>> ForwardedHeaders(
    const std::vector<std::pair<std::string, std::string>>& headers);

// The head sent to the origin for a plain-HTTP request: the request line, Host (always the
// authority that was checked: a CDN routes by Host, so "GET http://allowed/ Host: elsewhere"
// would reach an origin nobody allowed), the gate's headers (ForwardedHeaders, then the
// secrets), Connection: close. default_port: the scheme's (80; 443 inside an intercepted TLS
// connection), left out of Host.
std::string OriginHead(std::string_view method, const Target& t,
                       const std::vector<std::pair<std::string, std::string>>& headers, uint16_t default_port = 80);

// One plain-HTTP request per connection, each one checked: after a head, only its own body
// goes to the origin. The body's length comes from Content-Length; a Transfer-Encoding body
// is refused (its end is found only by parsing the chunks, and a second request could
// follow it unchecked). Bytes after the body (pipelined requests) are never forwarded.
Result<uint64_t> PlainBodyLength(bool has_transfer_encoding, bool has_content_length, uint64_t content_length);
// Splits bytes read after a head into what belongs to the body (forwarded) and what
// follows it (dropped), given how much of the body is still to come.
std::pair<std::string_view, std::string_view> SplitAfterHead(std::string_view buffered, uint64_t body_left);

}  // namespace sandshim::net
